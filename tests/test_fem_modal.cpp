// Flexible bodies end to end: model file -> mesh -> assembled matrices -> modes and response,
// against references nobody here wrote: Euler–Bernoulli cantilever frequencies and tip
// deflection, Southwell's coefficient of a spinning cantilever, rigid-body modes.
#include <gtest/gtest.h>

#include <Eigen/SparseCholesky>
#include <cmath>
#include <numbers>

#include "appell/fem/flexible_body.hpp"
#include "appell/fem/frame_motion.hpp"
#include "appell/fem/modal_analysis.hpp"
#include "appell/fem/moving_frame.hpp"
#include "appell/fem/response.hpp"
#include "appell/io/model_reader.hpp"

namespace {

using namespace appell;

constexpr double kE = 2.1e11, kRho = 7850.0;
constexpr double kBeta[] = {1.8751040687, 4.6940911330, 7.8547574382};

// f_i = (β_i L)² / (2π L²) · sqrt(E I / (ρ A)).
double euler_bernoulli_hz(int mode, double length, double EI_over_rhoA) {
  return kBeta[mode] * kBeta[mode] / (2 * std::numbers::pi * length * length) *
         std::sqrt(EI_over_rhoA);
}

struct Loaded {
  std::shared_ptr<const model::Model> model;
  fem::FlexibleBodyInstance body;
};

Loaded load(const std::string& yaml, const std::map<std::string, double>& set = {}) {
  auto model = io::parse_model(yaml, "test.yaml");
  auto body = fem::build_flexible_body(*model, 0, set);
  return {model, std::move(body)};
}

fem::ModalResult modes(const Loaded& l, int count, bool stiffening = true, double t = 0.0,
                       const std::map<std::string, double>& set = {}) {
  const fem::FrameMotion motion(l.model, l.body.spec->frame, set, t, 1e-3, {});
  fem::ModalOptions options;
  options.modes = count;
  options.stiffening = stiffening;
  return fem::modal_analysis(l.body, motion.at(t), options);
}

const char* kBeamCantilever = R"yaml(
name: beam-cantilever
parameters: {L: 1.0, b: 0.02, h: 0.005, Omega: 0.0}
coordinates: []
prescribed: {psi: Omega*t}
frames:
  hub: {rotation: rot_z(psi)}
flexible:
  - name: blade
    frame: hub
    mesh: {beam: {length: L, elements: 30, section: {area: b*h, Iy: b*h^3/12, Iz: h*b^3/12, J: b*h^3/3}}}
    material: {E: 2.1e11, nu: 0.3, rho: 7850}
    clamp: {x: 0}
)yaml";

TEST(FemModal, BeamCantileverMatchesEulerBernoulliWithinOnePercent) {
  const Loaded l = load(kBeamCantilever);
  const auto result = modes(l, 8);
  const double b = 0.02, h = 0.005;
  const double flap = kE * h * h / (12 * kRho), lag = kE * b * b / (12 * kRho);
  // Flapwise (z) and lead-lag (y) families, merged in ascending order.
  std::vector<double> expected;
  for (int i = 0; i < 3; ++i) {
    expected.push_back(euler_bernoulli_hz(i, 1.0, flap));
    expected.push_back(euler_bernoulli_hz(i, 1.0, lag));
  }
  std::sort(expected.begin(), expected.end());
  // The first four are bending (torsion and axial modes lie far above).
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(result.frequencies_hz[std::size_t(i)] / expected[std::size_t(i)], 1.0, 0.01)
        << "mode " << i + 1;
}

const char* kHexCantilever = R"yaml(
name: hex-cantilever
parameters: {P: -100.0}
coordinates: []
frames: {base: {}}
flexible:
  - name: bar
    frame: base
    mesh: {box: {size: [1.0, 0.02, 0.02], divisions: [40, 2, 2]}}
    material: {E: 2.1e11, nu: 0.3, rho: 7850}
    clamp: {x: 0}
    loads:
      - {at: {x: 1.0}, force: [0, 0, P/9]}
)yaml";

TEST(FemModal, SlenderHexBarTwoElementsThickDoesNotLock) {
  const Loaded l = load(kHexCantilever);
  ASSERT_GT(l.body.free_dofs.size(), 600u);  // the sparse (Spectra) path
  const auto result = modes(l, 6);
  const double a = 0.02;
  const double ratio = kE * a * a / (12 * kRho);
  // A square section: each bending frequency twice (y and z).
  for (int i = 0; i < 3; ++i) {
    const double f = euler_bernoulli_hz(i, 1.0, ratio);
    EXPECT_NEAR(result.frequencies_hz[std::size_t(2 * i)] / f, 1.0, 0.02) << "mode " << 2 * i + 1;
    EXPECT_NEAR(result.frequencies_hz[std::size_t(2 * i + 1)] / f, 1.0, 0.02)
        << "mode " << 2 * i + 2;
  }
}

TEST(FemModal, HexCantileverStaticTipDeflection) {
  const Loaded l = load(kHexCantilever);
  const fem::SparseMatrix k = fem::free_block(l.body, l.body.assembled.stiffness);
  const Eigen::VectorXd force = l.body.loads_at(0.0).force;
  Eigen::VectorXd f(Eigen::Index(l.body.free_dofs.size()));
  for (std::size_t i = 0; i < l.body.free_dofs.size(); ++i)
    f(Eigen::Index(i)) = force(l.body.free_dofs[i]);
  Eigen::SimplicialLDLT<fem::SparseMatrix> solver(k);
  ASSERT_EQ(solver.info(), Eigen::Success);
  const Eigen::VectorXd u = solver.solve(f);
  // The tip's mean z displacement against P L³ / (3 E I).
  const double I = std::pow(0.02, 4) / 12, expected = -100.0 / (3 * kE * I);
  double tip = 0;
  int count = 0;
  for (std::size_t n = 0; n < l.body.mesh.nodes.size(); ++n)
    if (std::abs(l.body.mesh.nodes[n].x() - 1.0) < 1e-9) {
      tip += u(l.body.free_index[n * 3 + 2]);
      ++count;
    }
  ASSERT_EQ(count, 9);
  EXPECT_NEAR(tip / count / expected, 1.0, 0.02);
}

TEST(FemModal, SpinningCantileverFollowsSouthwellOnlyWithStiffening) {
  const Loaded standing = load(kBeamCantilever);
  const double f10 = modes(standing, 1).frequencies_hz[0];
  const double w10 = 2 * std::numbers::pi * f10;
  const double spin = 1.2 * w10;
  const std::map<std::string, double> set{{"Omega", spin}};
  const Loaded spinning = load(kBeamCantilever, set);
  const double southwell = 1.193;
  const double expected = std::sqrt(w10 * w10 + southwell * spin * spin);
  const auto stiffened = modes(spinning, 1, true, 0.3, set);
  ASSERT_TRUE(stiffened.stiffened);
  const double w1 = 2 * std::numbers::pi * stiffened.frequencies_hz[0];
  EXPECT_NEAR(w1 / expected, 1.0, 0.02);
  EXPECT_NEAR((w1 * w1 - w10 * w10) / (spin * spin), southwell, 0.05);
  // The linear floating-frame model alone: k(ω) does not touch the flapwise direction, so the
  // frequency stays at its standing value — wrong by far.
  const auto linear = modes(spinning, 1, false, 0.3, set);
  const double w1_linear = 2 * std::numbers::pi * linear.frequencies_hz[0];
  EXPECT_NEAR(w1_linear / w10, 1.0, 0.01);
  EXPECT_LT(w1_linear / expected, 0.8);
}

TEST(FemModal, LeadLagOfAFastRotorIsUnstableWithoutStiffening) {
  // Above the standing lead-lag frequency, k(ω) alone makes the in-plane stiffness negative
  // (the known divergence of the linear floating-frame model); stiffening keeps it stable.
  const Loaded standing = load(kBeamCantilever);
  const double lag =
      2 * std::numbers::pi * euler_bernoulli_hz(0, 1.0, kE * 0.02 * 0.02 / (12 * kRho));
  const std::map<std::string, double> set{{"Omega", 1.5 * lag}};
  const Loaded spinning = load(kBeamCantilever, set);
  const auto linear = modes(spinning, 3, false, 0.0, set);
  EXPECT_LT(linear.frequencies_hz[0], 0.0);
  const auto stiffened = modes(spinning, 3, true, 0.0, set);
  EXPECT_GT(stiffened.frequencies_hz[0], 0.0);
}

TEST(FemModal, UnconstrainedBodyHasSixRigidBodyModes) {
  for (const char* divisions : {"[4, 2, 2]", "[20, 3, 3]"}) {
    const std::string yaml = std::string(R"yaml(
name: free-box
coordinates: []
frames: {base: {}}
flexible:
  - name: box
    frame: base
    mesh: {box: {size: [0.5, 0.1, 0.1], divisions: )yaml") +
                             divisions + R"yaml(}}
    material: {E: 7.0e10, nu: 0.33, rho: 2700}
)yaml";
    const Loaded l = load(yaml);
    const auto result = modes(l, 8);
    for (int i = 0; i < 6; ++i)
      EXPECT_LT(std::abs(result.frequencies_hz[std::size_t(i)]), 1e-3 * result.frequencies_hz[6])
          << divisions << " mode " << i + 1;
    EXPECT_GT(result.frequencies_hz[6], 100.0) << divisions;
  }
}

TEST(FemModal, ResponseToASuddenTipLoadOscillatesAboutTheStaticDeflection) {
  // Undamped single-degree-like response: the tip swings between 0 and twice the static
  // deflection, with the period of the first mode.
  const std::string yaml = R"yaml(
name: beam-step
coordinates: []
frames: {base: {}}
flexible:
  - name: beam
    frame: base
    mesh: {beam: {length: 1.0, elements: 10, section: {area: 4e-4, Iy: 1.3333333e-8, Iz: 1.3333333e-8, J: 2.25e-8}}}
    material: {E: 2.1e11, nu: 0.3, rho: 7850}
    clamp: {x: 0}
    loads: [{at: {x: 1.0}, force: [0, 0, -100]}]
)yaml";
  const Loaded l = load(yaml);
  const fem::FrameMotion motion(l.model, "base", {}, 0.2, 1e-3, {});
  fem::ResponseOptions options;
  options.t_end = 0.2;
  options.step = 2e-4;
  const int tip = 10 * 6 + 2;
  double lowest = 0, mean = 0;
  long count = 0;
  const auto result =
      fem::elastic_response(l.body, motion, options, [&](const fem::ResponseStep& s) {
        lowest = std::min(lowest, s.u(tip));
        mean += s.u(tip);
        ++count;
      });
  EXPECT_EQ(result.factorizations, 1);
  const double static_deflection = -100.0 / (3 * kE * 1.3333333e-8);
  EXPECT_NEAR(lowest / (2 * static_deflection), 1.0, 0.05);
  // Over ~3.4 periods (f1 ≈ 16.7 Hz) the mean sits near the static value.
  EXPECT_NEAR(mean / double(count) / static_deflection, 1.0, 0.15);
}

}  // namespace
