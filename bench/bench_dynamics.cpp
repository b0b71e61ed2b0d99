// num::Dynamics (issue 26): what building it costs, what one call costs, and how threads sharing
// one Dynamics scale. For the URDF robots and spatial chains of 30, 100 and 1000 links.
//
//   build/bench_dynamics                  # every model
//   build/bench_dynamics panda chain100
//
// Not a Google Benchmark: each per-call number is a mean over about 0.3 s of calls cycling
// through 64 random states (a loaded machine makes them rough). Threads: 8 threads each with its
// own workspace share one Dynamics for a fixed amount of work; throughput against one thread
// doing the same work alone.
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../tests/support/test_models.hpp"  // the benchmarks' chains
#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/numeric/dynamics.hpp"

namespace {

using namespace appell;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct States {
  std::vector<Eigen::VectorXd> q, qd, qdd;
};

States random_states(std::size_t n, int count) {
  std::mt19937 engine(26);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  States s;
  for (int k = 0; k < count; ++k) {
    Eigen::VectorXd q(static_cast<Eigen::Index>(n)), qd(q.size()), qdd(q.size());
    for (Eigen::Index i = 0; i < q.size(); ++i) {
      q[i] = u(engine);
      qd[i] = u(engine);
      qdd[i] = u(engine);
    }
    s.q.push_back(q);
    s.qd.push_back(qd);
    s.qdd.push_back(qdd);
  }
  return s;
}

// Mean seconds per call of `call(state index)` over about 0.3 s.
double per_call(const std::function<void(int)>& call) {
  long calls = 0;
  const auto start = Clock::now();
  while (seconds_since(start) < 0.3)
    for (int k = 0; k < 64; ++k, ++calls) call(k);
  return seconds_since(start) / static_cast<double>(calls);
}

void run(const std::string& name, const std::shared_ptr<const model::Model>& model) {
  const auto start = Clock::now();
  const num::Dynamics dynamics(model);
  const double build = seconds_since(start);
  const std::size_t n = dynamics.dof();
  const States s = random_states(n, 64);
  num::DynamicsWorkspace work;
  Eigen::VectorXd out;
  Eigen::MatrixXd M;
  const double forward =
      per_call([&](int k) { dynamics.accelerations(0.0, s.q[k], s.qd[k], out, work); });
  const double inverse = per_call(
      [&](int k) { dynamics.inverse_dynamics(0.0, s.q[k], s.qd[k], s.qdd[k], out, work); });
  const double mass =
      n <= 200 ? per_call([&](int k) { dynamics.mass_matrix(0.0, s.q[k], M, work); }) : 0.0;
  // Threads: the same number of forward-dynamics calls, by one thread and by eight.
  const long total = std::max(64L, static_cast<long>(0.6 / forward));
  auto work_share = [&](long calls) {
    num::DynamicsWorkspace own;
    Eigen::VectorXd qdd;
    for (long c = 0; c < calls; ++c)
      dynamics.accelerations(0.0, s.q[c % 64], s.qd[c % 64], qdd, own);
  };
  auto t0 = Clock::now();
  work_share(total);
  const double alone = seconds_since(t0);
  t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) threads.emplace_back(work_share, total / 8);
  for (auto& t : threads) t.join();
  const double shared = seconds_since(t0);
  std::printf("%-18s %5zu %9.3f %9zu %11.2f %11.2f %11.2f %9.2fx  %s\n", name.c_str(), n, build,
              dynamics.operations(), forward * 1e6, inverse * 1e6, mass * 1e6, alone / shared,
              dynamics.forward_method().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::pair<std::string, std::function<std::shared_ptr<const model::Model>()>>> models;
  for (const char* robot : {"ur5_robot", "panda", "simple_humanoid"})
    models.emplace_back(robot, [robot] {
      return io::read_urdf_file(std::string(APPELL_EXAMPLES_DIR) + "/urdf/" + robot + ".urdf");
    });
  for (int n : {30, 100, 1000})
    models.emplace_back("chain" + std::to_string(n), [n] {
      return io::parse_model(test_support::spatial_chain_yaml(n), "chain.yaml");
    });
  std::printf("%-18s %5s %9s %9s %11s %11s %11s %10s  %s\n", "model", "dof", "build s", "ops",
              "forward us", "inverse us", "M us", "8 threads", "forward by");
  for (const auto& [name, make] : models) {
    bool wanted = argc < 2;
    for (int i = 1; i < argc; ++i) wanted = wanted || name == argv[i];
    if (wanted) run(name, make());
  }
}
