/// \file
/// The pipeline, in plain order: build (or pick with `auto`), estimate cost,
/// verify. Backends run only on what this returns.
#ifndef COLLC_COMPILER_DRIVER_H
#define COLLC_COMPILER_DRIVER_H

#include "compiler/Request.h"
#include "ir/Machine.h"
#include "ir/Schedule.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace collc {

/// A failure that is collc's fault, not the user's (exit status 3): a
/// schedule that fails verification, an invariant that does not hold.
class InternalError : public llvm::ErrorInfo<InternalError> {
public:
  static char ID;
  explicit InternalError(std::string Msg) : Msg(std::move(Msg)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Msg; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  std::string Msg;
};

struct CompileOptions {
  /// Dump the IR (JSON) to Log after every pass.
  bool PrintAfterAll = false;
  /// Print the wall time of every pass to Log.
  bool TimePasses = false;
  /// Run the step-merging pass (passes/MergeSteps) after the build and note
  /// on Log how many steps it removed.
  bool MergeSteps = false;
  llvm::raw_ostream *Log = nullptr;
};

/// Builds the schedule \p R asks for on \p M, costs it and verifies it.
/// User errors (an algorithm that cannot run here) come back as plain
/// errors; a schedule that fails verification as an InternalError.
llvm::Expected<Schedule> compile(const Machine &M, const Request &R,
                                 const CompileOptions &Opts = {});

/// Builds and costs one named algorithm, without verification (for `auto`,
/// benchmarks and tests that inspect unverified schedules).
llvm::Expected<Schedule> buildAndCost(const Machine &M, const Request &R,
                                      llvm::StringRef Algorithm);

} // namespace collc

#endif
