/// \file
/// Algorithm selection by message size: for a machine, a collective and a
/// process count, the cheapest algorithm under the model in each band of
/// message sizes (`--emit select`), and the same decision as an Open MPI
/// coll/tuned dynamic rules file (`--emit ompi-rules`).
#ifndef COLLC_COMPILER_SELECT_H
#define COLLC_COMPILER_SELECT_H

#include "compiler/Request.h"
#include "ir/Machine.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace collc {

/// Sizes [Lo, Hi] (bytes, inclusive) in which one algorithm is cheapest.
struct SizeBand {
  uint64_t Lo = 0, Hi = 0;
  std::string Algorithm;
  int64_t SegmentsAtLo = 1, SegmentsAtHi = 1;
  double TimeAtLo = 0, TimeAtHi = 0;
};

/// Parses `--bytes-range LO:HI` (0 <= LO <= HI <= MaxBytes).
llvm::Expected<std::pair<uint64_t, uint64_t>>
parseBytesRange(llvm::StringRef Text);

/// The cheapest algorithm per size band over [Lo, Hi] for \p Base (its
/// collective, ranks, root, operator; its bytes are ignored). Sizes are
/// sampled at Lo, Hi and every power of two between, and each change of
/// winner is located exactly by bisection. With \p OmpiOnly, only algorithms
/// that Open MPI's coll/tuned also has are candidates.
llvm::Expected<std::vector<SizeBand>> selectBands(const Machine &M,
                                                  const Request &Base,
                                                  uint64_t Lo, uint64_t Hi,
                                                  bool OmpiOnly = false);

/// Open MPI 4.1 coll/tuned: the collective's id in a rules file and the
/// algorithm number matching a collc algorithm (0 when it has none).
int ompiCollectiveId(Collective C);
int ompiAlgorithm(Collective C, llvm::StringRef Algorithm);

/// A table: one line per band.
void emitSelect(llvm::raw_ostream &OS, const Machine &M, const Request &Base,
                const std::vector<SizeBand> &Bands);
/// A coll/tuned dynamic rules file (format version 1, read by Open MPI 4.x
/// and 5.x) with one rule per band; comments name collc's choice.
llvm::Error emitOmpiRules(llvm::raw_ostream &OS, const Machine &M,
                          const Request &Base,
                          const std::vector<SizeBand> &Bands);

} // namespace collc

#endif
