/// \file
/// One run of the compiler for a backend: the schedules read from files
/// (`--schedule`), or built for a request set (compileSet), or the auto
/// policy's bands over a range of sizes (selectBands), each taken down the
/// road of compiler/Driver.h and guarded before a backend sees it.
#ifndef COLLC_COMPILER_RUN_H
#define COLLC_COMPILER_RUN_H

#include "compiler/AutoPolicy.h"
#include "compiler/Driver.h"
#include "ir/Machine.h"
#include "ir/Schedule.h"
#include "ir/Selection.h"
#include "ir/SizeBand.h"
#include "readers/RequestSet.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace collc {

/// What a run asks for. Exactly one of: ScheduleFiles not empty (read), or
/// Select (a selection for Set's one request over Range), or neither (build
/// every request of Set).
struct RunPlan {
  llvm::ArrayRef<std::string> ScheduleFiles;
  /// The requests to build (or the one to select for); unused when reading.
  const RequestSet *Set = nullptr;
  bool Select = false;
  /// Select: the sizes and the candidates the output can express.
  ByteBand Range{1, 1 << 20};
  ChooseOptions Choose;
  /// `--verify`: require contention-free schedules (auto prefers them).
  bool Verify = false;
  CompileOptions Compile;
};

/// What a run hands a backend.
struct RunResult {
  std::vector<Schedule> Schedules;
  /// Empty, or one per schedule: the band of sizes it serves when it was
  /// built for a size band (BackendInput::Bands).
  std::vector<std::optional<ByteBand>> Bands;
  std::optional<Selection> Sel;
};

/// Runs \p P on \p M (null: no machine, only for reading schedules). Every
/// schedule and selection returned has finite times on \p M.
llvm::Expected<RunResult> runPlan(const Machine *M, const RunPlan &P);

} // namespace collc

#endif
