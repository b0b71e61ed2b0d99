// appell._SweepRunner and appell._sweep_write: the sweep's runner (sweep/sweep_runner.hpp) for
// the package's sweep(), on this process's threads or, through Dask, on a cluster's workers (each
// keeps its runner: the model prepared and compiled once per worker). The results come back as
// numpy arrays in the layout of the results file (docs/sweep.md), and _sweep_write puts them in
// that file.
#include <cmath>
#include <limits>

#include "appell/sweep/case_sources.hpp"
#include "appell/sweep/model_hash.hpp"
#include "appell/sweep/results_file.hpp"
#include "appell/sweep/sweep_runner.hpp"
#include "common.hpp"

namespace appell::python {

namespace {

// The cases from Python: column names, and rows of numbers or (input columns) expressions.
sweep::CaseTable to_table(const model::Model& model, const std::vector<std::string>& columns,
                          const py::list& rows) {
  sweep::CaseTable table;
  for (std::size_t c = 0; c < columns.size(); ++c)
    table.columns.push_back(
        sweep::case_column(columns[c], model, {"cases", 0, static_cast<int>(c) + 1}));
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const py::list row = rows[k].cast<py::list>();
    const std::string where = "cases[" + std::to_string(k) + "]";
    if (row.size() != columns.size())
      value_error(where, "has " + std::to_string(row.size()) + " values, the columns " +
                             std::to_string(columns.size()));
    std::vector<double> numbers(columns.size());
    std::vector<std::string> expressions(columns.size());
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const py::handle cell = row[c];
      const bool input = table.columns[c].kind == sweep::ColumnKind::Input;
      if (input && py::isinstance<py::str>(cell)) {
        expressions[c] = cell.cast<std::string>();
        numbers[c] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      if (!py::isinstance<py::float_>(cell) && !py::isinstance<py::int_>(cell) &&
          !py::hasattr(cell, "__float__"))
        type_error(where + "[" + columns[c] + "]",
                   input ? "expected a number or an expression of t (str)" : "expected a number");
      numbers[c] = cell.cast<double>();
      if (!std::isfinite(numbers[c]))
        value_error(where + "[" + columns[c] + "]", "not a finite number");
    }
    table.numbers.push_back(std::move(numbers));
    table.expressions.push_back(std::move(expressions));
    table.rows.push_back({where, 0, 0});
  }
  return table;
}

py::array_t<double> array(const std::vector<double>& data, std::vector<py::ssize_t> shape) {
  py::array_t<double> a(shape);
  std::copy(data.begin(), data.end(), a.mutable_data());
  return a;
}

class Runner {
 public:
  Runner(const py::handle& target, const std::vector<std::string>& columns, const py::list& rows,
         double t_end, double output_step, double rtol, double atol, const std::string& integrator,
         const std::string& save, const py::object& values, const py::object& inputs, bool jit) {
    auto model = model_of(target, "model");
    const auto kind = sweep::parse_save(save);
    if (!kind) value_error("save", "expected 'series', 'final' or 'summary', got '" + save + "'");
    sweep::RunnerOptions options;
    options.settings.t_end = t_end;
    options.settings.output_step = output_step;
    options.settings.rtol = rtol;
    options.settings.atol = atol;
    options.settings.integrator = integrator;
    options.settings.save = *kind;
    options.jit.enabled = jit;
    locked([&] {
      options.common = to_values(*model, values, "values");
      options.common.merge(to_values(*model, inputs, "inputs"));
      return 0;
    });
    sweep::CaseTable table = locked([&] { return to_table(*model, columns, rows); });
    runner_ = interruptible(
        [&] { return std::make_shared<sweep::SweepRunner>(model, std::move(table), options); });
  }

  // Cases `indices` on `jobs` threads: a dict of arrays, one row per case in `indices`' order.
  py::dict run(const std::vector<std::size_t>& indices, std::size_t jobs) const {
    const sweep::SweepRunner& r = *runner_;
    for (std::size_t index : indices)
      if (index >= r.cases().size()) value_error("indices", "no case " + std::to_string(index));
    std::vector<sweep::CaseResult> results(indices.size());
    std::map<std::size_t, std::size_t> slot;
    for (std::size_t k = 0; k < indices.size(); ++k) slot[indices[k]] = k;
    interruptible([&] {
      sweep::run_cases(r, indices, jobs, [&](sweep::CaseResult&& result) {
        results[slot.at(result.index)] = std::move(result);
      });
      return 0;
    });
    return to_dict(indices, results);
  }

  const sweep::SweepRunner& runner() const { return *runner_; }

 private:
  py::dict to_dict(const std::vector<std::size_t>& indices,
                   const std::vector<sweep::CaseResult>& results) const {
    const sweep::SweepRunner& r = *runner_;
    const auto cases = static_cast<py::ssize_t>(results.size());
    const std::size_t n = r.model().dof(), times = r.times().size();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    py::dict out;
    py::list status;
    std::vector<double> steps, wall, reached, drift;
    for (const auto& result : results) {
      status.append(result.status.empty() ? "not run" : result.status);
      steps.push_back(static_cast<double>(result.steps));
      wall.push_back(result.wall_time);
      reached.push_back(result.status.empty() ? nan : result.t_reached);
      drift.push_back(result.energy_drift);
    }
    out["index"] = py::array_t<std::int64_t>(
        cases, std::vector<std::int64_t>(indices.begin(), indices.end()).data());
    out["status"] = status;
    out["steps"] = array(steps, {cases});
    out["wall_time"] = array(wall, {cases});
    out["t_reached"] = array(reached, {cases});
    out["energy_drift"] = array(drift, {cases});
    out["t"] = array(r.times(), {static_cast<py::ssize_t>(times)});
    const std::size_t p = r.model().speeds.size();
    const auto N = static_cast<py::ssize_t>(n), T = static_cast<py::ssize_t>(times),
               P = static_cast<py::ssize_t>(p);
    // [case, ...] arrays of one quantity, NaN where a case has no value.
    auto gather = [&](auto&& pick, std::size_t per_case, std::vector<py::ssize_t> shape) {
      std::vector<double> data(results.size() * per_case, nan);
      for (std::size_t k = 0; k < results.size(); ++k) {
        const std::vector<double>& v = pick(results[k]);
        std::copy(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), per_case)),
                  data.begin() + static_cast<std::ptrdiff_t>(k * per_case));
      }
      return array(data, shape);
    };
    auto scalar = [&](double sweep::CaseResult::*member) {
      std::vector<double> data;
      for (const auto& result : results) data.push_back(result.rows > 0 ? result.*member : nan);
      return array(data, {cases});
    };
    const sweep::Save save = r.options().settings.save;
    if (save == sweep::Save::Series) {
      py::dict series;
      series["q"] =
          gather([](const auto& x) -> const auto& { return x.q; }, times* n, {cases, T, N});
      series["qd"] =
          gather([](const auto& x) -> const auto& { return x.qd; }, times* n, {cases, T, N});
      series["T"] =
          gather([](const auto& x) -> const auto& { return x.kinetic; }, times, {cases, T});
      series["V"] =
          gather([](const auto& x) -> const auto& { return x.potential; }, times, {cases, T});
      series["E"] = gather([](const auto& x) -> const auto& { return x.total; }, times, {cases, T});
      if (p > 0)
        series["u"] =
            gather([](const auto& x) -> const auto& { return x.u; }, times* p, {cases, T, P});
      out["series"] = series;
    }
    py::dict final;
    final["q"] = gather([](const auto& x) -> const auto& { return x.final_q; }, n, {cases, N});
    final["qd"] = gather([](const auto& x) -> const auto& { return x.final_qd; }, n, {cases, N});
    if (p > 0) {
      final["u"] = gather([](const auto& x) -> const auto& { return x.final_u; }, p, {cases, P});
    }
    final["T"] = scalar(&sweep::CaseResult::final_kinetic);
    final["V"] = scalar(&sweep::CaseResult::final_potential);
    final["E"] = scalar(&sweep::CaseResult::final_total);
    out["final"] = final;
    py::dict low, high;
    low["q"] = gather([](const auto& x) -> const auto& { return x.min_q; }, n, {cases, N});
    high["q"] = gather([](const auto& x) -> const auto& { return x.max_q; }, n, {cases, N});
    low["qd"] = gather([](const auto& x) -> const auto& { return x.min_qd; }, n, {cases, N});
    high["qd"] = gather([](const auto& x) -> const auto& { return x.max_qd; }, n, {cases, N});
    if (p > 0) {
      low["u"] = gather([](const auto& x) -> const auto& { return x.min_u; }, p, {cases, P});
      high["u"] = gather([](const auto& x) -> const auto& { return x.max_u; }, p, {cases, P});
    }
    low["T"] = scalar(&sweep::CaseResult::min_kinetic);
    high["T"] = scalar(&sweep::CaseResult::max_kinetic);
    low["V"] = scalar(&sweep::CaseResult::min_potential);
    high["V"] = scalar(&sweep::CaseResult::max_potential);
    low["E"] = scalar(&sweep::CaseResult::min_total);
    high["E"] = scalar(&sweep::CaseResult::max_total);
    out["min"] = low;
    out["max"] = high;
    py::list coordinates;
    for (const auto& c : r.model().coordinates) coordinates.append(c.name);
    out["coordinates"] = coordinates;
    out["evaluator"] = r.evaluator();
    out["note"] = r.note();
    return out;
  }

  std::shared_ptr<const sweep::SweepRunner> runner_;
};

// Back from the arrays of Runner::run to CaseResults, written into a new results file.
void write_results(const Runner& runner, const std::string& path, const py::list& parts,
                   const std::string& file_text, const std::string& command_line) {
  const sweep::SweepRunner& r = runner.runner();
  sweep::SweepSettings settings = r.options().settings;
  settings.model_name = r.model().name;
  settings.model_hash = locked([&] { return sweep::model_hash(r.model(), file_text); });
  settings.appell_version = APPELL_VERSION_STRING;
  settings.command_line = command_line;
  for (const auto& c : r.model().coordinates) settings.coordinates.push_back(c.name);
  for (const auto& speed : r.model().speeds) settings.speeds.push_back(speed.name);
  const std::size_t n = r.model().dof(), times = r.times().size(), p = r.model().speeds.size();
  std::vector<sweep::CaseResult> results;
  for (const py::handle part_handle : parts) {
    const py::dict part = part_handle.cast<py::dict>();
    const auto index = part["index"].cast<py::array_t<std::int64_t>>();
    const py::list status = part["status"];
    auto column = [&](const char* key) { return part[key].cast<py::array_t<double>>(); };
    const auto steps = column("steps"), wall = column("wall_time"), reached = column("t_reached"),
               drift = column("energy_drift");
    const py::dict final = part["final"], low = part["min"], high = part["max"];
    for (py::ssize_t k = 0; k < index.size(); ++k) {
      sweep::CaseResult c;
      c.index = static_cast<std::size_t>(index.at(k));
      c.status = status[static_cast<std::size_t>(k)].cast<std::string>();
      if (c.status == "not run") continue;
      c.steps = static_cast<long>(steps.at(k));
      c.wall_time = wall.at(k);
      c.t_reached = reached.at(k);
      c.energy_drift = drift.at(k);
      c.dof = n;
      auto row = [&](const py::dict& from, const char* key, std::size_t per_case) {
        const auto a = from[key].cast<py::array_t<double>>();
        const double* p = a.data() + k * static_cast<py::ssize_t>(per_case);
        return std::vector<double>(p, p + per_case);
      };
      auto one = [&](const py::dict& from, const char* key) {
        return from[key].cast<py::array_t<double>>().at(k);
      };
      c.final_q = row(final, "q", n);
      c.final_qd = row(final, "qd", n);
      c.speeds = p;
      if (p > 0) {
        c.final_u = row(final, "u", p);
        c.min_u = row(low, "u", p);
        c.max_u = row(high, "u", p);
      }
      c.final_kinetic = one(final, "T");
      c.final_potential = one(final, "V");
      c.final_total = one(final, "E");
      c.min_q = row(low, "q", n);
      c.max_q = row(high, "q", n);
      c.min_qd = row(low, "qd", n);
      c.max_qd = row(high, "qd", n);
      c.min_kinetic = one(low, "T");
      c.max_kinetic = one(high, "T");
      c.min_potential = one(low, "V");
      c.max_potential = one(high, "V");
      c.min_total = one(low, "E");
      c.max_total = one(high, "E");
      c.rows = std::isnan(c.final_total) && std::isnan(c.final_q.empty() ? NAN : c.final_q[0])
                   ? 0
                   : times;
      if (part.contains("series")) {
        const py::dict series = part["series"];
        c.q = row(series, "q", times * n);
        c.qd = row(series, "qd", times * n);
        c.kinetic = row(series, "T", times);
        c.potential = row(series, "V", times);
        c.total = row(series, "E", times);
        if (p > 0) c.u = row(series, "u", times * p);
        std::size_t rows = 0;
        while (rows < times && !std::isnan(c.total[rows])) ++rows;
        c.rows = rows;
        c.q.resize(rows * n);
        if (p > 0) c.u.resize(rows * p);
        c.qd.resize(rows * n);
        c.kinetic.resize(rows);
        c.potential.resize(rows);
        c.total.resize(rows);
      }
      results.push_back(std::move(c));
    }
  }
  interruptible([&] {
    sweep::ResultsFile file = sweep::ResultsFile::create(path, settings, r.cases());
    for (const auto& c : results) file.write(c);
    file.close();
    return 0;
  });
}

}  // namespace

void bind_sweep(py::module_& m) {
  py::class_<Runner>(m, "_SweepRunner")
      .def(py::init<const py::handle&, const std::vector<std::string>&, const py::list&, double,
                    double, double, double, const std::string&, const std::string&,
                    const py::object&, const py::object&, bool>(),
           py::arg("model"), py::arg("columns"), py::arg("rows"), py::arg("t_end"),
           py::arg("output_step"), py::arg("rtol"), py::arg("atol"), py::arg("integrator"),
           py::arg("save"), py::arg("values"), py::arg("inputs"), py::arg("jit"))
      .def("run", &Runner::run, py::arg("indices"), py::arg("jobs"))
      .def_property_readonly("evaluator", [](const Runner& r) { return r.runner().evaluator(); });
  m.def("_sweep_write", &write_results, py::arg("runner"), py::arg("path"), py::arg("parts"),
        py::arg("file_text"), py::arg("command_line"));
}

}  // namespace appell::python
