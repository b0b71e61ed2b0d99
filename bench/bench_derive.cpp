// Deriving an n-link planar chain of uniform rods under gravity (issue #2's benchmark): each
// method, as formed (the numeric path) and made readable.
#include <benchmark/benchmark.h>

#include <sstream>

#include "appell/io/model_reader.hpp"
#include "appell/principles/derive.hpp"

namespace {

using namespace appell;

std::shared_ptr<const model::Model> planar_chain(int n) {
  std::ostringstream y;
  y << "name: chain" << n << "\nparameters: {m: 1.0, l: 0.5, g: 9.81}\ncoordinates: [";
  for (int i = 1; i <= n; ++i) y << (i > 1 ? ", " : "") << "q" << i;
  y << "]\nframes:\n";
  for (int i = 1; i <= n; ++i) {
    y << "  link" << i << ": {parent: " << (i == 1 ? "world" : "link" + std::to_string(i - 1))
      << (i == 1 ? "" : ", translation: [l, 0, 0]") << ", rotation: rot_z(q" << i << ")}\n";
  }
  y << "bodies:\n";
  for (int i = 1; i <= n; ++i)
    y << "  rod" << i << ": {frame: link" << i
      << ", mass: m, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}\n";
  y << "gravity: [0, -g, 0]\n";
  return io::parse_model(y.str(), "chain.yaml");
}

void derive_chain(benchmark::State& state, principles::Method method, bool readable) {
  const int n = static_cast<int>(state.range(0));
  auto model = planar_chain(n);
  principles::Equations eq;
  for (auto _ : state) {
    eq = principles::derive(model, method);
    if (readable) eq = principles::simplify(eq);
    benchmark::DoNotOptimize(eq);
  }
  state.counters["differentiations"] = static_cast<double>(eq.cost.differentiations);
  state.counters["derivative_nodes"] = static_cast<double>(eq.cost.derivative_nodes);
  state.counters["size_before"] = static_cast<double>(eq.cost.size_before);
  if (readable) state.counters["size_after"] = static_cast<double>(eq.cost.size_after);
}

void BM_Lagrange_Raw(benchmark::State& s) { derive_chain(s, principles::Method::Lagrange, false); }
void BM_GibbsAppell_Raw(benchmark::State& s) {
  derive_chain(s, principles::Method::GibbsAppell, false);
}
void BM_Lagrange_Readable(benchmark::State& s) {
  derive_chain(s, principles::Method::Lagrange, true);
}
void BM_GibbsAppell_Readable(benchmark::State& s) {
  derive_chain(s, principles::Method::GibbsAppell, true);
}

BENCHMARK(BM_Lagrange_Raw)->Arg(2)->Arg(6)->Arg(10)->Arg(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GibbsAppell_Raw)->Arg(2)->Arg(6)->Arg(10)->Arg(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Lagrange_Readable)->Arg(2)->Arg(6)->Arg(10)->Arg(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GibbsAppell_Readable)->Arg(2)->Arg(6)->Arg(10)->Arg(20)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
