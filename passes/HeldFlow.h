/// \file
/// Which (origin, chunk) atoms of replicated data (broadcast, multicast,
/// allgather) each rank holds and since when, kept as runs: per rank, runs
/// of origins that hold the same chunks, each a run map over chunks
/// (passes/RunMap.h). The verifier follows replicated data with it
/// (passes/Verify.h), so that its work grows with the pieces the transfers
/// carry, not with ranks x origins x chunks: a ring allgather on 65,536 ranks
/// keeps one or two runs per rank.
#ifndef COLLC_PASSES_HELDFLOW_H
#define COLLC_PASSES_HELDFLOW_H

#include "ir/Interval.h"
#include "passes/RunMap.h"

#include <cstdint>
#include <vector>

namespace collc {

/// Whether a rank holds an atom, and since when.
struct Arrival {
  bool Held = false;
  double Since = 0; ///< Meaningful only when Held.
  bool operator==(const Arrival &O) const {
    return Held == O.Held && (!Held || Since == O.Since);
  }
};

class HeldFlow {
public:
  /// Chunks of one origin a rank holds.
  using ChunkMap = RunMap<Arrival>;

  /// \p Ranks ranks, data of \p Ranks origins cut in \p Chunks chunks; rank r
  /// holds every chunk of origin r from time 0 when r lies in \p Sources
  /// (the origins whose data exists: all ranks, or the root).
  HeldFlow(int32_t Ranks, int64_t Chunks, Interval Sources);

  /// Calls \p Fn(Interval Origins, Interval Chunks, const Arrival &) for the
  /// atoms of \p Origins x \p Chunks that rank \p R holds alike, origin-major
  /// in increasing order (the order in which a loop over origins, then
  /// chunks, meets them), while it returns true. Returns false when \p Fn
  /// stopped the visit.
  template <typename F>
  bool visit(int32_t R, Interval Origins, Interval Chunks, F &&Fn) const {
    return State[R].visit(Origins, [&](Interval Os, const ChunkMap &Cs) {
      return Cs.visit(Chunks, [&](Interval Part, const Arrival &A) {
        return Fn(Os, Part, A);
      });
    });
  }

  /// Rank \p R holds the atoms of \p Origins x \p Chunks from \p Since on.
  void deliver(int32_t R, Interval Origins, Interval Chunks, double Since);

  /// Runs of origins (over all ranks): a measure of the state's size.
  size_t runs() const;

private:
  int64_t K;
  /// Per rank: origin -> the chunks of that origin the rank holds.
  std::vector<RunMap<ChunkMap>> State;
};

} // namespace collc

#endif
