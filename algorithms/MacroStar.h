/// \file
/// `macro-star`: the broadcast of paper 002 on the macro-star graph MS(l, n),
/// under the call model of StarSearch.h. Ranks are node numbers.
///
/// Applying a generator sequence <g_1, g_2, ...> means that at step t every
/// informed node calls its neighbour along g_t (calls to nodes already
/// informed are dropped). For cluster c = l .. 2: the sequence of Lemma 1,
/// <S_2..S_c, T_2..T_{n+1}, S_c>, then for m = 1 .. n-1 that of Lemma 2,
/// which adds <T_{n-m+1}, S_c>. Afterwards every base module S_{n+1} (nodes
/// that agree on clusters 2..l) holds the message; star-search's plan for
/// S_{n+1}, computed once and relabelled onto each module, finishes inside
/// every module.
#ifndef COLLC_ALGORITHMS_MACROSTAR_H
#define COLLC_ALGORITHMS_MACROSTAR_H

#include "algorithms/Builder.h"
#include "ir/StarGraph.h"

#include <cstdint>
#include <vector>

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

AppliesTest macroStarApplies;
PlainBuilder buildMacroStar;

} // namespace collc

#endif
