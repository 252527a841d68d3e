/// \file
/// Block-exact data flow of an all-to-all, fast enough for 4096 ranks (16.7M
/// blocks, a few hundred million block-hops): the verifier's personalized
/// check for large complete exchanges (passes/Verify.cpp selects it).
///
/// The verifier's general path keeps, per rank, a hash map of every atom the
/// rank received. Here the state is dense and the work follows the pieces:
///  - per atom (origin, dest, chunk), in a flat array: the delivery that
///    brought it to the rank that received it last (its rank and time). Blocks
///    in complete-exchange schedules travel along chains (each hop forwards
///    what the previous hop delivered), so "the sender is the last receiver, or
///    the origin" settles almost every send in O(1), walking each piece's
///    rectangle row by row in memory order;
///  - per rank, the list of pieces it received (pointers into the schedule).
///    A send the chain test cannot settle (a rank forwarding a block it
///    passed on before) looks there, so the check stays exact for any
///    schedule;
///  - "no rank receives an atom twice" is checked per rank on rectangles: the
///    pieces a rank received, sorted, must be pairwise disjoint, and none may
///    contain the rank's own blocks. This is exact and costs O(n log n) in
///    pieces, not atoms.
/// The messages are the general path's, word for word.
#ifndef COLLC_PASSES_BLOCKFLOW_H
#define COLLC_PASSES_BLOCKFLOW_H

#include "ir/Schedule.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace collc {

class BlockFlow {
public:
  /// An all-to-all over \p Ranks ranks whose message is cut in \p Chunks.
  BlockFlow(int32_t Ranks, int64_t Chunks);

  /// Whether dense state for \p Ranks x \p Ranks x \p Chunks atoms fits the
  /// budget (4 bytes per atom, at most 2^26 atoms).
  static bool fits(int32_t Ranks, int64_t Chunks);

  /// Checks that \p T (in step \p StepIdx) sends only atoms its sender holds,
  /// and with \p Timing that it starts after they arrived. Appends at most one
  /// problem. Call for every transfer of a step before delivering any.
  void checkSend(size_t StepIdx, const Transfer &T, bool Timing,
                 std::vector<std::string> &Problems) const;
  /// Records the arrival of \p T's pieces at its receiver.
  void deliver(size_t StepIdx, const Transfer &T);
  /// After the last step: duplicate receives, then every block M[a][b] at b.
  void finish(size_t MaxProblems, std::vector<std::string> &Problems);

private:
  /// One delivered transfer.
  struct Rx {
    const Transfer *T;
    int32_t Dst;
    uint32_t Step;
    double End; ///< Arrival (0 without times).
  };
  /// A piece a rank received: which delivery, which piece.
  struct Received {
    uint32_t RxIdx;
    const Piece *Pc;
  };
  static constexpr uint32_t None = ~uint32_t(0);
  uint64_t atom(int64_t Origin, int64_t Dest, int64_t Chunk) const {
    return (static_cast<uint64_t>(Origin) * P + Dest) * K + Chunk;
  }
  /// Arrival time of the atom at rank R, or NaN when R does not hold it.
  double heldSince(int32_t R, int64_t Origin, int64_t Dest,
                   int64_t Chunk) const;
  std::string atomName(int64_t Or, int64_t De, int64_t C) const;

  const int32_t P;
  const int64_t K;
  /// Per atom: the delivery that brought it to its last receiver (None:
  /// only the origin holds it). 4 bytes per atom.
  std::vector<uint32_t> Last;
  std::vector<Rx> Deliveries;
  std::vector<std::vector<Received>> Log;
};

} // namespace collc

#endif
