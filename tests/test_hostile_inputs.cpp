// Issue 25: a model file is data. What a hostile user can hand the readers — a YAML alias that
// contains itself, a "billion laughs" of aliases, a FIFO, /dev/zero, /dev/urandom, a file of
// gigabytes, bytes that are not UTF-8, YAML's .nan, a mesh path naming a secret file, a broken
// mesh element — each is a located error (exit 2), at once, never a crash, a hang or an internal
// error. Every command line here runs under `timeout`, so that a regression fails instead of
// hanging the suite.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "appell/appell.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;
using test_support::CliRun;

const std::string examples = APPELL_EXAMPLES_DIR;
const std::string robot = examples + "/planar_2r.yaml";

std::string temporary(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("appell_hostile_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

std::string write(const std::string& name, const std::string& text) {
  const std::string path = temporary(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

/// The command line, killed after 20 s: a hang is a failure (exit code 137), not a stuck suite.
CliRun run(const std::string& args) { return test_support::run_cli(args, 20); }

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The error parse_model gives for `text` (a failure if it gives none).
model::ModelError model_error(const std::string& text) {
  try {
    io::parse_model(text, "m.yaml");
  } catch (const model::ModelError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return model::ModelError({}, "");
}

const char* const kModelTail = "coordinates: [q]\n";

// Ten levels of ten aliases each: 10^10 nodes once expanded, from 650 bytes.
std::string billion_laughs(const std::string& head) {
  std::string text = head + "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level < 10; ++level) {
    const std::string below = "*l" + std::to_string(level - 1);
    text += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int k = 0; k < 10; ++k) text += (k ? ", " : "") + below;
    text += "]\n";
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// YAML aliases

TEST(HostileInputs, AnAliasInsideItsOwnAnchorIsALocatedError) {
  // Was a stack overflow (exit 139).
  const auto e = model_error("name: &n [*n]\ncoordinates: [q]\n");
  EXPECT_EQ(e.where().line, 1) << e.what();
  EXPECT_EQ(e.where().column, 11) << e.what();
  EXPECT_EQ(e.offending(), "*n") << e.what();
  EXPECT_TRUE(contains(e.what(), "contain itself")) << e.what();
  // Deeper inside, and as a map.
  const auto map = model_error("name: m\ncoordinates: [q]\nframes: &f {a: {parent: *f}}\n");
  EXPECT_EQ(map.where().line, 3) << map.what();
  EXPECT_EQ(map.offending(), "*f") << map.what();

  const std::string path = write("self_alias.yaml", "name: &n [*n]\ncoordinates: [q]\n");
  const auto r = run("derive " + path);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, path + ":1:11: this alias is inside the node its anchor names"))
      << r.out;
}

TEST(HostileInputs, ABillionLaughsIsRefusedAtOnce) {
  // Ran for minutes before.
  const auto start = std::chrono::steady_clock::now();
  const auto e = model_error(billion_laughs(std::string("name: m\n") + kModelTail));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 1.0);
  // Level k holds 1 + 10 (level k-1) nodes, level 0 eleven: level 4 holds 111,111, and the third
  // alias of level 5 (line 8, column 20) passes the budget of 250,000.
  EXPECT_EQ(e.where().line, 8) << e.what();
  EXPECT_EQ(e.where().column, 20) << e.what();
  EXPECT_EQ(e.offending(), "*l4") << e.what();
  EXPECT_TRUE(contains(e.what(), "larger than 250000 nodes once expanded")) << e.what();

  const std::string path =
      write("laughs.yaml", billion_laughs(std::string("name: m\n") + kModelTail));
  const auto r = run("derive " + path);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, path + ":8:20: this alias makes the model file larger")) << r.out;
}

TEST(HostileInputs, AliasesWithinTheBudgetStillWork) {
  // An alias shared by several places is read as a copy at each (the budget refuses only size).
  const auto m = io::parse_model(
      "name: m\ncoordinates: [q]\nparameters: {l: 1}\nframes:\n  a: {rotation: &r rot_z(q)}\n"
      "  b: {parent: a, translation: &t [l, 0, 0], rotation: *r}\n"
      "bodies:\n  rod: {frame: b, mass: 1, com: *t}\n",
      "m.yaml");
  EXPECT_EQ(m->frames.size(), 2u);
}

TEST(HostileInputs, DeepNestingIsALocatedError) {
  const std::string deep = "name: m\ncoordinates: [q]\ndescription: " + std::string(100, '[') +
                           std::string(100, ']') + "\n";
  const auto e = model_error(deep);
  EXPECT_EQ(e.where().line, 3) << e.what();
  EXPECT_TRUE(contains(e.what(), "deeper than 64 levels")) << e.what();
}

TEST(HostileInputs, AClaimsFileGetsTheSameAliasChecks) {
  const auto model = io::parse_model(std::string("name: m\n") + kModelTail, "m.yaml");
  const auto claims_error = [&](const std::string& text) {
    try {
      io::parse_claims(text, "c.yaml", *model);
    } catch (const model::ModelError& e) {
      return e;
    }
    ADD_FAILURE() << "accepted:\n" << text;
    return model::ModelError({}, "");
  };
  const auto self = claims_error("claims: &c [*c]\n");
  EXPECT_EQ(self.where().line, 1) << self.what();
  EXPECT_EQ(self.offending(), "*c") << self.what();
  const auto laughs = claims_error(billion_laughs("claims: []\n"));
  EXPECT_EQ(laughs.where().line, 7) << laughs.what();

  // Found by fuzz_claims_reader: a map as a key was yaml-cpp's "bad conversion", an internal
  // error.
  for (const std::string text :
       {"claims:\n  - {name: e1, coordinate: q1, equation: \"q1 = 0\"}: x\n", "[a]: 1\n"}) {
    const auto key = claims_error(text);
    EXPECT_GE(key.where().line, 1) << key.what();
    EXPECT_TRUE(contains(key.what(), "a key must be a plain name")) << key.what();
  }

  const std::string path = write("self_alias_claims.yaml", "claims: &c [*c]\n");
  const auto r = run("check " + robot + " " + path);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, path + ":1:")) << r.out;
  EXPECT_TRUE(contains(r.out, "(*c)")) << r.out;
}

// ---------------------------------------------------------------------------------------------
// Files that are not files, or too large

TEST(HostileInputs, AFifoIsRefusedWithoutWaitingForAWriter) {
  // Was a hang for ever: opening a FIFO waits for a writer.
  const std::string fifo = temporary("model.fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto r = run("derive " + fifo);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, fifo + ": the model file is a FIFO (named pipe), not a regular file"))
      << r.out;
  const auto claims = run("check " + robot + " " + fifo);
  EXPECT_EQ(claims.code, 2) << claims.out;
  EXPECT_TRUE(contains(claims.out, fifo + ": the claims file is a FIFO")) << claims.out;
  std::remove(fifo.c_str());
}

TEST(HostileInputs, DevicesAreRefusedBeforeAnyRead) {
  // /dev/zero allocated 4 GB before an internal error; /dev/urandom never returned.
  for (const std::string device : {"/dev/zero", "/dev/urandom"}) {
    const auto r = run("derive " + device);
    EXPECT_EQ(r.code, 2) << device << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, device + ": the model file is a character device")) << r.out;
    const auto claims = run("check " + robot + " " + device);
    EXPECT_EQ(claims.code, 2) << device << "\n" << claims.out;
    EXPECT_TRUE(contains(claims.out, device + ": the claims file is a character device"))
        << claims.out;
    const auto trajectory = run("inverse " + robot + " --from-csv " + device + " --out /dev/null");
    EXPECT_EQ(trajectory.code, 2) << trajectory.out;
    EXPECT_TRUE(contains(trajectory.out, device + ": the trajectory file is a character device"))
        << trajectory.out;
  }
  try {
    model::read_input_file("/dev/zero", model::InputKind::Claims);
    ADD_FAILURE() << "read";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().file, "/dev/zero");
  }
  const auto directory = run("derive " + examples);
  EXPECT_EQ(directory.code, 2) << directory.out;
  EXPECT_TRUE(contains(directory.out, "is a directory")) << directory.out;
}

TEST(HostileInputs, AFileBeyondItsKindsLimitIsRefusedBeforeItIsRead) {
  // Sparse: no disk space is used.
  const std::string big = temporary("big.yaml");
  { std::ofstream(big) << "name: m\n"; }
  std::filesystem::resize_file(big, model::input_size_limit(model::InputKind::Model) + 1);
  const auto r = run("derive " + big);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, big + ": the model file is 67108865 bytes; a model file may be at "
                                    "most 64 MiB"))
      << r.out;
  const auto claims = run("check " + robot + " " + big);
  EXPECT_EQ(claims.code, 2) << claims.out;
  EXPECT_TRUE(contains(claims.out, "a claims file may be at most 64 MiB")) << claims.out;
  // A mesh may be larger, up to 2 GiB, and the error points at the model's `gmsh:`.
  std::filesystem::resize_file(big, model::input_size_limit(model::InputKind::Mesh) + 1);
  try {
    fem::read_gmsh(big, model::SourceLocation{"m.yaml", 5, 11});
    ADD_FAILURE() << "read";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().line, 5);
    EXPECT_TRUE(contains(e.what(), "a mesh file may be at most 2048 MiB")) << e.what();
  }
  std::remove(big.c_str());
  // Within the limit, the whole file is read.
  std::ifstream in(robot, std::ios::binary);
  const std::string expected((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  EXPECT_EQ(model::read_input_file(robot, model::InputKind::Model), expected);
}

// ---------------------------------------------------------------------------------------------
// Bytes that are not text, numbers that are not finite

TEST(HostileInputs, ANameThatIsNotUtf8IsALocatedError) {
  // Was "internal error: [json.exception.type_error.316] invalid UTF-8 byte".
  const auto e = model_error("name: m\xff\xfe\ncoordinates: [q]\n");
  EXPECT_EQ(e.where().line, 1) << e.what();
  EXPECT_EQ(e.where().column, 7) << e.what();
  EXPECT_EQ(e.offending(), "m\\xFF\\xFE") << e.what();
  EXPECT_TRUE(contains(e.what(), "not UTF-8 text: byte 2 of this value is \\xFF")) << e.what();
  // An overlong form and a surrogate are not UTF-8 either; real UTF-8 is fine.
  EXPECT_EQ(
      model_error("name: m\n" + std::string(kModelTail) + "description: \xc0\xaf\n").where().line,
      3);
  EXPECT_EQ(model_error("name: m\n" + std::string(kModelTail) + "description: \xed\xa0\x80\n")
                .where()
                .line,
            3);
  EXPECT_NO_THROW(
      io::parse_model("name: m\ncoordinates: [q]\ndescription: Pendel \xc3\xa4\n", "m.yaml"));

  const std::string path = write("latin1.yaml", "name: pendule-\xe9t\xe9\ncoordinates: [q]\n");
  const auto r = run("derive " + path + " --format json");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, path + ":1:7: not UTF-8 text")) << r.out;
  EXPECT_FALSE(contains(r.out, "internal error")) << r.out;

  const std::string claims = write(
      "latin1_claims.yaml", "claims:\n  - {name: \"M\xe9\", mass_matrix: [1, 1], value: 1}\n");
  const auto c = run("check " + robot + " " + claims + " --json");
  EXPECT_EQ(c.code, 2) << c.out;
  EXPECT_TRUE(contains(c.out, claims + ":2:")) << c.out;
  EXPECT_TRUE(contains(c.out, "not UTF-8 text")) << c.out;

  const std::string urdf =
      write("latin1.urdf", "<robot name=\"r\xe9\">\n  <link name=\"base\"/>\n</robot>\n");
  const auto u = run("derive " + urdf + " --format json");
  EXPECT_EQ(u.code, 2) << u.out;
  EXPECT_TRUE(contains(u.out, urdf + ":1:15: not UTF-8 text")) << u.out;
}

TEST(HostileInputs, YamlNanAndInfinityAreNotNumbers) {
  // Was "unexpected character in expression (.)".
  for (const std::string value : {".nan", ".NaN", ".inf", "-.inf", "2*.Inf"}) {
    const auto e = model_error("name: m\ncoordinates: [q]\nparameters:\n  a: " + value + "\n");
    EXPECT_EQ(e.where().line, 4) << value << ": " << e.what();
    EXPECT_EQ(e.where().column, 6 + int(value.find('.'))) << value << ": " << e.what();
    EXPECT_TRUE(contains(e.what(), "numbers must be finite")) << value << ": " << e.what();
  }
  // A name that merely starts so is still an unexpected character, not a number.
  EXPECT_FALSE(contains(model_error("name: m\ncoordinates: [q]\nparameters:\n  a: .nanx\n").what(),
                        "finite"));
  const std::string path = write("nan.yaml", "name: m\ncoordinates: [q]\ngravity: [0, .nan, 0]\n");
  const auto r = run("derive " + path);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, path + ":3:14: numbers must be finite")) << r.out;
}

// ---------------------------------------------------------------------------------------------
// Meshes

std::string flexible_model(const std::string& mesh) {
  return "name: bad\ncoordinates: []\nframes: {base: {}}\nflexible:\n"
         "  - name: bar\n    frame: base\n    mesh: {gmsh: " +
         mesh + "}\n    material: {E: 2.1e11, nu: 0.3, rho: 7850}\n";
}

TEST(HostileInputs, AMeshPathToAnotherFileDoesNotShowItsContent) {
  // Was "not a Gmsh mesh file: it does not start with $MeshFormat (SECRET...)".
  const std::string secret = write("secret.txt", "SECRET-hunter2 do-not-show\nmore\n");
  const std::string model = write("secret.yaml", flexible_model(secret));
  const auto r = run("fem " + model);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, secret + ":1:1: not a Gmsh mesh file: expected $MeshFormat"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "SECRET")) << r.out;
  EXPECT_FALSE(contains(r.out, "hunter2")) << r.out;
  try {
    fem::read_gmsh(secret, {});
    ADD_FAILURE() << "read";
  } catch (const model::ModelError& e) {
    EXPECT_FALSE(contains(e.what(), "SECRET")) << e.what();
    EXPECT_EQ(e.offending(), "");
  }
}

// One tetrahedron, its nodes 2 and 3 swapped: inverted. Element tag 7 on line 19.
const char* const kInvertedTet =
    "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
    "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n"
    "$Elements\n1 1 7 7\n3 1 4 1\n7 1 3 2 4\n$EndElements\n";

TEST(HostileInputs, ABrokenMeshElementIsLocatedInTheMeshFile) {
  // Was "computation failed: element 0 (tet4): non-positive Jacobian determinant" (0-based, no
  // place).
  const std::string mesh = write("inverted.msh", kInvertedTet);
  const fem::Mesh read = fem::read_gmsh(mesh, {});
  ASSERT_EQ(read.elements.size(), 1u);
  EXPECT_EQ(read.element_number(0), 7u);
  EXPECT_EQ(read.element_where(0).str(), mesh + ":19:1");
  try {
    fem::element_integrals(read, 0, fem::Material{2.1e11, 0.3, 7850}, {});
    ADD_FAILURE() << "accepted";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().line, 19) << e.what();
    EXPECT_EQ(e.offending(), "7") << e.what();
    EXPECT_TRUE(contains(e.what(), "element 7 (tet4): non-positive Jacobian")) << e.what();
  }
  const std::string model = write("inverted.yaml", flexible_model(mesh));
  const auto r = run("fem " + model + " --modes 1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, mesh + ":19:1: element 7 (tet4): non-positive Jacobian")) << r.out;
  // A generated mesh numbers its elements from 1.
  fem::Mesh box = fem::box_mesh({1, 1, 1}, {2, 1, 1});
  EXPECT_EQ(box.element_number(1), 2u);
  EXPECT_EQ(box.element_where(1).line, 0);
}

}  // namespace
