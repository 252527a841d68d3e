// libFuzzer harness for the machine spec reader (compiler/Spec), fed every
// input both as YAML and as JSON. Any crash, hang or sanitizer report is a
// bug: a bad spec must end in a diagnostic.
#include "compiler/Spec.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  for (const char *Name : {"fuzz.yaml", "fuzz.json"}) {
    auto M = collc::parseMachine(llvm::MemoryBufferRef(Text, Name));
    if (!M)
      llvm::consumeError(M.takeError());
  }
  return 0;
}
