// appell._simulate, _inverse, _statics, codegen, _regressor, _base_parameters and _fem_modes: the
// commands simulate, inverse, statics, codegen, regressor and fem with their options as arguments.
// The package's Python part wraps the dicts returned here into result objects.
#include <cmath>
#include <optional>

#include "common.hpp"

namespace appell::python {

namespace {

// The equations of `target`: an Equations as derived (not the minimal form), or derived from a
// Model by `method` (a name: the caller has put Gibbs–Appell for none given).
principles::Equations equations_of(const py::handle& target, const std::string& method,
                                   const std::string& argument) {
  if (py::isinstance<Equations>(target))
    return target.cast<const Equations&>().equations(argument.c_str());
  const auto model = model_of(target, argument);
  const auto m = to_method(method);
  return interruptible([&] { return principles::derive(model, m); });
}

py::array_t<double> rows_to_numpy(const std::vector<double>& data, std::size_t rows,
                                  std::size_t cols) {
  py::array_t<double> a({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(cols)});
  std::copy(data.begin(), data.end(), a.mutable_data());
  return a;
}

py::array_t<double> vector_to_numpy(const std::vector<double>& data) {
  py::array_t<double> a(static_cast<py::ssize_t>(data.size()));
  std::copy(data.begin(), data.end(), a.mutable_data());
  return a;
}

std::vector<std::string> coordinate_names(const model::Model& model) {
  std::vector<std::string> names;
  for (const auto& c : model.coordinates) names.push_back(c.name);
  return names;
}

py::dict simulate(const py::handle& target, double t_end, const py::object& q0,
                  const py::object& qd0, double rtol, double atol, double output_step,
                  const py::object& values, const py::object& inputs, const std::string& integrator,
                  long max_rows, const std::string& method, bool jit, const py::object& u0) {
  const auto model = model_of(target, "model");
  const std::size_t n = model->dof(), m = model->constraints.size(), p = model->speeds.size();
  const bool in_speeds = model->has_speeds();
  if (!u0.is_none() && !in_speeds)
    value_error("u0", "the model has no generalized speeds (speeds:, rot_quat): give qd0");
  num::SimulationOptions options;
  options.t_end = t_end;
  options.rtol = rtol;
  options.atol = atol;
  options.output_step = output_step;
  options.max_rows = max_rows;
  if (!q0.is_none()) {
    const auto v = to_vector(q0, n, "q0");
    options.q0.assign(v.data(), v.data() + v.size());
  }
  if (!qd0.is_none()) {
    const auto v = to_vector(qd0, n, "qd0");
    options.qd0.assign(v.data(), v.data() + v.size());
  }
  std::vector<double> speeds0;
  if (!u0.is_none()) {
    if (!qd0.is_none()) value_error("u0", "give u0 or qd0, not both");
    const auto v = to_vector(u0, p, "u0");
    speeds0.assign(v.data(), v.data() + v.size());
  }
  const auto kind = num::parse_integrator(integrator);
  if (!kind) value_error("integrator", "unknown integrator '" + integrator + "' (bdf, adams)");
  options.integrator = *kind;
  options.values = to_values(*model, values, "values");
  options.values.merge(to_values(*model, inputs, "inputs"));

  struct Rows {
    std::vector<double> t, q, qd, qdd, T, V, E, lam, u, udot;
    std::size_t count = 0;
  } rows;
  auto collect = [&](const num::SimulationRow& r) {
    sym::poll_cancellation();
    rows.t.push_back(r.t);
    rows.q.insert(rows.q.end(), r.q.data(), r.q.data() + r.q.size());
    rows.qd.insert(rows.qd.end(), r.qd.data(), r.qd.data() + r.qd.size());
    rows.qdd.insert(rows.qdd.end(), r.qdd.data(), r.qdd.data() + r.qdd.size());
    rows.T.push_back(r.kinetic);
    rows.V.push_back(r.potential);
    rows.E.push_back(r.total);
    for (std::size_t i = 0; i < m; ++i)
      rows.lam.push_back(i < static_cast<std::size_t>(r.lambda.size())
                             ? r.lambda[static_cast<Eigen::Index>(i)]
                             : std::nan(""));
    ++rows.count;
  };
  num::SimulationResult result;
  bool complete = true;
  std::string message;
  std::string evaluator = "tape";
  std::string route;  // stats["method"]: "recursions", or the principle of the formed equations
  auto integrate = [&](auto&& run) {
    interruptible([&] {
      try {
        result = run();
      } catch (const num::SimulationError& e) {
        result = e.partial();
        complete = false;
        message = e.what();
      }
      return 0;
    });
  };
  // As `appell simulate`: a model without a method is integrated without forming its equations
  // where the recursions cover it, in its Gibbs–Appell equations otherwise; a method asks for
  // that principle's equations, formed (and so do given equations).
  const bool given = py::isinstance<Equations>(target);
  const bool from_model = !given && method.empty();
  const std::string principle = method.empty() ? "gibbs-appell" : method;
  const bool covered = principles::recursions_do_not_cover(*model).empty();
  if (in_speeds) {
    // M̃ u̇ = f̃ with q̇ = W u.
    // Given equations in the speeds are integrated as given (those written through named
    // intermediates are formed again: the names are no values); a model without a method as
    // `appell simulate` does, through the recursions in its speeds where they cover it.
    const principles::Derivation* derivation =
        given ? &target.cast<const Equations&>().derivation : nullptr;
    const principles::Equations equations =
        derivation && derivation->equations && !derivation->named &&
                derivation->equations->form == principles::Form::Speeds
            ? *derivation->equations
        : from_model
            ? principles::Equations{}
            : interruptible([&] { return principles::speed_form(model, to_method(principle)); });
    route = from_model ? (covered ? "recursions" : "gibbs-appell")
                       : principles::method_name(equations.method);
    if (from_model && covered) {
      // The recursions in the speeds compiled (jit=False, no compiler, or constraints in the
      // speeds: interpreted), as `appell simulate`.
      options.dynamics =
          interruptible([&] { return compile_dynamics(model, options.values, jit); });
      evaluator = options.dynamics->kind();
    }
    options.u0 = speeds0;
    const auto on_row = [&](const num::SimulationRow& r) {
      collect(r);
      rows.u.insert(rows.u.end(), r.v.data(), r.v.data() + r.v.size());
      rows.udot.insert(rows.udot.end(), r.vdot.data(), r.vdot.data() + r.vdot.size());
    };
    integrate([&] {
      return from_model ? num::simulate(model, options, on_row)
                        : num::simulate(equations, options, on_row);
    });
  } else if (from_model && covered) {
    // q̈ (with constraints also λ, A, b and the projection) by the generated code of the
    // recursions compiled into a cached shared object, or the recursions interpreted (jit=False,
    // no compiler); T and V from the recursions.
    options.dynamics = interruptible([&] { return compile_dynamics(model, options.values, jit); });
    evaluator = options.dynamics->kind();
    route = "recursions";
    integrate([&] { return num::simulate(model, options, collect); });
  } else {
    const auto equations = equations_of(target, principle, "model");
    route = principles::method_name(equations.method);
    // q̈ by the recursions' generated code compiled into a cached shared object (the numbers of
    // these equations, to rounding) unless jit=False, the equations have constraints (their own
    // A and b are solved with them) or the recursions do not cover the model: then the tape.
    if (jit && equations.constraint_count() == 0 &&
        principles::recursions_do_not_cover(*equations.model).empty()) {
      options.dynamics =
          interruptible([&] { return compile_dynamics(equations.model, options.values, true); });
      evaluator = options.dynamics->kind();
    }
    integrate([&] { return num::simulate(equations, options, collect); });
  }

  py::dict d;
  d["t"] = vector_to_numpy(rows.t);
  d["q"] = rows_to_numpy(rows.q, rows.count, n);
  d["qd"] = rows_to_numpy(rows.qd, rows.count, n);
  d["qdd"] = rows_to_numpy(rows.qdd, rows.count, n);
  d["T"] = vector_to_numpy(rows.T);
  d["V"] = vector_to_numpy(rows.V);
  d["E"] = vector_to_numpy(rows.E);
  d["lam"] = rows_to_numpy(rows.lam, rows.count, m);
  d["u"] = rows_to_numpy(rows.u, rows.count, p);  // (N, 0) without speeds
  d["udot"] = rows_to_numpy(rows.udot, rows.count, p);
  std::vector<std::string> speed_names;
  for (const auto& speed : model->speeds) speed_names.push_back(speed.name);
  d["speeds"] = speed_names;
  d["coordinates"] = coordinate_names(*model);
  std::vector<std::string> multipliers;
  for (const auto& c : model->constraints) multipliers.push_back("lambda_" + c.name);
  d["multipliers"] = multipliers;
  d["complete"] = complete;
  d["message"] = message;
  py::dict stats;
  stats["t_reached"] = result.t_reached;
  stats["rows"] = result.rows;
  stats["steps"] = result.steps;
  stats["rhs_evaluations"] = result.rhs_evaluations;
  stats["initial_energy"] = result.initial_energy;
  stats["energy_drift"] = result.energy_drift;
  stats["conservative"] = result.conservative;
  stats["not_conservative_because"] = result.not_conservative_because;
  stats["max_violation"] =
      py::make_tuple(result.max_violation.position, result.max_violation.velocity);
  stats["initial_correction"] =
      py::make_tuple(result.initial_correction.position, result.initial_correction.velocity);
  stats["redundant_constraints"] = result.redundant_constraints;
  stats["evaluator"] = evaluator;
  stats["method"] = route;
  d["stats"] = stats;
  return d;
}

// The driving forces along a motion given by expressions of t (trajectory, t_end, output_step),
// by a CSV file (from_csv), or by arrays (t, q, qd, qdd).
py::dict inverse(const py::handle& target, const py::object& trajectory, const py::object& t_end,
                 const py::object& output_step, const py::object& from_csv, const py::object& t,
                 const py::object& q, const py::object& qd, const py::object& qdd,
                 const py::object& values, const std::string& method, bool jit) {
  const auto model = model_of(target, "model");
  const std::size_t n = model->dof();
  const int given = int(!trajectory.is_none()) + int(!from_csv.is_none()) + int(!q.is_none());
  if (given != 1)
    value_error("trajectory",
                "give exactly one of trajectory='q1=EXPR; ...', from_csv=PATH and "
                "the arrays t, q, qd, qdd");
  const auto bound = to_values(*model, values, "values", false);
  std::vector<num::TrajectorySample> samples;
  if (!trajectory.is_none()) {
    if (t_end.is_none() || output_step.is_none())
      value_error(t_end.is_none() ? "t_end" : "output_step", "required with trajectory");
    const double end = t_end.cast<double>(), step = output_step.cast<double>();
    if (!std::isfinite(end) || end < 0.0) value_error("t_end", "must be a finite number >= 0");
    if (!std::isfinite(step) || step <= 0.0)
      value_error("output_step", "must be a finite number > 0");
    // t_k = k·H, k = 0..K with K·H ≤ T, as `appell inverse` (T itself kept when T/H is whole).
    const double intervals = std::floor(end / step * (1.0 + 1e-12) + 1e-9);
    if (intervals + 1.0 > 1e8)
      value_error("output_step", "more than 1e8 rows; choose a larger step");
    const std::string text = trajectory.cast<std::string>();
    samples = interruptible([&] {
      const num::Trajectory path(text, *model, bound);
      std::vector<num::TrajectorySample> s;
      for (std::size_t k = 0; k <= static_cast<std::size_t>(intervals); ++k)
        s.push_back(path.sample(static_cast<double>(k) * step));
      return s;
    });
  } else if (!from_csv.is_none()) {
    const std::string path = py::str(from_csv);
    samples = locked([&] { return num::read_trajectory_csv(path, *model); });
  } else {
    using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;
    const Array ta = Array::ensure(t), qa = Array::ensure(q), qda = Array::ensure(qd),
                qdda = Array::ensure(qdd);
    if (!ta || ta.ndim() != 1) value_error("t", "expected shape (N,)");
    const auto rows = static_cast<std::size_t>(ta.shape(0));
    for (const auto& [a, name] :
         {std::pair<const Array&, const char*>{qa, "q"}, {qda, "qd"}, {qdda, "qdd"}})
      if (!a || a.ndim() != 2 || static_cast<std::size_t>(a.shape(0)) != rows ||
          static_cast<std::size_t>(a.shape(1)) != n)
        value_error(name,
                    "expected shape (" + std::to_string(rows) + ", " + std::to_string(n) + ")");
    for (std::size_t k = 0; k < rows; ++k) {
      num::TrajectorySample s;
      s.t = ta.data()[k];
      s.q = Eigen::Map<const Eigen::VectorXd>(qa.data() + k * n, static_cast<Eigen::Index>(n));
      s.qd = Eigen::Map<const Eigen::VectorXd>(qda.data() + k * n, static_cast<Eigen::Index>(n));
      s.qdd = Eigen::Map<const Eigen::VectorXd>(qdda.data() + k * n, static_cast<Eigen::Index>(n));
      samples.push_back(std::move(s));
    }
  }
  // As `appell inverse`: a model without a method by Newton–Euler straight from the model (the
  // recursions' generated code compiled, or interpreted) where the recursions alone cover it, no
  // equations formed; otherwise the equations of the method (default Gibbs–Appell), compiled or
  // by the tape (with constraints: the tape, whose driving forces include the reactions).
  // A model in generalized speeds: by the recursions in its speeds (forces on the speeds).
  const bool by_recursions =
      !py::isinstance<Equations>(target) && method.empty() &&
      (model->has_speeds()
           ? principles::recursions_do_not_cover(*model).empty() && model->constraints.empty()
           : principles::recursions_alone_do_not_cover(*model).empty());
  std::optional<principles::Equations> equations;
  if (!by_recursions)
    equations = equations_of(target, method.empty() ? "gibbs-appell" : method, "model");
  const std::size_t rows = samples.size();
  std::vector<double> tv, qv, qdv, qddv, Q;
  std::size_t forces = n;  // Q's columns: n, or p on the speeds
  bool on_speeds = false;
  interruptible([&] {
    // With a method and jit, q̈ of the formed equations equals the recursions': their compiled
    // Newton–Euler where it covers the model (without constraints, whose reactions Q includes).
    const bool compiled =
        by_recursions || (jit && equations->constraint_count() == 0 &&
                          principles::recursions_alone_do_not_cover(*equations->model).empty());
    const num::InverseDynamics inverse =
        compiled ? num::InverseDynamics(
                       compile_dynamics(by_recursions ? model : equations->model, bound, jit))
                 : num::InverseDynamics(*equations, bound);
    forces = inverse.force_count();
    on_speeds = inverse.in_speeds();
    for (const auto& s : samples) {
      const Eigen::VectorXd Qs = inverse.driving_forces(s.t, s.q, s.qd, s.qdd);
      tv.push_back(s.t);
      qv.insert(qv.end(), s.q.data(), s.q.data() + n);
      qdv.insert(qdv.end(), s.qd.data(), s.qd.data() + n);
      qddv.insert(qddv.end(), s.qdd.data(), s.qdd.data() + n);
      Q.insert(Q.end(), Qs.data(), Qs.data() + Qs.size());
    }
    return 0;
  });
  py::dict d;
  d["t"] = vector_to_numpy(tv);
  d["q"] = rows_to_numpy(qv, rows, n);
  d["qd"] = rows_to_numpy(qdv, rows, n);
  d["qdd"] = rows_to_numpy(qddv, rows, n);
  d["Q"] = rows_to_numpy(Q, rows, forces);
  d["coordinates"] = coordinate_names(*model);
  // What Q's columns act on: the coordinates, or a model's generalized speeds.
  std::vector<std::string> names = coordinate_names(*model);
  if (on_speeds) {
    names.clear();
    for (const auto& speed : model->speeds) names.push_back(speed.name);
  }
  d["forces"] = names;
  d["method"] =
      by_recursions ? std::string("recursions") : principles::method_name(equations->method);
  return d;
}

// What `appell statics --json` prints (io::write_statics_json: the package parses it), with the
// multipliers and residual of each equilibrium and the best residual beside it.
py::dict statics(const Model& target, const py::object& guesses, const py::object& values, double t,
                 int random_starts, double tolerance, double stability_tolerance, bool modes) {
  const auto& model = *target.model;
  const std::size_t n = model.dof();
  num::StaticsOptions options;
  options.values = to_values(model, values, "values");
  options.t = t;
  options.random_starts = random_starts;
  options.tolerance = tolerance;
  options.stability_tolerance = stability_tolerance;
  if (random_starts < 0) value_error("random_starts", "must be >= 0");
  // As `appell statics --guess`: a dict {name: value} sets those coordinates of one start (the
  // others at their initial values); a list gives whole starting points.
  if (py::isinstance<py::dict>(guesses)) {
    Eigen::VectorXd named(static_cast<Eigen::Index>(n));
    for (std::size_t j = 0; j < n; ++j)
      named[static_cast<Eigen::Index>(j)] = model.coordinates[j].initial;
    for (const auto& [key, value] : guesses.cast<py::dict>()) {
      const std::string name = py::str(key);
      std::size_t index = n;
      for (std::size_t j = 0; j < n; ++j)
        if (model.coordinates[j].name == name) index = j;
      if (index == n) value_error("guesses", "unknown coordinate '" + name + "'");
      named[static_cast<Eigen::Index>(index)] = value.cast<double>();
    }
    options.guesses.push_back(named);
  } else if (!guesses.is_none()) {
    if (!py::isinstance<py::sequence>(guesses)) type_error("guesses", "expected a list or a dict");
    std::size_t i = 0;
    for (const auto& g : guesses.cast<py::sequence>())
      options.guesses.push_back(to_vector(g, n, "guesses[" + std::to_string(i++) + "]"));
  }
  struct Out {
    num::StaticsResult result;
    std::string json;
  };
  const Out out = interruptible([&] {
    Out o;
    o.result = num::solve_statics(target.model, options);
    // With modes, the small oscillations about each equilibrium, as `appell statics --modes`.
    std::vector<num::EquilibriumDynamics> dynamics;
    if (modes) dynamics = num::equilibria_dynamics(target.model, o.result, options);
    o.json = io::write_statics_json(model, o.result, modes ? &dynamics : nullptr);
    return o;
  });
  py::list lam, residual;
  for (const auto& e : out.result.equilibria) {
    lam.append(to_numpy(e.lambda));
    residual.append(e.residual);
  }
  py::dict d;
  d["json"] = out.json;
  d["lam"] = lam;
  d["residual"] = residual;
  d["best_residual"] = out.result.best_residual;
  d["coordinates"] = coordinate_names(model);
  return d;
}

std::string codegen(const ModelArgument& target, const OptionalText& namespace_name,
                    const OptionalText& method, const ValuesArgument& values) {
  const auto model = model_of(target, "model");
  codegen::CodegenOptions options;
  if (!namespace_name.is_none()) {
    options.namespace_name = py::str(py::object(namespace_name));
    if (!codegen::is_valid_namespace(options.namespace_name))
      value_error("namespace",
                  "not a valid C++ namespace name (identifiers, not keywords, joined "
                  "by ::): '" +
                      options.namespace_name + "'");
  }
  options.values = to_values(*model, values, "values");
  if (!method.is_none() && !py::isinstance<py::str>(method))
    type_error("method", "expected a method name (str) or None");
  // As `appell codegen`: a model without a method straight from the recursions where they write
  // it (no equations formed); otherwise the equations of the method (default Gibbs–Appell).
  const bool given = py::isinstance<Equations>(target);
  if (!given && method.is_none() && codegen::recursions_do_not_write(*model).empty())
    return interruptible([&] { return codegen::generate_code(*model, options); });
  const std::string principle =
      method.is_none() ? std::string("gibbs-appell") : std::string(py::str(py::object(method)));
  const auto equations = equations_of(target, principle, "model");
  return interruptible([&] { return codegen::generate_cpp_header(equations, options); });
}

// Y at one state with what it multiplies (num::regressor_numbers: `appell regressor --q --qd
// --qdd [--base] --json`), as the fields of appell.RegressorResult.
py::dict regressor(const ModelArgument& target, const ArrayLike& q, const ArrayLike& qd,
                   const ArrayLike& qdd, double t, const ValuesArgument& values, bool base) {
  const auto model = model_of(target, "model");
  const std::size_t n = model->dof();
  const model::Values bound = to_values(*model, values, "values");
  num::RegressorState state;
  state.t = t;
  // A model the regressor does not cover is refused before its state is read (its rates would
  // be speeds), as by the command line.
  if (model->has_speeds())
    (void)locked([&] { return num::regressor_numbers(*model, bound, state); });
  state.q = to_vector(q, n, "q");
  state.qd = to_vector(qd, n, "qd");
  state.qdd = to_vector(qdd, n, "qdd");
  const auto [numbers, text] = locked([&] {
    num::RegressorNumbers r = num::regressor_numbers(*model, bound, state, base);
    std::string shown = io::write_regressor_numbers(*model, state, r, io::RegressorFormat::Text);
    return std::make_pair(std::move(r), std::move(shown));
  });
  py::list parameters, coordinates;
  for (const auto& p : numbers.standard) parameters.append(p.name);
  for (const auto& c : numbers.coordinates) coordinates.append(c);
  py::dict d;
  d["coordinates"] = coordinates;
  d["parameters"] = parameters;
  d["values"] = to_numpy(numbers.values);
  d["Y"] = to_numpy(numbers.regressor);
  d["t"] = t;
  d["text"] = text;
  if (numbers.base) {
    const num::BaseParameters& b = *numbers.base;
    const sym::ReadableContext context = io::readable_context(*model);
    py::list kept, names, expressions, exact, roles, grouped_into;
    for (const auto& p : b.base) {
      kept.append(numbers.standard[p.kept].name);
      names.append(numbers.standard[p.kept].name + "R");
      expressions.append(io::expression_text(p.expression, context));
      exact.append(p.exact);
    }
    for (std::size_t k = 0; k < b.standard.size(); ++k) {
      roles.append(b.roles[k] == num::ParameterRole::Kept      ? "kept"
                   : b.roles[k] == num::ParameterRole::Grouped ? "grouped"
                                                               : "vanishes");
      py::list into;
      for (std::size_t i : b.grouped_into[k]) into.append(b.standard[i].name);
      grouped_into.append(into);
    }
    d["kept"] = kept;
    d["base_parameters"] = names;
    d["base_expressions"] = expressions;
    d["base_values"] = to_numpy(numbers.base_values);
    d["Y_b"] = to_numpy(numbers.base_regressor);
    d["exact"] = exact;
    d["roles"] = roles;
    d["grouped_into"] = grouped_into;
    d["samples"] = b.samples;
    d["tolerance"] = b.tolerance;
  }
  return d;
}

// The standard and base parameters (num::base_parameters), expressions as model-language text
// (the package parses them into SymPy).
py::dict base_parameters(const ModelArgument& target, const ValuesArgument& values) {
  const auto model = model_of(target, "model");
  const model::Values bound = to_values(*model, values, "values");
  const num::BaseParameters base =
      interruptible([&] { return num::base_parameters(*model, bound); });
  const sym::ReadableContext context = io::readable_context(*model);
  py::list standard, roles, kept, expressions, numbers, exact, grouped_into;
  for (std::size_t k = 0; k < base.standard.size(); ++k) {
    standard.append(base.standard[k].name);
    roles.append(base.roles[k] == num::ParameterRole::Kept      ? "kept"
                 : base.roles[k] == num::ParameterRole::Grouped ? "grouped"
                                                                : "vanishes");
    py::list into;
    for (std::size_t i : base.grouped_into[k]) into.append(base.standard[i].name);
    grouped_into.append(into);
  }
  for (const auto& b : base.base) {
    kept.append(base.standard[b.kept].name);
    expressions.append(io::expression_text(b.expression, context));
    numbers.append(GiNaC::ex_to<GiNaC::numeric>(b.value).to_double());
    exact.append(b.exact);
  }
  py::dict d;
  d["standard"] = standard;
  d["roles"] = roles;
  d["grouped_into"] = grouped_into;
  d["kept"] = kept;
  d["expressions"] = expressions;
  d["values"] = numbers;
  d["exact"] = exact;
  return d;
}

py::dict fem_modes(const Model& target, const py::object& body, int modes, double at_time,
                   bool stiffening, const py::object& values) {
  const auto& model = *target.model;
  if (model.flexible.empty())
    throw model::ModelError(model::SourceLocation{model.source, 0, 0},
                            "this model has no flexible bodies (add a `flexible:` list)");
  std::size_t index = 0;
  if (!body.is_none()) {
    const std::string name = py::str(body);
    index = model.flexible.size();
    for (std::size_t i = 0; i < model.flexible.size(); ++i)
      if (model.flexible[i].name == name) index = i;
    if (index == model.flexible.size()) value_error("body", "no flexible body '" + name + "'");
  }
  if (modes < 1) value_error("modes", "must be at least 1");
  const auto bound = to_values(model, values, "values");
  struct Out {
    fem::FlexibleBodyInstance body;
    fem::FrameState frame;
    fem::ModalResult result;
  };
  const Out out = interruptible([&] {
    Out o;
    o.body = fem::build_flexible_body(model, index, bound);
    const fem::FrameMotion motion(target.model, o.body.spec->frame, bound, at_time,
                                  std::max(at_time, 1e-9) / 2000.0, o.body.spec->where);
    o.frame = motion.at(at_time);
    fem::ModalOptions options;
    options.modes = modes;
    options.stiffening = o.body.spec->stiffening && stiffening;
    o.result = fem::modal_analysis(o.body, o.frame, options);
    return o;
  });
  py::dict d;
  d["body"] = out.body.spec->name;
  d["frequencies_hz"] = vector_to_numpy(out.result.frequencies_hz);
  d["shapes"] = to_numpy(out.result.shapes);
  d["stiffened"] = out.result.stiffened;
  d["note"] = out.result.note;
  d["elements"] = out.body.mesh.elements.size();
  d["element_type"] = std::string(fem::type_name(out.body.mesh.elements.front().type));
  d["nodes"] = out.body.mesh.nodes.size();
  d["dofs"] = out.body.assembled.dof_count();
  d["free_dofs"] = out.body.free_dofs.size();
  d["mass"] = out.body.assembled.total_mass;
  d["at_time"] = at_time;
  d["omega"] = to_numpy(Eigen::VectorXd(out.frame.omega));
  d["seconds"] = out.result.seconds;
  return d;
}

}  // namespace

void bind_solvers(py::module_& m) {
  m.def("_simulate", &simulate, py::arg("model"), py::arg("t_end"), py::arg("q0"), py::arg("qd0"),
        py::arg("rtol"), py::arg("atol"), py::arg("output_step"), py::arg("values"),
        py::arg("inputs"), py::arg("integrator"), py::arg("max_rows"), py::arg("method"),
        py::arg("jit") = true, py::arg("u0") = py::none());
  m.def("_inverse", &inverse, py::arg("model"), py::arg("trajectory"), py::arg("t_end"),
        py::arg("output_step"), py::arg("from_csv"), py::arg("t"), py::arg("q"), py::arg("qd"),
        py::arg("qdd"), py::arg("values"), py::arg("method"), py::arg("jit") = true);
  m.def("_statics", &statics, py::arg("model"), py::arg("guesses"), py::arg("values"), py::arg("t"),
        py::arg("random_starts"), py::arg("tolerance"), py::arg("stability_tolerance"),
        py::arg("modes"));
  m.def("codegen", &codegen, py::arg("model"), py::kw_only(), py::arg("namespace") = py::none(),
        py::arg("method") = py::none(), py::arg("values") = py::none(),
        R"doc(A self-contained C++17 header for the equations (`appell codegen`): M, f, forward and
inverse dynamics (with constraints also constraints() and constraint_manifold()). `model` is a
Model or Equations. A Model without `method` is written straight from the recursions where they
cover it, without forming its equations (time about linear in the bodies; the header says
"Method: the recursions (no equations formed)"), else from its Gibbs-Appell equations; a method
("lagrange", "gibbs-appell", ...) writes that principle's equations, formed. `values` gives the
generated structs' defaults.)doc");
  m.def("_regressor", &regressor, py::arg("model"), py::arg("q"), py::arg("qd"), py::arg("qdd"),
        py::arg("t"), py::arg("values"), py::arg("base"));
  m.def("_base_parameters", &base_parameters, py::arg("model"), py::arg("values"));
  m.def("_fem_modes", &fem_modes, py::arg("model"), py::arg("body"), py::arg("modes"),
        py::arg("at_time"), py::arg("stiffening"), py::arg("values"));
}

}  // namespace appell::python
