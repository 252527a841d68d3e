/// \file
/// A piecewise-constant map over an integer range: the runs of consecutive
/// integers (chunks, origins, dests) that share one state. The data-flow
/// checks that scale (passes/HeldFlow.h, passes/ReductionFlow.h) keep each
/// rank's state as runs instead of one entry per atom, so that their work
/// grows with the pieces a schedule moves, not with ranks x chunks.
#ifndef COLLC_PASSES_RUNMAP_H
#define COLLC_PASSES_RUNMAP_H

#include "ir/Interval.h"

#include <cassert>
#include <cstdint>
#include <iterator>
#include <map>

namespace collc {

/// A value of T for every integer of [0, Size), stored as maximal runs:
/// adjacent runs hold values that differ (T needs ==), which the updates
/// keep by merging equal neighbours.
template <typename T> class RunMap {
public:
  RunMap() = default;
  RunMap(int64_t Size, T Init) : Size(Size) {
    if (Size > 0)
      Runs.emplace(0, std::move(Init));
  }

  int64_t size() const { return Size; }
  /// The number of runs.
  size_t runs() const { return Runs.size(); }

  /// The value at \p X (0 <= X < size()).
  const T &at(int64_t X) const {
    assert(X >= 0 && X < Size && "outside the map");
    return std::prev(Runs.upper_bound(X))->second;
  }

  /// Calls \p Fn(Interval, const T &) for each run's part inside \p I, in
  /// increasing order, while it returns true. Returns false when \p Fn
  /// stopped the visit.
  template <typename F> bool visit(Interval I, F &&Fn) const {
    I = clip(I);
    if (I.empty())
      return true;
    auto It = std::prev(Runs.upper_bound(I.Lo));
    for (; It != Runs.end() && It->first < I.Hi; ++It) {
      auto Next = std::next(It);
      int64_t End = Next == Runs.end() ? Size : Next->first;
      Interval Part{std::max(It->first, I.Lo), std::min(End, I.Hi)};
      if (!Fn(Part, It->second))
        return false;
    }
    return true;
  }

  /// Calls \p Fn(Interval, T &) for each run's part inside \p I, in
  /// increasing order (the runs are split at I's ends first), then merges
  /// equal neighbours again.
  template <typename F> void update(Interval I, F &&Fn) {
    I = clip(I);
    if (I.empty())
      return;
    auto First = split(I.Lo);
    auto Last = I.Hi < Size ? splitAfter(First, I.Hi) : Runs.end();
    for (auto It = First; It != Last; ++It) {
      auto Next = std::next(It);
      int64_t End = Next == Runs.end() ? Size : Next->first;
      Fn(Interval{It->first, End}, It->second);
    }
    merge(First, I.Hi);
  }

  /// Sets every integer of \p I to \p V.
  void assign(Interval I, const T &V) {
    I = clip(I);
    if (I.empty())
      return;
    auto First = split(I.Lo);
    auto Last = I.Hi < Size ? splitAfter(First, I.Hi) : Runs.end();
    First->second = V;
    Runs.erase(std::next(First), Last);
    merge(First, I.Hi);
  }

  bool operator==(const RunMap &O) const {
    return Size == O.Size && Runs == O.Runs;
  }

private:
  Interval clip(Interval I) const {
    return {std::max<int64_t>(I.Lo, 0), std::min(I.Hi, Size)};
  }

  using Iter = typename std::map<int64_t, T>::iterator;

  /// Makes \p X (0 <= X < Size) the start of a run; returns that run.
  Iter split(int64_t X) { return splitAt(std::prev(Runs.upper_bound(X)), X); }

  /// split(X) for an \p X at or after the start of run \p From: walks
  /// forward from From instead of searching from the root, as the updates
  /// visit (or erase) the runs between their ends anyway.
  Iter splitAfter(Iter From, int64_t X) {
    assert(From->first <= X && "the run starts after X");
    for (auto Next = std::next(From); Next != Runs.end() && Next->first <= X;
         Next = std::next(From))
      From = Next;
    return splitAt(From, X);
  }

  /// Makes \p X the start of a run, \p It being the run that holds X.
  Iter splitAt(Iter It, int64_t X) {
    if (It->first == X)
      return It;
    return Runs.emplace_hint(std::next(It), X, It->second);
  }

  /// Merges the runs from the one before \p First (the run an update
  /// started at) to the one that starts at or before \p Hi with equal
  /// neighbours.
  void merge(Iter First, int64_t Hi) {
    auto It = First;
    if (It != Runs.begin())
      --It;
    while (It != Runs.end() && It->first <= Hi) {
      auto Next = std::next(It);
      if (Next == Runs.end())
        break;
      if (Next->second == It->second)
        Runs.erase(Next);
      else
        It = Next;
    }
  }

  int64_t Size = 0;
  /// Run start -> value; the run ends where the next one starts (or at Size).
  std::map<int64_t, T> Runs;
};

} // namespace collc

#endif
