#include "appell/sweep/sweep_runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/interruption.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/principles/speed_form.hpp"

namespace appell::sweep {

namespace {

// What a set of input cells shares: its Dynamics and compiled code (the recursions' route), or
// the formed equations (the other route; shared by every set).
struct Prepared {
  std::shared_ptr<const num::Dynamics> dynamics;
  std::shared_ptr<const num::Dynamics> compiled;  // the JIT's; null when it is off or failed
  std::string note;                               // why the JIT failed (compilation().note)
};

// The extrema and final values of one quantity over the rows.
void track(double value, bool first, double& low, double& high) {
  if (first || value < low) low = value;
  if (first || value > high) high = value;
}

void track(const Eigen::VectorXd& values, bool first, std::vector<double>& low,
           std::vector<double>& high) {
  const auto n = static_cast<std::size_t>(values.size());
  low.resize(n);
  high.resize(n);
  for (std::size_t j = 0; j < n; ++j)
    track(values[static_cast<Eigen::Index>(j)], first, low[j], high[j]);
}

std::vector<double> as_vector(const Eigen::VectorXd& v) { return {v.data(), v.data() + v.size()}; }

void check_positive(double value, const char* where, const std::string& what) {
  if (!std::isfinite(value) || !(value > 0))
    throw model::ModelError({where, 0, 0}, what + " must be a positive number");
}

}  // namespace

struct SweepRunner::State {
  std::shared_ptr<const model::Model> model;
  CaseTable table;
  RunnerOptions options;
  std::vector<double> times;
  std::vector<std::string> runtime_parameters;  // the parameter columns
  bool by_recursions = true;
  std::string evaluator, note;
  // GiNaC is not thread-safe: everything symbolic a case does (binding its values, preparing a
  // new set of inputs, the formed equations' set-up) holds this lock.
  mutable std::mutex symbolic;
  mutable std::map<std::string, std::shared_ptr<const Prepared>> prepared;  // by input cells
  std::optional<principles::Equations> equations;
  std::optional<principles::Equations> speed_equations;  // a model with speeds

  // The values of case `index`: the common ones, then the case's own columns.
  model::Values values_of(std::size_t index, bool parameters, bool inputs) const {
    model::Values values = options.common;
    const model::SourceLocation where = table.rows[index];
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      const CaseColumn& column = table.columns[c];
      const double number = table.numbers[index][c];
      if (column.kind == ColumnKind::Parameter && parameters) {
        values.set(column.target, number, where);
      } else if (column.kind == ColumnKind::Input && inputs) {
        const std::string& text = table.expressions[index][c];
        if (!text.empty() && std::isnan(number))
          values.drive(column.target, num::parse_time_function(*model, text), where);
        else
          values.set(column.target, number, where);
      }
    }
    return values;
  }

  // The key of the case's input cells (empty without input columns).
  std::string inputs_key(std::size_t index) const {
    std::string key;
    for (std::size_t c = 0; c < table.columns.size(); ++c)
      if (table.columns[c].kind == ColumnKind::Input) {
        const std::string& text = table.expressions[index][c];
        key += table.columns[c].target + "=" +
               (text.empty() ? std::to_string(table.numbers[index][c]) : text) + "\n";
      }
    return key;
  }

  // The Dynamics and code of the case's inputs, built at the first case that has them. Call with
  // the symbolic lock held.
  std::shared_ptr<const Prepared> prepared_for(std::size_t index) const {
    const std::string key = inputs_key(index);
    if (const auto it = prepared.find(key); it != prepared.end()) return it->second;
    auto p = std::make_shared<Prepared>();
    const model::Values values = values_of(index, false, true);
    num::DynamicsOptions build;
    build.runtime_parameters = runtime_parameters;
    p->dynamics = std::make_shared<num::Dynamics>(model, values, build);
    if (options.jit.enabled) {
      auto compiled =
          std::make_shared<const num::Dynamics>(jit::compile_dynamics(model, values, options.jit));
      p->note = compiled->compilation().note;
      if (std::string(compiled->kind()) == "jit") p->compiled = std::move(compiled);
    }
    prepared.emplace(key, p);
    return p;
  }
};

SweepRunner::SweepRunner(std::shared_ptr<const model::Model> model, CaseTable table,
                         RunnerOptions options)
    : state_(std::make_unique<State>()) {
  if (!model) throw std::invalid_argument("SweepRunner: no model");
  State& s = *state_;
  s.model = std::move(model);
  s.table = std::move(table);
  s.options = std::move(options);
  const SweepSettings& settings = s.options.settings;
  check_positive(settings.t_end, "t_end", "the end time");
  check_positive(settings.output_step, "output_step", "the output step");
  check_positive(settings.rtol, "rtol", "the relative tolerance");
  check_positive(settings.atol, "atol", "the absolute tolerance");
  if (settings.t_end / settings.output_step > 1e7)
    throw model::ModelError({"output_step", 0, 0},
                            "asks for more than 10^7 output rows per case over the span to t_end");
  const auto integrator = num::parse_integrator(settings.integrator);
  if (!integrator)
    throw model::ModelError({"integrator", 0, 0}, "unknown integrator (bdf, adams)",
                            settings.integrator);
  if (*integrator == num::Integrator::Adams && !s.model->constraints.empty())
    throw model::ModelError({"integrator", 0, 0},
                            "a model with constraints is integrated with bdf only",
                            settings.integrator);
  s.times = output_times(settings);
  for (const auto& column : s.table.columns)
    if (column.kind == ColumnKind::Parameter) s.runtime_parameters.push_back(column.target);
  // The common values alone, checked once (a bad --set is bad input, not a failure per case).
  model::bind(*s.model, s.options.common);

  // Constrained models too: their rows and projection are compiled with the Dynamics (and the
  // JIT's code), and a case's run-time parameters reach them without GiNaC. So are models in
  // generalized speeds, (q, u) integrated through the Dynamics in the speeds, except with
  // constraints: their projection of q onto the holonomic constraints is a ConstraintManifold of
  // the model in q and q̇ with each case's values bound (GiNaC per case), which the Dynamics in
  // the speeds does not compile (Dynamics::constraint_manifold refuses it there), so those keep
  // the formed equations below.
  s.by_recursions = principles::recursions_do_not_cover(*s.model).empty() &&
                    (!s.model->has_speeds() || s.model->constraints.empty());
  if (s.by_recursions) {
    if (s.table.size() > 0) {
      // The first case's inputs prepared now: compile errors and notes before any case runs.
      const auto first = s.prepared_for(0);
      s.evaluator = first->compiled ? first->compiled->kind() : "recursions";
      s.note = first->note;
      if (!s.options.jit.enabled) s.evaluator = "recursions";
    } else {
      s.evaluator = s.options.jit.enabled ? "jit" : "recursions";
    }
  } else if (s.model->has_speeds()) {
    s.speed_equations = principles::speed_form(s.model, principles::Method::GibbsAppell);
    s.evaluator = "equations";
    s.note =
        "a model with generalized speeds and constraints is integrated in its equations in the "
        "speeds, one case at a time";
  } else {
    s.equations = principles::derive(s.model, principles::Method::GibbsAppell);
    s.evaluator = "equations";
    s.note = "the recursions do not cover " + principles::recursions_do_not_cover(*s.model) +
             ": cases are integrated in the formed equations, one at a time";
  }
}

SweepRunner::~SweepRunner() = default;

const model::Model& SweepRunner::model() const { return *state_->model; }
const CaseTable& SweepRunner::cases() const { return state_->table; }
const RunnerOptions& SweepRunner::options() const { return state_->options; }
const std::vector<double>& SweepRunner::times() const { return state_->times; }
std::string SweepRunner::evaluator() const { return state_->evaluator; }
std::string SweepRunner::note() const { return state_->note; }
bool SweepRunner::parallel() const { return state_->by_recursions; }

CaseResult SweepRunner::run(std::size_t index) const {
  const State& s = *state_;
  if (index >= s.table.size())
    throw std::out_of_range("SweepRunner::run: no case " + std::to_string(index));
  const model::Model& m = *s.model;
  const SweepSettings& settings = s.options.settings;
  const std::size_t n = m.dof();
  CaseResult r;
  r.index = index;
  r.dof = n;
  const bool series = settings.save == Save::Series;
  const auto start = std::chrono::steady_clock::now();

  num::SimulationOptions options;
  options.t_end = settings.t_end;
  options.output_step = settings.output_step;
  options.rtol = settings.rtol;
  options.atol = settings.atol;
  options.integrator = *num::parse_integrator(settings.integrator);
  options.q0.resize(n);
  options.qd0.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    options.q0[j] = m.coordinates[j].initial;
    options.qd0[j] = m.coordinates[j].velocity;
  }
  for (std::size_t c = 0; c < s.table.columns.size(); ++c) {
    const CaseColumn& column = s.table.columns[c];
    if (column.kind != ColumnKind::InitialCoordinate && column.kind != ColumnKind::InitialRate)
      continue;
    for (std::size_t j = 0; j < n; ++j)
      if (m.coordinates[j].name == column.target)
        (column.kind == ColumnKind::InitialCoordinate ? options.q0 : options.qd0)[j] =
            s.table.numbers[index][c];
  }

  // A model with speeds: the initial speeds of its velocities, then the case's u0 columns (none:
  // the integration takes the speeds of the velocities itself).
  bool speeds_given = false;
  for (const auto& column : s.table.columns)
    speeds_given = speeds_given || column.kind == ColumnKind::InitialSpeed;
  const Eigen::VectorXd* u_row = nullptr;
  // `of_velocities`: the speeds of (t, q normalized, q̇).
  auto initial_speeds =
      [&](const std::function<Eigen::VectorXd(const Eigen::VectorXd& q, const Eigen::VectorXd& qd)>&
              of_velocities) {
        r.speeds = m.speeds.size();
        if (!speeds_given) return;
        Eigen::VectorXd q0 =
            Eigen::Map<const Eigen::VectorXd>(options.q0.data(), static_cast<Eigen::Index>(n));
        num::normalize_quaternions(m, q0);
        const Eigen::VectorXd u = of_velocities(
            q0,
            Eigen::Map<const Eigen::VectorXd>(options.qd0.data(), static_cast<Eigen::Index>(n)));
        options.u0.assign(u.data(), u.data() + u.size());
        for (std::size_t c = 0; c < s.table.columns.size(); ++c)
          if (s.table.columns[c].kind == ColumnKind::InitialSpeed)
            for (std::size_t k = 0; k < m.speeds.size(); ++k)
              if (m.speeds[k].name == s.table.columns[c].target)
                options.u0[k] = s.table.numbers[index][c];
        options.qd0.clear();  // the speeds say it
      };

  auto on_row = [&](const num::SimulationRow& row) {
    const bool first = r.rows == 0;
    if (u_row) {
      if (series) r.u.insert(r.u.end(), u_row->data(), u_row->data() + u_row->size());
      track(*u_row, first, r.min_u, r.max_u);
      r.final_u = as_vector(*u_row);
    }
    if (series) {
      r.q.insert(r.q.end(), row.q.data(), row.q.data() + row.q.size());
      r.qd.insert(r.qd.end(), row.qd.data(), row.qd.data() + row.qd.size());
      r.kinetic.push_back(row.kinetic);
      r.potential.push_back(row.potential);
      r.total.push_back(row.total);
    }
    track(row.q, first, r.min_q, r.max_q);
    track(row.qd, first, r.min_qd, r.max_qd);
    track(row.kinetic, first, r.min_kinetic, r.max_kinetic);
    track(row.potential, first, r.min_potential, r.max_potential);
    track(row.total, first, r.min_total, r.max_total);
    r.final_q = as_vector(row.q);
    r.final_qd = as_vector(row.qd);
    r.final_kinetic = row.kinetic;
    r.final_potential = row.potential;
    r.final_total = row.total;
    r.t_reached = row.t;
    ++r.rows;
  };
  auto on_speed_row = [&](const num::SimulationRow& row) {
    u_row = &row.v;
    on_row(row);
  };
  auto record = [&](const num::SimulationResult& result) {
    r.steps = result.steps;
    r.energy_drift =
        result.rows > 0 ? result.energy_drift : std::numeric_limits<double>::quiet_NaN();
  };

  try {
    if (s.by_recursions) {
      std::shared_ptr<const Prepared> prepared;
      std::vector<double> parameters;
      {
        std::lock_guard<std::mutex> lock(s.symbolic);
        prepared = s.prepared_for(index);
        const model::Values values = s.values_of(index, true, true);
        const model::BoundValues bound =
            model::bind(m, values,
                        {prepared->dynamics->runtime_parameters().begin(),
                         prepared->dynamics->runtime_parameters().end()});
        parameters = prepared->dynamics->runtime_parameter_values(bound);
        if (prepared->compiled)
          options.dynamics =
              std::make_shared<const num::Dynamics>(prepared->compiled->with_values(values));
      }
      if (m.has_speeds()) {
        // The speeds of the velocities by the Dynamics' W, numerically (Y's tape would be GiNaC
        // per case), by the interpreted Dynamics with the case's parameters (the JIT's code has
        // no W: its interpreted programs would be built per case).
        initial_speeds([&](const Eigen::VectorXd& q0, const Eigen::VectorXd& qd0) {
          return num::speeds_from_velocities(*prepared->dynamics, parameters, options.t_start, q0,
                                             qd0);
        });
        record(num::simulate(*prepared->dynamics, parameters, options, on_speed_row));
      } else {
        record(num::simulate(*prepared->dynamics, parameters, options, on_row));
      }
    } else if (s.speed_equations) {
      std::lock_guard<std::mutex> lock(s.symbolic);
      options.values = s.values_of(index, true, true);
      initial_speeds([&](const Eigen::VectorXd& q0, const Eigen::VectorXd& qd0) {
        return num::speeds_from_velocities(m, options.values, options.t_start, q0, qd0);
      });
      record(num::simulate(*s.speed_equations, options, on_speed_row));
    } else {
      std::lock_guard<std::mutex> lock(s.symbolic);
      options.values = s.values_of(index, true, true);
      record(num::simulate(*s.equations, options, on_row));
    }
    r.status = "ok";
  } catch (const num::SimulationError& e) {
    record(e.partial());
    r.status = e.signal() != 0 ? "not run" : "failed: " + std::string(e.what());
  } catch (const model::ModelError& e) {
    r.status = "failed: " + std::string(e.what());
  } catch (const model::ComputationError& e) {
    r.status = "failed: " + std::string(e.what());
  } catch (const std::invalid_argument& e) {
    r.status = "failed: " + std::string(e.what());
  }
  r.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

void run_cases(const SweepRunner& runner, const std::function<long()>& next_case, std::size_t jobs,
               const std::function<void(CaseResult&&)>& on_result) {
  if (!runner.parallel()) jobs = 1;
  jobs = std::max<std::size_t>(1, jobs);
  std::atomic<bool> stop{false};
  std::mutex delivering;
  std::exception_ptr failure;
  auto work = [&] {
    while (!stop.load() && num::interruption_signal() == 0) {
      CaseResult result;
      try {
        const long index = next_case();
        if (index < 0) return;
        result = runner.run(static_cast<std::size_t>(index));  // its own failure is its status
      } catch (...) {
        std::lock_guard<std::mutex> lock(delivering);
        if (!failure) failure = std::current_exception();
        stop = true;
        return;
      }
      if (result.status == "not run") return;  // stopped by a signal: not reported
      std::lock_guard<std::mutex> lock(delivering);
      if (failure) return;
      try {
        on_result(std::move(result));
      } catch (...) {
        failure = std::current_exception();
        stop = true;
        return;
      }
    }
  };
  if (jobs == 1) {
    work();
  } else {
    std::vector<std::thread> threads;
    for (std::size_t j = 0; j < jobs; ++j) threads.emplace_back(work);
    for (auto& thread : threads) thread.join();
  }
  if (failure) std::rethrow_exception(failure);
}

void run_cases(const SweepRunner& runner, const std::vector<std::size_t>& indices, std::size_t jobs,
               const std::function<void(CaseResult&&)>& on_result) {
  std::atomic<std::size_t> next{0};
  run_cases(
      runner,
      [&]() -> long {
        const std::size_t k = next.fetch_add(1);
        return k < indices.size() ? static_cast<long>(indices[k]) : -1;
      },
      std::min(jobs, indices.size()), on_result);
}

}  // namespace appell::sweep
