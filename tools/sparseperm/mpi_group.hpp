#pragma once
// The CLI under mpirun (or srun): Open MPI's ranks as the library's process_group
// (core/process_group.cuh). Built when CMake finds MPI (SPARSEPERM_WITH_MPI); MPI is started only
// when a launcher started this process, so a plain run needs no MPI runtime at all.
//
// Only the main thread calls MPI (MPI_THREAD_FUNNELED): the engines deal out their chunks and
// exchange their records from it while their own threads compute. An error that every rank learns from an exchange is printed by rank 0 alone; an error of
// one rank is printed with its rank and ends the whole job (MPI_Abort), so that no rank waits for it.
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sparseperm/core/engine_error.cuh>
#include <sparseperm/core/process_group.cuh>

#if defined(SPARSEPERM_WITH_MPI)
#  include <mpi.h>
#endif

namespace sparseperm::cli {

#if defined(SPARSEPERM_WITH_MPI)
// Whether a launcher started this process as one of several ranks.
inline bool launched_by_mpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "SLURM_NTASKS"}) {
    if (const char* value = std::getenv(variable)) {
      if (std::string(variable) == "SLURM_NTASKS" && std::string(value) == "1") continue;
      return true;
    }
  }
  return false;
}

class mpi_session {
 public:
  mpi_session() {
    if (!launched_by_mpi()) return;
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      throw engine_error(engine_error::kind::unavailable, "MPI_Init_thread failed");
    }
    started_ = true;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &group_.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &group_.size);
    MPI_Comm host = MPI_COMM_NULL;  // the ranks that share this host, for --devices split
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, group_.rank, MPI_INFO_NULL, &host) == MPI_SUCCESS) {
      MPI_Comm_rank(host, &host_rank_);
      MPI_Comm_size(host, &host_ranks_);
      MPI_Comm_free(&host);
    }
    group_.all_gather = [](const std::string& mine) {
      int ranks = 0;
      MPI_Comm_size(MPI_COMM_WORLD, &ranks);
      if (mine.size() > static_cast<std::size_t>(1) << 30)
        throw engine_error(engine_error::kind::too_large, "a rank's chunk records exceed 1 GiB");
      const int length = static_cast<int>(mine.size());
      std::vector<int> lengths(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
      check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
      long long total = 0;
      for (int r = 0; r < ranks; ++r) {
        offsets[static_cast<std::size_t>(r)] = static_cast<int>(total);
        total += lengths[static_cast<std::size_t>(r)];
        if (total > (1LL << 31) - 1)
          throw engine_error(engine_error::kind::too_large, "the ranks' chunk records exceed 2 GiB");
      }
      std::string all(static_cast<std::size_t>(total), '\0');
      check(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                           MPI_COMM_WORLD),
            "MPI_Allgatherv");
      std::vector<std::string> parts;
      for (int r = 0; r < ranks; ++r) {
        parts.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                   static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
      }
      return parts;
    };
    group_.send = [this](int to, const std::string& bytes) {
      sent_.push_back({bytes, MPI_REQUEST_NULL});
      check(MPI_Isend(sent_.back().bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, to, message_tag,
                      MPI_COMM_WORLD, &sent_.back().request),
            "MPI_Isend");
    };
    group_.receive = [this]() -> std::optional<std::pair<int, std::string>> {
      for (auto it = sent_.begin(); it != sent_.end();) {  // let go of the sends that have completed
        int complete = 0;
        check(MPI_Test(&it->request, &complete, MPI_STATUS_IGNORE), "MPI_Test");
        it = complete ? sent_.erase(it) : std::next(it);
      }
      int waiting = 0;
      MPI_Status status{};
      check(MPI_Iprobe(MPI_ANY_SOURCE, message_tag, MPI_COMM_WORLD, &waiting, &status), "MPI_Iprobe");
      if (!waiting) return std::nullopt;
      int length = 0;
      check(MPI_Get_count(&status, MPI_CHAR, &length), "MPI_Get_count");
      std::string bytes(static_cast<std::size_t>(length), '\0');
      check(MPI_Recv(bytes.data(), length, MPI_CHAR, status.MPI_SOURCE, message_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Recv");
      return std::pair<int, std::string>{status.MPI_SOURCE, std::move(bytes)};
    };
  }
  ~mpi_session() {
    if (!started_) return;
    for (auto& s : sent_) MPI_Wait(&s.request, MPI_STATUS_IGNORE);
    MPI_Finalize();
  }
  mpi_session(const mpi_session&) = delete;
  mpi_session& operator=(const mpi_session&) = delete;

  // The ranks, or null when this process runs alone.
  const process_group* group() const { return started_ && group_.size > 1 ? &group_ : nullptr; }
  int host_rank() const { return host_rank_; }
  int host_ranks() const { return host_ranks_; }
  static void abort_job(int code) {
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

 private:
  static void check(int status, const char* what) {
    if (status != MPI_SUCCESS) {
      char text[MPI_MAX_ERROR_STRING];
      int length = 0;
      MPI_Error_string(status, text, &length);
      throw engine_error(engine_error::kind::failed, std::string(what) + ": " + std::string(text, length));
    }
  }
  static constexpr int message_tag = 7;  // the dealing's messages (collectives do not see tags)
  struct sending {
    std::string bytes;  // kept until the send completes
    MPI_Request request;
  };
  bool started_ = false;
  process_group group_;
  int host_rank_ = 0, host_ranks_ = 1;
  std::list<sending> sent_;
};
#else
// A launcher's word for this process: the ranks it started and this one's (1 and 0 when none did).
inline int launcher_number(std::initializer_list<const char*> variables, int otherwise) {
  for (const char* variable : variables) {
    if (const char* value = std::getenv(variable); value && *value) return std::atoi(value);
  }
  return otherwise;
}

class mpi_session {
 public:
  // Under mpirun or srun with several ranks, a build without MPI would run the whole job once a rank:
  // rank 0 refuses in one line, the others end quietly.
  mpi_session() {
    const int ranks = launcher_number({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"}, 1);
    if (ranks <= 1) return;
    if (launcher_number({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}, 0) != 0) std::_Exit(2);
    throw engine_error(engine_error::kind::unavailable,
                       "a launcher started this sparseperm as one of " + std::to_string(ranks) +
                           " ranks, but it was built without MPI: each rank would run the whole job. Rebuild "
                           "it with MPI (Open MPI's development files present when CMake configures), or run it "
                           "alone");
  }
  const process_group* group() const { return nullptr; }
  int host_rank() const { return 0; }
  int host_ranks() const { return 1; }
  static void abort_job(int code) { std::_Exit(code); }
};
#endif

}  // namespace sparseperm::cli
