#include "algorithms/Greedy.h"

#include "ir/Permutation.h"
#include "ir/StarGraph.h"

#include <algorithm>
#include <limits>

namespace collc {

namespace {

/// Every pair of nodes is joined (a crossbar, or a switched network whose
/// routes reach every node).
bool completeGraph(const Topology &T) {
  switch (T.Kind) {
  case TopologyKind::Full:
  case TopologyKind::Min:
  case TopologyKind::FatTree:
  case TopologyKind::Cluster:
    return true;
  default:
    return false;
  }
}

} // namespace

bool greedyApplies(const Machine &M, const Request &R, std::string &Why) {
  if (R.Coll != Collective::Bcast) {
    Why = "greedy builds broadcasts";
    return false;
  }
  if (completeGraph(M.Topo))
    return true;
  // Its neighbours are the nodes next to a rank's node: one rank each.
  std::vector<int64_t> Nodes = R.Nodes;
  std::sort(Nodes.begin(), Nodes.end());
  if (std::adjacent_find(Nodes.begin(), Nodes.end()) != Nodes.end()) {
    Why = std::string("greedy needs one rank per node on a ") +
          topologyKindName(M.Topo.Kind);
    return false;
  }
  return true;
}

bool greedyInAuto(const Machine &M, const Request &R, std::string &Why) {
  if (M.Topo.Kind != TopologyKind::Star &&
      M.Topo.Kind != TopologyKind::MacroStar) {
    Why = "auto tries greedy on star and macro-star graphs only";
    return false;
  }
  if (R.Nodes.size() > 362880) {
    Why = "auto tries greedy up to 362880 ranks";
    return false;
  }
  return true;
}

llvm::Expected<Schedule> buildGreedy(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "greedy");
  const int32_t P = S.size();
  const Topology &Topo = M.Topo;
  std::vector<uint8_t> Informed(P, 0);
  std::vector<int32_t> Holders{S.Root};
  Informed[S.Root] = 1;
  int64_t Count = 1;
  if (completeGraph(Topo)) {
    // Every pair is joined: a maximum matching pairs min(|informed|,
    // |uninformed|) ranks, i.e. recursive doubling.
    int32_t Next = 0;
    while (Count < P) {
      Step St;
      size_t H = Holders.size();
      for (size_t I = 0; I < H && Count < P; ++I) {
        while (Informed[Next])
          ++Next;
        Informed[Next] = 1;
        ++Count;
        Holders.push_back(Next);
        St.Transfers.push_back(wholeMessageCall(S, Holders[I], Next));
      }
      S.Steps.push_back(std::move(St));
    }
    return S;
  }
  // Neighbours among the participants, in CSR form.
  std::vector<int32_t> RankOf(Topo.Nodes, -1);
  for (int32_t Rk = 0; Rk < P; ++Rk)
    RankOf[S.Participants[Rk].Node] = Rk;
  std::vector<int64_t> First(static_cast<size_t>(P) + 1, 0);
  std::vector<int32_t> Adj;
  auto Graph = StarGraph::of(Topo);
  for (int32_t Rk = 0; Rk < P; ++Rk) {
    int64_t Node = S.Participants[Rk].Node;
    auto Add = [&](int64_t Nb) {
      if (Nb >= 0 && Nb < Topo.Nodes && RankOf[Nb] >= 0 && Nb != Node)
        Adj.push_back(RankOf[Nb]);
    };
    if (Graph) {
      Symbols Pm = unrankSymbols(Node, Graph->symbols());
      for (Generator Gen : Graph->generators()) {
        Symbols Q = Pm;
        Graph->apply(Gen, Q);
        Add(rankSymbols(Q, Graph->symbols()));
      }
    } else {
      std::vector<int64_t> C = Topo.coordOf(Node);
      size_t Start = Adj.size();
      for (size_t D = 0; D < C.size(); ++D)
        for (int Dir : {-1, 1}) {
          std::vector<int64_t> X = C;
          X[D] += Dir;
          if (Topo.Kind == TopologyKind::Torus)
            X[D] = (X[D] + Topo.Dims[D]) % Topo.Dims[D];
          if (X[D] < 0 || X[D] >= Topo.Dims[D])
            continue;
          int64_t Nb = Topo.nodeOf(X);
          // On a torus of extent 2 both directions reach the same node.
          if (RankOf[Nb] >= 0 && std::find(Adj.begin() + Start, Adj.end(),
                                           RankOf[Nb]) != Adj.end())
            continue;
          Add(Nb);
        }
    }
    First[Rk + 1] = static_cast<int64_t>(Adj.size());
  }
  // Hopcroft-Karp between the informed ranks that still have uninformed
  // neighbours (left) and the uninformed ranks (right).
  const int32_t Inf = std::numeric_limits<int32_t>::max();
  std::vector<int32_t> MatchR(P, -1);
  std::vector<int32_t> Left, MatchL, Dist, Via, Queue, Stack;
  std::vector<int64_t> It;
  while (Count < P) {
    Left.clear();
    for (int32_t U : Holders)
      for (int64_t E = First[U]; E < First[U + 1]; ++E)
        if (!Informed[Adj[E]]) {
          Left.push_back(U);
          break;
        }
    if (Left.empty())
      return notApplicable(
          "greedy", llvm::Twine("the participants are not connected in the ") +
                        topologyKindName(Topo.Kind) + " topology (" +
                        llvm::Twine(static_cast<long long>(Count)) + " of " +
                        llvm::Twine(P) + " ranks reachable from the root)");
    // Holders without uninformed neighbours never get one again.
    Holders = Left;
    const int32_t NL = static_cast<int32_t>(Left.size());
    MatchL.assign(NL, -1);
    Dist.assign(NL, Inf);
    Via.assign(NL, -1);
    It.assign(NL, 0);
    for (int32_t I = 0; I < NL; ++I)
      for (int64_t E = First[Left[I]]; E < First[Left[I] + 1]; ++E) {
        int32_t V = Adj[E];
        if (!Informed[V] && MatchR[V] < 0) {
          MatchL[I] = V;
          MatchR[V] = I;
          break;
        }
      }
    for (;;) {
      Queue.clear();
      for (int32_t I = 0; I < NL; ++I) {
        Dist[I] = MatchL[I] < 0 ? 0 : Inf;
        if (MatchL[I] < 0)
          Queue.push_back(I);
      }
      bool Found = false;
      for (size_t Q = 0; Q < Queue.size(); ++Q) {
        int32_t I = Queue[Q];
        for (int64_t E = First[Left[I]]; E < First[Left[I] + 1]; ++E) {
          int32_t V = Adj[E];
          if (Informed[V])
            continue;
          int32_t W = MatchR[V];
          if (W < 0)
            Found = true;
          else if (Dist[W] == Inf) {
            Dist[W] = Dist[I] + 1;
            Queue.push_back(W);
          }
        }
      }
      if (!Found)
        break;
      for (int32_t I = 0; I < NL; ++I)
        It[I] = First[Left[I]];
      for (int32_t Free = 0; Free < NL; ++Free) {
        if (MatchL[Free] >= 0 || Dist[Free] != 0)
          continue;
        Stack.assign(1, Free);
        while (!Stack.empty()) {
          int32_t I = Stack.back();
          if (It[I] == First[Left[I] + 1]) {
            Dist[I] = Inf;
            Stack.pop_back();
            continue;
          }
          int32_t V = Adj[It[I]++];
          if (Informed[V])
            continue;
          int32_t W = MatchR[V];
          if (W < 0) {
            Via[I] = V;
            for (int32_t X : Stack) {
              MatchL[X] = Via[X];
              MatchR[Via[X]] = X;
            }
            Stack.clear();
          } else if (Dist[W] == Dist[I] + 1) {
            Via[I] = V;
            Stack.push_back(W);
          }
        }
      }
    }
    Step St;
    for (int32_t I = 0; I < NL; ++I)
      if (MatchL[I] >= 0)
        St.Transfers.push_back(wholeMessageCall(S, Left[I], MatchL[I]));
    for (const Transfer &T : St.Transfers) {
      Informed[T.Dst] = 1;
      MatchR[T.Dst] = -1;
      ++Count;
      Holders.push_back(T.Dst);
    }
    S.Steps.push_back(std::move(St));
  }
  return S;
}

} // namespace collc
