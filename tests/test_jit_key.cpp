// The JIT cache key writes every expression of a model by sym::canonical_text (marked): the key
// is one whichever sign GiNaC keeps a sum factor of a product with (which changes from run to
// run) in a rotation, a load and a constraint, while the other sign is another key; a number
// changed in its last digit is another key; and Bricard's closures and quaternion frames give
// one key, so one compiled library, in five processes.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "appell/io/model_reader.hpp"
#include "appell/jit/dynamics_key.hpp"
#include "support/c_compiler.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "support/test_models.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;

// A slider-crank: rotations, a force load, two closures.
const char* const loop_yaml = R"yaml(name: loop
parameters: {r: 0.1, L: 0.3, m: 1.0, f: 2.0}
coordinates: [q1, q2, x]
frames:
  crank: {rotation: rot_z(q1)}
  rod: {translation: [r*cos(q1), r*sin(q1), 0], rotation: rot_z(q2)}
  slider: {translation: [x, 0, 0]}
bodies:
  crank_body: {frame: crank, mass: m, com: [r/2, 0, 0], inertia: {rod: {length: r, axis: x}}}
  rod_body: {frame: rod, mass: m, com: [L/2, 0, 0], inertia: {rod: {length: L, axis: x}}}
particles:
  block: {frame: slider, mass: m, position: [0, 0, 0]}
loads:
  - {force: [f, 0, 0], on: slider, at: [0, 0, 0]}
constraints:
  - {name: loop_x, holonomic: "r*cos(q1) + L*cos(q2) - x"}
  - {name: loop_y, holonomic: "r*sin(q1) + L*sin(q2)"}
)yaml";

GiNaC::symbol parameter(const model::Model& m, const std::string& name) {
  for (const auto& p : m.parameters)
    if (p.name == name) return p.symbol;
  ADD_FAILURE() << "no parameter " << name;
  return GiNaC::symbol(name);
}

// GiNaC keeps a sum factor of a product with either sign, by its hash order (cos(q1)·(r − L) in
// one run, −cos(q1)·(L − r) in the next: Bricard's closures, the Whipple bicycle's d2). Both
// trees, held as written, in a rotation, a load and a constraint, as the whole expression and
// inside a function in a sum (held: an evaluated sum would put the sign where this run's hash
// order does, both alike): one content; the product of the other sign, another.
TEST(JitKey, ASumFactorsSignDoesNotReachTheKey) {
  const auto loop = io::parse_model(loop_yaml, "loop.yaml");
  const GiNaC::symbol r = parameter(*loop, "r"), L = parameter(*loop, "L");
  const GiNaC::ex c = GiNaC::cos(loop->coordinate_symbol(0));
  const GiNaC::ex inside = GiNaC::mul(c, r - L).hold();
  const GiNaC::ex outside = GiNaC::mul(GiNaC::exvector{GiNaC::ex(-1), c, L - r}).hold();
  const GiNaC::ex opposite = GiNaC::mul(c, L - r).hold();

  // Each place as the expression it holds in a copy of the loop.
  using Place = std::function<GiNaC::ex&(model::Model&)>;
  const std::vector<std::pair<std::string, Place>> places = {
      {"rotation",
       [](model::Model& m) -> GiNaC::ex& { return m.frames.at(1).rotation.at(0).angle; }},
      {"load",
       [](model::Model& m) -> GiNaC::ex& {
         return std::get<model::ForceLoad>(m.loads.at(0).kind).force[0];
       }},
      {"constraint", [](model::Model& m) -> GiNaC::ex& { return m.constraints.at(0).expression; }},
  };
  // The expression of a place with the product in it.
  using Form = std::function<GiNaC::ex(const GiNaC::ex& original, const GiNaC::ex& product)>;
  const std::vector<std::pair<std::string, Form>> forms = {
      {"alone", [](const GiNaC::ex&, const GiNaC::ex& product) { return product; }},
      {"in a sum", [](const GiNaC::ex& original,
                      const GiNaC::ex& product) { return original + GiNaC::sin(product); }},
  };
  const std::string plain = jit::dynamics_content(*loop);
  for (const auto& [where, place] : places)
    for (const auto& [how, form] : forms) {
      SCOPED_TRACE(where + ", " + how);
      model::Model one = *loop, other = *loop, flipped = *loop;
      place(one) = form(place(one), inside);
      place(other) = form(place(other), outside);
      place(flipped) = form(place(flipped), opposite);
      // Two trees of one value.
      ASSERT_FALSE(place(one).is_equal(place(other))) << place(one) << " and " << place(other);
      const GiNaC::ex at =
          GiNaC::lst{r == 0.1, L == 0.3, loop->coordinate_symbol(0) == 0.7,
                     loop->coordinate_symbol(1) == 0.2, loop->coordinate_symbol(2) == 0.4};
      ASSERT_TRUE(GiNaC::abs((place(one) - place(other)).subs(at).evalf()) < 1e-15);
      EXPECT_EQ(jit::dynamics_content(other), jit::dynamics_content(one));
      EXPECT_NE(jit::dynamics_content(one), plain);
      EXPECT_NE(jit::dynamics_content(flipped), jit::dynamics_content(one));
      if (test_support::have_compiler()) {
        EXPECT_EQ(jit::dynamics_key(other), jit::dynamics_key(one));
      }
    }
}

// The text of a number with the next double up: they differ in the last digit.
std::string next_up(const std::string& text) {
  const double value = std::stod(text), next = std::nextafter(value, HUGE_VAL);
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, next).ptr;
  return std::string(buffer, end);
}

std::string edited(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Each number the code holds, one double up (the next double, written shortest): every edit its
// own key. The content writes numbers as GiNaC does, exactly.
TEST(JitKey, ANumberChangedInItsLastDigitChangesTheKey) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const std::string tree = test_support::tree_yaml;
  // {the text around the number, the number}
  const std::vector<std::pair<std::string, std::string>> numbers = {
      {"[0.2 + s", "0.2"},          // a translation
      {"rot_x(0.4)", "0.4"},        // a fixed rotation
      {"0.3*b2 + 0.2", "0.3"},      // a joint's angle
      {"mass: 0.7*m", "0.7"},       // a mass
      {"radius: 0.05", "0.05"},     // an inertia
      {"k: 40.0", "40.0"},          // a parameter's default
      {"force: [1.5", "1.5"},       // a force
      {"rest_length: 0.3", "0.3"},  // a spring
      {"[0, 0, 0.8]", "0.8"},       // a torque
      {"(a - 0.1)^2", "0.1"},       // a potential
  };
  std::set<std::string> keys{jit::dynamics_key(*io::parse_model(tree, "tree.yaml"))};
  for (const auto& [around, number] : numbers) {
    const std::string up = next_up(number);
    SCOPED_TRACE(around + ": " + number + " -> " + up);
    ASSERT_NE(std::stod(up), std::stod(number));
    const std::string changed = edited(tree, around, edited(around, number, up));
    EXPECT_TRUE(keys.insert(jit::dynamics_key(*io::parse_model(changed, "t.yaml"))).second)
        << "the same key as the tree or an earlier edit";
  }
}

// GiNaC holds Bricard's closures in another tree from run to run (the sign of a sum factor
// inside or outside it), and a quaternion frame's rotation too (e0² + e1² − e2² − e3² times a
// factor, or the negated sum with the sign outside; the squares written alike whatever their
// sign): five processes, each its own address-space layout, compile one library a model.
class JitKeyCli : public test_support::ScratchDirTest {};

TEST_F(JitKeyCli, BricardsAndAQuaternionFramesKeysAreOneInFiveProcesses) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const fs::path cache = dir_ / "cache";
  ::setenv("APPELL_CACHE_DIR", cache.c_str(), 1);
  const std::vector<std::string> models = {"bricard.yaml", "speeds/free_box_quaternion.yaml",
                                           "speeds/damped_cube.yaml"};
  for (std::size_t k = 0; k < models.size(); ++k)
    for (int run = 0; run < 5; ++run) {
      SCOPED_TRACE(models[k] + ", run " + std::to_string(run));
      const auto r =
          test_support::run_cli("simulate " + std::string(APPELL_EXAMPLES_DIR) + "/" + models[k] +
                                " --t-end 0.01 --out " + (dir_ / "out.csv").string());
      EXPECT_EQ(r.code, 0) << r.out;
      std::size_t libraries = 0;
      for (const auto& entry : fs::directory_iterator(cache / "jit"))
        libraries += entry.path().extension() == ".so";
      EXPECT_EQ(libraries, k + 1) << "compiled under another key";
    }
  ::unsetenv("APPELL_CACHE_DIR");
}

}  // namespace
