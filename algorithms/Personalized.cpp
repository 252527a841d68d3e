#include "algorithms/Personalized.h"

#include "algorithms/Cheapest.h"
#include "algorithms/Placement.h"
#include "passes/StepCost.h"
#include "passes/Verify.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <set>

namespace collc {

Transfer personalizedBlocks(const Schedule &S, int32_t Src, int32_t Dst,
                            const std::vector<Interval> &Origins,
                            const std::vector<Interval> &Dests) {
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  for (const Interval &O : Origins)
    for (const Interval &D : Dests) {
      T.Pieces.push_back({O, D, {0, S.NumChunks}});
      T.Bytes += S.Bytes * static_cast<uint64_t>(O.size() * D.size());
    }
  return T;
}

namespace {

std::vector<Interval> one(int32_t R) { return {{R, R + 1}}; }

/// One step per round value in \p Rounds; in each, every rank r sends the
/// transfer \p Make(round, r) returns (the exchange pattern of pairwise,
/// ring and Bruck algorithms), listed by sender. With \p Only >= 0, the
/// steps hold that rank's part alone (algorithms/RankParts.h): its send and
/// the send of \p From(round, Only), the rank that sends to it, in the same
/// order.
template <typename MakeFn, typename FromFn>
void stepPerRound(Schedule &S, const std::vector<int64_t> &Rounds, int32_t Only,
                  MakeFn Make, FromFn From) {
  for (int64_t X : Rounds) {
    Step Stp;
    if (Only < 0) {
      for (int32_t Rk = 0; Rk < S.size(); ++Rk)
        Stp.Transfers.push_back(Make(X, Rk));
    } else {
      const int32_t Q = static_cast<int32_t>(From(X, Only));
      for (int32_t Rk : {std::min(Q, Only), std::max(Q, Only)})
        Stp.Transfers.push_back(Make(X, Rk));
      assert(Stp.Transfers[Q < Only ? 0 : 1].Dst == Only &&
             "From is not the inverse of Make's destination");
    }
    S.Steps.push_back(std::move(Stp));
  }
}

/// \p X - \p D mod \p P.
int32_t minusMod(int64_t X, int64_t D, int64_t P) {
  return static_cast<int32_t>(((X - D) % P + P) % P);
}

/// 1, 2, 4, ... below \p P: the distances of Bruck's rounds.
std::vector<int64_t> powersBelow(int64_t P) {
  std::vector<int64_t> V;
  for (int64_t Bit = 1; Bit < P; Bit <<= 1)
    V.push_back(Bit);
  return V;
}

/// 0 .. N - 1.
std::vector<int64_t> upTo(int64_t N) {
  std::vector<int64_t> V;
  for (int64_t I = 0; I < N; ++I)
    V.push_back(I);
  return V;
}

} // namespace

/// The root's exchanges of a gather or scatter: one block with every other
/// rank, from the rank after the root on.
static std::vector<Transfer> rootExchanges(const Schedule &S) {
  const int32_t P = S.size();
  std::vector<Transfer> Ts;
  for (int64_t I = 1; I < P; ++I) {
    int32_t X = relRank(I, S.Root, P);
    if (S.Coll == Collective::Scatter)
      Ts.push_back(personalizedBlocks(S, S.Root, X, one(S.Root), one(X)));
    else
      Ts.push_back(personalizedBlocks(S, X, S.Root, one(X), one(S.Root)));
  }
  return Ts;
}

llvm::Expected<Schedule> buildLinearPersonalized(const Machine &M,
                                                 const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "linear");
  S.Steps = orderedRounds(rootExchanges(S), S.size());
  return S;
}

llvm::Expected<Schedule> buildBinomialPersonalized(const Machine &M,
                                                   const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "binomial");
  const int32_t P = S.size();
  std::vector<Transfer> Ts;
  auto Rel = [&](int64_t I) { return relRank(I, S.Root, P); };
  if (R.Coll == Collective::Scatter) {
    int64_t Top = 1;
    while (Top < P)
      Top <<= 1;
    // Relative rank i (a multiple of 2m) sends the blocks of [i+m, i+2m).
    for (int64_t Mask = Top / 2; Mask >= 1; Mask >>= 1)
      for (int64_t I = 0; I + Mask < P; I += 2 * Mask)
        Ts.push_back(personalizedBlocks(
            S, Rel(I), Rel(I + Mask), one(S.Root),
            relIntervals(I + Mask, std::min<int64_t>(I + 2 * Mask, P), S.Root,
                         P)));
  } else {
    // Relative rank i (i mod 2m = m) sends the blocks of [i, i+m) to i - m.
    for (int64_t Mask = 1; Mask < P; Mask <<= 1)
      for (int64_t I = Mask; I < P; I += 2 * Mask)
        Ts.push_back(personalizedBlocks(
            S, Rel(I), Rel(I - Mask),
            relIntervals(I, std::min<int64_t>(I + Mask, P), S.Root, P),
            one(S.Root)));
  }
  S.Steps = orderedRounds(Ts, P);
  return S;
}

llvm::Expected<Schedule>
buildPairwiseAlltoallPart(const Machine &M, const Request &R, int32_t Only) {
  Schedule S = scheduleSkeleton(M, R, "pairwise");
  const int32_t P = S.size();
  stepPerRound(
      S, upTo(P - 1), Only,
      [&](int64_t St, int32_t Rk) {
        int32_t To = static_cast<int32_t>((Rk + St + 1) % P);
        return personalizedBlocks(S, Rk, To, one(Rk), one(To));
      },
      [&](int64_t St, int32_t Rk) { return minusMod(Rk, St + 1, P); });
  return S;
}

bool bruckAlltoallRectangles(int64_t P) {
  double Rounds = 0;
  for (int64_t Bit = 1; Bit < P; Bit <<= 1)
    ++Rounds;
  return double(P) * double(P / 2) * Rounds > double(BruckBlockPieces);
}

llvm::Expected<Schedule>
buildBruckAlltoallPart(const Machine &M, const Request &R, int32_t Only) {
  Schedule S = scheduleSkeleton(M, R, "bruck");
  const int32_t P = S.size();
  const bool Rectangles = bruckAlltoallRectangles(P);
  // Block M[a][b] sits at rank a + (the bits of (b - a) mod P below k).
  stepPerRound(
      S, powersBelow(P), Only,
      [&](int64_t Bit, int32_t Rk) {
        Transfer T;
        T.Src = Rk;
        T.Dst = static_cast<int32_t>((Rk + Bit) % P);
        if (Rectangles) {
          // The distances d = H + j, j < Bit, for each odd multiple H of
          // Bit: their blocks have origins Rk - j and the one dest Rk + H.
          for (int64_t H = Bit; H < P; H += 2 * Bit) {
            const int64_t N = std::min<int64_t>(Bit, P - H);
            const int32_t B = static_cast<int32_t>((Rk + H) % P);
            for (const Interval &O :
                 IntervalSet::of(relIntervals(0, N, Rk - N + 1 + P, P)))
              T.Pieces.push_back({O, {B, B + 1}, {0, S.NumChunks}});
            T.Bytes += S.Bytes * static_cast<uint64_t>(N);
          }
          return T;
        }
        // Distances d with bit k set; the block at Rk with distance d has
        // origin a = Rk - (d mod Bit), dest b = a + d.
        for (int64_t D = Bit; D < P; ++D) {
          if (!(D & Bit))
            continue;
          int32_t A = minusMod(Rk, D % Bit, P);
          int32_t B = static_cast<int32_t>((A + D) % P);
          T.Pieces.push_back({{A, A + 1}, {B, B + 1}, {0, S.NumChunks}});
          T.Bytes += S.Bytes;
        }
        return T;
      },
      [&](int64_t Bit, int32_t Rk) { return minusMod(Rk, Bit, P); });
  return S;
}

Transfer allgatherBlocks(const Schedule &S, int32_t Src, int32_t Dst,
                         const std::vector<Interval> &Origins) {
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  for (const Interval &O : Origins) {
    T.Pieces.push_back({O, {0, S.size()}, {0, S.NumChunks}});
    T.Bytes += S.Bytes * static_cast<uint64_t>(O.size());
  }
  return T;
}

/// Allgather blocks of origins [Lo, Lo + N) (mod P), for every rank.
static Transfer allgatherBlocks(const Schedule &S, int32_t Src, int32_t Dst,
                                int64_t Lo, int64_t N) {
  return allgatherBlocks(S, Src, Dst, relIntervals(Lo, Lo + N, 0, S.size()));
}

llvm::Expected<Schedule>
buildRingAllgatherPart(const Machine &M, const Request &R, int32_t Only) {
  Schedule S = scheduleSkeleton(M, R, "ring");
  const int32_t P = S.size();
  // Step s: rank r passes on the block of rank r - s to r + 1.
  stepPerRound(
      S, upTo(P - 1), Only,
      [&](int64_t St, int32_t Rk) {
        return allgatherBlocks(S, Rk, static_cast<int32_t>((Rk + 1) % P),
                               minusMod(Rk, St, P), 1);
      },
      [&](int64_t, int32_t Rk) { return minusMod(Rk, 1, P); });
  return S;
}

llvm::Expected<Schedule>
buildBruckAllgatherPart(const Machine &M, const Request &R, int32_t Only) {
  Schedule S = scheduleSkeleton(M, R, "bruck");
  const int32_t P = S.size();
  // Before the step with distance Bit, rank r holds the blocks of ranks
  // r .. r + Bit - 1 (mod P); it sends them (or the ones rank r - Bit still
  // lacks) to r - Bit.
  stepPerRound(
      S, powersBelow(P), Only,
      [&](int64_t Bit, int32_t Rk) {
        return allgatherBlocks(S, Rk, minusMod(Rk, Bit, P), Rk,
                               std::min<int64_t>(Bit, P - Bit));
      },
      [&](int64_t Bit, int32_t Rk) {
        return static_cast<int32_t>((Rk + Bit) % P);
      });
  return S;
}

namespace {

/// The steps of a direct algorithm whose transfers \p Ts all run at once
/// (groupedRounds: one step where the ports allow it).
std::vector<Step> allAtOnce(const Machine &M, std::vector<Transfer> Ts,
                            int32_t P) {
  const size_t N = Ts.size();
  return groupedRounds(M, std::move(Ts), P, std::vector<int64_t>(N, 0));
}

/// A direct exchange: every rank r sends \p Make(S, r, t) to each
/// t = r + 1, r + 2, ... (mod P), all at once; listed offset by offset, so
/// that the one-port placement pairs ranks as `pairwise` does. With
/// \p Only >= 0 (a machine with a network: directPartApplies), rank Only's
/// part: of each offset's transfers, its send and the one it receives, in
/// the order of their senders, all in the one step the whole schedule has.
template <typename MakeFn>
Schedule directExchange(const Machine &M, const Request &R, int32_t Only,
                        MakeFn Make) {
  Schedule S = scheduleSkeleton(M, R, "direct");
  const int32_t P = S.size();
  if (Only >= 0) {
    assert(directPartApplies(M, R) && "a direct part needs one step");
    Step Stp;
    for (int64_t D = 1; D < P; ++D) {
      const int32_t Q = minusMod(Only, D, P);
      for (int32_t Rk : {std::min(Q, Only), std::max(Q, Only)})
        Stp.Transfers.push_back(
            Make(S, Rk, static_cast<int32_t>((Rk + D) % P)));
    }
    if (!Stp.Transfers.empty())
      S.Steps.push_back(std::move(Stp));
    return S;
  }
  std::vector<Transfer> Ts;
  Ts.reserve(size_t(P) * size_t(std::max(P - 1, 0)));
  for (int64_t D = 1; D < P; ++D)
    for (int32_t Rk = 0; Rk < P; ++Rk)
      Ts.push_back(Make(S, Rk, static_cast<int32_t>((Rk + D) % P)));
  S.Steps = allAtOnce(M, std::move(Ts), P);
  return S;
}

} // namespace

llvm::Expected<Schedule> buildDirectPersonalized(const Machine &M,
                                                 const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "direct");
  S.Steps = allAtOnce(M, rootExchanges(S), S.size());
  return S;
}

bool allPairsFit(const Machine &, const Request &R, std::string &Why) {
  const double P = R.size();
  return copyTransfersFit(R, P * (P - 1), Why);
}

namespace {

Transfer directAlltoallBlock(const Schedule &S, int32_t From, int32_t To) {
  return personalizedBlocks(S, From, To, one(From), one(To));
}

Transfer directAllgatherBlock(const Schedule &S, int32_t From, int32_t To) {
  return allgatherBlocks(S, From, To, From, 1);
}

} // namespace

bool directPartApplies(const Machine &M, const Request &R) {
  // Every rank's P - 1 sends and receives fit one step (groupedRounds).
  return uint64_t(portsPerStep(M)) + 1 >= uint64_t(R.size());
}

llvm::Expected<Schedule>
buildDirectAlltoallPart(const Machine &M, const Request &R, int32_t Rank) {
  return directExchange(M, R, Rank, directAlltoallBlock);
}

llvm::Expected<Schedule>
buildDirectAllgatherPart(const Machine &M, const Request &R, int32_t Rank) {
  return directExchange(M, R, Rank, directAllgatherBlock);
}

std::vector<std::vector<int32_t>> ranksByNode(const Schedule &S) {
  std::map<int64_t, std::vector<int32_t>> ByNode;
  for (int32_t Rk = 0; Rk < S.size(); ++Rk)
    ByNode[S.Participants[Rk].Node].push_back(Rk);
  std::vector<std::vector<int32_t>> Out;
  for (auto &[Node, Ranks] : ByNode)
    Out.push_back(std::move(Ranks));
  return Out;
}

std::vector<Interval> asIntervals(const std::vector<int32_t> &Ranks) {
  std::vector<Interval> Out;
  for (int32_t Rk : Ranks)
    if (!Out.empty() && Out.back().Hi == Rk)
      ++Out.back().Hi;
    else
      Out.push_back({Rk, Rk + 1});
  return Out;
}

namespace {

/// How groupDirect's groups get each other's blocks.
enum class AcrossGroups {
  /// Group n's blocks go once to each other group, to one rank there, which
  /// passes them on inside its group (three steps; a block crosses to each
  /// other group once).
  Relay,
  /// Every rank of every other group gets group n's blocks straight from
  /// one rank of n (two steps; SMPI's 2dmesh on a grid of groups).
  Straight,
};

/// Calls \p Add(transfer, group) with the transfers of an allgather in
/// groups of ranks (groupDirect), in its order.
template <typename AddFn>
void forEachGroupTransfer(const Schedule &S,
                          const std::vector<std::vector<int32_t>> &Parts,
                          AcrossGroups How, AddFn Add) {
  const int64_t N = static_cast<int64_t>(Parts.size());
  // 1. Inside every group, every rank sends its block to the others.
  for (const std::vector<int32_t> &Part : Parts)
    for (int32_t A : Part)
      for (int32_t B : Part)
        if (A != B)
          Add(allgatherBlocks(S, A, B, one(A)), 0);
  // 2. Group n's blocks go to group k = n + D: (Relay) its D-th message
  // leaves from rank D mod c_n of n and enters rank D mod c_k of k, so every
  // rank of a group sends and receives a share; (Straight) rank j of k gets
  // them from rank j mod c_n of n.
  // 3. (Relay) That rank passes them on inside its group.
  struct Entry {
    int32_t Rank;
    int64_t From, Into; // groups
  };
  std::vector<Entry> Entered;
  for (int64_t D = 1; D < N; ++D)
    for (int64_t G = 0; G < N; ++G) {
      const int64_t Into = (G + D) % N;
      const std::vector<int32_t> &From = Parts[G], &To = Parts[Into];
      const std::vector<Interval> Blocks = asIntervals(From);
      if (How == AcrossGroups::Straight) {
        for (size_t J = 0; J < To.size(); ++J)
          Add(allgatherBlocks(S, From[J % From.size()], To[J], Blocks), 1);
        continue;
      }
      const int32_t Dst = To[D % To.size()];
      Add(allgatherBlocks(S, From[D % From.size()], Dst, Blocks), 1);
      Entered.push_back({Dst, G, Into});
    }
  for (const Entry &E : Entered)
    for (int32_t Peer : Parts[E.Into])
      if (Peer != E.Rank)
        Add(allgatherBlocks(S, E.Rank, Peer, asIntervals(Parts[E.From])), 2);
}

/// Allgather in groups of ranks: direct inside every group, then across.
Schedule groupDirect(const Machine &M, const Request &R, llvm::StringRef Name,
                     const std::vector<std::vector<int32_t>> &Parts,
                     AcrossGroups How) {
  Schedule S = scheduleSkeleton(M, R, Name);
  std::vector<Transfer> Ts;
  std::vector<int64_t> Groups;
  forEachGroupTransfer(S, Parts, How, [&](Transfer T, int64_t Group) {
    Ts.push_back(std::move(T));
    Groups.push_back(Group);
  });
  S.Steps = groupedRounds(M, std::move(Ts), S.size(), Groups);
  return S;
}

/// A time groupDirect's schedule with its groups sending straight
/// (AcrossGroups::Straight) cannot beat under the step pricing, known
/// without building it (BookedLoad): on a machine with a network its
/// transfers are two steps (groupedRounds), and each rank's sends of the
/// second carry its group's blocks, all of which reached it in the first.
double straightGroupsBound(const Machine &M, const Request &R,
                           const std::vector<std::vector<int32_t>> &Parts) {
  const Schedule S = scheduleSkeleton(M, R, "");
  BookedLoad Load(M, S.Participants);
  std::vector<double> Arrived(S.size(), 0.0);
  forEachGroupTransfer(
      S, Parts, AcrossGroups::Straight, [&](const Transfer &T, int64_t Step) {
        if (Step == 0)
          Arrived[T.Dst] = std::max(Arrived[T.Dst], Load.add(T, 0, Step));
        else
          Load.add(T, Arrived[T.Src], Step);
      });
  return Load.bound();
}

} // namespace

llvm::Expected<Schedule> buildNodeDirectAllgather(const Machine &M,
                                                  const Request &R) {
  Schedule Skeleton = scheduleSkeleton(M, R, "node-direct");
  return groupDirect(M, R, "node-direct", ranksByNode(Skeleton),
                     AcrossGroups::Relay);
}

namespace {

/// \p Groups groups of consecutive ranks of \p R, their sizes differing by
/// one at most.
std::vector<std::vector<int32_t>> gridGroups(const Request &R, int64_t Groups) {
  const int32_t Ranks = R.size();
  std::vector<std::vector<int32_t>> Parts(Groups);
  for (int32_t Rk = 0; Rk < Ranks; ++Rk)
    Parts[Rk * Groups / Ranks].push_back(Rk);
  return Parts;
}

} // namespace

Schedule gridDirectAllgather(const Machine &M, const Request &R,
                             int64_t Groups) {
  return groupDirect(M, R, "grid-direct", gridGroups(R, Groups),
                     AcrossGroups::Straight);
}

double gridDirectBound(const Machine &M, const Request &R, int64_t Groups) {
  return straightGroupsBound(M, R, gridGroups(R, Groups));
}

llvm::Expected<Schedule>
buildGridDirectAllgather(const Machine &M, const Request &R, Pipeline &P) {
  const int32_t Ranks = R.size();
  // N groups of consecutive ranks, their sizes differing by one at most;
  // N near sqrt(P): the divisors of P nearest below and above it within a
  // factor 2 (equal groups: the evaluator times unequal ones ten times
  // slower, their messages never ending together), else sqrt(P) rounded.
  const double Root = std::sqrt(Ranks);
  const int64_t Side = std::max<int64_t>(1, std::llround(Root));
  std::set<int64_t> Counts;
  const auto [Below, Above] = divisorsNearSqrt(Ranks);
  for (int64_t N : {Below, Above})
    if (N)
      Counts.insert(N);
  if (Counts.empty())
    Counts.insert(Side);
  // Where the cost pass prices by steps, the counts by increasing bound (on
  // a tie the smaller count wins, as in increasing order without bounds):
  // one whose bound exceeds the best so far is not built. (A count alone
  // has nothing to be skipped for.)
  struct Count {
    int64_t N;
    double Bound = 0;
  };
  std::vector<Count> Order;
  for (int64_t N : Counts) {
    Order.push_back({N});
    if (Counts.size() > 1 && pricedBySteps(Ranks, M))
      Order.back().Bound = P.run("bound of " + llvm::Twine(N) + " groups",
                                 [&] { return gridDirectBound(M, R, N); });
  }
  std::stable_sort(
      Order.begin(), Order.end(),
      [](const Count &A, const Count &B) { return A.Bound < B.Bound; });
  Cheapest Search(M, P, makespanJudge());
  for (const Count &C : Order) {
    CandidateHooks Hooks;
    Hooks.LowerBound = C.Bound;
    Hooks.TieKey = C.N;
    Search.consider(
        llvm::Twine(C.N) + " groups",
        [&]() -> llvm::Expected<Schedule> {
          return gridDirectAllgather(M, R, C.N);
        },
        Hooks);
  }
  return Search.take();
}

} // namespace collc
