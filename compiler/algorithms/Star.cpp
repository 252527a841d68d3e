#include "compiler/algorithms/Star.h"

#include "ir/Permutation.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <limits>
#include <unordered_set>

namespace collc {

namespace {

/// A node as a permutation of symbols 0..k-1 (k <= 20), with its number.
struct Perm {
  std::array<int8_t, 20> S{};
  int64_t Node = 0;
};

int64_t rankOf(const std::array<int8_t, 20> &S, int K) {
  int64_t Rank = 0;
  for (int I = 0; I < K; ++I) {
    int Smaller = 0;
    for (int J = I + 1; J < K; ++J)
      Smaller += S[J] < S[I];
    Rank = Rank * (K - I) + Smaller;
  }
  return Rank;
}

Perm permOf(int64_t Node, int K) {
  std::vector<int> V = unrankPermutation(Node, K);
  Perm P;
  for (int I = 0; I < K; ++I)
    P.S[I] = static_cast<int8_t>(V[I]);
  P.Node = Node;
  return P;
}

void applyTo(const StarGraph &G, Generator Gen, std::array<int8_t, 20> &S) {
  if (Gen.Kind == Generator::T) {
    std::swap(S[0], S[Gen.Index - 1]);
    return;
  }
  int N = G.clusterSize(), Base = (Gen.Index - 1) * N + 1;
  for (int X = 0; X < N; ++X)
    std::swap(S[1 + X], S[Base + X]);
}

constexpr int32_t Unvisited = -2, IsRoot = -1;

/// Step counts of one level of star-optimal and the splits that reach them.
/// A node V working at level m holds a set R of symbols that must each reach
/// position m in some node (one node per sub-star S_{m-1}); y = V[m], x = V[1]:
///  A: y, x in R      -> call along T_m: the new node has x at position m;
///  B: y in R, x not  -> fetch z in R to the front of a new node with T_j;
///  C: y not, x in R  -> call along T_m;
///  D: y, x not in R  -> fetch z in R with T_j.
/// Keep[state][r] is how many symbols V keeps after its call.
struct LevelTables {
  static constexpr int Max = 21;
  int Cost[4][Max];
  int Keep[4][Max];
  LevelTables() {
    enum { A, B, C, D };
    const int Inf = 1 << 20;
    for (auto &Row : Cost)
      std::fill(Row, Row + Max, Inf);
    for (auto &Row : Keep)
      std::fill(Row, Row + Max, 0);
    Cost[B][1] = 0;
    Cost[C][0] = Cost[D][0] = 0;
    for (int R = 1; R < Max; ++R) {
      auto Best = [&](int State, int Lo, int Hi, int KeepState, int GiveState) {
        for (int Kp = Lo; Kp <= Hi; ++Kp) {
          int T = 1 + std::max(Cost[KeepState][Kp], Cost[GiveState][R - Kp]);
          if (T < Cost[State][R]) {
            Cost[State][R] = T;
            Keep[State][R] = Kp;
          }
        }
      };
      // V keeps >= 1 symbol (its own y) in A and B; the new node gets >= 1.
      if (R >= 2) {
        Best(A, 1, R - 1, B, B);
        Best(B, 1, R - 1, B, C);
      }
      Best(C, 0, R - 1, D, B);
      Best(D, 0, R - 1, D, C);
    }
  }
};

const LevelTables &levelTables() {
  static const LevelTables T;
  return T;
}

/// Builds star-optimal's spanning tree of the sub-star of \p G in which
/// positions 0..Levels-1 vary (the whole S_k, or one base module S_{n+1} of a
/// macro-star), from \p Leader. Nodes reached for the first time get Parent =
/// the caller and are appended to \p Order; a node already in the forest is not
/// called again, it carries on the work itself (it is idle, informed earlier).
void starTree(const StarGraph &G, int64_t Leader, int Levels,
              std::vector<int32_t> &Parent, std::vector<int32_t> &Order) {
  const int K = G.symbols();
  const LevelTables &Tab = levelTables();
  struct Role {
    Perm P;
    uint32_t R; ///< Symbols this node still has to place at position M.
    int M;      ///< The level: positions 0..M-1 vary.
  };
  auto AllOf = [](const Perm &P, int M) {
    uint32_t R = 0;
    for (int I = 0; I < M; ++I)
      R |= 1u << P.S[I];
    return R;
  };
  std::vector<Role> Stack;
  Perm P0 = permOf(Leader, K);
  Stack.push_back({P0, AllOf(P0, Levels), Levels});
  while (!Stack.empty()) {
    Role X = Stack.back();
    Stack.pop_back();
    const int M = X.M;
    if (M < 2)
      continue;
    for (;;) {
      const int R = std::popcount(X.R);
      if (R == 0)
        break;
      const int Y = X.P.S[M - 1], Xs = X.P.S[0];
      const bool InY = X.R >> Y & 1, InX = X.R >> Xs & 1;
      if (InY && R == 1) {
        // X leads its sub-star S_{M-1}: the next level starts there.
        Stack.push_back({X.P, AllOf(X.P, M - 1), M - 1});
        break;
      }
      int State = InY ? (InX ? 0 : 1) : (InX ? 2 : 3);
      Perm W = X.P;
      int Must;
      if (InX) {
        std::swap(W.S[0], W.S[M - 1]);
        Must = Xs;
      } else {
        // The lowest symbol of R other than y; it sits at a position 1..M-2.
        uint32_t Cand = X.R & ~(1u << Y);
        Must = std::countr_zero(Cand);
        int J = 1;
        while (X.P.S[J] != Must)
          ++J;
        std::swap(W.S[0], W.S[J]);
      }
      int Keep = Tab.Keep[State][R];
      uint32_t Give = 1u << Must;
      uint32_t Others = X.R & ~Give & (InY ? ~(1u << Y) : ~0u);
      for (int Need = R - Keep - 1; Need > 0; --Need) {
        uint32_t Low = Others & (~Others + 1);
        Give |= Low;
        Others &= ~Low;
      }
      W.Node = rankOf(W.S, K);
      if (Parent[W.Node] == Unvisited) {
        Parent[W.Node] = static_cast<int32_t>(X.P.Node);
        Order.push_back(static_cast<int32_t>(W.Node));
      }
      Stack.push_back({W, Give, M});
      X.R &= ~Give;
    }
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

Transfer wholeMessageCall(const Schedule &S, int64_t From, int64_t To) {
  Transfer T;
  T.Src = static_cast<int32_t>(From);
  T.Dst = static_cast<int32_t>(To);
  T.Bytes = S.Bytes;
  T.Kind = TransferKind::Copy;
  T.Pieces = {S.wholeMessage()};
  return T;
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

bool allNodesInOrder(const Machine &M, const Request &R, const char *Name,
                     std::string &Why) {
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
      Perm P = permOf(List[I], K);
      applyTo(G, Gen, P.S);
      int64_t To = rankOf(P.S, K);
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

int starLevelSteps(int M) {
  assert(M >= 2 && M < LevelTables::Max);
  return levelTables().Cost[0][M];
}

bool starOptimalApplies(const Machine &M, const Request &R, std::string &Why) {
  if (M.Topo.Kind != TopologyKind::Star) {
    Why = "star-optimal needs a star topology";
    return false;
  }
  return allNodesInOrder(M, R, "star-optimal", Why);
}

bool macroStarApplies(const Machine &M, const Request &R, std::string &Why) {
  if (M.Topo.Kind != TopologyKind::MacroStar) {
    Why = "macro-star needs a macro-star topology";
    return false;
  }
  return allNodesInOrder(M, R, "macro-star", Why);
}

llvm::Expected<Schedule> buildStarOptimal(const Machine &M, const Request &R) {
  std::string Why;
  if (!starOptimalApplies(M, R, Why))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "collc: error: %s", Why.c_str());
  Schedule S = scheduleSkeleton(M, R, "star-optimal");
  StarGraph G = *StarGraph::of(M.Topo);
  const int64_t N = G.nodes();
  std::vector<int32_t> Parent(N, Unvisited), Order, Time(N, 0);
  Order.reserve(N);
  Parent[S.Root] = IsRoot;
  starTree(G, S.Root, G.symbols(), Parent, Order);
  int64_t Makespan = timeForest(Parent, {S.Root}, {0}, Order, Time);
  emitForest(S, Parent, Order, Time, Makespan);
  return S;
}

llvm::Expected<Schedule> buildMacroStar(const Machine &M, const Request &R) {
  std::string Why;
  if (!macroStarApplies(M, R, Why))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "collc: error: %s", Why.c_str());
  Schedule S = scheduleSkeleton(M, R, "macro-star");
  StarGraph G = *StarGraph::of(M.Topo);
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
  // Step 4: star-optimal inside every base module S_{n+1}, from one informed
  // node per module; the module's other informed nodes join in from step L.
  std::vector<int32_t> Parent(N, Unvisited), Order, Time(N, 0), Roots, Starts;
  for (int64_t V : List) {
    Parent[V] = IsRoot;
    Roots.push_back(static_cast<int32_t>(V));
    Starts.push_back(L);
  }
  std::unordered_set<int64_t> Modules;
  for (int64_t V : List) {
    Perm P = permOf(V, K);
    int64_t Key = 0;
    for (int I = Module; I < K; ++I)
      Key = Key * K + P.S[I];
    if (Modules.insert(Key).second)
      starTree(G, V, Module, Parent, Order);
  }
  int64_t Makespan = timeForest(Parent, Roots, Starts, Order, Time);
  emitForest(S, Parent, Order, Time, std::max<int64_t>(Makespan, L));
  return S;
}

bool greedyApplies(const Machine &M, const Request &R, std::string &Why) {
  if (R.Coll != Collective::Bcast) {
    Why = "greedy builds broadcasts";
    return false;
  }
  (void)M;
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
  bool Complete =
      Topo.Kind == TopologyKind::Full || Topo.Kind == TopologyKind::Min;
  if (Complete) {
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
      Perm Pm = permOf(Node, Graph->symbols());
      for (Generator Gen : Graph->generators()) {
        Perm Q = Pm;
        applyTo(*Graph, Gen, Q.S);
        Add(rankOf(Q.S, Graph->symbols()));
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
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "collc: error: greedy: the participants are not connected in the %s "
          "topology (%lld of %d ranks reachable from the root)",
          topologyKindName(Topo.Kind), static_cast<long long>(Count), P);
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
