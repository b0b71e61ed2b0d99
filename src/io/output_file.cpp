#include "appell/io/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include "appell/model/source_location.hpp"

namespace appell::io {

namespace {

// errno as the failed call left it, when it left one (the streams do not promise to).
std::string reason(int error) {
  return error != 0 ? std::string(": ") + std::strerror(error) : std::string();
}

[[noreturn]] void lost(const std::string& name, int error) {
  throw model::ComputationError("could not write " + name + reason(error));
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  errno = 0;
  out_.open(path_, std::ios::binary | std::ios::trunc);
  if (!out_)
    throw model::ModelError(model::SourceLocation{path_, 0, 0},
                            "cannot write the file" + reason(errno));
}

void OutputFile::check() {
  // Which write failed is past; errno may since hold anything, so no reason is given.
  if (!out_) lost(path_, 0);
}

void OutputFile::close() {
  if (!out_.is_open()) return;
  errno = 0;
  out_.flush();
  const int flush_error = errno;
  const bool written = static_cast<bool>(out_);
  out_.close();
  if (!written) lost(path_, flush_error);
  if (!out_) lost(path_, errno);
}

void write_file(const std::string& path, std::string_view text) {
  OutputFile file(path);
  file.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  file.close();
}

void check_written(std::ostream& out, const std::string& name) {
  errno = 0;
  out.flush();
  if (!out) lost(name, errno);
}

}  // namespace appell::io
