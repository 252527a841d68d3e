/// \file
/// Integer intervals and sets of them: the ranges of ranks, blocks and chunks
/// the Schedule IR names (ir/Schedule.h), and the sets of ranks a reduction's
/// values hold (passes/ReductionFlow.h) or a builder moves.
#ifndef COLLC_IR_INTERVAL_H
#define COLLC_IR_INTERVAL_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// Half-open integer interval [Lo, Hi).
struct Interval {
  int64_t Lo = 0;
  int64_t Hi = 0;
  int64_t size() const { return Hi > Lo ? Hi - Lo : 0; }
  bool empty() const { return Hi <= Lo; }
  bool contains(int64_t X) const { return Lo <= X && X < Hi; }
  bool intersects(const Interval &O) const { return Lo < O.Hi && O.Lo < Hi; }
  bool operator==(const Interval &O) const = default;
};

/// A set of integers (e.g. the ranks whose contributions a value combines),
/// kept in normal form: sorted, disjoint, non-adjacent, non-empty intervals.
/// Two sets are equal iff their interval lists are. One interval is kept in
/// place (most sets are one range of ranks): a reduction's flow holds one
/// set per rank and run of chunks, millions at thousands of ranks.
class IntervalSet {
public:
  IntervalSet() = default;
  /// The integers of \p I (none when it is empty).
  explicit IntervalSet(Interval I);
  /// The union of \p Intervals, given in any order, overlapping or empty.
  static IntervalSet of(std::vector<Interval> Intervals);

  /// Adds the integers of \p I.
  void insert(Interval I);
  /// Adds the integers of \p O.
  void insert(const IntervalSet &O);

  bool empty() const { return Intervals.empty(); }
  bool contains(int64_t X) const;
  /// Whether the two sets share an integer.
  bool intersects(const IntervalSet &O) const;
  /// Whether both sets are single intervals and one ends where the other
  /// begins, so that their union is one interval again.
  bool adjoins(const IntervalSet &O) const;

  /// The intervals, in increasing order.
  std::vector<Interval> intervals() const {
    return std::vector<Interval>(Intervals.begin(), Intervals.end());
  }
  /// The number of intervals.
  size_t numIntervals() const { return Intervals.size(); }
  const Interval *begin() const { return Intervals.begin(); }
  const Interval *end() const { return Intervals.end(); }
  /// The lowest and highest interval (the set must not be empty).
  const Interval &front() const { return Intervals.front(); }
  const Interval &back() const { return Intervals.back(); }

  bool operator==(const IntervalSet &O) const = default;

  /// The set as diagnostics write it: "{}", "{3}", "{0..3, 5}".
  std::string str() const;

private:
  llvm::SmallVector<Interval, 1> Intervals;
};

} // namespace collc

#endif
