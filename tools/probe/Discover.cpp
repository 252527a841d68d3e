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

} // namespace

Discovery inferLeaves(int N, const std::vector<FlowSample> &Samples,
                      double Alone, double Slow) {
  Discovery D;
  D.FullRate = Alone;
  for (const FlowSample &S : Samples)
    D.FullRate = std::max(D.FullRate, S.Rate);
  std::set<std::pair<int, int>> Slowed, Fast;
  for (const FlowSample &S : Samples) {
    if (S.Src == S.Dst || S.Src < 0 || S.Dst < 0 || S.Src >= N || S.Dst >= N)
      continue;
    if (S.Rate < Slow * D.FullRate) {
      Slowed.insert(pairOf(S.Src, S.Dst));
      ++D.Slowed;
    } else {
      Fast.insert(pairOf(S.Src, S.Dst));
    }
  }
  if (Slowed.empty()) {
    D.Result = Discovery::OneSwitch;
    std::vector<int> All(static_cast<size_t>(N));
    std::iota(All.begin(), All.end(), 0);
    D.Groups.push_back(All);
    return D;
  }
  // The classes of "never slowed" (pairs seen fast and never slowed).
  Classes C(N);
  for (const std::pair<int, int> &P : Fast)
    if (!Slowed.count(P))
      C.join(P.first, P.second);
  for (const std::pair<int, int> &P : Slowed)
    if (C.find(P.first) == C.find(P.second)) {
      D.Why = "nodes " + std::to_string(P.first) + " and " +
              std::to_string(P.second) +
              " were slowed, yet flows put them on one switch";
      return D;
    }
  std::map<int, std::vector<int>> ByClass;
  for (int I = 0; I < N; ++I)
    ByClass[C.find(I)].push_back(I);
  for (auto &[Root, Members] : ByClass)
    D.Groups.push_back(Members);
  if (D.Groups.size() < 2) {
    D.Why = "slowed flows, but one class of nodes";
    return D;
  }
  if (D.Groups.size() == static_cast<size_t>(N)) {
    D.Why = "flows between any two nodes were slowed: a link every flow "
            "shares (a backbone), which no leaf switches explain";
    return D;
  }
  D.Result = Discovery::Leaves;
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
    if (A == B || S.Rate >= Slow * D.FullRate)
      continue;
    unsigned Sharing = std::max(Out[{S.Round, A}], In[{S.Round, B}]);
    Capacity.push_back(Sharing * S.Rate / D.FullRate);
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
