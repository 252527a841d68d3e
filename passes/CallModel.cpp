#include "passes/CallModel.h"

#include <array>
#include <cstdint>

namespace collc {

namespace {

using Symbols = std::array<int8_t, 20>;

/// Inverse of the lexicographic rank (ir/Permutation.h), without allocation.
Symbols unrank(int64_t Rank, int K) {
  int Digits[20];
  int I = K;
  // 32-bit divisions once the rank fits (all of S_10's 3628800 nodes do).
  for (; I-- > 0 && Rank > UINT32_MAX;) {
    int64_t Base = K - I;
    Digits[I] = static_cast<int>(Rank % Base);
    Rank /= Base;
  }
  for (uint32_t R = static_cast<uint32_t>(Rank); I >= 0; --I) {
    uint32_t Base = static_cast<uint32_t>(K - I);
    Digits[I] = static_cast<int>(R % Base);
    R /= Base;
  }
  Symbols P{};
  if (K <= 16) {
    // The symbols not yet placed, one per nibble in increasing order:
    // taking the d-th out is a shift of the nibbles above it.
    uint64_t Left = 0xFEDCBA9876543210ull;
    for (int I = 0; I < K; ++I) {
      unsigned Sh = 4u * static_cast<unsigned>(Digits[I]);
      P[I] = static_cast<int8_t>((Left >> Sh) & 0xF);
      uint64_t Low = Sh ? Left & ((uint64_t(1) << Sh) - 1) : 0;
      uint64_t High = Sh + 4 < 64 ? (Left >> (Sh + 4)) << Sh : 0;
      Left = Low | High;
    }
    return P;
  }
  int8_t Left[20];
  for (int V = 0; V < K; ++V)
    Left[V] = static_cast<int8_t>(V);
  int N = K;
  for (int I = 0; I < K; ++I) {
    P[I] = Left[Digits[I]];
    for (int J = Digits[I]; J + 1 < N; ++J)
      Left[J] = Left[J + 1];
    --N;
  }
  return P;
}

std::optional<Generator> between(const StarGraph &G, int64_t A, int64_t B) {
  const int K = G.symbols(), N = G.clusterSize();
  if (A == B || A < 0 || B < 0 || A >= G.nodes() || B >= G.nodes())
    return std::nullopt;
  Symbols PA = unrank(A, K), PB = unrank(B, K);
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
      // Built only for a problem: millions of calls are checked.
      auto Where = [&] {
        return "step " + std::to_string(SI) + ", transfer " +
               std::to_string(T.Src) + " -> " + std::to_string(T.Dst) + ": ";
      };
      if (T.Src < 0 || T.Dst < 0 || T.Src >= S.size() || T.Dst >= S.size())
        continue; // the data-flow check reports ranks out of range
      if (!callGenerator(*G, S, T)) {
        Problem(Where() + "nodes " + G->name(S.Participants[T.Src].Node) +
                " and " + G->name(S.Participants[T.Dst].Node) +
                " are not adjacent in " + G->title());
        continue;
      }
      for (int32_t R : {T.Src, T.Dst}) {
        if (Busy[R] == static_cast<int32_t>(SI))
          Problem(Where() + "rank " + std::to_string(R) +
                  " is in a second call in the same step");
        Busy[R] = static_cast<int32_t>(SI);
      }
    }
  return Problems;
}

} // namespace collc
