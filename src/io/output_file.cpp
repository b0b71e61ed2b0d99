#include "appell/io/output_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "appell/io/terminal_text.hpp"
#include "appell/model/source_location.hpp"

namespace appell::io {

namespace {

// errno as the failed call left it, when it left one (the streams do not promise to).
std::string reason(int error) {
  return error != 0 ? std::string(": ") + std::strerror(error) : std::string();
}

[[noreturn]] void lost(const std::string& name, int error) {
  if (error == EPIPE) throw OutputClosed("could not write " + name + reason(error));
  throw model::ComputationError("could not write " + name + reason(error));
}

// Whether `path` names a FIFO or a socket, /dev/stdout into a pipe included (stat follows the
// link to the descriptor's pipe).
bool is_pipe(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 &&
         (S_ISFIFO(status.st_mode) || S_ISSOCK(status.st_mode));
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  errno = 0;
  out_.open(path_, std::ios::binary | std::ios::trunc);
  if (!out_)
    throw model::ModelError(model::SourceLocation{path_, 0, 0},
                            "cannot write the file" + reason(errno));
  pipe_ = is_pipe(path_);
}

void OutputFile::check() {
  // Which write failed is past; errno may since hold anything, so no reason is given, but for a
  // pipe: a write to one fails only when its reader is gone (EPIPE).
  if (!out_) lost(path_, pipe_ ? EPIPE : 0);
}

void OutputFile::close() {
  if (!out_.is_open()) return;
  errno = 0;
  out_.flush();
  const int flush_error = errno;
  const bool written = static_cast<bool>(out_);
  out_.close();
  if (!written) lost(path_, pipe_ ? EPIPE : flush_error);
  if (!out_) lost(path_, pipe_ ? EPIPE : errno);
}

void write_file(const std::string& path, std::string_view text) {
  OutputFile file(path);
  file.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  file.close();
}

void check_written(std::ostream& out, const std::string& name) {
  errno = 0;
  out.flush();
  if (out) return;
  int error = errno;
  // The buffer between saw the write that failed, whenever it was: its errno is the reason.
  if (const auto* shown = dynamic_cast<const TerminalTextBuffer*>(out.rdbuf());
      shown != nullptr && shown->write_error() != 0)
    error = shown->write_error();
  lost(name, error);
}

}  // namespace appell::io
