// A main for the fuzz targets where libFuzzer is not available: every file named on the command line,
// or every file in a folder named there, goes through LLVMFuzzerTestOneInput once. CI builds the
// targets this way with any compiler, so the seed corpus runs everywhere; with clang, the same
// targets also run under libFuzzer with sanitizers for a bounded time (tests/fuzz/CMakeLists.txt).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> inputs;
  for (int k = 1; k < argc; ++k) {
    const std::filesystem::path path = argv[k];
    if (std::filesystem::is_directory(path)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(path)) {
        if (e.is_regular_file()) inputs.push_back(e.path());
      }
    } else {
      inputs.push_back(path);
    }
  }
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%zu inputs replayed\n", inputs.size());
  return inputs.empty() ? 1 : 0;
}
