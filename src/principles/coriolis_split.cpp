#include "appell/principles/coriolis_split.hpp"

#include <type_traits>
#include <variant>

#include "appell/kinematics/kinematics.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "appell/principles/lagrange.hpp"
#include "appell/principles/potential_energy.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"

namespace appell::principles {

namespace {

using GiNaC::ex;
using GiNaC::matrix;

// Appends every entry of m, row by row.
void append(GiNaC::exvector& all, const matrix& m) {
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned j = 0; j < m.cols(); ++j) all.push_back(m(i, j));
}

void take(const GiNaC::exvector& all, std::size_t& k, matrix& m) {
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned j = 0; j < m.cols(); ++j) m(i, j) = all.at(k++);
}

// The model without its potential loads and gravity: its generalized forces are Q, the forces
// that have no potential. It shares the time-function table, so its symbols are the model's.
std::shared_ptr<const model::Model> without_potentials(const model::Model& m) {
  auto copy = std::make_shared<model::Model>(m);
  copy->gravity.reset();
  std::erase_if(copy->loads, [](const model::Load& load) {
    return std::holds_alternative<model::SpringLoad>(load.kind) ||
           std::holds_alternative<model::PotentialLoad>(load.kind);
  });
  return copy;
}

// The symbols through which an expression depends on time at fixed q: t and the prescribed
// functions (their values and derivatives), each with what d/dt makes of it.
struct TimeDependence {
  GiNaC::symbol t;
  std::vector<std::pair<GiNaC::symbol, GiNaC::symbol>> prescribed;  // p^(r) -> p^(r+1)
};

TimeDependence time_dependence(const model::Model& m, const GiNaC::exvector& roots) {
  TimeDependence out{m.time_functions->time(), {}};
  for (const auto& s : sym::symbols_in(roots)) {
    const auto symbol = GiNaC::ex_to<GiNaC::symbol>(s);
    const auto found = m.time_functions->lookup(symbol);
    if (!found || m.time_functions->kind(found->function) != sym::TimeFunctionKind::Prescribed)
      continue;
    out.prescribed.emplace_back(symbol,
                                m.time_functions->derivative(found->function, found->order + 1));
  }
  return out;
}

bool depends_on_time(const TimeDependence& dependence, const GiNaC::exvector& roots) {
  if (!dependence.prescribed.empty()) return true;
  const auto symbols = sym::symbols_in(roots);
  return symbols.count(dependence.t) != 0;
}

// ∂e/∂t at fixed q and q̇: through t itself and through the prescribed functions.
ex partial_time(const ex& e, const TimeDependence& dependence, sym::Differentiator& d) {
  GiNaC::exvector terms{d.partial(e, dependence.t)};
  for (const auto& [p, rate] : dependence.prescribed) terms.push_back(d.partial(e, p) * rate);
  return GiNaC::add(terms);
}

}  // namespace

GiNaC::exvector CoriolisSplit::entries() const {
  GiNaC::exvector all;
  for (const matrix* m :
       {&mass_matrix, &coriolis, &gravity, &loads, &mass_rate, &gyroscopic, &prescribed_motion})
    append(all, *m);
  return all;
}

void CoriolisSplit::set_entries(const GiNaC::exvector& all) {
  std::size_t k = 0;
  for (matrix* m :
       {&mass_matrix, &coriolis, &gravity, &loads, &mass_rate, &gyroscopic, &prescribed_motion})
    take(all, k, *m);
}

GiNaC::matrix mass_matrix_rate_along_q(const model::Model& m, const GiNaC::matrix& mass) {
  sym::Differentiator d(m.time_functions);
  matrix rate(mass.rows(), mass.cols());
  for (std::size_t k = 0; k < m.dof(); ++k)
    rate = rate.add(d.partial(mass, m.coordinate_symbol(k)).mul_scalar(m.coordinate_symbol(k, 1)));
  return rate;
}

CoriolisSplit coriolis_split(const Equations& eq) {
  if (!eq.model) throw std::invalid_argument("equations without a model");
  const model::Model& m = *eq.model;
  if (eq.order > 1)
    throw model::ModelError({"split", 0, 0},
                            "equations of order m > 1 have no split into M, C and g",
                            std::to_string(eq.order));
  if (m.has_speeds())
    throw model::ModelError(
        {"split", 0, 0},
        "a model with generalized speeds is formed in them, where M's Christoffel symbols do not "
        "give the velocity terms; the split needs the equations in the coordinates",
        m.source.empty() ? m.name : m.source);
  const auto n = static_cast<unsigned>(eq.dof());
  sym::Differentiator d(m.time_functions);
  kin::Kinematics kin(eq.model, d);

  CoriolisSplit s;
  s.model = eq.model;
  s.mass_matrix = eq.mass_matrix;

  // c_ijk from the n matrices ∂M/∂q_k, each differentiated once (shared nodes memoised).
  std::vector<matrix> dm;
  std::vector<GiNaC::symbol> q, qd;
  for (unsigned k = 0; k < n; ++k) {
    q.push_back(m.coordinate_symbol(k));
    qd.push_back(m.coordinate_symbol(k, 1));
    dm.push_back(d.partial(eq.mass_matrix, q.back()));
  }
  s.coriolis = matrix(n, n);
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) {
      GiNaC::exvector terms;
      for (unsigned k = 0; k < n; ++k)
        terms.push_back((dm[k](i, j) + dm[j](i, k) - dm[i](j, k)) * qd[k] / 2);
      s.coriolis(i, j) = GiNaC::add(terms);
    }

  const ex potential = potential_energy(kin);
  s.gravity = matrix(n, 1);
  for (unsigned i = 0; i < n; ++i) s.gravity(i, 0) = d.partial(potential, q[i]);

  // Q from the kinematics of the model without its potential loads, on the same differentiator
  // (its caches hold the same expressions' derivatives).
  kin::Kinematics free_kin(without_potentials(m), d);
  s.loads = generalized_forces(free_kin, Gravity::Excluded);

  s.mass_rate = matrix(n, n);
  s.gyroscopic = matrix(n, n);
  s.prescribed_motion = matrix(n, 1);
  const ex energy = kinetic_energy(kin);
  GiNaC::exvector roots{energy};
  append(roots, eq.mass_matrix);
  const TimeDependence dependence = time_dependence(m, roots);
  s.moving = depends_on_time(dependence, {energy});
  if (!s.moving) return s;

  // T = ½ q̇ᵀMq̇ + bᵀq̇ + T₀: b and T₀ at q̇ = 0.
  GiNaC::exmap at_rest;
  for (const auto& v : qd) at_rest[v] = 0;
  std::vector<ex> b;
  for (unsigned i = 0; i < n; ++i) b.push_back(sym::substitute(d.partial(energy, qd[i]), at_rest));
  const ex rest_energy = sym::substitute(energy, at_rest);
  for (unsigned i = 0; i < n; ++i) {
    for (unsigned j = 0; j < n; ++j) {
      s.mass_rate(i, j) = partial_time(eq.mass_matrix(i, j), dependence, d);
      s.gyroscopic(i, j) = i == j ? ex(0) : d.partial(b[i], q[j]) - d.partial(b[j], q[i]);
    }
    s.prescribed_motion(i, 0) = partial_time(b[i], dependence, d) - d.partial(rest_energy, q[i]);
  }
  return s;
}

GiNaC::matrix split_residual(const CoriolisSplit& s, const Equations& eq) {
  const model::Model& m = *s.model;
  const auto n = static_cast<unsigned>(s.dof());
  matrix qd(n, 1);
  for (unsigned k = 0; k < n; ++k) qd(k, 0) = m.coordinate_symbol(k, 1);
  matrix r = s.coriolis.mul(qd).add(s.gravity).sub(s.loads).add(eq.forcing);
  if (s.moving) r = r.add(s.mass_rate.add(s.gyroscopic).mul(qd)).add(s.prescribed_motion);
  return r;
}

}  // namespace appell::principles
