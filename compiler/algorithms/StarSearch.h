/// \file
/// Broadcasts on star graphs S_k and macro-star graphs MS(l, n) (paper 002),
/// and a greedy one-port broadcast on any topology, all under the call model
/// of the paper: a call joins two adjacent nodes and takes one time unit, a
/// node takes part in at most one call per unit. Ranks are node numbers.
///
///  - `star-optimal` (S_k): a broadcast of S_k from the identity computed by
///    randomized maximal matchings (starPlan), mapped onto the root by
///    relabelling symbols (S_k is a Cayley graph: relabelling is an
///    automorphism that keeps every generator), each call in the plan's step.
///    Measured: ceil(log2 k!) steps on S_4, one more on S_5..S_9, two more on
///    S_10; never more than the greedy baseline on S_4..S_9.
///  - `macro-star` (MS(l, n)): the paper's algorithm. Applying a generator
///    sequence <g_1, g_2, ...> means that at step t every informed node calls
///    its neighbour along g_t (calls to nodes already informed are dropped).
///    For cluster c = l .. 2: the sequence of Lemma 1, <S_2..S_c, T_2..T_{n+1},
///    S_c>, then for m = 1 .. n-1 that of Lemma 2, which adds <T_{n-m+1}, S_c>.
///    Afterwards every base module S_{n+1} (nodes that agree on clusters
///    2..l) holds the message; star-optimal's plan for S_{n+1}, computed once
///    and relabelled onto each module, finishes inside every module.
///  - `greedy` (every topology): each step, a maximum matching (Hopcroft-Karp)
///    between informed ranks and their uninformed neighbours.
#ifndef COLLC_COMPILER_ALGORITHMS_STARSEARCH_H
#define COLLC_COMPILER_ALGORITHMS_STARSEARCH_H

#include "compiler/Algorithms.h"
#include "ir/StarGraph.h"

namespace collc {

/// A call of a broadcast on a graph: From informs To along generator G.
struct StarCall {
  int64_t From = 0, To = 0;
  Generator G;
};

/// Lemma 1's sequence for cluster \p C (the paper states it for C = l):
/// <S_2, ..., S_C, T_2, ..., T_{n+1}, S_C>.
std::vector<Generator> lemma1Sequence(const StarGraph &G, int C);
/// Lemma 2's sequence for cluster \p C and \p M fixed symbols (1 <= M < n):
/// Lemma 1's, then <T_{n-M+1}, S_C>.
std::vector<Generator> lemma2Sequence(const StarGraph &G, int C, int M);
/// Steps 1-3 of the paper's algorithm: for C = l .. 2, Lemma 1 then Lemma 2
/// for M = 1 .. n-1.
std::vector<Generator> macroStarSequence(const StarGraph &G);

/// Applies \p Seq from the informed nodes (Informed[v] != 0, also listed in
/// \p List): step t, every informed node calls its neighbour along Seq[t]
/// unless that neighbour is already informed. Updates Informed and List and
/// returns the calls of each step.
std::vector<std::vector<StarCall>>
applySequence(const StarGraph &G, const std::vector<Generator> &Seq,
              std::vector<uint8_t> &Informed, std::vector<int64_t> &List);

/// The inversion code of a permutation u_1..u_m of 0..m-1: digit i (2 <= i
/// <= m) is the number of symbols before position i larger than u_i, with
/// weight (i-1)!. The identity has code 0. T_j changes digits 2..j only, so
/// a node's T_j neighbours lie within j! codes of it: star-optimal's plan
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

/// star-optimal's broadcast of S_m (1 <= m <= 10): randomized maximal
/// matchings, each step taking the uninformed nodes with the fewest informed
/// neighbours first and giving each the free informed neighbour with the
/// fewest uninformed neighbours left; the fewest steps of a fixed number of
/// seeds (about 2^20 node visits: 1024 seeds on S_4..S_6, one on S_10),
/// stopping early at the lower bound ceil(log2 m!). Deterministic.
StarPlan starPlan(int M);

bool starOptimalApplies(const Machine &M, const Request &R, std::string &Why);
bool macroStarApplies(const Machine &M, const Request &R, std::string &Why);
bool greedyApplies(const Machine &M, const Request &R, std::string &Why);
/// Whether `--algorithm auto` also tries greedy: on star and macro-star
/// graphs of at most 9! = 362880 ranks (a maximum matching per step costs
/// about a second there), so auto never picks a schedule greedy beats.
bool greedyInAuto(const Machine &M, const Request &R, std::string &Why);

llvm::Expected<Schedule> buildStarOptimal(const Machine &M, const Request &R);
llvm::Expected<Schedule> buildMacroStar(const Machine &M, const Request &R);
llvm::Expected<Schedule> buildGreedy(const Machine &M, const Request &R);

} // namespace collc

#endif
