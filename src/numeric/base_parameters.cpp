#include "appell/numeric/base_parameters.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "appell/principles/recursive_dynamics.hpp"
#include "appell/sym/scalar_program.hpp"

namespace appell::num {

namespace {

using model::ComputationError;
using model::ModelError;

// Where to point at a model the regressor does not cover: the first item that is the reason.
model::SourceLocation where_not_covered(const model::Model& model) {
  if (model.relative_to) return model.relative_to_where;
  if (!model.constraints.empty()) return model.constraints.front().where;
  if (model.has_speeds()) return model.speeds_where;
  for (const auto& b : model.bodies)
    if (principles::regressor_not_covered(model).find("body " + b.name + ",") == 0) return b.where;
  for (const auto& p : model.particles)
    if (principles::regressor_not_covered(model).find("particle " + p.name + ",") == 0)
      return p.where;
  return {model.source.empty() ? model.name : model.source, 0, 0};
}

// Uniform doubles in [0, 1) from the top 53 bits of a 64-bit Mersenne twister: its sequence is
// fixed by the C++ standard (std::uniform_real_distribution's is not), so every platform draws
// the same states and the results are the same everywhere.
class Random {
 public:
  double between(double a, double b) {
    return a + (b - a) * static_cast<double>(engine_() >> 11) * 0x1.0p-53;
  }

 private:
  std::mt19937_64 engine_{29};
};

// The shortest fraction with a denominator up to 1000 that `x` equals to 1e-10, else its
// 12-significant-digit decimal, exactly (what the fits give is the rounding of one of these).
GiNaC::numeric snapped(double x) {
  if (x == 0.0) return 0;
  const double tolerance = 1e-10 * std::max(1.0, std::abs(x));
  for (int q = 1; q <= 1000; ++q) {
    const double p = std::round(x * q);
    if (std::abs(x - p / q) <= tolerance)
      return GiNaC::numeric(static_cast<long>(p)) / GiNaC::numeric(q);
  }
  char buffer[64];
  const auto end =
      std::to_chars(buffer, buffer + sizeof buffer, x, std::chars_format::scientific, 11).ptr;
  const std::string text(buffer, end);  // "-1.80625000000e-01"
  const std::size_t e = text.find('e');
  std::string digits;
  for (std::size_t i = 0; i < e; ++i)
    if (text[i] >= '0' && text[i] <= '9') digits += text[i];
  const int exponent = std::stoi(text.substr(e + 1)) - static_cast<int>(digits.size()) + 1;
  const GiNaC::numeric value =
      GiNaC::numeric(digits.c_str()) * GiNaC::numeric(10).power(GiNaC::numeric(exponent));
  return x < 0 ? -value : value;
}

double to_double(const GiNaC::ex& e) {
  const GiNaC::ex v = GiNaC::evalf(e);
  if (!GiNaC::is_a<GiNaC::numeric>(v) || !GiNaC::ex_to<GiNaC::numeric>(v).is_real())
    throw ComputationError("base parameters: a value that is not a real number");
  return GiNaC::ex_to<GiNaC::numeric>(v).to_double();
}

}  // namespace

RegressorEvaluator::RegressorEvaluator(const model::Model& model, const model::Values& values) {
  const std::string reason = principles::regressor_not_covered(model);
  if (!reason.empty())
    throw ModelError(
        where_not_covered(model),
        "the regressor needs a tree of rigid bodies the recursions cover, not " + reason,
        model.name);
  std::set<std::string> names;
  for (const auto& p : model.parameters) names.insert(p.name);
  // Parameters stay variables in driven functions, so that base_parameters can vary them.
  const model::BoundValues bound = model::bind(model, values, names);
  principles::RecursionBuilder builder(model);
  n_ = model.dof();
  const GiNaC::symbol t = model.time_functions->time();
  variables_.push_back(t);
  for (const auto& s : builder.symbols())
    if (!s.is_equal(t)) variables_.push_back(s);
  for (const auto& p : model.parameters) {
    bool present = false;
    for (const auto& v : variables_) present = present || v.is_equal(p.symbol);
    if (!present) variables_.push_back(p.symbol);
  }
  const std::size_t first_qdd = variables_.size();
  for (std::size_t j = 0; j < n_; ++j) variables_.push_back(model.coordinate_symbol(j, 2));

  sym::ScalarProgram program;
  principles::RecursionInputs inputs;
  inputs.substitution = bound.driven;
  for (std::size_t i = 0; i < first_qdd; ++i) {
    inputs.symbols.push_back(variables_[i]);
    inputs.nodes.push_back(program.variable(static_cast<std::uint32_t>(i)));
  }
  for (std::size_t j = 0; j < n_; ++j) {
    inputs.qdd.push_back(program.variable(static_cast<std::uint32_t>(first_qdd + j)));
    inputs.extra.push_back(program.constant(0.0));
  }
  const std::vector<sym::Node> Y = builder.regressor(program, inputs);
  columns_ = 10 * (model.bodies.size() + model.particles.size());
  tape_ = std::make_shared<const sym::Tape>(program.tape(Y, variables_.size()));

  bound_.assign(variables_.size(), 0.0);
  t_.push_back(0);
  for (std::size_t j = 0; j < n_; ++j) {
    q_.push_back(variables_.size());
    qd_.push_back(variables_.size());
    qdd_.push_back(first_qdd + j);
  }
  for (std::size_t i = 0; i < first_qdd; ++i) {
    const GiNaC::symbol& s = variables_[i];
    for (std::size_t j = 0; j < n_; ++j) {
      if (s.is_equal(model.coordinate_symbol(j, 0))) q_[j] = i;
      if (s.is_equal(model.coordinate_symbol(j, 1))) qd_[j] = i;
    }
    if (auto it = bound.numbers.find(s); it != bound.numbers.end())
      bound_[i] = to_double(it->second);
  }
}

Eigen::MatrixXd RegressorEvaluator::evaluate(double t, const Eigen::VectorXd& q,
                                             const Eigen::VectorXd& qd,
                                             const Eigen::VectorXd& qdd) const {
  if (static_cast<std::size_t>(q.size()) != n_ || static_cast<std::size_t>(qd.size()) != n_ ||
      static_cast<std::size_t>(qdd.size()) != n_)
    throw std::invalid_argument("regressor: q, qd and qdd need one value per coordinate");
  std::vector<double> v = bound_;
  v.push_back(0.0);  // a slot for a coordinate Y does not read
  v[t_[0]] = t;
  for (std::size_t j = 0; j < n_; ++j) {
    v[q_[j]] = q[static_cast<Eigen::Index>(j)];
    v[qd_[j]] = qd[static_cast<Eigen::Index>(j)];
    v[qdd_[j]] = qdd[static_cast<Eigen::Index>(j)];
  }
  std::vector<double> out(n_ * columns_), workspace;
  tape_->evaluate(v.data(), out.data(), workspace);
  Eigen::MatrixXd Y(n_, columns_);
  for (std::size_t i = 0; i < n_; ++i)
    for (std::size_t c = 0; c < columns_; ++c)
      Y(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c)) = out[i * columns_ + c];
  return Y;
}

namespace {

// A monomial of the geometry: an exponent per parameter.
using Monomial = std::vector<int>;

std::vector<Monomial> monomials(std::size_t parameters, int degree) {
  std::vector<Monomial> out{Monomial(parameters, 0)};
  for (int d = 1; d <= degree; ++d) {
    // Every exponent vector of total degree d, in a fixed order.
    std::vector<Monomial> level{Monomial(parameters, 0)};
    for (int step = 0; step < d; ++step) {
      std::set<Monomial> next;
      for (const auto& m : level)
        for (std::size_t i = 0; i < parameters; ++i) {
          Monomial r = m;
          ++r[i];
          next.insert(r);
        }
      level.assign(next.begin(), next.end());
    }
    out.insert(out.end(), level.begin(), level.end());
  }
  return out;
}

// The state-and-parameter sampler of one evaluator: random t, q, q̇, q̈ and other functions of
// time; the parameters random around their values, or at them.
struct Sampler {
  const RegressorEvaluator& ev;
  const model::Model& model;
  std::vector<int> parameter;  // per variable: index into `geometry`, -1 for a state variable
  std::vector<std::size_t> geometry_variables;  // the variable of each geometric parameter
  Random random;

  Sampler(const RegressorEvaluator& e, const model::Model& m) : ev(e), model(m) {
    const auto& code = ev.tape().instructions();
    std::vector<bool> read(ev.variables().size(), false);
    for (const auto& c : code)
      if (c.op == sym::Op::Variable && c.a < read.size()) read[c.a] = true;
    parameter.assign(ev.variables().size(), -1);
    for (std::size_t i = 0; i < ev.variables().size(); ++i)
      for (const auto& p : model.parameters)
        if (ev.variables()[i].is_equal(p.symbol)) {
          parameter[i] = -2;  // a parameter Y does not read
          if (!read[i]) continue;
          parameter[i] = static_cast<int>(geometry_variables.size());
          geometry_variables.push_back(i);
        }
  }

  // Variables at a random state with the parameters random (around their values) or at their
  // bound values.
  std::vector<double> draw(bool random_parameters) {
    std::vector<double> v(ev.variables().size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (parameter[i] == -1) {
        v[i] = random.between(-2.0, 2.0);
      } else {
        const double at = ev.bound()[i];
        v[i] = !random_parameters ? at
               : at == 0.0        ? random.between(0.5, 1.5)
                                  : at * random.between(0.5, 1.5);
      }
    }
    return v;
  }
  // A random state at the parameters of `like` (one generic draw kept for the rank: the
  // groupings' coefficients depend on the parameters, so the rank is that at fixed ones).
  std::vector<double> draw_at(const std::vector<double>& like) {
    std::vector<double> v = draw(false);
    for (std::size_t i = 0; i < v.size(); ++i)
      if (parameter[i] != -1) v[i] = like[i];
    return v;
  }
  Eigen::MatrixXd Y(const std::vector<double>& v) const {
    std::vector<double> out(ev.dof() * ev.columns()), workspace;
    ev.tape().evaluate(v.data(), out.data(), workspace);
    Eigen::MatrixXd y(ev.dof(), ev.columns());
    for (std::size_t i = 0; i < ev.dof(); ++i)
      for (std::size_t c = 0; c < ev.columns(); ++c)
        y(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c)) = out[i * ev.columns() + c];
    return y;
  }
  double monomial(const Monomial& m, const std::vector<double>& v) const {
    double r = 1.0;
    for (std::size_t i = 0; i < m.size(); ++i)
      for (int e = 0; e < m[i]; ++e) r *= v[geometry_variables[i]];
    return r;
  }
};

// One grouped column written in kept ones: coefficient of each support column per monomial.
struct Grouping {
  std::vector<std::size_t> support;
  std::vector<Monomial> monomials;
  std::vector<std::vector<GiNaC::numeric>> coefficients;  // [support][monomial]
  bool exact = true;
};

// Whether Y_d = Σ c_k(p) Y_k holds at fresh random states (to 1e-8 of the terms' size).
bool verified(Sampler& s, std::size_t d, const Grouping& g, bool random_parameters) {
  for (int trial = 0; trial < 6; ++trial) {
    const std::vector<double> v = s.draw(random_parameters);
    const Eigen::MatrixXd y = s.Y(v);
    Eigen::VectorXd r = y.col(static_cast<Eigen::Index>(d));
    double scale = r.norm();
    for (std::size_t k = 0; k < g.support.size(); ++k) {
      double c = 0.0;
      for (std::size_t a = 0; a < g.monomials.size(); ++a)
        c += g.coefficients[k][a].to_double() * s.monomial(g.monomials[a], v);
      const auto column = y.col(static_cast<Eigen::Index>(g.support[k]));
      r -= c * column;
      scale += std::abs(c) * column.norm();
    }
    if (!(r.norm() <= 1e-8 * scale)) return false;
  }
  return true;
}

// Least squares of Y_d on Σ_k Σ_a c_ka p^a Y_k over random samples, rounded (snapped()).
std::optional<Grouping> fit(Sampler& s, std::size_t d, const std::vector<std::size_t>& support,
                            const std::vector<Monomial>& basis, bool random_parameters) {
  const std::size_t unknowns = support.size() * basis.size();
  const std::size_t n = s.ev.dof();
  // At least 8 states: a grouping lives in the few rows of the coordinates that move its mass,
  // and one state could make those few rows singular.
  const std::size_t samples = std::max<std::size_t>(8, (2 * unknowns + 20 + n - 1) / n);
  Eigen::MatrixXd A(static_cast<Eigen::Index>(samples * n), static_cast<Eigen::Index>(unknowns));
  Eigen::VectorXd b(static_cast<Eigen::Index>(samples * n));
  for (std::size_t k = 0; k < samples; ++k) {
    const std::vector<double> v = s.draw(random_parameters);
    const Eigen::MatrixXd y = s.Y(v);
    const auto rows = Eigen::seqN(static_cast<Eigen::Index>(k * n), static_cast<Eigen::Index>(n));
    b(rows) = y.col(static_cast<Eigen::Index>(d));
    for (std::size_t c = 0; c < support.size(); ++c)
      for (std::size_t a = 0; a < basis.size(); ++a)
        A(rows, static_cast<Eigen::Index>(c * basis.size() + a)) =
            s.monomial(basis[a], v) * y.col(static_cast<Eigen::Index>(support[c]));
  }
  const Eigen::VectorXd x = A.colPivHouseholderQr().solve(b);
  const double largest = x.cwiseAbs().maxCoeff();
  Grouping g{support, basis, {}, true};
  for (std::size_t c = 0; c < support.size(); ++c) {
    g.coefficients.emplace_back();
    for (std::size_t a = 0; a < basis.size(); ++a) {
      const double value = x(static_cast<Eigen::Index>(c * basis.size() + a));
      g.coefficients.back().push_back(std::abs(value) <= 1e-10 * largest ? GiNaC::numeric(0)
                                                                         : snapped(value));
    }
  }
  if (!verified(s, d, g, random_parameters)) return std::nullopt;
  return g;
}

}  // namespace

BaseParameters base_parameters(const model::Model& model, const model::Values& values) {
  const RegressorEvaluator ev(model, values);
  BaseParameters out;
  out.standard = principles::standard_parameters(model);
  const std::size_t N = ev.columns(), n = ev.dof();
  out.roles.assign(N, ParameterRole::Vanishes);
  out.grouped_into.assign(N, {});
  Sampler s(ev, model);
  for (std::size_t i : s.geometry_variables) out.geometry.push_back(ev.variables()[i]);
  if (n == 0 || N == 0) return out;

  // The order of the columns: masses from the root to the tips (frames are listed parents
  // first; masses fixed in the world first), within a mass the classical choice.
  std::vector<std::pair<int, std::size_t>> masses;  // (frame, mass index)
  for (std::size_t b = 0; b < model.bodies.size(); ++b)
    masses.push_back({*model.frame_index(model.bodies[b].frame), b});
  for (std::size_t p = 0; p < model.particles.size(); ++p)
    masses.push_back({*model.frame_index(model.particles[p].frame), model.bodies.size() + p});
  std::stable_sort(masses.begin(), masses.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // m, mx, my, mz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz considered as Ixx Ixy Ixz Iyz Izz mx my Iyy mz m.
  static constexpr std::size_t within[10] = {4, 5, 6, 8, 9, 1, 2, 7, 3, 0};
  std::vector<std::size_t> order;
  for (const auto& [frame, mass] : masses)
    for (std::size_t k : within) order.push_back(10 * mass + k);

  // The stacked regressor at random states and parameters.
  out.samples = std::max<std::size_t>(6, (3 * N + n - 1) / n);
  Eigen::MatrixXd W(static_cast<Eigen::Index>(out.samples * n), static_cast<Eigen::Index>(N));
  const std::vector<double> generic = s.draw(true);
  for (std::size_t k = 0; k < out.samples; ++k)
    W(Eigen::seqN(static_cast<Eigen::Index>(k * n), static_cast<Eigen::Index>(n)), Eigen::all) =
        s.Y(s.draw_at(generic));
  const Eigen::VectorXd norms = W.colwise().norm().transpose();
  const double largest = norms.maxCoeff();
  std::vector<std::size_t> live;  // in `order`
  for (std::size_t c : order)
    if (norms(static_cast<Eigen::Index>(c)) > 1e-10 * largest) live.push_back(c);
  Eigen::MatrixXd Z(W.rows(), static_cast<Eigen::Index>(live.size()));
  for (std::size_t i = 0; i < live.size(); ++i)
    Z.col(static_cast<Eigen::Index>(i)) =
        W.col(static_cast<Eigen::Index>(live[i])) / norms(static_cast<Eigen::Index>(live[i]));
  std::vector<std::size_t> kept;  // in `order`
  if (!live.empty()) {
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(Z);
    const Eigen::MatrixXd& R = qr.matrixQR();
    for (std::size_t i = 0; i < live.size(); ++i) {
      const auto ii = static_cast<Eigen::Index>(i);
      const bool independent = ii < R.rows() && std::abs(R(ii, ii)) > out.tolerance;
      out.roles[live[i]] = independent ? ParameterRole::Kept : ParameterRole::Grouped;
      if (independent) kept.push_back(live[i]);
    }
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> pivoted(Z);
    pivoted.setThreshold(out.tolerance);
    if (static_cast<std::size_t>(pivoted.rank()) != kept.size())
      throw ComputationError("base parameters: the numeric rank of the regressor is ambiguous (" +
                             std::to_string(pivoted.rank()) + " by a pivoted QR, " +
                             std::to_string(kept.size()) + " in order)");
  }

  // Each grouped column in the kept ones before it.
  std::map<std::size_t, Grouping> groupings;
  const std::size_t degrees = s.geometry_variables.empty() ? 0 : 4;
  std::vector<int> mass_frame(masses.size());
  for (const auto& [frame, mass] : masses) mass_frame[mass] = frame;
  auto is_ancestor = [&](int a, int k) {  // a is k or above it (world, -1, above all)
    while (true) {
      if (k == a) return true;
      if (k < 0) return false;
      k = *model.frame_index(model.frames[static_cast<std::size_t>(k)].parent);
    }
  };
  // Y_d in `candidates`: which of them it needs (the least-squares coefficients at the rank's
  // samples), then the fits of growing degree, then numbers at the parameters' values.
  auto group = [&](std::size_t d, const std::vector<std::size_t>& candidates) {
    std::optional<Grouping> g;
    if (candidates.empty()) return g;
    Eigen::MatrixXd B(W.rows(), static_cast<Eigen::Index>(candidates.size()));
    for (std::size_t k = 0; k < candidates.size(); ++k)
      B.col(static_cast<Eigen::Index>(k)) = W.col(static_cast<Eigen::Index>(candidates[k]));
    const Eigen::VectorXd c = B.colPivHouseholderQr().solve(W.col(static_cast<Eigen::Index>(d)));
    std::vector<std::size_t> support;
    for (std::size_t k = 0; k < candidates.size(); ++k)
      if (std::abs(c(static_cast<Eigen::Index>(k))) *
              norms(static_cast<Eigen::Index>(candidates[k])) >
          1e-9 * norms(static_cast<Eigen::Index>(d)))
        support.push_back(candidates[k]);
    for (std::size_t degree = 0; degree <= degrees && !g; ++degree) {
      const std::vector<Monomial> basis =
          monomials(s.geometry_variables.size(), static_cast<int>(degree));
      if (support.size() * basis.size() > 2000) break;
      g = fit(s, d, support, basis, true);
    }
    if (!g) {
      // Not a polynomial in the parameters: numbers at their values.
      g = fit(s, d, support, {Monomial(s.geometry_variables.size(), 0)}, false);
      if (g) g->exact = false;
    }
    return g;
  };
  for (std::size_t i = 0; i < live.size(); ++i) {
    const std::size_t d = live[i];
    if (out.roles[d] != ParameterRole::Grouped) continue;
    std::vector<std::size_t> before;
    for (std::size_t k : kept) {
      if (std::find(live.begin(), live.end(), k) - live.begin() > static_cast<std::ptrdiff_t>(i))
        break;
      before.push_back(k);
    }
    // The kept columns of masses on its frame or the frames it hangs from first (where the
    // classical rules put every grouping: a better-conditioned fit), else all before it.
    std::vector<std::size_t> near;
    for (std::size_t k : before)
      if (is_ancestor(mass_frame[k / 10], mass_frame[d / 10])) near.push_back(k);
    std::optional<Grouping> g = group(d, near);
    if (!g && near.size() < before.size()) g = group(d, before);
    if (!g)
      throw ComputationError("base parameters: the column of " + out.standard[d].name +
                             " could not be written in the kept ones");
    out.grouped_into[d] = g->support;
    groupings.emplace(d, std::move(*g));
  }

  // β_k = π_k + Σ_d c_dk(p) π_d, in the standard order of the kept columns.
  GiNaC::exmap numbers;  // parameters and standard parameters -> numbers
  {
    const model::BoundValues bound = model::bind(model, values);
    for (const auto& p : model.parameters)
      numbers[p.symbol] = GiNaC::numeric(bound.parameters.at(p.name));
  }
  std::vector<std::size_t> kept_sorted = kept;
  std::sort(kept_sorted.begin(), kept_sorted.end());
  for (std::size_t k : kept_sorted) {
    BaseParameter b;
    b.kept = k;
    b.expression = out.standard[k].symbol;
    for (const auto& [d, g] : groupings) {
      const auto at = std::find(g.support.begin(), g.support.end(), k);
      if (at == g.support.end()) continue;
      const auto& coefficients = g.coefficients[static_cast<std::size_t>(at - g.support.begin())];
      GiNaC::ex c = 0;
      for (std::size_t a = 0; a < g.monomials.size(); ++a) {
        GiNaC::ex term = coefficients[a];
        for (std::size_t i = 0; i < g.monomials[a].size(); ++i)
          term *= GiNaC::pow(out.geometry[i], g.monomials[a][i]);
        c += term;
      }
      if (!g.exact) {
        // Numbers at the parameters' values.
        c = c.subs(numbers);
        b.exact = false;
      }
      b.expression += c * out.standard[d].symbol;
    }
    GiNaC::exmap values_of;
    for (const auto& p : out.standard) values_of[p.symbol] = p.value.subs(numbers);
    b.value = GiNaC::evalf(b.expression.subs(values_of).subs(numbers));
    out.base.push_back(std::move(b));
  }
  return out;
}

Eigen::MatrixXd reduced_regressor(const BaseParameters& base, const Eigen::MatrixXd& Y) {
  Eigen::MatrixXd out(Y.rows(), static_cast<Eigen::Index>(base.base.size()));
  for (std::size_t k = 0; k < base.base.size(); ++k)
    out.col(static_cast<Eigen::Index>(k)) = Y.col(static_cast<Eigen::Index>(base.base[k].kept));
  return out;
}

}  // namespace appell::num
