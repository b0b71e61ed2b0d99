// Every file appell writes goes through here, so that no write can fail unnoticed: a full disk,
// a quota, a device that refuses (/dev/full) is an error naming the file, never a silent loss
// with exit status 0.
//
// Two kinds of failure, as everywhere in appell: a path that cannot be opened for writing (a
// missing folder, no permission) is bad input, model::ModelError located at the path; a write
// that fails once the file is open (the disk is full) is model::ComputationError
// ("could not write PATH: REASON"). A write to a pipe whose reader went away
// (`appell simulate m.yaml --out /dev/stdout | head -1`) is OutputClosed, a ComputationError of
// its own, on which the command line ends quietly.
#pragma once

#include <fstream>
#include <ostream>
#include <string>
#include <string_view>

#include "appell/model/source_location.hpp"

namespace appell::io {

/// A write refused because nothing reads the output any more: the reader of a pipe (or a socket)
/// closed it (EPIPE, with SIGPIPE ignored as appell's command line does). what() names the output
/// as for any failed write ("could not write standard output: Broken pipe"); the command line
/// stops on it with exit code 1 and prints nothing, like a Unix filter whose reader is gone.
class OutputClosed : public model::ComputationError {
 public:
  using model::ComputationError::ComputationError;
};

/// A file written through a stream, opened (created or truncated) when constructed.
///
/// The stream buffers; a failed write shows at the latest when the buffer is written out, so a
/// long-running writer calls check() now and then (after each row: it costs a flag test) and
/// close() at the end, which flushes and throws when anything written was lost. Destroying an
/// OutputFile that was not closed closes it without throwing (an error is on its way already).
class OutputFile {
 public:
  /// Throws model::ModelError at `path` ("cannot write the file: REASON") when it cannot be
  /// opened for writing.
  explicit OutputFile(std::string path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  OutputFile(OutputFile&&) = default;
  OutputFile& operator=(OutputFile&&) = default;

  std::ostream& stream() { return out_; }
  const std::string& path() const { return path_; }
  /// Throws model::ComputationError naming the path when a write failed so far (OutputClosed
  /// when the path is a pipe or a socket: a write to one fails only when its reader is gone).
  void check();
  /// Flushes and closes (once; later calls do nothing); throws as check() when a write failed.
  void close();

 private:
  std::string path_;
  std::ofstream out_;
  bool pipe_ = false;  // a FIFO or a socket (/dev/stdout into `| head`), known when opened
};

/// Writes `text` to `path` (created or truncated) as OutputFile does, all of it or an error.
void write_file(const std::string& path, std::string_view text);

/// Flushes `out`, a stream that is not a file of ours (standard output), and throws
/// model::ComputationError ("could not write NAME: REASON") when anything written to it was lost,
/// OutputClosed when the reason was EPIPE (the reason a TerminalTextBuffer recorded, when `out`
/// writes through one, else errno after the flush).
void check_written(std::ostream& out, const std::string& name);

}  // namespace appell::io
