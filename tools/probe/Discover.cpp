//===- Discover.cpp - leaf switches from concurrent flows -----------------===//
//
// See Discover.h.
//
//===----------------------------------------------------------------------===//

#include "tools/probe/Discover.h"

#include "tools/probe/Fit.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>

namespace collc::probe {

std::vector<int> derangement(int N, uint64_t Seed) {
  std::mt19937_64 Rng(Seed);
  std::vector<int> To(static_cast<size_t>(N));
  // Sattolo's shuffle: a uniformly random cycle through every node, which
  // sends no node to itself.
  std::iota(To.begin(), To.end(), 0);
  for (int I = N - 1; I > 0; --I) {
    std::uniform_int_distribution<int> Pick(0, I - 1);
    std::swap(To[static_cast<size_t>(I)], To[static_cast<size_t>(Pick(Rng))]);
  }
  return To;
}

std::vector<int> roundTargets(int N, int Round, uint64_t Seed) {
  if (Round >= N - 1)
    return derangement(N, Seed + static_cast<uint64_t>(Round));
  // Shifts N/2, N/2 + 1, N/2 - 1, N/2 + 2, ...: the Round-th of them.
  const int Step = (Round + 1) / 2;
  const int Shift =
      ((N / 2 + (Round % 2 ? Step : -Step)) % (N - 1) + (N - 1)) % (N - 1) + 1;
  std::vector<int> To(static_cast<size_t>(N));
  for (int I = 0; I < N; ++I)
    To[static_cast<size_t>(I)] = (I + Shift) % N;
  return To;
}

namespace {

/// Union-find over the nodes.
struct Classes {
  std::vector<int> Up;
  explicit Classes(int N) : Up(static_cast<size_t>(N)) {
    std::iota(Up.begin(), Up.end(), 0);
  }
  int find(int X) {
    while (Up[static_cast<size_t>(X)] != X)
      X = Up[static_cast<size_t>(X)] = Up[static_cast<size_t>(Up[X])];
    return X;
  }
  void join(int A, int B) {
    A = find(A);
    B = find(B);
    if (A != B)
      Up[static_cast<size_t>(std::max(A, B))] = std::min(A, B);
  }
};

std::pair<int, int> pairOf(int A, int B) {
  return {std::min(A, B), std::max(A, B)};
}

/// Flows of a pair of nodes: slowed, and not.
using PairFlows = std::map<std::pair<int, int>, std::pair<unsigned, unsigned>>;

/// The classes of the pairs slowed in at most \p Tolerance of their flows
/// (0: never slowed; above 0, of four flows or more), checked: a pair slowed
/// inside a class is noise when at most one in four of its flows (of four
/// or more) was slowed and such flows are few (at most one in ten of the
/// flows inside classes); otherwise the flows contradict a tree of switches.
/// Fills \p D's Result (but for Leaves, left Unclear), Groups, Noise, Why.
void partition(int N, const PairFlows &Seen, double Tolerance, Discovery &D) {
  auto MostlyFast = [](std::pair<unsigned, unsigned> Count, double Most) {
    const unsigned Flows = Count.first + Count.second;
    return Count.first == 0 ||
           (Most > 0 && Flows >= 4 && Count.first <= Most * Flows);
  };
  Classes C(N);
  for (const auto &[Pair, Count] : Seen)
    if (MostlyFast(Count, Tolerance))
      C.join(Pair.first, Pair.second);
  unsigned Inside = 0;
  for (const auto &[Pair, Count] : Seen)
    if (C.find(Pair.first) == C.find(Pair.second)) {
      const unsigned Flows = Count.first + Count.second;
      Inside += Flows;
      if (!MostlyFast(Count, 0.25)) {
        D.Why = "nodes " + std::to_string(Pair.first) + " and " +
                std::to_string(Pair.second) + " were slowed in " +
                std::to_string(Count.first) + " of " + std::to_string(Flows) +
                " flows, yet flows put them on one switch";
        return;
      }
      D.Noise += Count.first;
    }
  if (D.Noise > std::max(1u, Inside / 10)) {
    D.Why = std::to_string(D.Noise) + " of " + std::to_string(Inside) +
            " flows inside leaves were slowed: more than noise";
    return;
  }
  std::map<int, std::vector<int>> ByClass;
  for (int I = 0; I < N; ++I)
    ByClass[C.find(I)].push_back(I);
  for (auto &[Root, Members] : ByClass)
    D.Groups.push_back(Members);
  if (D.Groups.size() < 2) {
    // Every slowed flow was noise.
    D.Result = Discovery::OneSwitch;
    return;
  }
  if (D.Groups.size() == static_cast<size_t>(N))
    D.Why = "flows between any two nodes were slowed: a link every flow "
            "shares (a backbone), which no leaf switches explain";
}

} // namespace

Discovery inferLeaves(int N, const std::vector<FlowSample> &Samples,
                      double Alone, double Slow) {
  double FullRate = Alone;
  for (const FlowSample &S : Samples)
    FullRate = std::max(FullRate, S.Rate);
  PairFlows Seen;
  unsigned Slowed = 0;
  for (const FlowSample &S : Samples) {
    if (S.Src == S.Dst || S.Src < 0 || S.Dst < 0 || S.Src >= N || S.Dst >= N)
      continue;
    std::pair<unsigned, unsigned> &P = Seen[pairOf(S.Src, S.Dst)];
    if (S.Rate < Slow * FullRate) {
      ++P.first;
      ++Slowed;
    } else {
      ++P.second;
    }
  }
  // Noise only ever slows a flow, so it can only split a leaf (a pair of
  // one leaf seen slowed is not joined): when "never slowed" gives leaves
  // that no fat tree has (unequal, out of rank order), pairs slowed now and
  // then are joined too, and the first tolerance giving a tree wins.
  Discovery D;
  for (double Tolerance : {0.0, 0.125, 0.25}) {
    Discovery Try;
    partition(N, Seen, Tolerance, Try);
    if (Try.Why.empty() && Try.Result == Discovery::Unclear)
      Try.Result = Discovery::Leaves;
    if (Tolerance == 0.0)
      D = Try;
    if (Try.Result == Discovery::OneSwitch ||
        (Try.Result == Discovery::Leaves && contiguousLeaves(Try))) {
      D = Try;
      break;
    }
    if (D.Result == Discovery::Unclear && Try.Result == Discovery::Leaves)
      D = Try;
  }
  D.FullRate = FullRate;
  D.Slowed = Slowed;
  if (D.Result != Discovery::Leaves)
    return D;
  // Each slowed flow against the flows that shared its busiest uplink in its
  // round.
  std::vector<int> LeafOf(static_cast<size_t>(N));
  for (size_t G = 0; G < D.Groups.size(); ++G)
    for (int Node : D.Groups[G])
      LeafOf[static_cast<size_t>(Node)] = static_cast<int>(G);
  std::map<std::pair<int, int>, unsigned> Out, In; // (round, leaf) -> flows
  for (const FlowSample &S : Samples) {
    int A = LeafOf[static_cast<size_t>(S.Src)],
        B = LeafOf[static_cast<size_t>(S.Dst)];
    if (A != B) {
      ++Out[{S.Round, A}];
      ++In[{S.Round, B}];
    }
  }
  std::vector<double> Capacity;
  for (const FlowSample &S : Samples) {
    int A = LeafOf[static_cast<size_t>(S.Src)],
        B = LeafOf[static_cast<size_t>(S.Dst)];
    if (A == B || S.Rate >= Slow * FullRate)
      continue; // inside a leaf: noise, which says nothing of the uplinks
    unsigned Sharing = std::max(Out[{S.Round, A}], In[{S.Round, B}]);
    Capacity.push_back(Sharing * S.Rate / FullRate);
  }
  D.Capacity = Capacity.empty() ? 0 : median(Capacity);
  return D;
}

bool contiguousLeaves(const Discovery &D) {
  if (D.Groups.empty())
    return false;
  const size_t K = D.Groups.front().size();
  int Next = 0;
  for (const std::vector<int> &G : D.Groups) {
    if (G.size() != K)
      return false;
    for (int Node : G)
      if (Node != Next++)
        return false;
  }
  return true;
}

bool enoughRounds(int N, const std::vector<FlowSample> &Samples,
                  unsigned Times) {
  std::map<std::pair<int, int>, unsigned> Seen;
  for (const FlowSample &S : Samples)
    ++Seen[pairOf(S.Src, S.Dst)];
  for (int A = 0; A < N; ++A)
    for (int B = A + 1; B < N; ++B) {
      auto It = Seen.find({A, B});
      if (It == Seen.end() || It->second < Times)
        return false;
    }
  return true;
}

} // namespace collc::probe
