#include "algorithms/SegmentedBcast.h"

#include "algorithms/Placement.h"
#include "passes/StepCost.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace collc {

namespace {

/// At most one segment per byte; at least one segment.
int64_t maxSegments(const Request &R) {
  return std::max<int64_t>(1, static_cast<int64_t>(R.Bytes));
}

} // namespace

bool segmentedBcastApplies(const Machine &M, const Request &R,
                           std::string &Why) {
  if (R.Algorithm == "auto" && M.M.Kind != ModelKind::Linear) {
    Why = "auto picks segmented broadcasts only under the linear model";
    return false;
  }
  return true;
}

bool scatterAllgatherApplies(const Machine &M, const Request &R,
                             std::string &Why) {
  if (!segmentedBcastApplies(M, R, Why))
    return false;
  // The ring allgather passes each of the K segment owners' segments P - 1
  // times (K = P where every rank owns a segment), after the scatter's
  // P - 1 transfers.
  const int64_t P = R.size();
  const int64_t K = ScatterBlocks::count(P, R.Bytes);
  return transfersFit(double(P - 1) * double(K + 1), Why);
}

double pipelineOptimalSegments(const Machine &M, int64_t P, uint64_t Bytes) {
  Affine Hold = M.M.holdAffine();
  double Ts = Hold.Base, PerByte = Hold.PerByte;
  if (Ts <= 0)
    return static_cast<double>(Bytes);
  return std::sqrt(std::max<int64_t>(P - 2, 0) * static_cast<double>(Bytes) *
                   PerByte / Ts);
}

llvm::Expected<Schedule> buildEdgeDisjoint(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "edge-disjoint");
  const int32_t P = S.size();
  const int D = ceilLog2(P);
  if (P < 2)
    return S;
  S.NumChunks = std::min<int64_t>({D, maxSegments(R), maxSegmentsFor(P)});
  const int64_t Parts = S.NumChunks;
  const int64_t Cube = int64_t(1) << D;
  // Holders of part j per relative node, simulated on the full cube; nodes
  // >= P do not exist, so what would pass through them is completed later.
  std::vector<std::vector<bool>> Has(Cube, std::vector<bool>(Parts, false));
  for (int64_t J = 0; J < Parts; ++J)
    Has[0][J] = true;
  std::vector<std::pair<int64_t, Transfer>> Tagged;
  // Tree j runs in steps j .. j + d: at step j + t it uses dimension
  // (j + t) mod d; t = 0 is root -> 2^j, t = 1..d-1 spread among the nodes
  // with bit j set, t = d crosses dimension j to the nodes without it.
  for (int64_t Step = 0; Step < Parts + D; ++Step) {
    int Dim = static_cast<int>(Step % D);
    std::vector<std::pair<int64_t, int64_t>> Moves; // (from, part)
    for (int64_t J = 0; J < Parts; ++J) {
      int64_t T = Step - J;
      if (T < 0 || T > D)
        continue;
      for (int64_t X = 0; X < Cube; ++X) {
        if (!Has[X][J])
          continue;
        int64_t Y = X ^ (int64_t(1) << Dim);
        bool Send;
        if (T == 0)
          Send = X == 0;
        else if (T < D)
          Send = (X >> J & 1) && !Has[Y][J];
        else
          Send = (X >> J & 1) && Y != 0;
        if (Send)
          Moves.push_back({X, J});
      }
    }
    for (auto &[X, J] : Moves) {
      int64_t Y = X ^ (int64_t(1) << Dim);
      Has[Y][J] = true;
      if (X < P && Y < P)
        Tagged.push_back(
            {Step, rootChunksCall(S, relRank(X, S.Root, P),
                                  relRank(Y, S.Root, P), {J, J + 1})});
    }
  }
  // Real holders: replay the kept transfers.
  std::vector<std::vector<bool>> Held(P, std::vector<bool>(Parts, false));
  Held[S.Root].assign(Parts, true);
  // Keep only transfers whose sender really holds the part (a part that went
  // through a missing node is not forwarded from there).
  std::stable_sort(
      Tagged.begin(), Tagged.end(),
      [](const auto &A, const auto &B) { return A.first < B.first; });
  std::vector<std::pair<int64_t, Transfer>> Kept;
  for (size_t I = 0; I < Tagged.size();) {
    size_t E = I;
    while (E < Tagged.size() && Tagged[E].first == Tagged[I].first)
      ++E;
    std::vector<std::pair<int32_t, int64_t>> Got;
    for (size_t X = I; X < E; ++X) {
      const Transfer &T = Tagged[X].second;
      int64_t J = T.Pieces[0].Chunks.Lo;
      if (Held[T.Src][J] && !Held[T.Dst][J]) {
        Got.push_back({T.Dst, J});
        Kept.push_back(std::move(Tagged[X]));
      }
    }
    for (auto &[Rk, J] : Got)
      Held[Rk][J] = true;
    I = E;
  }
  S.Steps = placeInSteps(std::move(Kept));
  completeBroadcast(S, std::move(Held));
  return S;
}

namespace {

/// k-segment's segment count for \p R.
int64_t kSegments(const Request &R) {
  const int32_t P = R.size();
  return std::min<int64_t>(pickSegments(R, std::max(1, P / 2), P),
                           maxSegments(R));
}

/// Its groups: group g holds relative ranks [First[g], First[g + 1]).
std::vector<int64_t> kSegmentGroups(int64_t P, int64_t K) {
  std::vector<int64_t> First(K + 1);
  for (int64_t G = 0; G <= K; ++G)
    First[G] = G * P / K;
  return First;
}

} // namespace

llvm::Expected<Schedule> buildKSegment(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "k-segment");
  const int32_t P = S.size();
  if (P < 2)
    return S;
  const int64_t K = kSegments(R);
  S.NumChunks = K;
  // Group g: relative ranks [First[g], First[g+1]), near-equal sizes.
  const std::vector<int64_t> First = kSegmentGroups(P, K);
  auto Rank = [&](int64_t G, int64_t I) {
    return relRank(First[G] + I, S.Root, P);
  };
  std::vector<Transfer> Ts;
  // 1. The root sends segment g to the leader of group g.
  for (int64_t G = 1; G < K; ++G)
    Ts.push_back(rootChunksCall(S, S.Root, Rank(G, 0), {G, G + 1}));
  // 2. Each group passes its segment down its chain.
  int64_t MaxSize = 0;
  for (int64_t G = 0; G < K; ++G) {
    int64_t Size = First[G + 1] - First[G];
    MaxSize = std::max(MaxSize, Size);
    for (int64_t I = 1; I < Size; ++I)
      Ts.push_back(rootChunksCall(S, Rank(G, I - 1), Rank(G, I), {G, G + 1}));
  }
  // 3. Ring among the members with index i of the groups that have one; in
  // round r member (g, i) passes on the segment it got r rounds ago.
  std::vector<std::vector<bool>> Held(P, std::vector<bool>(K, false));
  Held[S.Root].assign(K, true);
  // A ring round is one exchange step (every member sends and receives).
  std::vector<int64_t> Groups;
  int64_t Group = 0;
  for (int64_t G = 0; G < K; ++G)
    for (int64_t I = First[G]; I < First[G + 1]; ++I)
      Held[relRank(I, S.Root, P)][G] = true;
  for (int64_t I = 0; I < MaxSize; ++I) {
    std::vector<int64_t> Ring;
    for (int64_t G = 0; G < K; ++G)
      if (First[G] + I < First[G + 1])
        Ring.push_back(G);
    int64_t N = static_cast<int64_t>(Ring.size());
    for (int64_t Round = 0; Round + 1 < N; ++Round, ++Group)
      for (int64_t X = 0; X < N; ++X) {
        int64_t Seg = Ring[((X - Round) % N + N) % N];
        int32_t From = Rank(Ring[X], I), To = Rank(Ring[(X + 1) % N], I);
        if (Held[To][Seg])
          continue; // the root already holds everything
        Ts.push_back(rootChunksCall(S, From, To, {Seg, Seg + 1}));
        Groups.resize(Ts.size(), -1);
        Groups.back() = Group;
        Held[To][Seg] = true;
      }
  }
  Groups.resize(Ts.size(), -1);
  S.Steps = orderedRounds(Ts, P, &Groups);
  completeBroadcast(S, std::move(Held));
  return S;
}

namespace {

/// Paths of relative ranks.
using PathList = std::vector<std::vector<int64_t>>;

/// Relative ranks [\p Lo, \p Hi).
std::vector<int64_t> relativeRange(int64_t Lo, int64_t Hi) {
  std::vector<int64_t> Out(static_cast<size_t>(std::max<int64_t>(0, Hi - Lo)));
  std::iota(Out.begin(), Out.end(), Lo);
  return Out;
}

/// The steps of the root's chunks sent down \p Paths (relative ranks, each
/// path from the root's child on): the root sends chunk c to path p in step
/// c x |Paths| + p, and each path forwards it one link per step.
std::vector<Step> pipelinedPaths(const Schedule &S, const PathList &Paths) {
  const int32_t P = S.size();
  const int64_t N = static_cast<int64_t>(Paths.size());
  std::vector<std::pair<int64_t, Transfer>> Tagged;
  for (int64_t C = 0; C < S.NumChunks; ++C)
    for (int64_t Path = 0; Path < N; ++Path) {
      int64_t Prev = 0;
      for (size_t I = 0; I < Paths[Path].size(); ++I) {
        const int64_t Next = Paths[Path][I];
        Tagged.push_back(
            {N * C + Path + static_cast<int64_t>(I),
             rootChunksCall(S, relRank(Prev, S.Root, P),
                            relRank(Next, S.Root, P), {C, C + 1})});
        Prev = Next;
      }
    }
  return placeInSteps(std::move(Tagged));
}

/// The paths of a path pipeline on P ranks, and the rank count whose chain
/// its segments are sized for (pipelineOptimalSegments).
struct PathPlan {
  int64_t Ranks;
  PathList Paths;
};
using PlanFn = PathPlan (*)(int64_t P);

/// One path, relative ranks 1..P-1: chunk c crosses link i -> i+1 in step
/// i + c.
PathPlan onePath(int64_t P) { return {P, PathList{relativeRange(1, P)}}; }

/// Chains: relative ranks 1..H and H+1..P-1, sized as one chain of twice the
/// longer's ranks.
PathPlan twoPaths(int64_t P) {
  const int64_t H = P / 2;
  const int64_t Len = std::max<int64_t>(H, P - 1 - H);
  return {2 * Len, PathList{relativeRange(1, H + 1), relativeRange(H + 1, P)}};
}

/// The segment count of a path pipeline planned as \p Plan for \p R.
int64_t pathSegments(const Machine &M, const Request &R, const PathPlan &Plan) {
  return pickSegments(R, pipelineOptimalSegments(M, Plan.Ranks, R.Bytes),
                      maxSegments(R));
}

/// A broadcast of the root's chunks down the paths of \p Plan
/// (pipelinedPaths).
Schedule pathPipeline(const Machine &M, const Request &R, const char *Name,
                      PlanFn Plan) {
  Schedule S = scheduleSkeleton(M, R, Name);
  const int32_t P = S.size();
  if (P < 2)
    return S;
  const PathPlan Pl = Plan(P);
  S.NumChunks = pathSegments(M, R, Pl);
  S.Steps = pipelinedPaths(S, Pl.Paths);
  return S;
}

/// Whether two of \p R's ranks share a node of \p M.
bool nodesShared(const Machine &M, const Request &R) {
  const Schedule S = scheduleSkeleton(M, R, "");
  std::vector<int64_t> Nodes;
  Nodes.reserve(S.Participants.size());
  for (const Participant &Pt : S.Participants)
    Nodes.push_back(Pt.Node);
  std::sort(Nodes.begin(), Nodes.end());
  return std::adjacent_find(Nodes.begin(), Nodes.end()) != Nodes.end();
}

/// The least bytes of a chunk of \p R's message cut in \p K
/// (Schedule::chunkBytes).
uint64_t leastChunkBytes(const Request &R, int64_t K) {
  const uint64_t Unit = elementBytes(R.Datatype);
  return R.Bytes / Unit / static_cast<uint64_t>(std::max<int64_t>(1, K)) * Unit;
}

/// Path pipelines' bound: the first chunk crosses the longest path link by
/// link, each transfer carrying what the one before delivered.
double pathBound(const Machine &M, const Request &R, PlanFn Plan) {
  const int64_t P = R.size();
  if (P < 2 || !M.Net)
    return 0;
  const PathPlan Pl = Plan(P);
  size_t Longest = 0;
  for (const std::vector<int64_t> &Path : Pl.Paths)
    Longest = std::max(Longest, Path.size());
  return double(Longest) *
         leastTransferTime(*M.Net, leastChunkBytes(R, pathSegments(M, R, Pl)),
                           nodesShared(M, R));
}

} // namespace

llvm::Expected<Schedule> buildPipeline(const Machine &M, const Request &R) {
  return pathPipeline(M, R, "pipeline", onePath);
}

double pipelineBound(const Machine &M, const Request &R) {
  return pathBound(M, R, onePath);
}

llvm::Expected<Schedule> buildTwoPathPipeline(const Machine &M,
                                              const Request &R) {
  return pathPipeline(M, R, "two-path-pipeline", twoPaths);
}

double twoPathPipelineBound(const Machine &M, const Request &R) {
  return pathBound(M, R, twoPaths);
}

llvm::Expected<Schedule> buildScatterAllgather(const Machine &M,
                                               const Request &R) {
  // Relative rank i owns segments [own(i), own(i + 1)).
  auto Relative = [](const Schedule &S) {
    std::vector<int32_t> Order(S.size());
    for (size_t I = 0; I < Order.size(); ++I)
      Order[I] = relRank(I, S.Root, S.size());
    return Order;
  };
  return scatterThenAllgather(
      M, R, "scatter-allgather", Relative, [&](BlockCopies &C, int64_t P) {
        // Binomial scatter: a holder of relative ranks [L, R] sends the
        // segments of the upper half to its first rank.
        struct Range {
          int64_t L, R;
        };
        std::vector<Range> Work{{0, P - 1}};
        for (size_t W = 0; W < Work.size(); ++W) {
          Range Rg = Work[W];
          while (Rg.L < Rg.R) {
            int64_t Mid = Rg.L + (Rg.R - Rg.L + 1 + 1) / 2;
            C.copy(Rg.L, Mid, Mid, Rg.R + 1, -1);
            Work.push_back({Mid, Rg.R});
            Rg.R = Mid - 1;
          }
        }
        // Ring allgather: in round r relative rank i passes on the segments
        // of relative rank i - r, unless the next rank got them in the
        // scatter (a subtree's first rank receives the whole subtree's
        // segments; scatterAllgatherBound relies on that).
        std::vector<std::vector<bool>> Has(P, std::vector<bool>(P, false));
        Has[0].assign(P, true);
        const int32_t Root = R.Root;
        for (const Transfer &T : C.copies()) {
          int64_t Rel = (T.Dst - Root + P) % P;
          for (int64_t O = Rel; O < P && C.own(O) < T.Pieces[0].Chunks.Hi; ++O)
            Has[Rel][O] = true;
        }
        for (int64_t I = 0; I < P; ++I)
          Has[I][I] = true;
        for (int64_t Round = 0; Round + 1 < P; ++Round)
          for (int64_t I = 0; I < P; ++I) {
            int64_t O = ((I - Round) % P + P) % P, Next = (I + 1) % P;
            if (Has[Next][O])
              continue;
            Has[Next][O] = true;
            C.copy(I, Next, O, O + 1, Round);
          }
      });
}

double scatterAllgatherBound(const Machine &M, const Request &R) {
  const int64_t P = R.size();
  if (P < 2 || !M.Net)
    return 0;
  // The scatter gives relative rank O's segments only to ranks at or below
  // O (a subtree's first rank gets the subtree's), so ranks O + 1..P - 1
  // get them along the ring, one after the other: P - 1 - O transfers in a
  // chain. O: the first rank that owns a chunk (ScatterBlocks::own). And the
  // last rank's segments (it always owns some) the scatter gives the root,
  // then the first rank of the upper half, Mid = (P + 1) / 2, and those
  // above it: ranks 1..Mid - 1 get them along the ring from the root, a
  // chain of Mid - 1 transfers.
  const int64_t Blocks = ScatterBlocks::count(P, R.Bytes);
  const int64_t First = (P + Blocks - 1) / Blocks - 1;
  const int64_t Chain = std::max(P - 1 - First, (P + 1) / 2 - 1);
  return double(Chain) * leastTransferTime(*M.Net, leastChunkBytes(R, Blocks),
                                           nodesShared(M, R));
}

double kSegmentBound(const Machine &M, const Request &R) {
  const int64_t P = R.size();
  if (P < 2 || !M.Net)
    return 0;
  // The ring of the groups' second members (the N groups of two ranks or
  // more; the root, a first member, is in none): each holds its own group's
  // segment alone, got from its leader, and passes the one it got the round
  // before, so the first member's segment takes the chain leader -> member
  // -> N - 1 members on: N transfers.
  const int64_t K = kSegments(R);
  const std::vector<int64_t> First = kSegmentGroups(P, K);
  int64_t N = 0;
  for (int64_t G = 0; G < K; ++G)
    N += First[G + 1] - First[G] >= 2;
  if (N < 2)
    return 0;
  return double(N) *
         leastTransferTime(*M.Net, leastChunkBytes(R, K), nodesShared(M, R));
}

double edgeDisjointBound(const Machine &M, const Request &R) {
  const Schedule S = scheduleSkeleton(M, R, "edge-disjoint");
  const int32_t P = S.size();
  if (P < 2 || !M.Net)
    return 0;
  const int D = ceilLog2(P);
  const int64_t Parts =
      std::min<int64_t>({D, maxSegments(R), maxSegmentsFor(P)});
  const LeastHopTime Hop(M, leastChunkBytes(R, Parts));
  auto Node = [&](int64_t X) {
    return S.Participants[relRank(X, S.Root, P)].Node;
  };
  // Part j's tree, as buildEdgeDisjoint's cube: the root sends it to 2^j,
  // the nodes with bit j set spread it over dimensions j + 1, ..., j + d - 1
  // (mod d), each flipping the bits of its index in that order, and then
  // each sends it across dimension j. A node's chain of transfers from the
  // root is its path in that tree, whole when every node on it exists (all
  // below P): that of a node with bit j set always, that of one without
  // bit j when its partner with bit j exists; the others' part passes on
  // after the tree (completeBroadcast), at no known time.
  std::vector<double> At(static_cast<size_t>(P), 0.0);
  double Most = 0;
  for (int64_t J = 0; J < Parts; ++J) {
    const int64_t Bit = int64_t(1) << J, Below = Bit - 1;
    for (int64_t Y = Bit; Y < P; ++Y) {
      if (!(Y & Bit))
        continue;
      // The last bit flipped: the highest below j, else the highest above.
      const int64_t Rest = Y & ~Bit;
      int64_t Up = 0;
      if (Rest != 0) {
        const int64_t From = (Rest & Below) ? (Rest & Below) : Rest;
        Up = Y & ~(int64_t(1) << llvm::Log2_64(uint64_t(From)));
      }
      At[Y] = At[Up] + Hop(Node(Up), Node(Y));
      Most = std::max(Most, At[Y]);
    }
    for (int64_t Y = 1; Y < P; ++Y)
      if (!(Y & Bit) && (Y | Bit) < P)
        Most = std::max(Most, At[Y | Bit] + Hop(Node(Y | Bit), Node(Y)));
  }
  // Below the pricing's own arithmetic by a rounding's margin.
  return Most * (1 - 1e-9);
}

} // namespace collc
