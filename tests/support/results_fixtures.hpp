// The cases a results file is written with in the tests (test_results_file.cpp,
// test_results_file_damage.cpp): made up but consistent. Case i is a harmonic oscillator
// x = A cos(ωt) with A = 1 + i/10, ω = 2 + i/5 (m = k/ω² with k = 1) sampled on the sweep's
// grid, its speed w = ẋ, T = ½mẋ², V = ½kx², E = T + V, the final state the last row and the
// extrema over the rows; so a file's E must be T + V and constant (½kA²) along every case.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "appell/sweep/results_file.hpp"

namespace appell::test_support {

using sweep::CaseResult;
using sweep::CaseTable;
using sweep::Save;
using sweep::SweepSettings;

inline SweepSettings settings_of(Save save) {
  SweepSettings s;
  s.t_end = 1.0;
  s.output_step = 0.25;  // grid 0, 0.25, 0.5, 0.75, 1
  s.rtol = 1e-9;
  s.atol = 1e-10;
  s.integrator = "bdf";
  s.save = save;
  s.model_name = "oscillator";
  s.model_hash = "3f5a";
  s.appell_version = "0.2.0";
  s.command_line = "appell sweep oscillator.yaml --grid A=1:0.1:1.5 --out r.h5";
  s.coordinates = {"x", "y"};
  s.speeds = {"w"};
  s.common_values = {"k=1"};
  return s;
}

inline CaseTable table_of(std::size_t cases) {
  CaseTable t;
  t.columns = {{"A", sweep::ColumnKind::Parameter, "A"},
               {"q0.x", sweep::ColumnKind::InitialCoordinate, "x"},
               {"input.f", sweep::ColumnKind::Input, "f"}};
  for (std::size_t i = 0; i < cases; ++i) {
    const double a = 1.0 + static_cast<double>(i) / 10;
    const bool expression = i % 2 == 1;
    t.numbers.push_back({a, a, expression ? std::numeric_limits<double>::quiet_NaN() : 0.5});
    t.expressions.push_back({"", "", expression ? "sin(" + std::to_string(i) + "*t)" : "0.5"});
    t.rows.push_back({"cases.csv", static_cast<int>(i) + 2, 1});
  }
  return t;
}

/// Case i of the oscillator on the first `rows` points of the grid.
inline CaseResult oscillator(std::size_t i, const SweepSettings& s, std::size_t rows,
                             const std::string& status = "ok") {
  const std::vector<double> grid = sweep::output_times(s);
  const double a = 1.0 + static_cast<double>(i) / 10, w = 2.0 + static_cast<double>(i) / 5;
  const double k = 1.0, m = k / (w * w);
  CaseResult r;
  r.index = i;
  r.status = status;
  r.steps = 100 + static_cast<long>(i);
  r.wall_time = 1e-3 * static_cast<double>(i + 1);
  r.rows = rows;
  r.dof = 2;
  r.speeds = s.speeds.size();  // 1 (w = ẋ), or 0 for a sweep without speeds
  r.t_reached = rows > 0 ? grid[rows - 1] : 0.0;
  r.energy_drift = 0.0;
  for (std::size_t row = 0; row < rows; ++row) {
    const double t = grid[row], x = a * std::cos(w * t), v = -a * w * std::sin(w * t);
    const double y = 0.5 * x;  // a second coordinate, tied to the first
    r.q.insert(r.q.end(), {x, y});
    r.qd.insert(r.qd.end(), {v, 0.5 * v});
    if (r.speeds > 0) r.u.push_back(v);
    r.kinetic.push_back(0.5 * m * v * v);
    r.potential.push_back(0.5 * k * x * x);
    r.total.push_back(r.kinetic.back() + r.potential.back());
  }
  if (rows == 0) return r;
  const auto column = [&](const std::vector<double>& v, std::size_t width, std::size_t j) {
    std::vector<double> c;
    for (std::size_t row = 0; row < rows; ++row) c.push_back(v[row * width + j]);
    return c;
  };
  const auto extremes = [](const std::vector<double>& c, double& lo, double& hi) {
    lo = *std::min_element(c.begin(), c.end());
    hi = *std::max_element(c.begin(), c.end());
  };
  for (std::size_t j = 0; j < 2; ++j) {
    const auto cq = column(r.q, 2, j), cqd = column(r.qd, 2, j);
    r.final_q.push_back(cq.back());
    r.final_qd.push_back(cqd.back());
    double lo = 0, hi = 0;
    extremes(cq, lo, hi);
    r.min_q.push_back(lo);
    r.max_q.push_back(hi);
    extremes(cqd, lo, hi);
    r.min_qd.push_back(lo);
    r.max_qd.push_back(hi);
  }
  double lo = 0, hi = 0;
  if (r.speeds > 0) {
    r.final_u = {r.u.back()};
    extremes(r.u, lo, hi);
    r.min_u = {lo};
    r.max_u = {hi};
  }
  r.final_kinetic = r.kinetic.back();
  r.final_potential = r.potential.back();
  r.final_total = r.total.back();
  extremes(r.kinetic, r.min_kinetic, r.max_kinetic);
  extremes(r.potential, r.min_potential, r.max_potential);
  extremes(r.total, r.min_total, r.max_total);
  double drift = 0;
  for (double e : r.total) drift = std::max(drift, std::abs(e - r.total.front()));
  r.energy_drift = drift;
  return r;
}

}  // namespace appell::test_support
