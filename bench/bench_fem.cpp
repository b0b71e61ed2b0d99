// Finite elements at scale: assembly time and memory of box meshes of 10³, 10⁴ and 10⁵
// hexahedra, time to the first 10 modes, time per Newmark step of a spinning body.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cmath>

#include "appell/fem/assembly.hpp"
#include "appell/fem/flexible_body.hpp"
#include "appell/fem/frame_motion.hpp"
#include "appell/fem/modal_analysis.hpp"
#include "appell/fem/response.hpp"
#include "appell/io/model_reader.hpp"

namespace {

using namespace appell;

// nx × n × n hexahedra with nx = 10 n: 10³ (n = 1 ... ) is approximated by the closest shape.
std::array<int, 3> divisions(long elements) {
  const int n = std::max(1, int(std::lround(std::cbrt(double(elements) / 10.0))));
  return {int(elements / (n * n)), n, n};
}

double megabytes(const fem::SparseMatrix& m) {
  return double(m.nonZeros()) * (sizeof(double) + sizeof(int)) / 1e6;
}

long peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

void BM_AssembleHexahedra(benchmark::State& state) {
  const auto d = divisions(state.range(0));
  const fem::Mesh mesh = fem::box_mesh({1.0, 0.1, 0.1}, d);
  const fem::Material steel{2.1e11, 0.3, 7850};
  double mb = 0;
  for (auto _ : state) {
    const fem::AssembledBody body = fem::assemble(mesh, steel, std::nullopt);
    mb = megabytes(body.stiffness) + megabytes(body.mass) + megabytes(body.scalar_mass);
    benchmark::DoNotOptimize(body.stiffness.nonZeros());
  }
  state.counters["elements"] = double(mesh.elements.size());
  state.counters["dofs"] = double(mesh.dof_count());
  state.counters["matrices_MB"] = mb;
  state.counters["peak_rss_MB"] = double(peak_rss_mb());
}
BENCHMARK(BM_AssembleHexahedra)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

std::string box_model(const std::array<int, 3>& d, const std::string& extra) {
  return "name: bench\ncoordinates: []\nparameters: {Omega: 20}\nprescribed: {psi: Omega*t}\n"
         "frames: {hub: {rotation: rot_z(psi)}}\nflexible:\n  - name: bar\n    frame: hub\n"
         "    mesh: {box: {size: [1.0, 0.1, 0.1], divisions: [" +
         std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         "]}}\n    material: {E: 2.1e11, nu: 0.3, rho: 7850}\n    clamp: {x: 0}\n" + extra;
}

void BM_FirstTenModes(benchmark::State& state) {
  const auto model = io::parse_model(box_model(divisions(state.range(0)), ""), "bench.yaml");
  const fem::FlexibleBodyInstance body = fem::build_flexible_body(*model, 0, {});
  const fem::FrameMotion motion(model, "hub", {}, 0.0, 1e-3, {});
  fem::ModalOptions options;
  options.modes = 10;
  for (auto _ : state) {
    const auto result = fem::modal_analysis(body, motion.at(0.0), options);
    benchmark::DoNotOptimize(result.frequencies_hz.data());
  }
  state.counters["dofs"] = double(body.free_dofs.size());
}
BENCHMARK(BM_FirstTenModes)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_NewmarkStepSpinning(benchmark::State& state) {
  const auto model = io::parse_model(
      box_model(divisions(state.range(0)), "    loads: [{at: {x: 1.0}, force: [0, 0, -10]}]\n"),
      "bench.yaml");
  const fem::FlexibleBodyInstance body = fem::build_flexible_body(*model, 0, {});
  const fem::FrameMotion motion(model, "hub", {}, 1.0, 1e-3, {});
  fem::ResponseOptions options;
  options.t_end = 0.02;
  options.step = 1e-3;
  fem::ResponseResult result;
  for (auto _ : state) {
    result = fem::elastic_response(body, motion, options, [](const fem::ResponseStep&) {});
  }
  state.counters["dofs"] = double(body.free_dofs.size());
  state.counters["ms_per_step"] = 1e3 * result.seconds / double(result.steps);
  state.counters["factorizations"] = double(result.factorizations);
}
BENCHMARK(BM_NewmarkStepSpinning)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
