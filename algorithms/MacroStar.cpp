#include "algorithms/MacroStar.h"

#include "algorithms/StarSearch.h"
#include "ir/Permutation.h"

#include <algorithm>
#include <cassert>
#include <unordered_set>

namespace collc {

namespace {

constexpr int32_t Unvisited = -2, IsRoot = -1;

/// Adds \p Plan, rooted at \p Leader, to a forest: nodes the forest already
/// holds keep their place (the plan's call to them is dropped; they hold the
/// message already and do their part themselves); the others get the plan's
/// parent and are appended to \p Order in step order. \p Map is scratch space.
void layPlan(const StarPlan &Plan, const std::vector<int32_t> &ByStep,
             const Symbols &Leader, int K, std::vector<int32_t> &Map,
             std::vector<int32_t> &Parent, std::vector<int32_t> &Order) {
  mapStarPlan(Plan, Leader, K, Map);
  for (int32_t V : ByStep) {
    int32_t Node = Map[V];
    if (Parent[Node] != Unvisited)
      continue;
    Parent[Node] = Map[Plan.Parent[V]];
    Order.push_back(Node);
  }
}

/// Times a forest optimally: each node calls its children in decreasing order
/// of their subtrees' broadcast times, one per unit from its start. \p Order
/// lists every node with a parent after that parent; roots start at
/// RootStart. Returns the receive time of every node in Order (indexed by
/// node) and the makespan.
int64_t timeForest(const std::vector<int32_t> &Parent,
                   const std::vector<int32_t> &Roots,
                   const std::vector<int32_t> &RootStart,
                   const std::vector<int32_t> &Order,
                   std::vector<int32_t> &Time) {
  const size_t N = Parent.size();
  std::vector<int32_t> First(N + 1, 0), Kids(Order.size());
  for (int32_t V : Order)
    ++First[Parent[V] + 1];
  for (size_t I = 0; I < N; ++I)
    First[I + 1] += First[I];
  {
    std::vector<int32_t> Fill(First.begin(), First.end() - 1);
    for (int32_t V : Order)
      Kids[Fill[Parent[V]]++] = V;
  }
  std::vector<int32_t> H(N, 0);
  auto SortKids = [&](int32_t V) {
    std::sort(Kids.begin() + First[V], Kids.begin() + First[V + 1],
              [&](int32_t A, int32_t B) { return H[A] > H[B]; });
    int32_t Best = 0, I = 0;
    for (int32_t X = First[V]; X < First[V + 1]; ++X)
      Best = std::max(Best, ++I + H[Kids[X]]);
    H[V] = Best;
  };
  for (size_t I = Order.size(); I-- > 0;)
    SortKids(Order[I]);
  for (int32_t Rt : Roots)
    SortKids(Rt);
  int64_t Makespan = 0;
  auto Place = [&](int32_t V) {
    int32_t I = 0;
    for (int32_t X = First[V]; X < First[V + 1]; ++X)
      Time[Kids[X]] = Time[V] + ++I;
    Makespan = std::max<int64_t>(Makespan, Time[V] + H[V]);
  };
  for (size_t I = 0; I < Roots.size(); ++I) {
    Time[Roots[I]] = RootStart[I];
    Place(Roots[I]);
  }
  for (int32_t V : Order)
    Place(V);
  return Makespan;
}

/// Adds the forest's calls to S (steps [0, Makespan)).
void emitForest(Schedule &S, const std::vector<int32_t> &Parent,
                const std::vector<int32_t> &Order,
                const std::vector<int32_t> &Time, int64_t Makespan) {
  if (static_cast<int64_t>(S.Steps.size()) < Makespan)
    S.Steps.resize(Makespan);
  std::vector<uint32_t> Count(Makespan, 0);
  for (int32_t V : Order)
    ++Count[Time[V] - 1];
  for (int64_t T = 0; T < Makespan; ++T)
    S.Steps[T].Transfers.reserve(S.Steps[T].Transfers.size() + Count[T]);
  for (int32_t V : Order)
    S.Steps[Time[V] - 1].Transfers.push_back(wholeMessageCall(S, Parent[V], V));
}

} // namespace

std::vector<Generator> lemma1Sequence(const StarGraph &G, int C) {
  std::vector<Generator> Seq;
  for (int I = 2; I <= C; ++I)
    Seq.push_back({Generator::S, I});
  for (int J = 2; J <= G.clusterSize() + 1; ++J)
    Seq.push_back({Generator::T, J});
  Seq.push_back({Generator::S, C});
  return Seq;
}

std::vector<Generator> lemma2Sequence(const StarGraph &G, int C, int M) {
  std::vector<Generator> Seq = lemma1Sequence(G, C);
  Seq.push_back({Generator::T, G.clusterSize() - M + 1});
  Seq.push_back({Generator::S, C});
  return Seq;
}

std::vector<Generator> macroStarSequence(const StarGraph &G) {
  std::vector<Generator> Seq;
  for (int C = G.clusters(); C >= 2; --C) {
    auto L1 = lemma1Sequence(G, C);
    Seq.insert(Seq.end(), L1.begin(), L1.end());
    for (int M = 1; M < G.clusterSize(); ++M) {
      auto L2 = lemma2Sequence(G, C, M);
      Seq.insert(Seq.end(), L2.begin(), L2.end());
    }
  }
  return Seq;
}

std::vector<std::vector<StarCall>>
applySequence(const StarGraph &G, const std::vector<Generator> &Seq,
              std::vector<uint8_t> &Informed, std::vector<int64_t> &List) {
  const int K = G.symbols();
  std::vector<std::vector<StarCall>> Steps;
  for (Generator Gen : Seq) {
    std::vector<StarCall> Calls;
    size_t Before = List.size();
    for (size_t I = 0; I < Before; ++I) {
      Symbols P = unrankSymbols(List[I], K);
      G.apply(Gen, P);
      int64_t To = rankSymbols(P, K);
      if (Informed[To])
        continue;
      Informed[To] = 1;
      List.push_back(To);
      Calls.push_back({List[I], To, Gen});
    }
    Steps.push_back(std::move(Calls));
  }
  return Steps;
}

bool macroStarApplies(const Machine &M, const Request &R, std::string &Why) {
  return starGraphApplies(M, R, TopologyKind::MacroStar, "macro-star", Why);
}

llvm::Expected<Schedule> buildMacroStar(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "macro-star");
  const StarGraph G = starGraphOf(M, R, TopologyKind::MacroStar, "macro-star");
  const int64_t N = G.nodes();
  const int K = G.symbols(), Module = G.clusterSize() + 1;
  // Steps 1-3: the generator sequences of Lemmas 1 and 2, cluster by cluster.
  std::vector<uint8_t> Informed(N, 0);
  std::vector<int64_t> List{S.Root};
  Informed[S.Root] = 1;
  auto Phase1 = applySequence(G, macroStarSequence(G), Informed, List);
  // Trailing steps that inform nobody (everything is already reached) go.
  while (!Phase1.empty() && Phase1.back().empty())
    Phase1.pop_back();
  for (const auto &Calls : Phase1) {
    Step St;
    St.Transfers.reserve(Calls.size());
    for (const StarCall &C : Calls)
      St.Transfers.push_back(wholeMessageCall(S, C.From, C.To));
    S.Steps.push_back(std::move(St));
  }
  const int32_t L = static_cast<int32_t>(S.Steps.size());
  // Step 4: star-search inside every base module S_{n+1}, from one informed
  // node per module; the module's other informed nodes join in from step L.
  std::vector<int32_t> Parent(N, Unvisited), Order, Time(N, 0), Roots, Starts;
  for (int64_t V : List) {
    Parent[V] = IsRoot;
    Roots.push_back(static_cast<int32_t>(V));
    Starts.push_back(L);
  }
  StarPlan Plan = starPlan(Module);
  std::vector<int32_t> ByStep = starPlanOrder(Plan), Map;
  std::unordered_set<int64_t> Modules;
  for (int64_t V : List) {
    Symbols P = unrankSymbols(V, K);
    int64_t Key = 0;
    for (int I = Module; I < K; ++I)
      Key = Key * K + P[I];
    if (Modules.insert(Key).second)
      layPlan(Plan, ByStep, P, K, Map, Parent, Order);
  }
  int64_t Makespan = timeForest(Parent, Roots, Starts, Order, Time);
  emitForest(S, Parent, Order, Time, std::max<int64_t>(Makespan, L));
  return S;
}

} // namespace collc
