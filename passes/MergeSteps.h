/// \file
/// Step merging: folds a step into the step before it when the two touch
/// disjoint ports and disjoint channels, so a backend executes fewer rounds.
///
/// Steps are visited in order; step s joins the group being built (the
/// previous steps merged so far) when
///  - no rank that appears in s (as sender or receiver) appears in the
///    group: the ports the two use are disjoint, and since every dependency
///    between transfers runs through a rank (a rank forwards what it
///    received, or sends after its previous send), no dependency joins a
///    transfer of s to one of the group, and nothing in s can be moved ahead
///    of something it needs;
///  - no directed channel of a route of s (passes/Routes.h) is used by a
///    route of the group, so the merged step is as contention-free as the two
///    steps were.
/// Otherwise s starts a new group. Only adjacent steps merge, so the order of
/// every pair of steps that stay apart is kept. On topologies without routing
/// nothing is merged (channels are unknown). Transfer times are left to the
/// cost pass, which the driver reruns afterwards.
#ifndef COLLC_PASSES_MERGESTEPS_H
#define COLLC_PASSES_MERGESTEPS_H

#include "ir/Machine.h"
#include "ir/Schedule.h"

#include <cstddef>

namespace collc {

struct MergeStats {
  size_t StepsBefore = 0;
  size_t StepsAfter = 0;
  size_t removed() const { return StepsBefore - StepsAfter; }
};

MergeStats mergeSteps(Schedule &S, const Machine &M);

} // namespace collc

#endif
