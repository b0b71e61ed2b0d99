#include "appell/numeric/regressor_numbers.hpp"

#include <cmath>
#include <stdexcept>

#include "appell/numeric/linearization.hpp"

namespace appell::num {

namespace {

void check(const Eigen::VectorXd& v, std::size_t n, const std::string& name) {
  if (static_cast<std::size_t>(v.size()) != n)
    throw std::invalid_argument(name + ": " + std::to_string(v.size()) + " values for " +
                                std::to_string(n) + " coordinates");
  for (Eigen::Index i = 0; i < v.size(); ++i)
    if (!std::isfinite(v(i)))
      throw std::invalid_argument(name + ": value " + std::to_string(i + 1) +
                                  " is not a finite number");
}

double number(const GiNaC::ex& e, const std::string& what) {
  const GiNaC::ex v = GiNaC::evalf(e);
  if (!GiNaC::is_a<GiNaC::numeric>(v) || !GiNaC::ex_to<GiNaC::numeric>(v).is_real())
    throw model::ComputationError("regressor: " + what + " is not a real number");
  return GiNaC::ex_to<GiNaC::numeric>(v).to_double();
}

}  // namespace

RegressorNumbers regressor_numbers(const model::Model& model, const model::Values& values,
                                   const RegressorState& state, bool base) {
  // The model first: a model the regressor does not cover is refused whatever the state.
  const RegressorEvaluator evaluator(model, values);
  const std::size_t n = model.dof();
  check(state.q, n, "q");
  check(state.qd, n, "qd");
  check(state.qdd, n, "qdd");
  if (!std::isfinite(state.t)) throw std::invalid_argument("t: not a finite number");

  RegressorNumbers out;
  for (const auto& c : model.coordinates) out.coordinates.push_back(c.name);
  out.standard = principles::standard_parameters(model);
  const model::BoundValues bound = model::bind(model, values);
  GiNaC::exmap numbers;
  for (const auto& p : model.parameters) numbers[p.symbol] = bound.parameters.at(p.name);
  out.values.resize(static_cast<Eigen::Index>(out.standard.size()));
  for (std::size_t k = 0; k < out.standard.size(); ++k)
    out.values(static_cast<Eigen::Index>(k)) =
        number(out.standard[k].value.subs(numbers), out.standard[k].name);
  out.regressor = without_rounding_noise(evaluator.evaluate(state.t, state.q, state.qd, state.qdd));
  if (!base) return out;
  out.base = base_parameters(model, values);
  out.base_values.resize(static_cast<Eigen::Index>(out.base->base.size()));
  for (std::size_t k = 0; k < out.base->base.size(); ++k)
    out.base_values(static_cast<Eigen::Index>(k)) =
        number(out.base->base[k].value, out.standard[out.base->base[k].kept].name + "R");
  out.base_regressor = reduced_regressor(*out.base, out.regressor);
  return out;
}

}  // namespace appell::num
