/// \file
/// The arithmetic of Swing (De Sensi et al., NSDI'24, "Swing: Short-cutting
/// Rings for Higher Bandwidth Allreduce") and Bine trees (De Sensi et al.,
/// SC'25, "Bine Trees"): partners at negabinary distances
/// rho(s) = sum_{i<=s} (-2)^i = 1, -1, 3, -5, 11, ..., taken in alternating
/// directions so that they stay close on a ring, and the butterflies and
/// trees they make.
///
/// A butterfly over N = 2^L core indices is L steps of pairings; it serves an
/// allreduce when the reach sets R_s(c) (the cores whose data c gathers
/// through steps s .. L-1) double and stay disjoint. Its blocks are then laid
/// out so that every reach set is one range of blocks (butterflyBlocks), and
/// the reduce-scatter of step s sends the partner its next reach set's range.
#ifndef COLLC_ALGORITHMS_BUTTERFLY_H
#define COLLC_ALGORITHMS_BUTTERFLY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace collc {

/// rho(s) = sum_{i=0}^{s} (-2)^i: 1, -1, 3, -5, 11, -21, ...
int64_t swingRho(int S);

/// Swing's partner of \p C at step \p S on a ring of \p N:
/// C + rho(S) for even C, C - rho(S) for odd C, mod N.
int64_t swingPeer(int64_t C, int S, int64_t N);

/// L steps of pairings over N = 2^L core indices: Peer[s][c] is c's partner
/// at step s (an involution without fixed points).
struct Butterfly {
  int64_t N = 1;
  std::vector<std::vector<int64_t>> Peer;
  int steps() const { return static_cast<int>(Peer.size()); }
};

/// Swing's butterfly on a grid of extents \p Extents (each a power of two,
/// dimension 0 varying fastest in the core index): the steps of the
/// dimensions interleaved (dimension 0, 1, ..., then 0, 1, ... again while
/// a dimension has steps left), each dimension's s-th step pairing
/// coordinates by swingPeer(x, s, L_j) with the other coordinates kept, as
/// the paper does on tori. One extent: Swing on a ring of N.
Butterfly swingButterfly(llvm::ArrayRef<int64_t> Extents);

/// The block layout of a butterfly: Pos[c], the block core c ends with
/// after the reduce-scatter; Lo[s][c], the first block of R_s(c), the
/// 2^(L-s) blocks c is responsible for after steps 0 .. s-1.
struct ButterflyBlocks {
  std::vector<int64_t> Pos;
  std::vector<std::vector<int64_t>> Lo;
  /// The number of blocks of a reach set after step s (before step s + 1).
  int64_t span(int S, int Steps) const { return int64_t(1) << (Steps - S); }
};

/// The block layout of \p B; an error when \p B's reach sets do not double
/// and stay disjoint (it would not reduce every contribution once).
llvm::Expected<ButterflyBlocks> butterflyBlocks(const Butterfly &B);

/// The relative rank (0 .. P - 1, the root 0) of each node u = 0 .. P - 1
/// of a Bine tree over \p P ranks. The tree is binomial in u (u's parent is
/// u without its highest set bit, which it receives from at step
/// ceil(log2 P) - 1 - that bit's position, the highest bits last); u sits at
/// the value of the negabinary number whose Gray code is u's bits reversed,
/// so that parent and child are rho(k) apart (even senders forward, odd
/// ones backward). For P a power of two those values are P consecutive
/// integers; otherwise the P values taken keep their order and are closed
/// up (the i-th smallest at i minus the position of the root's).
std::vector<int32_t> bineTreeOffsets(int64_t P);

} // namespace collc

#endif
