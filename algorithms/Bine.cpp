#include "algorithms/Bine.h"

#include "algorithms/Butterfly.h"
#include "algorithms/Cheapest.h"
#include "algorithms/Personalized.h"
#include "algorithms/Placement.h"
#include "algorithms/Reducer.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>

namespace collc {

namespace {

/// u without its highest set bit: its parent in the tree.
int64_t parentOf(int64_t U) {
  return U - static_cast<int64_t>(llvm::PowerOf2Floor(uint64_t(U)));
}

} // namespace

bool bineApplies(const Machine &, const Request &R, std::string &Why) {
  if (!commutativeOperator(
          R, "its trees combine out of rank order: commutative operators only",
          Why))
    return false;
  // The butterflies' blocks are ranges of ranks, a piece each: at worst a
  // piece per block, P (P - 1) of them.
  if (R.Coll == Collective::Allgather || R.Coll == Collective::ReduceScatter)
    return transfersFit(double(R.size()) * R.size(), Why);
  // The tree's P - 1 transfers, twice for an allreduce.
  return transfersFit(2.0 * R.size(), Why);
}

namespace {

/// The tree forms: the whole message down the tree (broadcast), up it
/// (reduce), up and down again (allreduce).
Schedule bineTree(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "bine");
  const int32_t P = S.size();
  const std::vector<int32_t> Offset = bineTreeOffsets(P);
  auto Rank = [&](int64_t U) { return relRank(Offset[U], S.Root, P); };
  if (R.Coll == Collective::Bcast) {
    // Parents come before their children, each parent's children nearest
    // bit (its first send) first.
    std::vector<Transfer> Ts;
    for (int64_t U = 1; U < P; ++U)
      Ts.push_back(wholeMessageCall(S, Rank(parentOf(U)), Rank(U)));
    S.Steps = orderedRounds(Ts, P);
    return S;
  }
  Reducer Rd(S);
  // Up the tree: every subtree's nodes have larger u than its root.
  for (int64_t U = P - 1; U >= 1; --U)
    Rd.send(Rank(U), Rank(parentOf(U)), 0, 1);
  if (R.Coll == Collective::Allreduce)
    for (int64_t U = 1; U < P; ++U)
      Rd.send(Rank(parentOf(U)), Rank(U), 0, 1, TransferKind::Copy);
  S.Steps = orderedRounds(Rd.Ts, P);
  return S;
}

/// The large broadcast (the paper's scatter + allgather): over 2^d cores,
/// Swing's butterfly with core 0 the root. Scatter: at step s every core
/// that holds blocks sends its partner the blocks of the partner's next
/// reach set; allgather: the steps in reverse, each core sending its
/// partner all it has gathered. P not a power of two: the ranks of relative
/// positions 1, 3, ..., 2(P - 2^d) - 1 in node order get the whole message
/// from the position before them at the end.
llvm::Expected<Schedule> bineScatterAllgather(const Machine &M,
                                              const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "bine");
  const int32_t P = S.size();
  const int64_t Core = static_cast<int64_t>(llvm::PowerOf2Floor(uint64_t(P)));
  const int64_t Extra = P - Core;
  if (R.Bytes < uint64_t(Core))
    return notApplicable("bine", "the scatter-allgather form needs a byte per "
                                 "core (" +
                                     std::to_string(Core) + "), not " +
                                     std::to_string(R.Bytes));
  // The scatter's Core - 1 transfers, at most Core per allgather step, and
  // the copies to the folded ranks.
  std::string Why;
  if (!transfersFit(double(Core) * (ceilLog2(Core) + 1) + double(Extra), Why))
    return notApplicable("bine", Why);
  const Butterfly B = swingButterfly({Core});
  auto Blocks = butterflyBlocks(B);
  if (!Blocks)
    return Blocks.takeError();
  const int L = B.steps();
  S.NumChunks = Core;
  const std::vector<int32_t> Order = nodeOrderFromRoot(S);
  auto CoreRank = [&](int64_t C) {
    return Order[C < Extra ? 2 * C : C + Extra];
  };
  auto Reach = [&](int St, int64_t C) {
    const int64_t Lo = Blocks->Lo[St + 1][C];
    return Interval{Lo, Lo + Blocks->span(St + 1, L)};
  };
  // Held[c] = h: core c holds the blocks of R_h(c) (the root all, a core
  // what it received: its next reach set at the step it received it).
  std::vector<Transfer> Ts;
  std::vector<int64_t> Groups;
  std::vector<int> Held(Core, L + 1);
  Held[0] = 0;
  for (int St = 0; St < L; ++St) {
    std::vector<int> Next = Held;
    for (int64_t C = 0; C < Core; ++C)
      if (Held[C] <= St) {
        const int64_t Q = B.Peer[St][C];
        Ts.push_back(rootChunksCall(S, CoreRank(C), CoreRank(Q), Reach(St, Q)));
        Groups.push_back(-1);
        Next[Q] = St + 1;
      }
    Held = std::move(Next);
  }
  // The allgather skips a partner that already holds what it would get.
  for (int St = L - 1; St >= 0; --St) {
    for (int64_t C = 0; C < Core; ++C) {
      const int64_t Q = B.Peer[St][C];
      if (Held[Q] <= St)
        continue;
      Ts.push_back(rootChunksCall(S, CoreRank(C), CoreRank(Q), Reach(St, C)));
      Groups.push_back(St);
    }
    for (int &H : Held)
      H = std::min(H, St);
  }
  for (int64_t I = 0; I < Extra; ++I) {
    Ts.push_back(
        rootChunksCall(S, Order[2 * I], Order[2 * I + 1], Interval{0, Core}));
    Groups.push_back(-1);
  }
  S.Steps = orderedRounds(Ts, P, &Groups);
  return S;
}

/// The subtree of every node u of the Bine tree over \p P ranks, as the
/// range of relative ranks [Lo[u], Hi[u]) it covers: every subtree but the
/// root's is one range that does not hold the root (relative rank 0).
struct BineSubtrees {
  std::vector<int32_t> Offset;
  std::vector<int64_t> Lo, Hi;
};

BineSubtrees bineSubtrees(int32_t P) {
  BineSubtrees T;
  T.Offset = bineTreeOffsets(P);
  T.Lo.assign(T.Offset.begin(), T.Offset.end());
  T.Hi.resize(P);
  std::vector<int64_t> Size(P, 1);
  for (int32_t U = 0; U < P; ++U)
    T.Hi[U] = T.Lo[U] + 1;
  // Children have larger u than their parents.
  for (int64_t U = P - 1; U >= 1; --U) {
    assert(T.Hi[U] - T.Lo[U] == Size[U] && "a Bine subtree is not a range");
    const int64_t Up = parentOf(U);
    T.Lo[Up] = std::min(T.Lo[Up], T.Lo[U]);
    T.Hi[Up] = std::max(T.Hi[Up], T.Hi[U]);
    Size[Up] += Size[U];
  }
  return T;
}

/// Gather and scatter down the Bine tree: every node sends its parent the
/// blocks of its subtree (gather, children before parents), or gets them
/// from it (scatter, parents before children), one range of ranks each.
Schedule bineTreePersonalized(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "bine");
  const int32_t P = S.size();
  const BineSubtrees T = bineSubtrees(P);
  auto Rank = [&](int64_t U) { return relRank(T.Offset[U], S.Root, P); };
  const std::vector<Interval> Root{{S.Root, S.Root + 1}};
  std::vector<Transfer> Ts;
  for (int64_t I = 1; I < P; ++I) {
    const bool Scatter = R.Coll == Collective::Scatter;
    const int64_t U = Scatter ? I : P - I;
    const std::vector<Interval> Sub = relIntervals(T.Lo[U], T.Hi[U], S.Root, P);
    Ts.push_back(
        Scatter ? personalizedBlocks(S, Rank(parentOf(U)), Rank(U), Root, Sub)
                : personalizedBlocks(S, Rank(U), Rank(parentOf(U)), Sub, Root));
  }
  S.Steps = orderedRounds(Ts, P);
  return S;
}

/// The Bine butterfly of the allgather: step t pairs rank c with Swing's
/// partner at distance rho(L - 1 - t) round a ring of N (the farthest first,
/// the nearest last; L = ceil(log2 N)), and each rank sends its partner
/// every block it holds that the partner lacks. N = P for an even P: the L
/// steps get every block to every rank once (2^t blocks at step t for P a
/// power of two). An odd P leaves one place of a ring of N = P + 1 empty:
/// the rank whose partner would sit there waits that step, and the steps go
/// round again from the farthest until every rank holds every block (at
/// most two more, and never more than folding a rank into its neighbour
/// would take: every P to 2048 checked). A plan that has not closed after
/// 2 L + 2 steps says so (Closed), and the builders refuse it.
struct BineButterflyPlan {
  int64_t N = 0;
  bool Closed = false;
  /// Peer[t][c]: c's partner at allgather step t, -1 if it waits.
  std::vector<std::vector<int64_t>> Peer;
  /// Sent[t][c]: the blocks c sends its partner at allgather step t, as
  /// ranges of ranks.
  std::vector<std::vector<std::vector<Interval>>> Sent;
};

BineButterflyPlan bineButterflyPlan(int32_t P) {
  BineButterflyPlan B;
  B.N = P % 2 == 0 ? P : P + 1;
  const int L = P > 1 ? ceilLog2(B.N) : 0;
  const size_t Words = size_t(P + 63) / 64;
  std::vector<std::vector<uint64_t>> Held(P, std::vector<uint64_t>(Words));
  for (int32_t C = 0; C < P; ++C)
    Held[C][C / 64] |= uint64_t(1) << (C % 64);
  auto Has = [&](int64_t C, int64_t X) {
    return (Held[C][X / 64] >> (X % 64) & 1) != 0;
  };
  // Blocks each rank holds: done when every rank holds P.
  std::vector<int64_t> Count(P, 1);
  auto Done = [&] {
    return std::all_of(Count.begin(), Count.end(),
                       [&](int64_t X) { return X == P; });
  };
  for (int T = 0; !Done() && T < 2 * L + 2; ++T) {
    const int K = L - 1 - T % L;
    std::vector<int64_t> Peer(P, -1);
    std::vector<std::vector<Interval>> Sent(P);
    std::vector<std::vector<uint64_t>> Next = Held;
    for (int64_t C = 0; C < P; ++C) {
      const int64_t Q = swingPeer(C, K, B.N);
      assert(swingPeer(Q, K, B.N) == C && "Bine partners pair up");
      if (Q >= P)
        continue;
      Peer[C] = Q;
      int64_t Open = -1;
      for (int64_t X = 0; X <= P; ++X) {
        const bool In = X < P && Has(C, X) && !Has(Q, X);
        if (In && Open < 0)
          Open = X;
        if (!In && Open >= 0) {
          Sent[C].push_back({Open, X});
          Count[Q] += X - Open;
          Open = -1;
        }
      }
      for (size_t W = 0; W < Words; ++W)
        Next[Q][W] |= Held[C][W];
    }
    Held = std::move(Next);
    B.Peer.push_back(std::move(Peer));
    B.Sent.push_back(std::move(Sent));
  }
  B.Closed = Done();
  return B;
}

llvm::Error notClosed(int32_t P) {
  return notApplicable("bine", "its butterfly leaves a block missing after "
                               "2 ceil(log2 P) + 2 steps for P = " +
                                   std::to_string(P));
}

/// Bine allgather: the butterfly's steps, each rank's blocks to its partner
/// in one message.
llvm::Expected<Schedule> bineAllgather(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "bine");
  const int32_t P = S.size();
  const BineButterflyPlan B = bineButterflyPlan(P);
  if (!B.Closed)
    return notClosed(P);
  std::vector<Transfer> Ts;
  std::vector<int64_t> Groups;
  for (size_t T = 0; T < B.Sent.size(); ++T)
    for (int32_t C = 0; C < P; ++C)
      if (!B.Sent[T][C].empty()) {
        Ts.push_back(
            allgatherBlocks(S, C, int32_t(B.Peer[T][C]), B.Sent[T][C]));
        Groups.push_back(int64_t(T));
      }
  S.Steps = orderedRounds(Ts, P, &Groups);
  return S;
}

/// Bine reduce-scatter: the allgather's butterfly backwards (the nearest
/// partner first), each rank sending its partner the partial sums of the
/// blocks the partner sent it in the allgather's mirror step.
llvm::Expected<Schedule> bineReduceScatter(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "bine");
  const int32_t P = S.size();
  S.NumChunks = P;
  const BineButterflyPlan B = bineButterflyPlan(P);
  if (!B.Closed)
    return notClosed(P);
  const int Steps = static_cast<int>(B.Sent.size());
  Reducer Rd(S);
  for (int T = 0; T < Steps; ++T) {
    const int A = Steps - 1 - T;
    Rd.begin();
    for (int32_t C = 0; C < P; ++C) {
      const int64_t Q = B.Peer[A][C];
      if (Q >= 0)
        for (const Interval &I : B.Sent[A][Q])
          Rd.send(C, int32_t(Q), I.Lo, I.Hi);
    }
    Rd.end();
  }
  // One message per partner and step: its ranges of blocks as pieces.
  std::vector<Transfer> Ts;
  std::vector<int64_t> Groups;
  for (size_t I = 0; I < Rd.Ts.size(); ++I) {
    const Transfer &T = Rd.Ts[I];
    if (!Ts.empty() && Groups.back() == Rd.Groups[I] &&
        Ts.back().Src == T.Src && Ts.back().Dst == T.Dst) {
      Ts.back().Bytes += T.Bytes;
      Ts.back().Pieces.insert(Ts.back().Pieces.end(), T.Pieces.begin(),
                              T.Pieces.end());
      continue;
    }
    Ts.push_back(T);
    Groups.push_back(Rd.Groups[I]);
  }
  S.Steps = orderedRounds(Ts, P, &Groups);
  return S;
}

} // namespace

llvm::Expected<Schedule> buildBine(const Machine &M, const Request &R,
                                   Pipeline &P) {
  switch (R.Coll) {
  case Collective::Bcast:
    break;
  case Collective::Gather:
  case Collective::Scatter:
    return bineTreePersonalized(M, R);
  case Collective::Allgather:
    return bineAllgather(M, R);
  case Collective::ReduceScatter:
    return bineReduceScatter(M, R);
  default:
    return bineTree(M, R);
  }
  Cheapest Search(M, P, makespanJudge());
  Search.consider("form=tree",
                  [&]() -> llvm::Expected<Schedule> { return bineTree(M, R); });
  Search.consider("form=scatter-allgather", [&]() -> llvm::Expected<Schedule> {
    return bineScatterAllgather(M, R);
  });
  return Search.take();
}

/// One broadcast form of Bine, without the search.
llvm::Expected<Schedule> buildBineBcastForm(const Machine &M, const Request &R,
                                            bool ScatterAllgather) {
  assert(R.Coll == Collective::Bcast);
  if (ScatterAllgather)
    return bineScatterAllgather(M, R);
  return bineTree(M, R);
}

} // namespace collc
