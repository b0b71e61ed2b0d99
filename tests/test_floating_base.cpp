// A URDF robot on a floating base as docs/urdf.md shows it (issue 27, item 5): the satellite with
// a two-link arm, run by the commands printed there, conserves its momenta in zero gravity (they
// equal the sums worked out here by hand at the start) and its centre of mass falls with g under
// gravity, read from the URDF and from the model file `appell import` writes. A floating base
// without mass that one joint leaves (two_link.urdf's) has a singular mass matrix in every state:
// it is refused at the root link, naming the fix, while a massless base fixed to a massive link,
// or one that two joints leave, is read. A simulation that stops at a singular state still
// prints finite momenta.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "appell/io/urdf_reader.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/principles/speed_form.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

using namespace appell;
using Eigen::Vector3d;

const std::string examples = APPELL_EXAMPLES_DIR;
const std::string satellite = examples + "/urdf/satellite_arm.urdf";
// docs/urdf.md's initial speeds: base_vx, vy, vz, wx, wy, wz, dot(shoulder), dot(elbow).
const std::string u0 = "0.2,0.1,-0.3,0.5,-1.2,0.8,2,-1.5";

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
  std::string comments;  // the lines starting with '#'

  std::size_t column(const std::string& name) const {
    for (std::size_t k = 0; k < header.size(); ++k)
      if (header[k] == name) return k;
    ADD_FAILURE() << "no column " << name;
    return 0;
  }
  Vector3d vector(std::size_t row, const std::string& prefix) const {
    return {rows[row][column(prefix + "_x")], rows[row][column(prefix + "_y")],
            rows[row][column(prefix + "_z")]};
  }
};

Csv read_csv(const std::string& path) {
  Csv csv;
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return csv;
  std::istringstream names(line);
  for (std::string cell; std::getline(names, cell, ',');) csv.header.push_back(cell);
  while (std::getline(in, line)) {
    if (line.starts_with("#")) {
      csv.comments += line + "\n";
      continue;
    }
    std::istringstream cells(line);
    std::vector<double> row;
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
    csv.rows.push_back(row);
  }
  return csv;
}

bool all_finite(const Csv& csv) {
  for (const auto& row : csv.rows)
    for (double v : row)
      if (!std::isfinite(v)) return false;
  return true;
}

// The momenta about the world origin of satellite_arm.urdf in its initial pose (base at the
// origin, its axes the world's, both joints at 0) moving with docs/urdf.md's speeds, summed body
// by body: p = Σ m v, L = Σ (r × m v + I ω).
void satellite_momenta_by_hand(Vector3d& p, Vector3d& L) {
  const Vector3d v(0.2, 0.1, -0.3), w(0.5, -1.2, 0.8), y = Vector3d::UnitY();
  const double shoulder_rate = 2.0, elbow_rate = -1.5;
  const Vector3d shoulder(0, 0, -0.3), elbow(0, 0, -0.8);
  struct Part {
    double mass;
    Vector3d com, inertia, velocity, rate;
  };
  const Vector3d upper_com(0, 0, -0.55), lower_com(0, 0, -1.05);
  const Part parts[] = {
      {10.0, Vector3d::Zero(), Vector3d(0.6, 0.6, 0.6), v, w},
      {1.0, upper_com, Vector3d(0.0052, 0.0052, 0.0001),
       v + w.cross(upper_com) + (shoulder_rate * y).cross(upper_com - shoulder),
       w + shoulder_rate * y},
      {0.5, lower_com, Vector3d(0.0026, 0.0026, 0.00005),
       v + w.cross(lower_com) + (shoulder_rate * y).cross(lower_com - shoulder) +
           (elbow_rate * y).cross(lower_com - elbow),
       w + (shoulder_rate + elbow_rate) * y},
  };
  p.setZero();
  L.setZero();
  for (const auto& part : parts) {
    p += part.mass * part.velocity;
    L += part.com.cross(part.mass * part.velocity) + part.inertia.cwiseProduct(part.rate);
  }
}

using FloatingBaseCli = test_support::ScratchDirTest;

TEST_F(FloatingBaseCli, TheDocumentedExampleConservesMomentaInZeroGravity) {
  const auto derived = test_support::run_cli("derive " + satellite + " --floating-base");
  ASSERT_EQ(derived.code, 0) << derived.out;
  EXPECT_NE(derived.out.find("dot(base_e0) = "), std::string::npos) << derived.out;

  const std::string csv_path = (dir_ / "floating.csv").string();
  const auto simulated =
      test_support::run_cli("simulate " + satellite + " --floating-base --gravity 0,0,0 " +
                            "--t-end 3 --u0 " + u0 + " --out " + csv_path);
  ASSERT_EQ(simulated.code, 0) << simulated.out;
  const Csv csv = read_csv(csv_path);
  ASSERT_EQ(csv.rows.size(), 301u);
  EXPECT_TRUE(all_finite(csv));
  EXPECT_EQ(csv.comments, "");
  EXPECT_DOUBLE_EQ(csv.rows.back()[0], 3.0);

  Vector3d p, L;
  satellite_momenta_by_hand(p, L);
  EXPECT_LT((csv.vector(0, "p") - p).norm(), 1e-12) << csv.vector(0, "p").transpose();
  EXPECT_LT((csv.vector(0, "L") - L).norm(), 1e-12) << csv.vector(0, "L").transpose();
  // No external force: p and L stay what they were, to the integrator's tolerance (1e-8), while
  // the arm and the base exchange them (the base's speeds change).
  double worst_p = 0, worst_L = 0, base_change = 0;
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    worst_p = std::max(worst_p, (csv.vector(r, "p") - p).norm());
    worst_L = std::max(worst_L, (csv.vector(r, "L") - L).norm());
    base_change = std::max(base_change, std::abs(csv.rows[r][csv.column("base_wz")] - 0.8));
  }
  EXPECT_LT(worst_p, 1e-6);
  EXPECT_LT(worst_L, 1e-6);
  EXPECT_GT(base_change, 0.1);

  // The model file import writes moves the same: the same rows, to the byte.
  const std::string yaml = (dir_ / "floating.yaml").string();
  const auto imported = test_support::run_cli("import " + satellite +
                                              " --floating-base --gravity 0,0,0 --out " + yaml);
  ASSERT_EQ(imported.code, 0) << imported.out;
  const std::string again = (dir_ / "again.csv").string();
  const auto from_file =
      test_support::run_cli("simulate " + yaml + " --t-end 3 --u0 " + u0 + " --out " + again);
  ASSERT_EQ(from_file.code, 0) << from_file.out;
  const Csv reread = read_csv(again);
  ASSERT_EQ(reread.rows.size(), csv.rows.size());
  for (std::size_t r = 0; r < csv.rows.size(); ++r)
    for (std::size_t k = 0; k < csv.header.size(); ++k)
      EXPECT_NEAR(reread.rows[r][k], csv.rows[r][k], 1e-9) << csv.header[k] << " row " << r;
}

TEST_F(FloatingBaseCli, UnderGravityTheCentreOfMassFallsWithG) {
  const double g = 9.81, mass = 11.5;  // base 10, upper 1, lower 0.5
  // At rest everything falls with g and nothing turns.
  const auto at_rest = test_support::run_cli("eval " + satellite + " --floating-base --json");
  ASSERT_EQ(at_rest.code, 0) << at_rest.out;
  const auto j = nlohmann::json::parse(at_rest.out);
  const auto qdd = j["qdd"].get<std::vector<double>>();
  ASSERT_EQ(qdd.size(), 9u);
  for (std::size_t k = 0; k < qdd.size(); ++k)
    EXPECT_NEAR(qdd[k], k == 2 ? -g : 0.0, 1e-12) << j["coordinates"][k];

  // Moving: p changes by the weight's impulse, -M g t along z, whatever the arm does.
  const std::string csv_path = (dir_ / "falling.csv").string();
  const auto simulated = test_support::run_cli(
      "simulate " + satellite + " --floating-base --t-end 2 --u0 " + u0 + " --out " + csv_path);
  ASSERT_EQ(simulated.code, 0) << simulated.out;
  const Csv csv = read_csv(csv_path);
  ASSERT_EQ(csv.rows.size(), 201u);
  EXPECT_TRUE(all_finite(csv));
  const Vector3d p0 = csv.vector(0, "p");
  double worst = 0;
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    const double t = csv.rows[r][0];
    worst = std::max(worst, (csv.vector(r, "p") - p0 - Vector3d(0, 0, -mass * g * t)).norm());
  }
  EXPECT_LT(worst, 1e-6);
  EXPECT_LT(csv.vector(csv.rows.size() - 1, "p").z(), p0.z() - mass * g);  // it did fall
}

// Two_link.urdf's base has no mass and one joint (the shoulder) leaves it.
TEST_F(FloatingBaseCli, AMasslessFloatingBaseIsRefusedNamingTheFix) {
  const std::string two_link = examples + "/urdf/two_link.urdf";
  const std::string csv = (dir_ / "none.csv").string();
  for (const std::string& command :
       {"derive " + two_link + " --floating-base", "eval " + two_link + " --floating-base",
        "import " + two_link + " --floating-base",
        "simulate " + two_link + " --floating-base --t-end 1 --out " + csv}) {
    const auto run = test_support::run_cli(command);
    EXPECT_EQ(run.code, 2) << command << "\n" << run.out;
    EXPECT_EQ(run.out,
              two_link +
                  ":3:3: the floating base (--floating-base) is link 'base', which has no mass, "
                  "and only joint 'shoulder' moves the rest of the robot: the base moving about "
                  "that joint's axis and the joint's rate move the same masses, so the motion is "
                  "not determined (the mass matrix is singular); give link 'base' an <inertial> "
                  "(the body that floats), or read the robot with a fixed base (without "
                  "--floating-base) (base)\n")
        << command;
  }
  EXPECT_FALSE(std::filesystem::exists(csv));
  EXPECT_EQ(test_support::run_cli("derive " + two_link).code, 0);  // on a fixed base it is fine
}

// A massless root with the given joints from it: translated with --floating-base, or the error.
std::string floating_error(const std::string& joints_and_links) {
  const std::string urdf =
      "<robot name=\"r\">\n<link name=\"root\"/>\n" + joints_and_links + "</robot>\n";
  io::UrdfOptions options;
  options.floating_base = true;
  try {
    const auto model = io::build_model(io::translate_urdf(urdf, "r.urdf", options));
    // Read: the mass matrix in the speeds is regular at the initial state.
    const num::CompiledEquations speeds(principles::speed_form(model));
    Eigen::VectorXd q(static_cast<Eigen::Index>(model->dof()));
    for (std::size_t k = 0; k < model->dof(); ++k)
      q[static_cast<Eigen::Index>(k)] = model->coordinates[k].initial + 0.1 * double(k % 3);
    const Eigen::VectorXd u = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(speeds.size()));
    speeds.solve(0.0, q, u);  // throws when singular
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::string link(const std::string& name) {
  return "<link name=\"" + name +
         "\"><inertial><origin xyz=\"0 0 -0.2\"/><mass value=\"1\"/><inertia ixx=\"0.01\" "
         "iyy=\"0.01\" izz=\"0.002\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>\n";
}

std::string joint(const std::string& name, const std::string& type, const std::string& parent,
                  const std::string& child, const std::string& xyz, const std::string& axis) {
  return "<joint name=\"" + name + "\" type=\"" + type + "\"><parent link=\"" + parent +
         "\"/><child link=\"" + child + "\"/><origin xyz=\"" + xyz + "\"/><axis xyz=\"" + axis +
         "\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>\n";
}

TEST(FloatingBase, OnlyABaseWhoseMotionIsUndeterminedIsRefused) {
  // One prismatic joint: the base sliding along it and the joint's rate move the same masses.
  const std::string slider =
      floating_error(link("arm") + joint("slide", "prismatic", "root", "arm", "0 0 0", "1 0 0"));
  EXPECT_NE(slider.find("r.urdf:2:1: the floating base (--floating-base) is link 'root', which "
                        "has no mass, and only joint 'slide' moves"),
            std::string::npos)
      << slider;
  // Nothing but the massless root.
  const std::string alone = floating_error("");
  EXPECT_NE(alone.find("which has no mass, and nothing else moves"), std::string::npos) << alone;
  // A massless root fixed to a massive link (URDF's base_link convention): that link floats.
  EXPECT_EQ(floating_error(link("torso") + link("arm") +
                           joint("mount", "fixed", "root", "torso", "0 0 0.1", "1 0 0") +
                           joint("hinge", "revolute", "torso", "arm", "0 0 -0.3", "0 1 0")),
            "");
  // The same with the arm on the massless root itself: the fixed torso still carries mass.
  EXPECT_EQ(floating_error(link("torso") + link("arm") +
                           joint("mount", "fixed", "root", "torso", "0 0 0.1", "1 0 0") +
                           joint("hinge", "revolute", "root", "arm", "0 0 -0.3", "0 1 0")),
            "");
  // A massless pelvis between two legs on different axes: determined, read.
  EXPECT_EQ(floating_error(link("left") + link("right") +
                           joint("hip_l", "revolute", "root", "left", "0 0.1 0", "0 1 0") +
                           joint("hip_r", "revolute", "root", "right", "0 -0.1 0", "1 0 0")),
            "");
}

// A floating base without mass written as a model file (no URDF to refuse it): the simulation
// stops at its first state with the reason, exit 1, and the row it wrote has the momenta of that
// state, which need no accelerations: p = m v, L = r × m v for the rod's centre at (0, 0, -0.5).
TEST_F(FloatingBaseCli, ASimulationStoppedAtASingularStateStillHasFiniteMomenta) {
  const std::string model = write("massless_base.yaml", R"yaml(name: massless_base
coordinates: [x, y, z, {name: e0, initial: 1}, e1, e2, e3, hinge]
frames:
  base: {translation: [x, y, z], rotation: "rot_quat(e0, e1, e2, e3)", speeds: [wx, wy, wz]}
  arm: {parent: base, rotation: "rot_y(hinge)"}
speeds:
  - {name: vx, value: "dot(x)"}
  - {name: vy, value: "dot(y)"}
  - {name: vz, value: "dot(z)"}
bodies:
  rod: {frame: arm, mass: 2, com: [0, 0, -0.5], inertia: [0.1, 0.1, 0.01, 0, 0, 0]}
)yaml");
  const std::string csv_path = (dir_ / "stopped.csv").string();
  const auto run = test_support::run_cli("simulate " + model +
                                         " --t-end 1 --u0 1,0,0,0,0,0,0 --out " + csv_path);
  EXPECT_EQ(run.code, 1) << run.out;
  EXPECT_NE(run.out.find("singular mass matrix"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("nan"), std::string::npos) << run.out;
  const Csv csv = read_csv(csv_path);
  ASSERT_EQ(csv.rows.size(), 1u);
  EXPECT_NE(csv.comments.find("# incomplete: "), std::string::npos) << csv.comments;
  EXPECT_TRUE(all_finite(csv));
  EXPECT_LT((csv.vector(0, "p") - Vector3d(2, 0, 0)).norm(), 1e-15);
  EXPECT_LT((csv.vector(0, "L") - Vector3d(0, -1, 0)).norm(), 1e-15);
}

}  // namespace
