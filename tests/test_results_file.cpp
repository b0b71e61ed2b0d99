// The results file of a sweep (sweep::ResultsFile, sweep::merge_results, appell sweep-merge):
// what is written is read back through HDF5's own C API, independently of the writer.
//
// The cases are made up but consistent: case i is a harmonic oscillator x = A cos(ωt) with
// A = 1 + i/10, ω = 2 + i/5 (m = k/ω² with k = 1) sampled on the sweep's grid, its speed
// w = ẋ, T = ½mẋ², V = ½kx², E = T + V, the final state the last row and the extrema over the
// rows; so the file's E must be T + V and its E constant (½kA²) along every case.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "appell/model/source_location.hpp"
#include "appell/sweep/results_file.hpp"
#include "support/results_fixtures.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

using namespace appell;
using sweep::CaseResult;
using sweep::CaseTable;
using sweep::ResultsFile;
using sweep::Save;
using sweep::SweepSettings;
using test_support::oscillator;
using test_support::settings_of;
using test_support::table_of;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// --- reading back through the C API -------------------------------------------------------------

struct H5File {
  explicit H5File(const std::string& path)
      : id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {}
  ~H5File() {
    if (id >= 0) H5Fclose(id);
  }
  hid_t id;
};

std::vector<hsize_t> dims_of(hid_t file, const std::string& name) {
  const hid_t d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(d, 0) << name;
  const hid_t space = H5Dget_space(d);
  std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  H5Sclose(space);
  H5Dclose(d);
  return dims;
}

std::vector<double> doubles(hid_t file, const std::string& name) {
  std::size_t n = 1;
  for (hsize_t d : dims_of(file, name)) n *= d;
  std::vector<double> v(n);
  const hid_t d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0) << name;
  H5Dclose(d);
  return v;
}

std::vector<std::int64_t> integers(hid_t file, const std::string& name) {
  std::vector<std::int64_t> v(dims_of(file, name).at(0));
  const hid_t d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  H5Dclose(d);
  return v;
}

/// A string dataset's values, fixed-size or variable-length alike.
std::vector<std::string> strings(hid_t file, const std::string& name) {
  const hid_t d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  const hid_t type = H5Dget_type(d);
  EXPECT_EQ(H5Tget_class(type), H5T_STRING) << name;
  EXPECT_EQ(H5Tget_cset(type), H5T_CSET_UTF8) << name;
  const std::size_t n = dims_of(file, name).at(0);
  std::vector<std::string> out;
  if (H5Tis_variable_str(type) > 0) {
    std::vector<char*> raw(n);
    H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data());
    for (char* s : raw) out.emplace_back(s ? s : "");
    const hid_t space = H5Dget_space(d);
    H5Dvlen_reclaim(type, space, H5P_DEFAULT, raw.data());
    H5Sclose(space);
  } else {
    const std::size_t size = H5Tget_size(type);
    std::vector<char> raw(n * size);
    H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data());
    for (std::size_t i = 0; i < n; ++i)
      out.emplace_back(raw.data() + i * size, strnlen(raw.data() + i * size, size));
  }
  H5Tclose(type);
  H5Dclose(d);
  return out;
}

/// A text attribute (scalar) or list attribute of `object` ("/" or "cases"), joined by "|".
std::string text_attribute(hid_t file, const std::string& object, const std::string& name) {
  const hid_t a = H5Aopen_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  EXPECT_GE(a, 0) << name;
  const hid_t type = H5Aget_type(a), space = H5Aget_space(a);
  const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
  std::vector<char*> raw(n);
  std::string out;
  if (n > 0 && H5Aread(a, type, raw.data()) >= 0) {
    for (std::size_t i = 0; i < n; ++i) out += (i ? "|" : "") + std::string(raw[i]);
    H5Dvlen_reclaim(type, space, H5P_DEFAULT, raw.data());
  }
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(a);
  return out;
}

double number_attribute(hid_t file, const std::string& name) {
  double v = kNaN;
  const hid_t a = H5Aopen_by_name(file, "/", name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  H5Aread(a, H5T_NATIVE_DOUBLE, &v);
  H5Aclose(a);
  return v;
}

/// Every dataset and attribute of a file as text (numbers by their bits), by path: two files of
/// the same results compare equal as maps. Object times are part of it (they must be absent).
std::map<std::string, std::string> contents(const std::string& path) {
  std::map<std::string, std::string> out;
  H5File f(path);
  EXPECT_GE(f.id, 0) << path;
  // Attributes of the root and of /cases (the only ones the layout has).
  for (const std::string object : {"/", "cases"}) {
    const hid_t o = H5Oopen(f.id, object.c_str(), H5P_DEFAULT);
    hsize_t index = 0;
    std::tuple<hid_t, std::map<std::string, std::string>*, std::string> data(f.id, &out, object);
    H5Aiterate2(
        o, H5_INDEX_NAME, H5_ITER_INC, &index,
        [](hid_t obj, const char* name, const H5A_info_t*, void* d) -> herr_t {
          auto& [file, map, at] =
              *static_cast<std::tuple<hid_t, std::map<std::string, std::string>*, std::string>*>(d);
          (void)file;
          const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
          const hid_t type = H5Aget_type(a), space = H5Aget_space(a);
          const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
          std::string text;
          if (H5Tget_class(type) == H5T_STRING) {
            std::vector<char*> raw(n);
            if (n > 0) H5Aread(a, type, raw.data());
            for (char* s : raw) text += std::string(s ? s : "") + "|";
            if (n > 0) H5Dvlen_reclaim(type, space, H5P_DEFAULT, raw.data());
          } else {
            std::vector<char> raw(n * H5Tget_size(type));
            H5Aread(a, type, raw.data());
            text.assign(raw.begin(), raw.end());
          }
          (*map)[at + "@" + name] = text;
          H5Sclose(space);
          H5Tclose(type);
          H5Aclose(a);
          return 0;
        },
        &data);
    H5Oclose(o);
  }
  H5Ovisit2(
      f.id, H5_INDEX_NAME, H5_ITER_INC,
      [](hid_t file, const char* name, const H5O_info_t* info, void* d) -> herr_t {
        auto& map = *static_cast<std::map<std::string, std::string>*>(d);
        map[std::string(name) + "#times"] =
            std::to_string(info->ctime) + "," + std::to_string(info->mtime);
        if (info->type != H5O_TYPE_DATASET) return 0;
        const hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
        const hid_t type = H5Dget_type(dset);
        std::string text;
        if (H5Tget_class(type) == H5T_STRING) {
          for (const auto& s : strings(file, name)) text += s + "|";
        } else {
          const hid_t space = H5Dget_space(dset);
          std::vector<char> raw(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)) *
                                H5Tget_size(type));
          H5Dread(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data());
          text.assign(raw.begin(), raw.end());
          H5Sclose(space);
        }
        map[name] = text;
        H5Tclose(type);
        H5Dclose(dset);
        return 0;
      },
      &out, H5O_INFO_BASIC | H5O_INFO_TIME);
  return out;
}

bool same_values(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

/// The error `f` throws, or a failure.
template <class F>
model::ModelError model_error(F&& f) {
  try {
    f();
  } catch (const model::ModelError& e) {
    return e;
  }
  ADD_FAILURE() << "no ModelError";
  return model::ModelError({"(none)", 0, 0}, "(none)");
}

class ResultsFileTest : public test_support::ScratchDirTest {
 protected:
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  /// Writes cases `order` of oscillator results into a new file; case 3 fails after 2 rows and
  /// case 5 is left "not run" (when the table has them).
  void write_file(const std::string& path, const SweepSettings& s, std::size_t cases,
                  const std::vector<std::size_t>& order) const {
    auto results = ResultsFile::create(path, s, table_of(cases));
    const std::size_t rows = sweep::output_times(s).size();
    for (std::size_t i : order) {
      if (i == 5) continue;
      results.write(i == 3 ? oscillator(i, s, 2, "failed: singular mass matrix at t = 0.25")
                           : oscillator(i, s, rows));
    }
    results.close();
  }
};

// --- tests --------------------------------------------------------------------------------------

TEST_F(ResultsFileTest, EverySaveKindReadsBackThroughTheCApi) {
  for (const Save save : {Save::Series, Save::Final, Save::Summary}) {
    SCOPED_TRACE(sweep::save_name(save));
    SweepSettings s = settings_of(save);
    if (save == Save::Final) s.speeds = {};  // a model without generalized speeds
    const bool speeds = !s.speeds.empty();
    const std::string path = file(sweep::save_name(save) + ".h5");
    write_file(path, s, 7, {0, 1, 2, 3, 4, 5, 6});
    const std::vector<double> grid = sweep::output_times(s);
    const std::size_t times = grid.size();
    ASSERT_EQ(times, 5u);

    H5File f(path);
    ASSERT_GE(f.id, 0);
    EXPECT_EQ(text_attribute(f.id, "/", "format"), "appell-sweep");
    EXPECT_EQ(number_attribute(f.id, "format_version"), 1.0);
    EXPECT_EQ(text_attribute(f.id, "/", "model_hash"), "3f5a");
    EXPECT_EQ(text_attribute(f.id, "/", "save"), sweep::save_name(save));
    EXPECT_EQ(text_attribute(f.id, "/", "coordinates"), "x|y");
    EXPECT_EQ(text_attribute(f.id, "/", "speeds"), speeds ? "w" : "");
    EXPECT_EQ(text_attribute(f.id, "/", "common_values"), "k=1");
    EXPECT_EQ(number_attribute(f.id, "t_end"), 1.0);
    EXPECT_EQ(number_attribute(f.id, "rtol"), 1e-9);
    EXPECT_EQ(text_attribute(f.id, "cases", "columns"), "A|q0.x|input.f");
    EXPECT_EQ(doubles(f.id, "t"), grid);

    const CaseTable table = table_of(7);
    const auto a = doubles(f.id, "cases/A");
    const auto inputs = strings(f.id, "cases/input.f");
    for (std::size_t i = 0; i < 7; ++i) {
      EXPECT_EQ(a[i], table.numbers[i][0]);
      EXPECT_EQ(inputs[i], table.expressions[i][2]);
    }
    const auto status = strings(f.id, "status");
    const auto steps = integers(f.id, "steps");
    const auto t_reached = doubles(f.id, "t_reached");
    for (std::size_t i = 0; i < 7; ++i) {
      SCOPED_TRACE("case " + std::to_string(i));
      EXPECT_EQ(status[i], i == 5   ? "not run"
                           : i == 3 ? "failed: singular mass matrix at t = 0.25"
                                    : "ok");
      EXPECT_EQ(steps[i], i == 5 ? 0 : 100 + static_cast<std::int64_t>(i));
      if (i == 5) {
        EXPECT_TRUE(std::isnan(t_reached[i]));
      }
      if (i == 3) {
        EXPECT_EQ(t_reached[i], 0.25);
      }
    }

    if (save == Save::Series) {
      EXPECT_EQ(dims_of(f.id, "series/q/x"), (std::vector<hsize_t>{7, times}));
      const auto x = doubles(f.id, "series/q/x"), y = doubles(f.id, "series/q/y");
      const auto w = doubles(f.id, "series/u/w"), xd = doubles(f.id, "series/qd/x");
      const auto kin = doubles(f.id, "series/T"), pot = doubles(f.id, "series/V");
      const auto e = doubles(f.id, "series/E");
      for (std::size_t i = 0; i < 7; ++i) {
        const CaseResult r = oscillator(i, s, i == 3 ? 2 : times);
        for (std::size_t k = 0; k < times; ++k) {
          const std::size_t at = i * times + k;
          if (i == 5 || k >= r.rows) {  // not run, or after the failure: NaN
            EXPECT_TRUE(std::isnan(x[at]) && std::isnan(e[at]) && std::isnan(w[at])) << at;
            continue;
          }
          EXPECT_EQ(x[at], r.q[2 * k]);
          EXPECT_EQ(y[at], r.q[2 * k + 1]);
          EXPECT_EQ(xd[at], r.qd[2 * k]);
          EXPECT_EQ(w[at], r.u[k]);
          // The oscillator's energy: T + V, and the same ½kA² on every row.
          EXPECT_DOUBLE_EQ(e[at], kin[at] + pot[at]);
          const double amplitude = 1.0 + static_cast<double>(i) / 10;
          EXPECT_NEAR(e[at], 0.5 * amplitude * amplitude, 1e-12);
        }
      }
      EXPECT_LT(H5Lexists(f.id, "final", H5P_DEFAULT), 1);
    } else {
      const auto fx = doubles(f.id, "final/q/x"), fe = doubles(f.id, "final/E");
      EXPECT_EQ(H5Lexists(f.id, "final/u", H5P_DEFAULT) > 0, speeds);
      const auto fw = speeds ? doubles(f.id, "final/u/w") : std::vector<double>(7, kNaN);
      EXPECT_EQ(dims_of(f.id, "final/q/x"), (std::vector<hsize_t>{7}));
      for (std::size_t i = 0; i < 7; ++i) {
        if (i == 5) {
          EXPECT_TRUE(std::isnan(fx[i]) && std::isnan(fw[i]) && std::isnan(fe[i]));
          continue;
        }
        const CaseResult r = oscillator(i, s, i == 3 ? 2 : times);
        EXPECT_EQ(fx[i], r.final_q[0]);
        if (speeds) {
          EXPECT_EQ(fw[i], r.final_u[0]);
        }
        EXPECT_EQ(fe[i], r.final_total);
      }
      EXPECT_LT(H5Lexists(f.id, "series", H5P_DEFAULT), 1);
      EXPECT_EQ(H5Lexists(f.id, "min", H5P_DEFAULT) > 0, save == Save::Summary);
      if (save == Save::Summary) {
        const auto lo = doubles(f.id, "min/q/x"), hi = doubles(f.id, "max/q/x");
        const auto lo_e = doubles(f.id, "min/E"), hi_e = doubles(f.id, "max/E");
        for (std::size_t i = 0; i < 7; ++i) {
          if (i == 5) continue;
          const CaseResult r = oscillator(i, s, i == 3 ? 2 : times);
          EXPECT_EQ(lo[i], r.min_q[0]);
          EXPECT_EQ(hi[i], r.max_q[0]);
          EXPECT_LE(lo[i], fx[i]);
          EXPECT_GE(hi[i], fx[i]);
          // E is conserved: its extremes differ by rounding only.
          EXPECT_NEAR(hi_e[i] - lo_e[i], 0.0, 1e-12);
        }
      }
    }
  }
}

TEST_F(ResultsFileTest, TheOrderOfTheWritesDoesNotShowInTheFile) {
  for (const Save save : {Save::Series, Save::Summary}) {
    SCOPED_TRACE(sweep::save_name(save));
    const SweepSettings s = settings_of(save);
    const std::string in_order = file("a.h5"), shuffled = file("b.h5");
    std::filesystem::remove(in_order);
    std::filesystem::remove(shuffled);
    write_file(in_order, s, 9, {0, 1, 2, 3, 4, 5, 6, 7, 8});
    {
      // Backwards, and case 6 first written as a failure then again as it is.
      auto results = ResultsFile::create(shuffled, s, table_of(9));
      const std::size_t rows = sweep::output_times(s).size();
      results.write(oscillator(6, s, 1, "failed: first attempt"));
      for (std::size_t i = 9; i-- > 0;) {
        if (i == 5) continue;
        results.write(i == 3 ? oscillator(i, s, 2, "failed: singular mass matrix at t = 0.25")
                             : oscillator(i, s, rows));
      }
      EXPECT_EQ(results.statuses()[6], "ok");
    }  // closed by the destructor
    const auto a = contents(in_order), b = contents(shuffled);
    EXPECT_GT(a.size(), 20u);
    EXPECT_EQ(a, b);
    // No object carries a time stamp.
    for (const auto& [name, value] : a)
      if (name.ends_with("#times")) {
        EXPECT_EQ(value, "0,0") << name;
      }
  }
}

TEST_F(ResultsFileTest, ResumeReadsTheStatusesOfTheSameSweepAndRefusesAnother) {
  const SweepSettings s = settings_of(Save::Summary);
  const std::string path = file("r.h5");
  write_file(path, s, 7, {0, 1, 2, 3, 4, 5, 6});
  {
    auto results = ResultsFile::resume(path, s, table_of(7));
    ASSERT_EQ(results.size(), 7u);
    EXPECT_EQ(results.statuses()[0], "ok");
    EXPECT_EQ(results.statuses()[3], "failed: singular mass matrix at t = 0.25");
    EXPECT_EQ(results.statuses()[5], "not run");
    results.write(oscillator(5, s, sweep::output_times(s).size()));
    EXPECT_EQ(results.statuses()[5], "ok");
  }
  EXPECT_EQ(ResultsFile::resume(path, s, table_of(7)).statuses()[5], "ok");

  // Each field a resumed sweep must repeat, changed: refused, naming it and both values.
  struct Change {
    std::string field;
    std::function<void(SweepSettings&, CaseTable&)> apply;
    std::string file_value, our_value;
  };
  const std::vector<Change> changes = {
      {"model_hash", [](SweepSettings& x, CaseTable&) { x.model_hash = "9e1c"; }, "'3f5a'",
       "'9e1c'"},
      {"t_end", [](SweepSettings& x, CaseTable&) { x.t_end = 2; }, "1", "2"},
      {"output_step", [](SweepSettings& x, CaseTable&) { x.output_step = 0.5; }, "0.25", "0.5"},
      {"rtol", [](SweepSettings& x, CaseTable&) { x.rtol = 1e-8; }, "1e-09", "1e-08"},
      {"atol", [](SweepSettings& x, CaseTable&) { x.atol = 1e-8; }, "1e-10", "1e-08"},
      {"integrator", [](SweepSettings& x, CaseTable&) { x.integrator = "adams"; }, "'bdf'",
       "'adams'"},
      {"save", [](SweepSettings& x, CaseTable&) { x.save = Save::Series; }, "'summary'",
       "'series'"},
      {"coordinates",
       [](SweepSettings& x, CaseTable&) {
         x.coordinates = {"y", "x"};
       },
       "[x, y]", "[y, x]"},
      {"speeds", [](SweepSettings& x, CaseTable&) { x.speeds = {}; }, "[w]", "[]"},
      {"common_values", [](SweepSettings& x, CaseTable&) { x.common_values = {"k=2"}; }, "[k=1]",
       "[k=2]"},
      {"cases columns", [](SweepSettings&, CaseTable& t) { t.columns[0].name = "B"; },
       "[A, q0.x, input.f]", "[B, q0.x, input.f]"},
      {"number of cases", [](SweepSettings&, CaseTable& t) { t = table_of(8); }, "7", "8"},
      {"cases/A[4]", [](SweepSettings&, CaseTable& t) { t.numbers[4][0] = 1.5; }, "1.4", "1.5"},
      {"cases/input.f[3]", [](SweepSettings&, CaseTable& t) { t.expressions[3][2] = "cos(t)"; },
       "'sin(3*t)'", "'cos(t)'"},
  };
  for (const auto& change : changes) {
    SweepSettings other = s;
    CaseTable table = table_of(7);
    change.apply(other, table);
    const auto e = model_error([&] { ResultsFile::resume(path, other, table); });
    EXPECT_EQ(e.where().file, "resume");
    EXPECT_EQ(e.offending(), path);
    EXPECT_NE(std::string(e.what()).find("its " + change.field + " is " + change.file_value +
                                         ", this sweep's is " + change.our_value),
              std::string::npos)
        << e.what();
  }
  // The command line is metadata: another one resumes.
  SweepSettings again = s;
  again.command_line = "appell sweep oscillator.yaml --resume";
  EXPECT_EQ(ResultsFile::resume(path, again, table_of(7)).statuses()[0], "ok");
}

TEST_F(ResultsFileTest, AResultThatDoesNotFitTheSweepIsRefused) {
  const SweepSettings s = settings_of(Save::Series);
  auto results = ResultsFile::create(file("r.h5"), s, table_of(3));
  CaseResult r = oscillator(1, s, 5);
  r.index = 3;
  EXPECT_THROW(results.write(r), std::invalid_argument);
  r = oscillator(1, s, 5);
  r.u.pop_back();
  EXPECT_THROW(results.write(r), std::invalid_argument);
  r = oscillator(1, s, 5);
  r.status.clear();
  EXPECT_THROW(results.write(r), std::invalid_argument);
  EXPECT_EQ(results.statuses(), (std::vector<std::string>(3, "not run")));
  // A long reason is kept whole up to 256 bytes, cut at a character, marked.
  // Here "é" (2 bytes) would end at byte 254, past the 253 that leave room for "...".
  r = oscillator(1, s, 5, "failed: " + std::string(300, 'x'));
  r.status.replace(252, 2, "é");
  results.write(r);
  const std::string kept = results.statuses()[1];
  EXPECT_EQ(kept, r.status.substr(0, 252) + "...");
  results.close();
  EXPECT_EQ(ResultsFile::resume(file("r.h5"), s, table_of(3)).statuses()[1], kept);
}

TEST_F(ResultsFileTest, AWriterKilledMidwayLeavesEveryWrittenCaseReadable) {
  const SweepSettings s = settings_of(Save::Series);
  const std::string path = file("killed.h5");
  const std::size_t cases = 400, rows = sweep::output_times(s).size();
  // Rounds of a writer killed (SIGKILL, before close()) at another moment each time; each
  // round resumes the file the last one left, as `appell sweep --resume` does.
  for (int round = 0; round < 8; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    int done[2];
    ASSERT_EQ(pipe(done), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // The cases not "ok" first, then every case again and again (a case written again is
      // reset to "not run" first), telling the parent after each.
      close(done[0]);
      try {
        auto results = round == 0 ? ResultsFile::create(path, s, table_of(cases))
                                  : ResultsFile::resume(path, s, table_of(cases));
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < cases; ++i)
          if (results.statuses()[i] != "ok") order.push_back(i);
        for (std::size_t i = 0; i < cases; ++i) order.push_back(i);
        for (std::size_t k = 0;; k = (k + 1) % order.size()) {
          results.write(oscillator(order[k], s, rows));
          const char byte = 1;
          if (::write(done[1], &byte, 1) != 1) _exit(3);
        }
      } catch (...) {
        _exit(4);
      }
    }
    close(done[1]);
    const std::size_t kill_after = 40 + 13 * static_cast<std::size_t>(round);
    std::size_t told = 0;
    char byte = 0;
    while (told < kill_after && read(done[0], &byte, 1) == 1) ++told;
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    close(done[0]);
    ASSERT_EQ(told, kill_after);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    auto results = ResultsFile::resume(path, s, table_of(cases));
    std::size_t ok = 0;
    for (const auto& st : results.statuses()) {
      EXPECT_TRUE(st == "ok" || st == "not run") << st;
      ok += st == "ok";
    }
    EXPECT_GE(ok, 40u);
    results.close();
    // Every case that reads "ok" has all of its data, bit for bit.
    H5File f(path);
    const auto status_of = strings(f.id, "status");
    const auto x = doubles(f.id, "series/q/x"), e = doubles(f.id, "series/E");
    for (std::size_t i = 0; i < cases; ++i) {
      if (status_of[i] != "ok") continue;
      const CaseResult r = oscillator(i, s, rows);
      for (std::size_t k = 0; k < rows; ++k) {
        ASSERT_EQ(x[i * rows + k], r.q[2 * k]) << "case " << i;
        ASSERT_EQ(e[i * rows + k], r.total[k]) << "case " << i;
      }
    }
  }
}

TEST_F(ResultsFileTest, ShardsMergeIntoTheWhole) {
  const SweepSettings s = settings_of(Save::Series);
  const std::size_t cases = 11, rows = sweep::output_times(s).size();
  const auto result = [&](std::size_t i) {
    return i == 3 ? oscillator(i, s, 2, "failed: singular mass matrix at t = 0.25")
                  : oscillator(i, s, rows);
  };
  const std::string whole = file("whole.h5"), a = file("a.h5"), b = file("b.h5");
  {
    auto w = ResultsFile::create(whole, s, table_of(cases));
    for (std::size_t i = 0; i < cases; ++i) w.write(result(i));
    SweepSettings sa = s, sb = s;
    sa.command_line = "appell sweep --shard 1/2";
    sb.command_line = "appell sweep --shard 2/2";
    auto fa = ResultsFile::create(a, sa, table_of(cases));
    auto fb = ResultsFile::create(b, sb, table_of(cases));
    for (std::size_t i = 0; i < cases; ++i) (i % 2 == 0 ? fa : fb).write(result(i));
    // Case 4 ran in both shards (a restarted task): the same results, another wall time.
    CaseResult again = result(4);
    again.wall_time = 7.0;
    fb.write(again);
  }
  const std::string merged = file("merged.h5");
  const auto summary = sweep::merge_results({a, b}, merged);
  EXPECT_EQ(summary.ok, cases - 1);
  EXPECT_EQ(summary.failed, 1u);
  EXPECT_EQ(summary.not_run, 0u);
  auto got = contents(merged), want = contents(whole);
  EXPECT_EQ(got.at("/@command_line"), "appell sweep --shard 1/2|");
  got.erase("/@command_line");
  want.erase("/@command_line");
  EXPECT_EQ(got, want);

  // Merged the other way round: the same but for the repeated case's wall time.
  const std::string reversed = file("reversed.h5");
  sweep::merge_results({b, a}, reversed);
  H5File f(reversed);
  EXPECT_EQ(doubles(f.id, "wall_time")[4], 7.0);
  EXPECT_TRUE(same_values(doubles(f.id, "series/q/x"), doubles(H5File(whole).id, "series/q/x")));
}

TEST_F(ResultsFileTest, MergeRefusesShardsThatDisagree) {
  const SweepSettings s = settings_of(Save::Final);
  const std::size_t rows = sweep::output_times(s).size();
  const std::string a = file("a.h5"), b = file("b.h5"), c = file("c.h5");
  {
    auto fa = ResultsFile::create(a, s, table_of(4));
    auto fb = ResultsFile::create(b, s, table_of(4));
    fa.write(oscillator(2, s, rows));
    CaseResult other = oscillator(2, s, rows);
    other.final_q[1] += 1e-15;  // not the same result
    fb.write(other);
    SweepSettings later = s;
    later.t_end = 2;
    ResultsFile::create(c, later, table_of(4));
  }
  const std::string out = file("out.h5");
  auto e = model_error([&] { sweep::merge_results({a, b}, out); });
  EXPECT_EQ(e.where().file, b);
  EXPECT_NE(std::string(e.what()).find("case 2 differs from the same case in " + a),
            std::string::npos)
      << e.what();
  EXPECT_FALSE(std::filesystem::exists(out));

  e = model_error([&] { sweep::merge_results({a, c}, out); });
  EXPECT_EQ(e.where().file, c);
  EXPECT_EQ(e.offending(), "t_end");
  EXPECT_NE(std::string(e.what()).find("its t_end is 2, " + a + "'s is 1"), std::string::npos)
      << e.what();
  EXPECT_FALSE(std::filesystem::exists(out));
  // No file made aside is left behind either.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 3u);

  e = model_error([&] { sweep::merge_results({a}, a); });
  EXPECT_EQ(e.where().file, a);
  EXPECT_NE(std::string(e.what()).find("exists"), std::string::npos);
}

TEST_F(ResultsFileTest, FilesThatAreNotResultsAreClearErrors) {
  const SweepSettings s = settings_of(Save::Summary);
  const CaseTable table = table_of(3);
  const auto refused = [&](const std::string& path, const std::string& message) {
    const auto e = model_error([&] { ResultsFile::resume(path, s, table); });
    EXPECT_EQ(e.where().file, "resume");
    EXPECT_EQ(e.offending(), path);
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    const auto m = model_error([&] { sweep::merge_results({path}, file("out.h5")); });
    EXPECT_EQ(m.where().file, path);
    EXPECT_NE(std::string(m.what()).find(message), std::string::npos) << m.what();
  };
  refused(file("missing.h5"), "no such file");
  refused(write("text.h5", "t,x\n0,1\n"), "not an HDF5 file");
  const std::string foreign = file("foreign.h5");
  H5Fclose(H5Fcreate(foreign.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT));
  refused(foreign, "not the results file of an appell sweep");
  // A results file cut short (a copy that stopped half-way).
  const std::string whole = file("whole.h5"), cut = file("cut.h5");
  ResultsFile::create(whole, s, table).close();
  std::filesystem::copy_file(whole, cut);
  std::filesystem::resize_file(cut, std::filesystem::file_size(whole) / 2);
  refused(cut, "cannot be opened");

  // create() never replaces a file.
  const auto e = model_error([&] { ResultsFile::create(whole, s, table); });
  EXPECT_EQ(e.where().file, "out");
  EXPECT_EQ(e.offending(), whole);
  EXPECT_NE(std::string(e.what()).find("exists: --resume completes it, or remove it"),
            std::string::npos);
  EXPECT_NO_THROW(ResultsFile::resume(whole, s, table));
  const auto missing =
      model_error([&] { ResultsFile::create((dir_ / "no-folder" / "r.h5").string(), s, table); });
  EXPECT_EQ(missing.where().file, "out");
  EXPECT_NE(std::string(missing.what()).find("No such file or directory"), std::string::npos)
      << missing.what();
}

TEST_F(ResultsFileTest, SweepMergeFromTheCommandLine) {
  const SweepSettings s = settings_of(Save::Summary);
  const std::size_t rows = sweep::output_times(s).size();
  const std::string a = file("a.h5"), b = file("b.h5"), out = file("out.h5");
  {
    auto fa = ResultsFile::create(a, s, table_of(5));
    auto fb = ResultsFile::create(b, s, table_of(5));
    for (std::size_t i : {0, 2}) fa.write(oscillator(i, s, rows));
    fb.write(oscillator(1, s, rows));
    fb.write(oscillator(3, s, 2, "failed: the integrator gave up"));
  }
  auto run = test_support::run_cli("sweep-merge " + out + " " + a + " " + b);
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("2 shards merged: 3 ok, 1 failed, 1 not run"), std::string::npos)
      << run.out;
  EXPECT_EQ(
      ResultsFile::resume(out, s, table_of(5)).statuses(),
      (std::vector<std::string>{"ok", "ok", "ok", "failed: the integrator gave up", "not run"}));

  run = test_support::run_cli("sweep-merge " + out + " " + a);  // out exists
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find(out + ": exists"), std::string::npos) << run.out;
  const std::string other = file("other.h5");
  run = test_support::run_cli("sweep-merge " + other + " " + a + " " + file("nope.h5"));
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find(file("nope.h5") + ": no such file"), std::string::npos) << run.out;
  EXPECT_FALSE(std::filesystem::exists(other));
  run = test_support::run_cli("sweep-merge " + other + " " + write("x.csv", "a\n1\n"));
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("x.csv: not an HDF5 file"), std::string::npos) << run.out;
  run = test_support::run_cli("sweep-merge " + other);
  EXPECT_EQ(run.code, 2) << run.out;
  // A folder that cannot be written: the merged file cannot be made.
  run = test_support::run_cli("sweep-merge /proc/merged.h5 " + a);
  EXPECT_NE(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("/proc/merged.h5"), std::string::npos) << run.out;
}

}  // namespace
