// The command line end to end: exit codes, located messages and the exact `eval --json` object.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "support/run_cli.hpp"

namespace {

using appell::test_support::CliRun;
CliRun run(const std::string& args) { return appell::test_support::run_cli(args); }

std::string write_model(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "appell_cli_tests";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

const std::string robot = std::string(APPELL_EXAMPLES_DIR) + "/planar_2r.yaml";

TEST(Cli, DemoShowsBothMethodsIdenticalWithCosts) {
  const CliRun r = run("demo");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("lagrange"), std::string::npos);
  EXPECT_NE(r.out.find("gibbs-appell"), std::string::npos);
  EXPECT_NE(r.out.find("identical"), std::string::npos);
  EXPECT_NE(r.out.find("differentiations"), std::string::npos);
  EXPECT_NE(r.out.find("ddot(q1)"), std::string::npos);
}

TEST(Cli, DeriveEveryFormat) {
  for (const std::string method : {"lagrange", "gibbs-appell"}) {
    EXPECT_EQ(run("derive " + robot + " --method " + method).code, 0);
    const CliRun latex = run("derive " + robot + " --format latex --method " + method);
    EXPECT_EQ(latex.code, 0);
    EXPECT_NE(latex.out.find("\\ddot{q}_{1}"), std::string::npos) << latex.out;
    const CliRun json = run("derive " + robot + " --format json --method " + method);
    ASSERT_EQ(json.code, 0) << json.out;
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j.at("method"), method);
    EXPECT_EQ(j.at("mass_matrix").size(), 2u);
    EXPECT_EQ(j.at("forcing").size(), 2u);
    EXPECT_GT(j.at("cost").at("differentiations").get<int>(), 0);
  }
  EXPECT_EQ(run("derive " + robot + " --raw").code, 0);
}

TEST(Cli, DeriveSetSubstitutesTheParameter) {
  const CliRun r = run("derive " + robot + " --set l=2 --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& row : j.at("mass_matrix"))
    for (const auto& entry : row) EXPECT_EQ(entry.get<std::string>().find('l'), std::string::npos);
}

TEST(Cli, DeriveShowsTheInertialForcesOfACarrier) {
  const std::string block =
      std::string(APPELL_EXAMPLES_DIR) + "/pendulum_on_translating_block.yaml";
  const CliRun r = run("derive " + block + " --show inertial-forces --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto forces = nlohmann::json::parse(r.out).at("inertial_forces");
  EXPECT_EQ(forces.at("carrier"), "block");
  for (const char* key : {"T_r", "Pi_o", "Pi_omega", "Q_omegadot_phi", "Gamma_phi"})
    EXPECT_TRUE(forces.contains(key)) << key;
  // A translating carrier: no centrifugal potential, no rotational or gyroscopic force.
  EXPECT_EQ(forces.at("Pi_omega"), "0");
  EXPECT_EQ(forces.at("Gamma_phi"), "0");
  EXPECT_NE(forces.at("Pi_o").get<std::string>().find("ddot(theta)"), std::string::npos);
  EXPECT_EQ(run("derive " + robot + " --show inertial-forces").code, 2);
}

TEST(Cli, EvalJsonIsExactlyTheDocumentedObject) {
  const CliRun r = run("eval " + robot + " --q 0.3,-0.7 --qd 1.1,0.4 --t 0.5 --set M=2 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"coordinates", "forcing", "mass_matrix", "q", "qd",
                                            "qdd", "t"}));
  EXPECT_EQ(j["coordinates"], nlohmann::json::array({"q1", "q2"}));  // appell's order, named
  EXPECT_DOUBLE_EQ(j["t"].get<double>(), 0.5);
  // Seed 000: M11 = M l² (5/3 + cos q2) with M = 2, l = 0.5.
  EXPECT_NEAR(j["mass_matrix"][0][0].get<double>(), 2 * 0.25 * (5.0 / 3 + std::cos(-0.7)), 1e-12);
  EXPECT_NEAR(j["mass_matrix"][1][1].get<double>(), 2 * 0.25 / 3, 1e-12);
  // q̈ solves M q̈ = f.
  const double m11 = j["mass_matrix"][0][0], m12 = j["mass_matrix"][0][1],
               m22 = j["mass_matrix"][1][1];
  const double a1 = j["qdd"][0], a2 = j["qdd"][1];
  EXPECT_NEAR(m11 * a1 + m12 * a2, j["forcing"][0].get<double>(), 1e-10);
  EXPECT_NEAR(m12 * a1 + m22 * a2, j["forcing"][1].get<double>(), 1e-10);
}

void expect_located_error(const CliRun& r, const std::string& file, const std::string& needle) {
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(std::regex_replace(file, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                        ":[0-9]+:[0-9]+: ")))
      << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << r.out;
}

TEST(Cli, BadModelsExitTwoWithLocation) {
  const std::string header = "name: bad\ncoordinates: [q]\n";
  {
    const auto f = write_model("malformed.yaml", "name: x\ncoordinates: [q\n");
    expect_located_error(run("derive " + f), f, "");
  }
  {
    const auto f =
        write_model("unknown_name.yaml", header +
                                             "particles:\n  p: {frame: world, mass: 1, position: "
                                             "[q*bogus, 0, 0]}\n");
    expect_located_error(run("derive " + f), f, "bogus");
  }
  {
    const auto f = write_model("unknown_frame.yaml",
                               header +
                                   "particles:\n  p: {frame: nowhere, mass: 1, position: [q, "
                                   "0, 0]}\n");
    expect_located_error(run("eval " + f), f, "nowhere");
  }
  {
    const auto f =
        write_model("negative_mass.yaml",
                    header + "particles:\n  p: {frame: world, mass: -1, position: [q, 0, 0]}\n");
    expect_located_error(run("derive " + f), f, "p");
  }
  {
    const auto f = write_model("flexible.yaml", header + "flexible: [{name: b}]\n");
    expect_located_error(run("derive " + f), f, "frame");
  }
}

TEST(Cli, BadOptionsExitTwo) {
  EXPECT_EQ(run("eval " + robot + " --q 1,2,3").code, 2);
  EXPECT_EQ(run("eval " + robot + " --q 1,abc").code, 2);
  EXPECT_EQ(run("eval " + robot + " --set nosuch=1").code, 2);
  EXPECT_EQ(run("derive " + robot + " --method newton").code, 2);
  EXPECT_EQ(run("derive " + robot + " --format pdf").code, 2);
  EXPECT_EQ(run("derive " + robot + " --order 0").code, 2);
  EXPECT_EQ(run("derive " + robot + " --order 2 --method lagrange").code, 2);
  EXPECT_EQ(run("derive " + robot + " --show compulsion").code, 2);
  EXPECT_EQ(run("derive " + robot + " --order 2").code, 0);
  EXPECT_EQ(run("derive /nonexistent/model.yaml").code, 2);
  EXPECT_EQ(run("frobnicate").code, 2);
}

TEST(Cli, SingularMassMatrixExitsOne) {
  // The second coordinate moves no mass: M is singular.
  const auto f =
      write_model("singular.yaml",
                  "name: singular\ncoordinates: [x, y]\nparticles:\n  p: {frame: world, mass: 1, "
                  "position: [x, 0, 0]}\n");
  const CliRun r = run("eval " + f + " --json");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("singular"), std::string::npos) << r.out;
}

// Two coordinates that move the same mass the same way: M = m [1 1; 1 1] is singular, though its
// Cholesky factor's last pivot is rounding (4e-16 of M_22), not 0. Every solver says so, through
// the generated code (eval's default) and through the tape, never printing q̈ of 10^16.
TEST(Cli, MassMatrixSingularToRoundingExitsOne) {
  const auto f = write_model("coupled.yaml",
                             "name: coupled\nparameters: {m: 2.0, k: 50.0}\ncoordinates: [x, y]\n"
                             "frames:\n  cart: {translation: [x + y, 0, 0]}\nparticles:\n"
                             "  p: {frame: cart, mass: m, position: [0, 0, 0]}\nloads:\n"
                             "  - {potential: \"0.5*k*(x + y)^2 + 0.5*k*y^2\"}\n");
  for (const std::string& command :
       {"eval " + f + " --q 0.1,0.2", "eval " + f + " --q 0.1,0.2 --no-jit", "linearize " + f,
        "simulate " + f + " --t-end 1 --out " + f + ".csv"}) {
    const CliRun r = run(command);
    EXPECT_EQ(r.code, 1) << command << "\n" << r.out;
    EXPECT_NE(r.out.find("singular mass matrix"), std::string::npos) << command << "\n" << r.out;
    EXPECT_EQ(r.out.find("e+16"), std::string::npos) << command << "\n" << r.out;
  }
  // statics finds the equilibrium, says why there are no modes, and keeps the stiffness's verdict.
  const CliRun statics = run("statics " + f + " --modes");
  EXPECT_EQ(statics.code, 0) << statics.out;
  EXPECT_NE(statics.out.find("stable"), std::string::npos) << statics.out;
  EXPECT_NE(statics.out.find("no small oscillations: singular mass matrix"), std::string::npos)
      << statics.out;
}

}  // namespace
