// In-process evaluation by the JIT (a num::Dynamics compiled: jit::compile_dynamics) against the
// same recursions interpreted, the formed equations' tape and the generated code called
// directly: per-call time of forward dynamics, M and f, and inverse dynamics; steps per second of
// simulate(); the JIT's first compile and its load from the cache; for spatial chains of 7, 10
// and 30 links (bench_numeric's chains) and planar chains of 10 and 30.
//
//   build/bench_jit                 # every model
//   build/bench_jit spatial7 planar30
//   build/bench_jit --warm          # a compiled Dynamics from a warm cache: Panda, spatial30
//   build/bench_jit --speeds        # generated code in generalized speeds against num::Dynamics
//
// Not a Google Benchmark: each number is a mean over about 0.3 s of calls cycling through 64
// random states (a loaded machine makes them rough). "direct" calls the compiled entry point
// with raw arrays, as a program that embeds the generated header would; "jit" goes through
// num::Dynamics (Eigen vectors, a workspace), as simulate, inverse and sweep do; "interp." is
// num::Dynamics interpreted; "tape" the formed Gibbs–Appell equations' tape.
// The cache is a fresh temporary folder, removed at the end.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "appell/codegen/loadable_source.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/jit/compiled_dynamics.hpp"
#include "appell/jit/dynamics_key.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/native_library.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/principles/derive.hpp"

namespace {

using namespace appell;
using Clock = std::chrono::steady_clock;

std::string chain_yaml(int n, bool planar) {
  std::ostringstream y;
  y << "name: chain-" << n << "\nparameters: {m: 1.0, l: 0.5, g: 9.81}\ncoordinates: [";
  for (int i = 1; i <= n; ++i) y << (i > 1 ? ", " : "") << "q" << i;
  y << "]\nframes:\n";
  for (int i = 1; i <= n; ++i)
    y << "  link" << i << ": {parent: " << (i == 1 ? "world" : "link" + std::to_string(i - 1))
      << (i == 1 ? "" : ", translation: [l, 0, 0]") << ", rotation: rot_"
      << (planar || i % 2 ? 'z' : 'y') << "(q" << i << ")}\n";
  y << "bodies:\n";
  for (int i = 1; i <= n; ++i)
    y << "  rod" << i << ": {frame: link" << i
      << ", mass: m, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}\n";
  y << (planar ? "gravity: [0, -g, 0]\n" : "gravity: [0, 0, -g]\n");
  return y.str();
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Mean seconds per call of `call(state index)` over about 0.3 s.
double per_call(const std::function<double(int)>& call) {
  volatile double sink = 0;
  long calls = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  while (elapsed < 0.3) {
    double sum = 0;
    for (int k = 0; k < 200; ++k) sum += call(k % 64);
    sink = sink + sum;
    calls += 200;
    elapsed = seconds_since(start);
  }
  return elapsed / static_cast<double>(calls);
}

void measure(const std::string& name, int links, bool planar, const std::filesystem::path& cache) {
  const auto model = io::parse_model(chain_yaml(links, planar), "chain.yaml");
  auto start = Clock::now();
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const double derive = seconds_since(start);

  jit::JitOptions options;
  options.compiler.cache_directory = cache;
  start = Clock::now();
  const codegen::LoadableSource source = codegen::loadable_c_source(*model);
  const double generate = seconds_since(start);
  start = Clock::now();
  const num::Dynamics first = jit::compile_dynamics(model, {}, options);
  const double first_seconds = seconds_since(start);
  start = Clock::now();
  const auto jit = std::make_shared<const num::Dynamics>(jit::compile_dynamics(model, {}, options));
  const double cached_seconds = seconds_since(start);
  start = Clock::now();
  const auto library = num::load_native_library(source.code, options.compiler);
  const double load_seconds = seconds_since(start);
  start = Clock::now();
  const auto interpreted = std::make_shared<const num::Dynamics>(model);
  const double interpreted_seconds = seconds_since(start);
  start = Clock::now();
  const num::CompiledEquations tape(eq);
  const double tape_seconds = seconds_since(start);
  if (std::string(first.kind()) != "jit") {
    std::printf("%s: no JIT (%s)\n", name.c_str(), first.compilation().note.c_str());
    return;
  }

  const std::size_t n = eq.dof();
  std::mt19937 engine(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Eigen::VectorXd> q(64), qd(64), qdd(64);
  for (int s = 0; s < 64; ++s) {
    q[s] = Eigen::VectorXd::NullaryExpr(static_cast<Eigen::Index>(n), [&] { return u(engine); });
    qd[s] = Eigen::VectorXd::NullaryExpr(static_cast<Eigen::Index>(n), [&] { return u(engine); });
    qdd[s] = Eigen::VectorXd::NullaryExpr(static_cast<Eigen::Index>(n), [&] { return u(engine); });
  }
  using Forward =
      int (*)(double, const double*, const double*, const double*, const double*, double*);
  using MassForcing = void (*)(double, const double*, const double*, const double*, const double*,
                               double*, double*);
  using Inverse = void (*)(double, const double*, const double*, const double*, const double*,
                           const double*, double*);
  const auto forward_direct =
      reinterpret_cast<Forward>(library.symbol(codegen::kLoadableForwardDynamics));
  const auto mass_direct =
      reinterpret_cast<MassForcing>(library.symbol(codegen::kLoadableMassMatrixAndForcing));
  const auto inverse_direct =
      reinterpret_cast<Inverse>(library.symbol(codegen::kLoadableInverseDynamics));
  std::vector<double> p = source.parameters, in = source.inputs;
  if (p.empty()) p.push_back(0.0);
  if (in.empty()) in.push_back(0.0);
  std::vector<double> out(n), M(n * n), f(n);
  Eigen::VectorXd a, Q, fv;
  Eigen::MatrixXd Mm;
  num::DynamicsWorkspace work;

  // Per call: the code called directly, the compiled Dynamics, the interpreted one, the tape.
  struct Row {
    double direct, jit, interpreted, tape;
  };
  const Row forward{per_call([&](int s) {
                      forward_direct(0.1, q[s].data(), qd[s].data(), p.data(), in.data(),
                                     out.data());
                      return out[0];
                    }),
                    per_call([&](int s) {
                      jit->accelerations(0.1, q[s], qd[s], a, work);
                      return a[0];
                    }),
                    per_call([&](int s) {
                      interpreted->accelerations(0.1, q[s], qd[s], a, work);
                      return a[0];
                    }),
                    per_call([&](int s) {
                      tape.evaluate(0.1, q[s], qd[s], Mm, fv);
                      a = tape.accelerations(Mm, fv);
                      return a[0];
                    })};
  const Row mass_and_forcing{per_call([&](int s) {
                               mass_direct(0.1, q[s].data(), qd[s].data(), p.data(), in.data(),
                                           M.data(), f.data());
                               return M[0] + f[0];
                             }),
                             per_call([&](int s) {
                               jit->mass_matrix_and_forcing(0.1, q[s], qd[s], Mm, fv, work);
                               return Mm(0, 0) + fv[0];
                             }),
                             per_call([&](int s) {
                               interpreted->mass_matrix_and_forcing(0.1, q[s], qd[s], Mm, fv, work);
                               return Mm(0, 0) + fv[0];
                             }),
                             per_call([&](int s) {
                               tape.evaluate(0.1, q[s], qd[s], Mm, fv);
                               return Mm(0, 0) + fv[0];
                             })};
  const Row inverse{per_call([&](int s) {
                      inverse_direct(0.1, q[s].data(), qd[s].data(), qdd[s].data(), p.data(),
                                     in.data(), out.data());
                      return out[0];
                    }),
                    per_call([&](int s) {
                      jit->inverse_dynamics(0.1, q[s], qd[s], qdd[s], Q, work);
                      return Q[0];
                    }),
                    per_call([&](int s) {
                      interpreted->inverse_dynamics(0.1, q[s], qd[s], qdd[s], Q, work);
                      return Q[0];
                    }),
                    per_call([&](int s) {
                      tape.evaluate(0.1, q[s], qd[s], Mm, fv);
                      Q = Mm * qdd[s] - fv;
                      return Q[0];
                    })};

  // simulate: 2 s of motion from a bent pose at rest (the chain falls and whips), rows every
  // 0.01 s as `appell simulate` writes them.
  num::SimulationOptions sim;
  sim.t_end = 2.0;
  sim.q0.assign(n, 0.3);
  auto steps_per_second = [&](std::shared_ptr<const num::Dynamics> dynamics, bool equations,
                              long& steps) {
    sim.dynamics = std::move(dynamics);
    double best = 0;
    for (int repeat = 0; repeat < 2; ++repeat) {
      // From the first row on: forming the energies' tape is setup, not integration.
      Clock::time_point first_row;
      const auto on_row = [&](const num::SimulationRow& row) {
        if (row.t == 0.0) first_row = Clock::now();
      };
      const auto r = equations ? num::simulate(eq, sim, on_row) : num::simulate(model, sim, on_row);
      best = std::max(best, static_cast<double>(r.steps) / seconds_since(first_row));
      steps = r.steps;
    }
    return best;
  };
  long jit_steps = 0, interpreted_steps = 0, tape_steps = 0;
  const double sim_jit = steps_per_second(jit, false, jit_steps);
  const double sim_interpreted = steps_per_second(interpreted, false, interpreted_steps);
  const double sim_tape = steps_per_second(nullptr, true, tape_steps);

  std::printf(
      "%-9s dof %2zu | derive %6.2f s, tape built %6.3f s, Dynamics built %6.3f s, C generated "
      "%6.2f s | JIT first %6.2f s, cached %6.3f s (load alone %6.4f s)\n",
      name.c_str(), n, derive, tape_seconds, interpreted_seconds, generate, first_seconds,
      cached_seconds, load_seconds);
  for (const auto& [what, row] : {std::pair<const char*, const Row&>{"forward", forward},
                                  {"M and f", mass_and_forcing},
                                  {"inverse", inverse}})
    std::printf(
        "          %-7s  us/call: direct %8.3f  jit %8.3f  interp. %8.3f  tape %8.3f  "
        "(tape/jit %5.1fx)\n",
        what, 1e6 * row.direct, 1e6 * row.jit, 1e6 * row.interpreted, 1e6 * row.tape,
        row.tape / row.jit);
  std::printf(
      "          simulate steps/s: jit %9.0f (%ld steps)  interp. %9.0f (%ld steps)  tape %9.0f "
      "(%ld steps)  (jit/tape %5.1fx)\n",
      sim_jit, jit_steps, sim_interpreted, interpreted_steps, sim_tape, tape_steps,
      sim_jit / sim_tape);
  std::fflush(stdout);
}

// The time to get a compiled Dynamics of a model from a warm cache, jit::compile_dynamics(model)
// (what `simulate` does before its first step): by the key of what determines the code, with the
// interpreted programs the compiled Dynamics keeps for its energies (now), against a key of the
// generated source (num::Dynamics built, the source generated, its SHA-256 the key: rebuilt here
// from its parts), and those parts alone. Each the best of 5 (a loaded machine).
void measure_warm(const std::string& name, const std::shared_ptr<const model::Model>& model,
                  const std::filesystem::path& cache) {
  jit::JitOptions options;
  options.compiler.cache_directory = cache;
  auto best_of_5 = [](const std::function<void()>& run) {
    double best = 1e300;
    for (int k = 0; k < 5; ++k) {
      const auto start = Clock::now();
      run();
      best = std::min(best, seconds_since(start));
    }
    return best;
  };
  auto start = Clock::now();
  const num::Dynamics first = jit::compile_dynamics(model, {}, options);
  const double cold = seconds_since(start);
  if (std::string(first.kind()) != "jit") {
    std::printf("%s: no JIT (%s)\n", name.c_str(), first.compilation().note.c_str());
    return;
  }
  num::load_native_library(codegen::loadable_c_source(*model).code, options.compiler);
  const double now = best_of_5([&] { jit::compile_dynamics(model, {}, options); });
  const double before = best_of_5([&] {
    const num::Dynamics interpreted(model);
    const auto source = codegen::loadable_c_source(*model);
    num::load_native_library(source.code, options.compiler);
  });
  const double key = best_of_5([&] { jit::dynamics_key(*model, {}, options.compiler); });
  const double content = best_of_5([&] { jit::dynamics_content(*model); });
  const double dynamics = best_of_5([&] { const num::Dynamics interpreted(model); });
  const double generate = best_of_5([&] { codegen::loadable_c_source(*model); });
  std::printf(
      "%-9s dof %2zu | first compile %6.2f s | warm: now %7.4f s, before %7.4f s (%5.1fx) | "
      "key %7.4f s (content %7.4f s), Dynamics built %7.4f s, C generated %7.4f s\n",
      name.c_str(), model->dof(), cold, now, before, before / now, key, content, dynamics,
      generate);
  std::fflush(stdout);
}

// A model in generalized speeds (a quaternion, a floating base): its loadable C source
// (codegen::loadable_c_source, in the speeds) generated and compiled, then per call the compiled
// entry points against num::Dynamics interpreting the same recursions in the speeds (each with
// its workspace, as simulate calls it). The JIT does not compile such a model yet: "direct" is
// what it would give.
void measure_speeds(const std::string& name, const std::shared_ptr<const model::Model>& model,
                    const std::filesystem::path& cache) {
  num::NativeCompilerOptions compiler;
  compiler.cache_directory = cache;
  auto start = Clock::now();
  const codegen::LoadableSource source = codegen::loadable_c_source(*model);
  const double generate = seconds_since(start);
  start = Clock::now();
  const auto library = num::load_native_library(source.code, compiler);
  const double compile = seconds_since(start);
  start = Clock::now();
  const num::Dynamics interpreted(model);
  const double built = seconds_since(start);
  const std::size_t n = model->dof(), p = source.speed_count;
  std::mt19937 engine(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<Eigen::VectorXd> q(64), u(64), udot(64);
  for (int s = 0; s < 64; ++s) {
    q[s] =
        Eigen::VectorXd::NullaryExpr(static_cast<Eigen::Index>(n), [&] { return uniform(engine); });
    num::normalize_quaternions(*model, q[s]);
    u[s] =
        Eigen::VectorXd::NullaryExpr(static_cast<Eigen::Index>(p), [&] { return uniform(engine); });
    udot[s] =
        Eigen::VectorXd::NullaryExpr(static_cast<Eigen::Index>(p), [&] { return uniform(engine); });
  }
  using Forward =
      int (*)(double, const double*, const double*, const double*, const double*, double*);
  using MassForcing = void (*)(double, const double*, const double*, const double*, const double*,
                               double*, double*);
  using Inverse = void (*)(double, const double*, const double*, const double*, const double*,
                           const double*, double*);
  using Velocities =
      void (*)(double, const double*, const double*, const double*, const double*, double*);
  const auto forward = reinterpret_cast<Forward>(library.symbol(codegen::kLoadableForwardDynamics));
  const auto mass =
      reinterpret_cast<MassForcing>(library.symbol(codegen::kLoadableMassMatrixAndForcing));
  const auto inverse = reinterpret_cast<Inverse>(library.symbol(codegen::kLoadableInverseDynamics));
  const auto velocities =
      reinterpret_cast<Velocities>(library.symbol(codegen::kLoadableCoordinateVelocities));
  std::vector<double> parameters = source.parameters, in = source.inputs;
  if (in.empty()) in.push_back(0.0);
  std::vector<double> out(std::max(n, p)), M(p * p), f(p);
  num::DynamicsWorkspace work;
  Eigen::VectorXd a, fv;
  Eigen::MatrixXd Mm;
  const double fwd_direct = per_call([&](int s) {
    forward(0.1, q[s].data(), u[s].data(), parameters.data(), in.data(), out.data());
    return out[0];
  });
  const double fwd_interpreted = per_call([&](int s) {
    interpreted.accelerations(0.1, q[s], u[s], a, work);
    return a[0];
  });
  const double mf_direct = per_call([&](int s) {
    mass(0.1, q[s].data(), u[s].data(), parameters.data(), in.data(), M.data(), f.data());
    return M[0] + f[0];
  });
  const double mf_interpreted = per_call([&](int s) {
    interpreted.mass_matrix_and_forcing(0.1, q[s], u[s], Mm, fv, work);
    return Mm(0, 0) + fv[0];
  });
  const double inv_direct = per_call([&](int s) {
    inverse(0.1, q[s].data(), u[s].data(), udot[s].data(), parameters.data(), in.data(),
            out.data());
    return out[0];
  });
  const double inv_interpreted = per_call([&](int s) {
    interpreted.inverse_dynamics(0.1, q[s], u[s], udot[s], a, work);
    return a[0];
  });
  const double qd_direct = per_call([&](int s) {
    velocities(0.1, q[s].data(), u[s].data(), parameters.data(), in.data(), out.data());
    return out[0];
  });
  const double qd_interpreted = per_call([&](int s) {
    interpreted.coordinate_velocities(0.1, q[s], u[s], a, work);
    return a[0];
  });
  std::printf(
      "%-15s n %2zu p %2zu | C generated %6.3f s, compiled %6.2f s | Dynamics built %6.3f s "
      "(%s)\n",
      name.c_str(), n, p, generate, compile, built, interpreted.forward_method().c_str());
  auto row = [](const char* what, double direct, double interpreted_seconds) {
    std::printf("          %-9s us/call: generated %8.3f  interpreted %8.3f  (%5.1fx)\n", what,
                1e6 * direct, 1e6 * interpreted_seconds, interpreted_seconds / direct);
  };
  row("forward", fwd_direct, fwd_interpreted);
  row("M and f", mf_direct, mf_interpreted);
  row("inverse", inv_direct, inv_interpreted);
  row("qd = W u", qd_direct, qd_interpreted);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--speeds") {
    const auto cache = std::filesystem::temp_directory_path() /
                       ("appell-bench-jit-speeds-" + std::to_string(::getpid()));
    const std::string examples = APPELL_EXAMPLES_DIR;
    io::UrdfOptions floating;
    floating.floating_base = true;
    measure_speeds("free_box", io::read_model_file(examples + "/speeds/free_box_quaternion.yaml"),
                   cache);
    measure_speeds("satellite_arm",
                   io::read_urdf_file(examples + "/urdf/satellite_arm.urdf", floating), cache);
    measure_speeds("simple_humanoid",
                   io::read_urdf_file(examples + "/urdf/simple_humanoid.urdf", floating), cache);
    std::filesystem::remove_all(cache);
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "--warm") {
    const auto cache = std::filesystem::temp_directory_path() /
                       ("appell-bench-jit-warm-" + std::to_string(::getpid()));
    measure_warm("panda", io::read_urdf_file(std::string(APPELL_EXAMPLES_DIR) + "/urdf/panda.urdf"),
                 cache);
    measure_warm("spatial30", io::parse_model(chain_yaml(30, false), "chain.yaml"), cache);
    std::filesystem::remove_all(cache);
    return 0;
  }
  const std::map<std::string, std::pair<int, bool>> models = {{"spatial7", {7, false}},
                                                              {"spatial10", {10, false}},
                                                              {"spatial30", {30, false}},
                                                              {"planar10", {10, true}},
                                                              {"planar30", {30, true}}};
  std::vector<std::string> chosen;
  for (int i = 1; i < argc; ++i) chosen.emplace_back(argv[i]);
  if (chosen.empty()) chosen = {"spatial7", "spatial10", "planar10", "spatial30", "planar30"};
  const auto cache =
      std::filesystem::temp_directory_path() / ("appell-bench-jit-" + std::to_string(::getpid()));
  for (const auto& name : chosen) {
    const auto it = models.find(name);
    if (it == models.end()) {
      std::fprintf(stderr, "unknown model %s\n", name.c_str());
      return 2;
    }
    measure(name, it->second.first, it->second.second, cache);
  }
  std::filesystem::remove_all(cache);
  return 0;
}
