#include "algorithms/Bine.h"

#include "algorithms/Butterfly.h"
#include "algorithms/Placement.h"
#include "algorithms/Reducer.h"

#include "llvm/Support/MathExtras.h"

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
  return true;
}

llvm::Expected<Schedule> buildBine(const Machine &M, const Request &R) {
  std::string Why;
  if (!bineApplies(M, R, Why))
    return notApplicable("bine", Why);
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

} // namespace collc
