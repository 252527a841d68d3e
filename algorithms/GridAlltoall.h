/// \file
/// The few-round all-to-all on a logical grid of ranks (SMPI's 2dmesh and
/// 3dmesh, Faraj and Yuan): the ranks laid row-major on a grid of 2 or 3
/// dimensions; the blocks move along the first dimension, then the second
/// (then the third), each message carrying every block bound for the line
/// it enters, so a rank sends about the sum of (extent - 1) messages, not
/// P - 1.
#ifndef COLLC_ALGORITHMS_GRIDALLTOALL_H
#define COLLC_ALGORITHMS_GRIDALLTOALL_H

#include "algorithms/Builder.h"

#include <cstdint>
#include <vector>

namespace collc {

/// The grid-exchange all-to-all on the grid of extents \p Extents (the
/// first varies fastest along the ranks; their product at least P, ranks at
/// and past P absent). Block M[a][b] is routed through the ranks whose
/// coordinates take b's one dimension after another, first to last; where
/// one of them is absent (a partial last row or layer) last to first; it
/// refuses a grid where neither route exists for some block. Every hop is
/// one message per (sender, receiver) pair and phase; phase i's messages run
/// at once (one step on a machine with a network).
llvm::Expected<Schedule>
buildGridExchangeOn(const Machine &M, const Request &R,
                    const std::vector<int64_t> &Extents);

/// The grids `grid-exchange` searches for \p P ranks: two dimensions of
/// C x (P / C) for the divisors C of P nearest sqrt(P) from below and above
/// (within a factor 2), else C = sqrt(P) rounded with a partial last row of
/// ceil(P / C) (a prime P always); three dimensions for the exact
/// factorisation nearest a cube (each extent at least 2), else the cube root
/// rounded with a partial last layer. One dimension of P (the direct
/// exchange) when P < 4.
std::vector<std::vector<int64_t>> gridExchangeShapes(int64_t P);

/// `grid-exchange`: the shapes of gridExchangeShapes built and priced with
/// the machine's cost pass, the cheapest kept.
SearchingBuilder buildGridExchange;

} // namespace collc

#endif
