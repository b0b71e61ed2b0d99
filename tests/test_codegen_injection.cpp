// A model file is data: nothing it says may become code in what `codegen` writes or the JIT
// compiles and loads. Every free-text field (the model's name and description, its file's name, a
// URDF robot's, link's and joint's names) is fed with comment terminators, line breaks, `#`,
// backslashes, trigraphs and non-ASCII; the generated C and C++ must then be, once comments are
// removed as a compiler removes them, the very code a harmless model gives, and must compile. The
// exploit of issue 25 (a constructor in the model's name, run by `appell eval`) is run through the
// command line and must leave no trace.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "appell/codegen/comment_text.hpp"
#include "appell/codegen/cpp_generator.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/principles/derive.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

using namespace appell;
namespace fs = std::filesystem;

namespace {

// Texts that would end a comment, start a line of their own or splice one in, in either language.
const std::vector<std::string>& hostile_texts() {
  static const std::vector<std::string> texts = {
      "*/ int injected_block = 1; /*",
      "x\n#error injected after a line break\n",
      "x\r#error injected after a carriage return",
      "a \\\n#error spliced by a backslash",
      "a ?\?/\n#error spliced by a trigraph",
      "// */ int injected_line = 1; /* //",
      "*/*/*/ #define pi 3 /*/*",
      "\xc3\x9c"
      "bung \xe2\x88\x82 \xe5\x90\x8d\xe5\x89\x8d",  // Übung ∂ 名前 (valid UTF-8)
      "tab\tand bell\a and \x7f",
  };
  return texts;
}

// The text as a YAML double-quoted scalar (every byte outside printable ASCII escaped).
std::string yaml_quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", byte);
      out += buffer;
    } else {
      out += c;  // UTF-8 passes through as it is
    }
  }
  return out + "\"";
}

std::string pendulum_yaml(const std::string& name, const std::string& description) {
  return "name: " + yaml_quoted(name) + "\ndescription: " + yaml_quoted(description) +
         "\nparameters: {m: 1.0, l: 0.5, g: 9.81, k: 'm*l/2'}\n"
         "coordinates: [q1, q2]\n"
         "inputs: [u]\n"
         "frames:\n"
         "  a: {parent: world, rotation: rot_z(q1)}\n"
         "  b: {parent: a, translation: [0, -l, 0], rotation: rot_z(q2)}\n"
         "particles:\n"
         "  p1: {frame: a, mass: m, position: [0, -l, 0]}\n"
         "  p2: {frame: b, mass: k, position: [0, -l, 0]}\n"
         "gravity: [0, -g, 0]\n"
         "loads:\n"
         "  - {generalized: {coordinate: q1, value: u}}\n";
}

// C's translation phases 1-3 as GCC runs them with -trigraphs: trigraphs replaced, lines spliced
// at backslash-newline, then each comment replaced by one space (string and character literals
// kept whole). What is left is what the compiler sees as code.
std::string code_without_comments(const std::string& source) {
  std::string text;
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source.compare(i, 2, "??") == 0 && i + 2 < source.size()) {
      static const std::string from = "=/'()!<>-", to = "#\\^[]|{}~";
      if (const auto k = from.find(source[i + 2]); k != std::string::npos) {
        text += to[k];
        i += 2;
        continue;
      }
    }
    text += source[i];
  }
  std::string spliced;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      continue;
    }
    spliced += text[i];
  }
  std::string code;
  for (std::size_t i = 0; i < spliced.size(); ++i) {
    const char c = spliced[i];
    if (c == '"' || c == '\'') {
      const std::size_t start = i;
      for (++i; i < spliced.size() && spliced[i] != c; ++i)
        if (spliced[i] == '\\') ++i;
      code += spliced.substr(start, i - start + 1);
    } else if (spliced.compare(i, 2, "//") == 0) {
      while (i < spliced.size() && spliced[i] != '\n') ++i;
      code += " \n";
    } else if (spliced.compare(i, 2, "/*") == 0) {
      const std::size_t end = spliced.find("*/", i + 2);
      i = end == std::string::npos ? spliced.size() : end + 1;
      code += ' ';
    } else {
      code += c;
    }
  }
  return code;
}

struct Generated {
  std::string c, cpp;
};

Generated generate(const std::shared_ptr<const model::Model>& model) {
  const auto equations = principles::derive(model, principles::Method::GibbsAppell);
  codegen::CodegenOptions options;
  options.namespace_name = "model";  // the default one is made from the name: keep it fixed
  options.language = codegen::Language::C;
  Generated g;
  g.c = codegen::generate_code(equations, options);
  options.language = codegen::Language::Cpp;
  g.cpp = codegen::generate_code(equations, options);
  return g;
}

// Compiles a program that includes `header` with the system's compiler (C99 or C++17, trigraphs
// on, warnings as errors); the compiler's messages on failure, "" on success.
std::string compile_errors(const std::string& header, bool c, const fs::path& dir) {
  const fs::path included = dir / (c ? "generated.h" : "generated.hpp");
  const fs::path main = dir / (c ? "main.c" : "main.cpp");
  const fs::path log = dir / "compile.log";
  std::ofstream(included, std::ios::binary) << header;
  std::ofstream(main) << "#include \"" << included.filename().string() << "\"\n"
                      << (c ? "int main(void) { return 0; }\n" : "int main() { return 0; }\n");
  const std::string command = std::string(c ? "cc -std=c99" : "c++ -std=c++17") +
                              " -trigraphs -Wall -Werror -c -o " + (dir / "main.o").string() + " " +
                              main.string() + " >" + log.string() + " 2>&1";
  if (std::system(command.c_str()) == 0) return "";
  std::ifstream in(log);
  std::stringstream s;
  s << in.rdbuf();
  return "compile failed: " + s.str();
}

bool have_compilers() {
  return std::system("cc --version >/dev/null 2>&1") == 0 &&
         std::system("c++ --version >/dev/null 2>&1") == 0;
}

using CodegenInjection = test_support::ScratchDirTest;

}  // namespace

TEST(CommentText, OrdinaryTextIsUnchanged) {
  EXPECT_EQ(codegen::comment_text("double-pendulum (double_pendulum.yaml)"),
            "double-pendulum (double_pendulum.yaml)");
  EXPECT_EQ(codegen::comment_text("m = l*2/3 in the model"), "m = l*2/3 in the model");
}

TEST(CommentText, NothingThatEndsOrSplicesACommentSurvives) {
  const std::vector<std::string> more = {"*/", "/*", "a*/b", "**//**",   "?\?/", "??\?/",
                                         "\\", "\n", "\r\n", "\xff\xfe", "\xc3", "\xed\xa0\x80"};
  std::vector<std::string> all = hostile_texts();
  all.insert(all.end(), more.begin(), more.end());
  for (const std::string& text : all) {
    const std::string inert = codegen::comment_text(text);
    EXPECT_EQ(inert.find("*/"), std::string::npos) << inert;
    EXPECT_EQ(inert.find("/*"), std::string::npos) << inert;
    EXPECT_EQ(inert.find("??"), std::string::npos) << inert;
    EXPECT_EQ(inert.find('\\'), std::string::npos) << inert;
    for (const char c : inert) {
      const auto byte = static_cast<unsigned char>(c);
      EXPECT_TRUE(byte >= 0x20 && byte < 0x7f) << "byte " << int(byte) << " in " << inert;
    }
    // Still ends well inside both kinds of comment, whatever follows it.
    EXPECT_EQ(code_without_comments("/* " + inert + " */x"), " x");
    EXPECT_EQ(code_without_comments("// " + inert + "\nx"), " \nx");
  }
}

TEST(CommentText, CharactersAreNamedNotDropped) {
  EXPECT_EQ(codegen::comment_text("\xc3\x9c"), "<U+00DC>");
  EXPECT_EQ(codegen::comment_text("a\nb"), "a<U+000A>b");
  EXPECT_EQ(codegen::comment_text("\xff"), "<0xFF>");
  EXPECT_EQ(codegen::comment_text("\xe0\x80\x80"), "<0xE0><0x80><0x80>");  // overlong: not UTF-8
  EXPECT_EQ(codegen::comment_text("a\\b"), "a<backslash>b");
  EXPECT_EQ(codegen::comment_text("*/"), "* /");
}

TEST_F(CodegenInjection, NoModelTextBecomesCodeInCOrCpp) {
  const Generated benign =
      generate(io::parse_model(pendulum_yaml("benign", "benign"), "benign.yaml"));
  const std::string benign_c = code_without_comments(benign.c);
  const std::string benign_cpp = code_without_comments(benign.cpp);
  const bool compilers = have_compilers();
  if (compilers) {
    EXPECT_EQ(compile_errors(benign.c, true, dir_), "");
    EXPECT_EQ(compile_errors(benign.cpp, false, dir_), "");
  }
  for (const std::string& text : hostile_texts()) {
    SCOPED_TRACE(text);
    // The same text as the model's name, its description and its file's name at once.
    const Generated hostile = generate(io::parse_model(pendulum_yaml(text, text), text + ".yaml"));
    EXPECT_NE(hostile.c, benign.c);  // the text is there, in its comments
    EXPECT_EQ(code_without_comments(hostile.c), benign_c);
    EXPECT_EQ(code_without_comments(hostile.cpp), benign_cpp);
    if (compilers) {
      EXPECT_EQ(compile_errors(hostile.c, true, dir_), "");
      EXPECT_EQ(compile_errors(hostile.cpp, false, dir_), "");
    }
  }
}

TEST_F(CodegenInjection, NoUrdfTextBecomesCode) {
  const auto urdf = [](const std::string& robot, const std::string& link,
                       const std::string& joint) {
    const auto escaped = [](const std::string& s) {
      std::string out;
      for (const char c : s) {
        if (c == '<')
          out += "&lt;";
        else if (c == '&')
          out += "&amp;";
        else if (c == '"')
          out += "&quot;";
        else if (c == '\n')
          out += "&#10;";
        else if (c == '\r')
          out += "&#13;";
        else if (c == '\t')
          out += "&#9;";
        else
          out += c;
      }
      return out;
    };
    return "<robot name=\"" + escaped(robot) + "\">\n<link name=\"base\"/>\n<link name=\"" +
           escaped(link) +
           "\"><inertial><mass value=\"2\"/><origin xyz=\"0 0 -0.5\"/>"
           "<inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.02\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>"
           "</inertial></link>\n<joint name=\"" +
           escaped(joint) + "\" type=\"revolute\"><parent link=\"base\"/><child link=\"" +
           escaped(link) +
           "\"/><axis xyz=\"1 0 0\"/><limit effort=\"1\" velocity=\"1\" lower=\"-1\" "
           "upper=\"1\"/></joint>\n</robot>\n";
  };
  const auto read = [&](const std::string& text, const std::string& file_name) {
    const fs::path path = dir_ / file_name;
    std::ofstream(path, std::ios::binary) << text;
    return io::read_urdf_file(path.string());
  };
  const Generated benign = generate(read(urdf("robot", "arm", "shoulder"), "robot.urdf"));
  const bool compilers = have_compilers();
  for (const std::string& text : hostile_texts()) {
    if (text.find('\a') != std::string::npos) continue;  // not a character XML 1.0 allows
    SCOPED_TRACE(text);
    std::string file_name = text;
    for (char& c : file_name)
      if (c == '/') c = '|';  // a file name has no slash; everything else it may have
    const Generated hostile =
        generate(read(urdf(text, text + " link", text + " joint"), file_name + ".urdf"));
    EXPECT_EQ(code_without_comments(hostile.c), code_without_comments(benign.c));
    EXPECT_EQ(code_without_comments(hostile.cpp), code_without_comments(benign.cpp));
    if (compilers) {
      EXPECT_EQ(compile_errors(hostile.c, true, dir_), "");
      EXPECT_EQ(compile_errors(hostile.cpp, false, dir_), "");
    }
  }
}

// Issue 25's exploit, as it was run: a constructor in the model's name ran a command inside
// `appell eval` when the JIT loaded the generated code.
TEST_F(CodegenInjection, AConstructorInTheModelsNameNeverRuns) {
  if (!have_compilers()) GTEST_SKIP() << "no C compiler: the JIT is not used";
  const fs::path marker = dir_ / "INJECTED";
  const std::string payload =
      "x */ int system(const char*); __attribute__((constructor)) static void appell_pwn(void) "
      "{ system(\"touch " +
      marker.string() + "\"); } /* x";
  const fs::path model = dir_ / "hostile.yaml";
  std::ofstream(model) << pendulum_yaml(payload, payload);
  // A line break in the file name, a second way into the header's first line (a file name has no
  // slash, so no comment terminator; a line of its own is enough for a directive).
  const fs::path model2 = dir_ / "x\n#error injected by the file name\n.yaml";
  fs::copy_file(model, model2);
  // A cache of this test's own, so that the JIT compiles this source now.
  setenv("APPELL_CACHE_DIR", (dir_ / "cache").c_str(), 1);
  for (const fs::path& path : {model, model2}) {
    // inverse compiles the model's Dynamics (eval's one state never compiles).
    const auto run = test_support::run_cli(
        "inverse \"" + path.string() + "\"" +
        " --trajectory 'q1=0.3*t; q2=0.4' --t-end 0.2 --output-step 0.1 --set u=0.5 --out " +
        (dir_ / "forces.csv").string());
    EXPECT_EQ(run.code, 0) << run.out;
    // The JIT compiled and loaded it: no note of a fallback, an object in the cache.
    EXPECT_EQ(run.out.find("note:"), std::string::npos) << run.out;
    bool compiled = false;
    for (const auto& entry : fs::directory_iterator(dir_ / "cache" / "jit"))
      compiled = compiled || entry.path().extension() == ".so";
    EXPECT_TRUE(compiled);
    EXPECT_FALSE(fs::exists(marker)) << "the model's name ran a command";
  }
  unsetenv("APPELL_CACHE_DIR");
}
