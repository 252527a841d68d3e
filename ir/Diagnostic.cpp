#include "ir/Diagnostic.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

namespace collc {

char LocatedError::ID = 0;
char CheckFailure::ID = 0;
char InternalError::ID = 0;

bool parseToolOptions(int Argc, const char *const *Argv, llvm::StringRef Tool,
                      llvm::StringRef Overview) {
  std::string Errors;
  llvm::raw_string_ostream ErrOS(Errors);
  if (llvm::cl::ParseCommandLineOptions(Argc, Argv, Overview, &ErrOS))
    return true;
  ErrOS.flush();
  const std::string Prefix = (Tool + ": ").str();
  llvm::SmallVector<llvm::StringRef, 4> Lines;
  llvm::StringRef(Errors).split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines) {
    L = L.split("  Try: ").first.rtrim();
    if (L.consume_front(Prefix + "Did you mean"))
      llvm::errs() << Prefix << "note: did you mean" << L << "\n";
    else if (L.consume_front(Prefix))
      llvm::errs() << Prefix << "error: " << L << "\n";
    else
      llvm::errs() << L << "\n";
  }
  return false;
}

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
