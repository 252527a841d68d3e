#include "ir/Diagnostic.h"

#include "llvm/Support/WithColor.h"

namespace collc {

char LocatedError::ID = 0;
char CheckFailure::ID = 0;
char InternalError::ID = 0;

int reportError(llvm::raw_ostream &OS, llvm::StringRef Tool, llvm::Error E) {
  int Status = ExitOk;
  auto Worst = [&](int S) { Status = std::max(Status, S); };
  llvm::handleAllErrors(
      std::move(E),
      [&](const LocatedError &L) {
        OS << L.message() << "\n";
        Worst(ExitBadInput);
      },
      [&](const CheckFailure &C) {
        llvm::WithColor::error(OS, Tool) << C.message() << "\n";
        Worst(ExitCheckFailed);
      },
      [&](const InternalError &I) {
        llvm::WithColor::error(OS, Tool)
            << "internal error: " << I.message() << "\n";
        Worst(ExitInternal);
      },
      [&](const llvm::ErrorInfoBase &Other) {
        llvm::WithColor::error(OS, Tool) << Other.message() << "\n";
        Worst(ExitBadInput);
      });
  return Status;
}

} // namespace collc
