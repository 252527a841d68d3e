/// \file
/// The MPI backend: C++ that runs schedules under any MPI library.
///
/// `--emit mpi` writes one self-contained source file that includes
/// runtime/collc/runtime.h and defines, for every collective among its
/// schedules, an `extern "C"` function with MPI's own signature:
///
///   int collc_bcast_<name>(void *buf, int count, MPI_Datatype type, int root,
///                          MPI_Comm comm);
///   int collc_reduce_<name>(const void *sendbuf, void *recvbuf, int count,
///                           MPI_Datatype type, MPI_Op op, int root, MPI_Comm
///                           comm);
///   ... (allreduce, scan, exscan, gather, scatter, allgather, alltoall,
///        barrier: see docs/mpi.md)
///
/// Each schedule becomes a *variant*: tables of per-rank operations (step,
/// peer, send/receive, copy/combine/signal, byte ranges of the user's
/// buffers derived from the schedule's pieces; backends/MpiTables.h builds
/// them), served to calls whose communicator size, root and message size
/// match it. `--emit mpi-header`
/// writes the declarations; `--emit mpi-preload` adds PMPI interposers
/// (MPI_Bcast, ...) that call the schedules and PMPI_* for anything else.
#ifndef COLLC_BACKENDS_MPI_H
#define COLLC_BACKENDS_MPI_H

#include "ir/Schedule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// A schedule and the band of message sizes (bytes per block, as the
/// runtime counts them) it serves.
struct MpiVariant {
  const Schedule *S = nullptr;
  uint64_t MinBytes = 0, MaxBytes = 0;
  /// A reduction whose fold order needs a commutative operator. Calls with
  /// a non-commutative one go to a variant that folds in rank order.
  bool NeedsCommutative = false;
};

enum class MpiSizes {
  Exact, ///< A variant serves exactly the size it was built for.
  Any,   ///< Every size: the variant built for the nearest size (log scale).
};

struct MpiOptions {
  /// Suffix of the entry points: collc_<collective>_<Name>.
  std::string Name;
  /// When no variant fits a call (an intercommunicator, communicator size,
  /// root, size, a non-commutative operator, a reduction on a non-contiguous
  /// datatype), call the MPI library's collective instead of raising an
  /// error through the communicator's error handler.
  bool Fallback = false;
  /// Emit PMPI interposers (implies Fallback, through PMPI_*).
  bool Preload = false;
  /// Command line to record in the file's header comment.
  std::string Command;
  /// The machine's largest message (its network's `protocol: {max_piece}`),
  /// 0 for none: the entry points send longer messages in pieces of at most
  /// this many bytes, as the drop-in does (COLLC_MAX_PIECE overrides it).
  uint64_t MaxPiece = 0;
};

/// A C identifier derived from the machine and algorithm of \p S
/// ("ibm_sp_opt_tree").
std::string defaultMpiName(const Schedule &S);

/// Whether \p Name can be a suffix of a C identifier.
bool isValidMpiName(llvm::StringRef Name);

/// Pairs schedules with size bands. With MpiSizes::Any, schedules of the same
/// collective, size and root share the size axis: each serves the sizes
/// closer (on a log scale) to its own than to its neighbours'; reductions
/// that need a commutative operator and those that fold in rank order are
/// banded apart. Two schedules for the same collective, size, root, bytes
/// (and, for reductions, operator order) are an error.
llvm::Expected<std::vector<MpiVariant>>
mpiSizeBands(llvm::ArrayRef<Schedule> Schedules, MpiSizes Sizes);

/// `--emit mpi` (and `mpi-preload` with Options.Preload).
llvm::Error emitMpi(llvm::raw_ostream &OS, llvm::ArrayRef<MpiVariant> Variants,
                    const MpiOptions &Options);

/// `--emit mpi-header`: the declarations of the entry points emitMpi defines
/// for \p Variants.
void emitMpiHeader(llvm::raw_ostream &OS, llvm::ArrayRef<MpiVariant> Variants,
                   const MpiOptions &Options);

} // namespace collc

#endif
