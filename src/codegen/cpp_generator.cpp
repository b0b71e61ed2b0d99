#include "appell/codegen/cpp_generator.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "appell/codegen/comment_text.hpp"
#include "appell/principles/constraint_rows.hpp"
#include "appell/principles/coriolis_split.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/principles/regressor.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"
#include "code_writer.hpp"
#include "dynamics_program.hpp"
#include "header_facts.hpp"
#include "plan.hpp"

namespace appell::codegen {

namespace {

using detail::Argument;
using detail::Body;
using detail::DynamicsProgram;
using detail::Plan;

std::string counts_text(const OperationCounts& c) {
  std::ostringstream s;
  s << c.total() << " operations (" << c.adds << " +, " << c.multiplies << " *, " << c.divides
    << " /, " << c.negations << " negations, " << c.calls << " calls)";
  return s.str();
}

struct Names {
  Language language;
  std::string prefix;  // C: "ns_" before every global name
  // The rates' and the accelerations' arguments: qd and qdd, or u and udot in the speeds.
  std::string rates = "qd", accelerations = "qdd";
  bool in_speeds = false;
  std::string parameters() const {
    return language == Language::C ? "const " + prefix + "parameters* p" : "const Parameters& p";
  }
  std::string inputs() const {
    return language == Language::C ? "const " + prefix + "inputs* in" : "const Inputs& in";
  }
  std::string function(const std::string& name, const char* result = "void") const {
    return language == Language::C ? std::string("static inline ") + result + " " + prefix + name
                                   : std::string("inline ") + result + " " + name;
  }
  std::string dof() const { return language == Language::C ? prefix + "dof" : "dof"; }
  /// The number of rates (of u̇, f, Q): dof, or speed_count in the speeds.
  std::string rate_count() const {
    if (!in_speeds) return dof();
    return language == Language::C ? prefix + "speed_count" : "speed_count";
  }
};

// `static_cast<void>(x);` (C: `(void)x;`) for every argument a body does not read, so that the
// code compiles cleanly under -Wall -Wextra -Werror.
std::string discard_unread(const Body& body, const std::vector<Argument>& taken,
                           const Names& names) {
  std::string out;
  for (Argument a : taken) {
    if (body.arguments_read.count(a)) continue;
    const std::string name = a == Argument::Time         ? "t"
                             : a == Argument::Q          ? "q"
                             : a == Argument::Qd         ? names.rates
                             : a == Argument::Parameters ? "p"
                             : a == Argument::Inputs     ? "in"
                                                         : names.accelerations;
    out += names.language == Language::C ? "  (void)" + name + ";\n"
                                         : "  static_cast<void>(" + name + ");\n";
  }
  return out;
}

// "inline void name(arguments) {" wrapped at 100 columns, continuation lines aligned after "(".
std::string signature(const std::string& head, const std::vector<std::string>& arguments) {
  std::string out = head + "(";
  const std::string indent(out.size(), ' ');
  std::size_t column = out.size();
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string piece = arguments[i] + (i + 1 < arguments.size() ? "," : ") {");
    if (i > 0 && column + 1 + piece.size() > 100) {
      out += "\n" + indent;
      column = indent.size();
    } else if (i > 0) {
      out += " ";
      ++column;
    }
    out += piece;
    column += piece.size();
  }
  return out + "\n";
}

// One generated function: its name, what it returns, its arguments after the state, which
// state arguments it takes, and its body's targets.
struct FunctionSpec {
  GeneratedFunction function;
  const char* name;
  const char* comment;
  const char* speeds_comment;        // in generalized speeds
  std::vector<std::string> outputs;  // "double* M"
  std::vector<Argument> state;       // of t, q, qd, qdd, p, in (in this order)
};

const std::vector<FunctionSpec>& function_specs() {
  using A = Argument;
  static const std::vector<FunctionSpec> specs = {
      {GeneratedFunction::MassMatrix,
       "mass_matrix",
       "The mass matrix M(q, t), row-major dof x dof (composite rigid bodies when the header\n"
       "/// says recursive).",
       "The mass matrix M(q, t) of the speeds, row-major speed_count x speed_count (composite\n"
       "/// rigid bodies when the header says recursive).",
       {"double* M"},
       {A::Time, A::Q, A::Qd, A::Parameters, A::Inputs}},
      {GeneratedFunction::Forcing,
       "forcing",
       "The forcing f(q, qd, t): everything but the inertia of the accelerations.",
       "The forcing f(q, u, t) of M udot = f: everything but the inertia of the accelerations.",
       {"double* f"},
       {A::Time, A::Q, A::Qd, A::Parameters, A::Inputs}},
      {GeneratedFunction::MassMatrixAndForcing,
       "mass_matrix_and_forcing",
       "M and f together, computing their common subexpressions once.",
       "M and f together, computing their common subexpressions once.",
       {"double* M", "double* f"},
       {A::Time, A::Q, A::Qd, A::Parameters, A::Inputs}},
      {GeneratedFunction::NonlinearEffects,
       "nonlinear_effects",
       "The nonlinear effects h = C(q, qd) qd + g(q) - Q_loads = -f: M qdd + h = Q.",
       "The nonlinear effects h = -f of the speeds: M udot + h = Q (Q on the speeds).",
       {"double* h"},
       {A::Time, A::Q, A::Qd, A::Parameters, A::Inputs}},
      {GeneratedFunction::Gravity,
       "gravity",
       "The generalized gravity g(q): the generalized forces that hold the model at rest\n"
       "/// against gravity alone.",
       "The generalized gravity g(q) on the speeds: the generalized forces that hold the model\n"
       "/// at rest against gravity alone.",
       {"double* g"},
       {A::Time, A::Q, A::Parameters, A::Inputs}},
      {GeneratedFunction::InverseDynamics,
       "inverse_dynamics",
       "The generalized forces that produce the accelerations qdd: Q = M qdd - f (driving\n"
       "/// forces of a prescribed motion).",
       "The generalized forces on the speeds that produce the accelerations udot:\n"
       "/// Q = M udot - f.",
       {"double* Q"},
       {A::Time, A::Q, A::Qd, A::Qdd, A::Parameters, A::Inputs}},
  };
  return specs;
}

std::vector<std::string> arguments(const Names& names, const std::vector<Argument>& state,
                                   const std::vector<std::string>& outputs) {
  std::vector<std::string> all;
  for (Argument a : state) {
    switch (a) {
      case Argument::Time:
        all.push_back("double t");
        break;
      case Argument::Q:
        all.push_back("const double* q");
        break;
      case Argument::Qd:
        all.push_back("const double* " + names.rates);
        break;
      case Argument::Qdd:
        all.push_back("const double* " + names.accelerations);
        break;
      case Argument::Parameters:
        all.push_back(names.parameters());
        break;
      case Argument::Inputs:
        all.push_back(names.inputs());
        break;
      case Argument::Extra:
        break;
    }
  }
  all.insert(all.end(), outputs.begin(), outputs.end());
  return all;
}

// The pivot test of forward_dynamics, once per file. Its thresholds are those `appell eval`
// uses for its Cholesky factor (num::factor_mass_matrix): a pivot D_i not above 1e-12 M_ii, or
// not above 1e-24 max |M_ij| (M's largest entry is on its diagonal when M is positive definite),
// means a singular M.
std::string pivot_test(const Names& names) {
  const bool c = names.language == Language::C;
  const std::string fabs = c ? "fabs" : "std::fabs", isfinite = c ? "isfinite" : "std::isfinite";
  std::ostringstream s;
  s << (c ? "" : "namespace detail {\n\n")
    << "/* True when every pivot D_i of M = L^T D L is positive (above 1e-12 M_ii and 1e-24\n"
    << "   max |M_jj|) and every acceleration finite. */\n"
    << (c ? "static inline int " + names.prefix + "pivots_accepted"
          : std::string("inline bool pivots_accepted"))
    << "(const double* pivot, const double* diagonal, const double* qdd, int n) {\n"
    << "  double scale = 0.0;\n"
    << "  int i;\n"
    << "  for (i = 0; i < n; ++i) {\n"
    << "    if (!" << isfinite << "(diagonal[i])) return " << (c ? "0" : "false") << ";\n"
    << "    if (" << fabs << "(diagonal[i]) > scale) scale = " << fabs << "(diagonal[i]);\n"
    << "  }\n"
    << "  for (i = 0; i < n; ++i)\n"
    << "    if (!(pivot[i] > 1e-24 * scale) || !(pivot[i] > 1e-12 * diagonal[i]) || !" << isfinite
    << "(qdd[i])) return " << (c ? "0" : "false") << ";\n"
    << "  return " << (c ? "1" : "true") << ";\n"
    << "}\n"
    << (c ? "" : "\n}  // namespace detail\n");
  return s.str();
}

// The name an argument declaration declares: "const double* q" -> "q".
std::string declared_name(const std::string& declaration) {
  const std::size_t at = declaration.find_last_of(" *&");
  std::string name = declaration.substr(at + 1);
  return name.substr(0, name.find(' '));
}

// Which functions' bodies come in parts (code_writer.hpp, Body::parts), once per header.
std::string noinline_macro() {
  return "/* Long functions come in parts, kept apart so that compilers handle short functions. "
         "*/\n"
         "#ifndef APPELL_GENERATED_NOINLINE\n"
         "#if defined(__GNUC__)\n"
         "#define APPELL_GENERATED_NOINLINE __attribute__((noinline))\n"
         "#else\n"
         "#define APPELL_GENERATED_NOINLINE\n"
         "#endif\n"
         "#endif\n\n";
}

// A body: as it is, or (in parts) functions NAME_partK of `arguments` and the workspace w
// written to `h` first and the body that calls them returned.
std::string body_text(std::ostream& h, const Names& names, const std::string& name,
                      std::vector<std::string> arguments, const Body& body) {
  if (body.parts.empty()) return body.code;
  arguments.push_back("double* w");
  const bool c = names.language == Language::C;
  std::string calls =
      "  double w[" + std::to_string(std::max<std::size_t>(body.workspace, 1)) + "];\n";
  std::string call_arguments;
  for (std::size_t i = 0; i < arguments.size(); ++i)
    call_arguments += (i ? ", " : "") + declared_name(arguments[i]);
  for (std::size_t k = 0; k < body.parts.size(); ++k) {
    const std::string part = name + "_part" + std::to_string(k);
    std::string head = c ? "static APPELL_GENERATED_NOINLINE void " + names.prefix + part
                         : "APPELL_GENERATED_NOINLINE inline void " + part;
    h << signature(head, arguments);
    for (const auto& a : arguments)
      h << (c ? "  (void)" + declared_name(a) + ";\n"
              : "  static_cast<void>(" + declared_name(a) + ");\n");
    h << body.parts[k] << "}\n\n";
    calls += "  " + (c ? names.prefix + part : part) + "(" + call_arguments + ");\n";
  }
  return calls;
}

std::vector<detail::Target> indexed_targets(const std::string& array,
                                            const std::vector<sym::Node>& nodes) {
  std::vector<detail::Target> targets;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    targets.push_back({array + "[" + std::to_string(i) + "]", nodes[i]});
  return targets;
}

// inverse_dynamics_derivatives and forward_dynamics_derivatives (CodegenOptions::derivatives),
// after forward_dynamics (whose pivot test they share).
void write_derivatives(std::ostream& h, const Names& names, const Body& inverse,
                       const Body& forward, const std::string& prefix) {
  const bool c = names.language == Language::C;
  const char* open = c ? "/* " : "/// ";
  const char* more = c ? "   " : "/// ";
  const char* close = c ? " */\n" : "\n";
  const std::vector<Argument> inverse_state = {Argument::Time,       Argument::Q,
                                               Argument::Qd,         Argument::Qdd,
                                               Argument::Parameters, Argument::Inputs};
  const std::vector<std::string> inverse_arguments =
      arguments(names, inverse_state, {"double* dtau_dq", "double* dtau_dqd"});
  const std::string inverse_code =
      body_text(h, names, "inverse_dynamics_derivatives", inverse_arguments, inverse);
  h << open << "The derivatives of inverse dynamics Q = M qdd - f at qdd fixed, row-major dof x "
    << "dof:\n"
    << more << "dtau_dq[i*dof + j] = dQ_i/dq_j, dtau_dqd[i*dof + j] = dQ_i/dqd_j (forward-mode\n"
    << more << "differentiation of the Newton-Euler recursion, not finite differences)." << close
    << signature(names.function("inverse_dynamics_derivatives"), inverse_arguments)
    << discard_unread(inverse, inverse_state, names) << inverse_code << "}\n\n";

  const std::vector<Argument> state = {Argument::Time, Argument::Q, Argument::Qd,
                                       Argument::Parameters, Argument::Inputs};
  const std::vector<std::string> outputs = {"double* qdd", "double* dqdd_dq", "double* dqdd_dqd",
                                            "double* minv"};
  std::vector<std::string> parts = arguments(names, state, outputs);
  for (const char* local : {"const double* Qx", "double* pivot", "double* diagonal"})
    parts.emplace_back(local);
  const std::string code = body_text(h, names, "forward_dynamics_derivatives", parts, forward);
  std::vector<std::string> signature_arguments = outputs;
  signature_arguments.push_back(c ? "const double* Q" : "const double* Q = nullptr");
  h << open << "The accelerations qdd of M qdd = f + Q (Q: extra generalized forces, none if\n"
    << more << "null) and their derivatives, row-major dof x dof: dqdd_dq = -M^-1 dQ/dq and\n"
    << more << "dqdd_dqd = -M^-1 dQ/dqd at that qdd, minv = dqdd/dQ = M^-1. False if M is not\n"
    << more << "positive definite (or not finite) at this state; the outputs are then "
    << "unspecified." << close
    << signature(names.function("forward_dynamics_derivatives", c ? "int" : "bool"),
                 arguments(names, state, signature_arguments))
    << "  double Qx[" << names.dof() << "], pivot[" << names.dof() << "], diagonal[" << names.dof()
    << "];\n"
    << "  int i;\n"
    << "  for (i = 0; i < " << names.dof() << "; ++i) Qx[i] = Q "
    << (c ? "? Q[i]" : "!= nullptr ? Q[i]") << " : 0.0;\n"
    << discard_unread(forward, state, names) << code << "  return "
    << (c ? prefix + "_pivots_accepted" : std::string("detail::pivots_accepted"))
    << "(pivot, diagonal, qdd, " << names.dof() << ");\n"
    << "}\n\n";
}

bool is_valid_namespace_part(const std::string& part) { return detail::is_free_identifier(part); }

// The constraints' rows A (row by row), b and levels (principles::ConstraintLevels::outputs())
// as expressions: formed before the plan, so that the derivatives of inputs they read exist
// among its variables (as members of the inputs struct).
struct ConstraintExpressions {
  std::size_t count = 0, holonomic = 0;
  std::vector<std::string> names;
  GiNaC::exvector rows, levels;
};

ConstraintExpressions constraint_expressions(const model::Model& m) {
  ConstraintExpressions out;
  if (m.constraints.empty()) return out;
  sym::Differentiator d(m.time_functions);
  const principles::ConstraintRows rows = principles::constraint_rows(m, d);
  const principles::ConstraintLevels levels = principles::constraint_levels(m, d);
  out.count = m.constraints.size();
  out.holonomic = levels.holonomic;
  for (const auto& c : m.constraints) out.names.push_back(c.name);
  for (unsigned i = 0; i < rows.matrix.rows(); ++i)
    for (unsigned j = 0; j < rows.matrix.cols(); ++j) out.rows.push_back(rows.matrix(i, j));
  for (unsigned i = 0; i < rows.rhs.rows(); ++i) out.rows.push_back(rows.rhs(i, 0));
  out.levels = levels.outputs();
  return out;
}

// Expressions of the plan's variables as nodes of `program` (the driven functions' expressions
// substituted, as the tape of M and f has them); `more` symbols read as `more_nodes`.
std::vector<sym::Node> nodes_of(GiNaC::exvector expressions, const Plan& plan,
                                DynamicsProgram& program,
                                const std::vector<GiNaC::symbol>& more = {},
                                const std::vector<sym::Node>& more_nodes = {}) {
  if (!plan.bound.driven.empty())
    for (auto& e : expressions) e = sym::substitute(e, plan.bound.driven);
  std::vector<GiNaC::symbol> symbols;
  std::vector<sym::Node> variables;
  for (std::size_t i = 0; i < plan.variables.size(); ++i) {
    symbols.push_back(plan.variables[i].symbol);
    variables.push_back(program.program.variable(static_cast<std::uint32_t>(i)));
  }
  symbols.insert(symbols.end(), more.begin(), more.end());
  variables.insert(variables.end(), more_nodes.begin(), more_nodes.end());
  return program.program.import(sym::Tape(expressions, symbols), variables);
}

// The kinematic equations of a model with generalized speeds: q̇ = W(q, t) u (n), then
// q̈ = d/dt (W u) = W u̇ + γ(q, u, t) (n) with q̇ = W u put into the derivative, as
// kin::Rates::Speeds and num::Dynamics form them. Formed before the plan, as the constraints are
// (a derivative they create is a member of the structs).
GiNaC::exvector speed_kinematics(const model::Model& m) {
  const std::size_t n = m.dof(), p = m.speeds.size();
  sym::Differentiator differentiator(m.time_functions);
  GiNaC::exmap in_speeds;
  GiNaC::exvector out;
  for (unsigned j = 0; j < n; ++j) {
    GiNaC::ex rate = 0;
    for (unsigned k = 0; k < p; ++k) rate += m.speed_kinematics(j, k) * m.speed_symbol(k);
    out.push_back(rate);
    if (!rate.is_equal(m.coordinate_symbol(j, 1))) in_speeds[m.coordinate_symbol(j, 1)] = rate;
  }
  for (unsigned j = 0; j < n; ++j)
    out.push_back(sym::substitute(differentiator.time_derivative(out[j]), in_speeds));
  return out;
}

// Targets "name[k]" for nodes[first, first + count).
void add_targets(std::vector<detail::Target>& targets, const char* name,
                 const std::vector<sym::Node>& nodes, std::size_t first, std::size_t count) {
  for (std::size_t k = 0; k < count; ++k)
    targets.push_back({std::string(name) + "[" + std::to_string(k) + "]", nodes[first + k]});
}

// C(q, qd) of the split (principles::coriolis_split), its tape imported into the program so
// that it reads the plan's variables like every other body.
Body coriolis_body(const principles::Equations& eq, const Plan& plan, DynamicsProgram& program,
                   Language language) {
  const principles::CoriolisSplit split = principles::coriolis_split(eq);
  GiNaC::exvector entries;
  for (unsigned i = 0; i < split.coriolis.rows(); ++i)
    for (unsigned j = 0; j < split.coriolis.cols(); ++j)
      entries.push_back(plan.bound.driven.empty()
                            ? split.coriolis(i, j)
                            : sym::substitute(split.coriolis(i, j), plan.bound.driven));
  std::vector<GiNaC::symbol> symbols;
  std::vector<sym::Node> variables;
  for (std::size_t i = 0; i < plan.variables.size(); ++i) {
    symbols.push_back(plan.variables[i].symbol);
    variables.push_back(program.program.variable(static_cast<std::uint32_t>(i)));
  }
  const std::vector<sym::Node> nodes =
      program.program.import(sym::Tape(entries, symbols), variables);
  std::vector<detail::Target> targets;
  for (std::size_t k = 0; k < nodes.size(); ++k)
    targets.push_back({"C[" + std::to_string(k) + "]", nodes[k]});
  return detail::write_body(program, plan, targets, language);
}

// Y of the regressor (principles::RecursionBuilder::regressor) over the variables of `shared`,
// in a program of its own: its nodes then come in the order the regressor builds them (frame by
// frame), not after the inverse dynamics' that it would share, and the generated code's values
// live briefly (fewer spilled to memory). The structural zeros (about half of Y: the columns of
// the masses a coordinate does not move) are stored first, 8 at a time by memset: one store
// instruction each was a fifth of the UR5's time (and stored first, they overlap the sines and
// cosines rather than end the function).
Body regressor_body(principles::RecursionBuilder& builder, const Plan& plan,
                    const DynamicsProgram& shared, Language language) {
  DynamicsProgram program;
  program.n = shared.n;
  program.first_qdd = shared.first_qdd;
  program.first_extra = shared.first_extra;
  principles::RecursionInputs inputs;
  inputs.substitution = plan.bound.driven;
  for (std::size_t i = 0; i < plan.variables.size(); ++i) {
    inputs.symbols.push_back(plan.variables[i].symbol);
    inputs.nodes.push_back(program.program.variable(static_cast<std::uint32_t>(i)));
  }
  for (std::size_t j = 0; j < plan.n; ++j) {
    inputs.qdd.push_back(
        program.program.variable(static_cast<std::uint32_t>(program.first_qdd + j)));
    inputs.extra.push_back(program.program.constant(0.0));
  }
  const std::vector<sym::Node> Y = builder.regressor(program.program, inputs);
  std::vector<detail::Target> targets;
  std::ostringstream zeros;
  const std::string memset = language == Language::C ? "memset" : "std::memset";
  for (std::size_t k = 0; k < Y.size();) {
    if (!program.program.is_zero(Y[k])) {
      targets.push_back({"Y[" + std::to_string(k) + "]", Y[k]});
      ++k;
      continue;
    }
    std::size_t run = 1;
    while (run < 8 && k + run < Y.size() && program.program.is_zero(Y[k + run])) ++run;
    if (run == 1)
      zeros << "  Y[" << k << "] = 0.0;\n";
    else
      zeros << "  " << memset << "(Y + " << k << ", 0, " << run << " * sizeof(double));\n";
    k += run;
  }
  Body body = detail::write_body(program, plan, targets, language);
  std::string& first = body.parts.empty() ? body.code : body.parts.front();
  first = zeros.str() + first;
  return body;
}

}  // namespace

std::string detail::generate_header(const CodegenSource& from, const CodegenOptions& options,
                                    Language language, detail::HeaderFacts* facts) {
  const model::Model& m = from.model;
  const principles::Equations* eq = from.equations;
  const std::string ns =
      options.namespace_name.empty() ? default_namespace(m.name) : options.namespace_name;
  if (!is_valid_namespace(ns)) throw std::invalid_argument("not a valid C++ namespace name: " + ns);
  Plan plan;
  std::vector<GeneratedField> inputs;
  DynamicsProgram program;
  std::unique_ptr<principles::RecursionBuilder> builder;
  if (options.regressor && !principles::regressor_not_covered(m).empty())
    throw std::invalid_argument("the regressor needs a model the recursions cover, not " +
                                principles::regressor_not_covered(m));
  // The derivatives of the dynamics are written in q̇ and q̈ (principles::differentiate_dynamics).
  if (options.derivatives && !eq && m.has_speeds())
    throw std::invalid_argument(
        "the derivatives are written in the coordinates' rates qd and qdd, not in generalized "
        "speeds");
  // With constraints, their rows and levels besides M and f: the same expressions the formed
  // equations and num::Dynamics have (principles::constraint_rows, constraint_levels).
  ConstraintExpressions constraints;
  std::vector<Node> constraint_rows, constraint_levels;
  std::vector<Node> kinematic_nodes;  // in generalized speeds: q̇ (n), then q̈ (n)
  if (eq) {
    constraints = constraint_expressions(m);
    plan = detail::make_plan(*eq, options.values);
    program = detail::build_dynamics(*eq, plan);
    if (constraints.count > 0) {
      constraint_rows = nodes_of(constraints.rows, plan, program);
      constraint_levels = nodes_of(constraints.levels, plan, program);
    }
    // The members: what M and f read, and what the constraints read besides.
    std::vector<Node> rows_and_levels = constraint_rows;
    rows_and_levels.insert(rows_and_levels.end(), constraint_levels.begin(),
                           constraint_levels.end());
    std::vector<bool> read =
        detail::variables_read(program.program, rows_and_levels, plan.variables.size());
    for (const auto& instruction : plan.tape->instructions())
      if (instruction.op == sym::Op::Variable && instruction.a < read.size())
        read[instruction.a] = true;
    inputs = detail::claim_input_fields(plan, read);
  } else {
    // Straight from the model: its local expressions first (the derivatives they create are
    // members of the structs), then the recursions; no M or f is ever formed.
    const std::string reason = recursions_do_not_write(m);
    if (!reason.empty())
      throw std::invalid_argument("the recursions do not cover " + reason +
                                  ": generate from the equations");
    builder = std::make_unique<principles::RecursionBuilder>(m);
    constraints = constraint_expressions(m);
    // In generalized speeds the recursions run in u, and q̇ = W u and q̈ = W u̇ + γ are written
    // beside them (coordinate_velocities, coordinate_accelerations).
    const GiNaC::exvector kinematics = m.has_speeds() ? speed_kinematics(m) : GiNaC::exvector{};
    plan = detail::make_plan(m, options.values, m.has_speeds());
    program = detail::build_recursive_dynamics(plan, *builder);
    std::vector<Node> everything;
    for (auto function : {GeneratedFunction::MassMatrixAndForcing,
                          GeneratedFunction::NonlinearEffects, GeneratedFunction::Gravity,
                          GeneratedFunction::ForwardDynamics, GeneratedFunction::InverseDynamics})
      for (const auto& target : detail::function_targets(program, function))
        everything.push_back(target.node);
    if (plan.in_speeds) {
      // u̇ read as the accelerations' variables.
      std::vector<GiNaC::symbol> udot;
      std::vector<Node> udot_nodes;
      for (std::size_t k = 0; k < plan.p; ++k) {
        udot.push_back(m.speed_symbol(k, 1));
        udot_nodes.push_back(
            program.program.variable(static_cast<std::uint32_t>(program.first_qdd + k)));
      }
      kinematic_nodes = nodes_of(kinematics, plan, program, udot, udot_nodes);
      everything.insert(everything.end(), kinematic_nodes.begin(), kinematic_nodes.end());
    }
    if (constraints.count > 0) {
      constraint_rows = nodes_of(constraints.rows, plan, program);
      constraint_levels = nodes_of(constraints.levels, plan, program);
      everything.insert(everything.end(), constraint_rows.begin(), constraint_rows.end());
      everything.insert(everything.end(), constraint_levels.begin(), constraint_levels.end());
    }
    inputs = detail::claim_input_fields(
        plan, detail::variables_read(program.program, everything, plan.variables.size()));
  }
  const std::size_t n = plan.n;
  const bool c = language == Language::C;
  std::string prefix;
  for (char ch : ns) prefix += ch == ':' ? '_' : ch;
  while (prefix.find("__") != std::string::npos) prefix.replace(prefix.find("__"), 2, "_");
  const Names names{language, prefix + "_", plan.rates(), plan.accelerations(), plan.in_speeds};
  const std::size_t rates = plan.p;
  if (facts)
    *facts = detail::HeaderFacts{
        n,      program.recursive, program.fallback_reason, prefix, plan.parameters,
        inputs, constraints.count, constraints.holonomic,   rates,  plan.in_speeds,
        ""};

  std::vector<Body> bodies;
  for (const auto& spec : function_specs())
    bodies.push_back(detail::write_body(
        program, plan, detail::function_targets(program, spec.function, plan.accelerations()),
        language));
  const Body forward = detail::write_body(
      program, plan,
      detail::function_targets(program, GeneratedFunction::ForwardDynamics, plan.accelerations()),
      language);
  // In generalized speeds: q̇ = W u and q̈ = W u̇ + γ.
  std::optional<Body> velocities_body, accelerations_body;
  if (plan.in_speeds) {
    std::vector<detail::Target> targets;
    add_targets(targets, "qd", kinematic_nodes, 0, n);
    velocities_body = detail::write_body(program, plan, targets, language);
    targets.clear();
    add_targets(targets, "qdd", kinematic_nodes, n, n);
    accelerations_body = detail::write_body(program, plan, targets, language);
  }
  // The derivatives differentiate the recursions' program: they need the recursions.
  std::optional<Body> inverse_derivatives, forward_derivatives;
  if (options.derivatives) {
    if (!program.recursive)
      throw std::invalid_argument(
          "the derivatives differentiate the recursions, which do not "
          "cover this model (" +
          program.fallback_reason + ")");
    const principles::DynamicsDerivatives dd = detail::differentiate(program, plan);
    std::vector<detail::Target> targets = indexed_targets("dtau_dq", dd.dtau_dq);
    for (auto& t : indexed_targets("dtau_dqd", dd.dtau_dqd)) targets.push_back(t);
    inverse_derivatives = detail::write_body(program, plan, targets, language);
    targets = detail::function_targets(program, GeneratedFunction::ForwardDynamics);
    for (const auto& [array, nodes] :
         {std::pair{"dqdd_dq", &dd.dqdd_dq}, std::pair{"dqdd_dqd", &dd.dqdd_dqd},
          std::pair{"minv", &dd.minv}})
      for (auto& t : indexed_targets(array, *nodes)) targets.push_back(t);
    forward_derivatives = detail::write_body(program, plan, targets, language);
  }
  std::optional<Body> regressor;
  if (options.regressor) {
    if (!builder) builder = std::make_unique<principles::RecursionBuilder>(m);
    regressor = regressor_body(*builder, plan, program, language);
  }
  // A, b and the levels: constraints() and constraint_manifold().
  const std::size_t m_count = constraints.count, h_count = constraints.holonomic;
  std::optional<Body> rows_body, levels_body;
  if (m_count > 0) {
    std::vector<detail::Target> targets;
    add_targets(targets, "A", constraint_rows, 0, m_count * n);
    add_targets(targets, "b", constraint_rows, m_count * n, m_count);
    rows_body = detail::write_body(program, plan, targets, language);
    targets.clear();
    add_targets(targets, "phi", constraint_levels, 0, h_count);
    add_targets(targets, "phi_q", constraint_levels, h_count, h_count * n);
    add_targets(targets, "g", constraint_levels, h_count * (1 + n), m_count);
    add_targets(targets, "g_qd", constraint_levels, h_count * (1 + n) + m_count, m_count * n);
    levels_body = detail::write_body(program, plan, targets, language);
  }
  std::optional<Body> coriolis;
  if (options.coriolis_matrix) {
    if (!eq)
      throw std::invalid_argument(
          "the Coriolis matrix is formed from the equations: generate from them");
    coriolis = coriolis_body(*eq, plan, program, language);
  }

  // Formed equations write the functions only where the recursions do not cover the model;
  // where they do, the recursions write every function (checked against the equations) and the
  // equations give coriolis_matrix alone: the header and `appell codegen` say which is which.
  const std::string formed = eq ? principles::method_name(eq->method) : "";
  std::string method = "the recursions (no equations formed)";
  if (eq && !program.recursive) {
    method = formed;
  } else if (eq) {
    method = "the recursions, checked against the " + formed + " equations";
    if (coriolis) method += "; coriolis_matrix from those equations";
  }
  if (facts) facts->method = method;

  std::ostringstream h;
  const std::string source =
      m.source.empty() ? "" : " (" + std::filesystem::path(m.source).filename().string() + ")";
  const char* open = c ? "/* " : "// ";
  const char* line = c ? " * " : "// ";
  const char* blank = c ? " *\n" : "//\n";
  if (plan.in_speeds)
    h << open << comment_text(m.name + source)
      << ": equations of motion in the generalized speeds u,\n"
      << line << "M(q, t) udot = f(q, u, t), with the kinematic equations qd = W(q, t) u.\n";
  else
    h << open << comment_text(m.name + source)
      << ": equations of motion M(q, t) qdd = f(q, qd, t).\n";
  h << line << "Generated by appell, do not edit: run `appell codegen` again instead.\n" << blank;
  if (eq && program.recursive && coriolis) {
    h << line << "Method: the recursions below write every function but coriolis_matrix, which\n"
      << line << "the " << formed << " equations give (the Christoffel symbols of their M);\n"
      << line << "those equations, formed, check the recursions at two states.\n";
  } else if (eq && program.recursive) {
    h << line << "Method: the recursions below write every function; the " << formed
      << " equations,\n"
      << line << "formed, check them at two states.\n";
  } else {
    h << line << "Method: " << method << "\n";
  }
  h << line
    << (plan.in_speeds
            ? "Coordinates (the order of q, and of the qd and qdd of the kinematic equations):"
            : "Coordinates (the order of q, qd, qdd, f and of M's rows and columns):");
  for (std::size_t j = 0; j < n; ++j) h << (j ? ", " : " ") << comment_text(m.coordinates[j].name);
  h << "\n";
  if (plan.in_speeds) {
    h << line << "Speeds (the order of u, udot, f, Q and of M's rows and columns):";
    for (std::size_t k = 0; k < rates; ++k) h << (k ? ", " : " ") << comment_text(m.speeds[k].name);
    h << "\n"
      << line << "  coordinate_velocities() gives qd = W u, coordinate_accelerations()\n"
      << line << "  qdd = W udot + gamma(q, u, t): what integrating q alongside u needs.\n";
  }
  if (m_count > 0) {
    h << line << "Constraints (the order of the rows of A, b and of lambda):";
    for (std::size_t i = 0; i < m_count; ++i)
      h << (i ? ", " : " ") << comment_text(constraints.names[i]);
    h << "\n"
      << line << "  M qdd = f + A^T lambda with A(q, t) qdd = b(q, qd, t): constraints() gives A\n"
      << line << "  and b, constraint_manifold() what a projection onto them needs;\n"
      << line << "  forward_dynamics() solves M qdd = f + Q of the tree alone, without them.\n";
  }
  const std::string m_shape = plan.in_speeds ? "speed_count x speed_count" : "dof x dof";
  h << line
    << (c ? "Self-contained C99: needs only <math.h> (link with -lm). M is row-major " + m_shape +
                ".\n"
          : "Self-contained C++17: needs only the standard library. M is row-major " + m_shape +
                ".\n")
    << blank;
  if (program.recursive)
    h << line << "Recursive: inverse dynamics, nonlinear effects and gravity by Newton-Euler over\n"
      << line << "the frame tree (O(n)), M by composite rigid bodies, forward dynamics by\n"
      << line << comment_text(program.forward_method)
      << "; constants folded, shared terms computed once.\n";
  else
    h << line << "From M and f (" << comment_text(program.fallback_reason)
      << "): inverse dynamics is M qdd - f,\n"
      << line << "forward dynamics M = L^T D L.\n";
  if (eq)
    h << line << "Operations (the unsimplified expressions of M and f have " << eq->cost.size_before
      << " distinct nodes):\n";
  else
    h << line << "Operations:\n";
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    std::string label = std::string(function_specs()[i].name) + ":";
    label.resize(25, ' ');
    h << line << "  " << label << counts_text(bodies[i].counts) << "\n";
  }
  h << line << "  forward_dynamics:        " << counts_text(forward.counts) << "\n";
  if (velocities_body)
    h << line << "  coordinate_velocities:   " << counts_text(velocities_body->counts) << "\n"
      << line << "  coordinate_accelerations: " << counts_text(accelerations_body->counts) << "\n";
  if (rows_body)
    h << line << "  constraints:             " << counts_text(rows_body->counts) << "\n"
      << line << "  constraint_manifold:     " << counts_text(levels_body->counts) << "\n";
  if (coriolis) h << line << "  coriolis_matrix:         " << counts_text(coriolis->counts) << "\n";
  if (inverse_derivatives)
    h << line << "  inverse_dynamics_derivatives: " << counts_text(inverse_derivatives->counts)
      << "\n"
      << line << "  forward_dynamics_derivatives: " << counts_text(forward_derivatives->counts)
      << "\n";
  if (regressor)
    h << line << "  regressor:               " << counts_text(regressor->counts) << "\n";
  if (c) h << " */\n";
  if (c) {
    std::string guard;
    for (char ch : prefix) guard += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    guard += "_GENERATED_H";
    h << "#ifndef " << guard << "\n#define " << guard << "\n\n#include <math.h>\n"
      << (regressor ? "#include <string.h>\n" : "") << "\n"
      << "enum { " << names.dof() << " = " << n;
    if (plan.in_speeds) h << ", " << names.rate_count() << " = " << rates;
    if (m_count > 0)
      h << ", " << prefix << "_constraint_count = " << m_count << ", " << prefix
        << "_holonomic_count = " << h_count;
    h << " };\n\n"
      << "/* The model's parameters; " << prefix << "_default_parameters() gives the defaults. */\n"
      << "typedef struct " << prefix << "_parameters {\n";
    for (std::size_t i = 0; i < plan.parameters.size(); ++i) {
      const auto& field = plan.parameters[i];
      h << "  double " << field.cpp_name << ";";
      if (field.cpp_name != field.name) h << "  /* " << comment_text(field.name) << " */";
      h << "\n";
    }
    if (plan.parameters.empty()) h << "  double unused; /* no parameters in this model */\n";
    h << "} " << prefix << "_parameters;\n\n"
      << "/* Inputs and unspecified prescribed functions of time, with the derivatives the\n"
      << "   equations use; " << prefix << "_default_inputs() gives the defaults. */\n"
      << "typedef struct " << prefix << "_inputs {\n";
    for (const auto& field : inputs) {
      h << "  double " << field.cpp_name << ";";
      if (field.cpp_name != field.name) h << "  /* " << comment_text(field.name) << " */";
      h << "\n";
    }
    if (inputs.empty()) h << "  double unused; /* no inputs in this model */\n";
    h << "} " << prefix << "_inputs;\n\n"
      << "/* The defaults as the model (and the values bound) gave them. */\n"
      << "static inline " << prefix << "_parameters " << prefix << "_default_parameters(void) {\n"
      << "  " << prefix << "_parameters p;\n";
    for (std::size_t i = 0; i < plan.parameters.size(); ++i) {
      const auto& field = plan.parameters[i];
      h << "  p." << field.cpp_name << " = " << detail::plain_literal(field.default_value) << ";";
      if (!plan.parameter_notes[i].empty())
        h << "  /* " << comment_text(plan.parameter_notes[i]) << " */";
      h << "\n";
    }
    if (plan.parameters.empty()) h << "  p.unused = 0.0;\n";
    h << "  return p;\n}\n\n"
      << "static inline " << prefix << "_inputs " << prefix << "_default_inputs(void) {\n"
      << "  " << prefix << "_inputs in;\n";
    for (const auto& field : inputs)
      h << "  in." << field.cpp_name << " = " << detail::plain_literal(field.default_value)
        << ";\n";
    if (inputs.empty()) h << "  in.unused = 0.0;\n";
    h << "  return in;\n}\n\n";
  } else {
    h << "#pragma once\n\n#include <cmath>\n"
      << (regressor ? "#include <cstring>\n" : "") << "#include <limits>\n\n"
      << "namespace " << ns << " {\n\n"
      << "constexpr int dof = " << n << ";\n";
    if (plan.in_speeds)
      h << "constexpr int speed_count = " << rates
        << ";  // the generalized speeds: entries of u, udot, f, Q\n";
    if (m_count > 0)
      h << "constexpr int constraint_count = " << m_count << ";\n"
        << "constexpr int holonomic_count = " << h_count << ";\n";
    h << "\n"
      << "/// The model's parameters, defaults as the model (and the values bound) gave them.\n"
      << "struct Parameters {\n";
    for (std::size_t i = 0; i < plan.parameters.size(); ++i) {
      const auto& field = plan.parameters[i];
      h << "  double " << field.cpp_name << " = " << detail::plain_literal(field.default_value)
        << ";";
      if (field.cpp_name != field.name) h << "  // " << comment_text(field.name);
      if (!plan.parameter_notes[i].empty()) h << "  // " << comment_text(plan.parameter_notes[i]);
      h << "\n";
    }
    h << "};\n\n"
      << "/// Inputs and unspecified prescribed functions of time, with the derivatives the "
         "equations\n"
      << "/// use; 0 unless set.\n"
      << "struct Inputs {" << (inputs.empty() ? "};  // none in this model\n\n" : "\n");
    for (const auto& field : inputs) {
      h << "  double " << field.cpp_name << " = " << detail::plain_literal(field.default_value)
        << ";";
      if (field.cpp_name != field.name) h << "  // " << comment_text(field.name);
      h << "\n";
    }
    if (!inputs.empty()) h << "};\n\n";
  }

  bool split = !forward.parts.empty() || (coriolis && !coriolis->parts.empty()) ||
               (rows_body && (!rows_body->parts.empty() || !levels_body->parts.empty())) ||
               (regressor && !regressor->parts.empty());
  for (const auto* body :
       {&inverse_derivatives, &forward_derivatives, &velocities_body, &accelerations_body})
    split = split || (*body && !(*body)->parts.empty());
  for (const Body& body : bodies) split = split || !body.parts.empty();
  if (split) h << noinline_macro();
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const FunctionSpec& spec = function_specs()[i];
    const std::vector<std::string> taken = arguments(names, spec.state, spec.outputs);
    const std::string code = body_text(h, names, spec.name, taken, bodies[i]);
    h << (c ? "/* " : "/// ") << (plan.in_speeds ? spec.speeds_comment : spec.comment)
      << (c ? " */\n" : "\n") << signature(names.function(spec.name), taken)
      << discard_unread(bodies[i], spec.state, names) << code << "}\n\n";
  }
  if (velocities_body) {
    const std::string doc = c ? "/* " : "/// ", more = c ? "   " : "/// ", end = c ? " */\n" : "\n";
    std::vector<Argument> state = {Argument::Time, Argument::Q, Argument::Qd, Argument::Parameters,
                                   Argument::Inputs};
    std::vector<std::string> taken = arguments(names, state, {"double* qd"});
    std::string code = body_text(h, names, "coordinate_velocities", taken, *velocities_body);
    h << doc << "The kinematic equations: the coordinates' rates qd = W(q, t) u, " << names.dof()
      << " entries." << end << signature(names.function("coordinate_velocities"), taken)
      << discard_unread(*velocities_body, state, names) << code << "}\n\n";
    state = {Argument::Time, Argument::Q,          Argument::Qd,
             Argument::Qdd,  Argument::Parameters, Argument::Inputs};
    taken = arguments(names, state, {"double* qdd"});
    code = body_text(h, names, "coordinate_accelerations", taken, *accelerations_body);
    h << doc << "The coordinates' accelerations qdd = d/dt (W u) = W(q, t) udot + gamma(q, u, t),\n"
      << more << names.dof() << " entries (udot: the speeds' accelerations, e.g. of "
      << "forward_dynamics)." << end << signature(names.function("coordinate_accelerations"), taken)
      << discard_unread(*accelerations_body, state, names) << code << "}\n\n";
  }
  if (rows_body) {
    const std::vector<Argument> state = {Argument::Time, Argument::Q, Argument::Qd,
                                         Argument::Parameters, Argument::Inputs};
    const std::string doc = c ? "/* " : "/// ", more = c ? "   " : "/// ", end = c ? " */\n" : "\n";
    const std::string count = c ? prefix + "_constraint_count" : "constraint_count";
    const std::string holonomic = c ? prefix + "_holonomic_count" : "holonomic_count";
    std::vector<std::string> taken = arguments(names, state, {"double* A", "double* b"});
    std::string code = body_text(h, names, "constraints", taken, *rows_body);
    h << doc << "The constraints at acceleration level, A qdd = b: A row-major " << count << " x "
      << names.dof() << ",\n"
      << more << "b " << count << " (holonomic ones differentiated twice in t, nonholonomic once)."
      << end << signature(names.function("constraints"), taken)
      << discard_unread(*rows_body, state, names) << code << "}\n\n";
    taken = arguments(names, state, {"double* phi", "double* phi_q", "double* g", "double* g_qd"});
    code = body_text(h, names, "constraint_manifold", taken, *levels_body);
    // Without holonomic constraints phi and phi_q have no entries to write.
    std::string unwritten;
    if (h_count == 0)
      for (const char* name : {"phi", "phi_q"})
        unwritten += c ? std::string("  (void)") + name + ";\n"
                       : std::string("  static_cast<void>(") + name + ");\n";
    h << doc << "The constraints at position and velocity level (a projection onto them): phi\n"
      << more << "(" << holonomic << ") the holonomic ones' residuals phi(q, t), phi_q their\n"
      << more << "Jacobian d phi/dq row-major " << holonomic << " x " << names.dof() << ", g ("
      << count << ") every constraint's\n"
      << more
      << "velocity-level residual (d phi/dt, or the nonholonomic g), g_qd its coefficients\n"
      << more << "of qd row-major " << count << " x " << names.dof() << " (g is linear in qd)."
      << end << signature(names.function("constraint_manifold"), taken)
      << discard_unread(*levels_body, state, names) << unwritten << code << "}\n\n";
  }
  if (coriolis) {
    const std::vector<Argument> state = {Argument::Time, Argument::Q, Argument::Qd,
                                         Argument::Parameters, Argument::Inputs};
    const std::vector<std::string> taken = arguments(names, state, {"double* C"});
    const std::string code = body_text(h, names, "coriolis_matrix", taken, *coriolis);
    h << (c ? "/* " : "/// ")
      << "The Coriolis matrix C(q, qd), row-major dof x dof, of M qdd + C qd + g = Q: from the\n"
      << (c ? "   " : "/// ")
      << "Christoffel symbols of M, so that dM/dt - 2C is skew-symmetric (C qd + g - Q = -f)."
      << (c ? " */\n" : "\n") << signature(names.function("coriolis_matrix"), taken)
      << discard_unread(*coriolis, state, names) << code << "}\n\n";
  }
  if (regressor) {
    const std::vector<Argument> state = {Argument::Time, Argument::Q,          Argument::Qd,
                                         Argument::Qdd,  Argument::Parameters, Argument::Inputs};
    const std::vector<std::string> taken = arguments(names, state, {"double* Y"});
    const std::string code = body_text(h, names, "regressor", taken, *regressor);
    const auto standard = principles::standard_parameters(m);
    std::string masses;
    for (std::size_t k = 0; k < standard.size(); k += 10)
      masses += (k ? ", " : "") + comment_text(standard[k].owner);
    const std::string next = c ? "   " : "/// ";
    h << (c ? "/* " : "/// ")
      << "The inertial-parameter regressor: Q + Q_loads = Y pi (gravity in Y, the loads not),\n"
      << next << "Y row-major dof x " << standard.size()
      << ", ten columns a mass (m, m*cx, m*cy, m*cz, Ixx, Ixy, Ixz, Iyy,\n"
      << next << "Iyz, Izz about its frame's origin, along its axes) for: " << masses << "."
      << (c ? " */\n" : "\n") << signature(names.function("regressor"), taken)
      << discard_unread(*regressor, state, names) << code << "}\n\n";
  }
  h << pivot_test(names) << "\n";
  const std::vector<Argument> forward_state = {Argument::Time, Argument::Q, Argument::Qd,
                                               Argument::Parameters, Argument::Inputs};
  const std::string accelerations = "double* " + names.accelerations;
  std::vector<std::string> forward_parts = arguments(names, forward_state, {accelerations});
  for (const char* local : {"const double* Qx", "double* pivot", "double* diagonal"})
    forward_parts.emplace_back(local);
  const std::string forward_code = body_text(h, names, "forward_dynamics", forward_parts, forward);
  if (plan.in_speeds)
    h << (c ? "/* " : "/// ")
      << "The speeds' accelerations: solves M udot = f + Q (Q: extra generalized forces on the\n"
      << (c ? "   " : "/// ")
      << "speeds, none if null). False if M is not positive definite (or not finite) at this\n"
      << (c ? "   state; udot is then unspecified. */\n"
            : "/// state; udot is then unspecified.\n");
  else
    h << (c ? "/* " : "/// ")
      << "The accelerations: solves M qdd = f + Q (Q: extra generalized forces, none if null).\n"
      << (c ? "   " : "/// ")
      << "False if M is not positive definite (or not finite) at this state; qdd is then\n"
      << (c ? "   unspecified. */\n" : "/// unspecified.\n");
  h << signature(names.function("forward_dynamics", c ? "int" : "bool"),
                 arguments(names, forward_state,
                           {accelerations, c ? "const double* Q" : "const double* Q = nullptr"}))
    << "  double Qx[" << names.rate_count() << "], pivot[" << names.rate_count() << "], diagonal["
    << names.rate_count() << "];\n"
    << "  int i;\n"
    << "  for (i = 0; i < " << names.rate_count() << "; ++i) Qx[i] = Q "
    << (c ? "? Q[i]" : "!= nullptr ? Q[i]") << " : 0.0;\n"
    << discard_unread(forward, forward_state, names) << forward_code << "  return "
    << (c ? prefix + "_pivots_accepted" : std::string("detail::pivots_accepted"))
    << "(pivot, diagonal, " << names.accelerations << ", " << names.rate_count() << ");\n"
    << "}\n\n";
  if (inverse_derivatives)
    write_derivatives(h, names, *inverse_derivatives, *forward_derivatives, prefix);
  if (c)
    h << "#endif\n";
  else
    h << "}  // namespace " << ns << "\n";
  return h.str();
}

std::string recursions_do_not_write(const model::Model& model) {
  std::string reason = principles::recursions_do_not_cover(model);
  // The constraints' rows are written in q̈ (constraints(), constraint_manifold()): none in u.
  if (reason.empty() && model.has_speeds() && !model.constraints.empty())
    reason = "constraints in generalized speeds";
  return reason;
}

bool is_valid_namespace(const std::string& name) {
  std::size_t start = 0;
  while (true) {
    const std::size_t end = name.find("::", start);
    const std::string part = name.substr(start, end == std::string::npos ? end : end - start);
    if (!is_valid_namespace_part(part)) return false;
    // The outermost part is declared at global scope, next to what <cmath> declares there.
    if (start == 0 && detail::is_global_library_name(part)) return false;
    if (end == std::string::npos) return true;
    start = end + 2;
  }
}

std::string default_namespace(const std::string& model_name) {
  std::set<std::string> taken;
  std::string name = detail::claim_identifier(model_name, taken);
  if (!is_valid_namespace(name)) name += "_model";
  return name;
}

GeneratedLayout generated_layout(const principles::Equations& equations,
                                 const model::Values& values) {
  if (equations.constraint_count() > 0) {
    // The constraints' levels may read inputs M, f, A and b do not (dot(u) of φ = x − u): the
    // members the header itself declares.
    CodegenOptions options;
    options.values = values;
    detail::HeaderFacts facts;
    detail::generate_header({*equations.model, &equations}, options, Language::Cpp, &facts);
    return GeneratedLayout{facts.parameters, facts.inputs};
  }
  Plan plan = detail::make_plan(equations, values);
  return GeneratedLayout{plan.parameters, detail::claim_input_fields(plan)};
}

std::string generate_cpp_header(const principles::Equations& eq, const CodegenOptions& options) {
  return detail::generate_header({*eq.model, &eq}, options, Language::Cpp, nullptr);
}

std::string generate_c_header(const principles::Equations& eq, const CodegenOptions& options) {
  return detail::generate_header({*eq.model, &eq}, options, Language::C, nullptr);
}

std::string generate_code(const principles::Equations& eq, const CodegenOptions& options,
                          std::string* method) {
  detail::HeaderFacts facts;
  std::string header = detail::generate_header({*eq.model, &eq}, options, options.language, &facts);
  if (method) *method = facts.method;
  return header;
}

std::string generate_code(const model::Model& model, const CodegenOptions& options) {
  return detail::generate_header({model, nullptr}, options, options.language, nullptr);
}

}  // namespace appell::codegen
