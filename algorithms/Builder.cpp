#include "algorithms/Builder.h"

#include "passes/StepCost.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace collc {

llvm::Expected<Schedule>
BuilderRef::operator()(const Machine &M, const Request &R, Pipeline &P) const {
  return Plain ? Plain(M, R) : Searching(M, R, P);
}

llvm::Expected<Schedule> BuilderRef::operator()(const Machine &M,
                                                const Request &R) const {
  if (Plain)
    return Plain(M, R);
  PipelineOptions Quiet;
  Pipeline P(Quiet);
  return Searching(M, R, P);
}

llvm::Error notApplicable(llvm::StringRef Algorithm, const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 (Algorithm + ": " + Why).str());
}

Schedule scheduleSkeleton(const Machine &M, const Request &R,
                          llvm::StringRef Algorithm) {
  Schedule S;
  S.Coll = R.Coll;
  S.Algorithm = Algorithm.str();
  S.MachineName = M.Name;
  S.Bytes = R.Bytes;
  S.Root = R.Root;
  S.NumChunks = 1;
  S.Op = R.Op;
  S.Datatype = R.Datatype;
  S.Commutative = R.Commutative;
  S.Participants.reserve(R.Nodes.size());
  for (int64_t N : R.Nodes)
    S.Participants.push_back({N});
  return S;
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

Transfer rootChunksCall(const Schedule &S, int64_t From, int64_t To,
                        Interval Chunks) {
  return rootChunksCall(S, From, To, llvm::ArrayRef<Interval>(Chunks));
}

Transfer rootChunksCall(const Schedule &S, int64_t From, int64_t To,
                        llvm::ArrayRef<Interval> Chunks) {
  Transfer T;
  T.Src = static_cast<int32_t>(From);
  T.Dst = static_cast<int32_t>(To);
  T.Kind = TransferKind::Copy;
  for (const Interval &C : Chunks) {
    T.Bytes += S.chunkBytes(C);
    T.Pieces.push_back({{S.Root, S.Root + 1}, {0, S.size()}, C});
  }
  return T;
}

std::pair<int64_t, int64_t> divisorsNearSqrt(int64_t P) {
  const double Root = std::sqrt(double(P));
  int64_t Below = 0, Above = 0;
  for (int64_t N = 2; N < P; ++N)
    if (P % N == 0 && N >= Root / 2 && N <= 2 * Root) {
      if (N <= Root)
        Below = N;
      else if (!Above)
        Above = N;
    }
  return {Below, Above};
}

int ceilLog2(int64_t N) {
  int D = 0;
  while ((int64_t(1) << D) < N)
    ++D;
  return D;
}

std::vector<int32_t> nodeOrderFromRoot(const Schedule &S) {
  const int32_t P = S.size();
  std::vector<int32_t> Order(P);
  std::iota(Order.begin(), Order.end(), 0);
  std::stable_sort(Order.begin(), Order.end(), [&](int32_t A, int32_t B) {
    return S.Participants[A].Node < S.Participants[B].Node;
  });
  std::rotate(Order.begin(), std::find(Order.begin(), Order.end(), S.Root),
              Order.end());
  return Order;
}

bool topologyIsOneOf(const Machine &M, llvm::ArrayRef<TopologyKind> Kinds,
                     llvm::StringRef Needs, std::string &Why) {
  if (llvm::is_contained(Kinds, M.Topo.Kind))
    return true;
  Why = (Needs + ", not '" + topologyKindName(M.Topo.Kind) + "'").str();
  return false;
}

bool sharesNodes(const Machine &M, const Request &R, std::string &Why) {
  if (!onNetwork(M, R, Why))
    return false;
  std::vector<int64_t> Nodes = R.Nodes;
  std::sort(Nodes.begin(), Nodes.end());
  if (std::adjacent_find(Nodes.begin(), Nodes.end()) != Nodes.end())
    return true;
  Why = "every rank has a node of its own (a node-aware algorithm is then its "
        "flat "
        "form)";
  return false;
}

bool commutativeOperator(const Request &R, llvm::StringRef Reason,
                         std::string &Why) {
  if (R.Commutative || !isReduction(R.Coll))
    return true;
  Why = Reason.str();
  return false;
}

bool onNetwork(const Machine &M, const Request &, std::string &Why) {
  if (M.Net)
    return true;
  Why = "auto considers it only on a machine with a network";
  return false;
}

bool onFlowPricedNetwork(const Machine &M, const Request &R,
                         llvm::StringRef Reason, std::string &Why) {
  if (!onNetwork(M, R, Why))
    return false;
  if (!pricedBySteps(R.size(), M))
    return true;
  Why = Reason.str();
  return false;
}

bool postingTimed(const Machine &M, const Request &R, std::string &Why) {
  return onFlowPricedNetwork(
      M, R,
      "the step pricing takes every receive as posted with its send: the "
      "posting changes nothing it times",
      Why);
}

} // namespace collc
