#include "algorithms/StarSearch.h"

#include "ir/Permutation.h"
#include "ir/Random.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>

namespace collc {

namespace {

/// Symbols before position I larger than S[I], for the prefix mask \p Pre.
int larger(uint32_t Pre, int Symbol) {
  return symbolCount(Pre & (~0u << Symbol << 1));
}

} // namespace

int64_t inversionCode(const std::vector<int> &P) {
  int64_t Code = 0, W = 1;
  uint32_t Pre = 0;
  for (size_t I = 0; I < P.size(); ++I) {
    W *= I ? static_cast<int64_t>(I) : 1;
    Code += larger(Pre, P[I]) * W;
    Pre |= 1u << P[I];
  }
  return Code;
}

namespace {

/// The neighbours of every node of S_m in inversion-code order:
/// Nb[c * (m-1) + j - 2] is the code of T_j(c). Codes are enumerated in order
/// (digit 1 fastest); the permutation is rebuilt from the right, only in the
/// positions whose digits changed. T_j changes digits 1..j-1 only, and the
/// new ones follow from the old: for 1 <= i < j-1 (0-based positions), digit
/// i loses u_1 from its prefix and gains u_j.
std::vector<int32_t> neighbourTable(int M) {
  const int D = M - 1;
  const int64_t N = permutationCount(M);
  int64_t W[20];
  for (int I = 0; I < M; ++I)
    W[I] = permutationCount(I);
  std::vector<int32_t> Nb(static_cast<size_t>(N) * D);
  int E[21] = {};
  int8_t S[20];
  for (int I = 0; I < M; ++I)
    S[I] = static_cast<int8_t>(I);
  for (int64_t C = 0; C < N; ++C) {
    if (C > 0) {
      int Top = 1;
      while (++E[Top] > Top)
        E[Top++] = 0;
      uint32_t R = 0;
      for (int L = 0; L <= Top; ++L)
        R |= 1u << S[L];
      for (int L = Top; L >= 0; --L) {
        // The (L - E[L])-th smallest of the symbols left: E[L] of them are
        // larger and stand before it.
        uint32_t X = R;
        for (int K = L - E[L]; K > 0; --K)
          X &= X - 1;
        S[L] = static_cast<int8_t>(std::countr_zero(X));
        R &= ~(1u << S[L]);
      }
    }
    uint32_t Pre[20];
    Pre[0] = 0;
    for (int I = 1; I < M; ++I)
      Pre[I] = Pre[I - 1] | 1u << S[I - 1];
    int64_t Old = 0, Kept = 0; // sum of old digits 1..J-1, with u_1 moved out
    for (int J = 1; J < M; ++J) {
      uint32_t Swap = 1u << S[0] | 1u << S[J];
      int64_t Mid = 0;
      for (int I = 1; I < J; ++I)
        Mid += (S[J] > S[I]) * W[I];
      int64_t New = Kept + Mid + larger(Pre[J] ^ Swap, S[0]) * W[J];
      Old += E[J] * W[J];
      Nb[C * D + J - 1] = static_cast<int32_t>(C - Old + New);
      Kept += (E[J] - (S[0] > S[J])) * W[J];
    }
  }
  return Nb;
}

/// One randomized matching broadcast of S_m from the identity (code 0), in
/// inversion codes; \p Seed picks the random choices, \p Shuffle whether
/// ties between candidates are broken at random too (else in code order,
/// which keeps memory accesses close: a node's T_j neighbours lie within j!
/// codes of it). Each step, every uninformed node next to an informed one is
/// a candidate; candidates are taken in increasing number of informed
/// neighbours, and each takes the free informed neighbour with the fewest
/// uninformed neighbours left (ties from a random generator on). The result
/// is a maximal matching per step.
StarPlan matchingPlan(const std::vector<int32_t> &Nb, int M, uint64_t Seed,
                      bool Shuffle) {
  const int D = M - 1;
  const int64_t N = permutationCount(M);
  StarPlan P;
  P.M = M;
  P.Parent.assign(N, -1);
  P.Time.assign(N, 0);
  // Per node: uninformed neighbours (bits 0-4), informed neighbours (bits
  // 5-9), informed, busy this step.
  enum : uint16_t {
    OpenOne = 1,
    InfOne = 1 << 5,
    Informed = 1 << 10,
    Busy = 1 << 11
  };
  auto Open = [](uint16_t X) { return X & 31; };
  auto Inf = [](uint16_t X) { return X >> 5 & 31; };
  std::vector<uint16_t> St(N, static_cast<uint16_t>(D * OpenOne));
  std::vector<std::vector<int32_t>> Bucket(D + 1);
  std::vector<std::pair<int32_t, int32_t>> Calls;
  auto Inform = [&](int32_t X) {
    St[X] |= Informed;
    for (const int32_t *Y = &Nb[static_cast<int64_t>(X) * D], *E = Y + D;
         Y != E; ++Y)
      St[*Y] = static_cast<uint16_t>(St[*Y] - OpenOne + InfOne);
  };
  Inform(0);
  int64_t Count = 1;
  int Step = 0;
  while (Count < N) {
    ++Step;
    for (auto &B : Bucket)
      B.clear();
    for (int32_t X = 0; X < N; ++X)
      if (!(St[X] & Informed) && Inf(St[X]))
        Bucket[Inf(St[X])].push_back(X);
    Calls.clear();
    for (auto &B : Bucket) {
      if (Shuffle)
        for (size_t I = B.size(); I > 1; --I)
          std::swap(B[I - 1],
                    B[splitMix64(Seed ^ splitMix64(Step * N + I)) % I]);
      for (int32_t X : B) {
        const int32_t *Adj = &Nb[static_cast<int64_t>(X) * D];
        int Off = static_cast<int>(
            splitMix64(Seed ^ (static_cast<uint64_t>(X) << 8 | Step)) % D);
        int32_t Best = -1;
        int BestOpen = D + 1;
        for (int I = 0, J = Off; I < D; ++I, J = J + 1 == D ? 0 : J + 1) {
          int32_t U = Adj[J];
          uint16_t T = St[U];
          if ((T & (Informed | Busy)) == Informed && Open(T) < BestOpen) {
            Best = U;
            BestOpen = Open(T);
          }
        }
        if (Best >= 0) {
          St[Best] |= Busy;
          Calls.push_back({Best, X});
        }
      }
    }
    for (auto [U, X] : Calls) {
      St[U] &= static_cast<uint16_t>(~Busy);
      P.Parent[X] = U;
      P.Time[X] = static_cast<uint8_t>(Step);
      Inform(X);
    }
    Count += static_cast<int64_t>(Calls.size());
  }
  P.Steps = Step;
  return P;
}

} // namespace

/// The nodes of \p Plan in the order of their steps (the root first).
std::vector<int32_t> starPlanOrder(const StarPlan &Plan) {
  std::vector<int32_t> First(Plan.Steps + 2, 0), Out(Plan.Time.size());
  for (uint8_t T : Plan.Time)
    ++First[T + 1];
  for (int T = 1; T <= Plan.Steps + 1; ++T)
    First[T] += First[T - 1];
  for (size_t V = 0; V < Plan.Time.size(); ++V)
    Out[First[Plan.Time[V]]++] = static_cast<int32_t>(V);
  return Out;
}

/// Where \p Plan, a broadcast of S_m from the identity, lands in S_k (k >= m)
/// rooted at \p Leader: Map[c] is the node number of the plan's node c (an
/// inversion code) in the sub-star of the nodes that agree with Leader in
/// positions m+1..k. The plan's node p becomes u with u_i = Leader_{p_i} for
/// i <= m, a relabelling of symbols: an automorphism that keeps every
/// generator.
void mapStarPlan(const StarPlan &Plan, const Symbols &Leader, int K,
                 std::vector<int32_t> &Map) {
  const int M = Plan.M;
  std::array<int8_t, 20> P{}, U = Leader;
  for (int I = 0; I < M; ++I)
    P[I] = static_cast<int8_t>(I);
  Map.resize(Plan.Parent.size());
  for (size_t V = 0; V < Map.size(); ++V) {
    int64_t Code = 0, W = 1;
    uint32_t Pre = 0;
    for (int I = 0; I < M; ++I) {
      U[I] = Leader[P[I]];
      W *= I ? I : 1;
      Code += larger(Pre, P[I]) * W;
      Pre |= 1u << P[I];
    }
    Map[Code] = static_cast<int32_t>(rankSymbols(U, K));
    std::next_permutation(P.begin(), P.begin() + M);
  }
}

bool starGraphApplies(const Machine &M, const Request &R, TopologyKind Kind,
                      const char *Name, std::string &Why) {
  if (M.Topo.Kind != Kind) {
    Why =
        std::string(Name) + " needs a " + topologyKindName(Kind) + " topology";
    return false;
  }
  bool Ok = static_cast<int64_t>(R.Nodes.size()) == M.Topo.Nodes;
  for (size_t I = 0; Ok && I < R.Nodes.size(); ++I)
    Ok = R.Nodes[I] == static_cast<int64_t>(I);
  if (!Ok)
    Why = std::string(Name) +
          " broadcasts to every node of the graph with rank = "
          "node number (ranks: " +
          std::to_string(M.Topo.Nodes) + ")";
  return Ok;
}

StarGraph starGraphOf(const Machine &M, [[maybe_unused]] const Request &R,
                      [[maybe_unused]] TopologyKind Kind,
                      [[maybe_unused]] const char *Name) {
  [[maybe_unused]] std::string Why;
  assert(starGraphApplies(M, R, Kind, Name, Why) &&
         "the registry lists it only where it applies");
  return *StarGraph::of(M.Topo);
}

StarPlan starPlan(int M) {
  assert(M >= 1 && M <= 12);
  const int64_t N = permutationCount(M);
  if (N == 1) {
    StarPlan P;
    P.M = M;
    P.Parent = {-1};
    P.Time = {0};
    return P;
  }
  const std::vector<int32_t> Nb = neighbourTable(M);
  const int Bound = ceilLog2(N);
  // About 2^20 node visits in all: 1024 tries on S_4..S_6, 26 on S_8, one
  // on S_10. Stop early at the lower bound.
  const int64_t Tries = std::clamp<int64_t>((int64_t(1) << 20) / N, 1, 1024);
  StarPlan Best;
  for (int64_t T = 0; T < Tries && (T == 0 || Best.Steps > Bound); ++T) {
    StarPlan P = matchingPlan(Nb, M, static_cast<uint64_t>(T), Tries > 1);
    if (T == 0 || P.Steps < Best.Steps)
      Best = std::move(P);
  }
  return Best;
}

bool starSearchApplies(const Machine &M, const Request &R, std::string &Why) {
  return starGraphApplies(M, R, TopologyKind::Star, "star-search", Why);
}

llvm::Expected<Schedule> buildStarSearch(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "star-search");
  const StarGraph G = starGraphOf(M, R, TopologyKind::Star, "star-search");
  // The plan's own timing: re-timing its tree optimally gains nothing on
  // S_4..S_10 (measured), so the calls keep their steps.
  StarPlan Plan = starPlan(G.symbols());
  std::vector<int32_t> Map;
  mapStarPlan(Plan, unrankSymbols(S.Root, G.symbols()), G.symbols(), Map);
  S.Steps.resize(Plan.Steps);
  std::vector<uint32_t> Count(Plan.Steps, 0);
  for (uint8_t T : Plan.Time)
    if (T)
      ++Count[T - 1];
  for (int T = 0; T < Plan.Steps; ++T)
    S.Steps[T].Transfers.reserve(Count[T]);
  for (size_t C = 0; C < Map.size(); ++C)
    if (Plan.Parent[C] >= 0)
      S.Steps[Plan.Time[C] - 1].Transfers.push_back(
          wholeMessageCall(S, Map[Plan.Parent[C]], Map[C]));
  return S;
}

} // namespace collc
