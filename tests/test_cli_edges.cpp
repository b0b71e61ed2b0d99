// The command line's edges (issue 12): an option with several values never takes the model's
// path; a misspelt command gets a suggestion; --version; an empty or non-finite value is an
// error naming the option (exit 2). And simulate's energy verdict counts only the loads that the
// bound values leave nonzero.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "appell/appell.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;
using test_support::run_cli;

const std::string examples = APPELL_EXAMPLES_DIR;
const std::string robot = examples + "/planar_2r.yaml";
const std::string arm = examples + "/three_link_arm.yaml";

std::string temporary(const std::string& name) {
  return "/tmp/appell_cli_edges_" + std::to_string(::getpid()) + "_" + name;
}

TEST(CliEdges, ARepeatableOptionBeforeTheModelTakesOneValue) {
  // The same result whichever side of the model --set stands on.
  const auto after = run_cli("eval " + robot + " --set M=2 --set g=1 --json");
  const auto before = run_cli("eval --set M=2 --set g=1 " + robot + " --json");
  ASSERT_EQ(after.code, 0) << after.out;
  ASSERT_EQ(before.code, 0) << before.out;
  EXPECT_EQ(before.out, after.out);
  EXPECT_NE(after.out, run_cli("eval " + robot + " --json").out);  // the values took effect

  // Every command with a repeatable option, the model after it and an option after the model.
  const std::string out = temporary("out");
  const std::string blade = examples + "/fem/rotating_blade.yaml";
  for (const std::string& args :
       {"derive --set M=2 " + robot + " --format json", "eval --set M=2 " + robot + " --json",
        "verify " + robot + " --states 2", "statics --set M=2 " + robot + " --json",
        "statics --guess 0.1,0.2 " + robot + " --json",
        "codegen --set M=2 " + robot + " --out " + out + ".hpp",
        "simulate --set M=2 " + robot + " --t-end 0.01 --out " + out + ".csv",
        "simulate --input 'tau1=sin(t)' " + arm + " --t-end 0.01 --out " + out + ".csv",
        "inverse --set M=2 " + robot +
            " --trajectory 'q1=t; q2=0' --t-end 0.01 --output-step 0.01 --out " + out + ".csv",
        "fem --set Omega=1 " + blade + " --modes 2 --json"}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 0) << args << "\n" << r.out;
    EXPECT_EQ(r.out.find("MODEL is required"), std::string::npos) << args << "\n" << r.out;
  }
  for (const char* suffix : {".hpp", ".csv"}) std::remove((out + suffix).c_str());

  // Two values after one --set: the second is not taken for a value (nor silently dropped).
  const auto two = run_cli("eval --set M=2 g=1 " + robot);
  EXPECT_EQ(two.code, 2) << two.out;
}

TEST(CliEdges, AMisspeltCommandGetsASuggestion) {
  const auto derve = run_cli("derve " + robot);
  EXPECT_EQ(derve.code, 2);
  EXPECT_NE(derve.out.find("unknown command 'derve'; did you mean 'derive'?"), std::string::npos)
      << derve.out;
  const auto swapped = run_cli("simualte " + robot);
  EXPECT_EQ(swapped.code, 2);
  EXPECT_NE(swapped.out.find("did you mean 'simulate'?"), std::string::npos) << swapped.out;
  const auto prefix = run_cli("stat " + robot);
  EXPECT_NE(prefix.out.find("did you mean 'statics'?"), std::string::npos) << prefix.out;
  // Nothing close: the commands are listed instead of a wild guess.
  const auto far = run_cli("xyz " + robot);
  EXPECT_EQ(far.code, 2);
  EXPECT_EQ(far.out.find("did you mean"), std::string::npos) << far.out;
  EXPECT_NE(far.out.find("(commands: demo, derive, eval,"), std::string::npos) << far.out;
}

TEST(CliEdges, VersionIsTheLibrarysVersion) {
  const auto r = run_cli("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, std::string("appell ") + APPELL_VERSION_STRING + "\n");
  EXPECT_EQ(r.out, "appell 0.2.0\n");
}

void expect_usage_error(const std::string& args, const std::string& option) {
  const auto r = run_cli(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(option + ":"), std::string::npos) << args << "\n" << r.out;
  EXPECT_EQ(r.out.find("internal error"), std::string::npos) << args << "\n" << r.out;
}

TEST(CliEdges, AnEmptyValueIsAnError) {
  expect_usage_error("eval " + robot + " --q ''", "--q");
  expect_usage_error("eval " + robot + " --qd ''", "--qd");
  expect_usage_error("eval " + robot + " --q 0.1,", "--q");
  expect_usage_error("eval " + robot + " --q 0.1,,0.2", "--q");
  expect_usage_error("eval " + robot + " --set ''", "--set");
  expect_usage_error("simulate " + robot + " --t-end 1 --q0 '' --out " + temporary("e.csv"),
                     "--q0");
  expect_usage_error("derive '' ", "MODEL");
}

TEST(CliEdges, ANonFiniteNumberIsAnErrorNamingTheOption) {
  expect_usage_error("eval " + robot + " --t nan", "--t");
  expect_usage_error("eval " + robot + " --t inf", "--t");
  expect_usage_error("eval " + robot + " --t 1e999", "--t");
  expect_usage_error("eval " + robot + " --q nan,0", "--q");
  expect_usage_error("eval " + robot + " --qd 0,-inf", "--qd");
  expect_usage_error("statics " + robot + " --guess q1=nan", "--guess");
  expect_usage_error("statics " + robot + " --t nan", "--t");
  expect_usage_error("simulate " + robot + " --t-end nan --out " + temporary("n.csv"), "--t-end");
  expect_usage_error("simulate " + robot + " --t-end 1 --rtol 1e999 --out " + temporary("n.csv"),
                     "--rtol");
  expect_usage_error("fem " + examples + "/fem/rotating_blade.yaml --at-time inf", "--at-time");
  expect_usage_error("verify " + robot + " --tolerance nan", "--tolerance");
  // --set names the parameter too (model::bind).
  const auto set = run_cli("eval " + robot + " --set M=inf");
  EXPECT_EQ(set.code, 2) << set.out;
  EXPECT_NE(set.out.find("--set"), std::string::npos) << set.out;
  EXPECT_NE(set.out.find("(M)"), std::string::npos) << set.out;
  // A tiny number is a number (it underflows to 0), not an error.
  EXPECT_EQ(run_cli("eval " + robot + " --t 1e-400").code, 0);
}

// ----- the energy verdict ----------------------------------------------------------------------

num::SimulationResult simulate(std::shared_ptr<const model::Model> model,
                               const model::Values& values) {
  num::SimulationOptions options;
  options.t_end = 0.05;
  options.values = values;
  return num::simulate(principles::derive(model, principles::Method::GibbsAppell), options,
                       [](const num::SimulationRow&) {});
}

TEST(SimulateEnergy, LoadsThatTheValuesMakeZeroDoNoWork) {
  // The arm's joints are driven by tau_j − b q̇_j: with the inputs tau left at 0 and no friction
  // (b = 0) nothing does work, and E = T + V is conserved to the tolerance.
  const auto model = io::read_model_file(arm);
  const num::SimulationResult free = simulate(model, {{"b", 0.0}});
  EXPECT_TRUE(free.conservative) << free.not_conservative_because;
  EXPECT_LT(free.energy_drift, 1e-5 * std::max(1.0, std::abs(free.initial_energy)));

  // Friction, or a constant torque, does work.
  const num::SimulationResult friction = simulate(model, {});
  EXPECT_FALSE(friction.conservative);
  EXPECT_EQ(friction.not_conservative_because, "the model has a generalized force");
  const num::SimulationResult driven = simulate(model, {{"b", 0.0}, {"tau2", 1.0}});
  EXPECT_FALSE(driven.conservative);
  EXPECT_EQ(driven.not_conservative_because, "the model has a generalized force");

  // An input driven by an expression of t does work too.
  model::Values by_time({{"b", 0.0}});
  by_time.drive("tau1", num::parse_time_function(*model, "sin(t)"));
  EXPECT_FALSE(simulate(model, by_time).conservative);
}

TEST(SimulateEnergy, TheCliSaysConservedForAForceInputLeftAtZero) {
  const std::string out = temporary("energy.csv");
  const auto r = run_cli("simulate " + arm + " --set b=0 --t-end 0.05 --out " + out);
  std::remove(out.c_str());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("not conserved"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("drift max|E - E0|"), std::string::npos) << r.out;
}

}  // namespace
