#include "appell/numeric/dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include "appell/model/source_location.hpp"
#include "appell/principles/constraint_rows.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/tape.hpp"
#include "cvode_support.hpp"
#include "native_dynamics.hpp"

namespace appell::num {

using sym::Node;

namespace {

// The programs' one variable vector: t, q (n), q̇ (n), q̈ (n), extra forces (n), the run-time
// parameters (k); in generalized speeds t, q (n), u (p), u̇ (p), extra forces (p), the run-time
// parameters.
struct Layout {
  std::size_t n = 0;
  std::size_t p = 0;    // the rates: p speeds, or n velocities without speeds
  bool speeds = false;  // in generalized speeds
  std::size_t parameter_count = 0;

  std::size_t first_q() const { return 1; }
  std::size_t first_qd() const { return 1 + n; }
  std::size_t first_qdd() const { return 1 + n + p; }
  std::size_t first_extra() const { return 1 + n + 2 * p; }
  std::size_t first_parameter() const { return 1 + n + 3 * p; }
  std::size_t variable_count() const { return first_parameter() + parameter_count; }

  // q has n entries; velocities, accelerations and forces p (the speeds' in generalized speeds).
  void check_q(const Eigen::VectorXd& v) const { check(v, n, "q", "coordinates"); }
  void check_rates(const Eigen::VectorXd& v, const char* coordinates_name,
                   const char* speeds_name) const {
    if (speeds)
      check(v, p, speeds_name, "speeds");
    else
      check(v, n, coordinates_name, "coordinates");
  }
  static void check(const Eigen::VectorXd& v, std::size_t size, const char* what, const char* of) {
    if (static_cast<std::size_t>(v.size()) != size)
      throw std::invalid_argument(std::string(what) + " has " + std::to_string(v.size()) +
                                  " entries, the model " + std::to_string(size) + " " + of);
  }
};

}  // namespace

// The programs as tapes over the variable vector of Layout.
struct Dynamics::Programs : Layout {
  std::shared_ptr<const model::Model> model;
  DynamicsOptions options;                      // as built (with_values builds alike)
  std::vector<std::string> runtime_parameters;  // in the model's order
  std::vector<double> default_parameters;       // their numbers in the values built with
  std::optional<sym::Tape> inverse, bias, gravity, inertial;
  std::optional<sym::Tape> forward;   // q̈, then the pivots
  std::optional<sym::Tape> energies;  // T, V
  // In generalized speeds: q̇ = W u (n), then q̈ = W u̇ + γ (n), then W row by row (n×p).
  std::optional<sym::Tape> kinematics;
  // With constraints: A row by row, then b (in generalized speeds Ã, b̃, then ã0); their names;
  // their levels for the projection (principles::ConstraintLevels::outputs(); not in generalized
  // speeds), h of them holonomic.
  std::optional<sym::Tape> constraints, manifold;
  std::vector<std::string> multipliers;
  std::size_t holonomic = 0;
  std::string not_conservative_because;
  std::string forward_method;
  std::size_t operations = 0;
};

namespace {

std::string symbol_name(const GiNaC::symbol& s) { return s.get_name(); }

}  // namespace

Dynamics::Dynamics(std::shared_ptr<const model::Model> model, const model::Values& values)
    : Dynamics(std::move(model), values, DynamicsOptions{}) {}

Dynamics::Dynamics(std::shared_ptr<const model::Model> model, const model::Values& values,
                   const DynamicsOptions& build) {
  if (!model) throw std::invalid_argument("num::Dynamics: no model");
  const model::Model& m = *model;
  const std::string reason = principles::recursions_do_not_cover(m);
  if (!reason.empty())
    throw std::invalid_argument("num::Dynamics: the recursions do not cover " + reason);
  auto programs = std::make_shared<Programs>();
  programs->model = model;
  programs->options = build;
  model_ = model;
  compilation_ = std::make_shared<const DynamicsCompilation>();
  const std::size_t n = m.dof();
  programs->n = n;
  const std::size_t rates = m.has_speeds() ? m.speeds.size() : n;
  programs->p = rates;
  programs->speeds = m.has_speeds();
  const Programs& at = *programs;

  // Run-time parameters: those named, and those whose default follows one of them (a default
  // `I = m*l^2/12` moves with m unless the values give I a number).
  std::set<std::string> named(build.runtime_parameters.begin(), build.runtime_parameters.end());
  std::set<GiNaC::ex, GiNaC::ex_is_less> runtime_symbols;
  for (const auto& parameter : m.parameters) {
    bool runtime = named.erase(parameter.name) > 0;
    if (!runtime && !values.numbers().count(parameter.name))
      for (const auto& s : runtime_symbols) runtime = runtime || parameter.default_value.has(s);
    if (!runtime) continue;
    programs->runtime_parameters.push_back(parameter.name);
    runtime_symbols.insert(parameter.symbol);
  }
  if (!named.empty())
    throw std::invalid_argument("num::Dynamics: no parameter " + *named.begin() +
                                " to read at run time");
  const std::set<std::string> runtime_names(programs->runtime_parameters.begin(),
                                            programs->runtime_parameters.end());

  // The local expressions first: they may add derivative symbols that binding must know; so may
  // the constraints' rows (a prescribed function's second derivative).
  principles::RecursionBuilder builder(m);
  // In generalized speeds the kinematic equations q̇ = W u, q̈ = d/dt (W u) = W u̇ + γ (with
  // q̇ = W u put into the derivative, as kin::Rates::Speeds), then W's entries.
  GiNaC::exvector kinematic_equations;
  if (m.has_speeds()) {
    sym::Differentiator differentiator(m.time_functions);
    GiNaC::exmap in_speeds;
    GiNaC::exvector accelerations, entries;
    for (unsigned j = 0; j < n; ++j) {
      GiNaC::ex rate = 0;
      for (unsigned k = 0; k < rates; ++k) rate += m.speed_kinematics(j, k) * m.speed_symbol(k);
      kinematic_equations.push_back(rate);
      if (!rate.is_equal(m.coordinate_symbol(j, 1))) in_speeds[m.coordinate_symbol(j, 1)] = rate;
      for (unsigned k = 0; k < rates; ++k) entries.push_back(m.speed_kinematics(j, k));
    }
    for (unsigned j = 0; j < n; ++j)
      accelerations.push_back(
          sym::substitute(differentiator.time_derivative(kinematic_equations[j]), in_speeds));
    kinematic_equations.insert(kinematic_equations.end(), accelerations.begin(),
                               accelerations.end());
    kinematic_equations.insert(kinematic_equations.end(), entries.begin(), entries.end());
  }
  principles::ConstraintRows rows;
  principles::ConstraintLevels levels;
  GiNaC::matrix velocity_offset;  // ã0 of the rows in the speeds
  if (!m.constraints.empty()) {
    sym::Differentiator differentiator(m.time_functions);
    if (m.has_speeds()) {
      // Ã u̇ = b̃ and Ã u + ã0 in the speeds; a simulation projects q onto φ = 0 with its own
      // manifold (in q and q̇), so no levels here.
      rows = principles::constraint_rows_in_speeds(m, differentiator, velocity_offset);
    } else {
      rows = principles::constraint_rows(m, differentiator);
      levels = principles::constraint_levels(m, differentiator);
    }
  }
  const model::BoundValues bound = model::bind(m, values, runtime_names);
  for (const auto& name : programs->runtime_parameters) {
    programs->default_parameters.push_back(bound.parameters.at(name));
  }

  principles::RecursiveDynamics d;
  sym::ScalarProgram& p = d.program;
  std::map<GiNaC::ex, Node, GiNaC::ex_is_less> nodes;
  const GiNaC::symbol t = m.time_functions->time();
  nodes.emplace(t, p.variable(0));
  for (std::size_t j = 0; j < n; ++j)
    nodes.emplace(m.coordinate_symbol(j, 0),
                  p.variable(static_cast<std::uint32_t>(at.first_q() + j)));
  // The rates: q̇, or the speeds u (a coordinate's own rate dot(q) among them).
  for (std::size_t k = 0; k < rates; ++k)
    nodes.emplace(m.has_speeds() ? m.speed_symbol(k) : m.coordinate_symbol(k, 1),
                  p.variable(static_cast<std::uint32_t>(at.first_qd() + k)));
  // Values fold: parameters and the functions given numbers are constants of the program, but
  // for the run-time parameters, variables after the state's.
  std::vector<GiNaC::symbol> runtime_order;
  for (std::size_t k = 0; k < programs->runtime_parameters.size(); ++k) {
    const GiNaC::symbol& s = m.find_parameter(programs->runtime_parameters[k])->symbol;
    runtime_order.push_back(s);
    nodes.emplace(s, p.variable(static_cast<std::uint32_t>(at.first_parameter() + k)));
  }
  for (const auto& [symbol, value] : bound.numbers)
    nodes.emplace(symbol, p.constant(GiNaC::ex_to<GiNaC::numeric>(value).to_double()));
  for (const auto& [symbol, value] : bound.unset) nodes.emplace(symbol, p.constant(0.0));
  if (!bound.driven.empty()) {
    // Functions driven by expressions of t: each a node computed from t.
    GiNaC::exvector expressions;
    std::vector<GiNaC::ex> symbols;
    for (const auto& [symbol, expression] : bound.driven) {
      symbols.push_back(symbol);
      expressions.push_back(expression);
    }
    // Of t and the run-time parameters (model::bind kept those symbolic).
    std::vector<GiNaC::symbol> arguments{t};
    std::vector<Node> argument_nodes{nodes.at(t)};
    for (const auto& s : runtime_order) {
      arguments.push_back(s);
      argument_nodes.push_back(nodes.at(s));
    }
    const sym::Tape driven(expressions, arguments);
    const std::vector<Node> values_of = p.import(driven, argument_nodes);
    for (std::size_t i = 0; i < symbols.size(); ++i) nodes.emplace(symbols[i], values_of[i]);
  }
  principles::RecursionInputs inputs;
  for (const GiNaC::symbol& s : builder.symbols()) {
    const auto it = nodes.find(s);
    if (it == nodes.end())
      throw std::invalid_argument("num::Dynamics: no value for the symbol " + symbol_name(s));
    inputs.symbols.push_back(s);
    inputs.nodes.push_back(it->second);
  }
  for (std::size_t k = 0; k < rates; ++k) {
    inputs.qdd.push_back(p.variable(static_cast<std::uint32_t>(at.first_qdd() + k)));
    inputs.extra.push_back(p.variable(static_cast<std::uint32_t>(at.first_extra() + k)));
  }
  principles::RecursionOptions options;
  options.mass_matrix = false;  // M by columns of the inertial pass: O(n) nodes, not O(n²)
  options.inertial = true;
  options.forward = true;
  options.energies = true;
  builder.build(d, inputs, options);

  // E = T + V is conserved unless a load does work or something depends on t once every value
  // is bound (a number given to a function is a constant; a driven one depends on t).
  sym::SymbolSet symbols;
  for (const GiNaC::symbol& s : inputs.symbols) {
    if (bound.numbers.count(s) || bound.unset.count(s)) continue;
    if (const auto driven = bound.driven.find(s); driven != bound.driven.end()) {
      for (const auto& inner : sym::symbols_in({driven->second}))
        if (!runtime_symbols.count(inner)) symbols.insert(inner);  // constants in time
      continue;
    }
    symbols.insert(s);
  }
  programs->not_conservative_because =
      detail::non_conservative_reason(m, symbols, bound.substitution());

  programs->parameter_count = programs->runtime_parameters.size();
  const std::size_t count = programs->variable_count();
  // A tape of expressions of the model appended to the program, reading the same nodes as the
  // recursions (the values folded alike, the run-time parameters variables).
  auto import = [&](const GiNaC::exvector& expressions, const char* where) {
    std::vector<GiNaC::symbol> arguments;
    std::vector<Node> argument_nodes;
    for (const auto& s : sym::symbols_in(expressions)) {
      const GiNaC::symbol& symbol = GiNaC::ex_to<GiNaC::symbol>(s);
      const auto it = nodes.find(symbol);
      if (it == nodes.end())
        throw std::invalid_argument("num::Dynamics: no value for the symbol " +
                                    symbol_name(symbol) + where);
      arguments.push_back(symbol);
      argument_nodes.push_back(it->second);
    }
    return p.import(sym::Tape(expressions, arguments), argument_nodes);
  };
  if (m.has_speeds()) {
    // u̇ read as the accelerations' variables.
    for (std::size_t k = 0; k < rates; ++k) nodes.emplace(m.speed_symbol(k, 1), inputs.qdd[k]);
    programs->kinematics.emplace(
        p.tape(import(kinematic_equations, " in the kinematic equations"), count));
  }
  std::size_t constraint_operations = 0;
  if (!m.constraints.empty()) {
    // A and b, and the levels the projection reads (ConstraintManifold: compiled here once, so
    // that a case of a sweep sets up its projection without GiNaC).
    GiNaC::exvector expressions;
    for (unsigned i = 0; i < rows.matrix.rows(); ++i)
      for (unsigned j = 0; j < rows.matrix.cols(); ++j) expressions.push_back(rows.matrix(i, j));
    for (unsigned i = 0; i < rows.rhs.rows(); ++i) expressions.push_back(rows.rhs(i, 0));
    if (m.has_speeds())
      for (unsigned i = 0; i < rows.rhs.rows(); ++i) expressions.push_back(velocity_offset(i, 0));
    programs->constraints.emplace(p.tape(import(expressions, " in the constraints"), count));
    if (!m.has_speeds())
      programs->manifold.emplace(p.tape(import(levels.outputs(), " in the constraints"), count));
    programs->holonomic = levels.holonomic;
    programs->multipliers = std::move(rows.multipliers);
    constraint_operations = programs->constraints->operations();
  }
  programs->inverse.emplace(p.tape(d.inverse, count));
  programs->bias.emplace(p.tape(d.bias, count));
  programs->gravity.emplace(p.tape(d.gravity, count));
  programs->inertial.emplace(p.tape(d.inertial, count));
  programs->energies.emplace(p.tape({d.kinetic, d.potential}, count));
  programs->operations = programs->inverse->operations() + programs->bias->operations() +
                         programs->gravity->operations() + programs->inertial->operations() +
                         constraint_operations;
  if (!d.forward.empty()) {
    std::vector<Node> outputs = d.forward;
    outputs.insert(outputs.end(), d.pivots.begin(), d.pivots.end());
    programs->forward.emplace(p.tape(outputs, count));
    programs->forward_method = d.forward_method;
    programs->operations += programs->forward->operations();
  } else {
    programs->forward_method = "Cholesky of M";
  }
  programs_ = std::move(programs);
}

Dynamics::~Dynamics() = default;

const Dynamics::Programs& Dynamics::programs() const {
  if (programs_) return *programs_;
  // A compiled Dynamics: the interpreted programs of the same model and values, once, whichever
  // thread asks first (the others wait; an exception leaves it for the next call to try).
  detail::LazyPrograms& lazy = *lazy_;
  std::call_once(lazy.built, [&] {
    lazy.interpreted = std::make_shared<const Dynamics>(lazy.model, lazy.values);
  });
  return *lazy.interpreted->programs_;
}

const model::Model& Dynamics::model() const { return *model_; }
std::size_t Dynamics::dof() const { return model_->dof(); }
std::size_t Dynamics::speed_count() const {
  return model_->has_speeds() ? model_->speeds.size() : model_->dof();
}
const char* Dynamics::kind() const { return native_ ? "jit" : "recursions"; }
const std::string& Dynamics::forward_method() const { return programs().forward_method; }
std::size_t Dynamics::operations() const { return programs().operations; }
const std::vector<std::string>& Dynamics::multipliers() const { return programs().multipliers; }
const std::vector<std::string>& Dynamics::runtime_parameters() const {
  static const std::vector<std::string> none;
  return native_ ? none : programs_->runtime_parameters;
}

std::vector<double> Dynamics::runtime_parameter_values(const model::BoundValues& bound) const {
  std::vector<double> out;
  for (const auto& name : runtime_parameters()) out.push_back(bound.parameters.at(name));
  return out;
}

Dynamics Dynamics::with_values(const model::Values& values) const {
  if (!native_) {
    Dynamics out(model_, values, programs_->options);
    out.compilation_ = compilation_;
    return out;
  }
  auto native = std::make_shared<detail::NativeDynamics>(*native_);
  native->bind(values, native->parameters, native->inputs);
  return detail::DynamicsAccess::compiled(model_, values, std::move(native), *compilation_);
}

Dynamics detail::DynamicsAccess::compiled(std::shared_ptr<const model::Model> model,
                                          const model::Values& values,
                                          std::shared_ptr<const NativeDynamics> native,
                                          DynamicsCompilation compilation,
                                          std::shared_ptr<const Dynamics> interpreted) {
  Dynamics out;
  out.model_ = model;
  if (interpreted) {
    out.programs_ = interpreted->programs_;
  } else {
    out.lazy_ = std::make_shared<LazyPrograms>();
    out.lazy_->model = std::move(model);
    out.lazy_->values = values;
  }
  out.native_ = std::move(native);
  out.compilation_ = std::make_shared<const DynamicsCompilation>(std::move(compilation));
  return out;
}

Dynamics detail::DynamicsAccess::with_compilation(Dynamics dynamics,
                                                  DynamicsCompilation compilation) {
  dynamics.compilation_ = std::make_shared<const DynamicsCompilation>(std::move(compilation));
  return dynamics;
}

const std::string& Dynamics::energy_not_conserved_because() const {
  return programs().not_conservative_because;
}

namespace {

// The variable vector of a call: t, q, the rates (zeros when not given), the accelerations and
// the extra forces zero, the run-time parameters from the workspace (or those the Dynamics was
// built with).
void load_state(const Layout& at, const std::vector<double>& defaults, DynamicsWorkspace& work,
                double t, const Eigen::VectorXd& q, const Eigen::VectorXd* qd,
                const Eigen::VectorXd* qdd = nullptr) {
  std::vector<double>& v = work.variables;
  v.assign(at.first_parameter() + defaults.size(), 0.0);
  v[0] = t;
  for (std::size_t j = 0; j < at.n; ++j) v[at.first_q() + j] = q[static_cast<Eigen::Index>(j)];
  if (qd)
    for (std::size_t k = 0; k < at.p; ++k)
      v[at.first_qd() + k] = (*qd)[static_cast<Eigen::Index>(k)];
  if (qdd)
    for (std::size_t k = 0; k < at.p; ++k)
      v[at.first_qdd() + k] = (*qdd)[static_cast<Eigen::Index>(k)];
  if (defaults.empty()) return;
  const std::vector<double>& given = work.parameters.empty() ? defaults : work.parameters;
  if (given.size() != defaults.size())
    throw std::invalid_argument("DynamicsWorkspace::parameters has " +
                                std::to_string(given.size()) + " values, the Dynamics " +
                                std::to_string(defaults.size()) + " run-time parameters");
  std::copy(given.begin(), given.end(),
            v.begin() + static_cast<std::ptrdiff_t>(at.first_parameter()));
}

void run(const sym::Tape& tape, DynamicsWorkspace& work) {
  work.outputs.resize(tape.output_count());
  tape.evaluate(work.variables.data(), work.outputs.data(), work.slots);
}

// The sizes the compiled code checks its arguments against.
Layout layout_of(const detail::NativeDynamics& c) {
  Layout at;
  at.n = c.n;
  at.p = c.p;
  at.speeds = c.speeds;
  return at;
}

// A compiled Dynamics has no run-time parameters: a workspace that gives some is a mistake.
void check_no_parameters(const DynamicsWorkspace& work) {
  if (!work.parameters.empty())
    throw std::invalid_argument("DynamicsWorkspace::parameters has " +
                                std::to_string(work.parameters.size()) +
                                " values, the Dynamics 0 run-time parameters");
}

// The arguments of a compiled call checked as the interpreted programs check theirs: q (n), the
// rates and their rates (p each) when given, no run-time parameters in the workspace.
void check_native_call(const detail::NativeDynamics& c, const DynamicsWorkspace& work,
                       const Eigen::VectorXd& q, const Eigen::VectorXd* rates = nullptr,
                       const Eigen::VectorXd* accelerations = nullptr) {
  const Layout at = layout_of(c);
  at.check_q(q);
  if (rates) at.check_rates(*rates, "qd", "u");
  if (accelerations) at.check_rates(*accelerations, "qdd", "udot");
  check_no_parameters(work);
}

// M (p×p) and f (p) by the compiled code at (t, q, q̇ or u); the rates null: zeros (for M alone).
void native_mass_matrix_and_forcing(const detail::NativeDynamics& c, double t,
                                    const Eigen::VectorXd& q, const Eigen::VectorXd* qd,
                                    Eigen::MatrixXd& M, Eigen::VectorXd& f,
                                    DynamicsWorkspace& work) {
  const auto p = static_cast<Eigen::Index>(c.p);
  M.resize(p, p);
  f.resize(p);
  const double* rates = qd ? qd->data() : nullptr;
  if (!rates) {
    work.variables.assign(c.p, 0.0);
    rates = work.variables.data();
  }
  c.mass_matrix_and_forcing(t, q.data(), rates, c.parameters.data(), c.inputs.data(), M.data(),
                            f.data());
  // The generated M is row-major, Eigen's column-major: M was read transposed.
  M.transposeInPlace();
}

void native_constraints(const detail::NativeDynamics& c, double t, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& qd, Eigen::MatrixXd& A, Eigen::VectorXd& b) {
  const auto n = static_cast<Eigen::Index>(c.n), m = static_cast<Eigen::Index>(c.m);
  b.resize(m);
  if (c.m == 0) {
    A.resize(0, n);
    return;
  }
  // The generated A is row-major: read as Aᵀ (n×m, column-major), then transposed.
  A.resize(n, m);
  c.constraints(t, q.data(), qd.data(), c.parameters.data(), c.inputs.data(), A.data(), b.data());
  A.transposeInPlace();
}

}  // namespace

void Dynamics::mass_matrix(double t, const Eigen::VectorXd& q, Eigen::MatrixXd& M,
                           DynamicsWorkspace& work) const {
  if (native_) {
    check_native_call(*native_, work, q);
    native_mass_matrix_and_forcing(*native_, t, q, nullptr, M, work.f, work);
    return;
  }
  const Programs& at = *programs_;
  at.check_q(q);
  load_state(at, at.default_parameters, work, t, q, nullptr);
  const std::size_t p = at.p;
  const auto size = static_cast<Eigen::Index>(p);
  M.resize(size, size);
  for (std::size_t j = 0; j < p; ++j) {
    work.variables[at.first_qdd() + j] = 1.0;
    run(*at.inertial, work);
    work.variables[at.first_qdd() + j] = 0.0;
    for (std::size_t i = j; i < p; ++i)  // the lower triangle; mirrored below
      M(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = work.outputs[i];
  }
  for (Eigen::Index i = 0; i < size; ++i)
    for (Eigen::Index j = i + 1; j < size; ++j) M(i, j) = M(j, i);
}

void Dynamics::energies(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                        double& kinetic, double& potential, DynamicsWorkspace& work) const {
  const Programs& at = programs();
  at.check_q(q);
  at.check_rates(qd, "qd", "u");
  load_state(at, at.default_parameters, work, t, q, &qd);
  run(*at.energies, work);
  kinetic = work.outputs[0];
  potential = work.outputs[1];
}

void Dynamics::forcing(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                       Eigen::VectorXd& f, DynamicsWorkspace& work) const {
  nonlinear_effects(t, q, qd, f, work);
  f = -f;
}

void Dynamics::mass_matrix_and_forcing(double t, const Eigen::VectorXd& q,
                                       const Eigen::VectorXd& qd, Eigen::MatrixXd& M,
                                       Eigen::VectorXd& f, DynamicsWorkspace& work) const {
  if (native_) {
    check_native_call(*native_, work, q, &qd);
    native_mass_matrix_and_forcing(*native_, t, q, &qd, M, f, work);
    return;
  }
  mass_matrix(t, q, M, work);
  forcing(t, q, qd, f, work);
}

void Dynamics::nonlinear_effects(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                 Eigen::VectorXd& h, DynamicsWorkspace& work) const {
  if (native_) {
    mass_matrix_and_forcing(t, q, qd, work.M, h, work);
    h = -h;
    return;
  }
  const Programs& at = *programs_;
  at.check_q(q);
  at.check_rates(qd, "qd", "u");
  load_state(at, at.default_parameters, work, t, q, &qd);
  run(*at.bias, work);
  h = Eigen::Map<const Eigen::VectorXd>(work.outputs.data(), static_cast<Eigen::Index>(at.p));
}

void Dynamics::gravity(double t, const Eigen::VectorXd& q, Eigen::VectorXd& g,
                       DynamicsWorkspace& work) const {
  const Programs& at = programs();
  at.check_q(q);
  load_state(at, at.default_parameters, work, t, q, nullptr);
  run(*at.gravity, work);
  g = Eigen::Map<const Eigen::VectorXd>(work.outputs.data(), static_cast<Eigen::Index>(at.p));
}

void Dynamics::inverse_dynamics(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                const Eigen::VectorXd& qdd, Eigen::VectorXd& tau,
                                DynamicsWorkspace& work) const {
  if (native_) {
    const detail::NativeDynamics& c = *native_;
    check_native_call(c, work, q, &qd, &qdd);
    tau.resize(static_cast<Eigen::Index>(c.p));
    c.inverse_dynamics(t, q.data(), qd.data(), qdd.data(), c.parameters.data(), c.inputs.data(),
                       tau.data());
    return;
  }
  const Programs& at = *programs_;
  at.check_q(q);
  at.check_rates(qd, "qd", "u");
  at.check_rates(qdd, "qdd", "udot");
  load_state(at, at.default_parameters, work, t, q, &qd, &qdd);
  run(*at.inverse, work);
  tau = Eigen::Map<const Eigen::VectorXd>(work.outputs.data(), static_cast<Eigen::Index>(at.p));
}

void Dynamics::accelerations(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                             Eigen::VectorXd& qdd, DynamicsWorkspace& work,
                             const Eigen::VectorXd& Q) const {
  if (native_) {
    const detail::NativeDynamics& c = *native_;
    check_native_call(c, work, q, &qd);
    if (Q.size() != 0) layout_of(c).check_rates(Q, "Q", "Q");
    if (c.m > 0) {
      accelerations(t, q, qd, qdd, work.lambda, work, ConstraintTolerances{}, Q);
      return;
    }
    if (Q.size() == 0) {
      qdd.resize(static_cast<Eigen::Index>(c.p));
      if (c.forward_dynamics(t, q.data(), qd.data(), c.parameters.data(), c.inputs.data(),
                             qdd.data()) == 1)
        return;
    }
    // Extra forces, or refused (M not positive definite, or not finite): M says why, or solves.
    native_mass_matrix_and_forcing(c, t, q, &qd, work.M, work.f, work);
    if (Q.size() != 0) work.f += Q;
    qdd = solve_accelerations(work.M, work.f);
    return;
  }
  const Programs& at = *programs_;
  at.check_q(q);
  at.check_rates(qd, "qd", "u");
  if (Q.size() != 0) at.check_rates(Q, "Q", "Q");
  const std::size_t p = at.p;
  const auto size = static_cast<Eigen::Index>(p);
  if (at.constraints) {
    accelerations(t, q, qd, qdd, work.lambda, work, ConstraintTolerances{}, Q);
    return;
  }
  if (at.forward) {
    load_state(at, at.default_parameters, work, t, q, &qd);
    for (Eigen::Index j = 0; j < Q.size(); ++j)
      work.variables[at.first_extra() + static_cast<std::size_t>(j)] = Q[j];
    run(*at.forward, work);
    bool solved = true;
    for (std::size_t j = 0; j < p && solved; ++j)
      solved = std::isfinite(work.outputs[j]) && work.outputs[p + j] > 0.0 &&
               std::isfinite(work.outputs[p + j]);
    if (solved) {
      qdd = Eigen::Map<const Eigen::VectorXd>(work.outputs.data(), size);
      return;
    }
    // Refused (a pivot not positive, or not finite): M says why, or solves after all.
  }
  mass_matrix_and_forcing(t, q, qd, work.M, work.f, work);
  if (Q.size() != 0) work.f += Q;
  qdd = solve_accelerations(work.M, work.f);
}

void Dynamics::constraints(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                           Eigen::MatrixXd& A, Eigen::VectorXd& b, DynamicsWorkspace& work) const {
  if (native_) {
    check_native_call(*native_, work, q, &qd);
    native_constraints(*native_, t, q, qd, A, b);
    return;
  }
  const Programs& at = *programs_;
  const std::size_t m = at.multipliers.size();
  at.check_q(q);
  at.check_rates(qd, "qd", "u");
  const auto rows = static_cast<Eigen::Index>(m), columns = static_cast<Eigen::Index>(at.p);
  A.resize(rows, columns);
  b.resize(rows);
  if (!at.constraints) return;
  load_state(at, at.default_parameters, work, t, q, &qd);
  run(*at.constraints, work);
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < columns; ++j)
      A(i, j) = work.outputs[static_cast<std::size_t>(i * columns + j)];
    b[i] = work.outputs[static_cast<std::size_t>(rows * columns + i)];
  }
}

void Dynamics::velocity_constraints(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                                    Eigen::MatrixXd& A, Eigen::VectorXd& residual,
                                    DynamicsWorkspace& work) const {
  const Programs& at = programs();
  if (!at.speeds)
    throw std::logic_error("Dynamics::velocity_constraints: only in generalized speeds");
  // The interpreted rows' tape: Ã, b̃, then ã0 in work.outputs.
  const std::size_t m = at.multipliers.size();
  at.check_q(q);
  at.check_rates(u, "qd", "u");
  const auto rows = static_cast<Eigen::Index>(m), columns = static_cast<Eigen::Index>(at.p);
  A.resize(rows, columns);
  residual.resize(rows);
  if (!at.constraints) return;
  load_state(at, at.default_parameters, work, t, q, &u);
  run(*at.constraints, work);
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < columns; ++j)
      A(i, j) = work.outputs[static_cast<std::size_t>(i * columns + j)];
    residual[i] = work.outputs[static_cast<std::size_t>(rows * columns + rows + i)];
  }
  residual += A * u;
}

void Dynamics::accelerations(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                             Eigen::VectorXd& qdd, Eigen::VectorXd& lambda, DynamicsWorkspace& work,
                             const ConstraintTolerances& tolerances,
                             const Eigen::VectorXd& Q) const {
  if (constraint_count() == 0) {
    accelerations(t, q, qd, qdd, work, Q);
    lambda.resize(0);
    return;
  }
  if (Q.size() != 0)
    Layout::check(Q, speed_count(), "Q", model_->has_speeds() ? "speeds" : "coordinates");
  // M from the inertial passes (or the compiled code's composite bodies), not the articulated
  // bodies: the multipliers need M itself.
  mass_matrix_and_forcing(t, q, qd, work.M, work.f, work);
  if (Q.size() != 0) work.f += Q;
  constraints(t, q, qd, work.A, work.b, work);
  solve_constrained_accelerations(work.M, work.f, work.A, work.b, qdd, lambda, tolerances);
}

void Dynamics::coordinate_velocities(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                                     Eigen::VectorXd& qd, DynamicsWorkspace& work) const {
  if (!model_->has_speeds()) {  // in the coordinates the rates are the velocities
    Layout::check(q, dof(), "q", "coordinates");
    Layout::check(u, dof(), "qd", "coordinates");
    qd = u;
    return;
  }
  if (native_ && native_->coordinate_velocities) {
    const detail::NativeDynamics& c = *native_;
    check_native_call(c, work, q, &u);
    qd.resize(static_cast<Eigen::Index>(c.n));
    c.coordinate_velocities(t, q.data(), u.data(), c.parameters.data(), c.inputs.data(), qd.data());
    return;
  }
  const Programs& at = programs();
  at.check_q(q);
  at.check_rates(u, "qd", "u");
  load_state(at, at.default_parameters, work, t, q, &u);
  run(*at.kinematics, work);
  qd = Eigen::Map<const Eigen::VectorXd>(work.outputs.data(), static_cast<Eigen::Index>(at.n));
}

void Dynamics::coordinate_accelerations(double t, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& u, const Eigen::VectorXd& udot,
                                        Eigen::VectorXd& qdd, DynamicsWorkspace& work) const {
  if (!model_->has_speeds()) {  // in the coordinates the rates' rates are the accelerations
    Layout::check(q, dof(), "q", "coordinates");
    Layout::check(u, dof(), "qd", "coordinates");
    Layout::check(udot, dof(), "qdd", "coordinates");
    qdd = udot;
    return;
  }
  if (native_ && native_->coordinate_accelerations) {
    const detail::NativeDynamics& c = *native_;
    check_native_call(c, work, q, &u, &udot);
    qdd.resize(static_cast<Eigen::Index>(c.n));
    c.coordinate_accelerations(t, q.data(), u.data(), udot.data(), c.parameters.data(),
                               c.inputs.data(), qdd.data());
    return;
  }
  const Programs& at = programs();
  at.check_q(q);
  at.check_rates(u, "qd", "u");
  at.check_rates(udot, "qdd", "udot");
  load_state(at, at.default_parameters, work, t, q, &u, &udot);
  run(*at.kinematics, work);
  qdd = Eigen::Map<const Eigen::VectorXd>(work.outputs.data() + at.n,
                                          static_cast<Eigen::Index>(at.n));
}

void Dynamics::speed_kinematics(double t, const Eigen::VectorXd& q, Eigen::MatrixXd& W,
                                DynamicsWorkspace& work) const {
  const auto n = static_cast<Eigen::Index>(dof());
  if (!model_->has_speeds()) {
    Layout::check(q, dof(), "q", "coordinates");
    W = Eigen::MatrixXd::Identity(n, n);
    return;
  }
  const Programs& at = programs();
  at.check_q(q);
  const auto p = static_cast<Eigen::Index>(at.p);
  load_state(at, at.default_parameters, work, t, q, nullptr);
  run(*at.kinematics, work);
  W.resize(n, p);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index k = 0; k < p; ++k)
      W(j, k) = work.outputs[static_cast<std::size_t>(2 * n + j * p + k)];
}

ConstraintManifold Dynamics::constraint_manifold(const std::vector<double>& parameters,
                                                 double rank_tolerance) const {
  const std::size_t runtime = runtime_parameters().size();
  if (!parameters.empty() && parameters.size() != runtime)
    throw std::invalid_argument(
        "Dynamics::constraint_manifold: " + std::to_string(parameters.size()) + " values for " +
        std::to_string(runtime) + " run-time parameters");
  if (model_->has_speeds() && !model_->constraints.empty())
    throw std::logic_error(
        "Dynamics::constraint_manifold: in generalized speeds the projection is in q and q-dot "
        "(num::ConstraintManifold of the model)");
  if (native_) {
    const std::shared_ptr<const detail::NativeDynamics> c = native_;
    if (c->m == 0) return ConstraintManifold(c->n, 0, 0, nullptr, rank_tolerance);
    // The compiled levels with the numbers bound: pure, callable from any thread.
    auto evaluation = [c](double t, const double* q, const double* qd, double* outputs) {
      c->levels(t, q, qd, c->parameters.data(), c->inputs.data(), outputs);
    };
    return ConstraintManifold(c->n, c->m, c->h, std::move(evaluation), rank_tolerance);
  }
  const std::shared_ptr<const Programs> p = programs_;
  if (!p->manifold) return ConstraintManifold(p->n, 0, 0, nullptr, rank_tolerance);
  // The program compiled with the Dynamics, the case's numbers as its variables: no GiNaC here,
  // so that the cases of a sweep set up their projections on any thread.
  std::vector<double> variables(p->variable_count(), 0.0), slots;
  const std::vector<double>& given = parameters.empty() ? p->default_parameters : parameters;
  std::copy(given.begin(), given.end(),
            variables.begin() + static_cast<std::ptrdiff_t>(p->first_parameter()));
  // (Without generalized speeds: q̇ has n entries.)
  auto evaluation = [p, variables, slots](double t, const double* q, const double* qd,
                                          double* outputs) mutable {
    variables[0] = t;
    std::copy(q, q + p->n, variables.begin() + static_cast<std::ptrdiff_t>(p->first_q()));
    std::copy(qd, qd + p->n, variables.begin() + static_cast<std::ptrdiff_t>(p->first_qd()));
    p->manifold->evaluate(variables.data(), outputs, slots);
  };
  return ConstraintManifold(p->n, p->multipliers.size(), p->holonomic, std::move(evaluation),
                            rank_tolerance);
}

std::size_t Dynamics::constraint_count() const { return model_->constraints.size(); }

}  // namespace appell::num
