#include "appell/model/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace appell::model {

namespace {

constexpr std::uint64_t kMiB = std::uint64_t(1) << 20;

/// Closes the descriptor on every path out.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

const char* file_type(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string size_text(std::uint64_t bytes) {
  return bytes % kMiB == 0 ? std::to_string(bytes / kMiB) + " MiB"
                           : std::to_string(bytes) + " bytes";
}

}  // namespace

std::uint64_t input_size_limit(InputKind kind) {
  switch (kind) {
    case InputKind::Model:
    case InputKind::Claims:
      return 64 * kMiB;
    case InputKind::Mesh:
      return 2048 * kMiB;
    case InputKind::Trajectory:
    case InputKind::Cases:
      return 1024 * kMiB;
  }
  return 64 * kMiB;
}

const char* input_kind_name(InputKind kind) {
  switch (kind) {
    case InputKind::Model:
      return "model file";
    case InputKind::Claims:
      return "claims file";
    case InputKind::Mesh:
      return "mesh file";
    case InputKind::Trajectory:
      return "trajectory file";
    case InputKind::Cases:
      return "cases file";
  }
  return "input file";
}

std::size_t byte_order_mark_size(std::string_view text) {
  return text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

std::string read_input_file(const std::string& path, InputKind kind,
                            const SourceLocation& referenced_from) {
  const std::string name = input_kind_name(kind);
  // Named from elsewhere (a mesh from its model), the error points there and names the path;
  // otherwise the path is the place.
  const bool referenced = !referenced_from.file.empty();
  const SourceLocation where = referenced ? referenced_from : SourceLocation{path, 0, 0};
  const std::string offending = referenced ? path : "";
  const std::string subject = referenced ? "the " + name + " '" + path + "'" : "the " + name;
  const auto fail = [&](const std::string& message) {
    throw ModelError(where, message, offending);
  };

  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, for ever.
  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd.get() < 0) {
    const int error = errno;
    if (error == ENOENT || error == ENOTDIR)
      fail(referenced ? "no such " + name + " '" + path + "'" : "no such " + name);
    fail("cannot open " + subject + ": " + std::strerror(error));
  }
  // Asked of the descriptor, not of the path: what is read is what was checked.
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) fail("cannot read " + subject + ": " + std::strerror(errno));
  if (!S_ISREG(status.st_mode))
    fail(subject + " is " + file_type(status.st_mode) + ", not a regular file");
  const std::uint64_t limit = input_size_limit(kind);
  const auto size = static_cast<std::uint64_t>(status.st_size);
  if (size > limit)
    fail(subject + " is " + std::to_string(size) + " bytes; a " + name + " may be at most " +
         size_text(limit));

  std::string text;
  text.reserve(static_cast<std::size_t>(size));
  char buffer[65536];
  // One byte beyond the limit tells a file that grew past it from one that ends there.
  for (std::uint64_t left = limit + 1; left > 0;) {
    const auto n = ::read(fd.get(), buffer,
                          static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buffer, left)));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot read " + subject + ": " + std::strerror(errno));
    }
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
    left -= static_cast<std::uint64_t>(n);
  }
  fail(subject + " grew beyond " + size_text(limit) + " while it was read; a " + name +
       " may be at most " + size_text(limit));
  return text;  // not reached
}

}  // namespace appell::model
