/// \file
/// Broadcasts on star graphs S_k and macro-star graphs MS(l, n) (paper 002),
/// and a greedy one-port broadcast on any topology, all under the call model
/// of the paper: a call joins two adjacent nodes and takes one time unit, a
/// node takes part in at most one call per unit. Ranks are node numbers.
///
///  - `star-optimal` (S_k): the recursive decomposition of Mendia and Sarkar.
///    S_m splits into m sub-stars S_{m-1} by the symbol at position m; a level
///    informs one node of every sub-star in a(m) = O(log m) steps by splitting
///    the set of symbols still to be placed at position m (starLevelSteps), and
///    the levels m = k .. 2 repeat inside each sub-star. The calls form a
///    spanning tree of S_k, which is then timed optimally (each node calls its
///    children in decreasing order of their subtrees' broadcast times), so the
///    schedule takes at most sum_{m=2..k} a(m) = O(k log k) steps, within a
///    constant factor of the lower bound ceil(log2 k!).
///  - `macro-star` (MS(l, n)): the paper's algorithm. Applying a generator
///    sequence <g_1, g_2, ...> means that at step t every informed node calls
///    its neighbour along g_t (calls to nodes already informed are dropped).
///    For cluster c = l .. 2: the sequence of Lemma 1, <S_2..S_c, T_2..T_{n+1},
///    S_c>, then for m = 1 .. n-1 that of Lemma 2, which adds <T_{n-m+1}, S_c>.
///    Afterwards every base module S_{n+1} (nodes that agree on clusters
///    2..l) holds the message, and the star-optimal broadcast finishes inside
///    each module.
///  - `greedy` (every topology): each step, a maximum matching (Hopcroft-Karp)
///    between informed ranks and their uninformed neighbours.
#ifndef COLLC_COMPILER_ALGORITHMS_STAR_H
#define COLLC_COMPILER_ALGORITHMS_STAR_H

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

/// a(m): steps of one level of star-optimal, informing one node in each of the
/// m sub-stars S_{m-1} of an S_m from one node (m >= 2).
int starLevelSteps(int M);

bool starOptimalApplies(const Machine &M, const Request &R, std::string &Why);
bool macroStarApplies(const Machine &M, const Request &R, std::string &Why);
bool greedyApplies(const Machine &M, const Request &R, std::string &Why);

llvm::Expected<Schedule> buildStarOptimal(const Machine &M, const Request &R);
llvm::Expected<Schedule> buildMacroStar(const Machine &M, const Request &R);
llvm::Expected<Schedule> buildGreedy(const Machine &M, const Request &R);

} // namespace collc

#endif
