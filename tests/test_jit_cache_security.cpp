// The JIT cache as an attacker would use it (issue 25; docs/security.md, "The JIT cache"): an
// object planted in the cache, whose constructor would run inside dlopen(), never runs unless
// the run that compiled it recorded its SHA-256 beside it in a private folder of ours; a cache
// folder of another user, or one that group or others can write, is refused (also with a second
// user, `nobody`, doing the planting); links planted at the temporary names are never written
// through; a truncated object is compiled again rather than crashing; a FIFO in the cache never
// blocks; SIGTERM while compiling kills the compiler and removes the temporary files (Interrupted
// is thrown; `appell eval` exits 143); and when appell is SIGKILLed the compiler dies with it and
// the next run removes what was left. Every test uses a cache folder of its own, never the user's.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "appell/numeric/interruption.hpp"
#include "appell/numeric/native_library.hpp"
#include "support/c_compiler.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "support/spawn_cli.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;
using std::chrono::seconds;

// The unit every test compiles; a marker so that its own object can be told from a planted one.
const std::string kSource = "double appell_test_value(void) { return 42.0; }\n";

std::string slurp(const fs::path& path) { return test_support::file_text(path.string()); }

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Alive and not a zombie (a killed process whose parent died may wait a moment to be reaped).
bool process_alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

// True once `condition` holds, false when `limit` passes first.
bool eventually(const std::function<bool()>& condition, seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// Runs `body` in a forked child and returns what test_support::wait_cli says of it (its exit
// code, -SIGNAL, or kTimedOut when it had to be killed after `limit`): what may hang or crash
// never takes the test process with it.
int run_in_child(const std::function<int()>& body, seconds limit) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 99;
    try {
      code = body();
    } catch (...) {
      code = 98;
    }
    ::_exit(code);
  }
  return test_support::wait_cli(pid, static_cast<double>(limit.count()));
}

// The value the test unit returns, from a loaded library.
double test_value(const num::NativeLibrary& library) {
  return reinterpret_cast<double (*)()>(library.symbol("appell_test_value"))();
}

// Puts a copy of `from` at `to` as a new file: writing into the file there would change the
// pages of an object this process has loaded from it.
void plant(const fs::path& from, const fs::path& to) {
  fs::remove(to);
  fs::copy_file(from, to);
}

// The names in `folder` that are temporary files of a compile.
std::vector<std::string> temporaries_in(const fs::path& folder) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".tmp.") != std::string::npos) names.push_back(name);
  }
  return names;
}

// A "compiler" that answers --version, writes its pid (and that of a child it starts) and then
// takes a minute: for killing appell while it compiles.
fs::path slow_compiler(const fs::path& folder, bool exec_sleep) {
  const fs::path script = folder / "slowcc";
  write_text(
      script,
      "#!/bin/sh\nif [ \"$1\" = --version ]; then echo slowcc 1.0; exit 0; fi\n" +
          std::string(exec_sleep ? "echo $$ > " + (folder / "cc.pid").string() + "\nexec sleep 60\n"
                                 : "sleep 60 &\necho $! > " + (folder / "sleep.pid").string() +
                                       "\necho $$ > " + (folder / "cc.pid").string() + "\nwait\n"));
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

pid_t read_pid(const fs::path& file) {
  std::ifstream in(file);
  long pid = 0;
  in >> pid;
  return static_cast<pid_t>(pid);
}

// An environment variable set for a scope (the CLI children inherit it), then restored.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  ~ScopedEnvironment() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class JitCache : public test_support::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    root_ = dir_;
    cache_ = root_ / "cache";
    options_.cache_directory = cache_;
    marker_ = root_ / "constructor-ran";
  }

  // After a compile by slow_compiler(root_, false) was stopped: the compiler and its child are
  // gone, and so are the temporary files.
  void expect_no_compiler_and_no_temporaries() {
    const pid_t compiler = read_pid(root_ / "cc.pid"), sleeper = read_pid(root_ / "sleep.pid");
    EXPECT_TRUE(eventually([&] { return !process_alive(compiler); }, seconds(5)))
        << "the compiler outlived its compile";
    EXPECT_TRUE(eventually([&] { return !process_alive(sleeper); }, seconds(5)))
        << "the compiler's child outlived it";
    EXPECT_EQ(temporaries_in(cache_ / "jit"), std::vector<std::string>{});
    if (process_alive(sleeper)) ::kill(sleeper, SIGKILL);
  }

  // The cache folder and jit/ as appell makes them (0700), for planting before the first load.
  fs::path make_jit() {
    fs::create_directories(cache_ / "jit");
    fs::permissions(cache_, fs::perms::owner_all);
    fs::permissions(cache_ / "jit", fs::perms::owner_all);
    return cache_ / "jit";
  }

  // A real shared object, compiled by the system's compiler, that claims `key` and whose
  // constructor writes marker_ when it is loaded: what an attacker would plant.
  fs::path planted_object(const std::string& key) {
    const fs::path source = root_ / "planted.c";
    const fs::path object = root_ / "planted.so";
    write_text(source,
               "#include <stdio.h>\n"
               "__attribute__((constructor)) static void planted(void) {\n"
               "  FILE* f = fopen(\"" +
                   marker_.string() +
                   "\", \"w\");\n"
                   "  if (f) { fputs(\"ran\", f); fclose(f); }\n"
                   "}\n"
                   "const char* appell_native_key(void) { return \"" +
                   key +
                   "\"; }\n"
                   "double appell_test_value(void) { return -1.0; }\n");
    const std::string command =
        "cc -shared -fPIC -o '" + object.string() + "' '" + source.string() + "'";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    fs::permissions(object, fs::perms::owner_read | fs::perms::owner_write);
    return object;
  }

  // What appell records beside an object (docs/security.md): the key and the SHA-256.
  static std::string record(const std::string& key, const fs::path& object) {
    return "appell native object 1\nkey " + key + "\nsha256 " + num::sha256_hex(slurp(object)) +
           "\n";
  }

  fs::path root_, cache_, marker_;
  num::NativeCompilerOptions options_;
};

TEST_F(JitCache, APlantedObjectNeverRuns) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const std::string key = num::native_library_key(kSource, options_);
  const fs::path jit = make_jit();
  const fs::path planted = planted_object(key);
  const fs::path object = jit / (key + ".so");

  // Without a record: refused before dlopen, compiled again and replaced.
  plant(planted, object);
  auto library = num::load_native_library(kSource, options_);
  EXPECT_FALSE(fs::exists(marker_)) << "the planted constructor ran";
  EXPECT_TRUE(library.compiled_now());
  EXPECT_EQ(test_value(library), 42.0);

  // With a record of its bytes made for another key (a record copied from another entry).
  plant(planted, object);
  write_text(jit / (key + ".sha256"), record(std::string(64, 'a'), object));
  library = num::load_native_library(kSource, options_);
  EXPECT_FALSE(fs::exists(marker_)) << "a record of another key vouched for the object";
  EXPECT_TRUE(library.compiled_now());

  // With a true record, but the object belongs to another user.
  if (::geteuid() == 0) {
    plant(planted, object);
    write_text(jit / (key + ".sha256"), record(key, object));
    ASSERT_EQ(::chown(object.c_str(), 65534, 65534), 0);
    library = num::load_native_library(kSource, options_);
    EXPECT_FALSE(fs::exists(marker_)) << "an object of another user was loaded";
    EXPECT_TRUE(library.compiled_now());
  }

  // A link at the object's name, to an object with a true record: never followed.
  fs::copy_file(planted, root_ / "elsewhere.so");
  fs::remove(object);
  fs::create_symlink(root_ / "elsewhere.so", object);
  write_text(jit / (key + ".sha256"), record(key, root_ / "elsewhere.so"));
  library = num::load_native_library(kSource, options_);
  EXPECT_FALSE(fs::exists(marker_)) << "the object was loaded through a link";
  EXPECT_TRUE(library.compiled_now());
  EXPECT_FALSE(fs::is_symlink(object));
  EXPECT_EQ(test_value(library), 42.0);

  // What it compiled itself is loaded from the cache.
  EXPECT_FALSE(num::load_native_library(kSource, options_).compiled_now());
}

TEST_F(JitCache, ACacheFolderOfAnotherUserOrWritableByOthersIsRefused) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const auto refusal = [&]() -> std::string {
    try {
      num::load_native_library(kSource, options_);
      return "";
    } catch (const num::NativeCompileError& e) {
      return e.what();
    }
  };
  const std::string key = num::native_library_key(kSource, options_);
  const fs::path jit = make_jit();
  const fs::path planted = planted_object(key);
  fs::copy_file(planted, jit / (key + ".so"));
  write_text(jit / (key + ".sha256"), record(key, jit / (key + ".so")));

  // Writable by others: the cache folder, then jit/.
  fs::permissions(cache_, fs::perms::all);
  EXPECT_NE(refusal().find("is writable by group or others (mode 0777)"), std::string::npos);
  fs::permissions(cache_, fs::perms::owner_all);
  fs::permissions(jit, fs::perms::owner_all | fs::perms::group_write);
  EXPECT_NE(refusal().find(jit.string() + " is writable by group or others (mode 0720)"),
            std::string::npos);
  fs::permissions(jit, fs::perms::owner_all);
  EXPECT_FALSE(fs::exists(marker_)) << "the planted constructor ran";

  // jit/ as a link to a private folder elsewhere.
  fs::rename(jit, root_ / "jit-elsewhere");
  fs::create_directory_symlink(root_ / "jit-elsewhere", jit);
  EXPECT_NE(refusal().find("is not a folder (a link or a file)"), std::string::npos);
  EXPECT_FALSE(fs::exists(marker_));
  fs::remove(jit);
  fs::rename(root_ / "jit-elsewhere", jit);

  if (::geteuid() != 0)
    GTEST_SKIP() << "giving a folder to another user needs root (the CI runs the tests as root)";
  // Owned by another user: the cache folder, then jit/.
  ASSERT_EQ(::chown(cache_.c_str(), 65534, 65534), 0);
  EXPECT_NE(refusal().find(cache_.string() + " belongs to another user (uid 65534)"),
            std::string::npos);
  ASSERT_EQ(::chown(cache_.c_str(), 0, 0), 0);
  ASSERT_EQ(::chown(jit.c_str(), 65534, 65534), 0);
  EXPECT_NE(refusal().find(jit.string() + " belongs to another user (uid 65534)"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(marker_)) << "the planted constructor ran";
}

// Runs `command` as the user nobody (setpriv); its exit code.
int as_nobody(const std::string& command) {
  const std::string line =
      "setpriv --reuid=nobody --regid=nogroup --clear-groups /bin/sh -c '" + command + "'";
  const int status = std::system(line.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(JitCache, AnotherUserPlantingACacheCannotRunCodeAsUs) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  if (::geteuid() != 0) GTEST_SKIP() << "a second user needs root (the CI runs the tests as root)";
  if (std::system("command -v setpriv >/dev/null") != 0) GTEST_SKIP() << "no setpriv";
  const std::string model = std::string(APPELL_EXAMPLES_DIR) + "/double_pendulum.yaml";
  // inverse compiles the recursions' Dynamics (eval's one state never compiles).
  const std::string eval = "inverse " + model +
                           " --trajectory 'q1=0.3*t; q2=0.4' --t-end 0.2 --output-step 0.1 --out " +
                           (root_ / "forces.csv").string();
  // The key of the model's object, as a first run into a private cache writes it.
  std::optional<ScopedEnvironment> cache_variable;
  cache_variable.emplace("APPELL_CACHE_DIR", cache_.string());
  const auto first = test_support::run_cli(eval);
  ASSERT_EQ(first.code, 0) << first.out;
  std::string key;
  for (const auto& entry : fs::directory_iterator(cache_ / "jit"))
    if (entry.path().extension() == ".so") key = entry.path().stem().string();
  ASSERT_EQ(key.size(), 64u);

  // nobody makes a cache folder where root will look (a shared, sticky folder like /tmp) and
  // plants an object with a true record; root's run refuses the folder, says so, and the
  // planted constructor never runs.
  const fs::path shared = root_ / "shared";
  fs::create_directory(shared);
  fs::permissions(shared, fs::perms::all | fs::perms::sticky_bit);
  const fs::path planted = planted_object(key);
  fs::permissions(planted, fs::perms::owner_read | fs::perms::others_read);
  const fs::path theirs = shared / "cache";
  write_text(root_ / "record", record(key, planted));
  fs::permissions(root_ / "record", fs::perms::owner_read | fs::perms::others_read);
  ASSERT_EQ(
      as_nobody("mkdir -m 0777 " + theirs.string() + " " + theirs.string() + "/jit && cp " +
                planted.string() + " " + theirs.string() + "/jit/" + key + ".so && cp " +
                (root_ / "record").string() + " " + theirs.string() + "/jit/" + key + ".sha256"),
      0);
  cache_variable.reset();
  cache_variable.emplace("APPELL_CACHE_DIR", theirs.string());
  const auto attacked = test_support::run_cli(eval);
  EXPECT_EQ(attacked.code, 0) << attacked.out;
  EXPECT_NE(attacked.out.find("note: evaluating by the recursions interpreted (slower): the cache "
                              "folder " +
                              theirs.string() + " belongs to another user (uid 65534)"),
            std::string::npos)
      << attacked.out;
  EXPECT_FALSE(fs::exists(marker_)) << "code planted by another user ran as root";

  // And nobody, pointed at a cache of root's that it can read, does not load root's objects.
  const fs::path roots = root_ / "roots";
  fs::copy(cache_, roots, fs::copy_options::recursive);
  for (const auto& path : {roots, roots / "jit"})
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  for (const auto& entry : fs::directory_iterator(roots / "jit"))
    fs::permissions(entry.path(), fs::perms::owner_read | fs::perms::owner_write |
                                      fs::perms::group_read | fs::perms::others_read);
  const std::string line = "APPELL_CACHE_DIR=" + roots.string() + " " + APPELL_CLI + " " + eval +
                           " 2>&1 | grep -q \"belongs to another user (uid 0)\"";
  EXPECT_EQ(as_nobody(line), 0);
}

TEST_F(JitCache, LinksAtTheTemporaryNamesAreNeverWrittenThrough) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const std::string key = num::native_library_key(kSource, options_);
  const fs::path jit = make_jit();
  const fs::path victim = root_ / "victim";
  write_text(victim, "precious\n");
  fs::permissions(victim, fs::perms::owner_read | fs::perms::owner_write);
  // The names a compile of this key by this process takes: <key>.<pid>-<attempt>.tmp.<ext>.
  const auto plant_links = [&](const std::string& of, int attempts) {
    for (int attempt = 0; attempt < attempts; ++attempt)
      for (const char* extension : {"c", "so", "sha256"}) {
        const fs::path name = jit / (of + "." + std::to_string(::getpid()) + "-" +
                                     std::to_string(attempt) + ".tmp." + extension);
        fs::remove(name);
        fs::create_symlink(victim, name);
      }
  };
  plant_links(key, 4);
  const auto library = num::load_native_library(kSource, options_);
  EXPECT_TRUE(library.compiled_now());
  EXPECT_EQ(test_value(library), 42.0);
  EXPECT_EQ(slurp(victim), "precious\n");
  // Every name taken: it gives up, with a note, and still writes nothing through them.
  const std::string other = "double appell_test_value(void) { return 43.0; }\n";
  plant_links(num::native_library_key(other, options_), 16);
  try {
    num::load_native_library(other, options_);
    ADD_FAILURE() << "compiled although every temporary name was taken";
  } catch (const num::NativeCompileError& e) {
    EXPECT_NE(std::string(e.what()).find("temporary files of this process"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_EQ(fs::status(victim).permissions(), fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(JitCache, ATruncatedObjectIsCompiledAgain) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  fs::path object;
  {
    // Closed before the file is cut: this process must not have its pages mapped.
    const auto first = num::load_native_library(kSource, options_);
    ASSERT_TRUE(first.compiled_now());
    object = first.path();
  }
  fs::resize_file(object, fs::file_size(object) / 2);
  const int code = run_in_child(
      [&] {
        const auto again = num::load_native_library(kSource, options_);
        return again.compiled_now() && test_value(again) == 42.0 ? 0 : 1;
      },
      seconds(120));
  EXPECT_EQ(code, 0) << "a negative code is the signal that ended it (SIGBUS: -7)";
  // The record beside it names the bytes now there.
  EXPECT_NE(slurp(fs::path(object).replace_extension(".sha256"))
                .find("sha256 " + num::sha256_hex(slurp(object))),
            std::string::npos);
}

// Issue 39: the same cut, with the record rewritten to match it (whoever owns the cache can):
// the SHA-256 agrees, but dlopen() of an object cut short maps pages past its end and touching
// them was SIGBUS. An object whose headers name bytes it does not have is now compiled again.
TEST_F(JitCache, ATruncatedObjectWithAMatchingRecordIsCompiledAgain) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  fs::path object;
  std::string key;
  {
    const auto first = num::load_native_library(kSource, options_);
    ASSERT_TRUE(first.compiled_now());
    object = first.path();
    key = object.stem().string();
  }
  for (const double kept : {0.5, 0.9, 0.05}) {
    SCOPED_TRACE(kept);
    const std::string whole = slurp(object);
    write_text(object, whole.substr(0, static_cast<std::size_t>(kept * double(whole.size()))));
    write_text(fs::path(object).replace_extension(".sha256"), record(key, object));
    const int code = run_in_child(
        [&] {
          const auto again = num::load_native_library(kSource, options_);
          return again.compiled_now() && test_value(again) == 42.0 ? 0 : 1;
        },
        seconds(120));
    EXPECT_EQ(code, 0) << "a negative code is the signal that ended it (SIGBUS: -7)";
  }
}

TEST_F(JitCache, AFifoInTheCacheNeverBlocks) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const std::string key = num::native_library_key(kSource, options_);
  const fs::path jit = make_jit();
  for (const std::string& name : {key + ".so", key + ".sha256"}) {
    SCOPED_TRACE(name);
    fs::remove(jit / name);
    ASSERT_EQ(::mkfifo((jit / name).c_str(), 0600), 0);
    const int code = run_in_child(
        [&] {
          const auto library = num::load_native_library(kSource, options_);
          return library.compiled_now() && test_value(library) == 42.0 ? 0 : 1;
        },
        seconds(120));
    EXPECT_NE(code, test_support::kTimedOut) << "loading blocked on a FIFO";
    EXPECT_EQ(code, 0);
    EXPECT_TRUE(fs::is_regular_file(jit / name));  // replaced
  }
}

TEST_F(JitCache, SigtermWhileCompilingKillsTheCompilerAndLeavesNoTemporaryFiles) {
  options_.compiler = slow_compiler(root_, false).string();
  const pid_t child = ::fork();
  if (child == 0) {
    num::install_interruption_handlers();
    try {
      num::load_native_library(kSource, options_);
    } catch (const num::Interrupted& e) {
      ::_exit(e.signal() == SIGTERM ? 42 : 43);
    } catch (...) {
      ::_exit(44);
    }
    ::_exit(0);
  }
  const bool started = eventually([&] { return fs::exists(root_ / "cc.pid"); }, seconds(60));
  EXPECT_TRUE(started) << "the compiler did not start";
  EXPECT_FALSE(temporaries_in(cache_ / "jit").empty());  // the compile has its files
  ::kill(child, SIGTERM);
  const int code = test_support::wait_cli(child, 10);
  ASSERT_TRUE(started);
  ASSERT_NE(code, test_support::kTimedOut) << "appell did not stop on SIGTERM";
  EXPECT_EQ(code, 42) << "42: num::Interrupted with SIGTERM";
  expect_no_compiler_and_no_temporaries();
}

TEST_F(JitCache, CliSigtermWhileCompilingExits143AndLeavesNothingBehind) {
  const ScopedEnvironment compiler("CC", slow_compiler(root_, false).string());
  const ScopedEnvironment cache("APPELL_CACHE_DIR", cache_.string());
  const std::string out = (root_ / "stdout").string(), err = (root_ / "stderr").string();
  const pid_t pid = test_support::spawn_cli(
      {"inverse", std::string(APPELL_EXAMPLES_DIR) + "/double_pendulum.yaml", "--trajectory",
       "q1=0.3*t; q2=0.4", "--t-end", "0.2", "--output-step", "0.1", "--out",
       (root_ / "forces.csv").string()},
      out, err);
  ASSERT_GT(pid, 0);
  // Deriving comes first; under load that can take a while.
  const bool started = eventually([&] { return fs::exists(root_ / "cc.pid"); }, seconds(120));
  ::kill(pid, SIGTERM);
  const int code = test_support::wait_cli(pid, 30);
  ASSERT_TRUE(started) << "the compiler did not start: " << slurp(err);
  ASSERT_NE(code, test_support::kTimedOut) << "appell did not stop on SIGTERM";
  EXPECT_EQ(code, 128 + SIGTERM) << slurp(err);
  EXPECT_NE(slurp(err).find("appell: interrupted (SIGTERM)"), std::string::npos) << slurp(err);
  EXPECT_EQ(slurp(out), "");
  expect_no_compiler_and_no_temporaries();
}

TEST_F(JitCache, SigkillWhileCompilingKillsTheCompilerAndTheNextRunCleansUp) {
#ifndef __linux__
  GTEST_SKIP() << "only Linux kills a child when its parent dies (PR_SET_PDEATHSIG)";
#endif
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  num::NativeCompilerOptions slow = options_;
  slow.compiler = slow_compiler(root_, true).string();
  const pid_t child = ::fork();
  if (child == 0) {
    try {
      num::load_native_library(kSource, slow);
    } catch (...) {
    }
    ::_exit(0);
  }
  const bool started = eventually([&] { return fs::exists(root_ / "cc.pid"); }, seconds(60));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_TRUE(started) << "the compiler did not start";
  const pid_t compiler = read_pid(root_ / "cc.pid");
  EXPECT_TRUE(eventually([&] { return !process_alive(compiler); }, seconds(5)))
      << "the compiler outlived appell";
  if (process_alive(compiler)) ::kill(compiler, SIGKILL);
  EXPECT_FALSE(temporaries_in(cache_ / "jit").empty());  // nobody could remove them
  // The next run (another key) removes the files of the dead process.
  const auto library = num::load_native_library(kSource, options_);
  EXPECT_EQ(test_value(library), 42.0);
  EXPECT_EQ(temporaries_in(cache_ / "jit"), std::vector<std::string>{});
}

}  // namespace
