#include "algorithms/Barriers.h"

namespace collc {

namespace {

Transfer signal(int32_t Src, int32_t Dst) {
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  T.Bytes = 0;
  T.Kind = TransferKind::Signal;
  return T;
}

llvm::Error tooLarge(const Request &R) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "a barrier of %d ranks is "
                                 "larger than collc verifies (at most %lld)",
                                 R.size(),
                                 static_cast<long long>(MaxBarrierRanks));
}

} // namespace

bool barrierApplies(const Machine &, const Request &R, std::string &Why) {
  if (R.size() > MaxBarrierRanks) {
    Why = "a barrier of " + std::to_string(R.size()) +
          " ranks is larger than collc verifies (at most " +
          std::to_string(MaxBarrierRanks) + ")";
    return false;
  }
  return true;
}

llvm::Expected<Schedule> buildDisseminationBarrier(const Machine &M,
                                                   const Request &R) {
  if (R.size() > MaxBarrierRanks)
    return tooLarge(R);
  Schedule S = scheduleSkeleton(M, R, "dissemination");
  const int32_t P = S.size();
  for (int32_t K = 0; K < ceilLog2(P); ++K) {
    Step St;
    int64_t D = int64_t(1) << K;
    for (int32_t I = 0; I < P; ++I)
      St.Transfers.push_back(signal(I, static_cast<int32_t>((I + D) % P)));
    S.Steps.push_back(std::move(St));
  }
  return S;
}

llvm::Expected<Schedule> buildTreeBarrier(const Machine &M, const Request &R) {
  if (R.size() > MaxBarrierRanks)
    return tooLarge(R);
  Schedule S = scheduleSkeleton(M, R, "tree");
  const int32_t P = S.size();
  const int32_t L = ceilLog2(P);
  // Ranks relative to the root: rank = (root + rel) mod P.
  auto Abs = [&](int64_t Rel) {
    return static_cast<int32_t>((S.Root + Rel) % P);
  };
  // Gather: in round k, relative ranks that are odd multiples of 2^k report
  // to the rank 2^k below them (whose subtree already reported to it).
  for (int32_t K = 0; K < L; ++K) {
    Step St;
    int64_t D = int64_t(1) << K;
    for (int64_t Rel = D; Rel < P; Rel += 2 * D)
      St.Transfers.push_back(signal(Abs(Rel), Abs(Rel - D)));
    S.Steps.push_back(std::move(St));
  }
  // Release: the same tree top down.
  for (int32_t K = L - 1; K >= 0; --K) {
    Step St;
    int64_t D = int64_t(1) << K;
    for (int64_t Rel = D; Rel < P; Rel += 2 * D)
      St.Transfers.push_back(signal(Abs(Rel - D), Abs(Rel)));
    S.Steps.push_back(std::move(St));
  }
  return S;
}

llvm::Expected<Schedule> buildGatherBroadcastBarrier(const Machine &M,
                                                     const Request &R) {
  if (R.size() > MaxBarrierRanks)
    return tooLarge(R);
  Schedule S = scheduleSkeleton(M, R, "gather-broadcast");
  const int32_t P = S.size();
  auto Abs = [&](int64_t Pos) {
    return static_cast<int32_t>((S.Root + Pos) % P);
  };
  // Gather worm: from the far end of the line towards the root.
  for (int64_t Pos = P - 1; Pos > 0; --Pos)
    S.Steps.push_back(Step{{signal(Abs(Pos), Abs(Pos - 1))}});
  // Broadcast worm: back out in the reverse order.
  for (int64_t Pos = 1; Pos < P; ++Pos)
    S.Steps.push_back(Step{{signal(Abs(Pos - 1), Abs(Pos))}});
  return S;
}

} // namespace collc
