// URDF robots (issue 13): the time to read each example robot of examples/urdf (urdfdom, the
// translation and the builder), to derive its Gibbs–Appell equations (the numeric, shared-DAG
// path) and to compile them to a tape; and the per-call time of forward dynamics (M and f by the
// tape, M q̈ = f by Eigen's LLT) and inverse dynamics (Q = M q̈ − f) of the 6- and 7-axis arms.
//
// The generated code's per-call times of the same arms come from bench/run_codegen_bench.sh,
// which times `appell codegen` of examples/urdf/ur5_robot.urdf and panda.urdf.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <cmath>
#include <map>
#include <memory>
#include <string>

#include "appell/io/model_file.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"

namespace {

using namespace appell;

// The bench has no compile definition for the examples directory; this file's own path has it.
std::string robot_path(const std::string& name) {
  const std::string self = __FILE__;
  const std::string tail = "bench/bench_urdf.cpp";
  return self.substr(0, self.size() - tail.size()) + "examples/urdf/" + name + ".urdf";
}

const char* const robots[] = {"ur5_robot", "panda", "simple_humanoid"};

struct Robot {
  std::shared_ptr<const model::Model> model;
  principles::Equations equations;
  std::unique_ptr<num::CompiledEquations> compiled;
  Eigen::VectorXd q, qd, qdd;
};

const Robot& robot(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Robot>> cache;
  auto& slot = cache[name];
  if (slot) return *slot;
  slot = std::make_unique<Robot>();
  Robot& r = *slot;
  r.model = io::read_model(robot_path(name)).model;
  r.equations = principles::derive(r.model, principles::Method::GibbsAppell);
  r.compiled = std::make_unique<num::CompiledEquations>(r.equations);
  const auto n = static_cast<Eigen::Index>(r.model->dof());
  r.q.resize(n);
  r.qd.resize(n);
  r.qdd.resize(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    r.q[j] = 0.3 + 0.4 * std::sin(1.7 * static_cast<double>(j));
    r.qd[j] = 0.5 * std::cos(1.1 * static_cast<double>(j));
    r.qdd[j] = 0.2 - 0.1 * static_cast<double>(j % 5);
  }
  return r;
}

void count(benchmark::State& state, const Robot& r) {
  state.counters["dof"] = static_cast<double>(r.model->dof());
  state.counters["frames"] = static_cast<double>(r.model->frames.size());
  state.counters["tape_ops"] = static_cast<double>(r.compiled->tape().operations());
}

void read(benchmark::State& state, std::string name) {
  const std::string path = robot_path(name);
  for (auto _ : state) {
    auto file = io::read_model(path);
    benchmark::DoNotOptimize(file.model);
  }
  count(state, robot(name));
}

void derive(benchmark::State& state, std::string name) {
  const Robot& r = robot(name);
  for (auto _ : state) {
    // A fresh model each time: a model keeps the derivative symbols differentiation made.
    state.PauseTiming();
    auto model = io::read_model(robot_path(name)).model;
    state.ResumeTiming();
    auto equations = principles::derive(model, principles::Method::GibbsAppell);
    benchmark::DoNotOptimize(equations);
  }
  count(state, r);
}

void compile_tape(benchmark::State& state, std::string name) {
  const Robot& r = robot(name);
  for (auto _ : state) {
    num::CompiledEquations compiled(r.equations);
    benchmark::DoNotOptimize(compiled);
  }
  count(state, r);
}

void forward_dynamics(benchmark::State& state, std::string name) {
  const Robot& r = robot(name);
  Eigen::MatrixXd M;
  Eigen::VectorXd f, qdd;
  for (auto _ : state) {
    r.compiled->evaluate(0.0, r.q, r.qd, M, f);
    qdd = M.llt().solve(f);
    benchmark::DoNotOptimize(qdd.data());
  }
  count(state, r);
}

void inverse_dynamics(benchmark::State& state, std::string name) {
  const Robot& r = robot(name);
  Eigen::MatrixXd M;
  Eigen::VectorXd f, Q;
  for (auto _ : state) {
    r.compiled->evaluate(0.0, r.q, r.qd, M, f);
    Q.noalias() = M * r.qdd;
    Q -= f;
    benchmark::DoNotOptimize(Q.data());
  }
  count(state, r);
}

void register_all() {
  for (const char* name : robots) {
    benchmark::RegisterBenchmark((std::string("urdf/read/") + name).c_str(), read, name)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("urdf/derive/") + name).c_str(), derive, name)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("urdf/compile_tape/") + name).c_str(), compile_tape,
                                 name)
        ->Unit(benchmark::kMillisecond);
  }
  for (const char* name : {"ur5_robot", "panda"}) {
    benchmark::RegisterBenchmark((std::string("urdf/tape/forward_dynamics/") + name).c_str(),
                                 forward_dynamics, name)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("urdf/tape/inverse_dynamics/") + name).c_str(),
                                 inverse_dynamics, name)
        ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
