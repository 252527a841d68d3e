#include "passes/MaxMinSharing.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cassert>

namespace collc {

namespace {
constexpr double Inf = MaxMinSharing::Unbounded;

/// A.first < B.first, or equal and A.second < B.second, without branches:
/// levels are >= 0 (or -0, which equals 0), whose bits order as the values
/// do.
bool lower(const std::pair<double, uint32_t> &A,
           const std::pair<double, uint32_t> &B) {
  const uint64_t X = llvm::bit_cast<uint64_t>(A.first + 0.0),
                 Y = llvm::bit_cast<uint64_t>(B.first + 0.0);
  return (X < Y) | ((X == Y) & (A.second < B.second));
}
} // namespace

void MaxMinSharing::LevelHeap::heapify() {
  for (size_t I = H.size() / 4 + 1; I-- > 0;)
    down(I);
}

void MaxMinSharing::LevelHeap::pop() {
  H.front() = H.back();
  H.pop_back();
  down(0);
}

void MaxMinSharing::LevelHeap::raiseTop(double L) {
  H.front().first = L;
  down(0);
}

void MaxMinSharing::LevelHeap::down(size_t I) {
  const size_t N = H.size();
  if (I >= N)
    return;
  const Level X = H[I];
  for (;;) {
    const size_t C = 4 * I + 1;
    if (C >= N)
      break;
    size_t Best = C;
    for (size_t J = C + 1, E = std::min(C + 4, N); J < E; ++J)
      Best = lower(H[J], H[Best]) ? J : Best;
    if (!lower(H[Best], X))
      break;
    H[I] = H[Best];
    I = Best;
  }
  H[I] = X;
}

uint32_t MaxMinSharing::addResource(double Capacity) {
  Res.emplace_back();
  Res.back().Capacity = Capacity;
  return static_cast<uint32_t>(Res.size() - 1);
}

uint32_t MaxMinSharing::addFlow(llvm::ArrayRef<Use> Uses, double Penalty,
                                double Bound) {
  assert(Penalty > 0 && "a flow's penalty is positive");
  Flow &F = Flows.emplace_back();
  F.Penalty = Penalty;
  F.Bound = Bound;
  F.ElemBegin = static_cast<uint32_t>(Elements.size());
  for (const Use &U : Uses)
    Elements.push_back({U.Resource, 0, U.Weight, U.Weight / Penalty});
  F.ElemEnd = static_cast<uint32_t>(Elements.size());
  FlowEpoch.push_back(0);
  Frozen.push_back(0);
  return static_cast<uint32_t>(Flows.size() - 1);
}

void MaxMinSharing::start(uint32_t Id) {
  Flow &F = Flows[Id];
  F.Value = 0;
  for (uint32_t E = F.ElemBegin; E < F.ElemEnd; ++E) {
    Element &El = Elements[E];
    Resource &R = Res[El.Res];
    El.Pos = static_cast<uint32_t>(R.Users.size());
    R.Users.push_back({Id, E});
    Dirty.push_back(El.Res);
  }
}

void MaxMinSharing::stop(uint32_t Id) {
  const Flow &F = Flows[Id];
  for (uint32_t E = F.ElemBegin; E < F.ElemEnd; ++E) {
    const Element &El = Elements[E];
    Resource &R = Res[El.Res];
    // Swap-remove, keeping the moved user's position right.
    auto Last = R.Users.back();
    R.Users[El.Pos] = Last;
    Elements[Last.second].Pos = El.Pos;
    R.Users.pop_back();
    Dirty.push_back(El.Res);
  }
}

/// The level (the share of a flow of penalty 1) at which \p R fills up, with
/// what its frozen users leave.
double MaxMinSharing::level(const Resource &R) {
  return std::max(R.Rem, 0.0) / std::max(R.Usage, 1e-300);
}

void MaxMinSharing::freeze(uint32_t Id, double Value) {
  Flow &F = Flows[Id];
  Frozen[Id] = 1;
  F.NewValue = Value;
  for (uint32_t E = F.ElemBegin; E < F.ElemEnd; ++E) {
    const Element &El = Elements[E];
    Resource &R = Res[El.Res];
    R.Rem -= El.Weight * Value;
    R.Usage -= El.Share;
    --R.Unfrozen;
  }
}

size_t MaxMinSharing::solve(
    llvm::function_ref<void(uint32_t, double, double)> Changed) {
  ++Epoch;
  CompFlows.clear();
  CompRes.clear();
  for (uint32_t R : Dirty)
    if (Res[R].Epoch != Epoch) {
      Res[R].Epoch = Epoch;
      CompRes.push_back(R);
    }
  Dirty.clear();
  for (size_t I = 0; I < CompRes.size(); ++I)
    for (auto [Id, E] : Res[CompRes[I]].Users) {
      (void)E;
      if (FlowEpoch[Id] == Epoch)
        continue;
      FlowEpoch[Id] = Epoch;
      const Flow &F = Flows[Id];
      CompFlows.push_back(Id);
      for (uint32_t X = F.ElemBegin; X < F.ElemEnd; ++X) {
        uint32_t R = Elements[X].Res;
        if (Res[R].Epoch != Epoch) {
          Res[R].Epoch = Epoch;
          CompRes.push_back(R);
        }
      }
    }
  if (CompFlows.empty())
    return 0;
  for (uint32_t R : CompRes) {
    Resource &Rs = Res[R];
    Rs.Rem = Rs.Capacity;
    Rs.Usage = 0;
    Rs.Unfrozen = 0;
    Rs.Ceiling = 0;
  }
  for (uint32_t Id : CompFlows) {
    const Flow &F = Flows[Id];
    Frozen[Id] = 0;
    const double BoundLevel = F.Bound * F.Penalty;
    for (uint32_t E = F.ElemBegin; E < F.ElemEnd; ++E) {
      Resource &R = Res[Elements[E].Res];
      R.Usage += Elements[E].Share;
      ++R.Unfrozen;
      R.Ceiling = std::max(R.Ceiling, BoundLevel);
    }
  }
  // Flows by the level at which their bound stops them.
  Bounded.clear();
  double Ceiling = 0;
  size_t NumBounded = 0;
  for (uint32_t Id : CompFlows)
    if (Flows[Id].Bound < Inf) {
      const double L = Flows[Id].Bound * Flows[Id].Penalty;
      Bounded.add({L, Id});
      Ceiling = std::max(Ceiling, L);
      ++NumBounded;
    }
  Bounded.heapify();
  // A resource whose level reaches the highest bound level of its users
  // never fills first: a user of it still rising has a bound at or below
  // that level, and so has the lowest bound still pending, which wins a tie;
  // levels only rise. Neither does one above every flow's bound level, when
  // all have one. Such a resource stays out of the heap.
  if (NumBounded < CompFlows.size())
    Ceiling = Inf;
  // Resources by the level at which they fill (lazy: an entry is current
  // when its level is the resource's level now).
  Heap.clear();
  for (uint32_t R : CompRes)
    if (Res[R].Unfrozen > 0) {
      const double L = level(Res[R]);
      if (L < std::min(Ceiling, Res[R].Ceiling))
        Heap.add({L, R});
    }
  Heap.heapify();
  size_t Left = CompFlows.size();

  while (Left > 0) {
    // Levels only rise as flows freeze: an entry below its resource's level
    // now goes back in at that level (a lazy increase-key), an entry of a
    // resource without rising users, or above the ceiling, goes.
    while (!Heap.empty()) {
      const Resource &Top = Res[Heap.top().second];
      double Level = Top.Unfrozen > 0 ? level(Top) : Inf;
      if (Level <= Heap.top().first)
        break;
      if (Level < std::min(Ceiling, Top.Ceiling))
        Heap.raiseTop(Level);
      else
        Heap.pop();
    }
    while (!Bounded.empty() && Frozen[Bounded.top().second])
      Bounded.pop();
    double LevelRes = Heap.empty() ? Inf : Heap.top().first;
    double LevelBound = Bounded.empty() ? Inf : Bounded.top().first;
    if (LevelBound <= LevelRes) {
      if (LevelBound == Inf)
        break; // nothing limits what is left (cannot happen: a flow
               // reached uses a resource, whose capacity is finite)
      uint32_t Id = Bounded.top().second;
      Bounded.pop();
      freeze(Id, Flows[Id].Bound);
      --Left;
      continue;
    }
    const uint32_t R = Heap.top().second;
    Heap.pop();
    // Every flow still rising on R stops at this level. Freezing one
    // reorders R's users only when they stop, not here.
    for (size_t U = 0; U < Res[R].Users.size(); ++U) {
      uint32_t Id = Res[R].Users[U].first;
      if (Frozen[Id])
        continue;
      freeze(Id, LevelRes / Flows[Id].Penalty);
      --Left;
    }
  }
  for (uint32_t Id : CompFlows) {
    Flow &F = Flows[Id];
    if (F.NewValue == F.Value)
      continue;
    const double Old = F.Value;
    F.Value = F.NewValue;
    Changed(Id, Old, F.Value);
  }
  return CompFlows.size();
}

} // namespace collc
