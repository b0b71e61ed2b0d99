// The cases of a sweep (issue 28): the cases file, --grid and --sample, each column checked
// against the examples' models; every refusal at its file:line:column (or option) naming what is
// wrong; the grid's order, count and exact values; the Latin hypercube's defining property (each
// stratum of each dimension used exactly once) and its reproducibility from a seed, down to the
// published outputs of its random number generator.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "appell/io/model_reader.hpp"
#include "appell/sweep/case_sources.hpp"
#include "appell/sweep/random_stream.hpp"
#include "support/scratch_dir.hpp"

namespace {

using namespace appell;
using model::ModelError;
using sweep::ColumnKind;

const std::string examples = APPELL_EXAMPLES_DIR;

// Inputs u (a force on the cart); coordinates x, theta; parameters mc, m, mb, l, ...
const model::Model& cart() {
  static const auto model = io::read_model_file(examples + "/spring_damper_cart.yaml");
  return *model;
}
// Generalized speeds w1, w2, w3 (a quaternion frame); coordinates e0..e3; no inputs.
const model::Model& cube() {
  static const auto model = io::read_model_file(examples + "/speeds/damped_cube.yaml");
  return *model;
}
// An unspecified prescribed function alpha (prescribed: null).
const model::Model& disk() {
  static const auto model = io::read_model_file(examples + "/spinning_disk.yaml");
  return *model;
}
// A prescribed function psi given by an expression (omega*t): not something a case sets.
const model::Model& turntable() {
  static const auto model = io::read_model_file(examples + "/turntable_pendulum.yaml");
  return *model;
}

ModelError error_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const ModelError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted";
  return ModelError({"(no error)", 0, 0}, "(no error)");
}

// The error's place, offending name and a part of its message.
void expect_error(const ModelError& e, const std::string& file, int line, int column,
                  const std::string& offending, const std::string& message_part) {
  EXPECT_EQ(e.where().file, file) << e.what();
  EXPECT_EQ(e.where().line, line) << e.what();
  EXPECT_EQ(e.where().column, column) << e.what();
  EXPECT_EQ(e.offending(), offending) << e.what();
  EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos)
      << e.what() << "\n  lacks: " << message_part;
}

// The bits of every number of a table, so that two tables compare bit for bit.
std::vector<std::uint64_t> bits_of(const sweep::CaseTable& table) {
  std::vector<std::uint64_t> bits;
  for (const auto& row : table.numbers)
    for (const double value : row) {
      std::uint64_t b = 0;
      std::memcpy(&b, &value, sizeof b);
      bits.push_back(b);
    }
  return bits;
}

// ---------------------------------------------------------------------------------------------
// Columns

TEST(CaseColumns, EachKindNamesWhatItSetsInTheExamples) {
  const model::SourceLocation here{"here", 1, 1};
  const auto m = sweep::case_column("m", cart(), here);
  EXPECT_EQ(m.kind, ColumnKind::Parameter);
  EXPECT_EQ(m.target, "m");
  const auto theta = sweep::case_column("q0.theta", cart(), here);
  EXPECT_EQ(theta.kind, ColumnKind::InitialCoordinate);
  EXPECT_EQ(theta.target, "theta");
  EXPECT_EQ(theta.name, "q0.theta");
  const auto rate = sweep::case_column("qd0.x", cart(), here);
  EXPECT_EQ(rate.kind, ColumnKind::InitialRate);
  EXPECT_EQ(rate.target, "x");
  const auto input = sweep::case_column("input.u", cart(), here);
  EXPECT_EQ(input.kind, ColumnKind::Input);
  EXPECT_EQ(input.target, "u");
  const auto speed = sweep::case_column("u0.w2", cube(), here);
  EXPECT_EQ(speed.kind, ColumnKind::InitialSpeed);
  EXPECT_EQ(speed.target, "w2");
  const auto prescribed = sweep::case_column("input.alpha", disk(), here);
  EXPECT_EQ(prescribed.kind, ColumnKind::Input);
  EXPECT_EQ(prescribed.target, "alpha");
}

TEST(CaseColumns, AnUnknownColumnIsRefusedAtItsPlaceWithASuggestion) {
  const model::SourceLocation here{"cases.csv", 1, 7};
  auto refused = [&](const std::string& name, const model::Model& model) {
    return error_of([&] { sweep::case_column(name, model, here); });
  };
  expect_error(refused("q0.thta", cart()), "cases.csv", 1, 7, "q0.thta",
               "no coordinate 'thta'; did you mean 'q0.theta'?");
  expect_error(refused("qd0.y", cart()), "cases.csv", 1, 7, "qd0.y", "no coordinate 'y'");
  expect_error(refused("x0.theta", cart()), "cases.csv", 1, 7, "x0.theta",
               "unknown column prefix 'x0.'; a column is NAME (a parameter), q0.NAME, qd0.NAME");
  EXPECT_NE(std::string(refused("x0.theta", cart()).what()).find("did you mean 'q0.theta'?"),
            std::string::npos);
  // No suggestion of a column the model does not have: m is a parameter, not a coordinate.
  EXPECT_EQ(std::string(refused("x0.m", cart()).what()).find("did you mean"), std::string::npos);
  expect_error(refused("mcc", cart()), "cases.csv", 1, 7, "mcc",
               "no parameter 'mcc'; did you mean 'mc'?");
  expect_error(refused("theta", cart()), "cases.csv", 1, 7, "theta",
               "'theta' is a coordinate: its initial value is column q0.theta");
  expect_error(refused("u", cart()), "cases.csv", 1, 7, "u", "'u' is an input: column input.u");
  expect_error(refused("input.uu", cart()), "cases.csv", 1, 7, "input.uu",
               "no input or unspecified prescribed function 'uu'; did you mean 'input.u'?");
  expect_error(refused("u0.w1", cart()), "cases.csv", 1, 7, "u0.w1",
               "the model has no generalized speeds");
  expect_error(refused("u0.w4", cube()), "cases.csv", 1, 7, "u0.w4",
               "no generalized speed 'w4'; did you mean 'u0.w1'?");
  // A prescribed function with an expression is the model's own, not a case's.
  expect_error(refused("input.psi", turntable()), "cases.csv", 1, 7, "input.psi",
               "the model has no inputs and no unspecified prescribed functions");
  expect_error(refused("input.", disk()), "cases.csv", 1, 7, "input.",
               "no input or unspecified prescribed function ''");
}

// ---------------------------------------------------------------------------------------------
// The cases file

class CasesFile : public test_support::ScratchDirTest {};

TEST_F(CasesFile, ReadsEveryColumnKindWithQuotesAndComments) {
  const std::string path = write("cases.csv",
                                 "# masses and starts\n"
                                 "\n"
                                 "m, q0.theta ,qd0.x,\"input.u\"\n"
                                 "0.5,0.1,-2,3\n"
                                 "  # a comment between cases\n"
                                 "+1e-1, -0.25 , 0 ,\"F_w*atan2(t, l)\"\n"
                                 "\n"
                                 "2,1,1.5e3,  sin(2*t)  \n");
  const auto table = sweep::read_cases_csv(path, cart());
  ASSERT_EQ(table.columns.size(), 4u);
  EXPECT_EQ(table.columns[0].kind, ColumnKind::Parameter);
  EXPECT_EQ(table.columns[1].name, "q0.theta");
  EXPECT_EQ(table.columns[2].kind, ColumnKind::InitialRate);
  EXPECT_EQ(table.columns[3].kind, ColumnKind::Input);
  ASSERT_EQ(table.size(), 3u);
  ASSERT_EQ(table.expressions.size(), 3u);
  ASSERT_EQ(table.rows.size(), 3u);

  EXPECT_EQ(table.numbers[0], (std::vector<double>{0.5, 0.1, -2, 3}));
  EXPECT_EQ(table.expressions[0], (std::vector<std::string>{"", "", "", "3"}));
  EXPECT_EQ(table.numbers[1][0], 0.1);
  EXPECT_EQ(table.numbers[1][1], -0.25);
  EXPECT_EQ(table.numbers[1][2], 0.0);
  EXPECT_TRUE(std::isnan(table.numbers[1][3]));  // an expression
  EXPECT_EQ(table.expressions[1][3], "F_w*atan2(t, l)");
  EXPECT_EQ(table.numbers[2][2], 1500.0);
  EXPECT_EQ(table.expressions[2][3], "sin(2*t)");

  const int lines[] = {4, 6, 8};
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(table.rows[k].file, path);
    EXPECT_EQ(table.rows[k].line, lines[k]);
    EXPECT_EQ(table.rows[k].column, 1);
  }
}

TEST_F(CasesFile, CrlfAndAByteOrderMarkReadAsPlainLines) {
  const std::string plain = "m,input.u\n0.5,\"atan2(t, 1)\"\n1,2\n";
  std::string windows;
  for (const char c : plain) windows += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const auto a = sweep::read_cases_csv(write("plain.csv", plain), cart());
  const auto b = sweep::read_cases_csv(write("windows.csv", "\xEF\xBB\xBF" + windows), cart());
  EXPECT_EQ(bits_of(a), bits_of(b));
  EXPECT_EQ(a.expressions, b.expressions);
  EXPECT_EQ(b.expressions[0][1], "atan2(t, 1)");
  EXPECT_EQ(b.rows[1].line, 3);

  // Columns count after the mark, and a CRLF file's errors are where a LF file's are.
  const std::string bom = write("bom.csv", "\xEF\xBB\xBFm,mm\r\n1,2\r\n");
  expect_error(error_of([&] { sweep::read_cases_csv(bom, cart()); }), bom, 1, 3, "mm",
               "no parameter 'mm'");
  const std::string crlf = write("crlf.csv", "m,q0.x\r\n1,2\r\n3,oops\r\n");
  expect_error(error_of([&] { sweep::read_cases_csv(crlf, cart()); }), crlf, 3, 3, "oops",
               "not a number in column q0.x");
}

TEST_F(CasesFile, AQuotedCellMayHoldQuotesAndLineBreaks) {
  // "" is a quote: the cell is 1"5, which is no number, named as unquoted.
  const std::string quote = write("quote.csv", "m\n\"1\"\"5\"\n");
  expect_error(error_of([&] { sweep::read_cases_csv(quote, cart()); }), quote, 2, 1, "1\"5",
               "not a number in column m");
  // A quoted cell spanning two lines; the next cell and row are counted on from there.
  const std::string broken = write("broken.csv", "input.u,m\n\"sin(t) +\n cos(t)\",2\n3,4\n");
  const auto table = sweep::read_cases_csv(broken, cart());
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table.expressions[0][0], "sin(t) +\n cos(t)");
  EXPECT_EQ(table.numbers[0][1], 2.0);
  EXPECT_EQ(table.rows[0].line, 2);
  EXPECT_EQ(table.rows[1].line, 4);
}

TEST_F(CasesFile, EveryRefusalIsAtItsCellNamingIt) {
  struct Case {
    const char* text;
    int line, column;
    const char* offending;
    const char* message;
  };
  const Case cases[] = {
      {"m,q0.thta\n1,2\n", 1, 3, "q0.thta", "did you mean 'q0.theta'?"},
      {"m, x0.theta\n1,2\n", 1, 4, "x0.theta", "unknown column prefix 'x0.'"},
      {"m,l,m\n1,2,3\n", 1, 5, "m", "column given twice (first at column 1)"},
      {"m,,l\n1,2,3\n", 1, 3, "", "empty column name"},
      {"m,l,q0.x\n1,2,3\n4,5\n", 3, 4, "q0.x", "the row has 2 cells, the header 3"},
      {"m,l\n1,2\n4,5, 6\n", 3, 6, "6", "the row has 3 cells, the header 2"},
      {"m,l\n1,2,\n", 2, 5, "", "the row has 3 cells, the header 2 (a comma after the last cell?)"},
      {"m,l\n1, ,\n", 2, 5, "", "the row has 3 cells, the header 2"},
      {"m,l\n1,2\n3,\n", 3, 3, "l", "empty cell"},
      {"m,l\n1,\"\"\n", 2, 3, "l", "empty cell"},
      {"m,l\n1,2.5.1\n", 2, 3, "2.5.1", "not a number in column l"},
      {"m,l\n1,2 3\n", 2, 3, "2 3", "not a number in column l"},
      {"m,l\n1,0x10\n", 2, 3, "0x10", "not a number in column l"},
      {"m,l\n1,+-2\n", 2, 3, "+-2", "not a number in column l"},
      {"m,l\n1,inf\n", 2, 3, "inf", "not a finite number in column l"},
      {"m,l\nnan,1\n", 2, 1, "nan", "not a finite number in column m"},
      {"m,l\n1,1e999\n", 2, 3, "1e999", "not a finite number in column l"},
      {"m,input.u\n1,-1e400\n", 2, 3, "-1e400", "not a finite number in column input.u"},
      // An input's expression: at the character the parser stopped at, in the file.
      {"m,input.u\n1, sin(t) + zz\n", 2, 13, "zz", "column input.u: "},
      {"m,input.u\n1,\"atan2(t, zz)\"\n", 2, 13, "zz", "column input.u: "},
      {"m,input.u\n1,\"\"\"\"\n", 2, 4, "\"", "column input.u: "},
      {"m,input.u\n1,q0.x\n", 2, 5, ".", "column input.u: unexpected character"},
      {"m,input.u\n1,\"sin(t) +\n  zz\"\n", 3, 3, "zz", "column input.u: "},
      {"m,l\n1,\"2\n", 2, 3, "l", "quoted cell never closed"},
      {"\"m,l\n1,2\n", 1, 1, "\"", "quoted cell never closed"},
      {"m,l\n1,\"2\"x\n", 2, 6, "x", "text after the closing quote"},
      {"m,l\n1,2\"\n", 2, 4, "2\"", "a quote inside an unquoted cell"},
      {"", 1, 1, "", "no header"},
      {"# only a comment\n\n", 3, 1, "", "no header"},
      {"# only a comment", 2, 1, "", "no header"},
      {"m,l\n# no case\n", 3, 1, "", "no case"},
      {"m,l", 2, 1, "", "no case"},
  };
  int k = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string path = write("bad" + std::to_string(k++) + ".csv", c.text);
    expect_error(error_of([&] { sweep::read_cases_csv(path, cart()); }), path, c.line, c.column,
                 c.offending, c.message);
  }
  // What read_input_file refuses, with the kind of file named.
  const std::string missing = (dir_ / "missing.csv").string();
  EXPECT_NE(std::string(error_of([&] { sweep::read_cases_csv(missing, cart()); }).what())
                .find("cases file"),
            std::string::npos);
}

TEST_F(CasesFile, AnyBytesGiveATableOrAnErrorInsideTheFile) {
  // A good file with a few of what matters to the reader (quotes, commas, line ends, blanks, '#',
  // a byte order mark, bytes that are no UTF-8) inserted or overwritten at random places: never
  // a crash, never another exception, and every error at a line and column the file has.
  const std::string good =
      "# cases\nm, q0.x ,input.u\n1,2,3\n\n\"4\",-2.5e1,\"atan2(t, 1)\"\r\n5,6, sin(t)\n";
  const std::string alphabet[] = {"\"", ",", "\n",  "\r\n", "\r", " ", "\t", "#",   "\xEF\xBB\xBF",
                                  "m",  "e", "q0.", "1",    "(",  ")", "zz", "\xFF"};
  sweep::RandomStream random(28);
  std::size_t tables = 0, errors = 0;
  for (int k = 0; k < 3000; ++k) {
    std::string text = good;
    const auto changes = random.below(4);
    for (std::uint64_t i = 0; i < changes; ++i) {
      const auto at = static_cast<std::size_t>(random.below(text.size() + 1));
      const std::string& piece = alphabet[random.below(std::size(alphabet))];
      if (random.below(2) == 0 || at == text.size())
        text.insert(at, piece);
      else
        text.replace(at, 1, piece);
    }
    const std::string path = write("fuzz.csv", text);
    try {
      const auto table = sweep::read_cases_csv(path, cart());
      ++tables;
      EXPECT_EQ(table.numbers.size(), table.rows.size());
      EXPECT_EQ(table.expressions.size(), table.rows.size());
    } catch (const ModelError& e) {
      ++errors;
      int lines = 1;
      for (const char c : text) lines += c == '\n';
      EXPECT_EQ(e.where().file, path) << e.what();
      EXPECT_GE(e.where().line, 1) << e.what();
      EXPECT_LE(e.where().line, lines + 1) << e.what();
      EXPECT_GE(e.where().column, 1) << e.what();
      EXPECT_LE(static_cast<std::size_t>(e.where().column), text.size() + 1) << e.what();
    }
  }
  EXPECT_GT(tables, 500u);  // unchanged files and harmless changes
  EXPECT_GT(errors, 500u);
}

// ---------------------------------------------------------------------------------------------
// --grid

TEST(CaseGrid, TheFirstSpecVariesSlowestOverExactValues) {
  const auto table = sweep::grid_cases({"m=0.5,2", "q0.theta=0:0.1:1", "input.u = -1 , 1"}, cart());
  ASSERT_EQ(table.size(), 2u * 11u * 2u);
  ASSERT_EQ(table.columns.size(), 3u);
  EXPECT_EQ(table.columns[2].kind, ColumnKind::Input);
  for (std::size_t i = 0; i < table.size(); ++i) {
    const std::size_t a = i / 22, b = (i / 2) % 11, c = i % 2;  // nested loops, m outermost
    EXPECT_EQ(table.numbers[i][0], a == 0 ? 0.5 : 2.0) << i;
    // START + k·STEP from k, with START = 0: one rounding of k·0.1, and 1 exactly at the end.
    EXPECT_EQ(table.numbers[i][1], b == 10 ? 1.0 : static_cast<double>(b) * 0.1) << i;
    EXPECT_EQ(table.numbers[i][2], c == 0 ? -1.0 : 1.0) << i;
    EXPECT_EQ(table.expressions[i][2], c == 0 ? "-1" : "1") << i;
    EXPECT_EQ(table.expressions[i][0], "");
    EXPECT_EQ(table.rows[i].file, "grid");
  }
  EXPECT_EQ(table.numbers.back()[1], 1.0);
}

TEST(CaseGrid, ARangeReachesStopWithinAStepsRoundingAndNeverPassesIt) {
  auto values = [](const std::string& range) {
    std::vector<double> v;
    for (const auto& row : sweep::grid_cases({"m=" + range}, cart()).numbers) v.push_back(row[0]);
    return v;
  };
  // 0.3/0.1 is 2.9999999999999996: STOP is still the fourth value, exactly as written.
  const auto thirds = values("0:0.1:0.3");
  ASSERT_EQ(thirds.size(), 4u);
  EXPECT_EQ(thirds.back(), 0.3);
  EXPECT_EQ(values("1:-0.25:0"), (std::vector<double>{1, 0.75, 0.5, 0.25, 0}));
  EXPECT_EQ(values("0:0.3:1"), (std::vector<double>{0, 0.3, 0.6, 0.8999999999999999}));
  EXPECT_EQ(values("2:5:2"), (std::vector<double>{2}));
  // Not accumulated: the 10⁵-th value of 0.1 steps from 1 is as close to 1 + k/10 as one
  // rounding allows, where a running sum would have drifted by many ulps.
  const auto fine = values("1:0.1:10001");
  ASSERT_EQ(fine.size(), 100001u);
  for (std::size_t k = 0; k < fine.size(); k += 997)
    EXPECT_NEAR(fine[k], 1.0 + static_cast<double>(k) / 10.0, 2e-12) << k;
  EXPECT_EQ(fine.back(), 10001.0);
}

TEST(CaseGrid, EveryRefusalNamesItsSpec) {
  struct Case {
    std::vector<std::string> specs;
    std::string offending, message;
  };
  const std::vector<Case> cases = {
      {{"m"}, "m", "expected NAME=START:STEP:STOP or NAME=V1,V2,..."},
      {{"=1,2"}, "=1,2", "expected NAME=START:STEP:STOP"},
      {{"m=1:2"}, "m=1:2", "a range is START:STEP:STOP, three numbers"},
      {{"m=1:2:3:4"}, "m=1:2:3:4", "a range is START:STEP:STOP, three numbers"},
      {{"m=1,,2"}, "m=1,,2", "an empty value"},
      {{"m="}, "m=", "an empty value"},
      {{"m=1,abc"}, "m=1,abc", "'abc' is not a number"},
      {{"m=0:1:inf"}, "m=0:1:inf", "'inf' is not a finite number"},
      {{"m=0:0:1"}, "m=0:0:1", "a step of 0"},
      {{"m=0:-0.1:1"}, "m=0:-0.1:1", "the step goes away from STOP"},
      {{"m=1,2", "l=3", "m=4"}, "m=4", "column m given twice"},
      {{"mm=1"}, "mm=1", "no parameter 'mm'"},
      {{"q0.thta=1"}, "q0.thta=1", "did you mean 'q0.theta'?"},
      {{"m=0:1e-8:1"}, "m=0:1e-8:1", "more than 10000000 values"},
      {{"m=-1e308:1e-300:1e308"}, "m=-1e308:1e-300:1e308", "more than 10000000 values"},
      {{"m=0:1:9999", "l=0:1:1000"}, "l=0:1:1000", "the grid has more than 10000000 cases"},
      {{}, "", "no grid"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.offending);
    expect_error(error_of([&] { sweep::grid_cases(c.specs, cart()); }), "grid", 0, 0, c.offending,
                 c.message);
  }
}

// ---------------------------------------------------------------------------------------------
// --sample

TEST(RandomStream, ReproducesThePublishedOutputs) {
  // xoshiro256** from the state {1, 2, 3, 4}: the outputs of the authors' reference code (as
  // Rust's rand_xoshiro and others check them).
  sweep::RandomStream x(std::array<std::uint64_t, 4>{1, 2, 3, 4});
  for (const std::uint64_t expected :
       {11520ULL, 0ULL, 1509978240ULL, 1215971899390074240ULL, 1216172134540287360ULL,
        607988272756665600ULL, 16172922978634559625ULL, 8476171486693032832ULL,
        10595114339597558777ULL, 2904607092377533576ULL})
    EXPECT_EQ(x.next(), expected);
  // splitmix64 from 0 and from 1234567 (the reference splitmix64.c).
  std::uint64_t state = 0;
  for (const std::uint64_t expected :
       {0xE220A8397B1DCDAFULL, 0x6E789E6AA1B965F4ULL, 0x06C45D188009454FULL, 0xF88BB8A8724C81ECULL})
    EXPECT_EQ(sweep::RandomStream::splitmix64(state), expected);
  state = 1234567;
  for (const std::uint64_t expected : {6457827717110365317ULL, 3203168211198807973ULL,
                                       9817491932198370423ULL, 4593380528125082431ULL})
    EXPECT_EQ(sweep::RandomStream::splitmix64(state), expected);
}

TEST(RandomStream, UniformAndBoundedDrawsStayInRange) {
  sweep::RandomStream r(7);
  std::array<int, 3> counts{};
  for (int i = 0; i < 30000; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    EXPECT_EQ(std::ldexp(u, 53), std::floor(std::ldexp(u, 53)));  // a multiple of 2⁻⁵³
    const std::uint64_t k = r.below(3);
    ASSERT_LT(k, 3u);
    ++counts[k];
    EXPECT_EQ(r.below(1), 0u);
  }
  for (const int n : counts) EXPECT_NEAR(n, 10000, 500);  // 5 standard deviations
}

TEST(CaseSample, EachStratumOfEachDimensionIsUsedOnce) {
  const std::vector<std::string> specs = {"m=0.1:0.5", "q0.theta=-3.14:3.14", "input.u=-10:-9.5"};
  const double low[] = {0.1, -3.14, -10}, high[] = {0.5, 3.14, -9.5};
  for (const std::size_t n : {1u, 2u, 7u, 100u, 1000u})
    for (const std::uint64_t seed : {0ULL, 1ULL, 42ULL, 0xFFFFFFFFFFFFFFFFULL}) {
      SCOPED_TRACE("N = " + std::to_string(n) + ", seed " + std::to_string(seed));
      const auto table = sweep::sample_cases(specs, n, seed, cart());
      ASSERT_EQ(table.size(), n);
      ASSERT_EQ(table.columns.size(), 3u);
      EXPECT_EQ(table.rows.front().file, "sample");
      for (std::size_t d = 0; d < 3; ++d) {
        std::vector<int> hits(n, 0);
        for (std::size_t k = 0; k < n; ++k) {
          const double v = table.numbers[k][d];
          ASSERT_GE(v, low[d]);
          ASSERT_LT(v, high[d]);
          const auto stratum = static_cast<std::size_t>(
              std::floor((v - low[d]) / (high[d] - low[d]) * static_cast<double>(n)));
          ASSERT_LT(stratum, n);
          ++hits[stratum];
        }
        for (std::size_t s = 0; s < n; ++s)
          EXPECT_EQ(hits[s], 1) << "dimension " << d << " stratum " << s;
      }
      // The input column's number, written so that it reads back to the same double.
      for (std::size_t k = 0; k < n; ++k)
        EXPECT_EQ(std::strtod(table.expressions[k][2].c_str(), nullptr), table.numbers[k][2]);
    }
}

TEST(CaseSample, TheSameSeedGivesTheSameTableBitForBit) {
  const std::vector<std::string> specs = {"m=0.1:0.5", "l=0.5:1.5"};
  const auto a = sweep::sample_cases(specs, 500, 2026, cart());
  const auto b = sweep::sample_cases(specs, 500, 2026, cart());
  const auto c = sweep::sample_cases(specs, 500, 2027, cart());
  EXPECT_EQ(bits_of(a), bits_of(b));
  std::size_t differ = 0;
  const auto ab = bits_of(a), cb = bits_of(c);
  for (std::size_t k = 0; k < ab.size(); ++k) differ += ab[k] != cb[k];
  EXPECT_EQ(differ, ab.size());  // another seed: every value moves
  // The order of the dimensions is that of the specs: the first's values do not depend on the
  // second's presence.
  const auto alone = sweep::sample_cases({"m=0.1:0.5"}, 500, 2026, cart());
  for (std::size_t k = 0; k < 500; ++k) EXPECT_EQ(alone.numbers[k][0], a.numbers[k][0]);
}

TEST(CaseSample, MatchesAnIndependentTranscriptionOfTheDraws) {
  // Computed in Python from the published xoshiro256**/splitmix64 formulas, Fisher–Yates with
  // rejection below 2⁶⁴ mod bound, and LOW + (HIGH − LOW)·(π(k) + U)/N rounded once (exact
  // rational arithmetic): a change to the draws would change every user's sample of a seed.
  const auto table = sweep::sample_cases({"m=0:1", "l=-2:3"}, 4, 42, cart());
  const double expected[4][2] = {
      {0.9811732363313469, -1.146933912984351},
      {0.4979509785705257, 0.8633472022053019},
      {0.19243486510856062, 0.2512803719110097},
      {0.6798146444694789, 2.1517645416441877},
  };
  for (std::size_t k = 0; k < 4; ++k)
    for (std::size_t d = 0; d < 2; ++d) EXPECT_EQ(table.numbers[k][d], expected[k][d]) << k << d;
}

TEST(CaseSample, EveryRefusalNamesItsSpecOrTheCount) {
  struct Case {
    std::vector<std::string> specs;
    std::string offending, message;
  };
  const std::vector<Case> cases = {
      {{"m"}, "m", "expected NAME=LOW:HIGH"},
      {{"m=1"}, "m=1", "expected NAME=LOW:HIGH"},
      {{"m=1:2:3"}, "m=1:2:3", "expected NAME=LOW:HIGH"},
      {{"m=1,2"}, "m=1,2", "expected NAME=LOW:HIGH"},
      {{"m=a:2"}, "m=a:2", "'a' is not a number"},
      {{"m=0:nan"}, "m=0:nan", "'nan' is not a finite number"},
      {{"m=2:1"}, "m=2:1", "LOW must be less than HIGH"},
      {{"m=1:1"}, "m=1:1", "LOW must be less than HIGH"},
      {{"m=-1e308:1e308"}, "m=-1e308:1e308", "HIGH - LOW is beyond the largest number"},
      {{"m=0:1", "m=2:3"}, "m=2:3", "column m given twice"},
      {{"x0.m=0:1"}, "x0.m=0:1", "unknown column prefix 'x0.'; a column is NAME"},
      {{}, "", "no sample"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.offending);
    expect_error(error_of([&] { sweep::sample_cases(c.specs, 10, 1, cart()); }), "sample", 0, 0,
                 c.offending, c.message);
  }
  expect_error(error_of([&] { sweep::sample_cases({"m=0:1"}, 0, 1, cart()); }), "count", 0, 0, "0",
               "expected a number of cases from 1 to 10000000");
  expect_error(error_of([&] { sweep::sample_cases({"m=0:1"}, 10'000'001, 1, cart()); }), "count", 0,
               0, "10000001", "expected a number of cases");
}

}  // namespace
