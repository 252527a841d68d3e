/// \file
/// `greedy`: a one-port broadcast on any topology, the baseline of the
/// star-graph broadcasts (paper 002). Each step, a maximum matching
/// (Hopcroft-Karp) between the informed ranks and their uninformed
/// neighbours; on a fully connected machine or a multistage network, where
/// every pair is joined, that is recursive doubling.
#ifndef COLLC_ALGORITHMS_GREEDY_H
#define COLLC_ALGORITHMS_GREEDY_H

#include "algorithms/Builder.h"

namespace collc {

AppliesTest greedyApplies;
/// Whether `--algorithm auto` also tries greedy: on star and macro-star
/// graphs of at most 9! = 362880 ranks (a maximum matching per step costs
/// about a second there), so auto never picks a schedule greedy beats.
bool greedyInAuto(const Machine &M, const Request &R, std::string &Why);
PlainBuilder buildGreedy;

} // namespace collc

#endif
