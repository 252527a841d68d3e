#include "ir/Interval.h"

#include <algorithm>
#include <iterator>

namespace collc {

IntervalSet::IntervalSet(Interval I) {
  if (!I.empty())
    Intervals.push_back(I);
}

namespace {
bool byLo(const Interval &A, const Interval &B) { return A.Lo < B.Lo; }
} // namespace

IntervalSet IntervalSet::of(std::vector<Interval> V) {
  // Often given in order (insert's merge, a transfer's sorted pieces).
  if (!std::is_sorted(V.begin(), V.end(), byLo))
    std::sort(V.begin(), V.end(), byLo);
  // Merged in place, then kept in an allocation of exactly their number
  // when more than one (growing from the one in place would allocate
  // three): a reduction's flow holds millions of two-range sets.
  size_t N = 0;
  for (const Interval &I : V) {
    if (I.empty())
      continue;
    if (N > 0 && I.Lo <= V[N - 1].Hi)
      V[N - 1].Hi = std::max(V[N - 1].Hi, I.Hi);
    else
      V[N++] = I;
  }
  IntervalSet Out;
  if (N == 1) {
    Out.Intervals.push_back(V[0]);
  } else if (N > 1) {
    llvm::SmallVector<Interval, 0> Exact;
    Exact.reserve(N);
    Exact.append(V.begin(), V.begin() + N);
    Out.Intervals = std::move(Exact);
  }
  return Out;
}

void IntervalSet::insert(Interval I) {
  if (I.empty())
    return;
  // The intervals that overlap or touch I are [First, Last): they merge.
  auto First =
      std::lower_bound(Intervals.begin(), Intervals.end(), I.Lo,
                       [](const Interval &A, int64_t Lo) { return A.Hi < Lo; });
  auto Last = First;
  while (Last != Intervals.end() && Last->Lo <= I.Hi) {
    I.Lo = std::min(I.Lo, Last->Lo);
    I.Hi = std::max(I.Hi, Last->Hi);
    ++Last;
  }
  if (First == Last) {
    Intervals.insert(First, I);
    return;
  }
  *First = I;
  Intervals.erase(First + 1, Last);
}

void IntervalSet::insert(const IntervalSet &O) {
  if (Intervals.empty()) {
    Intervals = O.Intervals;
    return;
  }
  // Both lists are sorted: merged in linear time (a reduction's partial
  // results join sets of hundreds of intervals at 65,536 ranks).
  std::vector<Interval> All;
  All.reserve(Intervals.size() + O.Intervals.size());
  std::merge(Intervals.begin(), Intervals.end(), O.Intervals.begin(),
             O.Intervals.end(), std::back_inserter(All), byLo);
  *this = of(std::move(All));
}

bool IntervalSet::contains(int64_t X) const {
  auto It =
      std::upper_bound(Intervals.begin(), Intervals.end(), X,
                       [](int64_t V, const Interval &A) { return V < A.Hi; });
  return It != Intervals.end() && It->contains(X);
}

bool IntervalSet::intersects(const IntervalSet &O) const {
  auto A = Intervals.begin(), B = O.Intervals.begin();
  while (A != Intervals.end() && B != O.Intervals.end()) {
    if (A->intersects(*B))
      return true;
    if (A->Hi <= B->Hi)
      ++A;
    else
      ++B;
  }
  return false;
}

bool IntervalSet::adjoins(const IntervalSet &O) const {
  return Intervals.size() == 1 && O.Intervals.size() == 1 &&
         (Intervals[0].Hi == O.Intervals[0].Lo ||
          O.Intervals[0].Hi == Intervals[0].Lo);
}

std::string IntervalSet::str() const {
  if (Intervals.empty())
    return "{}";
  std::string Out = "{";
  for (size_t I = 0; I < Intervals.size(); ++I) {
    Out += I ? ", " : "";
    const Interval &V = Intervals[I];
    Out += V.size() == 1
               ? std::to_string(V.Lo)
               : std::to_string(V.Lo) + ".." + std::to_string(V.Hi - 1);
  }
  return Out + "}";
}

} // namespace collc
