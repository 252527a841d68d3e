#include "ir/OutOfMemory.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <new>

namespace collc {

int runReportingOutOfMemory(const char *Tool, int (*Run)(int, char **),
                            int argc, char **argv, int Status) {
  // LLVM's containers report failed allocations through this handler; turn
  // them into the same exception as operator new's.
  llvm::install_bad_alloc_error_handler(
      [](void *, const char *, bool) { throw std::bad_alloc(); });
  try {
    return Run(argc, argv);
  } catch (const std::bad_alloc &) {
    llvm::errs() << Tool
                 << ": error: out of memory: the input needs more memory than "
                    "is available; nothing was written\n";
    return Status;
  }
}

} // namespace collc
