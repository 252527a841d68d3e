#include "algorithms/TreePipeline.h"

#include "algorithms/Placement.h"
#include "passes/Posting.h"

#include <algorithm>
#include <tuple>

namespace collc {

std::vector<int64_t> depths(const ParentArray &Parent) {
  const size_t P = Parent.size();
  std::vector<int64_t> D(P, -1);
  std::vector<size_t> Path;
  for (size_t V = 0; V < P; ++V) {
    size_t X = V;
    while (D[X] < 0 && Parent[X] >= 0) {
      Path.push_back(X);
      X = static_cast<size_t>(Parent[X]);
    }
    if (D[X] < 0)
      D[X] = 0;
    for (auto It = Path.rbegin(); It != Path.rend(); ++It)
      D[*It] = D[static_cast<size_t>(Parent[*It])] + 1;
    Path.clear();
  }
  return D;
}

std::vector<Step> forestSteps(const Schedule &S,
                              const std::vector<TreeShare> &Trees) {
  struct Send {
    int64_t Key;
    int32_t Tree;
    /// The sender, for a tree whose fan-outs go together, else 0.
    int64_t Together;
    int32_t Dst;
    Interval Chunks;
  };
  bool AnyTogether = false;
  std::vector<Send> Sends;
  for (size_t T = 0; T < Trees.size(); ++T) {
    const TreeShare &Tr = Trees[T];
    std::vector<Interval> Segs;
    for (int64_t C = Tr.Lo; C < Tr.Hi; C = Segs.back().Hi)
      Segs.push_back(
          {C, std::min(Tr.Hi,
                       C + (C == Tr.Lo ? 1 : std::max<int64_t>(1, Tr.Group)))});
    std::vector<int64_t> D = depths(Tr.Parent);
    AnyTogether |= Tr.FanOutTogether;
    for (int32_t V = 0; V < S.size(); ++V)
      if (Tr.Parent[V] >= 0)
        for (size_t I = 0; I < Segs.size(); ++I)
          Sends.push_back(
              {static_cast<int64_t>(I) + RecvWindow * D[Tr.Parent[V]],
               static_cast<int32_t>(T), Tr.FanOutTogether ? Tr.Parent[V] : 0, V,
               Segs[I]});
  }
  std::sort(Sends.begin(), Sends.end(), [](const Send &A, const Send &B) {
    return std::tie(A.Key, A.Tree, A.Together, A.Dst) <
           std::tie(B.Key, B.Tree, B.Together, B.Dst);
  });
  std::vector<Transfer> Ts;
  Ts.reserve(Sends.size());
  // A fan-out that goes together: one group per sender, tree and "time".
  std::vector<int64_t> Groups;
  for (size_t I = 0; I < Sends.size(); ++I) {
    const Send &X = Sends[I];
    Ts.push_back(
        rootChunksCall(S, static_cast<int32_t>(Trees[X.Tree].Parent[X.Dst]),
                       X.Dst, {X.Chunks}));
    if (!AnyTogether)
      continue;
    if (!Trees[X.Tree].FanOutTogether)
      Groups.push_back(-1);
    else if (I > 0 && Groups.back() >= 0 &&
             std::tie(Sends[I - 1].Key, Sends[I - 1].Tree,
                      Sends[I - 1].Together) ==
                 std::tie(X.Key, X.Tree, X.Together))
      Groups.push_back(Groups.back());
    else
      Groups.push_back(static_cast<int64_t>(I));
  }
  return orderedRounds(Ts, S.size(), AnyTogether ? &Groups : nullptr);
}

int64_t maxSegmentsPerTree(const Request &R, int64_t Ways, int64_t Budget) {
  int64_t Cap = std::min<int64_t>(
      {static_cast<int64_t>(R.Bytes), maxSegmentsFor(R.size()),
       Budget / std::max<int64_t>(1, R.size() - 1)});
  return std::max<int64_t>(1, Cap / std::max<int64_t>(1, Ways));
}

llvm::Expected<Schedule> searchOneTree(const Machine &M, const Request &R,
                                       Pipeline &Pl, const Schedule &Skel,
                                       const ParentArray &Tree, double Hint,
                                       int64_t Budget) {
  return searchWindows(M, Pl, [&](bool Open) {
    return searchSegments(M, R, Pl, Hint, maxSegmentsPerTree(R, 1, Budget),
                          [&](int64_t K) -> llvm::Expected<Schedule> {
                            Schedule S = Skel;
                            S.NumChunks = K;
                            if (Open)
                              openWindow(S);
                            S.Steps = forestSteps(S, {{Tree, 0, K}});
                            return S;
                          });
  });
}

} // namespace collc
