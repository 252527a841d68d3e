// libFuzzer harness for the request reader (readers/Spec.h), fed every input
// as YAML and as JSON, against a crossbar, a mesh and a star graph (node
// numbers, coordinates and permutations).
#include "readers/Spec.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace collc;

namespace {

Machine machine(const char *Text) {
  auto M = parseMachine(llvm::MemoryBufferRef(Text, "machine.yaml"));
  if (!M) {
    llvm::errs() << llvm::toString(M.takeError()) << "\n";
    std::abort();
  }
  return *M;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const Machine Machines[] = {
      machine("name: crossbar\nmodel: {kind: linear, t_s: 40, per_byte: "
              "0.035}\n"),
      machine("name: mesh\nmodel: {kind: parameterized, t_hold: {base: 1, "
              "per_byte: 0.01}, t_end: {base: 2, per_byte: 0.02}}\nports: 2\n"
              "topology: {kind: mesh, dims: [4, 6]}\n"),
      machine("name: star\nmodel: {kind: unit-call}\ntopology: {kind: star, "
              "k: 4}\n"),
  };
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  RequestOverrides None;
  for (const char *Name : {"fuzz.yaml", "fuzz.json"}) {
    llvm::MemoryBufferRef Buf(Text, Name);
    for (const Machine &M : Machines) {
      auto R = parseRequest(&Buf, None, M);
      if (!R)
        llvm::consumeError(R.takeError());
    }
  }
  return 0;
}
