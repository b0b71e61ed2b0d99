// The results file of a sweep through HDF5's C API (serial HDF5 1.10, Debian's libhdf5-dev).
//
// Why a killed process leaves a readable file: the whole structure (groups, attributes, every
// dataset allocated early and filled) is written and flushed once, when the file is made aside
// and linked at its path. Later a case's write only replaces raw bytes inside datasets that
// already exist (the status is a fixed-size string for that reason, a variable-length one would
// allocate heap space at each write), and with HDF5's sieve buffer and chunk cache off each
// H5Dwrite reaches the operating system at once, in the order of the calls. So the file on disk
// is always a consistent HDF5 file, and a case's status, written last, is never "ok" before its
// data are there.
#include "appell/sweep/results_file.hpp"

#include <fcntl.h>
#include <hdf5.h>
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
#include <stdexcept>
#include <utility>

#include "appell/model/source_location.hpp"
#include "appell/model/utf8.hpp"

namespace appell::sweep {

namespace {

constexpr const char* kFormat = "appell-sweep";
constexpr long kFormatVersion = 1;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Chunks of the [case, time] datasets: one case's row, or as many cases as fit in 64 KiB when the
// rows are short; a row longer than 1 MiB is cut in time too.
constexpr std::size_t kChunkBytes = 64 * 1024;
constexpr std::size_t kMaxChunkTimes = 128 * 1024;
// Rows per read or write when a file is read or copied in blocks (merge, resume's statuses).
constexpr std::size_t kBlockBytes = 8 * 1024 * 1024;

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

/// File access: no sieve buffer and no chunk cache, so that every write goes to the system at
/// once and in order (see the top of this file); file locking where the file system has it.
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

  /// A dataset of `dims`, allocated now and filled with `fill` (nullptr: HDF5's zeros), in
  /// chunks of `chunk` when given.
  Hid dataset(const std::string& name, hid_t type, const std::vector<hsize_t>& dims,
              const void* fill, const std::vector<hsize_t>& chunk = {}) {
    Hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_obj_track_times(dcpl.get(), false);
    if (!chunk.empty())
      expect(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()), "create",
             path_);
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

/// Selects rows [first, first + count) of a [case] or [case, width] dataset's file space.
Hid row_selection(hid_t dataset, std::size_t first, std::size_t count, std::size_t width) {
  // A [case] dataset reads the first entry of each array only.
  Hid space(H5Dget_space(dataset), H5Sclose);
  const std::array<hsize_t, 2> start = {first, 0}, extent = {count, width};
  H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, extent.data(), nullptr);
  return space;
}

/// Rows [first, first + count) of `dataset` (each `width` elements of `type`) to or from `data`.
void transfer_rows(hid_t dataset, hid_t type, std::size_t first, std::size_t count,
                   std::size_t width, void* data, bool read, const std::string& path) {
  if (count == 0) return;
  Hid file_space = row_selection(dataset, first, count, width);
  const hsize_t elements = count * width;
  Hid memory_space(H5Screate_simple(1, &elements, nullptr), H5Sclose);
  const herr_t status =
      read ? H5Dread(dataset, type, memory_space.get(), file_space.get(), H5P_DEFAULT, data)
           : H5Dwrite(dataset, type, memory_space.get(), file_space.get(), H5P_DEFAULT, data);
  if (status < 0) io_failure(read ? "read" : "write", path);
}

// --- reading -----------------------------------------------------------------------------------

/// A file being read that must be a sweep's results; what is wrong with it is bad input located
/// at `where` (the option or the file that named it).
class Reader {
 public:
  Reader(hid_t file, std::string path, model::SourceLocation where)
      : file_(file), path_(std::move(path)), where_(std::move(where)) {}

  [[noreturn]] void damaged(const std::string& what) const {
    throw file_error(where_, "damaged results file: " + what, path_);
  }

  bool has_attribute(hid_t object, const char* name) const { return H5Aexists(object, name) > 0; }

  std::string text(hid_t object, const char* name) const {
    auto values = texts(object, name, true);
    return values.front();
  }

  std::vector<std::string> texts(hid_t object, const char* name, bool scalar = false) const {
    if (!has_attribute(object, name)) damaged(std::string("no attribute ") + name);
    Hid attribute(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
    Hid type(H5Aget_type(attribute.get()), H5Tclose);
    Hid space(H5Aget_space(attribute.get()), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (!attribute.valid() || H5Tget_class(type.get()) != H5T_STRING ||
        H5Tis_variable_str(type.get()) <= 0 || (scalar ? rank != 0 : rank != 1))
      damaged(std::string("attribute ") + name + " is not " + (scalar ? "a text" : "a list"));
    const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get()));
    std::vector<char*> raw(n, nullptr);
    Hid memory = text_type();
    if (n > 0 && H5Aread(attribute.get(), memory.get(), raw.data()) < 0) io_failure("read", path_);
    std::vector<std::string> values;
    for (char* v : raw) values.emplace_back(v ? v : "");
    if (n > 0) H5Dvlen_reclaim(memory.get(), space.get(), H5P_DEFAULT, raw.data());
    return values;
  }

  double number(hid_t object, const char* name) const {
    if (!has_attribute(object, name)) damaged(std::string("no attribute ") + name);
    Hid attribute(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
    Hid type(H5Aget_type(attribute.get()), H5Tclose);
    Hid space(H5Aget_space(attribute.get()), H5Sclose);
    const H5T_class_t kind = H5Tget_class(type.get());
    if ((kind != H5T_FLOAT && kind != H5T_INTEGER) ||
        H5Sget_simple_extent_npoints(space.get()) != 1)
      damaged(std::string("attribute ") + name + " is not a number");
    double value = kNaN;
    if (H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value) < 0) io_failure("read", path_);
    return value;
  }

  /// An existing dataset of `dims` whose elements are of `kind`.
  Hid dataset(const std::string& name, const std::vector<hsize_t>& dims, H5T_class_t kind) const {
    if (H5Lexists(file_, name.c_str(), H5P_DEFAULT) <= 0) damaged("no dataset /" + name);
    Hid dataset(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid()) damaged("/" + name + " is not a dataset");
    Hid type(H5Dget_type(dataset.get()), H5Tclose);
    Hid space(H5Dget_space(dataset.get()), H5Sclose);
    std::array<hsize_t, 2> extent{};
    const int rank = H5Sget_simple_extent_ndims(space.get());
    bool fits = H5Tget_class(type.get()) == kind && rank == static_cast<int>(dims.size());
    if (fits) H5Sget_simple_extent_dims(space.get(), extent.data(), nullptr);
    for (std::size_t d = 0; fits && d < dims.size(); ++d) fits = extent[d] == dims[d];
    if (!fits) damaged("/" + name + " is not of the sweep's type and shape");
    return dataset;
  }

  std::size_t cases() const {
    if (H5Lexists(file_, "status", H5P_DEFAULT) <= 0) damaged("no dataset /status");
    Hid dataset(H5Dopen2(file_, "status", H5P_DEFAULT), H5Dclose);
    Hid space(H5Dget_space(dataset.get()), H5Sclose);
    if (H5Sget_simple_extent_ndims(space.get()) != 1) damaged("/status is not [case]");
    hsize_t n = 0;
    H5Sget_simple_extent_dims(space.get(), &n, nullptr);
    return n;
  }

  hid_t file() const { return file_; }
  const std::string& path() const { return path_; }
  const model::SourceLocation& where() const { return where_; }

 private:
  hid_t file_;
  std::string path_;
  model::SourceLocation where_;
};

/// The sweep a results file holds: its settings (from the root's attributes) and cases table.
struct Identity {
  SweepSettings settings;
  CaseTable table;
};

Identity read_identity(const Reader& in) {
  Hid root(H5Oopen(in.file(), "/", H5P_DEFAULT), H5Oclose);
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

  const std::size_t n = in.cases();
  if (H5Lexists(in.file(), "cases", H5P_DEFAULT) <= 0) in.damaged("no group /cases");
  Hid cases(H5Oopen(in.file(), "cases", H5P_DEFAULT), H5Oclose);
  CaseTable& t = id.table;
  for (const auto& name : in.texts(cases.get(), "columns"))
    t.columns.push_back({name, kind_of(name), name.substr(name.find('.') + 1)});
  t.numbers.assign(n, std::vector<double>(t.columns.size(), kNaN));
  t.expressions.assign(n, std::vector<std::string>(t.columns.size()));
  t.rows.assign(n, model::SourceLocation{in.path(), 0, 0});
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    const std::string name = "cases/" + t.columns[c].name;
    if (t.columns[c].kind == ColumnKind::Input) {
      Hid dataset = in.dataset(name, {n}, H5T_STRING);
      Hid memory = text_type();
      std::vector<char*> raw(n, nullptr);
      transfer_rows(dataset.get(), memory.get(), 0, n, 1, raw.data(), true, in.path());
      for (std::size_t i = 0; i < n; ++i) t.expressions[i][c] = raw[i] ? raw[i] : "";
      Hid space(H5Screate_simple(1, std::array<hsize_t, 1>{n}.data(), nullptr), H5Sclose);
      if (n > 0) H5Dvlen_reclaim(memory.get(), space.get(), H5P_DEFAULT, raw.data());
    } else {
      Hid dataset = in.dataset(name, {n}, H5T_FLOAT);
      std::vector<double> column(n);
      transfer_rows(dataset.get(), H5T_NATIVE_DOUBLE, 0, n, 1, column.data(), true, in.path());
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

/// Opens an existing results file; a missing file, one that is not HDF5 or that HDF5 cannot open
/// (truncated, damaged) is bad input at `where`.
Hid open_existing(const std::string& path, bool write, const model::SourceLocation& where) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) throw file_error(where, "no such file", path);
  if (!std::filesystem::is_regular_file(path, error)) throw file_error(where, "not a file", path);
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw file_error(where, "not an HDF5 file", path);
  }
  Hid fapl = file_access();
  Hid file(H5Fopen(path.c_str(), write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl.get()), H5Fclose);
  if (!file.valid())
    throw file_error(where,
                     "an HDF5 file that cannot be opened (truncated or damaged?): " + hdf5_reason(),
                     path);
  return file;
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

}  // namespace

// --- the file ----------------------------------------------------------------------------------

struct ResultsFile::Impl {
  std::string path;
  SweepSettings settings;
  std::size_t cases = 0, times = 0;
  Hid file;
  Hid status, steps;
  std::vector<Quantity> quantities;
  std::vector<Hid> values;  // one dataset per quantity
  std::vector<std::string> statuses;
  std::vector<double> row;  // one row's buffer

  /// Makes the whole file at `at` (a new name) for `path`; a file that cannot be created is bad
  /// input at `where`.
  static std::unique_ptr<Impl> make(const std::string& at, const std::string& path,
                                    const model::SourceLocation& where,
                                    const SweepSettings& settings, const CaseTable& table);
  /// Opens the per-case datasets of an existing file and reads its statuses.
  void open_datasets(const Reader& in);
  void write_status(std::size_t index, const std::string& text);
  void write(const CaseResult& result);
  void check_fits(const CaseResult& result) const;
  void close();
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

  Hid fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  H5Pset_obj_track_times(fcpl.get(), false);  // the root group
  Hid fapl = file_access();
  impl->file = Hid(H5Fcreate(at.c_str(), H5F_ACC_EXCL, fcpl.get(), fapl.get()), H5Fclose);
  if (!impl->file.valid())
    throw file_error(where, "cannot create the file: " + hdf5_reason(), path);
  const hid_t file = impl->file.get();
  Maker make(file, path);

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

  Hid t = make.dataset("t", H5T_IEEE_F64LE, {grid.size()}, &kNaN);
  transfer_rows(t.get(), H5T_NATIVE_DOUBLE, 0, grid.size(), 1, const_cast<double*>(grid.data()),
                false, path);

  // The per-case datasets, every case "not run".
  Hid type = status_type();
  std::array<char, kStatusBytes> not_run{};
  std::memcpy(not_run.data(), kNotRun, std::strlen(kNotRun));
  impl->status = make.dataset("status", type.get(), {n}, not_run.data());
  const std::int64_t no_steps = 0;
  impl->steps = make.dataset("steps", H5T_STD_I64LE, {n}, &no_steps);
  const hsize_t times = impl->times;
  const hsize_t chunk_times = std::min<hsize_t>(times, kMaxChunkTimes);
  const hsize_t chunk_cases =
      std::clamp<hsize_t>(kChunkBytes / (sizeof(double) * chunk_times), 1, std::max<hsize_t>(n, 1));
  impl->quantities = sweep::quantities(settings);
  for (const auto& q : impl->quantities) {
    if (q.series)
      // No chunks for a sweep of no cases: a chunk cannot be larger than a fixed dimension.
      impl->values.push_back(make.dataset(
          q.path, H5T_IEEE_F64LE, {n, times}, &kNaN,
          n > 0 ? std::vector<hsize_t>{chunk_cases, chunk_times} : std::vector<hsize_t>{}));
    else
      impl->values.push_back(make.dataset(q.path, H5T_IEEE_F64LE, {n}, &kNaN));
  }
  impl->statuses.assign(impl->cases, kNotRun);
  // The structure is final from here on: on disk before the file appears at its path.
  expect(H5Fflush(file, H5F_SCOPE_LOCAL), "write", path);
  return impl;
}

void ResultsFile::Impl::open_datasets(const Reader& in) {
  const hsize_t n = cases, t = times;
  {
    Hid grid = in.dataset("t", {t}, H5T_FLOAT);
    (void)grid;
  }
  status = in.dataset("status", {n}, H5T_STRING);
  Hid type(H5Dget_type(status.get()), H5Tclose);
  if (H5Tis_variable_str(type.get()) != 0 || H5Tget_size(type.get()) != kStatusBytes)
    in.damaged("/status is not of " + std::to_string(kStatusBytes) + "-byte strings");
  steps = in.dataset("steps", {n}, H5T_INTEGER);
  quantities = sweep::quantities(settings);
  for (const auto& q : quantities)
    values.push_back(q.series ? in.dataset(q.path, {n, t}, H5T_FLOAT)
                              : in.dataset(q.path, {n}, H5T_FLOAT));

  // The statuses, a block of cases at a time (memory bounded by the block, not the sweep).
  Hid memory = status_type();
  const std::size_t block = std::max<std::size_t>(1, kBlockBytes / kStatusBytes);
  std::vector<char> raw;
  statuses.reserve(cases);
  for (std::size_t first = 0; first < cases; first += block) {
    const std::size_t count = std::min(block, cases - first);
    raw.assign(count * kStatusBytes, '\0');
    transfer_rows(status.get(), memory.get(), first, count, 1, raw.data(), true, path);
    for (std::size_t i = 0; i < count; ++i) {
      const char* text = raw.data() + i * kStatusBytes;
      statuses.emplace_back(text, strnlen(text, kStatusBytes));
    }
  }
}

void ResultsFile::Impl::write_status(std::size_t index, const std::string& text) {
  std::array<char, kStatusBytes> raw{};
  std::memcpy(raw.data(), text.data(), std::min(text.size(), kStatusBytes));
  Hid type = status_type();
  transfer_rows(status.get(), type.get(), index, 1, 1, raw.data(), false, path);
  statuses[index] = text;
}

void ResultsFile::Impl::check_fits(const CaseResult& r) const {
  const auto refuse = [&](const std::string& what) {
    throw std::invalid_argument("results file " + path + ": case " + std::to_string(r.index) +
                                ": " + what);
  };
  if (!file.valid()) refuse("the file is closed");
  if (r.index >= cases) refuse("no such case (" + std::to_string(cases) + " cases)");
  if (r.status.empty()) refuse("no status");
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
  if (statuses[r.index] != kNotRun) write_status(r.index, kNotRun);
  for (std::size_t k = 0; k < quantities.size(); ++k) {
    const Quantity& q = quantities[k];
    const std::size_t width = q.series ? times : 1;
    const std::size_t filled =
        q.needs_rows ? (q.series ? r.rows : std::min<std::size_t>(r.rows, 1)) : width;
    row.assign(width, kNaN);
    for (std::size_t i = 0; i < filled; ++i) row[i] = q.value(r, i);
    transfer_rows(values[k].get(), H5T_NATIVE_DOUBLE, r.index, 1, width, row.data(), false, path);
  }
  std::int64_t steps_taken = r.steps;
  transfer_rows(steps.get(), H5T_NATIVE_INT64, r.index, 1, 1, &steps_taken, false, path);
  write_status(r.index, stored_status(r.status));
  expect(H5Fflush(file.get(), H5F_SCOPE_LOCAL), "write", path);
}

void ResultsFile::Impl::close() {
  if (!file.valid()) return;
  values.clear();
  status.reset();
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
    if (impl) impl->file.reset();
    std::filesystem::remove(at, error);
    throw;
  }
  return ResultsFile(std::move(impl));
}

ResultsFile ResultsFile::resume(const std::string& path, const SweepSettings& settings,
                                const CaseTable& cases) {
  QuietErrors quiet;
  const model::SourceLocation where{"resume", 0, 0};
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->file = open_existing(path, true, where);
  const Reader in(impl->file.get(), path, where);
  const Identity found = read_identity(in);
  if (const auto d = first_difference(found.settings, found.table, settings, cases))
    throw file_error(where,
                     "the file holds another sweep: its " + d->field + " is " + d->first +
                         ", this sweep's is " + d->second,
                     path);
  impl->settings = found.settings;
  impl->cases = found.table.size();
  impl->times = output_times(found.settings).size();
  impl->open_datasets(in);
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
    out.push_back({q.path, q.series ? times : 1, q.path != "wall_time"});
  return out;
}

/// The bytes of rows [first, first + count) of `name` in `file`, as the file stores them.
std::vector<char> read_raw(hid_t file, const std::string& name, std::size_t first,
                           std::size_t count, std::size_t width, const std::string& path) {
  Hid dataset = checked(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, "read", path);
  Hid type(H5Dget_type(dataset.get()), H5Tclose);
  std::vector<char> bytes(count * width * H5Tget_size(type.get()));
  transfer_rows(dataset.get(), type.get(), first, count, width, bytes.data(), true, path);
  return bytes;
}

void write_raw(hid_t file, const std::string& name, std::size_t first, std::size_t count,
               std::size_t width, std::vector<char>& bytes, const std::string& path) {
  Hid dataset = checked(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, "write", path);
  Hid type(H5Dget_type(dataset.get()), H5Tclose);
  transfer_rows(dataset.get(), type.get(), first, count, width, bytes.data(), false, path);
}

}  // namespace

MergeSummary merge_results(const std::vector<std::string>& shards, const std::string& out) {
  QuietErrors quiet;
  if (shards.empty()) throw model::ModelError({out, 0, 0}, "no shard files to merge");
  std::error_code error;
  if (std::filesystem::exists(std::filesystem::symlink_status(out, error)))
    throw file_error({out, 0, 0}, "exists: remove it, or merge into another file", out);

  // Every shard against the first; which shard each case comes from (the first that ran it).
  Identity first;
  std::vector<int> source;
  std::vector<bool> repeated;  // a case that another shard ran too
  for (std::size_t s = 0; s < shards.size(); ++s) {
    const model::SourceLocation where{shards[s], 0, 0};
    Hid file = open_existing(shards[s], false, where);
    const Reader in(file.get(), shards[s], where);
    Identity id = read_identity(in);
    if (s == 0) {
      first = std::move(id);
      source.assign(first.table.size(), -1);
      repeated.assign(first.table.size(), false);
    } else if (const auto d =
                   first_difference(first.settings, first.table, id.settings, id.table)) {
      throw model::ModelError(where,
                              "a shard of another sweep than " + shards[0] + ": its " + d->field +
                                  " is " + d->second + ", " + shards[0] + "'s is " + d->first,
                              d->field);
    }
    // Opening the datasets checks their shapes; the statuses come with them.
    ResultsFile::Impl shard;
    shard.path = shards[s];
    shard.settings = first.settings;
    shard.cases = first.table.size();
    shard.times = output_times(first.settings).size();
    shard.file = std::move(file);
    shard.open_datasets(in);
    for (std::size_t i = 0; i < shard.cases; ++i) {
      if (shard.statuses[i] == kNotRun) continue;
      if (source[i] < 0)
        source[i] = static_cast<int>(s);
      else
        repeated[i] = true;
    }
    shard.values.clear();
    shard.status.reset();
    shard.steps.reset();
    shard.file.reset();
  }

  const std::size_t cases = first.table.size(), times = output_times(first.settings).size();
  const std::string at = aside(out);
  MergeSummary summary;
  try {
    auto merged = ResultsFile::Impl::make(at, out, {out, 0, 0}, first.settings, first.table);
    merged->values.clear();
    merged->status.reset();
    merged->steps.reset();
    const hid_t target = merged->file.get();
    const auto datasets = raw_datasets(first.settings, times);
    // Shard by shard, runs of consecutive cases that come from it, a block of rows at a time.
    for (std::size_t s = 0; s < shards.size(); ++s) {
      Hid fapl = file_access();
      Hid file = checked(H5Fopen(shards[s].c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose, "read",
                         shards[s]);
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
          auto bytes = read_raw(file.get(), d.path, i, end - i, d.width, shards[s]);
          write_raw(target, d.path, i, end - i, d.width, bytes, out);
          i = end;
        }
      }
      // A case this shard ran again after an earlier one: the two must agree.
      Hid status(H5Dopen2(file.get(), "status", H5P_DEFAULT), H5Dclose);
      for (std::size_t i = 0; i < cases; ++i) {
        if (!repeated[i] || source[i] >= static_cast<int>(s)) continue;
        const auto mine = read_raw(file.get(), "status", i, 1, 1, shards[s]);
        if (std::string(mine.data(), strnlen(mine.data(), mine.size())) == kNotRun) continue;
        for (const auto& d : datasets) {
          if (!d.compared) continue;
          if (read_raw(file.get(), d.path, i, 1, d.width, shards[s]) !=
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
    Hid status = checked(H5Dopen2(target, "status", H5P_DEFAULT), H5Dclose, "read", out);
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
    status.reset();
    merged->close();
    move_into_place(at, out, {out, 0, 0}, "exists: remove it, or merge into another file");
  } catch (...) {
    std::filesystem::remove(at, error);
    throw;
  }
  return summary;
}

}  // namespace appell::sweep
