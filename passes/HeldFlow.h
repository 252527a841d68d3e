/// \file
/// Which (origin, chunk) atoms of replicated data (broadcast, multicast,
/// allgather) each rank holds and since when, kept as runs: per rank, runs
/// of origins that hold the same chunks, each a run map over chunks
/// (passes/RunMap.h). The verifier follows replicated data with it
/// (passes/Verify.h), so that its work grows with the pieces the transfers
/// carry, not with ranks x origins x chunks: a ring allgather on 65,536 ranks
/// keeps one or two runs per rank. Data of one chunk (an allgather of a few
/// bytes) or of one origin (a broadcast) needs one axis only: there each
/// rank's runs are one B+ tree of arrival times (llvm::IntervalMap), the
/// atoms it does not hold left out, instead of a map of maps.
#ifndef COLLC_PASSES_HELDFLOW_H
#define COLLC_PASSES_HELDFLOW_H

#include "ir/Interval.h"
#include "passes/RunMap.h"

#include "llvm/ADT/IntervalMap.h"

#include <algorithm>
#include <cstdint>
#include <deque>
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
    if (Along == Axis::Both)
      return State[R].visit(Origins, [&](Interval Os, const ChunkMap &Cs) {
        return Cs.visit(Chunks, [&](Interval Part, const Arrival &A) {
          return Fn(Os, Part, A);
        });
      });
    // As the runs above clip them.
    Origins = {std::max<int64_t>(Origins.Lo, 0),
               std::min<int64_t>(Origins.Hi, P)};
    Chunks = {std::max<int64_t>(Chunks.Lo, 0), std::min(Chunks.Hi, K)};
    if (Origins.empty() || Chunks.empty())
      return true;
    if (Along == Axis::Origins)
      return visitFlat(R, Origins, [&](Interval Os, const Arrival &A) {
        return Fn(Os, Chunks, A);
      });
    // One origin: the others' data does not exist, no rank holds it.
    const Interval Before{Origins.Lo, std::min(Origins.Hi, Source)},
        After{std::max(Origins.Lo, Source + 1), Origins.Hi};
    if (!Before.empty() && !Fn(Before, Chunks, Arrival{}))
      return false;
    if (Origins.contains(Source) &&
        !visitFlat(R, Chunks, [&](Interval Cs, const Arrival &A) {
          return Fn(Interval{Source, Source + 1}, Cs, A);
        }))
      return false;
    return After.empty() || Fn(After, Chunks, Arrival{});
  }

  /// Whether rank \p R is known to hold every atom of \p Origins x \p Chunks
  /// (clipped to the data space, not empty), in O(log runs): under one axis,
  /// from the runs of what it holds whatever the time; false otherwise (the
  /// caller then visits them). \p Latest is then set to the latest arrival of
  /// anything \p R holds, no earlier than theirs.
  bool holdsAll(int32_t R, Interval Origins, Interval Chunks,
                double &Latest) const;

  /// Rank \p R holds the atoms of \p Origins x \p Chunks from \p Since on.
  /// With one source (Sources of one rank), only its data exists: atoms of
  /// other origins are not delivered.
  void deliver(int32_t R, Interval Origins, Interval Chunks, double Since);

  /// Runs (over all ranks) of origins, or of chunks when every rank's state
  /// is kept along the chunks (one source): a measure of the state's size.
  size_t runs() const;

private:
  /// Along which axes each rank's state is kept: origins x chunks as a run
  /// map of run maps, or one axis alone when the data has one chunk
  /// (Origins) or one origin (Chunks).
  enum class Axis { Both, Origins, Chunks };
  /// Arrival times of the atoms a rank holds along one axis, half-open runs
  /// (equal neighbours merged); the atoms it does not hold are left out.
  using FlatMap = llvm::IntervalMap<int64_t, double, 8,
                                    llvm::IntervalMapHalfOpenInfo<int64_t>>;

  /// Calls \p Fn(Interval, const Arrival &) for the runs of rank \p R's
  /// flat state inside \p I (within the axis), held or not, in increasing
  /// order, while it returns true.
  template <typename F> bool visitFlat(int32_t R, Interval I, F &&Fn) const {
    int64_t At = I.Lo;
    for (auto It = Flat[R].find(I.Lo); It.valid() && It.start() < I.Hi; ++It) {
      const int64_t Lo = std::max(It.start(), At);
      if (At < Lo && !Fn(Interval{At, Lo}, Arrival{}))
        return false;
      At = std::min(It.stop(), I.Hi);
      if (!Fn(Interval{Lo, At}, Arrival{true, It.value()}))
        return false;
    }
    return At >= I.Hi || Fn(Interval{At, I.Hi}, Arrival{});
  }

  int64_t P, K;
  Axis Along;
  /// The one origin under Axis::Chunks.
  int64_t Source = 0;
  /// Per rank: origin -> the chunks of that origin the rank holds
  /// (Axis::Both).
  std::vector<RunMap<ChunkMap>> State;
  /// Per rank along one axis; the maps' nodes come from Nodes (declared
  /// first: the maps return their nodes to it when destroyed).
  FlatMap::Allocator Nodes;
  std::deque<FlatMap> Flat;
  /// Per rank under one axis: the atoms it holds, whatever their times (all
  /// mapped to 0, so that neighbours merge), and the latest arrival among
  /// them (-inf: none).
  std::deque<FlatMap> Covered;
  std::vector<double> Latest;
};

} // namespace collc

#endif
