/// \file
/// The allgather on a grid of three dimensions (SMPI's 3dmesh, for any P
/// with a factoring P = a x b x c, every factor at least 2): rank r at
/// coordinates (r mod a, (r / a) mod b, r / ab). In phase 1 every rank
/// sends its block to the a - 1 others of its row (the ranks differing in
/// the first coordinate alone); in phase 2 the a blocks of its row to the
/// b - 1 others of its column; in phase 3 the ab blocks of its plane to the
/// c - 1 others along the third dimension. Every rank sends P - 1 blocks in
/// a + b + c - 3 messages (grid-direct, on two dimensions: about 2 sqrt(P)
/// messages; direct: P - 1), each phase one step where the machine has a
/// network. What a rank holds after each phase is one interval of ranks,
/// so every message carries one.
#ifndef COLLC_ALGORITHMS_GRIDDIRECT3_H
#define COLLC_ALGORITHMS_GRIDDIRECT3_H

#include "algorithms/Builder.h"

#include <array>
#include <vector>

namespace collc {

/// The factorings P = a x b x c (every factor at least 2) the builder tries,
/// in each order of the three: those of the three smallest sums a + b + c
/// (the fewest messages a rank sends); none where P has no such factoring.
std::vector<std::array<int32_t, 3>> grid3Shapes(int32_t P);

/// Whether \p R's rank count has a factoring into three (grid3Shapes) and
/// its transfers fit.
bool grid3DirectApplies(const Machine &M, const Request &R, std::string &Why);

/// For `--algorithm auto`: on a machine with a network whose cost pass
/// prices \p R's rank count by the flow-level evaluator (StepPricingRanks
/// ranks at most): beyond, the search of up to 18 grids would add its
/// builds to auto's time at thousands of ranks, where grid-direct serves.
bool grid3DirectInAuto(const Machine &M, const Request &R, std::string &Why);

/// The schedule of grid shape \p Shape (its product \p R's rank count).
Schedule grid3DirectAllgather(const Machine &M, const Request &R,
                              const std::array<int32_t, 3> &Shape);

/// The cheapest of grid3Shapes' grids (the cost pass's judge).
SearchingBuilder buildGrid3DirectAllgather;

} // namespace collc

#endif
