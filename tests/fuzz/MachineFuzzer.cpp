// libFuzzer harness for the machine readers (readers/Spec.h), fed every input
// as YAML, as JSON and as a SimGrid platform (XML, readers/PlatformSpec).
// Any crash, hang or sanitizer report is a bug: a bad spec must end in a
// diagnostic.
#include "readers/Spec.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  for (const char *Name : {"fuzz.yaml", "fuzz.json", "fuzz.xml"}) {
    auto M = collc::parseMachine(llvm::MemoryBufferRef(Text, Name));
    if (!M)
      llvm::consumeError(M.takeError());
  }
  return 0;
}
