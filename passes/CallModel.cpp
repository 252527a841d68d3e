#include "passes/CallModel.h"

#include "ir/Permutation.h"
#include "passes/Diagnostics.h"

#include <array>
#include <cstdint>

namespace collc {

namespace {

std::optional<Generator> between(const StarGraph &G, int64_t A, int64_t B) {
  const int K = G.symbols(), N = G.clusterSize();
  if (A == B || A < 0 || B < 0 || A >= G.nodes() || B >= G.nodes())
    return std::nullopt;
  Symbols PA = unrankSymbols(A, K), PB = unrankSymbols(B, K);
  // T_j: only positions 1 and j differ, swapped.
  if (PA[0] != PB[0]) {
    int J = -1, Diff = 0;
    for (int I = 1; I < K; ++I)
      if (PA[I] != PB[I]) {
        ++Diff;
        J = I;
      }
    if (Diff == 1 && J <= N && PA[0] == PB[J] && PA[J] == PB[0])
      return Generator{Generator::T, J + 1};
    return std::nullopt;
  }
  // S_i: cluster 1 and cluster i swapped, nothing else moved.
  for (const Generator &Gen : G.generators()) {
    if (Gen.Kind != Generator::S)
      continue;
    Symbols Q = PA;
    int Base = (Gen.Index - 1) * N + 1;
    for (int X = 0; X < N; ++X)
      std::swap(Q[1 + X], Q[Base + X]);
    if (Q == PB)
      return Gen;
  }
  return std::nullopt;
}

} // namespace

std::optional<Generator> callGenerator(const StarGraph &G, const Schedule &S,
                                       const Transfer &T) {
  if (T.Src < 0 || T.Dst < 0 || T.Src >= S.size() || T.Dst >= S.size())
    return std::nullopt;
  return between(G, S.Participants[T.Src].Node, S.Participants[T.Dst].Node);
}

std::vector<std::string> checkCallModel(const Schedule &S, const Machine &M,
                                        size_t MaxProblems) {
  std::vector<std::string> Problems;
  auto G = StarGraph::of(M.Topo);
  if (!G || MaxProblems == 0)
    return Problems;
  auto Problem = [&](std::string Msg) {
    if (Problems.size() < MaxProblems)
      Problems.push_back(std::move(Msg));
  };
  // Last step in which each rank was in a call (-1: none yet).
  std::vector<int32_t> Busy(S.size(), -1);
  for (size_t SI = 0; SI < S.Steps.size(); ++SI)
    for (const Transfer &T : S.Steps[SI].Transfers) {
      if (Problems.size() >= MaxProblems)
        return Problems;
      if (T.Src < 0 || T.Dst < 0 || T.Src >= S.size() || T.Dst >= S.size())
        continue; // the data-flow check reports ranks out of range
      if (!callGenerator(*G, S, T)) {
        Problem(transferWhere(SI, T) + "nodes " +
                G->name(S.Participants[T.Src].Node) + " and " +
                G->name(S.Participants[T.Dst].Node) + " are not adjacent in " +
                G->title());
        continue;
      }
      for (int32_t R : {T.Src, T.Dst}) {
        if (Busy[R] == static_cast<int32_t>(SI))
          Problem(transferWhere(SI, T) + "rank " + std::to_string(R) +
                  " is in a second call in the same step");
        Busy[R] = static_cast<int32_t>(SI);
      }
    }
  return Problems;
}

} // namespace collc
