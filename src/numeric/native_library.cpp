#include "appell/numeric/native_library.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

extern char** environ;

namespace appell::num {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// SHA-256 (FIPS 180-4): the cache key must not depend on std::hash (which may change between
// library versions) and must make collisions between two sources out of the question.

namespace {

constexpr std::array<std::uint32_t, 64> kRound = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

std::uint32_t rotate_right(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(std::array<std::uint32_t, 8>& h, const unsigned char* block) {
  std::array<std::uint32_t, 64> w{};
  for (int i = 0; i < 16; ++i)
    w[i] = (std::uint32_t(block[4 * i]) << 24) | (std::uint32_t(block[4 * i + 1]) << 16) |
           (std::uint32_t(block[4 * i + 2]) << 8) | std::uint32_t(block[4 * i + 3]);
  for (int i = 16; i < 64; ++i) {
    const std::uint32_t s0 =
        rotate_right(w[i - 15], 7) ^ rotate_right(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 =
        rotate_right(w[i - 2], 17) ^ rotate_right(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t s1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
    const std::uint32_t choice = (e & f) ^ (~e & g);
    const std::uint32_t t1 = k + s1 + choice + kRound[i] + w[i];
    const std::uint32_t s0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
    const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    const std::uint32_t t2 = s0 + majority;
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += k;
}

}  // namespace

std::string sha256_hex(const std::string& data) {
  std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string padded = data;
  padded.push_back(static_cast<char>(0x80));
  while (padded.size() % 64 != 56) padded.push_back('\0');
  const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  for (int i = 7; i >= 0; --i) padded.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  for (std::size_t i = 0; i < padded.size(); i += 64)
    compress(h, reinterpret_cast<const unsigned char*>(padded.data() + i));
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::uint32_t word : h)
    for (int shift = 28; shift >= 0; shift -= 4) out.push_back(digits[(word >> shift) & 0xf]);
  return out;
}

// ---------------------------------------------------------------------------------------------

namespace {

// The compiler command: the program (resolved on PATH) and its leading arguments.
struct Command {
  std::string program;             // as given: "cc"
  std::string path;                // resolved: "/usr/bin/cc"
  std::vector<std::string> words;  // program first
};

std::vector<std::string> split_blanks(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

Command compiler_command(const NativeCompilerOptions& options) {
  std::string text = options.compiler;
  if (text.empty()) {
    const char* cc = std::getenv("CC");
    text = cc != nullptr && *cc != '\0' ? cc : "cc";
  }
  Command command;
  command.words = split_blanks(text);
  if (command.words.empty())
    throw NativeCompileError("no C compiler: the compiler command is blank");
  command.program = command.words.front();
  if (command.program.find('/') != std::string::npos) {
    if (::access(command.program.c_str(), X_OK) != 0)
      throw NativeCompileError("no C compiler: " + command.program + " is not an executable");
    command.path = command.program;
    return command;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + command.program;
    std::error_code error;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate, error)) {
      command.path = candidate;
      return command;
    }
    start = end + 1;
  }
  throw NativeCompileError("no C compiler: " + command.program +
                           " is not on PATH (set CC to a C compiler)");
}

// Exit status and everything the program wrote on stdout and stderr (at most 64 kB kept).
struct ProcessResult {
  int status = -1;  // the exit code; -1 when killed or not exited normally
  bool timed_out = false;
  std::string output;
};

// Runs `path` with `arguments` (argv[0] included) in its own process group, stdin from
// /dev/null, stdout and stderr into one pipe; kills the group after `timeout`.
ProcessResult run_process(const std::string& path, const std::vector<std::string>& arguments,
                          std::chrono::milliseconds timeout) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw NativeCompileError(std::string("cannot run the compiler: pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<char*> argv;
  for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      ::posix_spawn(&pid, path.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    throw NativeCompileError("cannot run " + path + ": " + std::strerror(spawned));
  }
  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[4096];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t got = ::read(fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // end of output: the program (and its children) closed the pipe
    if (result.output.size() < 65536) result.output.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fds[0]);
  // The output ended; the program may still be running (it closed its output early): wait for
  // it up to the same deadline.
  int status = 0;
  while (!result.timed_out) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      result.timed_out = true;
      break;
    }
    ::usleep(2000);
  }
  if (result.timed_out) {
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (!result.timed_out && WIFEXITED(status)) result.status = WEXITSTATUS(status);
  return result;
}

std::vector<std::string> with(std::vector<std::string> words,
                              const std::vector<std::string>& more) {
  words.insert(words.end(), more.begin(), more.end());
  return words;
}

constexpr std::chrono::seconds kVersionTimeout{30};

// The compiler's identity: where it is and what it says it is.
std::string compiler_identity(const Command& command) {
  const auto words = command.words;
  const auto version = run_process(command.path, with(words, {"--version"}), kVersionTimeout);
  if (version.status != 0)
    throw NativeCompileError("the C compiler " + command.path + " does not answer --version" +
                             (version.output.empty() ? std::string() : ": " + version.output));
  std::error_code error;
  const fs::path resolved = fs::canonical(command.path, error);
  return (error ? command.path : resolved.string()) + "\n" + version.output;
}

std::string key_of(const std::string& source, const Command& command,
                   const NativeCompilerOptions& options) {
  std::string material = "appell native library 1\n";
  material += compiler_identity(command);
  for (const auto& w : command.words) material += '\0' + w;
  material += "\nflags";
  for (const auto& f : options.flags) material += '\0' + f;
  material += "\nsource\n" + source;
  return sha256_hex(material);
}

// The key's function, appended to the compiled unit so that a loaded object can be checked.
std::string keyed_source(const std::string& source, const std::string& key) {
  return source + "\n/* Appended by appell: the cache key of this unit. */\n" +
         "const char* appell_native_key(void);\n" +
         "const char* appell_native_key(void) { return \"" + key + "\"; }\n";
}

using Handle = std::shared_ptr<void>;

// Loads `path` and checks its key; null with `why` set when it does not load or is another.
Handle open_checked(const fs::path& path, const std::string& key, std::string& why) {
  ::dlerror();
  void* raw = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (raw == nullptr) {
    const char* message = ::dlerror();
    why = message != nullptr ? message : "dlopen failed";
    return nullptr;
  }
  Handle handle(raw, [](void* h) { ::dlclose(h); });
  using KeyFunction = const char* (*)();
  auto* function = reinterpret_cast<KeyFunction>(::dlsym(raw, "appell_native_key"));
  if (function == nullptr || key != function()) {
    why = path.string() + " is not the object of its key";
    return nullptr;
  }
  return handle;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.flush();
  if (!out)
    throw NativeCompileError("the cache directory is not writable: cannot write " + path.string());
}

std::string unique_suffix() {
  static std::atomic<unsigned> counter{0};
  return std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

fs::path default_cache_directory() {
  const auto variable = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
  };
  if (const std::string dir = variable("APPELL_CACHE_DIR"); !dir.empty()) return dir;
  if (const std::string dir = variable("XDG_CACHE_HOME"); !dir.empty())
    return fs::path(dir) / "appell";
  if (const std::string dir = variable("HOME"); !dir.empty())
    return fs::path(dir) / ".cache" / "appell";
  throw NativeCompileError(
      "no cache directory: none of APPELL_CACHE_DIR, XDG_CACHE_HOME and HOME is set");
}

void* NativeLibrary::symbol(const std::string& name) const {
  void* address = ::dlsym(handle_.get(), name.c_str());
  if (address == nullptr) throw NativeCompileError(path_.string() + " has no symbol " + name);
  return address;
}

std::string native_library_key(const std::string& c_source, const NativeCompilerOptions& options) {
  return key_of(c_source, compiler_command(options), options);
}

NativeLibrary load_native_library(const std::string& c_source,
                                  const NativeCompilerOptions& options) {
  const Command command = compiler_command(options);
  const std::string key = key_of(c_source, command, options);
  const fs::path dir =
      (options.cache_directory.empty() ? default_cache_directory() : options.cache_directory) /
      "jit";
  const fs::path object = dir / (key + ".so");

  NativeLibrary library;
  library.path_ = object;
  library.key_ = key;
  std::string why;
  std::error_code error;
  if (fs::exists(object, error)) {
    library.handle_ = open_checked(object, key, why);
    if (library.handle_) return library;
  }

  // Compile into temporary names, then rename into place.
  fs::create_directories(dir, error);
  if (error)
    throw NativeCompileError("the cache directory is not writable: cannot create " + dir.string() +
                             ": " + error.message());
  const std::string suffix = unique_suffix();
  const fs::path source_file = dir / (key + "-" + suffix + ".c");
  const fs::path temporary = dir / (key + "-" + suffix + ".so.tmp");
  struct Cleanup {
    std::vector<fs::path> paths;
    ~Cleanup() {
      std::error_code ignored;
      for (const auto& p : paths) fs::remove(p, ignored);
    }
  } cleanup{{source_file, temporary}};
  write_file(source_file, keyed_source(c_source, key));
  std::vector<std::string> arguments = with(command.words, options.flags);
  for (const char* a : {"-o"}) arguments.emplace_back(a);
  arguments.push_back(temporary.string());
  arguments.push_back(source_file.string());
  arguments.emplace_back("-lm");
  const ProcessResult compiled = run_process(command.path, arguments, options.timeout);
  if (compiled.timed_out)
    throw NativeCompileError("the C compiler " + command.path + " did not finish within " +
                             std::to_string(options.timeout.count()) + " s");
  if (compiled.status != 0)
    throw NativeCompileError("the C compiler " + command.path + " failed (exit " +
                             std::to_string(compiled.status) + "): " + compiled.output);
  fs::rename(temporary, object, error);
  if (error)
    throw NativeCompileError("the cache directory is not writable: cannot rename into " +
                             object.string() + ": " + error.message());
  library.handle_ = open_checked(object, key, why);
  if (!library.handle_) throw NativeCompileError("cannot load " + object.string() + ": " + why);
  library.compiled_now_ = true;
  return library;
}

}  // namespace appell::num
