// Runs the appell binary (APPELL_CLI) as a user would and captures what it printed.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace appell::test_support {

struct CliRun {
  int code = -1;    // exit code (-1 when the process did not exit normally)
  std::string out;  // stdout and stderr together
};

/// `timeout_seconds` > 0 kills the program after that long (exit code 137): a test of what must
/// not hang fails instead of hanging.
inline CliRun run_cli(const std::string& args, int timeout_seconds = 0) {
  const std::string limit =
      timeout_seconds > 0 ? "timeout -s KILL " + std::to_string(timeout_seconds) + " " : "";
  const std::string command = limit + std::string(APPELL_CLI) + " " + args + " 2>&1";
  CliRun r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace appell::test_support
