// Momenta (num::CompiledMomenta and simulate's p_x.. L_z columns): conserved for a free system,
// changed by the impulse of the external forces otherwise.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/momenta.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/principles/derive.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;
using Eigen::Vector3d;
using Eigen::VectorXd;

// A rigid body turning freely in space (Euler angles z-x-z) with a bead on a spring sliding
// along a rail fixed in it: every force internal.
constexpr const char* kFreeBody = R"yaml(name: free-body-with-bead
parameters: {m: 2.0, mp: 0.6, k: 40.0, a: 0.15}
coordinates:
  - {name: x, velocity: 0.3}
  - {name: y, velocity: -0.2}
  - {name: z, velocity: 0.5}
  - {name: psi, velocity: 0.7}
  - {name: theta, initial: 0.8, velocity: -0.4}
  - {name: phi, velocity: 2.0}
  - {name: s, initial: 0.35, velocity: 0.1}
frames:
  hull: {translation: [x, y, z], rotation: rot_z(psi)*rot_x(theta)*rot_z(phi)}
  rail: {parent: hull, translation: [s, 0.1, 0.05]}
bodies:
  body: {frame: hull, mass: m, com: [a, 0, 0], inertia: {box: {size: [0.4, 0.3, 0.2]}}}
particles:
  bead: {frame: rail, mass: mp, position: [0, 0, 0]}
loads:
  - spring: {from: [hull, [0, 0.1, 0.05]], to: [rail, [0, 0, 0]], stiffness: k, rest_length: 0.3}
)yaml";

// The same idea in the plane under gravity: the only external force is the weight.
constexpr const char* kPlanar = R"yaml(name: planar-body-with-bead
parameters: {m: 2.0, mp: 0.6, k: 40.0, a: 0.15, g: 9.81}
coordinates:
  - {name: x, velocity: 0.3}
  - {name: y, velocity: 1.2}
  - {name: th, initial: 0.3, velocity: 1.5}
  - {name: s, initial: 0.35, velocity: -0.2}
frames:
  hull: {translation: [x, y, 0], rotation: rot_z(th)}
  rail: {parent: hull, translation: [s, 0.1, 0]}
bodies:
  body: {frame: hull, mass: m, com: [a, 0, 0], inertia: {box: {size: [0.4, 0.3, 0.2]}}}
particles:
  bead: {frame: rail, mass: mp, position: [0, 0, 0]}
gravity: [0, -g, 0]
loads:
  - spring: {from: [hull, [0, 0.1, 0]], to: [rail, [0, 0, 0]], stiffness: k, rest_length: 0.3}
)yaml";

struct Row {
  double t;
  num::Momenta momenta;
};

std::vector<Row> simulate_momenta(const char* yaml, double t_end) {
  const auto model = io::parse_model(yaml, "model.yaml");
  const auto equations = principles::derive(model, principles::Method::GibbsAppell);
  const num::CompiledMomenta momenta(model);
  num::SimulationOptions options;
  options.t_end = t_end;
  options.output_step = 0.1;
  options.rtol = 1e-11;
  options.atol = 1e-11;
  std::vector<Row> rows;
  num::simulate(equations, options, [&](const num::SimulationRow& row) {
    rows.push_back({row.t, momenta.evaluate(row.t, row.q, row.qd)});
  });
  return rows;
}

TEST(Momenta, ConservedForAFreeBodyWithInternalForces) {
  const auto rows = simulate_momenta(kFreeBody, 2.0);
  ASSERT_EQ(rows.size(), 21u);
  const num::Momenta& first = rows.front().momenta;
  // Not trivially zero: the body moves and spins.
  EXPECT_GT(first.linear.norm(), 0.5);
  EXPECT_GT(first.angular.norm(), 0.05);
  for (const auto& row : rows) {
    EXPECT_LT((row.momenta.linear - first.linear).norm(), 1e-8) << row.t;
    EXPECT_LT((row.momenta.angular - first.angular).norm(), 1e-8) << row.t;
  }
}

TEST(Momenta, ChangedByTheImpulseOfGravity) {
  // Only the weight (m + mp) g acts: p(t) − p(0) = M g t and, with the centre of mass at
  // r(t) = r0 + v0 t + ½ g t², L(t) − L(0) = ∫ r × M g dt = (r0 t + v0 t²/2) × M g.
  const double m = 2.0, mp = 0.6, a = 0.15, g = 9.81, M = m + mp;
  const double x = 0, y = 0, th = 0.3, s = 0.35, vx = 0.3, vy = 1.2, w = 1.5, vs = -0.2;
  const Vector3d e(std::cos(th), std::sin(th), 0), n(-std::sin(th), std::cos(th), 0);
  const Vector3d origin(x, y, 0), v_origin(vx, vy, 0);
  const Vector3d r_body = origin + a * e, v_body = v_origin + a * w * n;
  const Vector3d r_bead = origin + s * e + 0.1 * n;
  const Vector3d v_bead = v_origin + vs * e + w * (s * n - 0.1 * e);
  const Vector3d r0 = (m * r_body + mp * r_bead) / M, v0 = (m * v_body + mp * v_bead) / M;
  const Vector3d weight(0, -M * g, 0);

  const auto rows = simulate_momenta(kPlanar, 1.0);
  ASSERT_EQ(rows.size(), 11u);
  const num::Momenta& first = rows.front().momenta;
  EXPECT_LT((first.linear - M * v0).norm(), 1e-12) << first.linear.transpose();
  for (const auto& row : rows) {
    const double t = row.t;
    EXPECT_LT((row.momenta.linear - first.linear - weight * t).norm(), 1e-7) << t;
    const Vector3d impulse_moment = (r0 * t + v0 * t * t / 2).cross(weight);
    EXPECT_LT((row.momenta.angular - first.angular - impulse_moment).norm(), 1e-7) << t;
  }
}

TEST(Momenta, SimulateWritesTheColumns) {
  const std::string path = ::testing::TempDir() + "/momenta_free_body.yaml";
  std::ofstream(path) << kFreeBody;
  const std::string csv = ::testing::TempDir() + "/momenta_free_body.csv";
  const auto run = test_support::run_cli("simulate " + path +
                                         " --t-end 1 --output-step 0.25 --rtol 1e-10 --atol "
                                         "1e-10 --out " +
                                         csv);
  ASSERT_EQ(run.code, 0) << run.out;
  std::ifstream in(csv);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header,
            "t,x,y,z,psi,theta,phi,s,dot(x),dot(y),dot(z),dot(psi),dot(theta),dot(phi),dot(s),T,"
            "V,E,p_x,p_y,p_z,L_x,L_y,L_z");
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> v;
    std::istringstream fields(line);
    for (std::string f; std::getline(fields, f, ',');) v.push_back(std::stod(f));
    ASSERT_EQ(v.size(), 24u) << line;
    rows.push_back(v);
  }
  ASSERT_EQ(rows.size(), 5u);
  for (const auto& v : rows)
    for (int c = 18; c < 24; ++c) EXPECT_NEAR(v[c], rows[0][c], 1e-7) << "column " << c;
}

}  // namespace
