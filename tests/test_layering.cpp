// The layered build (DESIGN.md, "Rooms"): each module includes only the modules below it, so that
// there is no include cycle; and <appell/appell.hpp> brings every public header.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The modules each module may include (its own and, transitively, those below it).
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> table = {
      {"sym", {"sym"}},
      {"model", {"model", "sym"}},
      {"kinematics", {"kinematics", "model", "sym"}},
      {"principles", {"principles", "kinematics", "model", "sym"}},
      {"numeric", {"numeric", "principles", "kinematics", "model", "sym"}},
      {"codegen", {"codegen", "principles", "kinematics", "model", "sym"}},
      // The JIT joins the two: codegen writes the source, numeric compiles and loads it.
      {"jit", {"jit", "codegen", "numeric", "principles", "kinematics", "model", "sym"}},
      // A sweep runs the Dynamics and the JIT's code over many cases into an HDF5 file.
      {"sweep", {"sweep", "jit", "codegen", "numeric", "principles", "kinematics", "model", "sym"}},
      {"fem", {"fem", "numeric", "principles", "kinematics", "model", "sym"}},
      // The writers sit above everything; the readers (io/*reader*) only on the model.
      {"io", {"io", "fem", "codegen", "numeric", "principles", "kinematics", "model", "sym"}},
      {"report",
       {"report", "io", "fem", "codegen", "numeric", "principles", "kinematics", "model", "sym"}},
  };
  return table;
}

TEST(Layering, EachModuleIncludesOnlyTheModulesBelowIt) {
  const fs::path root = APPELL_SOURCE_DIR;
  const std::regex include_line(R"(#include\s+[<"]appell/([a-z]+)/)");
  std::size_t files = 0;
  for (const auto& [module, may_use] : allowed()) {
    for (const fs::path& folder : {root / "src" / module, root / "include" / "appell" / module}) {
      if (!fs::exists(folder)) continue;
      for (const auto& entry : fs::directory_iterator(folder)) {
        const std::string text = read(entry.path());
        const bool reader =
            module == "io" && entry.path().filename().string().find("reader") != std::string::npos;
        ++files;
        for (std::sregex_iterator it(text.begin(), text.end(), include_line), end; it != end;
             ++it) {
          const std::string used = (*it)[1];
          const bool ok =
              reader ? (used == "io" || used == "model" || used == "sym") : may_use.count(used) > 0;
          EXPECT_TRUE(ok) << entry.path() << " (" << module << ") includes appell/" << used;
        }
      }
    }
  }
  EXPECT_GT(files, 50u);
}

TEST(Layering, TheUmbrellaHeaderBringsEveryPublicHeader) {
  const fs::path include = fs::path(APPELL_SOURCE_DIR) / "include" / "appell";
  const std::string umbrella = read(include / "appell.hpp");
  std::size_t headers = 0;
  for (const auto& entry : fs::recursive_directory_iterator(include)) {
    if (entry.path().extension() != ".hpp" || entry.path().filename() == "appell.hpp") continue;
    ++headers;
    const std::string name = fs::relative(entry.path(), include.parent_path()).generic_string();
    EXPECT_NE(umbrella.find("#include \"" + name + "\""), std::string::npos)
        << name << " is missing from appell/appell.hpp";
  }
  EXPECT_GT(headers, 40u);
}

}  // namespace
