//===- Replay.cpp - a fuzz harness over saved inputs, without libFuzzer ---===//
//
// Links with one harness of tests/fuzz (its LLVMFuzzerTestOneInput) into a
// program that feeds it every file named on the command line, or every file
// of a directory named there, once: the corpus replayed by the default test
// suite's compiler, where fuzzing itself (clang, sanitizers, new inputs) is
// scripts/fuzz's. A harness that crashes or aborts fails the replay; the
// file being read is printed first.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size);

int main(int Argc, char **Argv) {
  std::vector<std::filesystem::path> Files;
  for (int I = 1; I < Argc; ++I) {
    std::error_code Err;
    if (std::filesystem::is_directory(Argv[I], Err)) {
      for (const auto &E : std::filesystem::directory_iterator(Argv[I]))
        if (E.is_regular_file())
          Files.push_back(E.path());
    } else {
      Files.push_back(Argv[I]);
    }
  }
  if (Files.empty()) {
    std::fprintf(stderr, "replay: expected input files or directories\n");
    return 1;
  }
  for (const std::filesystem::path &F : Files) {
    std::ifstream In(F, std::ios::binary);
    if (!In) {
      std::fprintf(stderr, "replay: cannot read %s\n", F.c_str());
      return 1;
    }
    std::string Bytes((std::istreambuf_iterator<char>(In)),
                      std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay: %s\n", F.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(Bytes.data()),
                           Bytes.size());
  }
  std::printf("replayed %zu inputs\n", Files.size());
  return 0;
}
