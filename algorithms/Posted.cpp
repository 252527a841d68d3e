#include "algorithms/Posted.h"

#include "algorithms/Cheapest.h"
#include "algorithms/LibraryBcast.h"
#include "algorithms/Placement.h"
#include "algorithms/Reductions.h"
#include "algorithms/SegmentedBcast.h"

#include <algorithm>
#include <cassert>
#include <tuple>

namespace collc {

llvm::Expected<Schedule> buildKnomialFanoutRadix(const Machine &M,
                                                 const Request &R, int64_t K) {
  assert(K >= 2 && "a k-nomial tree of radix 2 or more");
  Schedule S = scheduleSkeleton(M, R, "knomial-fanout");
  const int32_t P = S.size();
  if (P < 2)
    return S;
  const std::vector<int32_t> Order = nodeOrderFromRoot(S);
  // Index i's children come digit by digit from the highest
  // (knomialChildren lists them so, K - 1 a digit at most); a digit's
  // children share a group, which starts once i has the message (Time[i],
  // counted in groups) and after i's earlier groups.
  struct Send {
    int64_t Key, Parent, Child;
  };
  std::vector<Send> Sends;
  Sends.reserve(static_cast<size_t>(P - 1));
  std::vector<int64_t> Time(P, 0);
  for (int64_t I = 0; I < P; ++I) {
    const std::vector<int64_t> Kids = knomialChildren(I, K, P);
    int64_t Group = -1, Span = 0;
    for (int64_t C : Kids) {
      // A new digit: the child's offset from i is a multiple of a lower
      // power of K than the previous child's, or the first child.
      const int64_t D = C - I;
      int64_t Pow = 1;
      while (D % (Pow * K) == 0)
        Pow *= K;
      if (Pow != Span) {
        Span = Pow;
        ++Group;
      }
      Time[C] = Time[I] + Group + 1;
      Sends.push_back({Time[I] + Group, I, C});
    }
  }
  // Listed by the group's start, then by sender: causal (a rank's receive
  // has a smaller key than its sends) and each group consecutive.
  std::sort(Sends.begin(), Sends.end(), [](const Send &A, const Send &B) {
    return std::tie(A.Key, A.Parent, A.Child) <
           std::tie(B.Key, B.Parent, B.Child);
  });
  std::vector<Transfer> Ts;
  std::vector<int64_t> Groups;
  Ts.reserve(Sends.size());
  Groups.reserve(Sends.size());
  for (const Send &X : Sends) {
    Ts.push_back(wholeMessageCall(S, Order[X.Parent], Order[X.Child]));
    Groups.push_back(X.Key * P + X.Parent);
  }
  S.Steps = groupedRounds(M, std::move(Ts), P, std::move(Groups));
  return S;
}

llvm::Expected<Schedule> buildKnomialFanout(const Machine &M, const Request &R,
                                            Pipeline &P) {
  const int64_t Ranks = R.size();
  if (Ranks < 3)
    return buildKnomialFanoutRadix(M, R, 2);
  Cheapest Radices(M, P, makespanJudge());
  for (int64_t K = 2; K <= 8 && K <= Ranks; ++K)
    if (!Radices.consider("radix " + llvm::Twine(K),
                          [&] { return buildKnomialFanoutRadix(M, R, K); }))
      return Radices.takeLastError();
  return Radices.take();
}

namespace {

/// \p Build's schedule in lockstep, named \p Name.
llvm::Expected<Schedule> inLockstep(BuildFn Build, const Machine &M,
                                    const Request &R, const char *Name) {
  llvm::Expected<Schedule> S = Build(M, R);
  if (!S)
    return S.takeError();
  S->Algorithm = Name;
  S->Lockstep = true;
  return S;
}

} // namespace

llvm::Expected<Schedule> buildLockstepScatterAllgather(const Machine &M,
                                                       const Request &R) {
  return inLockstep(buildScatterAllgather, M, R, "lockstep-scatter-allgather");
}

llvm::Expected<Schedule> buildLockstepReduceScatterAllgather(const Machine &M,
                                                             const Request &R) {
  return inLockstep(buildReduceScatterAllgather, M, R,
                    "lockstep-reduce-scatter-allgather");
}

} // namespace collc
