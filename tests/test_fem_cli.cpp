// appell fem end to end as a user runs it: JSON frequencies, the response CSV and VTK files,
// and every bad input exiting 2 at its place in the model or mesh file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "support/run_cli.hpp"

namespace {

using appell::test_support::run_cli;

const std::string fem_examples = std::string(APPELL_EXAMPLES_DIR) + "/fem/";

std::string write_model(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "appell_fem_cli_tests";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

// The body of a model with one flexible body; `body` is appended to its entry.
std::string model_with(const std::string& body) {
  return "name: bad\ncoordinates: []\nframes: {base: {}}\nflexible:\n"
         "  - name: bar\n    frame: base\n" +
         body;
}

const std::string kBox = "    mesh: {box: {size: [1.0, 0.1, 0.1], divisions: [4, 1, 1]}}\n";
const std::string kSteel = "    material: {E: 2.1e11, nu: 0.3, rho: 7850}\n";

void expect_error_at(const std::string& args, const std::string& file, int line,
                     const std::string& needle) {
  const auto r = run_cli(args);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(file + ":" + std::to_string(line) + ":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << r.out;
}

TEST(FemCli, JsonFrequenciesAscendAndSpinStiffensTheBlade) {
  const auto standing =
      run_cli("fem " + fem_examples + "rotating_blade.yaml --modes 4 --json --set Omega=0");
  ASSERT_EQ(standing.code, 0) << standing.out;
  const auto spinning = run_cli("fem " + fem_examples + "rotating_blade.yaml --modes 4 --json");
  ASSERT_EQ(spinning.code, 0) << spinning.out;
  const auto s0 = nlohmann::json::parse(standing.out), s1 = nlohmann::json::parse(spinning.out);
  const std::vector<double> f0 = s0["frequencies_hz"], f1 = s1["frequencies_hz"];
  ASSERT_EQ(f1.size(), 4u);
  EXPECT_TRUE(std::is_sorted(f1.begin(), f1.end()));
  EXPECT_TRUE(s1["stiffening"].get<bool>());
  // Southwell: w1² = w10² + 1.193 Ω², Ω = 30 rad/s.
  const double w10 = 2 * M_PI * f0[0], w1 = 2 * M_PI * f1[0];
  EXPECT_NEAR((w1 * w1 - w10 * w10) / 900.0, 1.193, 0.06);
  const auto linear =
      run_cli("fem " + fem_examples + "rotating_blade.yaml --modes 1 --json --no-stiffening");
  ASSERT_EQ(linear.code, 0) << linear.out;
  EXPECT_NEAR(nlohmann::json::parse(linear.out)["frequencies_hz"][0].get<double>(), f0[0],
              1e-6 * f0[0]);
}

TEST(FemCli, ResponseWritesCsvAndAParaViewSeries) {
  const auto dir = std::filesystem::temp_directory_path() / "appell_fem_cli_vtu";
  std::filesystem::remove_all(dir);
  const auto csv = (std::filesystem::temp_directory_path() / "appell_fem_response.csv").string();
  const auto r = run_cli("fem " + fem_examples +
                         "cantilever_box.yaml --response --t-end 0.02 --step 1e-3 --nodes 40 "
                         "--csv " +
                         csv + " --vtu " + dir.string() + " --vtu-every 5");
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "t,n40_ux,n40_uy,n40_uz");
  int rows = 0;
  for (std::string line; std::getline(in, line);) ++rows;
  EXPECT_EQ(rows, 21);
  EXPECT_TRUE(std::filesystem::exists(dir / "bar.pvd"));
  EXPECT_TRUE(std::filesystem::exists(dir / "bar_4.vtu"));
}

TEST(FemCli, DeriveElementShowsBothRoutesIdentical) {
  const auto r =
      run_cli("fem " + fem_examples + "rotating_blade.yaml --derive-element --element bar");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("identical"), std::string::npos) << r.out;
}

TEST(FemCli, BadInputExitsTwoWithItsLocation) {
  {
    const auto f = write_model("nu.yaml", model_with(kBox + "    material: {E: 2.1e11, nu: 0.5, "
                                                            "rho: 7850}\n"));
    expect_error_at("fem " + f, f, 8, "Poisson");
  }
  {
    const auto f = write_model("clamp.yaml", model_with(kBox + kSteel + "    clamp: {x: 2.0}\n"));
    expect_error_at("fem " + f, f, 9, "matches no node");
  }
  {
    const auto f =
        write_model("node.yaml", model_with(kBox + kSteel + "    clamp: {nodes: [0, 9999]}\n"));
    expect_error_at("fem " + f, f, 9, "out of range");
  }
  {
    const auto f = write_model("msh22.yaml",
                               model_with("    mesh: {gmsh: " + std::string(APPELL_TEST_DATA_DIR) +
                                          "/msh22.msh}\n" + kSteel));
    const auto r = run_cli("fem " + f);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("msh22.msh:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("4.1"), std::string::npos) << r.out;
  }
  {
    const auto f = write_model("rigid.yaml",
                               "name: r\ncoordinates: [q]\nparticles: {p: {frame: "
                               "world, mass: 1, position: [q, 0, 0]}}\n");
    const auto r = run_cli("fem " + f);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("no flexible bodies"), std::string::npos) << r.out;
  }
  // A flexible-only model has no rigid equations: every command on them says where to go
  // instead, at the flexible body's line (statics once crashed on it: issue 12).
  for (const std::string command :
       {"derive", "eval", "verify", "statics", "simulate --t-end 0.1 --out /dev/null",
        "codegen --out /dev/null",
        "inverse --trajectory 'x=t' --t-end 0.1 --output-step 0.1 --out /dev/null"}) {
    const auto r = run_cli(command + " " + fem_examples + "cantilever_box.yaml");
    EXPECT_EQ(r.code, 2) << command << "\n" << r.out;
    EXPECT_NE(r.out.find("cantilever_box.yaml:12:5: this model has no coordinates"),
              std::string::npos)
        << command << "\n"
        << r.out;
    EXPECT_NE(r.out.find("appell fem"), std::string::npos) << r.out;
  }
  EXPECT_EQ(run_cli("fem " + fem_examples + "cantilever_box.yaml --modes 0").code, 2);
  EXPECT_EQ(run_cli("fem " + fem_examples + "cantilever_box.yaml --response --step -1").code, 2);
}

TEST(FemCli, AMeshBeyondTheElementLimitIsRefusedAtTheMesh) {
  // A typo in `divisions` (a million times ten) must not fill the memory: refused at the mesh
  // before anything is allocated, with the way to raise the limit; a raised limit lets a mesh
  // of that size through.
  const auto big =
      write_model("big_box.yaml",
                  model_with("    mesh: {box: {size: [1.0, 0.1, 0.1], divisions: [100000, 1000, "
                             "1000]}}\n" +
                             kSteel + "    clamp: {x: 0}\n"));
  expect_error_at("fem " + big, big, 7, "more than the limit of 1000000");
  expect_error_at("fem " + big, big, 7, "--max-elements");
  // Raised as far as ints index nodes: still refused at the mesh, never an internal error.
  expect_error_at("fem " + big + " --max-elements 1e12", big, 7, "too many nodes");
  const auto small =
      write_model("small_box.yaml", model_with(kBox + kSteel + "    clamp: {x: 0}\n"));
  expect_error_at("fem " + small + " --max-elements 3", small, 7, "this mesh has 4 elements");
  const auto r = run_cli("fem " + small + " --max-elements 4 --modes 1 --json");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* bad : {"0", "1.5", "1e13", "many"})
    EXPECT_EQ(run_cli("fem " + small + " --max-elements " + bad).code, 2) << bad;
}

}  // namespace
