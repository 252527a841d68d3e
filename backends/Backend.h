/// \file
/// The backend registry: every output kind of `--emit`, what it takes, what
/// it needs of the machine, and how it turns its input into files. The
/// driver looks a backend up by name, checks its needs before doing any
/// work, and writes what it returns through writeOutputs (backends/Output.h),
/// so that no output kind is special-cased anywhere else.
#ifndef COLLC_BACKENDS_BACKEND_H
#define COLLC_BACKENDS_BACKEND_H

#include "backends/Mpi.h"
#include "backends/Output.h"
#include "ir/Machine.h"
#include "ir/Request.h"
#include "ir/Schedule.h"
#include "ir/Selection.h"
#include "ir/SizeBand.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace collc {

/// What a backend turns into output.
enum class BackendTakes {
  Schedule,  ///< One verified schedule.
  Schedules, ///< One or more verified schedules (MPI code serves several).
  Selection, ///< The auto policy's choice per size band (compiler/Select).
};

/// What a backend needs of the machine, checked before any work is done.
enum class BackendNeeds {
  Nothing,   ///< Works without a machine (a --schedule read alone).
  Machine,   ///< A machine spec.
  Simulator, ///< A machine the wormhole simulator can run (checkSimulatable).
  StarGraph, ///< A star or macro-star graph small enough to draw.
};

/// Options of the backends that have any.
struct BackendOptions {
  /// -o: where the output goes ("" or "-": standard output). A backend that
  /// writes several files derives their names from it.
  std::string OutputPath;
  /// MPI backends (see backends/Mpi.h).
  std::optional<std::string> MpiName; ///< None: defaultMpiName.
  bool MpiFallback = false;
  MpiSizes Sizes = MpiSizes::Exact;
  /// The command line, recorded in generated code.
  std::string Command;
  /// A backend that writes one stream and cannot fail leaves its text to be
  /// written straight to the output (OutputFile::Write) instead of holding
  /// it: the driver sets it; the schedule and machine it was given must
  /// then live until writeOutputs.
  bool Streamed = false;
};

/// What a backend is given.
struct BackendInput {
  /// The machine; for a schedule read without --machine, unknownMachine()
  /// (backends that need a machine are refused earlier, checkNeeds).
  const Machine &M;
  llvm::ArrayRef<Schedule> Schedules;
  const Selection *Sel = nullptr;
  /// Empty, or one entry per schedule: the message sizes (bytes per block)
  /// that schedule serves, when collc built it for a size band
  /// (`--bytes-range`). MPI backends serve exactly those sizes with it (not
  /// --mpi-sizes' bands); no value: as --mpi-sizes says.
  llvm::ArrayRef<std::optional<ByteBand>> Bands;
};

struct Backend {
  const char *Name;
  const char *Summary;
  BackendTakes Takes;
  BackendNeeds Needs;
  /// The files to write (one, named OutputPath, for most backends). An
  /// error is bad input, or a CheckFailure (ir/Diagnostic.h) when a check
  /// the output stands on fails (a simulation that deadlocks).
  llvm::Expected<std::vector<OutputFile>> (*Emit)(const Backend &Self,
                                                  const BackendInput &,
                                                  const BackendOptions &);
  /// Selection backends: the algorithms they can express (nullptr: all) and
  /// that restriction in words ("that Open MPI also has").
  bool (*CanExpress)(Collective, llvm::StringRef Algorithm) = nullptr;
  const char *CanExpressText = "";
  /// Checked before any work: whether the backend can emit for a request of
  /// this collective at all (nullptr: it can).
  llvm::Error (*CheckCollective)(Collective) = nullptr;
};

/// Every backend, in the order `--help` lists them.
llvm::ArrayRef<Backend> backends();
/// The backend called \p Name, or nullptr.
const Backend *findBackend(llvm::StringRef Name);
/// "summary, json, ...": the names, for --help and diagnostics.
std::string backendNames();
/// "a, b or c" (\p Last = " or "): the names of the backends that take
/// \p T.
std::string backendNames(BackendTakes T, const char *Last);

/// Checks the options that do not depend on the input (before any work):
/// --mpi-name must be a C identifier suffix.
llvm::Error checkOptions(const BackendOptions &O);
/// `--mpi-sizes exact|any`.
llvm::Expected<MpiSizes> parseMpiSizes(llvm::StringRef Text);

/// Whether \p B can work on \p M (null: no machine was given); the error
/// names the backend and says what it needs.
llvm::Error checkNeeds(const Backend &B, const Machine *M);

} // namespace collc

#endif
