/// \file
/// Complete exchange (all-to-all personalized) on wormhole 2D tori (paper 004).
///
///  - `sem`: split, exchange, merge. Stage 1 (2 steps) gathers each 2x2 basic
///    cell's blocks at its two diagonal masters, (2p,2q) for destinations in
///    even rows and (2p+1,2q+1) for odd rows; stage 2 is a complete exchange
///    among the masters of each parity, an (N/2)x(N/2) torus whose neighbours
///    are two hops apart (phases 1-2: N/8-1 steps each of 8-hop moves, the
///    direction chosen by (p+q) mod 4; phase 3: two 4-hop steps; phase 4: two
///    2-hop steps); stage 3 (1 step) hands every slave its blocks. Indirect:
///    masters hold, rearrange and forward blocks; every transfer lists the
///    blocks M[a][b] it carries as pieces (origins a x destinations b).
///  - `torus-direct`: every ordered pair exchanges its block directly, offset
///    by offset, each offset split into as many sub-steps as make its worms
///    channel-disjoint.
///  - `torus-row-column`: store-and-forward along rows, then along columns,
///    one hop per step (2(N-1) steps).
///
/// All three need a 2D N x N torus with every node taking part, rank = node
/// number (row-major, coordinates written (row, col)). docs/sem.md derives the
/// block routing and walks through the 16x16 example of the paper.
#ifndef COLLC_ALGORITHMS_TORUSALLTOALL_H
#define COLLC_ALGORITHMS_TORUSALLTOALL_H

#include "algorithms/Builder.h"

#include <string>
#include <vector>

namespace collc {

/// Whether the torus alltoall builders apply: a square 2D torus, all nodes
/// taking part, rank = node. `sem` additionally needs N = 2, 4 or a multiple
/// of 4 (see semApplies).
AppliesTest torusAlltoallApplies;
AppliesTest semApplies;
/// torusAlltoallApplies, and the blocks' hops within what the verifier
/// follows: store and forward moves N^4 (N - 1) blocks in all (about 2^30 on
/// a 64 x 64 torus, over VerifyLimits::MaxMoved).
AppliesTest torusRowColumnApplies;

PlainBuilder buildSem;
PlainBuilder buildTorusDirect;
PlainBuilder buildTorusRowColumn;

/// Where each of SEM's steps belongs, for the paper's counts: stage 1..3 and,
/// in stage 2, phase 1..4 (0 outside stage 2).
struct SemStepInfo {
  int Stage = 0;
  int Phase = 0;
};

/// The stage and phase of every step of the SEM schedule for an N x N torus
/// (the same list buildSem follows).
std::vector<SemStepInfo> semStepPlan(int64_t N);

} // namespace collc

#endif
