// Standard output and standard error as the command line uses them: every byte written to
// std::cout and std::cerr goes through io::terminal_text() (a control character in a model's
// name is shown as \x1B, never obeyed by the terminal), and a reader that goes away ends appell
// quietly instead of by SIGPIPE.
#pragma once

#include <ostream>

namespace appell::cli {

/// Called first in main(): ignores SIGPIPE (a write to a closed pipe then fails with EPIPE, which
/// the writes report as io::OutputClosed: exit code 1, no message, instead of death by the signal
/// with status 141), and puts an io::TerminalTextBuffer between std::cout, std::cerr and the
/// process's standard output and error, for the rest of the process.
void prepare_standard_streams();

/// Standard error without the escaping: for the progress lines' own carriage return and erase
/// sequence (\r\033[K), which must reach the terminal as they are. Whatever text of the user's
/// a line holds is given through io::terminal_text() first.
std::ostream& unescaped_stderr();

/// What main() does after the command: flushes standard output and returns `code`, or 1 when
/// something written to it was lost, with `appell: could not write standard output: REASON` on
/// stderr, except when its reader is gone (io::OutputClosed: nothing to say, nobody to read it).
int finish_standard_output(int code);

}  // namespace appell::cli
