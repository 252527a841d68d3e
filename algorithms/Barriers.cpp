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

namespace {

/// A barrier's schedule: \p Fill adds the steps to the skeleton; a group
/// larger than collc verifies is refused.
template <typename FillFn>
llvm::Expected<Schedule> barrier(const Machine &M, const Request &R,
                                 const char *Name, FillFn Fill) {
  if (R.size() > MaxBarrierRanks)
    return tooLarge(R);
  Schedule S = scheduleSkeleton(M, R, Name);
  Fill(S, S.size());
  return S;
}

/// The rank \p Rel places after the root (mod P).
int32_t fromRoot(const Schedule &S, int64_t Rel) {
  return static_cast<int32_t>((S.Root + Rel) % S.size());
}

} // namespace

llvm::Expected<Schedule> buildDisseminationBarrier(const Machine &M,
                                                   const Request &R) {
  return barrier(M, R, "dissemination", [](Schedule &S, int32_t P) {
    for (int32_t K = 0; K < ceilLog2(P); ++K) {
      Step St;
      int64_t D = int64_t(1) << K;
      for (int32_t I = 0; I < P; ++I)
        St.Transfers.push_back(signal(I, static_cast<int32_t>((I + D) % P)));
      S.Steps.push_back(std::move(St));
    }
  });
}

llvm::Expected<Schedule> buildTreeBarrier(const Machine &M, const Request &R) {
  return barrier(M, R, "tree", [](Schedule &S, int32_t P) {
    // Round k pairs the relative ranks that are odd multiples of 2^k with
    // the rank 2^k below them (whose subtree the round before joined): Up,
    // the gather, they report to it; else, the release, it tells them.
    auto Round = [&](int32_t K, bool Up) {
      Step St;
      int64_t D = int64_t(1) << K;
      for (int64_t Rel = D; Rel < P; Rel += 2 * D) {
        const int32_t Child = fromRoot(S, Rel), Parent = fromRoot(S, Rel - D);
        St.Transfers.push_back(Up ? signal(Child, Parent)
                                  : signal(Parent, Child));
      }
      S.Steps.push_back(std::move(St));
    };
    const int32_t L = ceilLog2(P);
    for (int32_t K = 0; K < L; ++K)
      Round(K, true);
    // Release: the same tree top down.
    for (int32_t K = L - 1; K >= 0; --K)
      Round(K, false);
  });
}

llvm::Expected<Schedule> buildGatherBroadcastBarrier(const Machine &M,
                                                     const Request &R) {
  return barrier(M, R, "gather-broadcast", [](Schedule &S, int32_t P) {
    // Gather worm: from the far end of the line towards the root.
    for (int64_t Pos = P - 1; Pos > 0; --Pos)
      S.Steps.push_back(Step{{signal(fromRoot(S, Pos), fromRoot(S, Pos - 1))}});
    // Broadcast worm: back out in the reverse order.
    for (int64_t Pos = 1; Pos < P; ++Pos)
      S.Steps.push_back(Step{{signal(fromRoot(S, Pos - 1), fromRoot(S, Pos))}});
  });
}

} // namespace collc
