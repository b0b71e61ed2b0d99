// One rule each (issue 39, item 6): what appell prints shows a user's control characters instead
// of letting the terminal obey them (io::terminal_text); generated code never declares a name the
// compiler's default dialect or the included headers reserve (linux, M_PIl, namespace sin); a
// tolerance is a finite number > 0 (bad input, exit 2); a feature a model does not have is
// refused with exit 2 (--derivatives as --regressor); every CSV reader skips a UTF-8 byte order
// mark; a reader that closes the pipe ends appell quietly with exit 1, never by SIGPIPE.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "appell/codegen/cpp_generator.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/io/output_file.hpp"
#include "appell/io/terminal_text.hpp"
#include "appell/model/input_file.hpp"
#include "codegen/plan.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "support/spawn_cli.hpp"

extern char** environ;

namespace {

using namespace appell;
using test_support::run_cli;

const std::string examples = APPELL_EXAMPLES_DIR;
const std::string robot = examples + "/planar_2r.yaml";

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ESC starting an OSC title sequence, BEL ending it, and the C1 control CSI (U+009B).
const std::string hostile_name =
    "evil\x1b]0;pwned\x07\xc2\x9b"
    "31m";
const std::string hostile_shown = "evil\\x1B]0;pwned\\x07\\u009B31m";

std::string hostile_model() {
  return "name: \"evil\\e]0;pwned\\a\\x9b31m\"\n"
         "coordinates: [q]\nparameters: {m: 1}\n"
         "frames:\n  f: {rotation: rot_z(q)}\n"
         "particles:\n  p: {frame: f, mass: m, position: [1, 0, 0]}\n";
}

// No byte a terminal would act on: C0 controls but line feed and tab, DEL, and C1 in UTF-8.
bool has_raw_control(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) return true;
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(text[i + 1]) <= 0x9F)
      return true;
  }
  return false;
}

class CliRules : public test_support::ScratchDirTest {};

// ---- a. what reaches a terminal shows control characters ----------------------------------

TEST(TerminalText, ShowsEveryControlAndKeepsText) {
  EXPECT_EQ(io::terminal_text(hostile_name), hostile_shown);
  EXPECT_EQ(io::terminal_text("a\x7f"
                              "b\xc2\x80"
                              "c\xc2\x9f"
                              "d"),
            "a\\u007Fb\\u0080c\\u009Fd");
  // UTF-8 text (U+00A0 and up) is kept, a byte that is not UTF-8 shown.
  EXPECT_EQ(io::terminal_text("θ \xc2\xa0 é \xff\xc3"), "θ \xc2\xa0 é \\xFF\\xC3");
  EXPECT_EQ(io::terminal_text("line\n\tindented\r"), "line\n\tindented\\x0D");
  EXPECT_EQ(io::terminal_text("line\n\t", io::LineBreaks::Escape), "line\\x0A\\x09");
}

TEST(TerminalText, TheStreamBufferJoinsASequenceCutBetweenTwoWrites) {
  std::ostringstream target;
  {
    io::TerminalTextBuffer buffer(target.rdbuf());
    std::ostream out(&buffer);
    out << "\xc3" << std::flush << "\xa9";  // é in two writes, a flush between
    out << "\xc2"
        << "\x9b" << '\x1b' << 'x';  // CSI likewise, ESC by overflow()
    out << "\xe2\x82";               // the start of a sequence that never ends
  }
  EXPECT_EQ(target.str(), "é\\u009B\\x1Bx\\xE2\\x82");
}

TEST_F(CliRules, AModelsNameWithEscAndBelIsShownNotObeyed) {
  const std::string model = write("esc.yaml", hostile_model());
  for (const std::string& command :
       {"eval " + model, "verify --numeric-only " + model,
        "simulate " + model + " --t-end 0.01 --out " + (dir_ / "run.csv").string()}) {
    const auto run = run_cli(command);
    EXPECT_EQ(run.code, 0) << command << ": " << run.out;
    EXPECT_TRUE(has(run.out, hostile_shown)) << command << ": " << run.out;
    EXPECT_FALSE(has_raw_control(run.out)) << command << ": " << run.out;
  }
  // JSON on standard output stays JSON, with the name as the model has it.
  const auto json = run_cli("derive " + model + " --format json");
  ASSERT_EQ(json.code, 0) << json.out;
  EXPECT_FALSE(has_raw_control(json.out));
  EXPECT_EQ(nlohmann::json::parse(json.out).at("model").get<std::string>(), hostile_name);
}

TEST_F(CliRules, ACsvCellInAMessageOnStderrIsShownNotObeyed) {
  const std::string model = write("esc.yaml", hostile_model());
  const std::string csv = write("motion.csv", "t,q\x1b[31m,dot(q),ddot(q)\n0,0,0,0\n");
  const auto run =
      run_cli("inverse " + model + " --from-csv " + csv + " --out " + (dir_ / "f.csv").string());
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_EQ(run.out, csv +
                         ":1:3: expected column 'q'; the header must be t,q,dot(q),ddot(q) "
                         "(q\\x1B[31m)\n");
}

// ---- b. generated code declares no reserved name -----------------------------------------

std::string command_output(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  pclose(pipe);
  return out;
}

// The object-like macros without a leading underscore that `compiler` defines with the headers
// the generated code includes: `#define NAME VALUE` lines of -dM.
std::set<std::string> predefined_macros(const std::string& compiler, const std::string& source) {
  std::istringstream lines(
      command_output("printf '" + source + "' | " + compiler + " -dM -E - 2>/dev/null"));
  std::set<std::string> names;
  std::string define, name;
  while (lines >> define >> name) {
    std::string rest;
    std::getline(lines, rest);
    if (define == "#define" && name[0] != '_' && name.find('(') == std::string::npos)
      names.insert(name);
  }
  return names;
}

TEST(CodegenNames, NoMacroOfTheCompilersDialectsOrHeadersIsAFreeIdentifier) {
  const std::string c_headers = "#include <math.h>\\n#include <string.h>\\n";
  const std::string cpp_headers = "#include <cmath>\\n#include <cstring>\\n#include <limits>\\n";
  std::size_t seen = 0;
  for (const std::string dialect : {"gnu11", "gnu17", "c11", "c99"}) {
    const auto names = predefined_macros("cc -x c -std=" + dialect, c_headers);
    seen += names.size();
    for (const auto& name : names)
      EXPECT_FALSE(codegen::detail::is_free_identifier(name)) << name << " (C, " << dialect << ")";
  }
  for (const std::string dialect : {"gnu++17", "c++17", "gnu++20", "c++20"}) {
    const auto names = predefined_macros(
        std::string(APPELL_CXX_COMPILER) + " -x c++ -std=" + dialect, cpp_headers);
    seen += names.size();
    for (const auto& name : names)
      EXPECT_FALSE(codegen::detail::is_free_identifier(name))
          << name << " (C++, " << dialect << ")";
  }
  if (seen == 0) GTEST_SKIP() << "no C or C++ compiler answered -dM -E";
  // The gnu dialects' own: the reason for this test.
  for (const std::string name : {"linux", "unix", "i386", "typeof", "M_PIl", "M_PIf128", "HUGE_VAL",
                                 "HUGE_VAL_F32X", "SNANF", "FP_INT_UPWARD", "MATH_ERRNO"})
    EXPECT_FALSE(codegen::detail::is_free_identifier(name)) << name;
  for (const std::string name :
       {"M", "M_S", "M_PI_", "HUGE_VAL_", "FP_INT_UPWARD_", "j0", "sin_model", "l1"})
    EXPECT_TRUE(codegen::detail::is_free_identifier(name)) << name;
}

TEST(CodegenNames, AReservedNameGetsASuffixThatEndsTheSearch) {
  std::set<std::string> taken;
  EXPECT_EQ(codegen::detail::claim_identifier("linux", taken), "linux_");
  EXPECT_EQ(codegen::detail::claim_identifier("FP_INT_UPWARD", taken), "FP_INT_UPWARD_");
  EXPECT_EQ(codegen::detail::claim_identifier("FP_INT_UPWARD", taken), "FP_INT_UPWARD_2");
  EXPECT_EQ(codegen::detail::claim_identifier("M_PI", taken), "M_PI_");
  EXPECT_EQ(codegen::detail::claim_identifier("M_PI", taken), "M_PI_3");  // M_PI_2 is <math.h>'s
  // The namespace is declared next to what <cmath> declares at global scope.
  EXPECT_EQ(codegen::default_namespace("sin"), "sin_model");
  EXPECT_EQ(codegen::default_namespace("linux"), "linux_");
  EXPECT_EQ(codegen::default_namespace("sinf128"), "sinf128_model");
  EXPECT_EQ(codegen::default_namespace("size_t"), "size_t_model");
  EXPECT_EQ(codegen::default_namespace("pendulum"), "pendulum");
  EXPECT_FALSE(codegen::is_valid_namespace("random"));
  EXPECT_TRUE(codegen::is_valid_namespace("robots::random"));  // not at global scope
}

int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

TEST_F(CliRules, GeneratedCodeWithReservedNamesCompilesInEveryDialect) {
  const std::string model = write("names.yaml", R"(name: sin
parameters: {linux: 1.0, unix: 2.0, i386: 3.0, errno: 1.5, int: 2.5, class: 0.5, M_PI: 0.25,
             M_PIl: 0.125, HUGE_VALF: 1.0, EXIT_SUCCESS: 1.0, FP_INT_UPWARD: 1.0, typeof: 1.0,
             j0: 1.0, gamma: 1.0, pow: 2.0, size_t: 1.0}
coordinates: [x]
inputs: [BYTE_ORDER]
frames:
  cart: {parent: world, translation: [x, 0, 0]}
bodies:
  block: {frame: cart, mass: linux + unix + i386 + errno + int + class + M_PI + M_PIl + HUGE_VALF + EXIT_SUCCESS + FP_INT_UPWARD + typeof + j0 + gamma + pow + size_t, inertia: {sphere: {radius: 1}}}
loads:
  - generalized: {coordinate: x, value: BYTE_ORDER - x}
)");
  const std::string header = (dir_ / "names.hpp").string(), c_header = (dir_ / "names.h").string();
  ASSERT_EQ(run_cli("codegen " + model + " --out " + header).code, 0);
  ASSERT_EQ(run_cli("codegen " + model + " --language c --out " + c_header).code, 0);
  const std::string text = test_support::file_text(header);
  EXPECT_TRUE(has(text, "namespace sin_model {")) << text;
  EXPECT_TRUE(has(text, "  double linux_ = 1.0;  // linux\n")) << text;
  EXPECT_TRUE(has(text, "  double M_PIl_ = 0.125;  // M_PIl\n")) << text;
  EXPECT_TRUE(has(text, "  double j0 = 1.0;\n")) << text;  // a member: no clash with ::j0
  const std::string log = (dir_ / "compile.log").string();
  const std::string cpp = write("use.cpp", "#include \"" + header +
                                               "\"\nint main() {\n  double qdd[1];\n"
                                               "  const double q[] = {0.1}, qd[] = {0.2};\n"
                                               "  return sin_model::forward_dynamics(0.0, q, qd, "
                                               "{}, {}, qdd) ? 0 : 1;\n}\n");
  for (const std::string dialect : {"gnu++17", "c++17"}) {
    const std::string compile = std::string(APPELL_CXX_COMPILER) + " -std=" + dialect +
                                " -fsyntax-only -Wall -Wextra -Wpedantic -Wshadow -Werror " + cpp +
                                " > " + log + " 2>&1";
    EXPECT_EQ(exit_code(std::system(compile.c_str())), 0)
        << dialect << ": " << test_support::file_text(log);
  }
  const std::string c = write("use.c", "#include \"" + c_header +
                                           "\"\nint main(void) {\n  sin_model_parameters p = "
                                           "sin_model_default_parameters();\n"
                                           "  return p.linux_ > 0.0 ? 0 : 1;\n}\n");
  for (const std::string dialect : {"gnu11", "gnu17", "c11"}) {
    const std::string compile = "cc -std=" + dialect +
                                " -fsyntax-only -Wall -Wextra -Wpedantic -Werror " + c + " > " +
                                log + " 2>&1";
    EXPECT_EQ(exit_code(std::system(compile.c_str())), 0)
        << dialect << ": " << test_support::file_text(log);
  }
}

// ---- c. a tolerance is a finite number > 0 -------------------------------------------------

TEST_F(CliRules, ATolerancePastItsRangeIsBadInput) {
  for (const std::string bad : {"-1", "0"}) {
    const auto run = run_cli("verify " + robot + " --numeric-only --tolerance " + bad);
    EXPECT_EQ(run.code, 2) << run.out;
    EXPECT_EQ(run.out, "--tolerance: the tolerance must be a positive number (" + bad + ")\n");
  }
  const auto inf = run_cli("verify " + robot + " --tolerance inf");
  EXPECT_EQ(inf.code, 2) << inf.out;
  EXPECT_TRUE(has(inf.out, "--tolerance: not a finite number (inf)")) << inf.out;
  // The same rule as the integrators' tolerances.
  const auto rtol = run_cli("simulate " + robot + " --t-end 1 --out /dev/null --rtol -1");
  EXPECT_EQ(rtol.code, 2) << rtol.out;
  EXPECT_EQ(rtol.out, "--rtol: the relative tolerance must be a positive number (-1)\n");
}

// ---- d. a feature the model does not have is refused as bad input --------------------------

TEST_F(CliRules, AFeatureTheModelDoesNotHaveIsExit2) {
  const std::string carrier = examples + "/rod_on_rotating_axes.yaml";
  const std::string reason =
      "differentiates the recursions, which do not cover relative motion "
      "in a carrier frame\n";
  const auto eval = run_cli("eval " + carrier + " --derivatives");
  EXPECT_EQ(eval.code, 2) << eval.out;
  EXPECT_EQ(eval.out, "--derivatives: " + reason);
  const std::string out = (dir_ / "x.hpp").string();
  const auto codegen = run_cli("codegen " + carrier + " --derivatives --out " + out);
  EXPECT_EQ(codegen.code, 2) << codegen.out;
  EXPECT_EQ(codegen.out, "--derivatives: " + reason);
  const auto regressor = run_cli("codegen " + carrier + " --regressor --out " + out);
  EXPECT_EQ(regressor.code, 2) << regressor.out;
  const std::string speeds = examples + "/speeds/damped_cube.yaml";
  const auto in_speeds = run_cli("codegen " + speeds + " --derivatives --out " + out);
  EXPECT_EQ(in_speeds.code, 2) << in_speeds.out;
  EXPECT_EQ(in_speeds.out,
            "--derivatives: the derivatives are written in the coordinates' rates dot(q) and "
            "ddot(q), and this model's equations are in its generalized speeds\n");
}

// ---- e. every CSV reader skips a byte order mark -------------------------------------------

TEST_F(CliRules, InverseReadsACsvWithAByteOrderMarkAsTheSweepDoes) {
  EXPECT_EQ(model::byte_order_mark_size("\xEF\xBB\xBFt,q"), 3u);
  EXPECT_EQ(model::byte_order_mark_size("t,q"), 0u);
  EXPECT_EQ(model::byte_order_mark_size("\xEF\xBB"), 0u);
  const std::string model = write("esc.yaml", hostile_model());
  const std::string rows = "t,q,dot(q),ddot(q)\n0,0,0,0\n0.5,0.1,0.2,0.3\n";
  const std::string plain = write("plain.csv", rows),
                    marked = write("bom.csv", "\xEF\xBB\xBF" + rows);
  const std::string a = (dir_ / "a.csv").string(), b = (dir_ / "b.csv").string();
  const auto without = run_cli("inverse " + model + " --from-csv " + plain + " --out " + a);
  const auto with = run_cli("inverse " + model + " --from-csv " + marked + " --out " + b);
  ASSERT_EQ(without.code, 0) << without.out;
  ASSERT_EQ(with.code, 0) << with.out;
  EXPECT_EQ(test_support::file_text(a), test_support::file_text(b));
  // Columns count after the mark, as in a cases file.
  const std::string wrong = write("wrong.csv", "\xEF\xBB\xBFt,x,dot(q),ddot(q)\n0,0,0,0\n");
  const auto bad = run_cli("inverse " + model + " --from-csv " + wrong + " --out " + a);
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_EQ(bad.out,
            wrong + ":1:3: expected column 'q'; the header must be t,q,dot(q),ddot(q) (x)\n");
}

// ---- f. a reader that goes away ends appell quietly ----------------------------------------

struct ClosedPipeRun {
  int status = 0;
  std::string err;
};

// appell ARGS.. with standard output into a pipe whose reader closed before appell started, so
// that its first write fails; stderr into a file.
ClosedPipeRun run_into_closed_pipe(const std::vector<std::string>& args, const std::string& err) {
  int ends[2];
  if (::pipe(ends) != 0) return {};
  ::close(ends[0]);
  std::vector<std::string> words{APPELL_CLI};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(ends[1]);
  ClosedPipeRun r;
  if (error != 0) return r;
  ::waitpid(pid, &r.status, 0);
  r.err = test_support::file_text(err);
  return r;
}

TEST_F(CliRules, AReaderThatClosesThePipeEndsAppellQuietlyWithExit1) {
  const std::string err = (dir_ / "err.txt").string();
  const std::vector<std::vector<std::string>> commands = {
      {"eval", robot},                                                  // std::cout at the end
      {"verify", robot, "--numeric-only"},                              // printf's table
      {"simulate", robot, "--t-end", "5", "--out", "/dev/stdout"},      // a file, row by row
      {"inverse", robot, "--trajectory", "q1=t; q2=t", "--t-end", "5",  // likewise
       "--output-step", "0.01", "--out", "/dev/stdout"}};
  for (const auto& args : commands) {
    const ClosedPipeRun r = run_into_closed_pipe(args, err);
    EXPECT_FALSE(WIFSIGNALED(r.status)) << args[0] << ": signal " << WTERMSIG(r.status);
    EXPECT_EQ(exit_code(r.status), 1) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err, "") << args[0];
  }
  // A full disk still says so: only a reader that is gone is nobody to tell.
  const auto full = test_support::run_cli_into({"eval", robot}, "/dev/full", err, 60);
  EXPECT_EQ(full.code, 1);
  EXPECT_EQ(full.err, "appell: could not write standard output: No space left on device\n");
}

}  // namespace
