/// \file
/// Two allgathers of the MPI libraries that beat collc's candidates on some
/// drawn platforms of the random arena (docs/network.md): Open MPI's
/// neighbor exchange (Chen et al.) and recursive doubling from the farthest
/// partner (SMPI's rhv without its first exchange). Each written for the
/// process counts where its pattern exists: an even count, a power of two.
#ifndef COLLC_ALGORITHMS_LIBRARYALLGATHER_H
#define COLLC_ALGORITHMS_LIBRARYALLGATHER_H

#include "algorithms/Builder.h"

namespace collc {

/// `neighbor-exchange` for an even P: P / 2 steps. Ranks pair off (2k,
/// 2k + 1) and exchange their blocks; then every step each rank exchanges
/// with its other neighbour, alternately, the two blocks of the pair it
/// received last (an even rank's neighbours are r + 1 and r - 1, an odd
/// rank's r - 1 and r + 1), so every message carries two blocks and goes
/// one rank away. Posted as the runtime posts any schedule, or in lockstep
/// (Schedule::Lockstep: each rank's step after its previous one finished,
/// Open MPI's loop of sendrecv), whichever the machine's cost pass times
/// faster: with the receives of later steps posted early the flows of
/// several steps share the links, and on a fat tree the blocks each step
/// forwards arrive later.
SearchingBuilder buildNeighborExchangeAllgather;
/// Whether P is even (neighbor exchange pairs the ranks) and its P^2 / 2
/// transfers fit (copyTransfersFit).
AppliesTest neighborExchangeApplies;

/// `farthest-doubling` for P a power of two: log2 P steps; at distance
/// m = P / 2, P / 4, ..., 1 rank r exchanges with r xor m every block it
/// holds (those of the ranks that differ from r only in bits at and above
/// 2m), so the blocks double every step and the longest hops carry the
/// fewest. SMPI's rhv runs the same exchanges after one more: every rank
/// first swaps its block with the rank of its bit-reversed number, which
/// only lays the blocks out contiguously in the buffer (collc's pieces name
/// blocks by origin, so it needs no such step).
PlainBuilder buildFarthestDoublingAllgather;
/// Whether P is a power of two and its P (P - 1) pieces fit
/// (copyTransfersFit).
AppliesTest farthestDoublingApplies;

} // namespace collc

#endif
