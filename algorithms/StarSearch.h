/// \file
/// `star-search`: a broadcast of the star graph S_k (paper 002) under the
/// paper's call model (a call joins two adjacent nodes and takes one time
/// unit, a node takes part in at most one call per unit), found by a
/// randomized search. Ranks are node numbers.
///
/// The search computes a broadcast of S_k from the identity by randomized
/// maximal matchings (starPlan) and maps it onto the root by relabelling
/// symbols (S_k is a Cayley graph: relabelling is an automorphism that keeps
/// every generator), each call in the plan's step. It is not proved optimal.
/// Measured: ceil(log2 k!) steps on S_4, one more on S_5..S_9, two more on
/// S_10; never more than the greedy baseline on S_4..S_9. `star-optimal`, its
/// former name, is accepted as an alias. The macro-star algorithm
/// (MacroStar.h) reuses the plan inside every base module.
#ifndef COLLC_ALGORITHMS_STARSEARCH_H
#define COLLC_ALGORITHMS_STARSEARCH_H

#include "algorithms/Builder.h"
#include "ir/Permutation.h"
#include "ir/StarGraph.h"

#include <cstdint>
#include <vector>

namespace collc {

/// The inversion code of a permutation u_1..u_m of 0..m-1: digit i (2 <= i
/// <= m) is the number of symbols before position i larger than u_i, with
/// weight (i-1)!. The identity has code 0. T_j changes digits 2..j only, so
/// a node's T_j neighbours lie within j! codes of it: the search's plan
/// numbers nodes this way to keep its memory accesses close together.
int64_t inversionCode(const std::vector<int> &P);

/// A broadcast of S_m from the identity permutation, nodes numbered by
/// inversion code: Parent[c] is the node that calls c (-1 for the root, code
/// 0), Time[c] the step of that call (1-based, 0 for the root), Steps the
/// number of steps.
struct StarPlan {
  int M = 0;
  int Steps = 0;
  std::vector<int32_t> Parent;
  std::vector<uint8_t> Time;
};

/// star-search's broadcast of S_m (1 <= m <= 10): randomized maximal
/// matchings, each step taking the uninformed nodes with the fewest informed
/// neighbours first and giving each the free informed neighbour with the
/// fewest uninformed neighbours left; the fewest steps of a fixed number of
/// seeds (about 2^20 node visits: 1024 seeds on S_4..S_6, one on S_10),
/// stopping early at the lower bound ceil(log2 m!). Deterministic.
StarPlan starPlan(int M);

/// The nodes of \p Plan in the order of their steps (the root first).
std::vector<int32_t> starPlanOrder(const StarPlan &Plan);

/// Where \p Plan, a broadcast of S_m from the identity, lands in S_k (k >= m)
/// rooted at \p Leader: Map[c] is the node number of the plan's node c (an
/// inversion code) in the sub-star of the nodes that agree with Leader in
/// positions m+1..k. The plan's node p becomes u with u_i = Leader_{p_i} for
/// i <= m, a relabelling of symbols: an automorphism that keeps every
/// generator.
void mapStarPlan(const StarPlan &Plan, const Symbols &Leader, int K,
                 std::vector<int32_t> &Map);

/// Whether \p M is a \p Kind graph (star or macro-star) and the participants
/// are all its nodes with rank = node number, as the star-graph broadcasts
/// need; sets \p Why (naming the algorithm \p Name) if not.
bool starGraphApplies(const Machine &M, const Request &R, TopologyKind Kind,
                      const char *Name, std::string &Why);
/// The graph a star-graph broadcast runs on: the registry offers star-search
/// and macro-star only where starGraphApplies holds (asserted).
StarGraph starGraphOf(const Machine &M, const Request &R, TopologyKind Kind,
                      const char *Name);

AppliesTest starSearchApplies;
PlainBuilder buildStarSearch;

} // namespace collc

#endif
