// Intervals and interval sets (ir/Interval.h): the normal form every user
// relies on (equal sets compare equal), and the operations on it.
#include "ir/Interval.h"

#include <doctest/doctest.h>

#include <random>
#include <vector>

using namespace collc;

TEST_CASE("interval-set: of() sorts, merges overlapping and touching "
          "intervals, drops empty ones") {
  IntervalSet S = IntervalSet::of({{5, 7}, {0, 2}, {2, 3}, {9, 9}, {6, 8}});
  CHECK(S.intervals() == std::vector<Interval>{{0, 3}, {5, 8}});
  CHECK(S.str() == "{0..2, 5..7}");
  CHECK(IntervalSet::of({}).empty());
  CHECK(IntervalSet::of({{4, 4}}).empty());
  CHECK(IntervalSet({3, 4}).str() == "{3}");
  CHECK(IntervalSet().str() == "{}");
}

TEST_CASE("interval-set: insert joins the intervals it meets and keeps the "
          "others") {
  IntervalSet S = IntervalSet::of({{0, 1}, {3, 4}, {6, 7}, {10, 12}});
  S.insert(Interval{1, 3}); // joins {0} and {3}
  CHECK(S.intervals() == std::vector<Interval>{{0, 4}, {6, 7}, {10, 12}});
  S.insert(Interval{8, 9}); // alone, between two
  CHECK(S.intervals() ==
        std::vector<Interval>{{0, 4}, {6, 7}, {8, 9}, {10, 12}});
  S.insert(Interval{5, 11}); // swallows three
  CHECK(S.intervals() == std::vector<Interval>{{0, 4}, {5, 12}});
  S.insert(Interval{20, 20}); // empty: nothing
  S.insert(IntervalSet::of({{4, 5}, {13, 14}}));
  CHECK(S.intervals() == std::vector<Interval>{{0, 12}, {13, 14}});
  CHECK(S == IntervalSet::of({{13, 14}, {0, 12}}));
}

TEST_CASE("interval-set: contains, intersects and adjoins") {
  IntervalSet S = IntervalSet::of({{0, 2}, {5, 8}});
  CHECK(S.contains(0));
  CHECK(S.contains(7));
  CHECK(!S.contains(2));
  CHECK(!S.contains(8));
  CHECK(!S.contains(-1));
  CHECK(S.intersects(IntervalSet({7, 9})));
  CHECK(!S.intersects(IntervalSet::of({{2, 5}, {8, 10}})));
  CHECK(!S.intersects(IntervalSet()));
  // Adjacent: two single intervals, one ending where the other begins.
  CHECK(IntervalSet({0, 3}).adjoins(IntervalSet({3, 5})));
  CHECK(IntervalSet({3, 5}).adjoins(IntervalSet({0, 3})));
  CHECK(!IntervalSet({0, 3}).adjoins(IntervalSet({4, 5})));
  CHECK(!S.adjoins(IntervalSet({2, 5})));
}

TEST_CASE("interval-set: insert of a set and of() agree with the union taken "
          "integer by integer, on drawn sets") {
  std::mt19937 Rng(26);
  auto Draw = [&] {
    std::vector<Interval> V(Rng() % 12);
    for (Interval &I : V) {
      I.Lo = int64_t(Rng() % 60);
      I.Hi = I.Lo + int64_t(Rng() % 6); // empty ones too
    }
    return V;
  };
  for (int Round = 0; Round < 500; ++Round) {
    const std::vector<Interval> A = Draw(), B = Draw();
    IntervalSet S = IntervalSet::of(A);
    S.insert(IntervalSet::of(B));
    // The union's intervals, found integer by integer.
    std::vector<bool> In(70, false);
    for (const std::vector<Interval> *V : {&A, &B})
      for (const Interval &I : *V)
        for (int64_t X = I.Lo; X < I.Hi; ++X)
          In[size_t(X)] = true;
    std::vector<Interval> Want;
    for (int64_t X = 0; X < 70; ++X)
      if (In[size_t(X)]) {
        if (!Want.empty() && Want.back().Hi == X)
          ++Want.back().Hi;
        else
          Want.push_back({X, X + 1});
      }
    CAPTURE(Round);
    CHECK(S.intervals() == Want);
    std::vector<Interval> Both = A;
    Both.insert(Both.end(), B.begin(), B.end());
    CHECK(IntervalSet::of(Both) == S);
  }
}
