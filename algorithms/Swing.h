/// \file
/// Swing allreduce (De Sensi et al., NSDI'24): recursive doubling over
/// partners at distances rho(s) = 1, -1, 3, -5, 11, ... (algorithms/
/// Butterfly.h), even ranks forward and odd ranks backward, so that the
/// partners of the first, heaviest steps are neighbours on a ring and the
/// far ones come last. Two forms, as in the paper: latency (every step
/// exchanges and combines the whole vector) and bandwidth (a reduce-scatter
/// along the steps, each sending the partner the blocks its next reach set
/// owns, then the allgather in reverse). On a torus or
/// mesh of two or more dimensions (any extents), the steps go dimension by
/// dimension, each dimension's partners by its own coordinates (the paper's
/// multi-dimensional Swing) on the largest grid of powers of two: dimension
/// by dimension, the first 2(L_j - 2^d_j) coordinates of dimension j fold
/// pairwise into their even neighbour first (among the points not folded in
/// an earlier dimension) and get the result last, the last dimension's
/// first; elsewhere the ranks in node order (ringGrid) form one ring, folded
/// the same way (the first 2(P - 2^d) pairwise into 2^d cores), as
/// recursive doubling does. Commutative operators only.
#ifndef COLLC_ALGORITHMS_SWING_H
#define COLLC_ALGORITHMS_SWING_H

#include "algorithms/Builder.h"

namespace collc {

/// Swing allreduce: the latency and the bandwidth form (the latter when the
/// vector has at least one element per core), whichever the machine's cost
/// pass times faster.
SearchingBuilder buildSwing;
/// One form of Swing, without the search: \p Bandwidth, the reduce-scatter +
/// allgather (an error when the vector has fewer elements than cores, but
/// not none); else the latency form.
llvm::Expected<Schedule> buildSwingForm(const Machine &M, const Request &R,
                                        bool Bandwidth);
/// A commutative operator, and transfers within the schedule's limit.
AppliesTest swingApplies;

} // namespace collc

#endif
