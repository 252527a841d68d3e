/// \file
/// The Reducer: how reduction builders list their transfers. It follows the
/// values as the reduction flow does (passes/ReductionFlow.h), so that every
/// transfer's pieces say exactly which contributors it carries.
#ifndef COLLC_ALGORITHMS_REDUCER_H
#define COLLC_ALGORITHMS_REDUCER_H

#include "ir/Schedule.h"
#include "passes/ReductionFlow.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace collc {

/// Lists a reduction's transfers with pieces that say exactly which
/// contributors each carries, following the values as the reduction flow
/// does (passes/ReductionFlow.h). Transfers listed between begin() and end()
/// of a batch read the values before the batch (an exchange in one step).
class Reducer {
public:
  explicit Reducer(Schedule &S) : S(S), P(S.size()), Flow(S) {}

  /// Opens a batch: the transfers sent until end() read the values as they
  /// were before the batch.
  void begin() {
    Batching = true;
    ++Batch;
  }
  /// Closes the batch and applies its transfers in order.
  void end() {
    Batching = false;
    follow(Pending);
    Pending.clear();
  }

  /// Chunks [C0, C1) of value \p From of \p Src go to \p Dst's values \p Into.
  void send(int32_t Src, int32_t Dst, int64_t C0, int64_t C1,
            TransferKind Kind = TransferKind::Combine, uint8_t From = 0,
            uint8_t Into = 1, int64_t Tag = -1) {
    Transfer T;
    T.Src = Src;
    T.Dst = Dst;
    T.Kind = Kind;
    T.From = From;
    T.Into = Into;
    T.Bytes = S.chunkBytes({C0, C1});
    // The sender's value as runs of chunks that hold the same contributors
    // (adjacent runs differ): one piece per run and contributor range, so
    // that the work grows with the pieces, not with the chunks.
    // Gathered apart and then given one allocation of their size (a list
    // grown piece by piece keeps up to twice the room: the latency-form
    // swing's hundreds of contributor ranges per transfer at 65,536 ranks).
    Gathered.clear();
    Flow.runs(From, Src).visit({C0, C1},
                               [&](Interval Run, const IntervalSet &Set) {
                                 for (const Interval &I : Set)
                                   Gathered.push_back({I, {0, P}, Run});
                                 return true;
                               });
    assignPieces(T.Pieces, Gathered);
    if (Ts.size() == Ts.capacity()) {
      // Grown by moving: a Transfer's move may throw (its PieceList's), so
      // the vector's own growth would copy every piece list and hold all
      // pieces twice at its peak.
      std::vector<Transfer> Bigger;
      Bigger.reserve(std::max<size_t>(16, 2 * Ts.capacity()));
      for (Transfer &X : Ts)
        Bigger.push_back(std::move(X));
      Ts.swap(Bigger);
    }
    Ts.push_back(std::move(T));
    Tags.push_back(Tag);
    Groups.push_back(Batching ? Batch : -1);
    if (Batching) {
      Pending.push_back(Ts.size() - 1);
    } else {
      const Transfer *One = &Ts.back();
      Flow.step(One);
    }
  }

  /// The transfers listed, in order, and the tag each was sent with.
  std::vector<Transfer> Ts;
  std::vector<int64_t> Tags;
  /// Batch of each transfer (-1 outside batches), for orderedRounds.
  std::vector<int64_t> Groups;

private:
  /// Transfers Ts[I], I in \p Batch, read the values, then update them.
  void follow(const std::vector<size_t> &Batch) {
    std::vector<const Transfer *> Step;
    for (size_t I : Batch)
      Step.push_back(&Ts[I]);
    Flow.step(Step);
  }

  Schedule &S;
  int32_t P;
  ReductionFlow Flow;
  bool Batching = false;
  int64_t Batch = -1;
  std::vector<size_t> Pending;
  /// send()'s pieces before they are given their list.
  std::vector<Piece> Gathered;
};

} // namespace collc

#endif
