#pragma once
// The processes of one distributed run (MPI ranks, each with its own CPU threads or GPUs): which one
// this is, how many there are, and how they talk. A run without one is rank 0 of 1. The library
// knows no MPI: a program that runs under mpirun supplies the exchanges (the CLI does, in
// tools/sparseperm/mpi_group.hpp), and the chunked engines (run/chunk_dispatch.cuh) deal their
// chunks out to the ranks as they ask and reduce the chunks' records exactly.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine_error.cuh"

namespace sparseperm {

// An error that every rank learned in the same exchange (a rank's failure, sent to all): each has it,
// so one of them (rank 0) reports it.
class rank_error : public engine_error {
 public:
  using engine_error::engine_error;
};

struct process_group {
  int rank = 0;
  int size = 1;
  // Every process's bytes in rank order, at every process. A collective: every rank calls it, the
  // same number of times, in the same order.
  std::function<std::vector<std::string>(const std::string& mine)> all_gather;
  // Messages between two ranks, in the order sent: send(to, bytes) hands bytes over without waiting
  // for the receiver; receive() returns a message sent to this rank (its sender and bytes) when one
  // has arrived, and never waits. Only the thread that calls all_gather calls them.
  std::function<void(int to, const std::string& bytes)> send;
  std::function<std::optional<std::pair<int, std::string>>()> receive;

  bool distributed() const { return size > 1; }
};

}  // namespace sparseperm
