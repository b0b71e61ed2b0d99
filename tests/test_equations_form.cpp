// One equations shape (principles::Equations and its Form): the coordinates, the speeds and the
// minimal form evaluated, compared and simulated through the same types, and what each refuses.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "appell/io/equation_writer.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/model/source_location.hpp"
#include "appell/numeric/agreement.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/minimal_form.hpp"
#include "appell/principles/speed_form.hpp"

namespace {

using namespace appell;

const std::string examples = APPELL_EXAMPLES_DIR;

Eigen::VectorXd random_vector(std::mt19937& engine, std::size_t n) {
  std::uniform_real_distribution<double> any(-1.0, 1.0);
  Eigen::VectorXd v(static_cast<Eigen::Index>(n));
  for (auto& x : v) x = any(engine);
  return v;
}

// What solve() gives obeys its own definition in every form: M v̇ = f (+ Aᵀλ), q̇ = B v + β with
// q̈ = B v̇ + γ, and in the coordinates B = I, γ = 0, q̇ = v.
void expect_consistent(const principles::Equations& eq, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& v) {
  const num::CompiledEquations compiled(eq);
  EXPECT_EQ(compiled.form(), eq.form);
  ASSERT_EQ(compiled.dof(), eq.dof());
  ASSERT_EQ(compiled.size(), eq.size());
  const auto s = compiled.solve(0.4, q, v);
  Eigen::VectorXd residual = s.mass_matrix * s.vdot - s.forcing;
  if (s.lambda.size() > 0) residual -= s.constraint_matrix.transpose() * s.lambda;
  EXPECT_LT(residual.cwiseAbs().maxCoeff(), 1e-9 * (1.0 + s.forcing.cwiseAbs().maxCoeff()));
  EXPECT_LT((s.qdd - s.speed_matrix * s.vdot - s.acceleration_offset).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((compiled.velocities(0.4, q, v) - s.qd).cwiseAbs().maxCoeff(), 1e-12);
  if (eq.form == principles::Form::Coordinates) {
    EXPECT_TRUE(s.speed_matrix.isIdentity());
    EXPECT_TRUE(s.acceleration_offset.isZero());
    EXPECT_EQ(s.qd, v);
  }
}

TEST(EquationsForm, EveryFormSolvesAsItsDefinitionSays) {
  std::mt19937 engine(4);
  const auto sleigh = io::read_model_file(examples + "/chaplygin_sleigh.yaml");
  const auto box = io::read_model_file(examples + "/speeds/slotted_ball_joint.yaml");
  const auto coordinates = principles::derive(sleigh, principles::Method::GibbsAppell);
  const auto minimal = principles::minimal_form(sleigh);
  const auto speeds = principles::speed_form(box);
  EXPECT_EQ(coordinates.form, principles::Form::Coordinates);
  EXPECT_EQ(minimal.form, principles::Form::Minimal);
  EXPECT_EQ(speeds.form, principles::Form::Speeds);
  EXPECT_EQ(minimal.dof(), sleigh->dof());
  EXPECT_EQ(minimal.size(), sleigh->independent.size());
  EXPECT_EQ(speeds.dof(), box->dof());           // the quaternion's four coordinates ...
  EXPECT_EQ(speeds.size(), box->speeds.size());  // ... and its three speeds
  EXPECT_EQ(speeds.size() + 1, speeds.dof());
  for (int trial = 0; trial < 3; ++trial) {
    SCOPED_TRACE(trial);
    const Eigen::VectorXd q = random_vector(engine, sleigh->dof());
    expect_consistent(coordinates, q, random_vector(engine, sleigh->dof()));
    expect_consistent(minimal, q, random_vector(engine, minimal.size()));
    Eigen::VectorXd e = random_vector(engine, box->dof());
    expect_consistent(speeds, e / e.norm(), random_vector(engine, speeds.size()));
  }
}

TEST(EquationsForm, EntriesRoundTripInEveryForm) {
  const auto sleigh = io::read_model_file(examples + "/chaplygin_sleigh.yaml");
  const auto box = io::read_model_file(examples + "/speeds/slotted_ball_joint.yaml");
  for (const auto& eq : {principles::derive(sleigh, principles::Method::Lagrange),
                         principles::minimal_form(sleigh), principles::speed_form(box)}) {
    SCOPED_TRACE(principles::form_name(eq.form));
    GiNaC::exvector entries = eq.entries();
    std::size_t expected = eq.size() * eq.size() + eq.size();
    if (eq.has_speed_map())
      expected += eq.dof() * eq.size() + eq.dof() * (eq.form == principles::Form::Minimal ? 2 : 1);
    if (eq.constraint_count() > 0)
      expected +=
          eq.constraint_count() * (eq.size() + (eq.form == principles::Form::Speeds ? 2 : 1));
    EXPECT_EQ(entries.size(), expected);
    // Each entry doubled comes back doubled where it was: set_entries() reads entries()'s order.
    for (auto& e : entries) e = 2 * e;
    principles::Equations doubled = eq;
    doubled.set_entries(entries);
    EXPECT_TRUE((doubled.mass_matrix.sub(eq.mass_matrix.mul_scalar(2))).is_zero_matrix());
    EXPECT_TRUE((doubled.forcing.sub(eq.forcing.mul_scalar(2))).is_zero_matrix());
    if (eq.has_speed_map()) {
      EXPECT_TRUE(
          (doubled.acceleration_offset.sub(eq.acceleration_offset.mul_scalar(2))).is_zero_matrix());
    }
    if (eq.constraint_count() > 0) {
      EXPECT_TRUE((doubled.constraint_rhs.sub(eq.constraint_rhs.mul_scalar(2))).is_zero_matrix());
    }
  }
}

TEST(EquationsForm, CompareChoosesByTheFormsAndRefusesTheRest) {
  const auto sleigh = io::read_model_file(examples + "/chaplygin_sleigh.yaml");
  const auto coordinates = principles::derive(sleigh, principles::Method::Lagrange);
  const auto minimal = principles::minimal_form(sleigh);
  // The minimal form against the multiplier form it projects, and against itself.
  EXPECT_EQ(num::verdict(num::compare(coordinates, minimal)), num::AgreementVerdict::Equal);
  EXPECT_EQ(num::verdict(num::compare(minimal, principles::simplify(minimal))),
            num::AgreementVerdict::Equal);
  // A minimal form whose forcing is changed differs from the multiplier form, with a witness.
  principles::Equations wrong = minimal;
  wrong.forcing(0, 0) = wrong.forcing(0, 0) + 1;
  const auto differs = num::compare(coordinates, wrong, 20, /*symbolic=*/false);
  EXPECT_EQ(num::verdict(differs), num::AgreementVerdict::Differ);
  EXPECT_TRUE(differs.witness.has_value());
  // The reference is in the coordinates, or in the same form.
  try {
    num::compare(minimal, coordinates);
    ADD_FAILURE() << "the minimal form as the reference of the coordinates was compared";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("minimal"), std::string::npos) << e.what();
  }
}

TEST(EquationsForm, SimulateTakesSpeedsAndRefusesWhatDoesNotFit) {
  const auto sleigh = io::read_model_file(examples + "/chaplygin_sleigh.yaml");
  num::SimulationOptions options;
  options.t_end = 0.1;
  const auto ignore = [](const num::SimulationRow&) {};
  EXPECT_THROW(num::simulate(principles::minimal_form(sleigh), options, ignore),
               std::invalid_argument);
  // Initial speeds are for equations in speeds: located at u0 for the coordinates.
  options.u0 = {1.0, 2.0};
  try {
    num::simulate(principles::derive(sleigh, principles::Method::GibbsAppell), options, ignore);
    ADD_FAILURE() << "u0 was accepted for equations in the coordinates";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().file, "u0");
  }
  // In the speeds the rows carry u as v: a free box turned by a quaternion keeps its spin's
  // magnitude along the principal axis it spins about, and u̇ = 0 there.
  const auto box = io::read_model_file(examples + "/speeds/free_box_quaternion.yaml");
  options.u0.assign(box->speeds.size(), 0.0);
  options.u0[box->speeds.size() - 1] = 2.0;  // about the last axis of the body
  std::size_t rows = 0;
  num::simulate(principles::speed_form(box), options, [&](const num::SimulationRow& row) {
    ++rows;
    ASSERT_EQ(row.v.size(), static_cast<Eigen::Index>(box->speeds.size()));
    EXPECT_NEAR(row.v[row.v.size() - 1], 2.0, 1e-9);
    EXPECT_LT(row.vdot.cwiseAbs().maxCoeff(), 1e-9);
  });
  EXPECT_GT(rows, 1u);
}

}  // namespace
