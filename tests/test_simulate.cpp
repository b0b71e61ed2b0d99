// Forward dynamics: the potential energy against the generalized forces, energy conservation,
// closed-form references integrated independently, inputs, failures, and the CLI contract.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "appell/io/model_reader.hpp"
#include "appell/kinematics/kinematics.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "appell/principles/potential_energy.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;

const std::string kExamples = APPELL_EXAMPLES_DIR;

std::shared_ptr<const model::Model> example(const std::string& name) {
  return io::read_model_file(kExamples + "/" + name);
}

struct Trajectory {
  std::vector<double> t;
  std::vector<Eigen::VectorXd> q, qd;
  std::vector<double> energy;
  num::SimulationResult result;
};

Trajectory run(const std::shared_ptr<const model::Model>& model,
               const num::SimulationOptions& options) {
  Trajectory out;
  const auto equations = principles::derive(model, principles::Method::GibbsAppell);
  out.result = num::simulate(equations, options, [&](const num::SimulationRow& row) {
    out.t.push_back(row.t);
    out.q.push_back(row.q);
    out.qd.push_back(row.qd);
    out.energy.push_back(row.total);
  });
  return out;
}

num::SimulationOptions accurate(double t_end, num::Integrator integrator) {
  num::SimulationOptions o;
  o.t_end = t_end;
  o.output_step = 0.05;
  o.rtol = 1e-10;
  o.atol = 1e-10;
  o.integrator = integrator;
  return o;
}

// ---------------------------------------------------------------------------------------------
// The potential energy

TEST(SimulatePotential, NegativeGradientIsTheConservativeGeneralizedForce) {
  // Gravity along a slanted direction, a spring with a rest length, one without, and a potential
  // load: no other loads, so every generalized force is conservative and Q = −∂V/∂q exactly.
  auto model = io::parse_model(R"(name: conservative-mix
parameters: {m1: 1.3, m2: 0.7, l: 0.9, k: 25, L0: 0.4, k2: 3, kt: 0.8, g: 9.81}
coordinates: [x, theta, phi]
frames:
  cart: {translation: [x, 0, 0]}
  arm: {parent: cart, rotation: rot_z(theta)*rot_x(phi)}
bodies:
  rod: {frame: arm, mass: m1, com: [0, -l/2, 0], inertia: {rod: {length: l, axis: y}}}
particles:
  tip: {frame: arm, mass: m2, position: [0.1, -l, 0.05]}
gravity: [0.3, -g, 0.2]
loads:
  - spring: {from: [world, [0, 0.3, 0.1]], to: [arm, [0, -l, 0]], stiffness: k, rest_length: L0}
  - spring: {from: [world, [-1, 0, 0]], to: [cart, [0, 0, 0]], stiffness: k2}
  - potential: kt*theta^2/2 + x^4 + cos(phi)
)",
                               "mix.yaml");
  sym::Differentiator d(model->time_functions);
  kin::Kinematics kinematics(model, d);
  const GiNaC::ex V = principles::potential_energy(kinematics);
  const GiNaC::matrix Q = principles::generalized_forces(kinematics);

  const auto parameters = model->parameter_substitution();
  GiNaC::exvector residuals;
  std::vector<GiNaC::symbol> q;
  for (std::size_t j = 0; j < model->dof(); ++j) {
    q.push_back(model->coordinate_symbol(j));
    residuals.push_back(sym::substitute(Q(j, 0) + d.partial(V, q.back()), parameters));
    residuals.push_back(sym::substitute(Q(j, 0), parameters));  // its scale
  }
  const num::Tape tape(residuals, q);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-2, 2);
  std::vector<double> state(3), values(residuals.size()), workspace;
  double largest_force = 0;
  for (int i = 0; i < 50; ++i) {
    for (auto& v : state) v = u(rng);
    tape.evaluate(state.data(), values.data(), workspace);
    for (std::size_t j = 0; j < model->dof(); ++j)
      largest_force = std::max(largest_force, std::abs(values[2 * j + 1]));
    for (std::size_t j = 0; j < model->dof(); ++j)
      EXPECT_NEAR(values[2 * j], 0.0, 1e-12 * (1 + std::abs(values[2 * j + 1])))
          << "coordinate " << j << " at sample " << i;
  }
  EXPECT_GT(largest_force, 1.0);  // the comparison was not between two zeros
}

TEST(SimulatePotential, GravityOfTheThreadPendulum) {
  // V = −m g·r = −m g l cos φ for the bob at distance l below the pivot.
  auto model = example("thread_pendulum.yaml");
  sym::Differentiator d(model->time_functions);
  kin::Kinematics kinematics(model, d);
  const auto p = model->parameter_values();
  const num::Tape tape(
      {sym::substitute(principles::potential_energy(kinematics), model->parameter_substitution())},
      {model->coordinate_symbol(0)});
  std::vector<double> workspace;
  for (double phi : {0.0, 0.4, 2.0}) {
    double V = 0;
    tape.evaluate(&phi, &V, workspace);
    EXPECT_NEAR(V, -p.at("m") * p.at("g") * p.at("l") * std::cos(phi), 1e-14);
  }
}

// ---------------------------------------------------------------------------------------------
// Energy conservation

void expect_energy_conserved(const std::string& file, double t_end) {
  for (auto integrator : {num::Integrator::Bdf, num::Integrator::Adams}) {
    SCOPED_TRACE(file + " with " + num::integrator_name(integrator));
    const auto trajectory = run(example(file), accurate(t_end, integrator));
    const auto& r = trajectory.result;
    EXPECT_TRUE(r.conservative) << r.not_conservative_because;
    EXPECT_EQ(r.rows, trajectory.t.size());
    EXPECT_DOUBLE_EQ(trajectory.t.back(), t_end);
    EXPECT_GT(r.steps, 0);
    EXPECT_GE(r.rhs_evaluations, r.steps);
    // The local error is controlled to ~1e-10 relative; over a few hundred steps the energy may
    // wander by a small multiple of that, far below what a wrong V or T would give.
    EXPECT_LT(r.energy_drift, 1e-7 * std::abs(r.initial_energy)) << "E0 = " << r.initial_energy;
    double drift = 0;
    for (double e : trajectory.energy) drift = std::max(drift, std::abs(e - trajectory.energy[0]));
    EXPECT_DOUBLE_EQ(drift, r.energy_drift);
  }
}

TEST(SimulateEnergy, HeavyTopConservesEnergy) { expect_energy_conserved("heavy_top.yaml", 3.0); }

TEST(SimulateEnergy, DoublePendulumConservesEnergy) {
  expect_energy_conserved("double_pendulum.yaml", 5.0);
}

TEST(SimulateEnergy, LooserToleranceDriftsMore) {
  auto model = example("double_pendulum.yaml");
  auto loose = accurate(5.0, num::Integrator::Bdf);
  loose.rtol = loose.atol = 1e-5;
  EXPECT_GT(run(model, loose).result.energy_drift,
            10 * run(model, accurate(5.0, num::Integrator::Bdf)).result.energy_drift);
}

TEST(SimulateEnergy, NonConservativeModelsAreRecognised) {
  num::SimulationOptions o;
  o.t_end = 0.1;
  const auto hoop = run(example("bead_on_hoop.yaml"), o).result;  // hoop driven by ω t
  EXPECT_FALSE(hoop.conservative);
  EXPECT_NE(hoop.not_conservative_because.find("depend on t"), std::string::npos);
  const auto cart = run(example("spring_damper_cart.yaml"), o).result;
  EXPECT_FALSE(cart.conservative);
  EXPECT_FALSE(cart.not_conservative_because.empty());
}

// ---------------------------------------------------------------------------------------------
// Closed-form equations integrated independently: classic RK4 on θ̈ = a(θ, θ̇) with a fixed tiny
// step, its accuracy confirmed by halving the step (Richardson).

using Acceleration = std::function<double(double theta)>;

// θ and θ̇ at every multiple of `every` up to t_end.
std::vector<std::array<double, 2>> rk4(const Acceleration& a, double theta, double rate,
                                       double t_end, double every, int substeps) {
  const double h = every / substeps;
  std::vector<std::array<double, 2>> rows{{theta, rate}};
  const int outputs = static_cast<int>(std::lround(t_end / every));
  for (int k = 0; k < outputs; ++k) {
    for (int s = 0; s < substeps; ++s) {
      const double k1x = rate, k1v = a(theta);
      const double k2x = rate + h / 2 * k1v, k2v = a(theta + h / 2 * k1x);
      const double k3x = rate + h / 2 * k2v, k3v = a(theta + h / 2 * k2x);
      const double k4x = rate + h * k3v, k4v = a(theta + h * k3x);
      theta += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
      rate += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
    }
    rows.push_back({theta, rate});
  }
  return rows;
}

void expect_matches_closed_form(const std::string& file, const Acceleration& a, double t_end,
                                num::Integrator integrator) {
  auto model = example(file);
  const double theta0 = model->coordinates[0].initial, rate0 = model->coordinates[0].velocity;
  auto options = accurate(t_end, integrator);
  options.rtol = 1e-11;
  options.atol = 1e-12;
  const auto trajectory = run(model, options);

  const auto reference = rk4(a, theta0, rate0, t_end, options.output_step, 200);
  const auto halved = rk4(a, theta0, rate0, t_end, options.output_step, 400);
  ASSERT_EQ(reference.size(), trajectory.t.size());
  for (std::size_t i = 0; i < reference.size(); ++i) {
    ASSERT_NEAR(reference[i][0], halved[i][0], 1e-12) << "the reference itself is not converged";
    EXPECT_NEAR(trajectory.t[i], static_cast<double>(i) * options.output_step, 1e-12);
    EXPECT_NEAR(trajectory.q[i][0], reference[i][0], 1e-7) << "t = " << trajectory.t[i];
    EXPECT_NEAR(trajectory.qd[i][0], reference[i][1], 1e-7) << "t = " << trajectory.t[i];
  }
}

TEST(SimulateReference, BeadOnSpinningHoopMatchesClosedForm) {
  const auto p = example("bead_on_hoop.yaml")->parameter_values();
  const double omega = p.at("omega"), g = p.at("g"), R = p.at("R");
  const Acceleration a = [&](double theta) {
    return (omega * omega * std::cos(theta) - g / R) * std::sin(theta);
  };
  for (auto integrator : {num::Integrator::Bdf, num::Integrator::Adams})
    expect_matches_closed_form("bead_on_hoop.yaml", a, 4.0, integrator);
}

TEST(SimulateReference, ThreadPendulumMatchesClosedForm) {
  const auto p = example("thread_pendulum.yaml")->parameter_values();
  const double g = p.at("g"), l = p.at("l");
  const Acceleration a = [&](double phi) { return -(g / l) * std::sin(phi); };
  for (auto integrator : {num::Integrator::Bdf, num::Integrator::Adams})
    expect_matches_closed_form("thread_pendulum.yaml", a, 4.0, integrator);
}

// ---------------------------------------------------------------------------------------------
// Options: initial values, parameters, inputs

const char* kPushedCart = R"(name: pushed-cart
parameters: {m: 2.0, A: 3.0}
coordinates: [x]
inputs: [u]
frames:
  cart: {translation: [x, 0, 0]}
particles:
  c: {frame: cart, mass: m}
loads:
  - generalized: {coordinate: x, value: u + dot(u)}
)";

TEST(SimulateOptions, InputExpressionDrivesTheModelWithItsDerivative) {
  // u = A cos t: m ẍ = A (cos t − sin t), so from rest x = (A/m)(1 − cos t + sin t − t).
  auto model = io::parse_model(kPushedCart, "cart.yaml");
  num::SimulationOptions o = accurate(2.0, num::Integrator::Bdf);
  o.inputs["u"] = num::parse_time_function(*model, "A*cos(t)");
  o.values["m"] = 4.0;
  const auto trajectory = run(model, o);
  EXPECT_FALSE(trajectory.result.conservative);
  for (std::size_t i = 0; i < trajectory.t.size(); ++i) {
    const double t = trajectory.t[i];
    EXPECT_NEAR(trajectory.q[i][0], 3.0 / 4.0 * (1 - std::cos(t) + std::sin(t) - t), 1e-8);
  }
}

TEST(SimulateOptions, InitialValuesOverrideTheModel) {
  auto model = example("thread_pendulum.yaml");
  num::SimulationOptions o;
  o.t_end = 0.5;
  o.q0 = {0.0};
  o.qd0 = {0.0};
  const auto trajectory = run(model, o);  // hanging at rest stays at rest
  for (const auto& q : trajectory.q) EXPECT_EQ(q[0], 0.0);
}

TEST(SimulateOptions, BadOptionsAreModelErrors) {
  auto model = io::parse_model(kPushedCart, "cart.yaml");
  const auto equations = principles::derive(model, principles::Method::GibbsAppell);
  auto expect_rejected = [&](const num::SimulationOptions& o, const std::string& where) {
    int rows = 0;
    try {
      num::simulate(equations, o, [&](const num::SimulationRow&) { ++rows; });
      ADD_FAILURE() << "accepted, expected an error at " << where;
    } catch (const model::ModelError& e) {
      EXPECT_EQ(e.where().file, where) << e.what();
    }
    EXPECT_EQ(rows, 0) << "rows were delivered before the options were checked";
  };
  num::SimulationOptions o;
  o.q0 = {1.0, 2.0};
  expect_rejected(o, "q0");
  o = {};
  o.inputs["w"] = GiNaC::ex(1);
  expect_rejected(o, "values");  // model::bind: not an input of the model
  o = {};
  o.inputs["u"] = GiNaC::ex(1);
  o.values["u"] = 2.0;
  expect_rejected(o, "values");  // model::bind: both a number and an expression
  o = {};
  o.output_step = 0.0;
  expect_rejected(o, "output_step");
  o = {};
  o.t_end = -1.0;
  expect_rejected(o, "t_end");
  EXPECT_THROW(num::parse_time_function(*model, "x*t"), model::ModelError);
}

// ---------------------------------------------------------------------------------------------
// Failures: rows first, then the error with the time reached and the reason

TEST(SimulateFailure, SingularMassMatrixStopsAtTheStart) {
  auto model = io::parse_model(R"(name: massless
coordinates: [q]
frames:
  f: {rotation: rot_z(q)}
particles:
  p: {frame: f, mass: 1, position: [0, 0, 0]}
)",
                               "massless.yaml");
  const auto equations = principles::derive(model, principles::Method::GibbsAppell);
  num::SimulationOptions o;
  int rows = 0;
  try {
    num::simulate(equations, o, [&](const num::SimulationRow&) { ++rows; });
    FAIL() << "a singular mass matrix was integrated";
  } catch (const num::SimulationError& e) {
    EXPECT_EQ(e.time_reached(), 0.0);
    EXPECT_NE(e.reason().find("singular mass matrix"), std::string::npos) << e.reason();
    EXPECT_NE(std::string(e.what()).find("t = 0"), std::string::npos) << e.what();
    EXPECT_EQ(e.partial().rows, 1u);
  }
  EXPECT_EQ(rows, 1);  // the initial state
}

TEST(SimulateFailure, RowsUpToTheFailureAreDelivered) {
  // The particle's radius sqrt(1 − t) is undefined after t = 1: the integration must stop
  // before, having delivered the rows it reached.
  auto model = io::parse_model(R"(name: shrinking
coordinates: [q]
prescribed: {a: sqrt(1 - t)}
frames:
  f: {rotation: rot_z(q)}
particles:
  p: {frame: f, mass: 1, position: [a, 0, 0]}
)",
                               "shrinking.yaml");
  const auto equations = principles::derive(model, principles::Method::GibbsAppell);
  num::SimulationOptions o;
  o.t_end = 2.0;
  o.output_step = 0.1;
  std::vector<double> times;
  try {
    num::simulate(equations, o, [&](const num::SimulationRow& row) { times.push_back(row.t); });
    FAIL() << "integrated past the end of the model's domain";
  } catch (const num::SimulationError& e) {
    EXPECT_GT(e.time_reached(), 0.0);
    EXPECT_LE(e.time_reached(), 1.0);
    EXPECT_EQ(e.partial().rows, times.size());
    ASSERT_FALSE(times.empty());
    EXPECT_LE(times.back(), e.time_reached());
    EXPECT_NE(e.reason().find("not finite"), std::string::npos) << e.reason();
  }
}

// ---------------------------------------------------------------------------------------------
// The command line

struct Cli {
  int code = -1;
  std::string output;  // stdout and stderr
};

Cli appell(const std::string& arguments) {
  const auto run = appell::test_support::run_cli(arguments);
  return Cli{run.code, run.out};
}

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "appell_simulate_tests";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(SimulateCli, WritesTheDocumentedCsv) {
  const std::string csv = scratch("double_pendulum.csv");
  const Cli r = appell("simulate " + kExamples + "/double_pendulum.yaml --t-end 1 --output-step " +
                       "0.25 --rtol 1e-9 --atol 1e-9 --integrator adams --set m2=0.6 --out " + csv);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.find('\r'), std::string::npos) << "a progress bar although not a terminal";
  EXPECT_NE(r.output.find("steps"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("drift"), std::string::npos) << r.output;

  const auto lines = lines_of(csv);
  ASSERT_EQ(lines.size(), 6u);  // header and t = 0, 0.25, 0.5, 0.75, 1
  EXPECT_EQ(lines[0], "t,q1,q2,dot(q1),dot(q2),T,V,E,p_x,p_y,p_z,L_x,L_y,L_z");
  std::istringstream first(lines[1]);
  std::vector<double> row;
  for (std::string cell; std::getline(first, cell, ',');) row.push_back(std::stod(cell));
  ASSERT_EQ(row.size(), 14u);
  EXPECT_EQ(row[0], 0.0);
  EXPECT_EQ(row[1], 0.8);  // the model's initial values
  EXPECT_EQ(row[4], 1.0);
  EXPECT_NEAR(row[5] + row[6], row[7], 1e-12);
  EXPECT_EQ(lines.back().rfind("1,", 0), 0u) << lines.back();
  // Every cell is written as 17 significant digits print it, so it reads back exactly.
  std::istringstream second(lines[2]);
  for (std::string cell; std::getline(second, cell, ',');) {
    std::ostringstream again;
    again << std::setprecision(17) << std::stod(cell);
    EXPECT_EQ(again.str(), cell);
  }
  EXPECT_EQ(lines[2].rfind("0.25,", 0), 0u) << lines[2];
}

TEST(SimulateCli, BadInitialValuesLengthIsUsageError) {
  const std::string csv = scratch("bad_q0.csv");
  std::filesystem::remove(csv);
  const Cli r = appell("simulate " + kExamples + "/double_pendulum.yaml --t-end 1 --q0 1,2,3 " +
                       "--out " + csv);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--q0: expected 2 values"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(csv)) << "a CSV was left behind by a usage error";
  EXPECT_EQ(
      appell("simulate " + kExamples + "/double_pendulum.yaml --t-end 1 --qd0 1 --out " + csv).code,
      2);
}

TEST(SimulateCli, UnknownInputNameIsUsageError) {
  const std::string cart = kExamples + "/spring_damper_cart.yaml";
  const std::string csv = scratch("cart.csv");
  const Cli r = appell("simulate " + cart + " --t-end 1 --input 'nosuch=sin(t)' --out " + csv);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("(nosuch)"), std::string::npos) << r.output;
  // The input the model has is accepted, and an unknown name inside the expression is not.
  EXPECT_EQ(appell("simulate " + cart + " --t-end 0.2 --input 'u=sin(2*t)' --out " + csv).code, 0);
  EXPECT_EQ(appell("simulate " + cart + " --t-end 0.2 --input 'u=x' --out " + csv).code, 2);
}

TEST(SimulateCli, BadNumbersAreUsageErrors) {
  const std::string model = kExamples + "/thread_pendulum.yaml";
  const std::string out = " --out " + scratch("bad.csv");
  EXPECT_EQ(appell("simulate " + model + " --t-end soon" + out).code, 2);
  EXPECT_EQ(appell("simulate " + model + " --t-end 1 --rtol -1" + out).code, 2);
  EXPECT_EQ(appell("simulate " + model + " --t-end 1 --output-step 0" + out).code, 2);
  EXPECT_EQ(appell("simulate " + model + " --t-end 1 --integrator euler" + out).code, 2);
  EXPECT_EQ(appell("simulate " + model + " --t-end 1 --q0 x" + out).code, 2);
}

TEST(SimulateCli, SingularMassMatrixExitsOneAndMarksTheCsvIncomplete) {
  const std::string model = scratch("massless.yaml");
  std::ofstream(model) << "name: massless\ncoordinates: [q]\nframes:\n  f: {rotation: rot_z(q)}\n"
                          "particles:\n  p: {frame: f, mass: 1, position: [0, 0, 0]}\n";
  const std::string csv = scratch("massless.csv");
  const Cli r = appell("simulate " + model + " --t-end 1 --out " + csv);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("integration stopped at t = 0: singular mass matrix"), std::string::npos)
      << r.output;
  const auto lines = lines_of(csv);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "t,q,dot(q),T,V,E,p_x,p_y,p_z,L_x,L_y,L_z");
  EXPECT_EQ(lines[1].rfind("0,", 0), 0u);
  EXPECT_EQ(lines[2].rfind("# incomplete: ", 0), 0u) << lines[2];
  EXPECT_NE(lines[2].find("singular mass matrix"), std::string::npos) << lines[2];
}

}  // namespace
