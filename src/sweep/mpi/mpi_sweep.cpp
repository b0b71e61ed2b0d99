#include "mpi_sweep.hpp"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "appell/model/source_location.hpp"
#include "appell/numeric/interruption.hpp"

namespace appell::sweep::mpi {

namespace {

// Messages: a rank asks (Request), rank 0 answers with an index or -1 (Assign); a rank sends a
// result (Result) and, when all its threads are done, Done.
enum Tag : int { Request = 1, Assign = 2, Result = 3, Done = 4 };

int env_int(const char* name) {
  const char* text = std::getenv(name);
  return text ? std::atoi(text) : 0;
}

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw model::ComputationError(std::string("MPI: ") + what + " failed");
}

// Bytes written and read in order.
class Writer {
 public:
  template <typename T>
  void put(const T& value) {
    const auto* p = reinterpret_cast<const char*>(&value);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
  void put(const std::vector<double>& values) {
    put(static_cast<std::uint64_t>(values.size()));
    const auto* p = reinterpret_cast<const char*>(values.data());
    bytes.insert(bytes.end(), p, p + values.size() * sizeof(double));
  }
  void put(const std::string& text) {
    put(static_cast<std::uint64_t>(text.size()));
    bytes.insert(bytes.end(), text.begin(), text.end());
  }
  std::vector<char> bytes;
};

class Reader {
 public:
  explicit Reader(const std::vector<char>& bytes) : bytes_(bytes) {}
  template <typename T>
  void get(T& value) {
    need(sizeof(T));
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
  }
  void get(std::vector<double>& values) {
    std::uint64_t size = 0;
    get(size);
    need(size * sizeof(double));
    values.resize(size);
    std::memcpy(values.data(), bytes_.data() + at_, size * sizeof(double));
    at_ += size * sizeof(double);
  }
  void get(std::string& text) {
    std::uint64_t size = 0;
    get(size);
    need(size);
    text.assign(bytes_.data() + at_, size);
    at_ += size;
  }

 private:
  void need(std::size_t size) const {
    if (at_ + size > bytes_.size()) throw model::ComputationError("MPI: a truncated result");
  }
  const std::vector<char>& bytes_;
  std::size_t at_ = 0;
};

// The vectors and scalars of a result, in one order for both directions.
template <typename Stream, typename Result>
void fields(Stream& s, Result& r) {
  s.put_or_get(r.index, r.status, r.steps, r.wall_time, r.t_reached, r.energy_drift, r.rows, r.dof,
               r.speeds, r.q, r.qd, r.u, r.kinetic, r.potential, r.total, r.final_q, r.final_qd,
               r.final_u, r.final_kinetic, r.final_potential, r.final_total, r.min_q, r.max_q,
               r.min_qd, r.max_qd, r.min_u, r.max_u, r.min_kinetic, r.max_kinetic, r.min_potential,
               r.max_potential, r.min_total, r.max_total);
}

struct Packer : Writer {
  template <typename... T>
  void put_or_get(const T&... values) {
    (put(values), ...);
  }
};
struct Unpacker : Reader {
  using Reader::Reader;
  template <typename... T>
  void put_or_get(T&... values) {
    (get(values), ...);
  }
};

// Case indices handed out one at a time, to rank 0's threads and the other ranks alike.
class Dispenser {
 public:
  explicit Dispenser(const std::vector<std::size_t>& indices) : indices_(indices) {}
  long next() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_ || num::interruption_signal() != 0 || at_ >= indices_.size()) return -1;
    return static_cast<long>(indices_[at_++]);
  }
  void stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
  }

 private:
  const std::vector<std::size_t>& indices_;
  std::mutex mutex_;
  std::size_t at_ = 0;
  bool stopped_ = false;
};

}  // namespace

bool launched_with_ranks() {
  return env_int("OMPI_COMM_WORLD_SIZE") > 1 || env_int("PMI_SIZE") > 1 ||
         env_int("PMIX_SIZE") > 1 || env_int("SLURM_NTASKS") > 1;
}

Session::Session() {
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throw model::ComputationError("MPI: this MPI cannot serve several threads of a rank");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

Session::~Session() { MPI_Finalize(); }

int Session::broadcast(int code) const {
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return code;
}

void Session::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

std::vector<char> pack(const CaseResult& result) {
  Packer p;
  fields(p, result);
  return std::move(p.bytes);
}

CaseResult unpack(const std::vector<char>& bytes) {
  CaseResult result;
  Unpacker u(bytes);
  fields(u, result);
  return result;
}

void run_cases(const Session& session, const SweepRunner& runner,
               const std::vector<std::size_t>& indices, std::size_t jobs,
               const std::function<void(CaseResult&&)>& on_result) {
  jobs = std::max<std::size_t>(1, jobs);
  if (session.rank() == 0) {
    Dispenser dispenser(indices);
    std::mutex delivering;
    std::exception_ptr failure;
    auto deliver = [&](CaseResult&& result) {
      std::lock_guard<std::mutex> lock(delivering);
      if (failure) return;
      try {
        on_result(std::move(result));
      } catch (...) {
        failure = std::current_exception();
        dispenser.stop();
      }
    };
    // Rank 0's own threads; this thread serves the other ranks (the only one calling MPI here).
    std::exception_ptr local_failure;
    std::thread local([&] {
      try {
        run_cases(
            runner, [&]() -> long { return dispenser.next(); }, jobs, deliver);
      } catch (...) {
        local_failure = std::current_exception();
        dispenser.stop();
      }
    });
    int done = 1;
    std::vector<char> buffer;
    // Polled, not a blocking MPI_Probe: OpenMPI's blocking calls spin, and this thread would take
    // a core from rank 0's own case threads. A request waits at most a millisecond.
    auto idle = std::chrono::microseconds(0);
    while (done < session.size()) {
      MPI_Status status;
      int arrived = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status);
      if (!arrived) {
        idle = std::min(std::chrono::microseconds(1000), idle + std::chrono::microseconds(50));
        std::this_thread::sleep_for(idle);
        continue;
      }
      idle = std::chrono::microseconds(0);
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      buffer.resize(static_cast<std::size_t>(count));
      MPI_Recv(buffer.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      if (status.MPI_TAG == Request) {
        long index = dispenser.next();
        MPI_Send(&index, 1, MPI_LONG, status.MPI_SOURCE, Assign, MPI_COMM_WORLD);
      } else if (status.MPI_TAG == Result) {
        deliver(unpack(buffer));
      } else if (status.MPI_TAG == Done) {
        ++done;
      }
    }
    local.join();
    if (failure) std::rethrow_exception(failure);
    if (local_failure) std::rethrow_exception(local_failure);
    return;
  }
  // Another rank: its threads ask rank 0 for cases and send it the results, one MPI call at a
  // time (MPI_THREAD_SERIALIZED).
  std::mutex calling;
  std::exception_ptr failure;
  try {
    run_cases(
        runner,
        [&]() -> long {
          if (num::interruption_signal() != 0) return -1;
          std::lock_guard<std::mutex> lock(calling);
          const char nothing = 0;
          MPI_Send(&nothing, 0, MPI_BYTE, 0, Request, MPI_COMM_WORLD);
          long index = -1;
          MPI_Recv(&index, 1, MPI_LONG, 0, Assign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          return index;
        },
        jobs,
        [&](CaseResult&& result) {
          const std::vector<char> bytes = pack(result);
          std::lock_guard<std::mutex> lock(calling);
          MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, Result,
                   MPI_COMM_WORLD);
        });
  } catch (...) {
    failure = std::current_exception();
  }
  const char nothing = 0;
  MPI_Send(&nothing, 0, MPI_BYTE, 0, Done, MPI_COMM_WORLD);
  if (failure) std::rethrow_exception(failure);
}

}  // namespace appell::sweep::mpi
