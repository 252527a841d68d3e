#include "algorithms/Bine.h"

#include "algorithms/Butterfly.h"
#include "algorithms/Cheapest.h"
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
  if (isReduction(R.Coll) && !R.Commutative) {
    Why = "its trees combine out of rank order: commutative operators only";
    return false;
  }
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

} // namespace

llvm::Expected<Schedule> buildBine(const Machine &M, const Request &R,
                                   Pipeline &P) {
  std::string Why;
  if (!bineApplies(M, R, Why))
    return notApplicable("bine", Why);
  if (R.Coll != Collective::Bcast)
    return bineTree(M, R);
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
