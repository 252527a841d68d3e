/// \file
/// Weighted max-min fair sharing of resources among flows (SimGrid's LMM
/// system), solved incrementally: the network evaluator (passes/NetworkCost.h)
/// keeps one of these for the links, injections and ejections of a machine
/// and asks it for the flows' rates whenever a message starts or ends its
/// data phase.
///
/// A resource has a capacity. A flow uses some resources, each with a weight
/// (how much of the resource one unit of its rate takes), and has a penalty
/// p and a bound. The allocation: a level lambda rises from 0; a flow still
/// rising gets rate lambda / p; a flow stops at its bound, or when a resource
/// it uses fills up (the sum over its users of weight x rate reaches the
/// capacity), whichever comes first; lambda keeps rising for the others.
///
/// Only started flows take a share. start() and stop() mark the resources
/// whose users changed; solve() re-solves the flows reachable from them
/// through shared resources (the rest keep their rates, which the change
/// cannot affect). The fill is ordered by level, then by id, so the result
/// does not depend on the order of anything else.
#ifndef COLLC_PASSES_MAXMINSHARING_H
#define COLLC_PASSES_MAXMINSHARING_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace collc {

class MaxMinSharing {
public:
  static constexpr double Unbounded = std::numeric_limits<double>::infinity();

  /// One resource a flow uses, with the weight it loads it with.
  struct Use {
    uint32_t Resource = 0;
    double Weight = 1;
  };

  /// Adds a resource of capacity \p Capacity (> 0); returns its id, the
  /// number of resources before it.
  uint32_t addResource(double Capacity);

  /// Adds a flow over \p Uses (each resource at most once), of penalty
  /// \p Penalty (> 0) and at most \p Bound; returns its id, the number of
  /// flows before it. It takes no share until start().
  uint32_t addFlow(llvm::ArrayRef<Use> Uses, double Penalty,
                   double Bound = Unbounded);

  /// Flow \p Id starts taking its share (its rate is 0 until the next
  /// solve()), or stops. A flow is started at most once at a time.
  void start(uint32_t Id);
  void stop(uint32_t Id);

  /// Whether a start() or stop() since the last solve() may change rates.
  bool pending() const { return !Dirty.empty(); }

  /// Re-solves the sharing among the flows a start() or stop() can reach,
  /// and calls \p Changed(Id, OldRate, NewRate) for each of them whose rate
  /// changed, in the order they were reached, with the new rate in place.
  /// Returns how many flows were re-solved.
  size_t solve(llvm::function_ref<void(uint32_t, double, double)> Changed);

  double rate(uint32_t Id) const { return Flows[Id].Value; }
  double bound(uint32_t Id) const { return Flows[Id].Bound; }
  /// Whether flow \p Id uses no resource (only its bound limits it).
  bool usesNothing(uint32_t Id) const {
    return Flows[Id].ElemBegin == Flows[Id].ElemEnd;
  }

private:
  /// A fill level (a flow of penalty 1's rate) with the id of what reaches
  /// it first, a resource or a flow.
  using Level = std::pair<double, uint32_t>;

  /// A min-heap of levels (4-ary: shallow, its children side by side), lowest
  /// level first, then lowest id. The order is total (levels are never NaN),
  /// so which entry is on top does not depend on how the heap is kept.
  class LevelHeap {
  public:
    void clear() { H.clear(); }
    bool empty() const { return H.empty(); }
    const Level &top() const { return H.front(); }
    /// Adds \p L without ordering; heapify() orders what was added.
    void add(Level L) { H.push_back(L); }
    void heapify();
    void pop();
    /// Raises the top's level to \p L.
    void raiseTop(double L);

  private:
    void down(size_t I);
    std::vector<Level> H;
  };

  struct Resource {
    double Capacity = 0;
    /// Started flows that use it: (flow, index of the element in the
    /// flow's list).
    std::vector<std::pair<uint32_t, uint32_t>> Users;
    // Scratch of one solve.
    double Rem = 0, Usage = 0;
    /// The highest bound level of its users (Inf: one has no bound).
    double Ceiling = 0;
    uint32_t Unfrozen = 0, Epoch = 0;
  };
  /// One resource a flow uses.
  struct Element {
    uint32_t Res = 0;
    uint32_t Pos = 0; ///< Its index in Resource::Users while started.
    double Weight = 1;
    double Share = 0; ///< Weight / the flow's penalty.
  };
  struct Flow {
    uint32_t ElemBegin = 0, ElemEnd = 0;
    double Penalty = 1, Bound = Unbounded;
    double Value = 0, NewValue = 0;
  };

  static double level(const Resource &R);
  void freeze(uint32_t Id, double Value);

  std::vector<Resource> Res;
  std::vector<Element> Elements;
  std::vector<Flow> Flows;
  std::vector<uint32_t> Dirty; ///< Resources whose users changed.
  uint32_t Epoch = 0;
  std::vector<uint32_t> CompFlows, CompRes;
  LevelHeap Heap, Bounded;
  /// Per flow, apart from Flows so that the solve's scans stay in cache:
  /// the last solve that reached it, and whether its share is fixed.
  std::vector<uint32_t> FlowEpoch;
  std::vector<uint8_t> Frozen;
};

} // namespace collc

#endif
