// appell._derive, appell.Equations, appell.Compiled and appell.verify.
#include <chrono>
#include <cmath>
#include <mutex>

#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/dynamics_derivatives.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "common.hpp"

namespace appell::python {

namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

py::dict cost_dict(const principles::DerivationCost& c) {
  py::dict d;
  d["differentiations"] = c.differentiations;
  d["derivative_nodes"] = c.derivative_nodes;
  d["size_before"] = c.size_before;
  d["size_after"] = c.size_after;
  d["seconds"] = c.seconds;
  d["simplify_seconds"] = c.simplify_seconds;
  return d;
}

Equations derive(const Model& target, const std::string& method, int order,
                 const py::object& values, bool raw, bool minimal, const py::object& show,
                 bool split) {
  principles::DerivationRequest request;
  request.split = split;
  request.method = to_method(method);
  request.order = order;
  request.minimal = minimal;
  request.readable = !raw;
  request.values = to_values(*target.model, values, "values", false);
  if (!show.is_none()) {
    const std::string what = py::str(show);
    if (what != "compulsion" && what != "inertial-forces")
      value_error("show", "unknown quantity '" + what + "' (compulsion, inertial-forces)");
    request.compulsion = what == "compulsion";
    request.inertial_forces = what == "inertial-forces";
  }
  return interruptible([&] {
    Equations e{target.model, principles::derive(target.model, request), raw, std::nullopt,
                request};
    // Written through named intermediates (a large model): what is evaluated is M and f with the
    // names put back, never the names as unknowns.
    if (e.derivation.named && e.derivation.equations)
      e.evaluable = principles::with_names_put_back(*e.derivation.equations, *e.derivation.named);
    return e;
  });
}

// The split's expressions as text in the model language (parsed back by Equations.split()):
// the one derive(split=True) formed, else formed now by the same request with the split.
py::dict split_expressions(const Equations& e) {
  e.equations("split");  // the minimal form and the speeds' equations have none
  using Rows = std::vector<std::vector<std::string>>;
  struct Texts {
    std::map<std::string, Rows> parts;
    bool moving = false;
    std::optional<bool> proved;
  };
  const Texts texts = interruptible([&] {
    std::optional<principles::CoriolisSplit> formed = e.derivation.split;
    std::optional<bool> proved = e.derivation.split_proved;
    if (!formed) {
      principles::DerivationRequest request = e.request;
      request.split = true;
      const auto again = principles::derive(e.model, request);
      formed = again.split;
      proved = again.split_proved;
    }
    const sym::ReadableContext context = io::readable_context(*e.model);
    Texts t;
    t.moving = formed->moving;
    t.proved = proved;
    const auto rows = [&](const GiNaC::matrix& m) {
      Rows out(m.rows());
      for (unsigned i = 0; i < m.rows(); ++i)
        for (unsigned j = 0; j < m.cols(); ++j)
          out[i].push_back(io::expression_text(m(i, j), context));
      return out;
    };
    t.parts["mass_matrix"] = rows(formed->mass_matrix);
    t.parts["coriolis"] = rows(formed->coriolis);
    t.parts["gravity"] = rows(formed->gravity);
    t.parts["loads"] = rows(formed->loads);
    if (formed->moving) {
      t.parts["mass_rate"] = rows(formed->mass_rate);
      t.parts["gyroscopic"] = rows(formed->gyroscopic);
      t.parts["prescribed_motion"] = rows(formed->prescribed_motion);
    }
    return t;
  });
  py::dict d;
  for (const auto& [key, value] : texts.parts) d[py::str(key)] = value;
  d["moving"] = texts.moving;
  d["proved"] = texts.proved ? py::cast(*texts.proved) : py::none();
  return d;
}

// Every expression of the equations as text in the model language (parsed back by to_sympy).
// Equations written through named intermediates (a large model) give the names' definitions in
// order ("intermediates": [name, text] pairs, each in terms of those before it) and M, f, A, b in
// terms of them: with every name put back, the text would be the whole tree (2.2 million
// characters for one entry of a 6-joint arm), which the names avoid.
py::dict expressions(const Equations& e) {
  const auto& evaluable = e.equations("expressions");
  const bool named = e.derivation.named.has_value();
  const auto& eq = named ? *e.derivation.equations : evaluable;
  struct Texts {
    std::vector<std::vector<std::string>> M, A;
    std::vector<std::string> f, b;
    std::vector<std::pair<std::string, std::string>> intermediates;
  };
  const Texts texts = interruptible([&] {
    const sym::ReadableContext context = io::readable_context(*e.model);
    Texts t;
    auto text = [&](const GiNaC::ex& x) { return io::expression_text(x, context); };
    if (named)
      for (const auto& i : e.derivation.named->intermediates)
        t.intermediates.emplace_back(i.name.get_name(), text(i.value));
    for (unsigned i = 0; i < eq.mass_matrix.rows(); ++i) {
      t.M.emplace_back();
      for (unsigned j = 0; j < eq.mass_matrix.cols(); ++j)
        t.M.back().push_back(text(eq.mass_matrix(i, j)));
      t.f.push_back(text(eq.forcing(i, 0)));
    }
    for (unsigned i = 0; i < eq.constraint_count(); ++i) {
      t.A.emplace_back();
      for (unsigned j = 0; j < eq.constraint_matrix.cols(); ++j)
        t.A.back().push_back(text(eq.constraint_matrix(i, j)));
      t.b.push_back(text(eq.constraint_rhs(i, 0)));
    }
    return t;
  });
  py::dict d;
  d["M"] = texts.M;
  d["f"] = texts.f;
  d["A"] = texts.A;
  d["b"] = texts.b;
  d["intermediates"] = texts.intermediates;
  return d;
}

/// The compiled equations of one Equations, with a lock of its own: evaluate() reuses buffers.
struct Compiled {
  std::shared_ptr<const model::Model> model;
  std::unique_ptr<num::CompiledEquations> compiled;
  std::mutex mutex;
  std::size_t n = 0, m = 0;
};

std::unique_ptr<Compiled> compile(const Equations& e, const ValuesArgument& values) {
  const auto& eq = e.equations("compile");
  const auto bound = to_values(*e.model, values, "values");
  auto result = std::make_unique<Compiled>();
  result->model = e.model;
  result->compiled =
      interruptible([&] { return std::make_unique<num::CompiledEquations>(eq, bound); });
  result->n = result->compiled->dof();
  result->m = result->compiled->constraint_count();
  return result;
}

Array as_array(const py::handle& value, const char* argument) {
  Array a;
  try {
    a = Array::ensure(value);
  } catch (const py::error_already_set&) {
  }
  if (!a) type_error(argument, "expected numbers (a sequence or a numpy array)");
  return a;
}

// `value` as numbers of one state, shape (width,), or of k states, shape (k, width); ValueError
// naming `argument` (whose entries are one per `each`) for another shape.
Array state_numbers(const py::handle& value, std::size_t width, const char* argument,
                    const char* each) {
  const Array a = as_array(value, argument);
  const std::string w = std::to_string(width);
  if (a.ndim() == 1 && static_cast<std::size_t>(a.shape(0)) != width)
    value_error(argument, "expected " + w + " values (one per " + each + "), got " +
                              std::to_string(a.shape(0)));
  if (a.ndim() == 2 && static_cast<std::size_t>(a.shape(1)) != width)
    value_error(argument, "expected shape (k, " + w + ") (one column per " + each + "), got (" +
                              std::to_string(a.shape(0)) + ", " + std::to_string(a.shape(1)) + ")");
  if (a.ndim() != 1 && a.ndim() != 2)
    value_error(argument, "expected shape (" + w + ",) or (k, " + w + ")");
  return a;
}

// What an argument of `width` numbers per state whose states are not q's is told.
std::string other_states(std::size_t coordinates, std::size_t width) {
  if (width == coordinates) return "expected the shape of q";
  const std::string w = std::to_string(width);
  return "expected as many states as q (shape (" + w + ",) with q of shape (n,), (k, " + w +
         ") with q of shape (k, n))";
}

// A batch of states: q of shape (n,) or (k, n), the rates qd of shape (p,) or (k, p) (p = n but
// in generalized speeds), t a number or shape (k,).
struct States {
  Array q, qd, t;
  std::size_t n = 0, p = 0, k = 1;
  bool batch = false;
  double t0 = 0.0;
  double time(std::size_t i) const { return t.size() ? t.data()[t.size() == 1 ? 0 : i] : t0; }
};

// The rates' entries are one per `rate` ("coordinate", or "speed" in generalized speeds).
States states(std::size_t coordinates, std::size_t rates, const py::handle& q, const py::handle& qd,
              const py::handle& t, const char* rate = "coordinate",
              const char* rates_argument = "qd") {
  States s;
  s.n = coordinates;
  s.p = rates;
  s.q = state_numbers(q, coordinates, "q", "coordinate");
  s.qd = state_numbers(qd, rates, rates_argument, rate);
  if (s.q.ndim() != s.qd.ndim() || (s.q.ndim() == 2 && s.q.shape(0) != s.qd.shape(0)))
    value_error(rates_argument, other_states(coordinates, rates));
  s.batch = s.q.ndim() == 2;
  s.k = s.batch ? static_cast<std::size_t>(s.q.shape(0)) : 1;
  if (py::isinstance<py::float_>(t) || py::isinstance<py::int_>(t)) {
    s.t0 = t.cast<double>();
  } else {
    s.t = as_array(t, "t");
    if (s.t.ndim() > 1 ||
        (s.t.ndim() == 1 && (!s.batch || static_cast<std::size_t>(s.t.size()) != s.k)))
      value_error("t", "expected a number, or shape (k,) with states of shape (k, n)");
  }
  return s;
}

States states(std::size_t coordinates, const py::handle& q, const py::handle& qd,
              const py::handle& t) {
  return states(coordinates, coordinates, q, qd, t);
}

// Another argument of the states `s` (accelerations, forces): `width` numbers per state, as many
// states as s.
Array per_state(const States& s, const py::handle& value, std::size_t width, const char* argument,
                const char* each) {
  const Array a = state_numbers(value, width, argument, each);
  if ((a.ndim() == 2) != s.batch || (s.batch && static_cast<std::size_t>(a.shape(0)) != s.k))
    value_error(argument, other_states(s.n, width));
  return a;
}

void load_row(const Array& a, std::size_t i, Eigen::VectorXd& v) {
  const auto width = static_cast<std::size_t>(v.size());
  const double* p = a.data() + i * width;
  for (std::size_t j = 0; j < width; ++j) v[static_cast<Eigen::Index>(j)] = p[j];
}

// q (n) and the rates (p) of state i; the vectors sized by the caller.
void load_state(const States& s, std::size_t i, Eigen::VectorXd& q, Eigen::VectorXd& qd) {
  load_row(s.q, i, q);
  load_row(s.qd, i, qd);
}

// M (k, n, n) and f (k, n), or (n, n) and (n,) for one state.
py::tuple evaluate(Compiled& c, const ArrayLike& q, const ArrayLike& qd, const Time& t) {
  const States s = states(c.n, q, qd, t);
  const auto n = static_cast<py::ssize_t>(c.n), k = static_cast<py::ssize_t>(s.k);
  py::array_t<double> M = s.batch ? py::array_t<double>({k, n, n}) : py::array_t<double>({n, n});
  py::array_t<double> f = s.batch ? py::array_t<double>({k, n}) : py::array_t<double>(n);
  double* Mp = M.mutable_data();
  double* fp = f.mutable_data();
  auto run = [&] {
    std::lock_guard<std::mutex> lock(c.mutex);
    Eigen::VectorXd qv(n), qdv(n), fv(n);
    Eigen::MatrixXd Mv(n, n);
    for (std::size_t i = 0; i < s.k; ++i) {
      load_state(s, i, qv, qdv);
      c.compiled->evaluate(s.time(i), qv, qdv, Mv, fv);
      Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          Mp + i * c.n * c.n, n, n) = Mv;
      Eigen::Map<Eigen::VectorXd>(fp + i * c.n, n) = fv;
    }
  };
  if (s.k > 16) {
    py::gil_scoped_release release;  // a long batch lets other Python threads run
    run();
  } else {
    run();
  }
  return py::make_tuple(M, f);
}

// q̈ (k, n) or (n,); with constraints also λ (k, m) or (m,).
py::object accelerations(Compiled& c, const ArrayLike& q, const ArrayLike& qd, const Time& t) {
  const States s = states(c.n, q, qd, t);
  const auto n = static_cast<py::ssize_t>(c.n), m = static_cast<py::ssize_t>(c.m),
             k = static_cast<py::ssize_t>(s.k);
  py::array_t<double> qdd = s.batch ? py::array_t<double>({k, n}) : py::array_t<double>(n);
  py::array_t<double> lam = s.batch ? py::array_t<double>({k, m}) : py::array_t<double>(m);
  double* qddp = qdd.mutable_data();
  double* lamp = lam.mutable_data();
  auto run = [&] {
    std::lock_guard<std::mutex> lock(c.mutex);
    Eigen::VectorXd qv(n), qdv(n), fv(n), bv, qddv(n), lamv;
    Eigen::MatrixXd Mv(n, n), Av;
    for (std::size_t i = 0; i < s.k; ++i) {
      load_state(s, i, qv, qdv);
      c.compiled->evaluate(s.time(i), qv, qdv, Mv, fv);
      if (c.m > 0) {
        c.compiled->constraints(Av, bv);
        c.compiled->accelerations_and_multipliers(Mv, fv, Av, bv, qddv, lamv);
        for (std::size_t j = 0; j < c.m; ++j)
          lamp[i * c.m + j] =
              j < static_cast<std::size_t>(lamv.size()) ? lamv[static_cast<Eigen::Index>(j)] : 0.0;
      } else {
        qddv = c.compiled->accelerations(Mv, fv);
      }
      Eigen::Map<Eigen::VectorXd>(qddp + i * c.n, n) = qddv;
    }
  };
  if (s.k > 16) {
    py::gil_scoped_release release;
    run();
  } else {
    run();
  }
  if (c.m > 0) return py::make_tuple(qdd, lam);
  return qdd;
}

// Everything `appell eval --json` reports at one state, as a dict of numpy arrays.
py::dict state(Compiled& c, const ArrayLike& q, const ArrayLike& qd, double t) {
  const Eigen::VectorXd qv = to_vector(q, c.n, "q"), qdv = to_vector(qd, c.n, "qd");
  num::StateEvaluation e;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(c.mutex);
    e = num::evaluate_state(*c.compiled, t, qv, qdv);
  }
  py::dict d;
  d["t"] = e.t;
  d["q"] = to_numpy(e.q);
  d["qd"] = to_numpy(e.qd);
  d["M"] = to_numpy(e.mass_matrix);
  d["f"] = to_numpy(e.forcing);
  d["qdd"] = to_numpy(e.qdd);
  d["A"] = to_numpy(e.constraint_matrix);
  d["b"] = to_numpy(e.constraint_rhs);
  d["lam"] = to_numpy(e.lambda);
  std::vector<std::string> redundant;
  for (std::size_t i : e.redundant) redundant.push_back(c.model->constraints[i].name);
  d["redundant"] = redundant;
  return d;
}

// Seconds per CompiledEquations::evaluate call made from C++ at one state, `repeats` times: what
// bench/python_bindings.py compares the Python call with.
double time_evaluate(Compiled& c, const ArrayLike& q, const ArrayLike& qd, double t, long repeats) {
  if (repeats < 1) value_error("repeats", "must be at least 1");
  const Eigen::VectorXd qv = to_vector(q, c.n, "q"), qdv = to_vector(qd, c.n, "qd");
  py::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(c.mutex);
  Eigen::MatrixXd M;
  Eigen::VectorXd f;
  double sink = 0.0;
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < repeats; ++i) {
    c.compiled->evaluate(t, qv, qdv, M, f);
    sink += f[0];
  }
  const auto stop = std::chrono::steady_clock::now();
  if (!std::isfinite(sink)) return std::nan("");  // keeps the loop from being optimised away
  return std::chrono::duration<double>(stop - start).count() / static_cast<double>(repeats);
}

py::list verify(const Model& target, std::size_t states, double tolerance, bool symbolic) {
  if (states == 0) value_error("states", "must be at least 1: without a state there is no verdict");
  num::VerifyOptions options;
  options.states = states;
  options.tolerance = tolerance;
  options.symbolic = symbolic;
  const num::VerificationReport report =
      interruptible([&] { return num::verify(target.model, options); });
  py::list rows;
  for (const auto& r : report.rows) {
    py::dict d;
    d["method"] = r.method;
    d["verdict"] = num::verdict_name(r.verdict);
    d["agrees"] = r.agrees;
    d["symbolic"] = r.symbolic;
    d["symbolic_test"] = io::symbolic_test_name(r.symbolic_test);
    d["max_error"] = r.max_error;
    d["bound"] = r.bound;
    d["states"] = r.states;
    d["ill_conditioned"] = r.ill_conditioned;
    d["first_difference"] = r.first_difference;
    if (r.witness) {
      py::dict w;
      w["t"] = r.witness->t;
      w["q"] = r.witness->q;
      w["qd"] = r.witness->qd;
      w["entry"] = r.witness->entry;
      w["reference"] = r.witness->reference;
      w["other"] = r.witness->other;
      w["error"] = r.witness->error;
      w["bound"] = r.witness->bound;
      d["witness"] = w;
    } else {
      d["witness"] = py::none();
    }
    d["differentiations"] = r.differentiations;
    d["derivative_nodes"] = r.derivative_nodes;
    d["size_before"] = r.size_before;
    d["size_after"] = r.size_after;
    d["seconds"] = r.derive_seconds;
    d["simplify_seconds"] = r.simplify_seconds;
    rows.append(d);
  }
  return rows;
}

// ---- appell.Dynamics: the numbers without the equations (num::Dynamics, or its JIT) ----------

struct DynamicsHandle {
  std::shared_ptr<const model::Model> model;
  // Everything: the JIT's compiled code, or the recursions interpreted.
  std::shared_ptr<const num::Dynamics> dynamics;
  std::size_t n = 0;  // coordinates: q
  std::size_t p = 0;  // rates: u in generalized speeds, else q' (p = n)
  std::size_t m = 0;  // constraints: lambda
  model::Values values;
  // The differentiated recursions, built on the first derivatives() call (most uses never ask).
  mutable std::once_flag derivatives_built;
  mutable std::shared_ptr<const num::DynamicsDerivativesEvaluator> derivatives;

  // What each entry of a rate vector belongs to (error messages).
  const char* rate() const { return model->has_speeds() ? "speed" : "coordinate"; }
};

std::unique_ptr<DynamicsHandle> make_dynamics(const ModelArgument& target,
                                              const ValuesArgument& values, bool jit) {
  auto d = std::make_unique<DynamicsHandle>();
  d->model = model_of(target, "model");
  const model::Values bound = to_values(*d->model, values, "values");
  const std::string reason = principles::recursions_do_not_cover(*d->model);
  if (!reason.empty())
    value_error("model", "the recursions do not cover " + reason +
                             ": use derive(model).compile() (the formed equations)");
  d->dynamics = locked([&] { return compile_dynamics(d->model, bound, jit); });
  d->n = d->model->dof();
  d->p = d->dynamics->speed_count();
  d->m = d->dynamics->constraint_count();
  d->values = bound;
  return d;
}

// Row-major numpy (rows, cols) from an Eigen matrix.
py::array_t<double> matrix_array(const Eigen::MatrixXd& m) {
  py::array_t<double> out({static_cast<py::ssize_t>(m.rows()), static_cast<py::ssize_t>(m.cols())});
  double* p = out.mutable_data();
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) *p++ = m(i, j);
  return out;
}

py::array_t<double> vector_array(const Eigen::VectorXd& v) {
  py::array_t<double> out(static_cast<py::ssize_t>(v.size()));
  std::copy(v.data(), v.data() + v.size(), out.mutable_data());
  return out;
}

// The derivatives at one state (num::DynamicsDerivativesEvaluator), as numpy arrays by name.
py::dict dynamics_derivatives(const DynamicsHandle& d, const ArrayLike& q, const ArrayLike& qd,
                              double t, const ArrayLike& tau) {
  // The tree's programs alone are differentiated: no rows for constraints, written in q' (not u).
  if (const std::string reason = principles::recursions_alone_do_not_cover(*d.model);
      !reason.empty())
    value_error("model",
                "derivatives() differentiates the recursions of the tree, which do not "
                "cover " +
                    reason);
  const States s = states(d.n, d.p, q, qd, py::float_(t), d.rate());
  if (s.batch) value_error("q", "one state: shape (n,)");
  Eigen::VectorXd qv(static_cast<Eigen::Index>(d.n)), qdv(static_cast<Eigen::Index>(d.p)), tauv;
  load_state(s, 0, qv, qdv);
  if (!tau.is_none()) {
    const Array f = per_state(s, tau, d.p, "tau", d.rate());
    tauv.resize(static_cast<Eigen::Index>(d.p));
    load_row(f, 0, tauv);
  }
  std::call_once(d.derivatives_built, [&] {
    locked([&] {
      d.derivatives = std::make_shared<num::DynamicsDerivativesEvaluator>(d.model, d.values);
    });
  });
  num::DerivativesWorkspace work;
  num::ForwardDynamicsDerivatives forward;
  num::InverseDynamicsDerivatives inverse;
  d.derivatives->forward(t, qv, qdv, tauv, forward, work);
  d.derivatives->inverse(t, qv, qdv, forward.qdd, inverse, work);
  py::dict out;
  out["qdd"] = vector_array(forward.qdd);
  out["dtau_dq"] = matrix_array(inverse.dtau_dq);
  out["dtau_dqd"] = matrix_array(inverse.dtau_dqd);
  out["dqdd_dq"] = matrix_array(forward.dqdd_dq);
  out["dqdd_dqd"] = matrix_array(forward.dqdd_dqd);
  out["minv"] = matrix_array(forward.minv);
  return out;
}

// Runs `each(i, q, qd)` over the states (q with n entries, qd with p), the GIL released for a
// long batch.
template <class Each>
void over_states(const States& s, Each&& each) {
  auto run = [&] {
    Eigen::VectorXd q(static_cast<Eigen::Index>(s.n)), qd(static_cast<Eigen::Index>(s.p));
    for (std::size_t i = 0; i < s.k; ++i) {
      load_state(s, i, q, qd);
      each(i, q, qd);
    }
  };
  if (s.k > 16) {
    py::gil_scoped_release release;
    run();
  } else {
    run();
  }
}

// (k, width) for a batch, (width,) for one state.
py::array_t<double> vectors(const States& s, std::size_t width) {
  const auto w = static_cast<py::ssize_t>(width), k = static_cast<py::ssize_t>(s.k);
  return s.batch ? py::array_t<double>({k, w}) : py::array_t<double>(w);
}

// (k, rows, cols) for a batch, (rows, cols) for one state.
py::array_t<double> matrices(const States& s, std::size_t rows, std::size_t cols) {
  const auto r = static_cast<py::ssize_t>(rows), c = static_cast<py::ssize_t>(cols),
             k = static_cast<py::ssize_t>(s.k);
  return s.batch ? py::array_t<double>({k, r, c}) : py::array_t<double>({r, c});
}

// Matrix i of a (k, rows, cols) array from Eigen's column-major.
void store_matrix(double* out, std::size_t i, const Eigen::MatrixXd& M) {
  const auto rows = static_cast<std::size_t>(M.rows()), cols = static_cast<std::size_t>(M.cols());
  double* p = out + i * rows * cols;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      p[r * cols + c] = M(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c));
}

// q'' (u' in the speeds), (k, p) or (p,); with constraints also lambda, (k, m) or (m,), as
// Compiled.accelerations (the same solver and tolerances: least-squares accelerations and
// minimum-norm multipliers of redundant constraints).
py::object dynamics_accelerations(const DynamicsHandle& d, const ArrayLike& q, const ArrayLike& qd,
                                  const Time& t) {
  const States s = states(d.n, d.p, q, qd, t, d.rate());
  py::array_t<double> out = vectors(s, d.p);
  py::array_t<double> lam = vectors(s, d.m);
  double* p = out.mutable_data();
  double* lp = lam.mutable_data();
  Eigen::VectorXd qdd, lambda;
  const num::ConstraintTolerances tolerances;
  num::DynamicsWorkspace work;
  over_states(s, [&](std::size_t i, const Eigen::VectorXd& qv, const Eigen::VectorXd& qdv) {
    if (d.m > 0) {
      d.dynamics->accelerations(s.time(i), qv, qdv, qdd, lambda, work, tolerances);
      for (std::size_t j = 0; j < d.m; ++j)
        lp[i * d.m + j] = j < static_cast<std::size_t>(lambda.size())
                              ? lambda[static_cast<Eigen::Index>(j)]
                              : 0.0;
    } else {
      d.dynamics->accelerations(s.time(i), qv, qdv, qdd, work);
    }
    Eigen::Map<Eigen::VectorXd>(p + i * d.p, qdd.size()) = qdd;
  });
  if (d.m > 0) return py::make_tuple(out, lam);
  return out;
}

py::array_t<double> dynamics_inverse(const DynamicsHandle& d, const ArrayLike& q,
                                     const ArrayLike& qd, const ArrayLike& qdd, const Time& t) {
  const States s = states(d.n, d.p, q, qd, t, d.rate());
  const Array a = per_state(s, qdd, d.p, "qdd", d.rate());
  py::array_t<double> out = vectors(s, d.p);
  double* p = out.mutable_data();
  Eigen::VectorXd accelerations(static_cast<Eigen::Index>(d.p)), tau;
  num::DynamicsWorkspace work;
  over_states(s, [&](std::size_t i, const Eigen::VectorXd& qv, const Eigen::VectorXd& qdv) {
    load_row(a, i, accelerations);
    d.dynamics->inverse_dynamics(s.time(i), qv, qdv, accelerations, tau, work);
    Eigen::Map<Eigen::VectorXd>(p + i * d.p, tau.size()) = tau;
  });
  return out;
}

// A matrix (rows × cols) and a vector (rows) per state, from `fill(t, q, rates, matrix, vector,
// work)`: shapes (rows, cols) and (rows,), or (k, rows, cols) and (k, rows).
template <typename Fill>
py::tuple matrix_and_vector(const DynamicsHandle& d, const ArrayLike& q, const ArrayLike& qd,
                            const Time& t, std::size_t rows, std::size_t cols, Fill&& fill) {
  const States s = states(d.n, d.p, q, qd, t, d.rate());
  py::array_t<double> matrix = matrices(s, rows, cols);
  py::array_t<double> vector = vectors(s, rows);
  double* mp = matrix.mutable_data();
  double* vp = vector.mutable_data();
  num::DynamicsWorkspace work;
  Eigen::MatrixXd mv;
  Eigen::VectorXd vv;
  over_states(s, [&](std::size_t i, const Eigen::VectorXd& qv, const Eigen::VectorXd& qdv) {
    fill(s.time(i), qv, qdv, mv, vv, work);
    store_matrix(mp, i, mv);  // numpy's row-major (M is symmetric, but stay exact)
    Eigen::Map<Eigen::VectorXd>(vp + i * rows, vv.size()) = vv;
  });
  return py::make_tuple(matrix, vector);
}

py::tuple dynamics_mass_and_forcing(const DynamicsHandle& d, const ArrayLike& q,
                                    const ArrayLike& qd, const Time& t) {
  return matrix_and_vector(d, q, qd, t, d.p, d.p,
                           [&](auto&&... call) { d.dynamics->mass_matrix_and_forcing(call...); });
}

py::array_t<double> dynamics_gravity(const DynamicsHandle& d, const ArrayLike& q, const Time& t) {
  const States s = states(d.n, d.n, q, q, t);
  py::array_t<double> out = vectors(s, d.p);
  double* p = out.mutable_data();
  num::DynamicsWorkspace work;
  Eigen::VectorXd g;
  const States rest{s.q, s.q, s.t, s.n, 0, s.k, s.batch, s.t0};  // no rates to load
  over_states(rest, [&](std::size_t i, const Eigen::VectorXd& qv, const Eigen::VectorXd&) {
    d.dynamics->gravity(rest.time(i), qv, g, work);
    Eigen::Map<Eigen::VectorXd>(p + i * d.p, g.size()) = g;
  });
  return out;
}

// (A, b) of A q'' = b (A u' = b in the speeds): (m, p) and (m,), or (k, m, p) and (k, m).
py::tuple dynamics_constraints(const DynamicsHandle& d, const ArrayLike& q, const ArrayLike& qd,
                               const Time& t) {
  return matrix_and_vector(d, q, qd, t, d.m, d.p,
                           [&](auto&&... call) { d.dynamics->constraints(call...); });
}

// q' = W(q, t) u: (n,) or (k, n).
py::array_t<double> dynamics_coordinate_velocities(const DynamicsHandle& d, const ArrayLike& q,
                                                   const ArrayLike& u, const Time& t) {
  const States s = states(d.n, d.p, q, u, t, d.rate(), "u");
  py::array_t<double> out = vectors(s, d.n);
  double* p = out.mutable_data();
  num::DynamicsWorkspace work;
  Eigen::VectorXd qd;
  over_states(s, [&](std::size_t i, const Eigen::VectorXd& qv, const Eigen::VectorXd& uv) {
    d.dynamics->coordinate_velocities(s.time(i), qv, uv, qd, work);
    Eigen::Map<Eigen::VectorXd>(p + i * d.n, qd.size()) = qd;
  });
  return out;
}

}  // namespace

void bind_equations(py::module_& m) {
  // Registered before Equations so that the signature of Equations.compile names its result
  // appell.Compiled (pybind11 writes the C++ type of a class it does not know yet).
  py::class_<Compiled> compiled(m, "Compiled",
                                R"doc(Equations compiled to a tape: M, f, q'' (and lambda) at
numeric states in microseconds. q, qd have shape (n,) or (k, n) for k states at once; t is a
number or shape (k,).)doc");
  py::class_<Equations>(m, "Equations", R"doc(Equations of motion M(q, t) q'' = f(q, q', t) (with
constraints M q'' = f + A^T lambda, A q'' = b), as appell.derive formed them. text(), latex() and
json() print them as `appell derive` does; a notebook shows them typeset.)doc")
      .def(
          "text",
          [](const Equations& e) { return locked([&] { return io::write_text(e.derivation); }); },
          "the equations as `appell derive` prints them")
      .def(
          "latex",
          [](const Equations& e) { return locked([&] { return io::write_latex(e.derivation); }); },
          "LaTeX (an align block), as `appell derive --format latex`")
      .def(
          "json",
          [](const Equations& e) { return locked([&] { return io::write_json(e.derivation); }); },
          "a JSON object, as `appell derive --format json`")
      .def_property_readonly("model", [](const Equations& e) { return Model{e.model}; })
      .def_property_readonly("method",
                             [](const Equations& e) {
                               if (e.derivation.equations)
                                 return principles::method_name(e.derivation.equations->method);
                               return std::string("gibbs-appell");
                             })
      .def_property_readonly("order",
                             [](const Equations& e) {
                               return e.derivation.equations ? e.derivation.equations->order : 1;
                             })
      .def_property_readonly(
          "minimal",
          [](const Equations& e) {
            return e.derivation.equations &&
                   e.derivation.equations->form == principles::Form::Minimal;
          },
          "the minimal form in the independent speeds")
      .def_property_readonly(
          "speeds",
          [](const Equations& e) {
            std::vector<std::string> names;
            if (e.derivation.equations && e.derivation.equations->form == principles::Form::Speeds)
              for (const auto& speed : e.model->speeds) names.push_back(speed.name);
            return names;
          },
          "the generalized speeds u of equations M~ u' = f~ in them (a model with speeds: or "
          "rot_quat), [] for M q'' = f")
      .def_property_readonly(
          "simplified", [](const Equations& e) { return !e.raw; },
          "made readable (False: as formed, derive(raw=True))")
      .def_property_readonly("dof", [](const Equations& e) { return e.model->dof(); })
      .def_property_readonly("coordinates",
                             [](const Equations& e) {
                               std::vector<std::string> names;
                               for (const auto& c : e.model->coordinates) names.push_back(c.name);
                               return names;
                             })
      .def_property_readonly("multipliers",
                             [](const Equations& e) {
                               return e.derivation.equations && e.derivation.equations->form !=
                                                                    principles::Form::Minimal
                                          ? e.derivation.equations->multipliers
                                          : std::vector<std::string>{};
                             })
      .def_property_readonly(
          "cost",
          [](const Equations& e) {
            return cost_dict(e.derivation.equations ? e.derivation.equations->cost
                                                    : principles::DerivationCost{});
          },
          "what forming them cost: differentiations, derivative_nodes, size_before, size_after, "
          "seconds, simplify_seconds")
      .def("_expressions", &expressions)
      .def("_split_expressions", &split_expressions)
      .def("compile", &compile, py::arg("values") = py::none(),
           R"doc(The equations compiled for fast evaluation at numeric states. `values`: a dict of
parameter overrides and numbers (or expressions of t, as str) for inputs and unspecified
prescribed functions, e.g. {"M": 2.0, "u": "sin(t)"}.)doc");

  compiled.def_property_readonly("dof", [](const Compiled& c) { return c.n; })
      .def_property_readonly("constraint_count", [](const Compiled& c) { return c.m; })
      .def_property_readonly("coordinates",
                             [](const Compiled& c) {
                               std::vector<std::string> names;
                               for (const auto& q : c.model->coordinates) names.push_back(q.name);
                               return names;
                             })
      .def_property_readonly(
          "instructions", [](const Compiled& c) { return c.compiled->tape().operations(); },
          "the tape's length after common-subexpression elimination")
      .def("evaluate", &evaluate, py::arg("q"), py::arg("qd"), py::arg("t") = 0.0,
           "(M, f): shapes (n, n), (n,), or (k, n, n), (k, n) for k states")
      .def("accelerations", &accelerations, py::arg("q"), py::arg("qd"), py::arg("t") = 0.0,
           "q'' of M q'' = f, shape (n,) or (k, n); with constraints (q'', lambda)")
      .def("_time_evaluate", &time_evaluate, py::arg("q"), py::arg("qd"), py::arg("t") = 0.0,
           py::arg("repeats") = 100000,
           "seconds per evaluate() made in C++ (bench/python_bindings.py)")
      .def("state", &state, py::arg("q"), py::arg("qd"), py::arg("t") = 0.0,
           "M, f, A, b, qdd, lam and the redundant constraints at one state (`appell eval`)");

  py::class_<DynamicsHandle>(m, "Dynamics", R"doc(The numbers of a model without forming its
equations: built from the recursions over its frame tree (Newton-Euler, articulated bodies) in
milliseconds, values folded in; q'' and tau by the compiled generated code of those recursions
(jit=True and a C compiler) or by the recursions interpreted. Immutable: one object may be used
from several Python threads at once (long batches release the GIL). q has shape (n,) or (k, n)
for k states; t is a number or shape (k,).

The rates have p = speed_count entries: q' (p = n), or for a model in generalized speeds
(speeds:, rot_quat, a URDF floating base) the speeds u, so that the argument qd is u, qdd is u',
M is p x p and f, tau, g have p entries (coordinate_velocities gives q' = W u).

With constraints, accelerations() gives (q'', lambda) of M q'' = f + A^T lambda, A q'' = b, and
constraints() gives (A, b). Models with a carrier frame or flexible bodies are refused
(ValueError naming why): use derive(model).compile().)doc")
      .def(py::init(&make_dynamics), py::arg("model"), py::arg("values") = py::none(),
           py::kw_only(), py::arg("jit") = true)
      .def_property_readonly(
          "dof", [](const DynamicsHandle& d) { return d.n; },
          "n, the number of coordinates (q's entries)")
      .def_property_readonly(
          "speed_count", [](const DynamicsHandle& d) { return d.p; },
          "p, the number of rates: the generalized speeds, or n without them")
      .def_property_readonly("constraint_count", [](const DynamicsHandle& d) { return d.m; })
      .def_property_readonly(
          "multipliers", [](const DynamicsHandle& d) { return d.dynamics->multipliers(); },
          "lambda_NAME of each constraint: the names of lambda's entries")
      .def_property_readonly(
          "kind", [](const DynamicsHandle& d) { return std::string(d.dynamics->kind()); },
          "'jit' (compiled generated code) or 'recursions' (interpreted)")
      .def_property_readonly(
          "note", [](const DynamicsHandle& d) { return d.dynamics->compilation().note; },
          "why the JIT was not used although asked for ('' otherwise)")
      .def_property_readonly("coordinates",
                             [](const DynamicsHandle& d) {
                               std::vector<std::string> names;
                               for (const auto& c : d.model->coordinates) names.push_back(c.name);
                               return names;
                             })
      .def_property_readonly(
          "speeds",
          [](const DynamicsHandle& d) {
            std::vector<std::string> names;
            for (const auto& speed : d.model->speeds) names.push_back(speed.name);
            return names;
          },
          "the generalized speeds' names ([] without them)")
      .def("accelerations", &dynamics_accelerations, py::arg("q"), py::arg("qd"),
           py::arg("t") = 0.0,
           "q'' (u' in the speeds) of M q'' = f, shape (p,) or (k, p); with constraints "
           "(q'', lambda), lambda of shape (m,) or (k, m), as Compiled.accelerations")
      .def("inverse_dynamics", &dynamics_inverse, py::arg("q"), py::arg("qd"), py::arg("qdd"),
           py::arg("t") = 0.0,
           "tau = M q'' - f, shape (p,) or (k, p) (with constraints: the forces of the tree, "
           "the constraints' reactions A^T lambda included)")
      .def("mass_matrix_and_forcing", &dynamics_mass_and_forcing, py::arg("q"), py::arg("qd"),
           py::arg("t") = 0.0, "(M, f): shapes (p, p), (p,), or (k, p, p), (k, p)")
      .def("gravity", &dynamics_gravity, py::arg("q"), py::arg("t") = 0.0,
           "g(q), shape (p,) or (k, p): the generalized forces that hold the model still against "
           "gravity")
      .def("constraints", &dynamics_constraints, py::arg("q"), py::arg("qd"), py::arg("t") = 0.0,
           "(A, b) of the constraints at acceleration level A q'' = b (A u' = b in the speeds): "
           "shapes (m, p), (m,), or (k, m, p), (k, m); m = 0 without constraints")
      .def("coordinate_velocities", &dynamics_coordinate_velocities, py::arg("q"), py::arg("u"),
           py::arg("t") = 0.0,
           "q' = W(q, t) u, shape (n,) or (k, n): the coordinates' rates from the speeds u (p "
           "entries); u itself without generalized speeds")
      .def("derivatives", &dynamics_derivatives, py::arg("q"), py::arg("qd"), py::arg("t") = 0.0,
           py::arg("tau") = py::none(),
           R"doc(The derivatives of the dynamics at one state (shape (n,)), by differentiating the
recursions (as `appell eval --derivatives`, not finite differences): a dict of numpy arrays
'qdd' (q'' of M q'' = f + tau), 'dtau_dq', 'dtau_dqd' (of tau = M q'' - f at that q''),
'dqdd_dq', 'dqdd_dqd' and 'minv' (M^-1 = dq''/dtau); entry [i, j] = dy_i/dx_j. Not for a model
with constraints or generalized speeds (ValueError).)doc");

  m.def("_derive", &derive, py::arg("model"), py::arg("method"), py::arg("order"),
        py::arg("values"), py::arg("raw"), py::arg("minimal"), py::arg("show"),
        py::arg("split") = false);
  m.def("verify", &verify, py::arg("model"), py::kw_only(), py::arg("states") = 20,
        py::arg("tolerance") = num::kDefaultTolerance, py::arg("symbolic") = true,
        R"doc(Every principle against Lagrange II, symbolically and at random states, with what each
cost: a list of dicts, one per row of `appell verify` (method, verdict, agrees, symbolic,
symbolic_test, max_error, bound, states, ill_conditioned, first_difference, witness,
differentiations, derivative_nodes, size_before, size_after, seconds, simplify_seconds).
verdict is "equal" (the simplified difference is 0), "agree numerically" (the symbolic test was
inconclusive within its budget, or not run) or "differ" (witness: the state {t, q, qd} and the
entry where the numbers differ beyond the bound). symbolic=False compares at the random states
only (`appell verify --numeric-only`). states must be at least 1 (ValueError).)doc");
}

}  // namespace appell::python
