#include "standard_streams.hpp"

#include <sys/stat.h>

#include <csignal>
#include <cstdio>
#include <iostream>

#include "appell/io/output_file.hpp"
#include "appell/io/terminal_text.hpp"

namespace appell::cli {

namespace {

// Made once and never destroyed: std::cout and std::cerr write through them until the very end
// (the runtime flushes std::cout after every static object of ours is gone).
struct Streams {
  io::TerminalTextBuffer out{std::cout.rdbuf()};
  io::TerminalTextBuffer err{std::cerr.rdbuf()};
  std::ostream unescaped_err{err.target()};
};
Streams* streams = nullptr;

}  // namespace

void prepare_standard_streams() {
  // A reader that goes away (`appell eval m.yaml | head -c1`) would otherwise kill appell with
  // SIGPIPE mid-write; ignored, the write fails with EPIPE and the command ends on it cleanly.
  // (The JIT's compiler starts with the default disposition again: num::native_library.)
  std::signal(SIGPIPE, SIG_IGN);
  if (streams != nullptr) return;
  streams = new Streams;
  std::cout.rdbuf(&streams->out);
  std::cerr.rdbuf(&streams->err);
}

std::ostream& unescaped_stderr() { return streams ? streams->unescaped_err : std::cerr; }

int finish_standard_output(int code) {
  const int failed = code == 0 ? 1 : code;
  try {
    if (streams) streams->out.release();
    io::check_written(std::cout, "standard output");
    // What printf wrote (verify's table) fails on stdout's FILE, which the flush above may miss;
    // into a pipe a write fails only when the reader is gone.
    if (std::ferror(stdout)) {
      struct stat status {};
      if (::fstat(fileno(stdout), &status) == 0 &&
          (S_ISFIFO(status.st_mode) || S_ISSOCK(status.st_mode)))
        throw io::OutputClosed("could not write standard output");
      throw model::ComputationError("could not write standard output");
    }
  } catch (const io::OutputClosed&) {
    return failed;  // nobody reads what appell would say
  } catch (const model::ComputationError& err) {
    std::cerr << "appell: " << err.what() << "\n";
    return failed;
  }
  return code;
}

}  // namespace appell::cli
