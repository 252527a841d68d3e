#include "passes/ReductionFlow.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <map>
#include <optional>

namespace collc {

namespace {

/// The chunks every piece of \p T names, when they all name the same (a
/// latency-form reduction's partial result: one chunk, its contributors in
/// hundreds of intervals at 65,536 ranks); empty otherwise.
std::optional<Interval> sharedChunks(const Transfer &T) {
  if (T.Pieces.empty())
    return std::nullopt;
  const Interval Chunks = T.Pieces[0].Chunks;
  for (const Piece &Pc : T.Pieces)
    if (!(Pc.Chunks == Chunks))
      return std::nullopt;
  return Chunks;
}

/// The union of \p T's pieces' origins.
IntervalSet unionOfOrigins(const Transfer &T) {
  std::vector<Interval> Origins;
  Origins.reserve(T.Pieces.size());
  for (const Piece &Pc : T.Pieces)
    Origins.push_back(Pc.Origins);
  return IntervalSet::of(std::move(Origins));
}

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
  if (const std::optional<Interval> Chunks = sharedChunks(T)) {
    // One set for every chunk, as the map below would gather it.
    if (!Chunks->empty()) {
      IntervalSet Set = unionOfOrigins(T);
      Out.reserve(static_cast<size_t>(Chunks->size()));
      for (int64_t C = Chunks->Lo; C < Chunks->Hi; ++C)
        Out.emplace_back(C, Set);
    }
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

Fold foldInto(IntervalSet &Mine, const IntervalSet &In, TransferKind Kind,
              bool Commutative, bool &NeedsCommutative) {
  if (Kind == TransferKind::Copy || Mine.empty()) {
    Mine = In;
    return Fold::Store;
  }
  if (Mine.intersects(In))
    return Fold::Twice;
  const bool Adjacent = Mine.adjoins(In);
  if (!Adjacent && !Commutative)
    return Fold::Unordered;
  NeedsCommutative |= !Adjacent;
  Fold How =
      !In.empty() && In.front().Lo >= Mine.back().Hi ? Fold::Right : Fold::Left;
  Mine.insert(In);
  return How;
}

namespace {

bool refused(Fold F) { return F == Fold::Twice || F == Fold::Unordered; }

/// The contributors \p T carries as runs of chunks, in increasing order: a
/// chunk's set is the union of the origins of the pieces that name it;
/// chunks no piece names are left out.
std::vector<std::pair<Interval, IntervalSet>> carriedRuns(const Transfer &T) {
  std::vector<std::pair<Interval, IntervalSet>> Out;
  if (T.Pieces.size() == 1) {
    const Piece &Pc = T.Pieces[0];
    if (!Pc.Chunks.empty())
      Out.emplace_back(Pc.Chunks, IntervalSet(Pc.Origins));
    return Out;
  }
  // Every piece over the same chunks (a latency-form reduction's partial
  // result: one chunk, its contributors in hundreds of intervals at 65,536
  // ranks): one run, what the sweep below finds without its erases.
  if (const std::optional<Interval> Chunks = sharedChunks(T)) {
    if (!Chunks->empty())
      Out.emplace_back(*Chunks, unionOfOrigins(T));
    return Out;
  }
  // A sweep over the pieces' chunk ends: between two consecutive ends the
  // same pieces are open.
  std::vector<std::pair<int64_t, size_t>> Ends; // (chunk, piece index)
  for (size_t I = 0; I < T.Pieces.size(); ++I) {
    Ends.emplace_back(T.Pieces[I].Chunks.Lo, I);
    Ends.emplace_back(T.Pieces[I].Chunks.Hi, I);
  }
  std::sort(Ends.begin(), Ends.end());
  std::vector<size_t> Open;
  for (size_t E = 0; E < Ends.size();) {
    const int64_t At = Ends[E].first;
    for (; E < Ends.size() && Ends[E].first == At; ++E) {
      const size_t I = Ends[E].second;
      if (T.Pieces[I].Chunks.Lo == At && T.Pieces[I].Chunks.Hi > At)
        Open.push_back(I);
      else
        Open.erase(std::remove(Open.begin(), Open.end(), I), Open.end());
    }
    if (Open.empty() || E == Ends.size())
      continue;
    std::vector<Interval> Origins;
    for (size_t I : Open)
      Origins.push_back(T.Pieces[I].Origins);
    Interval Chunks{At, Ends[E].first};
    IntervalSet Set = IntervalSet::of(std::move(Origins));
    if (!Out.empty() && Out.back().first.Hi == At && Out.back().second == Set)
      Out.back().first.Hi = Chunks.Hi;
    else
      Out.emplace_back(Chunks, std::move(Set));
  }
  return Out;
}

/// Appends \p Run to \p Runs, joining it to the last run when it continues
/// it with the same folds.
void appendRun(std::vector<ChunkRun> &Runs, const ChunkRun &Run) {
  if (!Runs.empty() && Runs.back().Chunks.Hi == Run.Chunks.Lo &&
      Runs.back().Into[0] == Run.Into[0] && Runs.back().Into[1] == Run.Into[1])
    Runs.back().Chunks.Hi = Run.Chunks.Hi;
  else
    Runs.push_back(Run);
}

} // namespace

ReductionFlow::ReductionFlow(const Schedule &S)
    : S(S), P(S.size()), K(S.NumChunks) {
  if (P < 1 || K < 1)
    return;
  for (int V = 0; V < 2; ++V) {
    Values[V].reserve(P);
    for (int32_t R = 0; R < P; ++R)
      Values[V].emplace_back(K,
                             V == 0 ? IntervalSet({R, R + 1}) : IntervalSet{});
  }
}

std::vector<TransferFlow>
ReductionFlow::step(llvm::ArrayRef<const Transfer *> Transfers) {
  using Runs = std::vector<std::pair<Interval, IntervalSet>>;
  std::vector<TransferFlow> Out(Transfers.size());
  // Kept in place for the common step of one transfer (a Reducer's send).
  llvm::SmallVector<Runs, 1> In(Transfers.size());
  // Every send of the step reads the values before the step.
  for (size_t I = 0; I < Transfers.size(); ++I) {
    const Transfer &T = *Transfers[I];
    In[I] = carriedRuns(T);
    for (auto &Run : In[I]) {
      // Named, not bound: a lambda may not capture a structured binding
      // before C++20 as clang 14 implements it.
      const Interval Chunks = Run.first;
      const IntervalSet &Set = Run.second;
      bool Same = Values[T.From][T.Src].visit(
          Chunks, [&](Interval Part, const IntervalSet &Held) {
            if (Held == Set)
              return true;
            Out[I].Sent = {Part.Lo, Set, Held};
            return false;
          });
      if (!Same)
        break;
    }
  }
  // Then the deliveries, in order: per value, the folds over the carried
  // chunks, then the two values' folds overlaid as runs.
  for (size_t I = 0; I < Transfers.size(); ++I) {
    const Transfer &T = *Transfers[I];
    TransferFlow &F = Out[I];
    llvm::SmallVector<std::pair<Interval, Fold>, 4> Folds[2];
    for (int V = 0; V < 2; ++V)
      for (auto &Run : In[I]) {
        const Interval Chunks = Run.first;
        const IntervalSet &Set = Run.second;
        if (!(T.Into >> V & 1) || F.Refused[V]) {
          Folds[V].emplace_back(Chunks, Fold::None);
          continue;
        }
        Values[V][T.Dst].update(Chunks, [&](Interval Part, IntervalSet &Mine) {
          if (F.Refused[V]) {
            Folds[V].emplace_back(Part, Fold::None);
            return;
          }
          Fold How =
              foldInto(Mine, Set, T.Kind, S.Commutative, NeedsCommutative);
          if (refused(How)) // Mine is as it was
            F.Refused[V] = {Part.Lo, Set, Mine};
          Folds[V].emplace_back(Part, How);
        });
      }
    size_t A = 0, B = 0;
    while (A < Folds[0].size() && B < Folds[1].size()) {
      Interval &X = Folds[0][A].first, &Y = Folds[1][B].first;
      ChunkRun Run{{X.Lo, std::min(X.Hi, Y.Hi)}};
      Run.Into[0] = Folds[0][A].second;
      Run.Into[1] = Folds[1][B].second;
      appendRun(F.Runs, Run);
      X.Lo = Y.Lo = Run.Chunks.Hi;
      A += X.empty();
      B += Y.empty();
    }
  }
  return Out;
}

ChunkReductionFlow::ChunkReductionFlow(const Schedule &S)
    : S(S), P(S.size()), K(S.NumChunks) {
  if (P < 1 || K < 1)
    return;
  Values[0].assign(static_cast<size_t>(P) * K, IntervalSet{});
  for (int32_t R = 0; R < P; ++R)
    for (int64_t C = 0; C < K; ++C)
      at(0, R, C) = IntervalSet({R, R + 1});
}

std::vector<TransferFlow>
ChunkReductionFlow::step(llvm::ArrayRef<const Transfer *> Transfers) {
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
      for (int V = 0; V < 2; ++V) {
        if (!(T.Into >> V & 1) || F.Refused[V])
          continue;
        Run.Into[V] = foldInto(at(V, T.Dst, C), Set, T.Kind, S.Commutative,
                               NeedsCommutative);
        if (refused(Run.Into[V])) // the value is as it was
          F.Refused[V] = {C, Set, at(V, T.Dst, C)};
      }
      appendRun(F.Runs, Run);
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
