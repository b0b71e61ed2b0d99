// Simulation throughput on the heavy top (issue 4): CVODE steps per second through the compiled
// tape, for each integrator at a loose and a tight tolerance; and on the slider-crank, whose two
// loop constraints add the multipliers' Schur complement and a projection after every step. Each
// iteration is one whole simulate() call, so the rates include building the tapes (about a
// millisecond, amortised over thousands of steps); the equations are derived once, outside the
// timing.
#include <benchmark/benchmark.h>

#include <string>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/principles/derive.hpp"

namespace {

using namespace appell;

// The bench has no compile definition for the examples directory; this file's own path has it.
std::string example_path(const std::string& file) {
  const std::string self = __FILE__;
  const std::string tail = "bench/bench_simulate.cpp";
  return self.substr(0, self.size() - tail.size()) + "examples/" + file;
}

void simulate_example(benchmark::State& state, const std::string& file, num::Integrator integrator,
                      double tolerance) {
  const auto equations =
      principles::derive(io::read_model_file(example_path(file)), principles::Method::GibbsAppell);
  num::SimulationOptions options;
  options.t_end = 10.0;
  options.output_step = 0.01;
  options.rtol = tolerance;
  options.atol = tolerance;
  options.integrator = integrator;

  double steps = 0, evaluations = 0, drift = 0;
  for (auto _ : state) {
    const auto result = num::simulate(equations, options, [](const num::SimulationRow& row) {
      benchmark::DoNotOptimize(row.total);
    });
    steps += static_cast<double>(result.steps);
    evaluations += static_cast<double>(result.rhs_evaluations);
    drift = result.energy_drift / std::abs(result.initial_energy);
  }
  state.counters["steps_per_second"] = benchmark::Counter(steps, benchmark::Counter::kIsRate);
  state.counters["rhs_per_second"] = benchmark::Counter(evaluations, benchmark::Counter::kIsRate);
  state.counters["steps"] = steps / static_cast<double>(state.iterations());
  state.counters["relative_energy_drift"] = drift;
}

void BM_Simulate_HeavyTop_Bdf_1e8(benchmark::State& s) {
  simulate_example(s, "heavy_top.yaml", num::Integrator::Bdf, 1e-8);
}
void BM_Simulate_HeavyTop_Bdf_1e10(benchmark::State& s) {
  simulate_example(s, "heavy_top.yaml", num::Integrator::Bdf, 1e-10);
}
void BM_Simulate_HeavyTop_Adams_1e8(benchmark::State& s) {
  simulate_example(s, "heavy_top.yaml", num::Integrator::Adams, 1e-8);
}
void BM_Simulate_HeavyTop_Adams_1e10(benchmark::State& s) {
  simulate_example(s, "heavy_top.yaml", num::Integrator::Adams, 1e-10);
}
void BM_Simulate_SliderCrankConstrained_Bdf_1e8(benchmark::State& s) {
  simulate_example(s, "slider_crank.yaml", num::Integrator::Bdf, 1e-8);
}
void BM_Simulate_SliderCrankConstrained_Bdf_1e10(benchmark::State& s) {
  simulate_example(s, "slider_crank.yaml", num::Integrator::Bdf, 1e-10);
}

}  // namespace

BENCHMARK(BM_Simulate_HeavyTop_Bdf_1e8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Simulate_HeavyTop_Bdf_1e10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Simulate_HeavyTop_Adams_1e8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Simulate_HeavyTop_Adams_1e10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Simulate_SliderCrankConstrained_Bdf_1e8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Simulate_SliderCrankConstrained_Bdf_1e10)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
