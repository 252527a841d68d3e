#include "compiler/algorithms/StarSearch.h"

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

/// Set bits of \p X (SWAR: std::popcount becomes a library call without
/// -mpopcnt).
int bitCount(uint32_t X) {
  X = X - (X >> 1 & 0x55555555u);
  X = (X & 0x33333333u) + (X >> 2 & 0x33333333u);
  return static_cast<int>(((X + (X >> 4)) & 0x0f0f0f0fu) * 0x01010101u >> 24);
}

/// Lexicographic rank: the Lehmer digit of position I is the number of
/// smaller symbols not used before I.
int64_t rankOf(const std::array<int8_t, 20> &S, int K) {
  int64_t Rank = 0;
  uint32_t Used = 0;
  for (int I = 0; I < K; ++I) {
    Rank = Rank * (K - I) + bitCount(((1u << S[I]) - 1) & ~Used);
    Used |= 1u << S[I];
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

/// SplitMix64: the deterministic pseudo-random numbers of the plan search.
uint64_t mix(uint64_t X) {
  X += 0x9e3779b97f4a7c15ULL;
  X = (X ^ (X >> 30)) * 0xbf58476d1ce4e5b9ULL;
  X = (X ^ (X >> 27)) * 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

/// Symbols before position I larger than S[I], for the prefix mask \p Pre.
int larger(uint32_t Pre, int Symbol) {
  return bitCount(Pre & (~0u << Symbol << 1));
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
          std::swap(B[I - 1], B[mix(Seed ^ mix(Step * N + I)) % I]);
      for (int32_t X : B) {
        const int32_t *Adj = &Nb[static_cast<int64_t>(X) * D];
        int Off = static_cast<int>(
            mix(Seed ^ (static_cast<uint64_t>(X) << 8 | Step)) % D);
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

/// The nodes of \p Plan in the order of their steps (the root first).
std::vector<int32_t> planOrder(const StarPlan &Plan) {
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
void mapPlan(const StarPlan &Plan, const Perm &Leader, int K,
             std::vector<int32_t> &Map) {
  const int M = Plan.M;
  std::array<int8_t, 20> P{}, U = Leader.S;
  for (int I = 0; I < M; ++I)
    P[I] = static_cast<int8_t>(I);
  Map.resize(Plan.Parent.size());
  for (size_t V = 0; V < Map.size(); ++V) {
    int64_t Code = 0, W = 1;
    uint32_t Pre = 0;
    for (int I = 0; I < M; ++I) {
      U[I] = Leader.S[P[I]];
      W *= I ? I : 1;
      Code += larger(Pre, P[I]) * W;
      Pre |= 1u << P[I];
    }
    Map[Code] = static_cast<int32_t>(rankOf(U, K));
    std::next_permutation(P.begin(), P.begin() + M);
  }
}

/// Adds \p Plan, rooted at \p Leader, to a forest: nodes the forest already
/// holds keep their place (the plan's call to them is dropped; they hold the
/// message already and do their part themselves); the others get the plan's
/// parent and are appended to \p Order in step order. \p Map is scratch space.
void layPlan(const StarPlan &Plan, const std::vector<int32_t> &ByStep,
             const Perm &Leader, int K, std::vector<int32_t> &Map,
             std::vector<int32_t> &Parent, std::vector<int32_t> &Order) {
  mapPlan(Plan, Leader, K, Map);
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
  int Bound = 0;
  while ((int64_t(1) << Bound) < N)
    ++Bound;
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
  // The plan's own timing: re-timing its tree optimally gains nothing on
  // S_4..S_10 (measured), so the calls keep their steps.
  StarPlan Plan = starPlan(G.symbols());
  std::vector<int32_t> Map;
  mapPlan(Plan, permOf(S.Root, G.symbols()), G.symbols(), Map);
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
  StarPlan Plan = starPlan(Module);
  std::vector<int32_t> ByStep = planOrder(Plan), Map;
  std::unordered_set<int64_t> Modules;
  for (int64_t V : List) {
    Perm P = permOf(V, K);
    int64_t Key = 0;
    for (int I = Module; I < K; ++I)
      Key = Key * K + P.S[I];
    if (Modules.insert(Key).second)
      layPlan(Plan, ByStep, P, K, Map, Parent, Order);
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
