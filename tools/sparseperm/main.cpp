// sparseperm: the command-line tool. Exit codes: 0 success, 2 bad input or usage, 1 internal error.
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include <sparseperm/perm.cuh>
#include <sparseperm/pipeline.cuh>

#include "arguments.hpp"
#include "bench_command.hpp"
#include "compute_command.hpp"
#include "generate_command.hpp"
#include "inspect_command.hpp"
#include "mpi_group.hpp"
#include "tool.hpp"

namespace {

const char* main_help = "sparseperm " SPARSEPERM_VERSION_STRING
                        ": permanents of sparse matrices\n"
                        "\n"
                        "usage: sparseperm COMMAND [options]\n"
                        "\n"
                        "commands:\n"
                        "  compute FILE   the permanent of a Matrix Market file\n"
                        "  inspect FILE   structure, orderings and the plans the engines would use\n"
                        "  generate       an Erdos-Renyi test matrix\n"
                        "  bench          engines side by side on generated matrices\n"
                        "\n"
                        "'sparseperm COMMAND --help' describes each command. Errors are one line on stderr;\n"
                        "bad input and bad usage exit with code 2.\n";

int dispatch(int argc, char** argv, const sparseperm::cli::tool_context& context) {
  using namespace sparseperm::cli;
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
      std::strcmp(argv[1], "help") == 0) {
    std::fputs(main_help, stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (command == "--version") {
    std::printf("sparseperm %s\n", SPARSEPERM_VERSION_STRING);
    return 0;
  }
  if (command == "compute") return run_compute(argc, argv, context);
  if (command == "inspect") return run_inspect(argc, argv, context);
  if (command == "generate") return run_generate(argc, argv);
  if (command == "bench") return run_bench(argc, argv, context);
  throw usage_error("unknown command '" + command +
                    "' (commands: compute, inspect, generate, bench; see 'sparseperm --help')");
}

}  // namespace

int main(int argc, char** argv) {
  // the generated engines run through the module pipeline (<sparseperm/pipeline.cuh>)
  sparseperm::cli::tool_context context{.modules = sparseperm::module_pipeline()};
  std::optional<sparseperm::cli::mpi_session> mpi;  // finalized after the error, if any, is reported
  return sparseperm::cli::run_tool(context, [&] {
    mpi.emplace();
    if (const sparseperm::process_group* ranks = mpi->group()) {
      context.ranks = ranks;
      context.host_rank = mpi->host_rank();
      context.host_ranks = mpi->host_ranks();
      context.abort_job = &sparseperm::cli::mpi_session::abort_job;
    }
    return dispatch(argc, argv, context);
  });
}
