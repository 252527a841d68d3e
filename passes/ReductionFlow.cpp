#include "passes/ReductionFlow.h"

#include <map>

namespace collc {

namespace {

/// The contributors \p T carries, per chunk its pieces name, by chunk.
using Carried = std::vector<std::pair<int64_t, IntervalSet>>;

Carried carried(const Transfer &T) {
  Carried Out;
  if (T.Pieces.size() == 1) { // the common case: one set for every chunk
    const Piece &Pc = T.Pieces[0];
    IntervalSet Set(Pc.Origins);
    Out.reserve(static_cast<size_t>(Pc.Chunks.size()));
    for (int64_t C = Pc.Chunks.Lo; C < Pc.Chunks.Hi; ++C)
      Out.emplace_back(C, Set);
    return Out;
  }
  std::map<int64_t, std::vector<Interval>> Origins;
  for (const Piece &Pc : T.Pieces)
    for (int64_t C = Pc.Chunks.Lo; C < Pc.Chunks.Hi; ++C)
      Origins[C].push_back(Pc.Origins);
  Out.reserve(Origins.size());
  for (auto &[C, V] : Origins)
    Out.emplace_back(C, IntervalSet::of(std::move(V)));
  return Out;
}

/// Whether the flow can follow \p T of \p S (see reductionFlow).
bool followable(const Schedule &S, const Transfer &T) {
  const int32_t P = S.size();
  if (T.Src < 0 || T.Src >= P || T.Dst < 0 || T.Dst >= P || T.Src == T.Dst ||
      T.Kind == TransferKind::Signal || T.From > 1 || T.Into < 1 || T.Into > 3)
    return false;
  for (const Piece &Pc : T.Pieces)
    if (Pc.Origins.Lo < 0 || Pc.Origins.Hi > P || Pc.Chunks.Lo < 0 ||
        Pc.Chunks.Hi > S.NumChunks)
      return false;
  return true;
}

} // namespace

ReductionFlow::ReductionFlow(const Schedule &S)
    : S(S), P(S.size()), K(S.NumChunks) {
  if (P < 1 || K < 1)
    return;
  for (auto &V : Values)
    V.assign(static_cast<size_t>(P) * K, IntervalSet{});
  for (int32_t R = 0; R < P; ++R)
    for (int64_t C = 0; C < K; ++C)
      at(0, R, C) = IntervalSet({R, R + 1});
}

Fold ReductionFlow::update(const Transfer &T, int V, int64_t C,
                           const IntervalSet &In, FlowConflict &Refused) {
  IntervalSet &Mine = at(V, T.Dst, C);
  if (T.Kind == TransferKind::Copy || Mine.empty()) {
    Mine = In;
    return Fold::Store;
  }
  if (Mine.intersects(In)) {
    Refused = {C, In, Mine};
    return Fold::Twice;
  }
  const bool Adjacent = Mine.adjoins(In);
  if (!Adjacent && !S.Commutative) {
    Refused = {C, In, Mine};
    return Fold::Unordered;
  }
  NeedsCommutative |= !Adjacent;
  Fold How =
      !In.empty() && In.front().Lo >= Mine.back().Hi ? Fold::Right : Fold::Left;
  Mine.insert(In);
  return How;
}

std::vector<TransferFlow>
ReductionFlow::step(llvm::ArrayRef<const Transfer *> Transfers) {
  std::vector<TransferFlow> Out(Transfers.size());
  std::vector<Carried> In(Transfers.size());
  // Every send of the step reads the values before the step.
  for (size_t I = 0; I < Transfers.size(); ++I) {
    const Transfer &T = *Transfers[I];
    In[I] = carried(T);
    for (auto &[C, Set] : In[I]) {
      const IntervalSet &Held = value(T.From, T.Src, C);
      if (Set != Held) {
        Out[I].Sent = {C, Set, Held};
        break;
      }
    }
  }
  // Then the deliveries, in order.
  for (size_t I = 0; I < Transfers.size(); ++I) {
    const Transfer &T = *Transfers[I];
    TransferFlow &F = Out[I];
    for (auto &[C, Set] : In[I]) {
      ChunkRun Run{{C, C + 1}};
      for (int V = 0; V < 2; ++V)
        if ((T.Into >> V & 1) && !F.Refused[V])
          Run.Into[V] = update(T, V, C, Set, F.Refused[V]);
      if (!F.Runs.empty() && F.Runs.back().Chunks.Hi == C &&
          F.Runs.back().Into[0] == Run.Into[0] &&
          F.Runs.back().Into[1] == Run.Into[1])
        F.Runs.back().Chunks.Hi = C + 1;
      else
        F.Runs.push_back(Run);
    }
  }
  return Out;
}

ScheduleFlow reductionFlow(const Schedule &S) {
  ReductionFlow Flow(S);
  ScheduleFlow Out;
  Out.Steps.resize(S.Steps.size());
  std::vector<const Transfer *> Followed;
  std::vector<size_t> Index;
  for (size_t SI = 0; SI < S.Steps.size(); ++SI) {
    const std::vector<Transfer> &Ts = S.Steps[SI].Transfers;
    Out.Steps[SI].resize(Ts.size());
    Followed.clear();
    Index.clear();
    for (size_t TI = 0; TI < Ts.size(); ++TI)
      if (followable(S, Ts[TI])) {
        Followed.push_back(&Ts[TI]);
        Index.push_back(TI);
      }
    std::vector<TransferFlow> Flows = Flow.step(Followed);
    for (size_t I = 0; I < Flows.size(); ++I)
      Out.Steps[SI][Index[I]] = std::move(Flows[I]);
  }
  Out.NeedsCommutative = Flow.needsCommutative();
  return Out;
}

} // namespace collc
