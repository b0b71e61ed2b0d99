// The results file of a sweep through HDF5's C API (serial HDF5 1.10, Debian's libhdf5-dev).
//
// Why a killed process leaves a readable file: the whole structure (groups, attributes, every
// dataset allocated early and filled) is written once, when the file is made aside, and only
// then linked at its path. Later a case's write only replaces raw bytes inside datasets that
// already exist (the status is a fixed-size string for that reason, a variable-length one would
// allocate heap space at each write), and with HDF5's sieve buffer and metadata cache writes off
// each H5Dwrite reaches the operating system at once, in the order of the calls. So the file on
// disk is always a consistent HDF5 file, and a case's status, written last, is never "ok" before
// its data (and its checksum) are there.
//
// Why a file read again is checked before HDF5 reads it: HDF5 1.10 trusts the metadata it reads.
// Damaged bytes in an object header, a link's B-tree or the global heap of the variable-length
// strings (16 random bytes in the first kilobytes, or a few byte flips) made it copy out of
// bounds (a SIGSEGV in H5HG_read under H5Aread of a text attribute or H5Dread of an input column,
// in H5F__accum_read under H5Lexists), free a pointer it never allocated at H5Fclose, or loop
// reading a string of a damaged length; no check through its API comes before those reads. So
// every per-case dataset is contiguous, and the file's user block (bytes HDF5 leaves to the
// application) holds a seal: the byte ranges of those datasets' raw data, the only bytes that
// change after creation, and a checksum of every other byte, made once the structure is final.
// A reader checks the seal with plain reads first and hands the file to HDF5 only when every
// byte of its metadata is what appell wrote; each case's status and data carry their own
// checksum (/checksum), written before the status and checked when the file is read again.
#include "appell/sweep/results_file.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "appell/model/source_location.hpp"
#include "appell/model/utf8.hpp"
#include "appell/sweep/case_sources.hpp"

namespace appell::sweep {

namespace {

constexpr const char* kFormat = "appell-sweep";
// Unchanged by the seal and /checksum: an HDF5 reader sees one dataset more, and an older appell
// reads these files as before.
constexpr long kFormatVersion = 1;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Rows per read or write when a file is read or copied in blocks (merge, resume's statuses).
constexpr std::size_t kBlockBytes = 8 * 1024 * 1024;
// A variable-length string's element in an attribute's data: its length and a global heap ID.
constexpr std::uint64_t kTextElementBytes = 16;
constexpr const char* kRemedy =
    " (the file was damaged or edited after it was written); run the sweep again";

// --- HDF5 handles and errors -------------------------------------------------------------------

/// An HDF5 identifier closed with its own function.
class Hid {
 public:
  Hid() = default;
  Hid(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Hid(Hid&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}
  Hid& operator=(Hid&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      close_ = other.close_;
    }
    return *this;
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  ~Hid() { reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Closes; false when HDF5 failed to (a file whose last bytes could not be written).
  bool reset() {
    bool closed = true;
    if (id_ >= 0 && close_) closed = close_(id_) >= 0;
    id_ = H5I_INVALID_HID;
    return closed;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

/// HDF5 prints its error stack on stderr by default; appell reports errors its own way. Set for
/// the calling thread (the error stacks of a thread-safe HDF5 are per thread) and restored.
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

herr_t innermost_error(unsigned n, const H5E_error2_t* error, void* text) {
  if (n == 0 && error->desc) *static_cast<std::string*>(text) = error->desc;
  return 0;
}

/// Why the last HDF5 call failed, in the words of the innermost function that failed (the
/// system's message when it gives one: "No space left on device").
std::string hdf5_reason() {
  std::string text;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_error, &text);
  H5Eclear2(H5E_DEFAULT);
  const std::string mark = "error message = '";
  if (const auto at = text.find(mark); at != std::string::npos) {
    const auto from = at + mark.size();
    return text.substr(from, text.find('\'', from) - from);
  }
  return text.empty() ? "HDF5 error" : text;
}

[[noreturn]] void io_failure(const std::string& action, const std::string& path) {
  throw model::ComputationError("could not " + action + " " + path + ": " + hdf5_reason());
}

Hid checked(hid_t id, herr_t (*close)(hid_t), const std::string& action, const std::string& path) {
  if (id < 0) io_failure(action, path);
  return Hid(id, close);
}

void expect(herr_t status, const std::string& action, const std::string& path) {
  if (status < 0) io_failure(action, path);
}

// --- checksums and the seal ----------------------------------------------------------------------

/// FNV-1a, 64 bits (Fowler, Noll, Vo): simple enough to recompute in a few lines of Python, and a
/// single changed byte always changes it (each step is a bijection of the state).
class Fnv1a {
 public:
  void add(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) {
      hash_ ^= bytes[i];
      hash_ *= 0x100000001b3ULL;
    }
  }
  /// The 8 bytes of `value`, least significant first (as the file stores an int64 or uint64).
  void add_u64(std::uint64_t value) {
    std::array<unsigned char, 8> bytes{};
    for (std::size_t i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(value >> (8 * i));
    add(bytes.data(), bytes.size());
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

void put_u64(unsigned char* at, std::uint64_t value) {
  for (std::size_t i = 0; i < 8; ++i) at[i] = static_cast<unsigned char>(value >> (8 * i));
}
std::uint64_t get_u64(const unsigned char* at) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < 8; ++i) value |= std::uint64_t{at[i]} << (8 * i);
  return value;
}

// The seal, in the user block (at the file's start; HDF5's own data begin after it). Every field
// a little-endian uint64 after the magic:
//   0   magic (16 bytes)
//   16  FNV-1a of the whole user block with these 8 bytes read as zero
//   24  the user block's size (a power of two, at least 512)
//   32  the file's size
//   40  FNV-1a of every byte after the user block outside the ranges, in file order
//   48  the number of ranges R
//   56  R times (offset, length): the raw data of the per-case datasets, by increasing offset
// and zeros to the user block's end.
constexpr std::string_view kSealMagic{"appell-seal 1\n\0\0", 16};
constexpr std::string_view kHdf5Signature{"\x89HDF\r\n\x1a\n", 8};
constexpr std::size_t kSealHeader = 56;
// Bounds a damaged user block cannot make a reader exceed.
constexpr std::uint64_t kMaxUserBlock = std::uint64_t{1} << 26;

struct ByteRange {
  std::uint64_t offset = 0, length = 0;
  bool operator<(const ByteRange& other) const { return offset < other.offset; }
  bool operator==(const ByteRange&) const = default;
};

/// The superblock's file consistency flags (4 bytes at offset 20 of a version 0 superblock, the
/// version HDF5 writes by default): HDF5 1.10 sets them when it opens a file for writing and
/// clears them at close, so a writer that was killed leaves them set. Left out of the seal like
/// the cases' data (HDF5 refuses flags it does not know, an error and no crash).
ByteRange superblock_flags(std::uint64_t user_block) { return {user_block + 20, 4}; }

struct Seal {
  std::uint64_t user_block = 0, size = 0;
  std::vector<ByteRange> ranges;
};

std::uint64_t user_block_size(std::size_t ranges) {
  std::uint64_t size = 512;
  while (size < kSealHeader + 16 * ranges) size *= 2;
  return size;
}

/// A file descriptor closed on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void system_failure(const std::string& action, const std::string& path) {
  throw model::ComputationError("could not " + action + " " + path + ": " + std::strerror(errno));
}

/// Exactly `size` bytes at `offset` (false at the end of the file).
bool read_at(int fd, void* data, std::size_t size, std::uint64_t offset, const std::string& path) {
  auto* bytes = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t got = ::pread(fd, bytes, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) system_failure("read", path);
    if (got == 0) return false;
    bytes += got, size -= static_cast<std::size_t>(got), offset += static_cast<std::uint64_t>(got);
  }
  return true;
}

/// The checksum of the bytes [user block, size) outside `ranges` (sorted, disjoint, inside).
std::uint64_t unchanging_checksum(int fd, const Seal& seal, const std::string& path) {
  Fnv1a sum;
  std::vector<char> buffer(1 << 20);
  const auto add = [&](std::uint64_t from, std::uint64_t to) {
    while (from < to) {
      const auto count =
          static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), to - from));
      if (!read_at(fd, buffer.data(), count, from, path))
        throw model::ComputationError("could not read " + path + ": it became shorter");
      sum.add(buffer.data(), count);
      from += count;
    }
  };
  std::uint64_t at = seal.user_block;
  for (const auto& range : seal.ranges) {
    add(at, range.offset);
    at = range.offset + range.length;
  }
  add(at, seal.size);
  return sum.value();
}

/// Seals the file at `at` (closed by HDF5, its user block of `user_block` bytes still zeros):
/// `ranges` are the only bytes that may change from now on.
void write_seal(const std::string& at, const std::string& path, std::uint64_t user_block,
                std::vector<ByteRange> ranges) {
  Fd fd(::open(at.c_str(), O_RDWR | O_CLOEXEC));
  if (fd.get() < 0) system_failure("write", path);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) system_failure("write", path);
  std::sort(ranges.begin(), ranges.end());
  Seal seal{user_block, static_cast<std::uint64_t>(info.st_size), std::move(ranges)};
  std::vector<unsigned char> block(user_block, 0);
  std::memcpy(block.data(), kSealMagic.data(), kSealMagic.size());
  put_u64(&block[24], seal.user_block);
  put_u64(&block[32], seal.size);
  put_u64(&block[40], unchanging_checksum(fd.get(), seal, path));
  put_u64(&block[48], seal.ranges.size());
  for (std::size_t i = 0; i < seal.ranges.size(); ++i) {
    put_u64(&block[kSealHeader + 16 * i], seal.ranges[i].offset);
    put_u64(&block[kSealHeader + 16 * i + 8], seal.ranges[i].length);
  }
  Fnv1a self;
  self.add(block.data(), block.size());
  put_u64(&block[16], self.value());
  for (std::size_t done = 0; done < block.size();) {
    const ssize_t wrote =
        ::pwrite(fd.get(), block.data() + done, block.size() - done, static_cast<off_t>(done));
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) system_failure("write", path);
    done += static_cast<std::size_t>(wrote);
  }
}

/// The seal of the file at `path`, checked against every byte that must not have changed, before
/// HDF5 reads any of them. What is wrong is bad input at `where`.
Seal check_seal(const std::string& path, const model::SourceLocation& where) {
  const auto refuse = [&](const std::string& message) -> model::ModelError {
    return model::ModelError(where, message, where.file == path ? std::string() : path);
  };
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) system_failure("read", path);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) system_failure("read", path);
  const auto size = static_cast<std::uint64_t>(info.st_size);
  std::array<unsigned char, kSealHeader> header{};
  const bool whole = read_at(fd.get(), header.data(), header.size(), 0, path);
  const std::string_view start(reinterpret_cast<const char*>(header.data()),
                               std::min<std::uint64_t>(size, header.size()));
  if (start.substr(0, kSealMagic.size()) != kSealMagic) {
    if (start.substr(0, kHdf5Signature.size()) == kHdf5Signature)
      throw refuse(
          "not the results file of an appell sweep: an HDF5 file without appell's seal, of "
          "another program or written by appell 0.2.0 or earlier (which wrote no checksums, so "
          "that it cannot be checked before it is trusted); run the sweep again");
    // HDF5 finds its signature after a user block too (reading 8 bytes at 512, 1024, ...).
    if (H5Fis_hdf5(path.c_str()) > 0)
      throw refuse(
          "not the results file of an appell sweep: an HDF5 file whose user block is not "
          "appell's seal (another program's, or a damaged one)");
    H5Eclear2(H5E_DEFAULT);
    throw refuse("not an HDF5 file");
  }
  const std::string cut =
      "an HDF5 file that cannot be opened: it is " + std::to_string(size) + " bytes long, not the ";
  if (!whole) throw refuse(cut + "length its seal says (truncated?)");
  Seal seal;
  seal.user_block = get_u64(&header[24]);
  seal.size = get_u64(&header[32]);
  const std::uint64_t count = get_u64(&header[48]);
  const std::string damaged = "damaged results file: ";
  if (seal.user_block < 512 || seal.user_block > kMaxUserBlock ||
      !std::has_single_bit(seal.user_block) || count > (seal.user_block - kSealHeader) / 16)
    throw refuse(damaged + "its seal (the user block) is not appell's" + kRemedy);
  if (seal.size != size)
    throw refuse(cut + std::to_string(seal.size) + " bytes it was written with (" +
                 (size < seal.size ? "truncated" : "extended") + ")");
  std::vector<unsigned char> block(seal.user_block);
  if (!read_at(fd.get(), block.data(), block.size(), 0, path))
    throw refuse(cut + "length its seal says (truncated?)");
  const std::uint64_t stored = get_u64(&block[16]);
  put_u64(&block[16], 0);
  Fnv1a self;
  self.add(block.data(), block.size());
  if (self.value() != stored)
    throw refuse(damaged + "its seal (the user block) does not match its checksum" + kRemedy);
  std::uint64_t end = seal.user_block;
  for (std::uint64_t i = 0; i < count; ++i) {
    const ByteRange range{get_u64(&block[kSealHeader + 16 * i]),
                          get_u64(&block[kSealHeader + 16 * i + 8])};
    if (range.offset < end || range.length == 0 || range.length > size - range.offset ||
        range.offset > size)
      throw refuse(damaged + "its seal lists a range of bytes outside the file" + kRemedy);
    end = range.offset + range.length;
    seal.ranges.push_back(range);
  }
  if (seal.user_block + kHdf5Signature.size() > size)
    throw refuse(cut + "length its seal says (truncated?)");
  if (unchanging_checksum(fd.get(), seal, path) != get_u64(&block[40]))
    throw refuse(damaged +
                 "its structure, attributes, cases table or output grid do not match the "
                 "checksum written with them" +
                 kRemedy);
  return seal;
}

// --- types -------------------------------------------------------------------------------------

Hid utf8_string_type(std::size_t size) {
  Hid type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (size == 0)
    H5Tset_size(type.get(), H5T_VARIABLE);
  else
    H5Tset_size(type.get(), size);
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

/// The status type: fixed-size, zero-padded UTF-8 (h5py: `f["status"].asstr()[:]`).
Hid status_type() { return utf8_string_type(kStatusBytes); }
Hid text_type() { return utf8_string_type(0); }

/// A status as the file keeps it: at most kStatusBytes bytes, cut at a whole UTF-8 character.
std::string stored_status(const std::string& status) {
  if (status.size() <= kStatusBytes) return status;
  const std::string ellipsis = "...";
  std::size_t end = 0;
  while (end < status.size()) {
    std::size_t length = model::utf8_sequence_at(status, end);
    if (length == 0) length = 1;
    if (end + length > kStatusBytes - ellipsis.size()) break;
    end += length;
  }
  return status.substr(0, end) + ellipsis;
}

std::string number_text(double value) {
  std::array<char, 32> text{};
  const auto end = std::to_chars(text.data(), text.data() + text.size(), value).ptr;
  return std::string(text.data(), end);
}

/// Two cells are the same number when their bits are (any NaN equals any NaN).
bool same_number(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

std::string list_text(const std::vector<std::string>& items) {
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + items[i];
  return text + "]";
}

/// Bad input about the file `path`, located at `where` ("resume", or the file itself): the
/// path is named, unless it is where the error is located already.
model::ModelError file_error(const model::SourceLocation& where, const std::string& message,
                             const std::string& path) {
  return model::ModelError(where, message, where.file == path ? std::string() : path);
}

// --- the layout --------------------------------------------------------------------------------

/// One float64 dataset a case writes a row of: [case] or [case, time] (a series).
struct Quantity {
  std::string path;
  bool series = false;
  bool needs_rows = false;  // NaN for a case that reached no row (not run, failed at once)
  std::function<double(const CaseResult&, std::size_t row)> value;
};

using Values = std::vector<double> CaseResult::*;
using Scalar = double CaseResult::*;

// A quantity of each coordinate (q, qd) and speed (u), and T, V, E, under `group`.
void add_group(std::vector<Quantity>& out, const std::string& group, bool series,
               const SweepSettings& s, std::array<Values, 3> vectors,
               std::array<Scalar, 3> energies, std::array<Values, 3> energy_series) {
  const std::array<const char*, 3> names = {"q", "qd", "u"};
  for (std::size_t v = 0; v < 3; ++v) {
    const auto& entries = v < 2 ? s.coordinates : s.speeds;
    const std::size_t n = entries.size();
    for (std::size_t j = 0; j < n; ++j) {
      const Values member = vectors[v];
      out.push_back({group + "/" + names[v] + "/" + entries[j], series, true,
                     [member, n, j, series](const CaseResult& r, std::size_t k) {
                       return (r.*member)[series ? k * n + j : j];
                     }});
    }
  }
  const std::array<const char*, 3> energy_names = {"T", "V", "E"};
  for (std::size_t e = 0; e < 3; ++e) {
    if (series) {
      const Values member = energy_series[e];
      out.push_back({group + "/" + energy_names[e], true, true,
                     [member](const CaseResult& r, std::size_t k) { return (r.*member)[k]; }});
    } else {
      const Scalar member = energies[e];
      out.push_back({group + "/" + energy_names[e], false, true,
                     [member](const CaseResult& r, std::size_t) { return r.*member; }});
    }
  }
}

/// Every float64 dataset of a case, in the order they are written (the status comes after).
std::vector<Quantity> quantities(const SweepSettings& s) {
  std::vector<Quantity> out;
  out.push_back(
      {"wall_time", false, false, [](const CaseResult& r, std::size_t) { return r.wall_time; }});
  out.push_back(
      {"t_reached", false, false, [](const CaseResult& r, std::size_t) { return r.t_reached; }});
  out.push_back({"energy_drift", false, false,
                 [](const CaseResult& r, std::size_t) { return r.energy_drift; }});
  using R = CaseResult;
  if (s.save == Save::Series) {
    add_group(out, "series", true, s, {&R::q, &R::qd, &R::u}, {},
              {&R::kinetic, &R::potential, &R::total});
    return out;
  }
  add_group(out, "final", false, s, {&R::final_q, &R::final_qd, &R::final_u},
            {&R::final_kinetic, &R::final_potential, &R::final_total}, {});
  if (s.save == Save::Summary) {
    add_group(out, "min", false, s, {&R::min_q, &R::min_qd, &R::min_u},
              {&R::min_kinetic, &R::min_potential, &R::min_total}, {});
    add_group(out, "max", false, s, {&R::max_q, &R::max_qd, &R::max_u},
              {&R::max_kinetic, &R::max_potential, &R::max_total}, {});
  }
  return out;
}

/// The groups the layout's datasets live in, parents first.
std::vector<std::string> groups(const SweepSettings& s) {
  std::vector<std::string> out = {"cases"};
  const auto add = [&](const std::string& group) {
    out.push_back(group);
    out.push_back(group + "/q");
    out.push_back(group + "/qd");
    if (!s.speeds.empty()) out.push_back(group + "/u");
  };
  if (s.save == Save::Series) {
    add("series");
  } else {
    add("final");
    if (s.save == Save::Summary) {
      add("min");
      add("max");
    }
  }
  return out;
}

ColumnKind kind_of(const std::string& column) {
  const std::array<std::pair<const char*, ColumnKind>, 4> prefixes = {
      {{"q0.", ColumnKind::InitialCoordinate},
       {"qd0.", ColumnKind::InitialRate},
       {"u0.", ColumnKind::InitialSpeed},
       {"input.", ColumnKind::Input}}};
  for (const auto& [prefix, kind] : prefixes)
    if (column.rfind(prefix, 0) == 0) return kind;
  return ColumnKind::Parameter;
}

/// A name the layout makes a link of ("/" would make it a path, "." is the group itself).
void check_link_name(const std::string& name, const std::string& what) {
  if (name.empty() || name == "." || name.find('/') != std::string::npos)
    throw std::invalid_argument("results file: " + what + " '" + name +
                                "' cannot name an HDF5 dataset");
}

// --- property lists ----------------------------------------------------------------------------

/// File access: no sieve buffer and no metadata written but at close or flush, so that every
/// write goes to the system at once and in order (see the top of this file); file locking where
/// the file system has it.
Hid file_access() {
  Hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_sieve_buf_size(fapl.get(), 0);
  H5Pset_cache(fapl.get(), 0, 521, 0, 1.0);
  H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG);
  H5Pset_file_locking(fapl.get(), true, true);
  return fapl;
}

Hid link_creation() {
  Hid lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_char_encoding(lcpl.get(), H5T_CSET_UTF8);
  return lcpl;
}

Hid attribute_creation() {
  Hid acpl(H5Pcreate(H5P_ATTRIBUTE_CREATE), H5Pclose);
  H5Pset_char_encoding(acpl.get(), H5T_CSET_UTF8);
  return acpl;
}

// --- writing -----------------------------------------------------------------------------------

/// Writes HDF5 objects into one file being made; every failure names the path.
class Maker {
 public:
  Maker(hid_t file, std::string path) : file_(file), path_(std::move(path)) {}

  void group(const std::string& name) {
    Hid gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    H5Pset_obj_track_times(gcpl.get(), false);
    checked(H5Gcreate2(file_, name.c_str(), lcpl_.get(), gcpl.get(), H5P_DEFAULT), H5Gclose,
            "create", path_);
  }

  void attribute(hid_t object, const std::string& name, const std::string& value) {
    Hid type = text_type();
    Hid space(H5Screate(H5S_SCALAR), H5Sclose);
    const char* text = value.c_str();
    write_attribute(object, name, type.get(), space.get(), &text);
  }
  void attribute(hid_t object, const std::string& name, const std::vector<std::string>& values) {
    Hid type = text_type();
    const hsize_t n = values.size();
    Hid space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    std::vector<const char*> texts;
    for (const auto& v : values) texts.push_back(v.c_str());
    // An empty list (a model without speeds) is an attribute of shape (0,): nothing to write.
    write_attribute(object, name, type.get(), space.get(), values.empty() ? nullptr : texts.data());
  }
  void attribute(hid_t object, const std::string& name, double value) {
    Hid space(H5Screate(H5S_SCALAR), H5Sclose);
    write_attribute(object, name, H5T_IEEE_F64LE, space.get(), &value, H5T_NATIVE_DOUBLE);
  }
  void attribute(hid_t object, const std::string& name, long value) {
    Hid space(H5Screate(H5S_SCALAR), H5Sclose);
    const std::int64_t v = value;
    write_attribute(object, name, H5T_STD_I64LE, space.get(), &v, H5T_NATIVE_INT64);
  }

  /// A contiguous dataset of `dims`, allocated now and filled with `fill` (nullptr: HDF5's
  /// zeros). Contiguous, so that its raw data are one range of bytes the seal can name.
  Hid dataset(const std::string& name, hid_t type, const std::vector<hsize_t>& dims,
              const void* fill) {
    Hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_obj_track_times(dcpl.get(), false);
    expect(H5Pset_layout(dcpl.get(), H5D_CONTIGUOUS), "create", path_);
    H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_ALLOC);
    if (fill) expect(H5Pset_fill_value(dcpl.get(), type, fill), "create", path_);
    Hid space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    return checked(
        H5Dcreate2(file_, name.c_str(), type, space.get(), lcpl_.get(), dcpl.get(), H5P_DEFAULT),
        H5Dclose, "create", path_);
  }

 private:
  void write_attribute(hid_t object, const std::string& name, hid_t file_type, hid_t space,
                       const void* data, hid_t memory_type = -1) {
    Hid attribute =
        checked(H5Acreate2(object, name.c_str(), file_type, space, acpl_.get(), H5P_DEFAULT),
                H5Aclose, "create", path_);
    if (data)
      expect(H5Awrite(attribute.get(), memory_type >= 0 ? memory_type : file_type, data), "write",
             path_);
  }

  hid_t file_;
  std::string path_;
  Hid lcpl_ = link_creation();
  Hid acpl_ = attribute_creation();
};

/// Rows [first, first + count) of `dataset` (each `width` elements of `type`) to or from `data`;
/// false when HDF5 fails (hdf5_reason() says why).
bool try_transfer_rows(hid_t dataset, hid_t type, std::size_t first, std::size_t count,
                       std::size_t width, void* data, bool read) {
  if (count == 0) return true;
  // A [case] dataset reads the first entry of each array only.
  Hid file_space(H5Dget_space(dataset), H5Sclose);
  if (!file_space.valid()) return false;
  const std::array<hsize_t, 2> start = {first, 0}, extent = {count, width};
  if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, extent.data(),
                          nullptr) < 0)
    return false;
  const hsize_t elements = count * width;
  Hid memory_space(H5Screate_simple(1, &elements, nullptr), H5Sclose);
  if (!memory_space.valid()) return false;
  return (read ? H5Dread(dataset, type, memory_space.get(), file_space.get(), H5P_DEFAULT, data)
               : H5Dwrite(dataset, type, memory_space.get(), file_space.get(), H5P_DEFAULT,
                          data)) >= 0;
}

void transfer_rows(hid_t dataset, hid_t type, std::size_t first, std::size_t count,
                   std::size_t width, void* data, bool read, const std::string& path) {
  if (!try_transfer_rows(dataset, type, first, count, width, data, read))
    io_failure(read ? "read" : "write", path);
}

/// The raw data of a contiguous dataset, as a range of the file's bytes (none when empty).
std::optional<ByteRange> raw_range(hid_t dataset) {
  const hsize_t length = H5Dget_storage_size(dataset);
  if (length == 0) return std::nullopt;
  const haddr_t offset = H5Dget_offset(dataset);
  if (offset == HADDR_UNDEF) return ByteRange{std::numeric_limits<std::uint64_t>::max(), length};
  return ByteRange{offset, length};
}

// --- reading -----------------------------------------------------------------------------------

/// What the elements of a dataset must be, exactly as the writer makes them.
enum class Element { Float64, Int64, UInt64, Status, Text };

/// The memory type an Element is read with: the file's own, so that the bytes read are the
/// bytes stored (what a case's checksum is of).
Hid memory_type(Element element) {
  switch (element) {
    case Element::Float64:
      return Hid(H5Tcopy(H5T_IEEE_F64LE), H5Tclose);
    case Element::Int64:
      return Hid(H5Tcopy(H5T_STD_I64LE), H5Tclose);
    case Element::UInt64:
      return Hid(H5Tcopy(H5T_STD_U64LE), H5Tclose);
    case Element::Status:
      return status_type();
    case Element::Text:
      return text_type();
  }
  return text_type();
}

bool is_element(hid_t type, Element element) {
  if (type < 0) return false;
  switch (element) {
    case Element::Float64:
      return H5Tequal(type, H5T_IEEE_F64LE) > 0;
    case Element::Int64:
      return H5Tequal(type, H5T_STD_I64LE) > 0;
    case Element::UInt64:
      return H5Tequal(type, H5T_STD_U64LE) > 0;
    case Element::Status:
      return H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) == 0 &&
             H5Tget_size(type) == kStatusBytes;
    case Element::Text:
      return H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0;
  }
  return false;
}

/// A file being read that must be a sweep's results; what is wrong with it is bad input located
/// at `where` (the option or the file that named it). Every size it reads from the file is
/// bounded by the file's own size before anything is allocated from it.
class Reader {
 public:
  Reader(hid_t file, std::string path, model::SourceLocation where, std::uint64_t size)
      : file_(file), path_(std::move(path)), where_(std::move(where)), size_(size) {}

  [[noreturn]] void damaged(const std::string& what) const {
    throw file_error(where_, "damaged results file: " + what, path_);
  }
  /// A damaged file whose HDF5 call failed: the reason HDF5 gives.
  [[noreturn]] void unreadable(const std::string& what) const {
    damaged("cannot read " + what + ": " + hdf5_reason());
  }

  bool has_attribute(hid_t object, const char* name) const {
    const htri_t exists = H5Aexists(object, name);
    if (exists < 0) unreadable(std::string("attribute ") + name);
    return exists > 0;
  }

  std::string text(hid_t object, const char* name) const {
    auto values = texts(object, name, true);
    return values.front();
  }

  std::vector<std::string> texts(hid_t object, const char* name, bool scalar = false) const {
    const std::string what = std::string("attribute ") + name;
    if (!has_attribute(object, name)) damaged("no " + what);
    Hid attribute(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
    if (!attribute.valid()) unreadable(what);
    Hid type(H5Aget_type(attribute.get()), H5Tclose);
    Hid space(H5Aget_space(attribute.get()), H5Sclose);
    if (!type.valid() || !space.valid()) unreadable(what);
    const std::size_t n = points(space.get(), scalar ? 0 : 1, what);
    if (!is_element(type.get(), Element::Text))
      damaged(what + " is not " + (scalar ? "a text" : "a list of texts"));
    // Each element of the attribute's data is 16 bytes of the file: a count beyond that is not
    // what the file holds.
    if (n > size_ / kTextElementBytes) damaged(what + " holds more texts than the file could");
    std::vector<char*> raw(n, nullptr);
    Hid memory = text_type();
    if (n > 0 && H5Aread(attribute.get(), memory.get(), raw.data()) < 0) unreadable(what);
    std::vector<std::string> values;
    for (char* v : raw) values.emplace_back(v ? v : "");
    if (n > 0) H5Dvlen_reclaim(memory.get(), space.get(), H5P_DEFAULT, raw.data());
    return values;
  }

  double number(hid_t object, const char* name) const {
    const std::string what = std::string("attribute ") + name;
    if (!has_attribute(object, name)) damaged("no " + what);
    Hid attribute(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
    if (!attribute.valid()) unreadable(what);
    Hid type(H5Aget_type(attribute.get()), H5Tclose);
    Hid space(H5Aget_space(attribute.get()), H5Sclose);
    if (!type.valid() || !space.valid()) unreadable(what);
    points(space.get(), 0, what);
    if (!is_element(type.get(), Element::Float64) && !is_element(type.get(), Element::Int64))
      damaged(what + " is not a number");
    double value = kNaN;
    if (H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value) < 0) unreadable(what);
    return value;
  }

  /// An existing dataset of `dims` whose elements are `element`s.
  Hid dataset(const std::string& name, const std::vector<hsize_t>& dims, Element element) const {
    const std::string what = "/" + name;
    const htri_t exists = H5Lexists(file_, name.c_str(), H5P_DEFAULT);
    if (exists <= 0) damaged("no dataset " + what);
    Hid dataset(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid()) damaged(what + " is not a dataset");
    Hid type(H5Dget_type(dataset.get()), H5Tclose);
    Hid space(H5Dget_space(dataset.get()), H5Sclose);
    if (!type.valid() || !space.valid()) unreadable(what);
    if (extent(space.get(), what) != dims || !is_element(type.get(), element))
      damaged(what + " is not of the sweep's type and shape");
    return dataset;
  }

  /// Rows of a dataset opened by dataset(), into `data` (sized by the caller from checked
  /// dimensions).
  void read_rows(hid_t dataset, const std::string& name, Element element, std::size_t first,
                 std::size_t count, std::size_t width, void* data) const {
    Hid memory = memory_type(element);
    if (!try_transfer_rows(dataset, memory.get(), first, count, width, data, true))
      unreadable("/" + name);
  }

  /// The number of cases: /status's length, at most kMaxCases and what the file can hold (a
  /// status is 256 bytes of it).
  std::size_t cases() const {
    if (H5Lexists(file_, "status", H5P_DEFAULT) <= 0) damaged("no dataset /status");
    Hid dataset(H5Dopen2(file_, "status", H5P_DEFAULT), H5Dclose);
    if (!dataset.valid()) damaged("/status is not a dataset");
    Hid space(H5Dget_space(dataset.get()), H5Sclose);
    if (!space.valid()) unreadable("/status");
    const auto dims = extent(space.get(), "/status");
    if (dims.size() != 1) damaged("/status is not [case]");
    if (dims[0] > kMaxCases || dims[0] > size_ / kStatusBytes)
      damaged("/status holds " + std::to_string(dims[0]) + " cases, more than the file could");
    return static_cast<std::size_t>(dims[0]);
  }

  hid_t file() const { return file_; }
  const std::string& path() const { return path_; }
  const model::SourceLocation& where() const { return where_; }
  std::uint64_t size() const { return size_; }

 private:
  /// A simple dataspace's dimensions (at most 2).
  std::vector<hsize_t> extent(hid_t space, const std::string& what) const {
    const int rank = H5Sget_simple_extent_ndims(space);
    if (rank < 0 || rank > 2) damaged(what + " is not of the sweep's shape");
    std::array<hsize_t, 2> dims{};
    if (H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0) unreadable(what);
    return std::vector<hsize_t>(dims.begin(), dims.begin() + rank);
  }
  /// The number of elements of an attribute's space of `rank` (0: scalar).
  std::size_t points(hid_t space, int rank, const std::string& what) const {
    const H5S_class_t kind = H5Sget_simple_extent_type(space);
    if ((rank == 0 ? kind != H5S_SCALAR : kind != H5S_SIMPLE) ||
        H5Sget_simple_extent_ndims(space) != rank)
      damaged(what + " is not " + (rank == 0 ? "one value" : "a list"));
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    if (n < 0) unreadable(what);
    return static_cast<std::size_t>(n);
  }

  hid_t file_;
  std::string path_;
  model::SourceLocation where_;
  std::uint64_t size_;
};

/// The sweep a results file holds: its settings (from the root's attributes) and cases table.
struct Identity {
  SweepSettings settings;
  CaseTable table;
};

/// Names the file makes links of: each a name check_link_name accepts, none twice.
void check_names(const Reader& in, const std::vector<std::string>& names, const char* what) {
  std::set<std::string> seen;
  for (const auto& name : names)
    if (name.empty() || name == "." || name.find('/') != std::string::npos ||
        !seen.insert(name).second)
      in.damaged(std::string(what) + " '" + name + "' cannot name a dataset, or is there twice");
}

Identity read_identity(const Reader& in) {
  Hid root(H5Oopen(in.file(), "/", H5P_DEFAULT), H5Oclose);
  if (!root.valid()) in.unreadable("the root group");
  const hid_t r = root.get();
  if (!in.has_attribute(r, "format") || in.text(r, "format") != kFormat)
    throw file_error(in.where(), "not the results file of an appell sweep", in.path());
  if (const double version = in.number(r, "format_version"); version != kFormatVersion)
    throw file_error(in.where(),
                     "results file format_version " + number_text(version) +
                         ": this appell reads format_version " + std::to_string(kFormatVersion),
                     in.path());
  Identity id;
  SweepSettings& s = id.settings;
  s.model_name = in.text(r, "model_name");
  s.model_hash = in.text(r, "model_hash");
  s.appell_version = in.text(r, "appell_version");
  s.command_line = in.text(r, "command_line");
  s.t_end = in.number(r, "t_end");
  s.output_step = in.number(r, "output_step");
  // The output grid is computed from these (so must end), and /t holds it: no more times than
  // the file has room for.
  if (!(std::isfinite(s.t_end) && s.t_end > 0 && std::isfinite(s.output_step) &&
        s.output_step > 0 &&
        s.t_end / s.output_step <= static_cast<double>(in.size() / sizeof(double))))
    in.damaged("t_end " + number_text(s.t_end) + " and output_step " + number_text(s.output_step) +
               " are not the span of an output grid it holds");
  s.rtol = in.number(r, "rtol");
  s.atol = in.number(r, "atol");
  s.integrator = in.text(r, "integrator");
  const std::string save = in.text(r, "save");
  const auto parsed = parse_save(save);
  if (!parsed) in.damaged("save is '" + save + "'");
  s.save = *parsed;
  s.coordinates = in.texts(r, "coordinates");
  s.speeds = in.texts(r, "speeds");
  s.common_values = in.texts(r, "common_values");
  check_names(in, s.coordinates, "coordinate");
  check_names(in, s.speeds, "speed");

  const std::size_t n = in.cases();
  if (H5Lexists(in.file(), "cases", H5P_DEFAULT) <= 0) in.damaged("no group /cases");
  Hid cases(H5Oopen(in.file(), "cases", H5P_DEFAULT), H5Oclose);
  if (!cases.valid()) in.unreadable("/cases");
  CaseTable& t = id.table;
  const auto names = in.texts(cases.get(), "columns");
  check_names(in, names, "cases column");
  for (const auto& name : names)
    t.columns.push_back({name, kind_of(name), name.substr(name.find('.') + 1)});
  t.numbers.assign(n, std::vector<double>(t.columns.size(), kNaN));
  t.expressions.assign(n, std::vector<std::string>(t.columns.size()));
  t.rows.assign(n, model::SourceLocation{in.path(), 0, 0});
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    const std::string name = "cases/" + t.columns[c].name;
    if (t.columns[c].kind == ColumnKind::Input) {
      Hid dataset = in.dataset(name, {n}, Element::Text);
      Hid memory = text_type();
      std::vector<char*> raw(n, nullptr);
      in.read_rows(dataset.get(), name, Element::Text, 0, n, 1, raw.data());
      for (std::size_t i = 0; i < n; ++i) t.expressions[i][c] = raw[i] ? raw[i] : "";
      Hid space(H5Screate_simple(1, std::array<hsize_t, 1>{n}.data(), nullptr), H5Sclose);
      if (n > 0) H5Dvlen_reclaim(memory.get(), space.get(), H5P_DEFAULT, raw.data());
    } else {
      Hid dataset = in.dataset(name, {n}, Element::Float64);
      std::vector<double> column(n);
      Hid memory(H5Tcopy(H5T_NATIVE_DOUBLE), H5Tclose);
      if (!try_transfer_rows(dataset.get(), memory.get(), 0, n, 1, column.data(), true))
        in.unreadable("/" + name);
      for (std::size_t i = 0; i < n; ++i) t.numbers[i][c] = column[i];
    }
  }
  return id;
}

struct Difference {
  std::string field, first, second;
};

/// The first field in which two sweeps differ (in the order a reader checks them), if any.
std::optional<Difference> first_difference(const SweepSettings& a, const CaseTable& ta,
                                           const SweepSettings& b, const CaseTable& tb) {
  const auto text = [](const std::string& field, const std::string& x,
                       const std::string& y) -> std::optional<Difference> {
    if (x == y) return std::nullopt;
    return Difference{field, "'" + x + "'", "'" + y + "'"};
  };
  const auto number = [](const std::string& field, double x,
                         double y) -> std::optional<Difference> {
    if (same_number(x, y)) return std::nullopt;
    return Difference{field, number_text(x), number_text(y)};
  };
  const auto list = [](const std::string& field, const std::vector<std::string>& x,
                       const std::vector<std::string>& y) -> std::optional<Difference> {
    if (x == y) return std::nullopt;
    return Difference{field, list_text(x), list_text(y)};
  };
  for (auto d :
       {text("model_hash", a.model_hash, b.model_hash), number("t_end", a.t_end, b.t_end),
        number("output_step", a.output_step, b.output_step), number("rtol", a.rtol, b.rtol),
        number("atol", a.atol, b.atol), text("integrator", a.integrator, b.integrator),
        text("save", save_name(a.save), save_name(b.save)),
        list("coordinates", a.coordinates, b.coordinates), list("speeds", a.speeds, b.speeds),
        list("common_values", a.common_values, b.common_values)})
    if (d) return d;
  std::vector<std::string> ca, cb;
  for (const auto& c : ta.columns) ca.push_back(c.name);
  for (const auto& c : tb.columns) cb.push_back(c.name);
  if (auto d = list("cases columns", ca, cb)) return d;
  if (ta.size() != tb.size())
    return Difference{"number of cases", std::to_string(ta.size()), std::to_string(tb.size())};
  for (std::size_t i = 0; i < ta.size(); ++i)
    for (std::size_t c = 0; c < ca.size(); ++c) {
      const std::string field = "cases/" + ca[c] + "[" + std::to_string(i) + "]";
      const auto d = ta.columns[c].kind == ColumnKind::Input
                         ? text(field, ta.expressions[i][c], tb.expressions[i][c])
                         : number(field, ta.numbers[i][c], tb.numbers[i][c]);
      if (d) return d;
    }
  return std::nullopt;
}

/// An existing results file opened by HDF5 once its seal holds.
struct OpenFile {
  Hid file;
  Seal seal;
};

/// Opens an existing results file; a missing file, one that is not HDF5, whose seal does not
/// hold (damaged, edited, truncated, written without one) or that HDF5 cannot open is bad input
/// at `where`.
OpenFile open_existing(const std::string& path, bool write, const model::SourceLocation& where) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) throw file_error(where, "no such file", path);
  if (!std::filesystem::is_regular_file(path, error)) throw file_error(where, "not a file", path);
  OpenFile open{Hid(), check_seal(path, where)};
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw file_error(where, "not an HDF5 file", path);
  }
  Hid fapl = file_access();
  open.file =
      Hid(H5Fopen(path.c_str(), write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl.get()), H5Fclose);
  if (!open.file.valid())
    throw file_error(where,
                     "an HDF5 file that cannot be opened (truncated or damaged?): " + hdf5_reason(),
                     path);
  return open;
}

/// `path` + a name of this process's own beside it, for a file made aside.
std::string aside(const std::string& path) {
  return path + ".partial-" + std::to_string(::getpid());
}

/// Moves the file made aside to `path`, which must not exist (never replaced, even when another
/// process made it meanwhile).
void move_into_place(const std::string& from, const std::string& path,
                     const model::SourceLocation& where, const std::string& exists_message) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) return;
  int error = errno;
  if (error == EINVAL || error == ENOSYS) {
    // A file system without RENAME_NOREPLACE: a hard link refuses an existing name too.
    if (::link(from.c_str(), path.c_str()) == 0) {
      ::unlink(from.c_str());
      return;
    }
    error = errno;
  }
  if (error == EEXIST) throw file_error(where, exists_message, path);
  throw model::ComputationError("could not write " + path + ": " + std::strerror(error));
}

/// A case's checksum, fed in the order the file's datasets are listed: the case's index, its
/// status's 256 bytes, its steps, then the row of every quantity but wall_time (a clock reading
/// that differs between two runs of the same case), each value's 8 bytes as stored.
Fnv1a case_checksum_start(std::size_t index, const char* status, std::int64_t steps) {
  Fnv1a sum;
  sum.add_u64(index);
  sum.add(status, kStatusBytes);
  sum.add_u64(static_cast<std::uint64_t>(steps));
  return sum;
}

bool checksummed(const Quantity& q) { return q.path != "wall_time"; }

/// A status as stored, if it is one the writer could write: not empty, and zeros after it.
std::optional<std::string> status_text(const char* raw) {
  const std::size_t length = strnlen(raw, kStatusBytes);
  for (std::size_t i = length; i < kStatusBytes; ++i)
    if (raw[i] != '\0') return std::nullopt;
  if (length == 0) return std::nullopt;
  return std::string(raw, length);
}

}  // namespace

// --- the file ----------------------------------------------------------------------------------

struct ResultsFile::Impl {
  std::string path;
  SweepSettings settings;
  std::size_t cases = 0, times = 0;
  Hid file;
  Hid status, checksum, steps;
  std::vector<Quantity> quantities;
  std::vector<Hid> values;  // one dataset per quantity
  std::vector<std::string> statuses;
  std::vector<double> row;  // one row's buffer

  /// Makes the whole file at `at` (a new name) for `path` and seals it; a file that cannot be
  /// created is bad input at `where`.
  static std::unique_ptr<Impl> make(const std::string& at, const std::string& path,
                                    const model::SourceLocation& where,
                                    const SweepSettings& settings, const CaseTable& table);
  /// The file at `path` opened, checked and read as a sweep's results: its seal, its identity
  /// (into `found`), then `same_sweep` (which throws when it is another sweep than expected),
  /// then its per-case datasets, statuses and checksums.
  static std::unique_ptr<Impl> open_checked(const std::string& path, bool write,
                                            const model::SourceLocation& where, Identity& found,
                                            const std::function<void(const Identity&)>& same_sweep);
  /// Opens the per-case datasets of an existing file whose seal held, checks that they are the
  /// ones it names, reads the statuses and checks every case's checksum.
  void open_datasets(const Reader& in, const Seal& seal);
  void write_status(std::size_t index, const std::array<char, kStatusBytes>& raw);
  void write(const CaseResult& result);
  void check_fits(const CaseResult& result) const;
  void close();
  /// Closes every dataset and the file, false when HDF5 failed to.
  bool close_handles() {
    values.clear();
    status.reset();
    checksum.reset();
    steps.reset();
    return file.reset();
  }
  /// The counts of the statuses.
  MergeSummary summary() const {
    MergeSummary s;
    for (const auto& text : statuses) {
      if (text == kNotRun)
        ++s.not_run;
      else if (text == "ok")
        ++s.ok;
      else
        ++s.failed;
    }
    return s;
  }
};

std::unique_ptr<ResultsFile::Impl> ResultsFile::Impl::make(const std::string& at,
                                                           const std::string& path,
                                                           const model::SourceLocation& where,
                                                           const SweepSettings& settings,
                                                           const CaseTable& table) {
  for (const auto& name : settings.coordinates) check_link_name(name, "coordinate");
  for (const auto& name : settings.speeds) check_link_name(name, "speed");
  for (const auto& column : table.columns) check_link_name(column.name, "cases column");
  if (table.expressions.size() != table.size())
    throw std::invalid_argument("results file: the cases table's expressions are not one a case");

  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->settings = settings;
  impl->cases = table.size();
  const std::vector<double> grid = output_times(settings);
  impl->times = grid.size();
  impl->quantities = sweep::quantities(settings);
  // The superblock's flags, status, checksum and steps, and the quantities: what the seal leaves
  // free to change.
  const std::uint64_t user_block = user_block_size(4 + impl->quantities.size());

  Hid fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  H5Pset_obj_track_times(fcpl.get(), false);  // the root group
  expect(H5Pset_userblock(fcpl.get(), user_block), "create", path);
  Hid fapl = file_access();
  impl->file = Hid(H5Fcreate(at.c_str(), H5F_ACC_EXCL, fcpl.get(), fapl.get()), H5Fclose);
  if (!impl->file.valid())
    throw file_error(where, "cannot create the file: " + hdf5_reason(), path);
  const hid_t file = impl->file.get();
  Maker make(file, path);

  {
    Hid root(H5Oopen(file, "/", H5P_DEFAULT), H5Oclose);
    const hid_t r = root.get();
    make.attribute(r, "format", std::string(kFormat));
    make.attribute(r, "format_version", kFormatVersion);
    make.attribute(r, "model_name", settings.model_name);
    make.attribute(r, "model_hash", settings.model_hash);
    make.attribute(r, "appell_version", settings.appell_version);
    make.attribute(r, "command_line", settings.command_line);
    make.attribute(r, "t_end", settings.t_end);
    make.attribute(r, "output_step", settings.output_step);
    make.attribute(r, "rtol", settings.rtol);
    make.attribute(r, "atol", settings.atol);
    make.attribute(r, "integrator", settings.integrator);
    make.attribute(r, "save", save_name(settings.save));
    make.attribute(r, "coordinates", settings.coordinates);
    make.attribute(r, "speeds", settings.speeds);
    make.attribute(r, "common_values", settings.common_values);
  }

  for (const auto& group : groups(settings)) make.group(group);

  // The cases table.
  const hsize_t n = impl->cases;
  {
    Hid cases(H5Oopen(file, "cases", H5P_DEFAULT), H5Oclose);
    std::vector<std::string> names;
    for (const auto& column : table.columns) names.push_back(column.name);
    make.attribute(cases.get(), "columns", names);
  }
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    const std::string name = "cases/" + table.columns[c].name;
    if (table.columns[c].kind == ColumnKind::Input) {
      Hid type = text_type();
      Hid dataset = make.dataset(name, type.get(), {n}, nullptr);
      std::vector<const char*> texts;
      for (const auto& row : table.expressions) texts.push_back(row.at(c).c_str());
      transfer_rows(dataset.get(), type.get(), 0, n, 1, texts.data(), false, path);
    } else {
      Hid dataset = make.dataset(name, H5T_IEEE_F64LE, {n}, &kNaN);
      std::vector<double> column;
      for (const auto& row : table.numbers) column.push_back(row.at(c));
      transfer_rows(dataset.get(), H5T_NATIVE_DOUBLE, 0, n, 1, column.data(), false, path);
    }
  }

  {
    Hid t = make.dataset("t", H5T_IEEE_F64LE, {grid.size()}, &kNaN);
    transfer_rows(t.get(), H5T_NATIVE_DOUBLE, 0, grid.size(), 1, const_cast<double*>(grid.data()),
                  false, path);
  }

  // The per-case datasets, every case "not run", and where their raw data lie.
  std::vector<ByteRange> ranges = {superblock_flags(user_block)};
  const auto add_range = [&](const Hid& dataset) {
    if (const auto range = raw_range(dataset.get())) ranges.push_back(*range);
  };
  Hid type = status_type();
  std::array<char, kStatusBytes> not_run{};
  std::memcpy(not_run.data(), kNotRun, std::strlen(kNotRun));
  add_range(make.dataset("status", type.get(), {n}, not_run.data()));
  const std::uint64_t no_checksum = 0;
  add_range(make.dataset("checksum", H5T_STD_U64LE, {n}, &no_checksum));
  const std::int64_t no_steps = 0;
  add_range(make.dataset("steps", H5T_STD_I64LE, {n}, &no_steps));
  const hsize_t times = impl->times;
  for (const auto& q : impl->quantities)
    add_range(q.series ? make.dataset(q.path, H5T_IEEE_F64LE, {n, times}, &kNaN)
                       : make.dataset(q.path, H5T_IEEE_F64LE, {n}, &kNaN));

  // The structure is final: closed (every byte of it on disk), sealed, and opened again to be
  // written case by case. HDF5 rewrites the superblock's entry of the root group when it first
  // opens a file it made for writing (it forgets the symbol table it had cached there), and never
  // again: opened and closed once before the seal, so that the seal holds from then on.
  if (!impl->file.reset()) io_failure("write", path);
  if (!checked(H5Fopen(at.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose, "write", path).reset())
    io_failure("write", path);
  write_seal(at, path, user_block, ranges);
  impl->file = checked(H5Fopen(at.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose, "write", path);
  const auto open = [&](const std::string& name) {
    return checked(H5Dopen2(impl->file.get(), name.c_str(), H5P_DEFAULT), H5Dclose, "write", path);
  };
  impl->status = open("status");
  impl->checksum = open("checksum");
  impl->steps = open("steps");
  for (const auto& q : impl->quantities) impl->values.push_back(open(q.path));
  impl->statuses.assign(impl->cases, kNotRun);
  return impl;
}

void ResultsFile::Impl::open_datasets(const Reader& in, const Seal& seal) {
  const hsize_t n = cases, t = times;
  in.dataset("t", {t}, Element::Float64);
  status = in.dataset("status", {n}, Element::Status);
  checksum = in.dataset("checksum", {n}, Element::UInt64);
  steps = in.dataset("steps", {n}, Element::Int64);
  quantities = sweep::quantities(settings);
  for (const auto& q : quantities)
    values.push_back(q.series ? in.dataset(q.path, {n, t}, Element::Float64)
                              : in.dataset(q.path, {n}, Element::Float64));

  // The bytes the seal leaves free to change are exactly these datasets' raw data and the
  // superblock's flags.
  std::vector<ByteRange> ranges = {superblock_flags(seal.user_block)};
  for (const Hid* d : {&status, &checksum, &steps})
    if (const auto range = raw_range(d->get())) ranges.push_back(*range);
  for (const auto& d : values)
    if (const auto range = raw_range(d.get())) ranges.push_back(*range);
  std::sort(ranges.begin(), ranges.end());
  if (ranges != seal.ranges)
    in.damaged("the bytes its seal leaves free are not those of its cases' data" +
               std::string(kRemedy));

  // A block of cases at a time (memory bounded by the block, not the sweep): the statuses, and
  // each case's checksum over what the file holds of it.
  const std::size_t widest = std::max<std::size_t>(kStatusBytes, times * sizeof(double));
  const std::size_t block = std::max<std::size_t>(1, kBlockBytes / widest);
  std::vector<char> raw_status, bytes;
  std::vector<Fnv1a> sums;
  statuses.reserve(cases);
  for (std::size_t first = 0; first < cases; first += block) {
    const std::size_t count = std::min(block, cases - first);
    raw_status.assign(count * kStatusBytes, '\0');
    in.read_rows(status.get(), "status", Element::Status, first, count, 1, raw_status.data());
    std::vector<std::int64_t> steps_taken(count);
    in.read_rows(steps.get(), "steps", Element::Int64, first, count, 1, steps_taken.data());
    sums.clear();
    for (std::size_t i = 0; i < count; ++i) {
      // The bytes as stored, little-endian: what the writer's checksum is of.
      std::array<unsigned char, 8> le{};
      std::memcpy(le.data(), &steps_taken[i], 8);
      sums.push_back(
          case_checksum_start(first + i, raw_status.data() + i * kStatusBytes, get_u64(le.data())));
    }
    for (std::size_t k = 0; k < quantities.size(); ++k) {
      if (!checksummed(quantities[k])) continue;
      const std::size_t width = quantities[k].series ? times : 1;
      bytes.assign(count * width * sizeof(double), '\0');
      in.read_rows(values[k].get(), quantities[k].path, Element::Float64, first, count, width,
                   bytes.data());
      for (std::size_t i = 0; i < count; ++i)
        sums[i].add(bytes.data() + i * width * sizeof(double), width * sizeof(double));
    }
    std::vector<std::uint64_t> stored(count);
    in.read_rows(checksum.get(), "checksum", Element::UInt64, first, count, 1, stored.data());
    for (std::size_t i = 0; i < count; ++i) {
      const char* raw = raw_status.data() + i * kStatusBytes;
      const auto text = status_text(raw);
      // A case never written, or whose rewrite was cut short, is "not run": run again, its
      // data never read.
      if (text && *text == kNotRun) {
        statuses.push_back(*text);
        continue;
      }
      std::array<unsigned char, 8> le{};
      std::memcpy(le.data(), &stored[i], 8);
      if (get_u64(le.data()) != sums[i].value())
        in.damaged("case " + std::to_string(first + i) +
                   "'s status and data do not match its checksum" + kRemedy);
      if (!text) in.damaged("case " + std::to_string(first + i) + "'s status is not a status");
      statuses.push_back(*text);
    }
  }
}

void ResultsFile::Impl::write_status(std::size_t index, const std::array<char, kStatusBytes>& raw) {
  Hid type = status_type();
  transfer_rows(status.get(), type.get(), index, 1, 1, const_cast<char*>(raw.data()), false, path);
  statuses[index] = std::string(raw.data(), strnlen(raw.data(), kStatusBytes));
}

void ResultsFile::Impl::check_fits(const CaseResult& r) const {
  const auto refuse = [&](const std::string& what) {
    throw std::invalid_argument("results file " + path + ": case " + std::to_string(r.index) +
                                ": " + what);
  };
  if (!file.valid()) refuse("the file is closed");
  if (r.index >= cases) refuse("no such case (" + std::to_string(cases) + " cases)");
  if (r.status.empty() || r.status.front() == '\0') refuse("no status");
  if (r.rows > times) refuse("more rows than the output grid's " + std::to_string(times));
  if (r.rows == 0) return;
  const std::size_t n = settings.coordinates.size(), m = settings.speeds.size();
  if (r.dof != n || r.speeds != m) refuse("not of the model's coordinates and speeds");
  const auto sized = [&](const std::vector<double>& v, std::size_t size, const char* name) {
    if (v.size() != size)
      refuse(std::string(name) + " holds " + std::to_string(v.size()) + " values, not " +
             std::to_string(size));
  };
  if (settings.save == Save::Series) {
    sized(r.q, r.rows * n, "q");
    sized(r.qd, r.rows * n, "qd");
    sized(r.u, r.rows * m, "u");
    sized(r.kinetic, r.rows, "kinetic");
    sized(r.potential, r.rows, "potential");
    sized(r.total, r.rows, "total");
    return;
  }
  sized(r.final_q, n, "final_q");
  sized(r.final_qd, n, "final_qd");
  sized(r.final_u, m, "final_u");
  if (settings.save == Save::Summary) {
    sized(r.min_q, n, "min_q");
    sized(r.max_q, n, "max_q");
    sized(r.min_qd, n, "min_qd");
    sized(r.max_qd, n, "max_qd");
    sized(r.min_u, m, "min_u");
    sized(r.max_u, m, "max_u");
  }
}

void ResultsFile::Impl::write(const CaseResult& r) {
  check_fits(r);
  // A case written again: "not run" until its new data are all there.
  std::array<char, kStatusBytes> raw{};
  if (statuses[r.index] != kNotRun) {
    std::memcpy(raw.data(), kNotRun, std::strlen(kNotRun));
    write_status(r.index, raw);
    raw.fill('\0');
  }
  // A status is read back up to its first zero byte: none inside it.
  const std::string text = stored_status(r.status.substr(0, r.status.find('\0')));
  std::memcpy(raw.data(), text.data(), std::min(text.size(), kStatusBytes));
  const std::int64_t steps_taken = r.steps;
  Fnv1a sum = case_checksum_start(r.index, raw.data(), steps_taken);
  for (std::size_t k = 0; k < quantities.size(); ++k) {
    const Quantity& q = quantities[k];
    const std::size_t width = q.series ? times : 1;
    const std::size_t filled =
        q.needs_rows ? (q.series ? r.rows : std::min<std::size_t>(r.rows, 1)) : width;
    row.assign(width, kNaN);
    for (std::size_t i = 0; i < filled; ++i) row[i] = q.value(r, i);
    transfer_rows(values[k].get(), H5T_NATIVE_DOUBLE, r.index, 1, width, row.data(), false, path);
    // The bytes the file stores (float64, little-endian) are the value's bits.
    if (checksummed(q))
      for (double v : row) sum.add_u64(std::bit_cast<std::uint64_t>(v));
  }
  transfer_rows(steps.get(), H5T_NATIVE_INT64, r.index, 1, 1,
                const_cast<std::int64_t*>(&steps_taken), false, path);
  std::uint64_t value = sum.value();
  transfer_rows(checksum.get(), H5T_NATIVE_UINT64, r.index, 1, 1, &value, false, path);
  write_status(r.index, raw);
  expect(H5Fflush(file.get(), H5F_SCOPE_LOCAL), "write", path);
}

void ResultsFile::Impl::close() {
  if (!file.valid()) return;
  values.clear();
  status.reset();
  checksum.reset();
  steps.reset();
  const bool flushed = H5Fflush(file.get(), H5F_SCOPE_LOCAL) >= 0;
  const std::string reason = flushed ? std::string() : hdf5_reason();
  const bool closed = file.reset();
  if (!flushed) throw model::ComputationError("could not write " + path + ": " + reason);
  if (!closed) io_failure("write", path);
}

ResultsFile::ResultsFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ResultsFile::ResultsFile(ResultsFile&&) noexcept = default;
ResultsFile& ResultsFile::operator=(ResultsFile&&) noexcept = default;

ResultsFile::~ResultsFile() {
  if (!impl_) return;
  try {
    QuietErrors quiet;
    impl_->close();
  } catch (...) {
    // An error is on its way already, or the caller did not ask: never throw from here.
  }
}

ResultsFile ResultsFile::create(const std::string& path, const SweepSettings& settings,
                                const CaseTable& cases) {
  QuietErrors quiet;
  const model::SourceLocation where{"out", 0, 0};
  const std::string exists = "exists: --resume completes it, or remove it";
  std::error_code error;
  if (std::filesystem::exists(std::filesystem::symlink_status(path, error)))
    throw file_error(where, exists, path);
  const std::string at = aside(path);
  std::unique_ptr<Impl> impl;
  try {
    impl = Impl::make(at, path, where, settings, cases);
    move_into_place(at, path, where, exists);
  } catch (...) {
    if (impl) impl->close_handles();
    std::filesystem::remove(at, error);
    throw;
  }
  return ResultsFile(std::move(impl));
}

ResultsFile ResultsFile::resume(const std::string& path, const SweepSettings& settings,
                                const CaseTable& cases) {
  QuietErrors quiet;
  const model::SourceLocation where{"resume", 0, 0};
  Identity found;
  auto impl = Impl::open_checked(path, true, where, found, [&](const Identity& id) {
    if (const auto d = first_difference(id.settings, id.table, settings, cases))
      throw file_error(where,
                       "the file holds another sweep: its " + d->field + " is " + d->first +
                           ", this sweep's is " + d->second,
                       path);
  });
  return ResultsFile(std::move(impl));
}

const std::string& ResultsFile::path() const { return impl_->path; }
std::size_t ResultsFile::size() const { return impl_->cases; }
const std::vector<std::string>& ResultsFile::statuses() const { return impl_->statuses; }

void ResultsFile::write(const CaseResult& result) {
  QuietErrors quiet;
  impl_->write(result);
}

void ResultsFile::close() {
  QuietErrors quiet;
  impl_->close();
}

std::unique_ptr<ResultsFile::Impl> ResultsFile::Impl::open_checked(
    const std::string& path, bool write, const model::SourceLocation& where, Identity& found,
    const std::function<void(const Identity&)>& same_sweep) {
  OpenFile open = open_existing(path, write, where);
  const Reader in(open.file.get(), path, where, open.seal.size);
  found = read_identity(in);
  if (same_sweep) same_sweep(found);
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->settings = found.settings;
  impl->cases = found.table.size();
  impl->times = output_times(found.settings).size();
  impl->file = std::move(open.file);
  impl->open_datasets(in, open.seal);
  return impl;
}

MergeSummary check_results_file(const std::string& path) {
  QuietErrors quiet;
  Identity found;
  auto impl = ResultsFile::Impl::open_checked(path, false, {path, 0, 0}, found, nullptr);
  const MergeSummary summary = impl->summary();
  impl->close_handles();
  return summary;
}

// --- merging shards ----------------------------------------------------------------------------

namespace {

/// A raw dataset of every file of the sweep: its elements copied as bytes.
struct RawDataset {
  std::string path;
  std::size_t width = 1;  // elements a case
  bool compared = true;   // what two shards that ran a case must agree in (not wall_time)
};

std::vector<RawDataset> raw_datasets(const SweepSettings& settings, std::size_t times) {
  std::vector<RawDataset> out = {{"status", 1, true}, {"steps", 1, true}};
  for (const auto& q : quantities(settings))
    out.push_back({q.path, q.series ? times : 1, checksummed(q)});
  // Last, so that two shards that differ name the quantity, not the checksum of it.
  out.push_back({"checksum", 1, true});
  return out;
}

/// The bytes of rows [first, first + count) of `name` in `file`, as the file stores them.
std::vector<char> read_raw(hid_t file, const std::string& name, std::size_t first,
                           std::size_t count, std::size_t width, const std::string& path) {
  Hid dataset = checked(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, "read", path);
  Hid type = checked(H5Dget_type(dataset.get()), H5Tclose, "read", path);
  // The type was checked when the file was opened: 8 bytes, or a status's 256.
  const std::size_t size = H5Tget_size(type.get());
  if (size != 8 && size != kStatusBytes) io_failure("read", path);
  std::vector<char> bytes(count * width * size);
  transfer_rows(dataset.get(), type.get(), first, count, width, bytes.data(), true, path);
  return bytes;
}

void write_raw(hid_t file, const std::string& name, std::size_t first, std::size_t count,
               std::size_t width, std::vector<char>& bytes, const std::string& path) {
  Hid dataset = checked(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, "write", path);
  Hid type = checked(H5Dget_type(dataset.get()), H5Tclose, "write", path);
  transfer_rows(dataset.get(), type.get(), first, count, width, bytes.data(), false, path);
}

}  // namespace

MergeSummary merge_results(const std::vector<std::string>& shards, const std::string& out) {
  QuietErrors quiet;
  if (shards.empty()) throw model::ModelError({out, 0, 0}, "no shard files to merge");
  std::error_code error;
  if (std::filesystem::exists(std::filesystem::symlink_status(out, error)))
    throw file_error({out, 0, 0}, "exists: remove it, or merge into another file", out);

  // Every shard checked, and against the first; which shard each case comes from (the first
  // that ran it).
  Identity first;
  std::vector<int> source;
  std::vector<bool> repeated;  // a case that another shard ran too
  for (std::size_t s = 0; s < shards.size(); ++s) {
    const model::SourceLocation where{shards[s], 0, 0};
    Identity id;
    auto shard =
        ResultsFile::Impl::open_checked(shards[s], false, where, id, [&](const Identity& found) {
          if (s == 0) return;
          if (const auto d =
                  first_difference(first.settings, first.table, found.settings, found.table))
            throw model::ModelError(where,
                                    "a shard of another sweep than " + shards[0] + ": its " +
                                        d->field + " is " + d->second + ", " + shards[0] +
                                        "'s is " + d->first,
                                    d->field);
        });
    if (s == 0) {
      first = std::move(id);
      source.assign(first.table.size(), -1);
      repeated.assign(first.table.size(), false);
    }
    for (std::size_t i = 0; i < shard->cases; ++i) {
      if (shard->statuses[i] == kNotRun) continue;
      if (source[i] < 0)
        source[i] = static_cast<int>(s);
      else
        repeated[i] = true;
    }
    shard->close_handles();
  }

  const std::size_t cases = first.table.size(), times = output_times(first.settings).size();
  const std::string at = aside(out);
  MergeSummary summary;
  try {
    auto merged = ResultsFile::Impl::make(at, out, {out, 0, 0}, first.settings, first.table);
    merged->values.clear();
    merged->status.reset();
    merged->checksum.reset();
    merged->steps.reset();
    const hid_t target = merged->file.get();
    const auto datasets = raw_datasets(first.settings, times);
    // Shard by shard, runs of consecutive cases that come from it, a block of rows at a time.
    for (std::size_t s = 0; s < shards.size(); ++s) {
      // Opened (and its seal checked) again: what is copied is what was checked.
      OpenFile shard = open_existing(shards[s], false, {shards[s], 0, 0});
      const hid_t file = shard.file.get();
      for (const auto& d : datasets) {
        const std::size_t block =
            std::max<std::size_t>(1, kBlockBytes / (d.width * sizeof(double)));
        for (std::size_t i = 0; i < cases;) {
          if (source[i] != static_cast<int>(s)) {
            ++i;
            continue;
          }
          std::size_t end = i + 1;
          while (end < cases && end - i < block && source[end] == static_cast<int>(s)) ++end;
          auto bytes = read_raw(file, d.path, i, end - i, d.width, shards[s]);
          write_raw(target, d.path, i, end - i, d.width, bytes, out);
          i = end;
        }
      }
      // A case this shard ran again after an earlier one: the two must agree.
      for (std::size_t i = 0; i < cases; ++i) {
        if (!repeated[i] || source[i] >= static_cast<int>(s)) continue;
        const auto mine = read_raw(file, "status", i, 1, 1, shards[s]);
        if (std::string(mine.data(), strnlen(mine.data(), mine.size())) == kNotRun) continue;
        for (const auto& d : datasets) {
          if (!d.compared) continue;
          if (read_raw(file, d.path, i, 1, d.width, shards[s]) !=
              read_raw(target, d.path, i, 1, d.width, out))
            throw model::ModelError(
                {shards[s], 0, 0},
                "case " + std::to_string(i) + " differs from the same case in " +
                    shards[static_cast<std::size_t>(source[i])] + " (" + d.path + ")",
                "case " + std::to_string(i));
        }
      }
    }
    // The statuses of the merged file, counted.
    const std::size_t block = std::max<std::size_t>(1, kBlockBytes / kStatusBytes);
    for (std::size_t i = 0; i < cases; i += block) {
      const std::size_t count = std::min(block, cases - i);
      const auto bytes = read_raw(target, "status", i, count, 1, out);
      for (std::size_t k = 0; k < count; ++k) {
        const char* text = bytes.data() + k * kStatusBytes;
        const std::string value(text, strnlen(text, kStatusBytes));
        if (value == kNotRun)
          ++summary.not_run;
        else if (value == "ok")
          ++summary.ok;
        else
          ++summary.failed;
      }
    }
    merged->close();
    move_into_place(at, out, {out, 0, 0}, "exists: remove it, or merge into another file");
  } catch (...) {
    std::filesystem::remove(at, error);
    throw;
  }
  return summary;
}

}  // namespace appell::sweep
