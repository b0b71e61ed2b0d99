// The writers of numeric results: the simulation CSV, the driving-forces CSV (io/csv_writer.hpp)
// and the JSON of the equations at a state (io/state_writer.hpp), as `appell simulate`,
// `appell inverse` and `appell eval --json` write them.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "appell/io/csv_writer.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/io/state_writer.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/numeric/state_evaluation.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/minimal_form.hpp"

namespace {

using namespace appell;

// Two coordinates held on a circle by one constraint: the CSV gets a multiplier column.
constexpr const char* kCartesianPendulum = R"(
name: cartesian-pendulum
parameters: {m: 0.7, L: 1.3, g: 9.81}
coordinates:
  - {name: x, initial: L*sin(0.9)}
  - {name: y, initial: -L*cos(0.9)}
frames:
  bob: {translation: [x, y, 0]}
particles:
  p: {frame: bob, mass: m, position: [0, 0, 0]}
gravity: [0, -g, 0]
constraints:
  - {name: rod, holonomic: "x*x + y*y - L*L"}
)";

std::shared_ptr<const model::Model> pendulum() {
  return io::parse_model(kCartesianPendulum, "cartesian.yaml");
}

std::shared_ptr<const model::Model> example(const std::string& name) {
  return io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + name);
}

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::path(testing::TempDir()) / "appell_result_writers";
  std::filesystem::create_directories(dir);
  return dir / name;
}

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<double> cells_of(const std::string& line) {
  std::vector<double> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(std::stod(cell));
  return cells;
}

Eigen::VectorXd vector(std::initializer_list<double> values) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(values.size()));
  Eigen::Index k = 0;
  for (double x : values) v[k++] = x;
  return v;
}

// ----- the simulation CSV ---------------------------------------------------------------------

TEST(SimulationCsv, HeaderHasCoordinatesSpeedsEnergiesAndMultipliers) {
  EXPECT_EQ(io::simulation_csv_header(*pendulum()), "t,x,y,dot(x),dot(y),T,V,E,lambda_rod");
  EXPECT_EQ(io::simulation_csv_header(*example("planar_2r.yaml")), "t,q1,q2,dot(q1),dot(q2),T,V,E");
}

TEST(SimulationCsv, RowHasSeventeenSignificantDigits) {
  const Eigen::VectorXd q = vector({1.0, -0.25}), qd = vector({0.1, 1.0 / 3.0});
  const Eigen::VectorXd qdd = vector({0.0, 0.0}), lambda = vector({-2.5});
  std::ostringstream out;
  io::write_simulation_csv_row(
      out, num::SimulationRow{0.5, q, qd, 2.0, -1.0, 1.0, qdd, lambda, qd, qdd});
  EXPECT_EQ(out.str(), "0.5,1,-0.25,0.10000000000000001,0.33333333333333331,2,-1,1,-2.5\n");
  // Every number reads back as the double it was.
  const auto cells = cells_of(out.str());
  ASSERT_EQ(cells.size(), 9u);
  EXPECT_EQ(cells[3], 0.1);
  EXPECT_EQ(cells[4], 1.0 / 3.0);
}

TEST(SimulationCsv, IncompleteMarkIsOneCommentLine) {
  std::ostringstream out;
  io::write_incomplete_mark(out, "CVODE failed\nat t = 1\r\n");
  EXPECT_EQ(out.str(), "# incomplete: CVODE failed at t = 1  \n");
}

TEST(SimulationCsv, FileOfAConstrainedSimulationReadsBackAsTheRows) {
  const auto model = pendulum();
  const auto equations = principles::derive(model, principles::Method::GibbsAppell);
  num::SimulationOptions options;
  options.t_end = 0.3;
  options.output_step = 0.1;
  const auto path = scratch("pendulum.csv");
  std::filesystem::remove(path);
  io::SimulationCsvFile csv(path.string(), *model);
  EXPECT_FALSE(std::filesystem::exists(path)) << "created before the first row";

  std::vector<std::vector<double>> delivered;
  num::simulate(equations, options, [&](const num::SimulationRow& row) {
    std::vector<double> cells{row.t, row.q[0], row.q[1], row.qd[0], row.qd[1]};
    cells.insert(cells.end(), {row.kinetic, row.potential, row.total, row.lambda[0]});
    delivered.push_back(cells);
    csv.row(row);
  });
  csv.close();
  EXPECT_EQ(csv.rows(), delivered.size());

  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 1 + delivered.size());
  EXPECT_EQ(lines[0], "t,x,y,dot(x),dot(y),T,V,E,lambda_rod");
  ASSERT_EQ(delivered.size(), 4u);  // t = 0, 0.1, 0.2, 0.3
  for (std::size_t k = 0; k < delivered.size(); ++k)
    EXPECT_EQ(cells_of(lines[k + 1]), delivered[k]) << lines[k + 1];
  // The multiplier holds the bob: λ = −T/(2L) < 0 for a taut rod.
  EXPECT_LT(delivered[0][8], 0.0);
}

TEST(SimulationCsv, MarkWithoutRowsWritesTheHeaderFirst) {
  const auto path = scratch("no_rows.csv");
  io::SimulationCsvFile csv(path.string(), *pendulum());
  csv.mark_incomplete("the initial state cannot be brought onto the constraints");
  csv.close();
  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "t,x,y,dot(x),dot(y),T,V,E,lambda_rod");
  EXPECT_EQ(lines[1], "# incomplete: the initial state cannot be brought onto the constraints");
}

TEST(SimulationCsv, AnUnwritablePathIsAModelErrorAtThePath) {
  const std::string path = scratch("no_such_folder").string() + "/out.csv";
  io::SimulationCsvFile csv(path, *pendulum());
  const Eigen::VectorXd q = vector({1.0, 0.0}), none(0);
  try {
    csv.row(num::SimulationRow{0.0, q, q, 0.0, 0.0, 0.0, q, none, q, q});
    FAIL() << "expected a ModelError";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().file, path);
    // "PATH: cannot write the file: REASON" (io::OutputFile: the system's reason).
    EXPECT_EQ(std::string(e.what()).rfind(path + ": cannot write the file", 0), 0u) << e.what();
  }
}

// ----- the driving-forces CSV -----------------------------------------------------------------

TEST(DrivingForcesCsv, RowsAreTheInverseDynamicsAlongTheTrajectory) {
  const auto model = example("planar_2r.yaml");
  EXPECT_EQ(io::driving_forces_csv_header(*model), "t,Q_q1,Q_q2");
  const auto equations = principles::derive(model, principles::Method::GibbsAppell);
  const num::InverseDynamics inverse(equations);
  const num::Trajectory trajectory("q1 = sin(t); q2 = t^2", *model);

  std::ostringstream out;
  EXPECT_EQ(io::write_driving_forces_csv(out, *model, inverse, trajectory, 4, 0.25), 4u);
  std::stringstream in(out.str());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "t,Q_q1,Q_q2");
  for (int k = 0; k < 4; ++k) {
    ASSERT_TRUE(std::getline(in, line));
    const auto s = trajectory.sample(0.25 * k);
    const Eigen::VectorXd Q = inverse.driving_forces(s.t, s.q, s.qd, s.qdd);
    EXPECT_EQ(cells_of(line), (std::vector<double>{0.25 * k, Q[0], Q[1]})) << line;
  }
  EXPECT_FALSE(std::getline(in, line)) << line;

  // Samples given one by one write the same bytes.
  std::vector<num::TrajectorySample> samples;
  for (int k = 0; k < 4; ++k) samples.push_back(trajectory.sample(0.25 * k));
  std::ostringstream again;
  io::write_driving_forces_csv(again, *model, inverse, samples);
  EXPECT_EQ(again.str(), out.str());
}

TEST(DrivingForcesCsv, ANonFiniteSampleEndsTheFileIncomplete) {
  const auto model = example("planar_2r.yaml");
  const num::InverseDynamics inverse(principles::derive(model, principles::Method::Lagrange));
  // q̇1 = −1/(2√(1−t)) is infinite at t = 1: rows at t = 0 and 0.5, then the mark.
  const num::Trajectory trajectory("q1 = sqrt(1-t); q2 = 0", *model);
  std::ostringstream out;
  try {
    io::write_driving_forces_csv(out, *model, inverse, trajectory, 5, 0.5);
    FAIL() << "expected an IncompleteCsvError";
  } catch (const io::IncompleteCsvError& e) {
    EXPECT_EQ(e.rows_written(), 2u);
    EXPECT_EQ(std::string(e.what()), "the motion or the driving forces are not finite at t = 1");
  }
  std::stringstream in(out.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "t,Q_q1,Q_q2");
  EXPECT_EQ(lines[1].rfind("0,", 0), 0u);
  EXPECT_EQ(lines[2].rfind("0.5,", 0), 0u);
  EXPECT_EQ(lines[3], "# incomplete: the motion or the driving forces are not finite at t = 1");
}

// ----- the JSON of the equations at a state ---------------------------------------------------

std::vector<double> numbers(const nlohmann::json& array) {
  return array.get<std::vector<double>>();
}

TEST(StateJson, ParsesBackToTheCompiledEquationsNumbers) {
  const auto model = example("planar_2r.yaml");
  const num::CompiledEquations compiled(principles::derive(model, principles::Method::GibbsAppell));
  const Eigen::VectorXd q = vector({0.3, -0.5}), qd = vector({1.0, 0.0});
  const num::StateEvaluation state = num::evaluate_state(compiled, 0.25, q, qd);

  Eigen::MatrixXd M;
  Eigen::VectorXd f;
  compiled.evaluate(0.25, q, qd, M, f);
  const Eigen::VectorXd qdd = compiled.accelerations(M, f);

  const std::string text = io::write_state_json(*model, state);
  EXPECT_EQ(text.find('\n'), std::string::npos) << "one line";
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j.size(), 7u) << "no lambda without constraints, no limits: " << text;
  EXPECT_FALSE(j.contains("lambda"));
  EXPECT_FALSE(j.contains("limits"));
  EXPECT_EQ(j["coordinates"], nlohmann::json::array({"q1", "q2"}));
  EXPECT_EQ(j["t"].get<double>(), 0.25);
  EXPECT_EQ(numbers(j["q"]), (std::vector<double>{0.3, -0.5}));
  EXPECT_EQ(numbers(j["qd"]), (std::vector<double>{1.0, 0.0}));
  ASSERT_EQ(j["mass_matrix"].size(), 2u);
  for (Eigen::Index i = 0; i < 2; ++i) {
    EXPECT_EQ(numbers(j["mass_matrix"][static_cast<std::size_t>(i)]),
              (std::vector<double>{M(i, 0), M(i, 1)}));
    EXPECT_EQ(j["forcing"][static_cast<std::size_t>(i)].get<double>(), f[i]);
    EXPECT_EQ(j["qdd"][static_cast<std::size_t>(i)].get<double>(), qdd[i]);
  }
  // The keys in alphabetical order, as `appell eval --json` has always printed them.
  EXPECT_EQ(text.rfind("{\"coordinates\":[", 0), 0u) << text;
  EXPECT_LT(text.find("\"coordinates\""), text.find("\"forcing\""));
  EXPECT_LT(text.find("\"mass_matrix\""), text.find("\"q\""));
}

TEST(StateJson, ConstraintsAddTheMultipliers) {
  const auto model = pendulum();
  const num::CompiledEquations compiled(principles::derive(model, principles::Method::Lagrange));
  const double L = 1.3;
  const Eigen::VectorXd q = vector({L * std::sin(0.9), -L * std::cos(0.9)});
  const Eigen::VectorXd qd = vector({0.0, 0.0});
  const num::StateEvaluation state = num::evaluate_state(compiled, 0.0, q, qd);
  ASSERT_EQ(state.lambda.size(), 1);
  EXPECT_EQ(state.constraint_matrix.rows(), 1);

  const auto j = nlohmann::json::parse(io::write_state_json(*model, state));
  ASSERT_TRUE(j.contains("lambda"));
  EXPECT_EQ(numbers(j["lambda"]), (std::vector<double>{state.lambda[0]}));
  // At rest the rod carries the weight's radial part: T = m g cos θ, λ = −T/(2L).
  EXPECT_NEAR(state.lambda[0], -0.7 * 9.81 * std::cos(0.9) / (2 * L), 1e-12);
  // M q̈ = f + Aᵀλ and A q̈ = b hold.
  EXPECT_LT((state.mass_matrix * state.qdd - state.forcing -
             state.constraint_matrix.transpose() * state.lambda)
                .norm(),
            1e-12);
  EXPECT_LT((state.constraint_matrix * state.qdd - state.constraint_rhs).norm(), 1e-12);
}

TEST(StateJson, WrongStateSizesAreRejected) {
  const num::CompiledEquations compiled(
      principles::derive(example("planar_2r.yaml"), principles::Method::GibbsAppell));
  EXPECT_THROW(num::evaluate_state(compiled, 0.0, vector({1.0}), vector({1.0, 2.0})),
               std::invalid_argument);
}

TEST(StateJson, MinimalFormNamesTheIndependentSpeeds) {
  const auto model = example("slider_crank.yaml");
  const auto minimal = principles::minimal_form(model);
  const num::CompiledEquations compiled(minimal);
  Eigen::VectorXd q(3);
  for (Eigen::Index j = 0; j < 3; ++j) q[j] = model->coordinates[std::size_t(j)].initial;
  const auto state = compiled.solve(0.0, q, vector({2.0}));

  const auto j = nlohmann::json::parse(io::write_minimal_state_json(*model, 0.0, q, state));
  EXPECT_EQ(j["independent"], nlohmann::json::array({"q1"}));
  EXPECT_EQ(j["coordinates"].size(), 3u);
  EXPECT_EQ(numbers(j["q"]), (std::vector<double>{q[0], q[1], q[2]}));
  EXPECT_EQ(numbers(j["qd"]), (std::vector<double>{state.qd[0], state.qd[1], state.qd[2]}));
  EXPECT_EQ(j["qd"][0].get<double>(), 2.0);
  EXPECT_EQ(numbers(j["qdd"]), (std::vector<double>{state.qdd[0], state.qdd[1], state.qdd[2]}));
  ASSERT_EQ(j["mass_matrix"].size(), 1u);
  EXPECT_EQ(numbers(j["mass_matrix"][0]), (std::vector<double>{state.mass_matrix(0, 0)}));
  EXPECT_EQ(numbers(j["forcing"]), (std::vector<double>{state.forcing[0]}));
  EXPECT_FALSE(j.contains("lambda"));
}

}  // namespace
