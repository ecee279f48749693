// sparseperm-gen: a Matrix Market file → a header of types for the generated kernels.
//
//   sparseperm-gen FILE.mtx [--name NAME] -o HEADER
//
// Exit codes as for sparseperm: 0 success, 2 bad input or usage (one line on stderr), 1 internal.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <sparseperm/matrix/matrix_market.cuh>
#include <sparseperm/module/codegen.cuh>

#include "../sparseperm/arguments.hpp"
#include "../sparseperm/tool.hpp"

namespace {

const char* help =
    "usage: sparseperm-gen FILE.mtx [--name NAME] -o HEADER\n"
    "\n"
    "Writes a header that describes the matrix of FILE as types: namespace\n"
    "sparseperm::generated::NAME holds `struct matrix` with its pattern (column packs of row indices\n"
    "and exact hexadecimal values). NAME defaults to the file's stem made into a C++ identifier.\n"
    "Include the header after <sparseperm/perm.cuh> and call\n"
    "sparseperm::permanent<sparseperm::generated::NAME::matrix>(options) from CUDA code.\n"
    "HEADER '-' writes to standard output.\n";

int run(int argc, char** argv) {
  using namespace sparseperm;
  const cli::arguments args(argc, argv, 1, {"help"}, {"name", "output"});
  if (args.flag("help")) {
    std::fputs(help, stdout);
    return 0;
  }
  if (args.positionals().size() != 1)
    throw cli::usage_error("sparseperm-gen needs exactly one FILE (see 'sparseperm-gen --help')");
  if (!args.value("output")) throw cli::usage_error("sparseperm-gen needs -o HEADER (see 'sparseperm-gen --help')");
  const std::string path = args.positionals()[0];
  const matrix_market_file file = read_matrix_market(path);
  const std::string source = std::filesystem::path(path).filename().string();
  const std::string name = args.value("name").value_or(std::filesystem::path(path).stem().string());
  if (const auto given = args.value("name"); given && c_identifier(*given) != *given) {
    throw cli::usage_error("option '--name': '" + *given + "' is not a C++ identifier");
  }
  const std::string header = generate_matrix_header(file.matrix, name, source);
  const std::string output = *args.value("output");
  if (output == "-") {
    std::fputs(header.c_str(), stdout);
    return 0;
  }
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  out << header;
  out.close();
  if (!out) throw input_error(output, 0, "cannot write");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  sparseperm::cli::tool_context context;
  return sparseperm::cli::run_tool(context, [&] { return run(argc, argv); });
}
