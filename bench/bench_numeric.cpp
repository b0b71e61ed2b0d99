// Per-call cost of the numbers through the in-process tape (issue 4): mass matrix, forcing,
// forward dynamics (M q̈ = f by Eigen's LLT) and inverse dynamics (Q = M q̈ − f), for the seed 000
// robot and n-link spatial chains (n = 2, 7, 30), Gibbs–Appell equations. Counters: the tape's
// operations after CSE against the unsimplified expressions' size (distinct GiNaC nodes).
//
// The generated code's numbers come from bench/run_codegen_bench.sh, which takes its chain from
// `bench_numeric --chain-yaml N` so that both measure the same model.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"

namespace {

using namespace appell;

// n rods in a chain, joints alternately about z and y (so that the motion is spatial and every
// body's angular velocity has several components), each rod along its frame's x axis.
std::string spatial_chain_yaml(int n) {
  std::ostringstream y;
  y << "name: spatial-chain-" << n << "\n"
    << "description: " << n << " rods, joints alternately about z and y, under gravity\n"
    << "parameters: {m: 1.0, l: 0.5, g: 9.81}\ncoordinates: [";
  for (int i = 1; i <= n; ++i) y << (i > 1 ? ", " : "") << "q" << i;
  y << "]\nframes:\n";
  for (int i = 1; i <= n; ++i) {
    y << "  link" << i << ": {parent: " << (i == 1 ? "world" : "link" + std::to_string(i - 1))
      << (i == 1 ? "" : ", translation: [l, 0, 0]") << ", rotation: rot_" << (i % 2 ? 'z' : 'y')
      << "(q" << i << ")}\n";
  }
  y << "bodies:\n";
  for (int i = 1; i <= n; ++i)
    y << "  rod" << i << ": {frame: link" << i
      << ", mass: m, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}\n";
  y << "gravity: [0, 0, -g]\n";
  return y.str();
}

// The bench has no compile definition for the examples directory; this file's own path has it.
std::string robot_path() {
  const std::string self = __FILE__;
  const std::string tail = "bench/bench_numeric.cpp";
  return self.substr(0, self.size() - tail.size()) + "examples/planar_2r.yaml";
}

// Everything a benchmark needs for one model, derived once and shared by its benchmarks.
struct Subject {
  principles::Equations equations;
  std::unique_ptr<num::CompiledEquations> both;  // M and f: forward and inverse dynamics
  std::unique_ptr<num::Tape> mass, forcing;      // M alone, f alone
  Eigen::VectorXd q, qd, qdd;
  std::vector<double> variables;  // t, q, q̇, parameters: the tapes' inputs
};

const Subject& subject(int chain_links) {
  static std::map<int, std::unique_ptr<Subject>> cache;
  auto& slot = cache[chain_links];
  if (slot) return *slot;
  slot = std::make_unique<Subject>();
  Subject& s = *slot;
  const auto model = chain_links == 0
                         ? io::read_model_file(robot_path())
                         : io::parse_model(spatial_chain_yaml(chain_links), "chain.yaml");
  s.equations = principles::derive(model, principles::Method::GibbsAppell);
  s.both = std::make_unique<num::CompiledEquations>(s.equations);

  const std::size_t n = model->dof();
  std::vector<GiNaC::symbol> symbols{model->time_functions->time()};
  for (std::size_t j = 0; j < n; ++j) symbols.push_back(model->coordinate_symbol(j, 0));
  for (std::size_t j = 0; j < n; ++j) symbols.push_back(model->coordinate_symbol(j, 1));
  for (const auto& p : model->parameters) symbols.push_back(p.symbol);
  GiNaC::exvector mass, forcing;
  for (std::size_t i = 0; i < n * n; ++i) mass.push_back(s.equations.mass_matrix.op(i));
  for (std::size_t i = 0; i < n; ++i) forcing.push_back(s.equations.forcing.op(i));
  s.mass = std::make_unique<num::Tape>(mass, symbols);
  s.forcing = std::make_unique<num::Tape>(forcing, symbols);

  const auto size = static_cast<Eigen::Index>(n);
  s.q.resize(size);
  s.qd.resize(size);
  s.qdd.resize(size);
  s.variables = {0.1};
  for (Eigen::Index j = 0; j < size; ++j) {
    s.q[j] = 0.3 + 0.4 * std::sin(1.7 * static_cast<double>(j));
    s.qd[j] = 0.5 * std::cos(1.1 * static_cast<double>(j));
    s.qdd[j] = 0.2 - 0.1 * static_cast<double>(j % 5);
  }
  for (Eigen::Index j = 0; j < size; ++j) s.variables.push_back(s.q[j]);
  for (Eigen::Index j = 0; j < size; ++j) s.variables.push_back(s.qd[j]);
  const auto values = model->parameter_values();
  for (const auto& p : model->parameters) s.variables.push_back(values.at(p.name));
  return s;
}

void count(benchmark::State& state, const Subject& s, std::size_t tape_operations) {
  state.counters["dof"] = static_cast<double>(s.equations.dof());
  state.counters["tape_ops"] = static_cast<double>(tape_operations);
  state.counters["dag_size"] = static_cast<double>(s.equations.cost.size_before);
}

void mass_matrix(benchmark::State& state, int links) {
  const Subject& s = subject(links);
  std::vector<double> out(s.mass->output_count()), work;
  for (auto _ : state) {
    s.mass->evaluate(s.variables.data(), out.data(), work);
    benchmark::DoNotOptimize(out.data());
  }
  count(state, s, s.mass->operations());
}

void forcing(benchmark::State& state, int links) {
  const Subject& s = subject(links);
  std::vector<double> out(s.forcing->output_count()), work;
  for (auto _ : state) {
    s.forcing->evaluate(s.variables.data(), out.data(), work);
    benchmark::DoNotOptimize(out.data());
  }
  count(state, s, s.forcing->operations());
}

void forward_dynamics(benchmark::State& state, int links) {
  const Subject& s = subject(links);
  Eigen::MatrixXd M;
  Eigen::VectorXd f, qdd;
  for (auto _ : state) {
    s.both->evaluate(0.1, s.q, s.qd, M, f);
    qdd = M.llt().solve(f);
    benchmark::DoNotOptimize(qdd.data());
  }
  count(state, s, s.both->tape().operations());
}

void inverse_dynamics(benchmark::State& state, int links) {
  const Subject& s = subject(links);
  Eigen::MatrixXd M;
  Eigen::VectorXd f, Q;
  for (auto _ : state) {
    s.both->evaluate(0.1, s.q, s.qd, M, f);
    Q.noalias() = M * s.qdd;
    Q -= f;
    benchmark::DoNotOptimize(Q.data());
  }
  count(state, s, s.both->tape().operations());
}

void register_all() {
  const std::pair<const char*, int> models[] = {
      {"robot", 0}, {"chain2", 2}, {"chain7", 7}, {"chain30", 30}};
  const std::pair<const char*, void (*)(benchmark::State&, int)> functions[] = {
      {"mass_matrix", mass_matrix},
      {"forcing", forcing},
      {"forward_dynamics", forward_dynamics},
      {"inverse_dynamics", inverse_dynamics}};
  for (const auto& [model, links] : models)
    for (const auto& [function, run] : functions)
      benchmark::RegisterBenchmark((std::string("tape/") + function + "/" + model).c_str(), run,
                                   links)
          ->Unit(benchmark::kNanosecond);
}

}  // namespace

int main(int argc, char** argv) {
  // `bench_numeric --chain-yaml N`: the chain's model file, for run_codegen_bench.sh.
  if (argc == 3 && std::string(argv[1]) == "--chain-yaml") {
    std::cout << spatial_chain_yaml(std::atoi(argv[2]));
    return 0;
  }
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
