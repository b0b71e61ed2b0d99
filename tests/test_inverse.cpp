// Inverse dynamics: the seed 000 robot's driving forces against their closed form, consistency
// with the forward dynamics, the trajectory and CSV readers' errors, and `appell inverse`.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/inverse_dynamics.hpp"
#include "appell/principles/derive.hpp"
#include "support/run_cli.hpp"

namespace {

using appell::model::ModelError;
using appell::num::InverseDynamics;
using appell::num::Trajectory;

const std::string robot_path = std::string(APPELL_EXAMPLES_DIR) + "/planar_2r.yaml";

std::shared_ptr<const appell::model::Model> robot() {
  static const auto model = appell::io::read_model_file(robot_path);
  return model;
}

// The seed 000 robot (two homogeneous rods of mass M and length l, a load M_S·g down at the tip)
// by hand. Link 1's centre of mass is at (l/2)(cos q1, sin q1), link 2's at l(cos q1, sin q1) +
// (l/2)(cos(q1+q2), sin(q1+q2)); each rod has M l²/12 about its centre. Hence
//   M11 = M l² (1/3 + 1 + 1/4 + 2·½cos q2 + 1/12) = M l² (5/3 + cos q2),
//   M12 = M l² (1/4 + ½cos q2 + 1/12) = M l² (1/3 + ½cos q2),  M22 = M l² (1/4 + 1/12) = M l²/3,
// the velocity terms follow from ∂M11/∂q2 = −M l² sin q2, and gravity plus the tip load from
// V = M g (l/2) sin q1 + M g (l sin q1 + (l/2) sin(q1+q2)) + M_S g (l sin q1 + l sin(q1+q2)).
Eigen::Vector2d closed_form(double q1, double q2, double qd1, double qd2, double qdd1,
                            double qdd2) {
  const double M = 1.0, l = 0.5, M_S = 0.2, g = 9.81;
  const double c2 = std::cos(q2), s2 = std::sin(q2), c1 = std::cos(q1), c12 = std::cos(q1 + q2);
  Eigen::Vector2d Q;
  Q[0] = M * l * l *
             ((5.0 / 3.0 + c2) * qdd1 + (1.0 / 3.0 + 0.5 * c2) * qdd2 -
              s2 * (qd1 * qd2 + 0.5 * qd2 * qd2)) +
         1.5 * M * g * l * c1 + 0.5 * M * g * l * c12 + M_S * g * l * (c1 + c12);
  Q[1] = M * l * l * ((1.0 / 3.0 + 0.5 * c2) * qdd1 + qdd2 / 3.0 + 0.5 * s2 * qd1 * qd1) +
         0.5 * M * g * l * c12 + M_S * g * l * c12;
  return Q;
}

const std::string seed_motion = "q1 = sin(t); q2 = 0.5*cos(2*t)";

TEST(Inverse, Seed000RobotMatchesTheClosedFormByBothMethods) {
  for (const auto method :
       {appell::principles::Method::GibbsAppell, appell::principles::Method::Lagrange}) {
    const InverseDynamics inverse(appell::principles::derive(robot(), method));
    const Trajectory motion(seed_motion, *robot());
    for (double t = 0.0; t <= 6.0; t += 0.37) {
      const auto s = motion.sample(t);
      // The motion itself, differentiated by hand.
      EXPECT_NEAR(s.q[0], std::sin(t), 1e-15);
      EXPECT_NEAR(s.qd[0], std::cos(t), 1e-15);
      EXPECT_NEAR(s.qdd[0], -std::sin(t), 1e-15);
      EXPECT_NEAR(s.q[1], 0.5 * std::cos(2 * t), 1e-15);
      EXPECT_NEAR(s.qd[1], -std::sin(2 * t), 1e-15);
      EXPECT_NEAR(s.qdd[1], -2.0 * std::cos(2 * t), 1e-15);

      const Eigen::VectorXd Q = inverse.driving_forces(t, s.q, s.qd, s.qdd);
      const Eigen::Vector2d expected =
          closed_form(std::sin(t), 0.5 * std::cos(2 * t), std::cos(t), -std::sin(2 * t),
                      -std::sin(t), -2.0 * std::cos(2 * t));
      ASSERT_EQ(Q.size(), 2);
      EXPECT_NEAR(Q[0], expected[0], 1e-12) << "t = " << t;
      EXPECT_NEAR(Q[1], expected[1], 1e-12) << "t = " << t;
    }
  }
}

TEST(Inverse, ForwardOfInverseGivesBackTheAccelerations) {
  const InverseDynamics inverse(
      appell::principles::derive(robot(), appell::principles::Method::GibbsAppell), {{"M", 2.5}});
  const auto& forward = inverse.compiled();
  std::srand(7);
  auto random = [] { return 4.0 * std::rand() / RAND_MAX - 2.0; };
  for (int k = 0; k < 50; ++k) {
    const double t = random();
    const Eigen::Vector2d q(random(), random()), qd(random(), random()), qdd(random(), random());
    const Eigen::VectorXd Q = inverse.driving_forces(t, q, qd, qdd);
    Eigen::MatrixXd M;
    Eigen::VectorXd f;
    forward.evaluate(t, q, qd, M, f);
    // Applying Q on top of the model's own forces: M q̈ = f + Q.
    const Eigen::VectorXd back = forward.accelerations(M, f + Q);
    EXPECT_LT((back - qdd).norm(), 1e-11 * (1.0 + qdd.norm())) << "state " << k;
  }
}

TEST(Inverse, TrajectoryUsesParametersAndTheirOverrides) {
  const Trajectory motion("q2 = l*t^2 ;q1=g ;", *robot(), {{"l", 2.0}});
  const auto s = motion.sample(3.0);
  EXPECT_DOUBLE_EQ(s.q[0], 9.81);
  EXPECT_DOUBLE_EQ(s.qd[0], 0.0);
  EXPECT_DOUBLE_EQ(s.q[1], 18.0);
  EXPECT_DOUBLE_EQ(s.qd[1], 12.0);
  EXPECT_DOUBLE_EQ(s.qdd[1], 4.0);
  // A name the model does not have is an error (model::bind), never silently ignored.
  EXPECT_THROW(Trajectory("q2 = t; q1 = 0", *robot(), {{"not_a_parameter", 1.0}}), ModelError);
}

std::string trajectory_error(const std::string& text) {
  try {
    Trajectory(text, *robot());
  } catch (const ModelError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Inverse, TrajectoryErrorsNameTheOffendingCoordinate) {
  // Located in "trajectory" (the CLI relocates them at --trajectory: InverseCli below).
  EXPECT_EQ(trajectory_error("q1=sin(t); q3=t"), "trajectory:1:12: unknown coordinate (q3)");
  EXPECT_EQ(trajectory_error("q1=sin(t)"), "trajectory: missing coordinate (q2)");
  EXPECT_EQ(trajectory_error("q1=t; q2=t; q1=0"), "trajectory:1:13: coordinate given twice (q1)");
  EXPECT_EQ(trajectory_error("q1=t; q2"), "trajectory:1:7: expected COORDINATE=EXPRESSION (q2)");
  // The expression parser's own errors point into the text too.
  EXPECT_NE(trajectory_error("q1=t; q2=sin(q1)").find("trajectory:1:"), std::string::npos);
  EXPECT_NE(trajectory_error("q1=t; q2=2*"), "no error");
}

std::filesystem::path temp_dir() {
  const auto dir = std::filesystem::temp_directory_path() / "appell_inverse_tests";
  std::filesystem::create_directories(dir);
  return dir;
}

std::string write_file(const std::string& name, const std::string& text) {
  const auto path = temp_dir() / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string csv_error(const std::string& path) {
  try {
    appell::num::read_trajectory_csv(path, *robot());
  } catch (const ModelError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Inverse, CsvHeaderIsDocumentedAndRowsAreRead) {
  EXPECT_EQ(appell::num::trajectory_csv_header(*robot()),
            "t,q1,q2,dot(q1),dot(q2),ddot(q1),ddot(q2)");
  const auto path = write_file("good.csv",
                               "t, q1, q2, dot(q1), dot(q2), ddot(q1), ddot(q2)\r\n"
                               "# a comment\n"
                               "0,1,2,3,4,5,6\n"
                               "\n"
                               "0.5, +1e-3 ,-2,3,4,5,6.25\n");
  const auto rows = appell::num::read_trajectory_csv(path, *robot());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].t, 0.5);
  EXPECT_EQ(rows[1].q[0], 1e-3);
  EXPECT_EQ(rows[1].q[1], -2.0);
  EXPECT_EQ(rows[1].qd[1], 4.0);
  EXPECT_EQ(rows[1].qdd[1], 6.25);
}

TEST(Inverse, CsvErrorsAreLocated) {
  const std::string header = "t,q1,q2,dot(q1),dot(q2),ddot(q1),ddot(q2)\n";
  const auto bad_header = write_file("bad_header.csv", "t,q1,q2,dot(q1),ddot(q1),dot(q2)\n");
  EXPECT_EQ(csv_error(bad_header).rfind(bad_header + ":1:17: expected column 'dot(q2)'", 0), 0u)
      << csv_error(bad_header);
  const auto short_row = write_file("short_row.csv", header + "0,1,2,3,4,5,6\n0,1,2,3,4,5\n");
  EXPECT_EQ(csv_error(short_row), short_row + ":3:12: expected 7 cells, got 6");
  const auto long_row = write_file("long_row.csv", header + "0,1,2,3,4,5,6,7\n");
  EXPECT_EQ(csv_error(long_row), long_row + ":2:15: expected 7 cells, got 8");
  const auto not_number = write_file("not_number.csv", header + "0,1,2,3,x4,5,6\n");
  EXPECT_EQ(csv_error(not_number), not_number + ":2:9: not a finite number (x4)");
  const auto infinite = write_file("infinite.csv", header + "0,1,2,3,4,inf,6\n");
  EXPECT_EQ(csv_error(infinite), infinite + ":2:11: not a finite number (inf)");
  const auto empty_cell = write_file("empty_cell.csv", header + "0,1,,3,4,5,6\n");
  EXPECT_EQ(csv_error(empty_cell), empty_cell + ":2:5: not a finite number");
  const auto no_rows = write_file("no_rows.csv", header);
  EXPECT_EQ(csv_error(no_rows), no_rows + ":2:1: no rows after the header");
  const std::string missing = (temp_dir() / "missing.csv").string();
  EXPECT_EQ(csv_error(missing), missing + ": no such trajectory file");
}

using appell::test_support::CliRun;
using appell::test_support::run_cli;

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<double> numbers_of(const std::string& line) {
  std::vector<double> values;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) values.push_back(std::stod(cell));
  return values;
}

TEST(InverseCli, TrajectoryGivesHeaderRowsAndTheClosedForm) {
  const std::string out = (temp_dir() / "seed.csv").string();
  const CliRun r = run_cli("inverse " + robot_path + " --trajectory '" + seed_motion +
                           "' --t-end 1 --output-step 0.1 --out " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto lines = lines_of(out);
  ASSERT_EQ(lines.size(), 12u);  // header and t = 0, 0.1, ..., 1 inclusive
  EXPECT_EQ(lines[0], "t,Q_q1,Q_q2");
  for (std::size_t k = 1; k < lines.size(); ++k) {
    const auto v = numbers_of(lines[k]);
    ASSERT_EQ(v.size(), 3u) << lines[k];
    const double t = static_cast<double>(k - 1) * 0.1;
    EXPECT_EQ(v[0], t);  // t_k = k·H exactly, printed with 17 digits
    const Eigen::Vector2d expected =
        closed_form(std::sin(t), 0.5 * std::cos(2 * t), std::cos(t), -std::sin(2 * t), -std::sin(t),
                    -2.0 * std::cos(2 * t));
    EXPECT_NEAR(v[1], expected[0], 1e-12);
    EXPECT_NEAR(v[2], expected[1], 1e-12);
  }
  // T not a multiple of H: the last row is the last multiple below T.
  const CliRun lagrange =
      run_cli("inverse " + robot_path + " --trajectory '" + seed_motion +
              "' --t-end 0.25 --output-step 0.1 --method lagrange --out " + out);
  ASSERT_EQ(lagrange.code, 0) << lagrange.out;
  EXPECT_EQ(lines_of(out).size(), 4u);
}

TEST(InverseCli, FromCsvUsesTheRowsTimes) {
  const std::string in =
      write_file("motion.csv",
                 "t,q1,q2,dot(q1),dot(q2),ddot(q1),ddot(q2)\n0.25,0.3,-0.7,1.1,0.4,0.2,-1\n"
                 "2,0,0,0,0,0,0\n");
  const std::string out = (temp_dir() / "from_csv.csv").string();
  const CliRun r = run_cli("inverse " + robot_path + " --from-csv " + in + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto lines = lines_of(out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "t,Q_q1,Q_q2");
  const auto v = numbers_of(lines[1]);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0], 0.25);
  const Eigen::Vector2d expected = closed_form(0.3, -0.7, 1.1, 0.4, 0.2, -1.0);
  EXPECT_NEAR(v[1], expected[0], 1e-12);
  EXPECT_NEAR(v[2], expected[1], 1e-12);
}

TEST(InverseCli, BadInputExitsTwoWithTheOffender) {
  const std::string out = (temp_dir() / "never.csv").string();
  const std::string base = "inverse " + robot_path + " --t-end 1 --output-step 0.1 --out " + out;
  const CliRun unknown = run_cli(base + " --trajectory 'q1=t; q3=t'");
  EXPECT_EQ(unknown.code, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("--trajectory:1:7: unknown coordinate (q3)"), std::string::npos)
      << unknown.out;
  const CliRun missing = run_cli(base + " --trajectory 'q1=t'");
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_NE(missing.out.find("--trajectory: missing coordinate (q2)"), std::string::npos)
      << missing.out;
  const CliRun step = run_cli("inverse " + robot_path +
                              " --trajectory 'q1=t; q2=t' --t-end 1 --output-step 0 --out " + out);
  EXPECT_EQ(step.code, 2) << step.out;
  EXPECT_NE(step.out.find("--output-step"), std::string::npos) << step.out;
  const CliRun both = run_cli(base + " --trajectory 'q1=t; q2=t' --from-csv x.csv");
  EXPECT_EQ(both.code, 2) << both.out;

  const std::string bad_csv =
      write_file("cli_bad.csv", "t,q1,q2,dot(q1),dot(q2),ddot(q1),ddot(q2)\n0,1,2,3,4,5,six\n");
  const CliRun csv = run_cli("inverse " + robot_path + " --from-csv " + bad_csv + " --out " + out);
  EXPECT_EQ(csv.code, 2) << csv.out;
  EXPECT_NE(csv.out.find(bad_csv + ":2:13: not a finite number (six)"), std::string::npos)
      << csv.out;
}

TEST(InverseCli, NonFiniteForcesExitOneAndMarkTheFileIncomplete) {
  const std::string out = (temp_dir() / "incomplete.csv").string();
  const CliRun r =
      run_cli("inverse " + robot_path +
              " --trajectory 'q1=sqrt(1-t); q2=0' --t-end 2 --output-step 0.5 --out " + out);
  EXPECT_EQ(r.code, 1) << r.out;
  const auto lines = lines_of(out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().rfind("# incomplete:", 0), 0u) << lines.back();
}

}  // namespace
