// A sweep's results file is untrusted input when it is read again (`appell sweep --resume`,
// `appell sweep-merge`, sweep::check_results_file): a damaged or hand-edited file is refused with
// exit 2 and a message naming it (and the case), never a crash, never a resume that keeps what
// it should not. Every damaged file here is made by the test from a valid one: random bytes in
// the first kilobytes, byte flips at many offsets (fixed seeds), a status edited to "ok", a value
// edited, a file cut short, a file of the format before checksums.
//
// Before the seal and the checksums, 16 random bytes in the header or a few byte flips made HDF5
// read out of bounds (SIGSEGV in H5HG_read, H5F__accum_read), and a status set to "ok" by hand
// was skipped by --resume, its NaN rows kept, exit 0.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <random>
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

// --- files made by the library (fast: no model, no integration) ---------------------------------

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void put_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// The model::ModelError `f` throws (a test failure when it throws nothing or something else).
template <class F>
model::ModelError model_error(F&& f) {
  try {
    f();
  } catch (const model::ModelError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a ModelError: " << e.what();
    return model::ModelError({}, "");
  }
  ADD_FAILURE() << "nothing thrown";
  return model::ModelError({}, "");
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// --- HDF5 edits, as a user with h5py or h5ed would make them ------------------------------------

/// Writes `value` into element `index` of the [case] string dataset /status, through HDF5.
void edit_status(const std::string& path, std::size_t index, const std::string& value) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t d = H5Dopen2(f, "status", H5P_DEFAULT);
  const hid_t type = H5Dget_type(d), space = H5Dget_space(d);
  std::vector<char> raw(H5Tget_size(type), '\0');
  std::memcpy(raw.data(), value.data(), value.size());
  const hsize_t start = index, count = 1;
  H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, nullptr, &count, nullptr);
  const hid_t memory = H5Screate_simple(1, &count, nullptr);
  EXPECT_GE(H5Dwrite(d, type, memory, space, H5P_DEFAULT, raw.data()), 0);
  H5Sclose(memory);
  H5Sclose(space);
  H5Tclose(type);
  H5Dclose(d);
  H5Fclose(f);
}

/// Sets element (row, column) of a float64 dataset, through HDF5.
void edit_value(const std::string& path, const std::string& name, std::size_t row,
                std::size_t column, double value) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  const hid_t space = H5Dget_space(d);
  const int rank = H5Sget_simple_extent_ndims(space);
  const hsize_t start[2] = {row, column}, count[2] = {1, 1};
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
  const hid_t memory = H5Screate_simple(1, count, nullptr);
  (void)rank;
  EXPECT_GE(H5Dwrite(d, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, &value), 0);
  H5Sclose(memory);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
}

/// Every dataset of a valid results file, by name, as its bytes (strings as text); /wall_time,
/// a clock reading, left out. Attributes by "@name".
std::map<std::string, std::string> contents(const std::string& path) {
  std::map<std::string, std::string> out;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(f, 0) << path;
  if (f < 0) return out;
  H5Ovisit2(
      f, H5_INDEX_NAME, H5_ITER_INC,
      [](hid_t file, const char* name, const H5O_info_t* info, void* data) -> herr_t {
        auto& map = *static_cast<std::map<std::string, std::string>*>(data);
        if (info->type != H5O_TYPE_DATASET || std::string(name) == "wall_time") return 0;
        const hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
        const hid_t type = H5Dget_type(d), space = H5Dget_space(d);
        const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
        std::string text;
        if (H5Tis_variable_str(type) > 0) {
          std::vector<char*> raw(n);
          H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data());
          for (char* s : raw) text += std::string(s ? s : "") + "|";
          H5Dvlen_reclaim(type, space, H5P_DEFAULT, raw.data());
        } else {
          std::vector<char> raw(n * H5Tget_size(type));
          H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data());
          text.assign(raw.begin(), raw.end());
        }
        map[name] = text;
        H5Sclose(space);
        H5Tclose(type);
        H5Dclose(d);
        return 0;
      },
      &out, H5O_INFO_BASIC);
  hsize_t index = 0;
  H5Aiterate2(
      f, H5_INDEX_NAME, H5_ITER_INC, &index,
      [](hid_t object, const char* name, const H5A_info_t*, void* data) -> herr_t {
        auto& map = *static_cast<std::map<std::string, std::string>*>(data);
        const hid_t a = H5Aopen(object, name, H5P_DEFAULT);
        const hid_t type = H5Aget_type(a), space = H5Aget_space(a);
        const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
        std::string text;
        if (H5Tis_variable_str(type) > 0) {
          std::vector<char*> raw(n);
          if (n > 0) H5Aread(a, type, raw.data());
          for (char* s : raw) text += std::string(s ? s : "") + "|";
          if (n > 0) H5Dvlen_reclaim(type, space, H5P_DEFAULT, raw.data());
        } else {
          std::vector<char> raw(n * H5Tget_size(type));
          H5Aread(a, type, raw.data());
          text.assign(raw.begin(), raw.end());
        }
        map[std::string("@") + name] = text;
        H5Sclose(space);
        H5Tclose(type);
        H5Aclose(a);
        return 0;
      },
      &out);
  H5Fclose(f);
  return out;
}

/// A damaged copy of `bytes`: one of three kinds of damage, chosen and placed by `rng`.
std::string damaged(const std::string& bytes, std::mt19937_64& rng, std::string& what) {
  std::string out = bytes;
  const auto below = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  switch (below(3)) {
    case 0: {  // 16 random bytes in the first 4 KiB: the seal, the superblock, object headers
      const std::size_t at = below(std::min<std::size_t>(out.size(), 4096) - 16);
      for (std::size_t k = 0; k < 16; ++k) out[at + k] = static_cast<char>(below(256));
      what = "16 random bytes at " + std::to_string(at);
      break;
    }
    case 1: {  // one bit flipped anywhere
      const std::size_t at = below(out.size());
      out[at] = static_cast<char>(out[at] ^ (1 << below(8)));
      what = "a bit flipped at " + std::to_string(at);
      break;
    }
    default: {  // 8 bytes anywhere
      what = "random bytes at";
      for (int k = 0; k < 8; ++k) {
        const std::size_t at = below(out.size());
        out[at] = static_cast<char>(below(256));
        what += " " + std::to_string(at);
      }
    }
  }
  return out;
}

class ResultsFileDamageTest : public test_support::ScratchDirTest {
 protected:
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  /// A file of 6 cases: 0, 1, 2 and 4 "ok", 3 failed, 5 not run.
  std::string valid_file(const std::string& name, Save save = Save::Series) const {
    const std::string path = file(name);
    const SweepSettings s = settings_of(save);
    const std::size_t rows = sweep::output_times(s).size();
    auto f = ResultsFile::create(path, s, table_of(6));
    for (std::size_t i : {0, 1, 2, 4}) f.write(oscillator(i, s, rows));
    f.write(oscillator(3, s, 2, "failed: the integrator gave up"));
    f.close();
    return path;
  }
};

// --- the library's reader ----------------------------------------------------------------------

TEST_F(ResultsFileDamageTest, AValidFileIsReadAndTheSameSweepWritesTheSameBytes) {
  for (const Save save : {Save::Series, Save::Final, Save::Summary}) {
    SCOPED_TRACE(sweep::save_name(save));
    const std::string a = valid_file("a.h5", save), b = valid_file("b.h5", save);
    const auto counts = sweep::check_results_file(a);
    EXPECT_EQ(counts.ok, 4u);
    EXPECT_EQ(counts.failed, 1u);
    EXPECT_EQ(counts.not_run, 1u);
    // No time, process or address in the file: the same results give the same bytes.
    EXPECT_EQ(bytes_of(a), bytes_of(b));
    // The seal is what the file starts with; HDF5 reads the file after it (h5py does too).
    EXPECT_EQ(bytes_of(a).substr(0, 13), "appell-seal 1");
    const hid_t f = H5Fopen(a.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_GE(f, 0);
    H5Fclose(f);
    std::filesystem::remove(a);
    std::filesystem::remove(b);
  }
}

TEST_F(ResultsFileDamageTest, AStatusEditedToOkIsRefusedNamingTheFileAndTheCase) {
  const std::string path = valid_file("r.h5");
  edit_status(path, 5, "ok");  // case 5 was never run: NaN rows under "ok"
  const auto e = model_error([&] { sweep::check_results_file(path); });
  EXPECT_EQ(e.where().file, path);
  EXPECT_TRUE(contains(e.what(), "case 5's status and data do not match its checksum")) << e.what();
  EXPECT_TRUE(contains(e.what(), "damaged or edited")) << e.what();
  // --resume refuses it too, at --resume, naming the file.
  const auto r =
      model_error([&] { ResultsFile::resume(path, settings_of(Save::Series), table_of(6)); });
  EXPECT_EQ(r.where().file, "resume");
  EXPECT_EQ(r.offending(), path);
  EXPECT_TRUE(contains(r.what(), "case 5's status")) << r.what();
  // A failed case edited to "ok" is refused the same way.
  const std::string other = valid_file("other.h5");
  edit_status(other, 3, "ok");
  EXPECT_TRUE(contains(model_error([&] { sweep::check_results_file(other); }).what(),
                       "case 3's status and data do not match"));
}

TEST_F(ResultsFileDamageTest, AValueEditedIsRefusedButWallTimeIsNotChecked) {
  const std::string path = valid_file("r.h5");
  edit_value(path, "series/q/y", 2, 3, 0.125);
  const auto e = model_error([&] { sweep::check_results_file(path); });
  EXPECT_EQ(e.where().file, path);
  EXPECT_TRUE(contains(e.what(), "case 2's status and data do not match its checksum")) << e.what();
  // Every quantity and /steps are covered.
  for (const std::string name : {"t_reached", "energy_drift", "series/u/w", "series/E"}) {
    const std::string copy = valid_file("copy.h5");
    edit_value(copy, name, 4, 0, -1.0);
    EXPECT_TRUE(contains(model_error([&] { sweep::check_results_file(copy); }).what(),
                         "case 4's status and data do not match"))
        << name;
    std::filesystem::remove(copy);
  }
  // wall_time is a clock reading (it differs between two runs of the same case, and is not
  // compared between shards): not part of the checksum, documented so.
  const std::string clock = valid_file("clock.h5");
  edit_value(clock, "wall_time", 1, 0, 99.0);
  EXPECT_EQ(sweep::check_results_file(clock).ok, 4u);
}

TEST_F(ResultsFileDamageTest, AnAttributeEditedIsRefusedByTheSeal) {
  const std::string path = valid_file("r.h5");
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t a = H5Aopen(f, "t_end", H5P_DEFAULT);
  const double t_end = 2.0;
  EXPECT_GE(H5Awrite(a, H5T_NATIVE_DOUBLE, &t_end), 0);
  H5Aclose(a);
  H5Fclose(f);
  const auto e = model_error([&] { sweep::check_results_file(path); });
  EXPECT_EQ(e.where().file, path);
  EXPECT_TRUE(contains(e.what(), "do not match the checksum written with them")) << e.what();
}

TEST_F(ResultsFileDamageTest, ACutOrOldFileIsRefusedWithWhatToDo) {
  const std::string path = valid_file("r.h5"), cut = file("cut.h5");
  const std::string bytes = bytes_of(path);
  put_bytes(cut, bytes.substr(0, bytes.size() - 100));
  auto e = model_error([&] { sweep::check_results_file(cut); });
  EXPECT_TRUE(contains(e.what(), "cannot be opened")) << e.what();
  EXPECT_TRUE(contains(e.what(), "truncated")) << e.what();
  put_bytes(cut, bytes + "more");
  EXPECT_TRUE(contains(model_error([&] { sweep::check_results_file(cut); }).what(), "extended"));

  // A file of the layout before checksums (format_version 1 without a seal): refused, saying so.
  const std::string old = file("old.h5");
  const hid_t f = H5Fcreate(old.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(f, "format", type, space, H5P_DEFAULT, H5P_DEFAULT);
  const char* format = "appell-sweep";
  H5Awrite(a, type, &format);
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
  H5Fclose(f);
  e = model_error([&] { sweep::check_results_file(old); });
  EXPECT_EQ(e.where().file, old);
  EXPECT_TRUE(contains(e.what(), "without appell's seal")) << e.what();
  EXPECT_TRUE(contains(e.what(), "run the sweep again")) << e.what();
}

TEST_F(ResultsFileDamageTest, HundredsOfDamagedFilesAreRefusedOrReadTheSame) {
  // In this process: a crash inside HDF5 would end the whole test program.
  const std::string path = valid_file("r.h5");
  const std::string bytes = bytes_of(path);
  const auto want = sweep::check_results_file(path);
  const std::string copy = file("damaged.h5");
  std::mt19937_64 rng(39);
  std::size_t refused = 0, same = 0;
  for (int round = 0; round < 400; ++round) {
    std::string what;
    put_bytes(copy, damaged(bytes, rng, what));
    SCOPED_TRACE(what);
    try {
      const auto got = sweep::check_results_file(copy);
      // Accepted: the damage hit bytes no reader uses (a wall time, a case not run).
      EXPECT_EQ(got.ok, want.ok);
      EXPECT_EQ(got.failed, want.failed);
      EXPECT_EQ(got.not_run, want.not_run);
      auto a = contents(copy), b = contents(path);
      // What differs may only be a case not run (never read) and wall_time (left out).
      for (auto* m : {&a, &b})
        for (auto& [name, value] : *m)
          if (name.rfind("series/", 0) == 0 || name == "t_reached" || name == "energy_drift" ||
              name == "steps" || name == "checksum")
            value.resize(value.size() / 6 * 5);  // the rows of cases 0 to 4
      EXPECT_EQ(a, b);
      ++same;
    } catch (const model::ModelError& e) {
      EXPECT_EQ(e.where().file, copy) << e.what();
      ++refused;
    }
  }
  EXPECT_EQ(refused + same, 400u);
  // Most damage is found: a wall time and the one case not run are a small part of the file.
  EXPECT_GT(refused, 350u);
}

// --- the command line --------------------------------------------------------------------------

const std::string kCart = std::string(APPELL_EXAMPLES_DIR) + "/spring_damper_cart.yaml";

/// The cart's sweep of 6 cases (a short series), with `extra` options.
std::string cart_sweep(const std::string& extra) {
  return "sweep " + kCart +
         " --grid mc=1,2 --grid q0.theta=0.1,0.4,0.8 --t-end 0.4 --output-step 0.1 "
         "--save series " +
         extra;
}

class SweepResumeDamageTest : public ResultsFileDamageTest {
 protected:
  void SetUp() override {
    ResultsFileDamageTest::SetUp();
    // Cases 0, 1 and 2 run ("ok"), 3 to 5 not run: what --resume completes.
    partial_ = file("partial.h5");
    const auto run = test_support::run_cli(cart_sweep("--shard 1/2 --out " + partial_), 120);
    ASSERT_EQ(run.code, 0) << run.out;
    partial_bytes_ = bytes_of(partial_);
    // The undamaged file completed: what every accepted damaged copy must become.
    const std::string whole = file("whole.h5");
    put_bytes(whole, partial_bytes_);
    const auto resumed = test_support::run_cli(cart_sweep("--resume --out " + whole), 120);
    ASSERT_EQ(resumed.code, 0) << resumed.out;
    ASSERT_TRUE(contains(resumed.out, "3 already ok")) << resumed.out;
    whole_ = contents(whole);
  }

  std::string partial_, partial_bytes_;
  std::map<std::string, std::string> whole_;
};

TEST_F(SweepResumeDamageTest, AValidFileResumesAndMergesToTheSameResults) {
  const std::string copy = file("copy.h5");
  put_bytes(copy, partial_bytes_);
  const auto run = test_support::run_cli(cart_sweep("--resume --out " + copy), 120);
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_EQ(contents(copy), whole_);
  // The same sweep in one go, and its two shards merged: the same datasets (wall_time aside)
  // and attributes (the command line aside: a resumed or merged file keeps the first one's).
  auto want = whole_;
  want.erase("@command_line");
  const std::string once = file("once.h5");
  ASSERT_EQ(test_support::run_cli(cart_sweep("--out " + once), 120).code, 0);
  auto got = contents(once);
  got.erase("@command_line");
  EXPECT_EQ(got, want);
  const std::string second = file("second.h5"), merged = file("merged.h5");
  ASSERT_EQ(test_support::run_cli(cart_sweep("--shard 2/2 --out " + second), 120).code, 0);
  const auto merge = test_support::run_cli("sweep-merge " + merged + " " + partial_ + " " + second);
  EXPECT_EQ(merge.code, 0) << merge.out;
  EXPECT_TRUE(contains(merge.out, "6 ok, 0 failed, 0 not run")) << merge.out;
  got = contents(merged);
  EXPECT_EQ(got.at("@command_line"), contents(partial_).at("@command_line"));
  got.erase("@command_line");
  EXPECT_EQ(got, want);
}

TEST_F(SweepResumeDamageTest, HandEditsAreRefusedWithExit2NamingTheFileAndTheCase) {
  // Case 4 (not run) marked "ok" by hand: before, --resume skipped it and kept its NaN rows.
  const std::string marked = file("marked.h5");
  put_bytes(marked, partial_bytes_);
  edit_status(marked, 4, "ok");
  auto run = test_support::run_cli(cart_sweep("--resume --out " + marked), 120);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_TRUE(contains(run.out,
                       "--resume: damaged results file: case 4's status and data do "
                       "not match its checksum"))
      << run.out;
  EXPECT_TRUE(contains(run.out, "(" + marked + ")")) << run.out;
  const std::string out = file("out.h5");
  run = test_support::run_cli("sweep-merge " + out + " " + marked);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_TRUE(contains(run.out, marked + ": damaged results file: case 4's")) << run.out;
  EXPECT_FALSE(std::filesystem::exists(out));

  // A value of case 1 (ok) edited.
  const std::string edited = file("edited.h5");
  put_bytes(edited, partial_bytes_);
  edit_value(edited, "series/q/x", 1, 2, 0.5);
  run = test_support::run_cli(cart_sweep("--resume --out " + edited), 120);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_TRUE(contains(run.out, "case 1's status and data do not match its checksum")) << run.out;
  EXPECT_TRUE(contains(run.out, edited)) << run.out;

  // 16 random bytes in the header, at offsets through the first 4 KiB.
  std::mt19937_64 rng(2);
  for (std::size_t at : {0, 20, 512, 600, 1024, 2000, 3000, 4000}) {
    SCOPED_TRACE("16 bytes at " + std::to_string(at));
    std::string bytes = partial_bytes_;
    for (std::size_t k = 0; k < 16; ++k) bytes[at + k] = static_cast<char>(rng() % 256);
    const std::string header = file("header.h5");
    put_bytes(header, bytes);
    run = test_support::run_cli(cart_sweep("--resume --out " + header), 120);
    EXPECT_EQ(run.code, 2) << run.out;
    EXPECT_TRUE(contains(run.out, "--resume: ")) << run.out;
    EXPECT_TRUE(contains(run.out, header)) << run.out;
    std::filesystem::remove(header);
  }
}

TEST_F(SweepResumeDamageTest, SixtyDamagedFilesNeverCrashNorResumeIntoOtherResults) {
  std::mt19937_64 rng(17);
  int refused = 0, resumed = 0;
  for (int round = 0; round < 60; ++round) {
    std::string what;
    const std::string copy = file("damaged-" + std::to_string(round) + ".h5");
    put_bytes(copy, damaged(partial_bytes_, rng, what));
    SCOPED_TRACE(what);
    // Half through --resume, half through sweep-merge (the same reader).
    const bool merge = round % 2 == 1;
    const std::string merged = file("merged.h5");
    const auto run = merge ? test_support::run_cli("sweep-merge " + merged + " " + copy, 120)
                           : test_support::run_cli(cart_sweep("--resume --out " + copy), 120);
    ASSERT_TRUE(run.code == 0 || run.code == 2) << "exit " << run.code << ": " << run.out;
    if (run.code == 2) {
      ++refused;
      EXPECT_TRUE(contains(run.out, copy)) << run.out;
      EXPECT_FALSE(contains(run.out, "internal error")) << run.out;
      EXPECT_FALSE(std::filesystem::exists(merged));
    } else {
      // Accepted: the damage hit bytes that do not matter (a wall time, a case not run, which
      // --resume runs again): the results are those of the undamaged file.
      ++resumed;
      if (merge)
        EXPECT_EQ(contents(merged), contents(partial_));
      else
        EXPECT_EQ(contents(copy), whole_);
      std::filesystem::remove(merged);
    }
    std::filesystem::remove(copy);
  }
  EXPECT_EQ(refused + resumed, 60);
  EXPECT_GE(refused, 40);
}

}  // namespace
