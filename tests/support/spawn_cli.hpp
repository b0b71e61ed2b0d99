// Runs the appell binary (APPELL_CLI) as a child process that a test can signal: no shell, its
// standard output and error into files of the test's choosing (/dev/full included), and a wait
// that never hangs (the child is killed when it outlives its time). run_cli.hpp is the simpler
// way when a test needs neither signals nor the two streams apart.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace appell::test_support {

/// Starts `appell ARGS..` with stdout into `stdout_path` and stderr into `stderr_path`
/// (truncated). Returns the child's pid, or -1 when it could not be started.
inline pid_t spawn_cli(const std::vector<std::string>& args, const std::string& stdout_path,
                       const std::string& stderr_path) {
  std::vector<std::string> words{APPELL_CLI};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return error == 0 ? pid : -1;
}

/// What a child's wait gave: its exit code, or -SIGNAL when a signal ended it, or
/// kTimedOut when it had to be killed after `seconds`.
constexpr int kTimedOut = -1000;
inline int wait_cli(pid_t pid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (true) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    if (done < 0) return kTimedOut;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return kTimedOut;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

/// The whole file as text ("" when it does not exist).
inline std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A run to its end (at most `seconds`): the exit code (as wait_cli) and what it printed on
/// stderr; stdout goes to `stdout_path`.
struct SpawnedRun {
  int code = kTimedOut;
  std::string err;
};
inline SpawnedRun run_cli_into(const std::vector<std::string>& args, const std::string& stdout_path,
                               const std::string& stderr_path, double seconds = 300) {
  SpawnedRun r;
  const pid_t pid = spawn_cli(args, stdout_path, stderr_path);
  if (pid < 0) return r;
  r.code = wait_cli(pid, seconds);
  r.err = file_text(stderr_path);
  return r;
}

}  // namespace appell::test_support
