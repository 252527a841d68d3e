#include "algorithms/TwoLevel.h"

#include "algorithms/Cheapest.h"
#include "algorithms/Personalized.h"
#include "algorithms/Placement.h"
#include "algorithms/Reducer.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace collc {

namespace {

/// The nodes' ranks (ranksByNode), nodes in node order from the root's, and
/// each node's leader first: the root on its node, else the lowest rank.
std::vector<std::vector<int32_t>> nodesFromRoot(const Schedule &S) {
  std::vector<std::vector<int32_t>> Nodes = ranksByNode(S);
  const auto Own = std::find_if(Nodes.begin(), Nodes.end(), [&](const auto &N) {
    return std::find(N.begin(), N.end(), S.Root) != N.end();
  });
  std::rotate(Nodes.begin(), Own, Nodes.end());
  std::vector<int32_t> &First = Nodes.front();
  std::rotate(First.begin(), std::find(First.begin(), First.end(), S.Root),
              std::find(First.begin(), First.end(), S.Root) + 1);
  return Nodes;
}

/// Lists the two-level reduction's transfers, the vector in \p Chunks
/// chunks: \p AcrossLeaders fills the leaders' part, given the Reducer, the
/// leaders and the next free group tag, and returns the next free tag.
template <typename AcrossFn>
Schedule twoLevel(const Machine &M, const Request &R, int64_t Chunks,
                  AcrossFn AcrossLeaders) {
  Schedule S = scheduleSkeleton(M, R, "two-level");
  S.NumChunks = Chunks;
  const int32_t P = S.size();
  const std::vector<std::vector<int32_t>> Nodes =
      R.Coll == Collective::Reduce ? nodesFromRoot(S) : ranksByNode(S);
  std::vector<int32_t> Leaders;
  for (const std::vector<int32_t> &N : Nodes)
    Leaders.push_back(N.front());
  Reducer Rd(S);
  // 1. Inside every node, every rank to its leader at once (group 0).
  for (const std::vector<int32_t> &N : Nodes)
    for (size_t I = 1; I < N.size(); ++I)
      Rd.send(N[I], N.front(), 0, Chunks, TransferKind::Combine, 0, 1,
              /*Tag=*/0);
  // 2. Across the leaders.
  int64_t Tag = AcrossLeaders(Rd, Leaders, int64_t(1));
  // 3. Allreduce: every leader hands the result to its node's ranks.
  if (R.Coll == Collective::Allreduce)
    for (const std::vector<int32_t> &N : Nodes)
      for (size_t I = 1; I < N.size(); ++I)
        Rd.send(N.front(), N[I], 0, Chunks, TransferKind::Copy, 0, 1, Tag);
  S.Steps = groupedRounds(M, std::move(Rd.Ts), P, Rd.Tags);
  return S;
}

/// The k-nomial reduce of radix \p K over \p Leaders to Leaders[0]: at level
/// L (m = K^L), leader i with i mod Km = 0 folds in leaders i + jm, j = 1 ..
/// K - 1, each bringing its subtree [i + jm, i + (j + 1)m). A leader sends
/// in the group of its subtree's height (not of its level), so a parent
/// receives the children whose subtrees are done together, as MVAPICH2's
/// k-nomial posts every child's receive at once: with n = 20 and K = 4, the
/// root takes 16 (subtree 16..19, height 1) with 4, 8 and 12, not a round
/// after them.
int64_t knomialAcross(Reducer &Rd, const std::vector<int32_t> &Leaders,
                      int64_t Tag, int64_t K) {
  const int64_t N = static_cast<int64_t>(Leaders.size());
  struct Edge {
    int64_t Child, Parent, Height;
  };
  std::vector<Edge> Edges;
  int64_t Top = 0;
  for (int64_t Mm = 1; Mm < N; Mm *= K)
    for (int64_t I = 0; I + Mm < N; I += K * Mm)
      for (int64_t J = 1; J < K && I + J * Mm < N; ++J) {
        // The subtree [c, c + m) holds levels up to the highest m' < m
        // with c + m' < N (its children of level m' exist).
        const int64_t C = I + J * Mm;
        int64_t H = 0;
        for (int64_t Sub = 1; Sub < Mm && C + Sub < N; Sub *= K)
          ++H;
        Edges.push_back({C, I, H});
        Top = std::max(Top, H);
      }
  // Children before parents: by height, then as the levels list them.
  std::stable_sort(
      Edges.begin(), Edges.end(),
      [](const Edge &A, const Edge &B) { return A.Height < B.Height; });
  for (const Edge &E : Edges)
    Rd.send(Leaders[E.Child], Leaders[E.Parent], 0, 1, TransferKind::Combine, 0,
            1, Tag + E.Height);
  return Edges.empty() ? Tag : Tag + Top + 1;
}

/// Recursive doubling over \p Leaders (MPICH's order for any count): with n
/// leaders and 2^d <= n < 2^(d+1), leader 2i + 1 < 2 (n - 2^d) first folds
/// into leader 2i; the 2^d left exchange whole vectors with partners at
/// distances 1, 2, 4, ...; then leader 2i copies the result to 2i + 1.
int64_t doublingAcross(Reducer &Rd, const std::vector<int32_t> &Leaders,
                       int64_t Tag) {
  const int64_t N = static_cast<int64_t>(Leaders.size());
  int64_t Core = 1;
  while (Core * 2 <= N)
    Core *= 2;
  const int64_t Extra = N - Core;
  auto CoreRank = [&](int64_t C) {
    return Leaders[C < Extra ? 2 * C : C + Extra];
  };
  if (Extra > 0) {
    for (int64_t I = 0; I < Extra; ++I)
      Rd.send(Leaders[2 * I + 1], Leaders[2 * I], 0, 1, TransferKind::Combine,
              0, 1, Tag);
    ++Tag;
  }
  for (int64_t D = 1; D < Core; D *= 2, ++Tag) {
    // An exchange: both partners read the values before it.
    Rd.begin();
    for (int64_t C = 0; C < Core; ++C)
      Rd.send(CoreRank(C), CoreRank(C ^ D), 0, 1, TransferKind::Combine, 0, 1,
              Tag);
    Rd.end();
  }
  if (Extra > 0) {
    for (int64_t I = 0; I < Extra; ++I)
      Rd.send(Leaders[2 * I], Leaders[2 * I + 1], 0, 1, TransferKind::Copy, 0,
              1, Tag);
    ++Tag;
  }
  return Tag;
}

/// Every leader sends its vector to every other at once; each folds them.
int64_t directAcross(Reducer &Rd, const std::vector<int32_t> &Leaders,
                     int64_t Tag) {
  const size_t N = Leaders.size();
  if (N < 2)
    return Tag;
  Rd.begin();
  for (size_t D = 1; D < N; ++D)
    for (size_t I = 0; I < N; ++I)
      Rd.send(Leaders[I], Leaders[(I + D) % N], 0, 1, TransferKind::Combine, 0,
              1, Tag);
  Rd.end();
  return Tag + 1;
}

/// Reduce-scatter by one all-to-all over \p Leaders (SMPI's rab2, MPICH's
/// reduce-scatter + gather in one round each): the vector's \p K chunks
/// (K <= n), leader b owns chunk b, and every leader sends each owner its
/// chunk at once; then the owners send the folded chunks to Leaders[0]
/// (\p Gather) or to every leader, at once.
int64_t blocksAcross(Reducer &Rd, const std::vector<int32_t> &Leaders,
                     int64_t Tag, int64_t K, bool Gather) {
  const int64_t N = static_cast<int64_t>(Leaders.size());
  assert(K <= N && "a chunk per owner");
  for (int64_t B = 0; B < K; ++B)
    for (int64_t D = 1; D < N; ++D)
      Rd.send(Leaders[(B + D) % N], Leaders[B], B, B + 1, TransferKind::Combine,
              0, 1, Tag);
  for (int64_t B = 0; B < K; ++B)
    for (int64_t D = 1; D < N; ++D)
      if (!Gather || (B + D) % N == 0)
        Rd.send(Leaders[B], Leaders[(B + D) % N], B, B + 1, TransferKind::Copy,
                0, 1, Tag + 1);
  return Tag + 2;
}

/// The node count of \p R's ranks.
int64_t nodeCount(const Request &R) {
  std::vector<int64_t> Nodes = R.Nodes;
  std::sort(Nodes.begin(), Nodes.end());
  return std::unique(Nodes.begin(), Nodes.end()) - Nodes.begin();
}

} // namespace

bool twoLevelApplies(const Machine &, const Request &R, std::string &Why) {
  if (!commutativeOperator(R,
                           "a node's ranks fold into their leader whatever "
                           "their ranks: a commutative operator",
                           Why))
    return false;
  // The ranks' messages to and from their leaders, and the leaders'
  // k-nomial tree or recursive doubling (2 per leader and round).
  return transfersFit(2.0 * R.size() * (ceilLog2(R.size()) + 2), Why);
}

llvm::Expected<Schedule>
buildTwoLevelReduction(const Machine &M, const Request &R, Pipeline &Pl) {
  Cheapest Search(M, Pl, makespanJudge());
  // The whole vector across the leaders, as one chunk.
  auto Whole = [&](auto Across) {
    return [&M, &R, Across] {
      return twoLevel(M, R, 1,
                      [&](Reducer &Rd, const std::vector<int32_t> &L,
                          int64_t T) { return Across(Rd, L, T); });
    };
  };
  const int64_t N = nodeCount(R);
  // Reduce-scatter over the leaders: n (n - 1) messages of a chunk each, at
  // least an element a chunk.
  const int64_t Blocks = std::min<int64_t>(
      N, static_cast<int64_t>(R.Bytes / elementBytes(R.Datatype)));
  std::string Why;
  // With one rank a node that is reduce-scatter-direct's schedule, left to
  // it (the two would tie but for rounding, and auto alternate).
  const bool Scatter = Blocks >= 2 && N < R.size() &&
                       transfersFit(2.0 * double(N) * double(N - 1), Why);
  auto Scattered = [&] {
    return twoLevel(M, R, Blocks,
                    [&](Reducer &Rd, const std::vector<int32_t> &L, int64_t T) {
                      return blocksAcross(Rd, L, T, Blocks,
                                          R.Coll == Collective::Reduce);
                    });
  };
  if (R.Coll == Collective::Reduce) {
    for (int64_t K : {2, 3, 4, 8}) {
      CandidateHooks Hooks;
      Hooks.TieKey = K == 4 ? 0 : K;
      Search.consider(
          "k=" + llvm::Twine(K),
          Whole([K](Reducer &Rd, const std::vector<int32_t> &L, int64_t T) {
            return knomialAcross(Rd, L, T, K);
          }),
          Hooks);
    }
    if (Scatter) {
      CandidateHooks Hooks;
      Hooks.TieKey = 100;
      Search.consider("across=reduce-scatter", Scattered, Hooks);
    }
    return Search.take();
  }
  assert(R.Coll == Collective::Allreduce && "two-level serves reductions");
  Search.consider("across=doubling", Whole(doublingAcross));
  // One exchange among the leaders, n (n - 1) messages at once: on a
  // machine with a network (a model's ports would take them one at a time,
  // and each would no longer read the values before the exchange).
  if (M.Net && transfersFit(double(N) * double(N - 1) + 2.0 * R.size(), Why))
    Search.consider("across=direct", Whole(directAcross));
  if (Scatter)
    Search.consider("across=reduce-scatter", Scattered);
  return Search.take();
}

} // namespace collc
