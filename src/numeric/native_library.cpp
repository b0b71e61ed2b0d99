#include "appell/numeric/native_library.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <regex>
#include <sstream>
#include <system_error>
#include <utility>

#include "appell/numeric/interruption.hpp"

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

// An open file descriptor, closed with its owner.
class Descriptor {
 public:
  Descriptor() = default;
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(Descriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Descriptor& operator=(Descriptor&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() { reset(); }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

std::string error_text(int error) { return std::strerror(error); }

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

// How long the wait for the compiler goes without looking at interruption_signal(). A signal
// whose handler runs on this thread ends poll() at once (EINTR: the handlers are installed
// without SA_RESTART); this bounds the delay when another thread took it.
constexpr std::chrono::milliseconds kPollInterval{50};

// The child between fork() and exec: only async-signal-safe calls (the parent may have threads,
// one of which may hold the allocator's lock), everything it needs prepared beforehand.
[[noreturn]] void exec_in_child(const char* path, char* const* argv, int output, int report,
                                pid_t parent) {
  ::setpgid(0, 0);  // a group of its own: the compiler and whatever it starts are killed together
#ifdef __linux__
  // Killed by the kernel when appell dies, even by SIGKILL (when no code of ours runs to kill
  // it). It applies to this process (the compiler driver) only, not to the passes it starts
  // (cc1, as, ld): they finish the step they are in and end, and with the driver gone no object
  // is linked; their half-written temporary names are removed by the next run (see
  // remove_stale_temporaries).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // appell died before prctl: nobody to compile for
#else
  (void)parent;
#endif
  // The compiler starts with default dispositions and no signal blocked, whatever appell (or
  // the program embedding it) set.
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(SIGINT, &fallback, nullptr);
  ::sigaction(SIGTERM, &fallback, nullptr);
  ::sigaction(SIGPIPE, &fallback, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  const int in = ::open("/dev/null", O_RDONLY);
  if (in >= 0 && ::dup2(in, 0) >= 0 && ::dup2(output, 1) >= 0 && ::dup2(output, 2) >= 0) {
    if (in > 2) ::close(in);
    ::execve(path, argv, environ);
  }
  const int error = errno;
  [[maybe_unused]] const ssize_t written = ::write(report, &error, sizeof error);
  ::_exit(127);
}

// Runs `path` with `arguments` (argv[0] included) in its own process group, stdin from
// /dev/null, stdout and stderr into one pipe. The group is killed (SIGKILL) after `timeout`, and
// when SIGINT or SIGTERM is recorded (num::interruption_signal): then Interrupted is thrown.
//
// fork() and exec rather than posix_spawn: only a child of our own can ask the kernel to kill
// it when appell dies (PR_SET_PDEATHSIG, set between the two).
ProcessResult run_process(const std::string& path, const std::vector<std::string>& arguments,
                          std::chrono::milliseconds timeout) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw NativeCompileError("cannot run the compiler: pipe: " + error_text(errno));
  Descriptor output_read(fds[0]), output_write(fds[1]);
  // A failed exec's errno comes back through this pipe; a successful exec closes it.
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw NativeCompileError("cannot run the compiler: pipe: " + error_text(errno));
  Descriptor report_read(fds[0]), report_write(fds[1]);
  std::vector<char*> argv;
  for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw NativeCompileError("cannot run " + path + ": fork: " + error_text(errno));
  if (pid == 0)
    exec_in_child(path.c_str(), argv.data(), output_write.get(), report_write.get(), parent);
  // Here too, so that the group exists for kill(-pid) whichever of the two runs first.
  ::setpgid(pid, pid);
  output_write.reset();
  report_write.reset();
  int exec_error = 0;
  ssize_t reported = 0;
  while ((reported = ::read(report_read.get(), &exec_error, sizeof exec_error)) < 0 &&
         errno == EINTR) {
  }
  int status = 0;
  if (reported == static_cast<ssize_t>(sizeof exec_error)) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    throw NativeCompileError("cannot run " + path + ": " + error_text(exec_error));
  }

  ProcessResult result;
  int interrupted = 0;
  bool output_open = true, exited = false, reaped = false;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[4096];
  while (true) {
    if ((interrupted = interruption_signal()) != 0) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    const int wait_ms = static_cast<int>(std::min<long long>(left.count(), kPollInterval.count()));
    if (output_open) {
      pollfd p{output_read.get(), POLLIN, 0};
      if (::poll(&p, 1, wait_ms) <= 0) continue;  // time, or a signal: looked at above
      const ssize_t got = ::read(output_read.get(), buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      // End of output: the program (and its children) closed the pipe; it may still run.
      if (got <= 0) output_open = false;
      if (got > 0 && result.output.size() < 65536)
        result.output.append(buffer, static_cast<std::size_t>(got));
      continue;
    }
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      // ECHILD: reaped by someone else (SIGCHLD ignored), its status lost; never killed then, as
      // its pid may already be another process's.
      exited = true;
      reaped = done == pid;
      break;
    }
    ::poll(nullptr, 0, std::min(wait_ms, 2));
  }
  if (!exited) {
    // Not reaped yet, so neither its pid nor its group can have been reused: the group is ours.
    ::kill(-pid, SIGKILL);
    pid_t done = 0;
    while ((done = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
    reaped = done == pid;
  }
  if (interrupted != 0)
    throw Interrupted(interrupted, "interrupted while " + path + " ran (the compiler was killed)");
  if (reaped && !result.timed_out && WIFEXITED(status)) result.status = WEXITSTATUS(status);
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

// What a key is made of: `heading` (which kind of key: of the source itself, or of what
// determines it), the compiler, its command words and the flags, then `text`. The two headings
// differ in their first line, so a key of a source never equals a key of a content.
std::string key_of(const char* heading, const std::string& text, const Command& command,
                   const NativeCompilerOptions& options) {
  std::string material = heading;
  material += compiler_identity(command);
  for (const auto& w : command.words) material += '\0' + w;
  material += "\nflags";
  for (const auto& f : options.flags) material += '\0' + f;
  material += "\nsource\n" + text;
  return sha256_hex(material);
}

constexpr const char* kSourceHeading = "appell native library 1\n";
constexpr const char* kContentHeading = "appell native library by content 1\n";

// The key's function, appended to the compiled unit so that a loaded object can be checked.
std::string keyed_source(const std::string& source, const std::string& key) {
  return source + "\n/* Appended by appell: the cache key of this unit. */\n" +
         "const char* appell_native_key(void);\n" +
         "const char* appell_native_key(void) { return \"" + key + "\"; }\n";
}

// ---------------------------------------------------------------------------------------------
// The cache on disk. Its objects are code that runs as the user who loads them, so the cache
// is trusted only as far as it is private: the folder and jit/ belong to us and nobody else can
// write in them, every file is ours and writable by us alone, and an object is loaded only when
// its bytes have the SHA-256 recorded beside it by the run that compiled it. Files are opened
// relative to the checked jit/ (openat and friends), never through a link, never blocking.

[[noreturn]] void throw_not_writable(const std::string& doing, const fs::path& path, int error) {
  throw NativeCompileError("the cache directory is not writable: cannot " + doing + " " +
                           path.string() + ": " + error_text(error));
}

std::string octal_mode(mode_t mode) {
  std::ostringstream out;
  out << '0' << std::oct << (mode & 07777);
  return out.str();
}

// Another user who owns the folder, or can write in it, could put an object there that would
// run as us: such a folder is refused (the callers evaluate by the tape and say why).
void check_private_directory(int directory, const fs::path& shown) {
  struct stat status {};
  if (::fstat(directory, &status) != 0) throw_not_writable("inspect", shown, errno);
  if (status.st_uid != ::geteuid())
    throw NativeCompileError("the cache folder " + shown.string() +
                             " belongs to another user (uid " + std::to_string(status.st_uid) +
                             "), so no compiled code is loaded from it: remove it or set "
                             "APPELL_CACHE_DIR to a folder of yours");
  if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    throw NativeCompileError("the cache folder " + shown.string() +
                             " is writable by group or others (mode " + octal_mode(status.st_mode) +
                             "), so no compiled code is loaded from it: `chmod go-w` it or set "
                             "APPELL_CACHE_DIR to a private folder");
}

// The cache folder and its jit/: created 0700 when absent, opened and checked. The folder may
// be reached through a link (~/.cache on another disk); jit/ inside it may not.
Descriptor open_jit_directory(const fs::path& cache, const fs::path& jit) {
  std::error_code ignored;  // mkdir below says what went wrong
  if (cache.has_parent_path()) fs::create_directories(cache.parent_path(), ignored);
  if (::mkdir(cache.c_str(), 0700) != 0 && errno != EEXIST)
    throw_not_writable("create", cache, errno);
  Descriptor top(::open(cache.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!top) throw_not_writable("open", cache, errno);
  check_private_directory(top.get(), cache);
  if (::mkdirat(top.get(), "jit", 0700) != 0 && errno != EEXIST)
    throw_not_writable("create", jit, errno);
  Descriptor sub(::openat(top.get(), "jit", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!sub) {
    if (errno == ELOOP || errno == ENOTDIR)
      throw NativeCompileError("the cache folder " + jit.string() +
                               " is not a folder (a link or a file), so no compiled code is "
                               "loaded from it: remove it");
    throw_not_writable("open", jit, errno);
  }
  check_private_directory(sub.get(), jit);
  return sub;
}

// A temporary name carries the pid of the process that writes it, so that the next run can
// tell a dead process's leftovers from a live one's work: <key>.<pid>-<attempt>.tmp.<extension>.
std::string temporary_name(const std::string& key, int attempt, const char* extension) {
  return key + "." + std::to_string(::getpid()) + "-" + std::to_string(attempt) + ".tmp." +
         extension;
}

bool process_exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// Removes the temporary files of processes that no longer exist (killed while compiling, by
// SIGKILL or a crash, before they could clean up). A pid is only meaningful in our pid
// namespace: two containers that share one cache folder could remove each other's files (their
// compile then fails and they evaluate by the tape).
void remove_stale_temporaries(int directory) {
  static const std::regex pattern("[0-9a-f]{64}\\.([0-9]{1,9})-[0-9]+\\.tmp\\.(c|so|sha256)");
  const int copy = ::fcntl(directory, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return;
  DIR* listing = ::fdopendir(copy);
  if (listing == nullptr) {
    ::close(copy);
    return;
  }
  std::vector<std::string> stale;
  while (const dirent* entry = ::readdir(listing)) {
    std::cmatch match;
    if (!std::regex_match(entry->d_name, match, pattern)) continue;
    const auto pid = static_cast<pid_t>(std::stol(match[1].str()));
    if (pid > 0 && !process_exists(pid)) stale.emplace_back(entry->d_name);
  }
  ::closedir(listing);
  for (const auto& name : stale) ::unlinkat(directory, name.c_str(), 0);
}

// A file of the cache read whole: its bytes, and the descriptor and status it was read through.
struct CacheFile {
  Descriptor fd;
  struct stat status {};
  std::string bytes;
};

constexpr std::size_t kObjectLimit = std::size_t(512) << 20;
constexpr std::size_t kRecordLimit = 4096;

// Reads `name` in `directory` when it is a regular file of ours that group and others cannot
// write. Only a regular file is ever opened: lstat first (a FIFO or a device is refused
// unopened), then open with O_NOFOLLOW | O_NONBLOCK (never through a link; never waiting even
// if a FIFO was swapped in), then fstat and compare (the same inode as lstat saw, still a
// regular file). `make_private` (the compiler's fresh output, whose mode the umask chose):
// first made 0600. Empty with `why` empty when there is no such name, `why` set when the file
// is not one to trust.
std::optional<CacheFile> read_cache_file(int directory, const std::string& name, std::size_t limit,
                                         bool make_private, std::string& why) {
  why.clear();
  struct stat seen {};
  if (::fstatat(directory, name.c_str(), &seen, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) why = name + ": " + error_text(errno);
    return std::nullopt;
  }
  if (!S_ISREG(seen.st_mode)) {
    why = name + " is not a regular file";
    return std::nullopt;
  }
  CacheFile file;
  file.fd = Descriptor(
      ::openat(directory, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!file.fd || ::fstat(file.fd.get(), &file.status) != 0) {
    why = name + ": " + error_text(errno);
    return std::nullopt;
  }
  if (!S_ISREG(file.status.st_mode) || file.status.st_dev != seen.st_dev ||
      file.status.st_ino != seen.st_ino) {
    why = name + " changed while it was opened";
    return std::nullopt;
  }
  if (file.status.st_uid != ::geteuid()) {
    why = name + " belongs to another user";
    return std::nullopt;
  }
  if (make_private && ::fchmod(file.fd.get(), 0600) == 0) file.status.st_mode &= ~mode_t(077);
  if ((file.status.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    why = name + " is writable by group or others";
    return std::nullopt;
  }
  if (static_cast<std::uintmax_t>(file.status.st_size) > limit) {
    why = name + " is too large";
    return std::nullopt;
  }
  file.bytes.resize(static_cast<std::size_t>(file.status.st_size));
  std::size_t done = 0;
  while (done < file.bytes.size()) {
    const ssize_t got = ::read(file.fd.get(), file.bytes.data() + done, file.bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<std::size_t>(got);
  }
  char extra = 0;
  if (done != file.bytes.size() || ::read(file.fd.get(), &extra, 1) != 0) {
    why = name + " changed size while it was read";
    return std::nullopt;
  }
  return file;
}

// What <key>.sha256 holds: the object's SHA-256 and the key, so that an object and its record
// copied under another key do not vouch for each other.
std::string integrity_record(const std::string& key, const std::string& object_sha256) {
  return "appell native object 1\nkey " + key + "\nsha256 " + object_sha256 + "\n";
}

using Handle = std::shared_ptr<void>;

// dlopen() of the object whose bytes were read and hashed through `object.fd`, by `path`, after
// checking that `path` names that same inode.
//
// Why by path and not dlopen("/proc/self/fd/N") of the descriptor itself: glibc recognizes an
// object already loaded by the name it was opened under, and a descriptor's number is reused
// once closed, so a later "/proc/self/fd/N" could be answered with an earlier, other object;
// /proc may also be absent (chroot, some containers). The window left by opening by path,
// between the stat below and dlopen, is open only to whoever can rename in jit/, which is
// checked to be ours and private, and to the folders above it that the user chose (the
// threat model trusts both: docs/security.md). The object's contents cannot change in that
// window either: it is ours and not writable by others. After loading, the key compiled into
// the object is compared with the key asked for.
Handle load_verified(const fs::path& path, const CacheFile& object, const std::string& key,
                     std::string& why) {
  struct stat now {};
  if (::stat(path.c_str(), &now) != 0 || now.st_dev != object.status.st_dev ||
      now.st_ino != object.status.st_ino) {
    why = path.string() + " changed while it was checked";
    return nullptr;
  }
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

// Whether `bytes` are a whole 64-bit ELF object of this machine: every part its headers name
// (the program and section header tables, each segment's bytes in the file) lies inside it. The
// SHA-256 record proves only that the bytes are the recorded ones, and a record can be rewritten
// by whoever owns the cache: dlopen() of an object cut short maps pages past its end, and touching
// them is SIGBUS, not an error (issue 39).
bool whole_elf_object(const std::string& bytes) {
  if (bytes.size() < sizeof(Elf64_Ehdr)) return false;
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
    return false;
  const std::uint64_t size = bytes.size();
  const auto inside = [size](std::uint64_t offset, std::uint64_t count, std::uint64_t each) {
    return offset <= size && (each == 0 || count <= (size - offset) / each);
  };
  if (header.e_phentsize != sizeof(Elf64_Phdr) ||
      !inside(header.e_phoff, header.e_phnum, header.e_phentsize))
    return false;
  if (header.e_shoff != 0 && !inside(header.e_shoff, header.e_shnum, header.e_shentsize))
    return false;
  for (std::uint16_t k = 0; k < header.e_phnum; ++k) {
    Elf64_Phdr segment;
    std::memcpy(&segment, bytes.data() + header.e_phoff + std::uint64_t(k) * sizeof segment,
                sizeof segment);
    if (!inside(segment.p_offset, segment.p_filesz, 1)) return false;
  }
  return true;
}

// The cached object of `key`, verified and loaded; null with `why` (empty: there is none).
Handle load_cached(int directory, const fs::path& jit, const std::string& key, std::string& why) {
  const auto object = read_cache_file(directory, key + ".so", kObjectLimit, false, why);
  if (!object) return nullptr;
  const auto record = read_cache_file(directory, key + ".sha256", kRecordLimit, false, why);
  if (!record) {
    if (why.empty()) why = key + ".so has no record of its SHA-256";
    return nullptr;
  }
  if (record->bytes != integrity_record(key, sha256_hex(object->bytes))) {
    why = key + ".so is not the object recorded (its SHA-256 differs)";
    return nullptr;
  }
  if (!whole_elf_object(object->bytes)) {
    why = key + ".so is not a whole ELF object (cut short or damaged)";
    return nullptr;
  }
  return load_verified(jit / (key + ".so"), *object, key, why);
}

void write_all(int fd, const std::string& text, const fs::path& shown) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) throw_not_writable("write", shown, wrote < 0 ? errno : EIO);
    done += static_cast<std::size_t>(wrote);
  }
}

// Names taken in jit/ by this compile, removed with it (unless renamed into place by then).
struct Temporaries {
  int directory = -1;
  std::vector<std::string> names;
  Temporaries() = default;
  Temporaries(const Temporaries&) = delete;
  Temporaries& operator=(const Temporaries&) = delete;
  ~Temporaries() {
    for (const auto& name : names) ::unlinkat(directory, name.c_str(), 0);
  }
};

// How many temporary names of one key a process tries before it gives up: two threads of one
// process compiling one key take two, and names left in the way (a leftover, or a link planted
// to make us write through it: O_EXCL never opens an existing name) are skipped.
constexpr int kAttempts = 16;

// The temporary source (written), object (an empty file the compiler replaces) and record
// (open for writing), created with O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600.
struct Reserved {
  std::string source, object, record;
  Descriptor source_fd, record_fd;
};

Reserved reserve_temporaries(int directory, const fs::path& jit, const std::string& key,
                             Temporaries& temporaries) {
  const auto create = [&](const std::string& name) {
    Descriptor fd(::openat(directory, name.c_str(),
                           O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600));
    if (fd) {
      temporaries.names.push_back(name);
    } else if (errno != EEXIST) {
      throw_not_writable("create", jit / name, errno);
    }
    return fd;
  };
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    Reserved reserved{temporary_name(key, attempt, "c"), temporary_name(key, attempt, "so"),
                      temporary_name(key, attempt, "sha256"), Descriptor(), Descriptor()};
    const std::size_t before = temporaries.names.size();
    reserved.source_fd = create(reserved.source);
    Descriptor object_fd = reserved.source_fd ? create(reserved.object) : Descriptor();
    reserved.record_fd = object_fd ? create(reserved.record) : Descriptor();
    if (reserved.record_fd) return reserved;
    // One of the three names is in the way: give back the others, try the next attempt.
    for (std::size_t i = before; i < temporaries.names.size(); ++i)
      ::unlinkat(directory, temporaries.names[i].c_str(), 0);
    temporaries.names.resize(before);
  }
  throw NativeCompileError("the cache folder " + jit.string() + " has " +
                           std::to_string(kAttempts) + " temporary files of this process (pid " +
                           std::to_string(::getpid()) + ") in the way; remove them");
}

// What load_keyed() gives NativeLibrary.
struct Loaded {
  Handle handle;
  fs::path path;
  bool compiled_now = false;
};

// The object of `key` loaded from the cache, or else compiled from `generate()` (called only
// then) into temporary names, loaded and renamed into place.
Loaded load_keyed(const std::string& key, const std::function<std::string()>& generate,
                  const Command& command, const NativeCompilerOptions& options) {
  const fs::path cache =
      options.cache_directory.empty() ? default_cache_directory() : options.cache_directory;
  const fs::path jit = cache / "jit";
  const Descriptor directory = open_jit_directory(cache, jit);
  remove_stale_temporaries(directory.get());
  const std::string object_name = key + ".so";

  Loaded library;
  library.path = jit / object_name;
  std::string why;
  library.handle = load_cached(directory.get(), jit, key, why);
  if (library.handle) return library;

  // Not there, or not one to load (absent record, other bytes, not a regular file of ours, not
  // of its key): generated, compiled into temporary names and renamed over it.
  const std::string source = keyed_source(generate(), key);
  Temporaries temporaries;
  temporaries.directory = directory.get();
  Reserved reserved = reserve_temporaries(directory.get(), jit, key, temporaries);
  write_all(reserved.source_fd.get(), source, jit / reserved.source);
  reserved.source_fd.reset();
  std::vector<std::string> arguments = with(command.words, options.flags);
  arguments.emplace_back("-o");
  arguments.push_back((jit / reserved.object).string());
  arguments.push_back((jit / reserved.source).string());
  arguments.emplace_back("-lm");
  const ProcessResult compiled = run_process(command.path, arguments, options.timeout);
  if (compiled.timed_out)
    throw NativeCompileError("the C compiler " + command.path + " did not finish within " +
                             std::to_string(options.timeout.count()) + " s");
  if (compiled.status != 0)
    throw NativeCompileError("the C compiler " + command.path + " failed (exit " +
                             std::to_string(compiled.status) + "): " + compiled.output);
  const auto object = read_cache_file(directory.get(), reserved.object, kObjectLimit, true, why);
  if (!object)
    throw NativeCompileError("the C compiler " + command.path + " left no usable object: " +
                             (why.empty() ? reserved.object + " is missing" : why));
  write_all(reserved.record_fd.get(), integrity_record(key, sha256_hex(object->bytes)),
            jit / reserved.record);
  reserved.record_fd.reset();
  // Loaded under its temporary name, which only this process uses, before the renames: another
  // process may rename its own object of this key over ours at any moment.
  library.handle = load_verified(jit / reserved.object, *object, key, why);
  if (!library.handle)
    throw NativeCompileError("cannot load " + (jit / reserved.object).string() + ": " + why);
  // The object first, then its record: a reader in between sees a record that does not match
  // and compiles again; it never loads an object without its record. A bad entry in the way (a
  // FIFO, a foreign file) is replaced; a folder there makes rename fail, and the cache is not
  // used.
  for (const auto& [from, to] :
       {std::pair{reserved.object, object_name}, std::pair{reserved.record, key + ".sha256"}})
    if (::renameat(directory.get(), from.c_str(), directory.get(), to.c_str()) != 0)
      throw NativeCompileError("the cache directory is not writable: cannot rename into " +
                               (jit / to).string() + ": " + error_text(errno));
  library.compiled_now = true;
  return library;
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
  return key_of(kSourceHeading, c_source, compiler_command(options), options);
}

std::string native_content_key(const std::string& content, const NativeCompilerOptions& options) {
  return key_of(kContentHeading, content, compiler_command(options), options);
}

NativeLibrary load_native_library(const std::string& c_source,
                                  const NativeCompilerOptions& options) {
  const Command command = compiler_command(options);
  NativeLibrary library;
  library.key_ = key_of(kSourceHeading, c_source, command, options);
  Loaded loaded = load_keyed(
      library.key_, [&] { return c_source; }, command, options);
  library.handle_ = std::move(loaded.handle);
  library.path_ = std::move(loaded.path);
  library.compiled_now_ = loaded.compiled_now;
  return library;
}

NativeLibrary load_native_library(const std::string& content,
                                  const std::function<std::string()>& generate,
                                  const NativeCompilerOptions& options) {
  const Command command = compiler_command(options);
  NativeLibrary library;
  library.key_ = key_of(kContentHeading, content, command, options);
  Loaded loaded = load_keyed(library.key_, generate, command, options);
  library.handle_ = std::move(loaded.handle);
  library.path_ = std::move(loaded.path);
  library.compiled_now_ = loaded.compiled_now;
  return library;
}

}  // namespace appell::num
