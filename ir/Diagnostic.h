/// \file
/// The kinds of failure collc's libraries return, so that a tool prints each
/// one the right way and picks its exit status without reading the text:
///
///   - a plain error (llvm::createStringError): bad input or usage. Its text
///     says what was wrong and carries no prefix; the tool adds
///     "<tool>: error: ". Exit status 1.
///   - LocatedError: a diagnostic that already names its place,
///     "file:line:col: error: ..." (usually followed by the source line and
///     a caret). Printed as it is. Exit status 1.
///   - CheckFailure: a check the user asked for failed (contention under
///     `--verify`, a simulation that deadlocks). Exit status 2.
///   - InternalError: collc's own fault, not the user's (a built schedule
///     that fails verification). Exit status 3.
#ifndef COLLC_IR_DIAGNOSTIC_H
#define COLLC_IR_DIAGNOSTIC_H

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace collc {

/// Exit statuses of every collc tool.
enum ExitStatus {
  ExitOk = 0,
  ExitBadInput = 1,
  ExitCheckFailed = 2,
  ExitInternal = 3
};

/// An error that is its text; the kinds below differ only in their class.
template <typename Kind> class TextError : public llvm::ErrorInfo<Kind> {
public:
  explicit TextError(std::string Text) : Text(std::move(Text)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Text; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  std::string Text;
};

/// A whole diagnostic with its own location.
class LocatedError : public TextError<LocatedError> {
public:
  static char ID;
  using TextError::TextError;
};

/// A requested check that failed; the text says what the check found.
class CheckFailure : public TextError<CheckFailure> {
public:
  static char ID;
  using TextError::TextError;
};

/// A failure that is collc's fault: a schedule that fails verification, an
/// invariant that does not hold.
class InternalError : public TextError<InternalError> {
public:
  static char ID;
  using TextError::TextError;
};

/// A plain (unlocated) error with a printf-style message.
template <typename... Ts>
llvm::Error error(const char *Fmt, const Ts &...Vals) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Fmt, Vals...);
}
inline llvm::Error error(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// Parses the command line with llvm::cl and, when it fails, restates
/// llvm::cl's messages in the tools' diagnostic form ("<Tool>: error: ...",
/// "<Tool>: note: did you mean ..."). Returns whether parsing succeeded; a
/// tool exits with ExitBadInput otherwise.
bool parseToolOptions(int Argc, const char *const *Argv, llvm::StringRef Tool,
                      llvm::StringRef Overview);

/// Prints \p E on \p OS the way its kind asks ("<Tool>: error: " before a
/// plain message, "internal error: " after it for an InternalError) and
/// returns the exit status that goes with it.
int reportError(llvm::raw_ostream &OS, llvm::StringRef Tool, llvm::Error E);

} // namespace collc

#endif
