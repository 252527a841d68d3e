// The drop-in watching its calls (dropin/Watch.h): the settings, the
// model's range for a call, and the order of a kind's calls: warm-ups,
// samples, the agreement, the departure from the model and the side kept.
#include "dropin/Watch.h"

#include <doctest/doctest.h>

using namespace collc::dropin;

namespace {

/// Feeds \p W calls of \p Micros each until the ranks must agree; returns
/// how many calls that took.
int feed(Watch &W, double CollcMicros, double LibraryMicros,
         std::array<double, 2> Predicted = {100, 100}) {
  int Calls = 0;
  while (!W.needsAgreement()) {
    REQUIRE(W.sampling());
    W.record(W.next() == Watch::Collc ? CollcMicros : LibraryMicros, Predicted);
    ++Calls;
    REQUIRE(Calls < 100);
  }
  return Calls;
}

} // namespace

TEST_CASE("COLLC_WATCH and COLLC_ADAPT") {
  std::vector<std::string> Notes;
  WatchConfig C = parseWatch(nullptr, nullptr, Notes);
  CHECK(C.Factor == 4);
  CHECK(!C.Adapt);
  CHECK(Notes.empty());
  CHECK(parseWatch("off", "1", Notes).Factor == 0);
  CHECK(parseWatch("off", "1", Notes).Adapt);
  CHECK(parseWatch(" 2.5 ", "no", Notes).Factor == 2.5);
  CHECK(!parseWatch("2.5", "no", Notes).Adapt);
  CHECK(Notes.empty());
  // What cannot be used keeps the default and says so.
  C = parseWatch("1.0", "maybe", Notes);
  CHECK(C.Factor == 4);
  CHECK(!C.Adapt);
  REQUIRE(Notes.size() == 2);
  CHECK(Notes[0].find("COLLC_WATCH='1.0'") != std::string::npos);
  CHECK(Notes[1].find("COLLC_ADAPT='maybe'") != std::string::npos);
  CHECK(parseWatch("nan", nullptr, Notes).Factor == 4);
  CHECK(parseWatch("1e9", nullptr, Notes).Factor == 4);
}

TEST_CASE("The model's range for a call of another size of its band") {
  CHECK(predictedRange(100, 1000, 1500) == std::array<double, 2>{100, 150});
  CHECK(predictedRange(100, 1000, 500) == std::array<double, 2>{50, 100});
  CHECK(predictedRange(100, 0, 0) == std::array<double, 2>{100, 100});
  CHECK(median({}) == 0);
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
}

TEST_CASE("Watching: one warm-up, the samples, then one agreement") {
  WatchConfig C;
  Watch W(C);
  CHECK(feed(W, 1000, 0) == 1 + C.Samples);
  CHECK(W.next() == Watch::Collc);
  std::vector<double> Mine = W.samples();
  REQUIRE(Mine.size() == 2 * static_cast<size_t>(C.Samples));
  CHECK(Mine[0] == 1000);
  CHECK(Mine.back() == 0);
  CHECK(!W.departure()); // not before the ranks agreed
  // Another rank was slower: its times count.
  std::vector<double> Slowest = Mine;
  Slowest[0] = Slowest[1] = Slowest[2] = 3000;
  W.agree(Slowest);
  CHECK(!W.sampling());
  CHECK(!W.needsAgreement());
  CHECK(W.medians()[0] == 3000);
  std::optional<double> D = W.departure();
  REQUIRE(D);
  CHECK(*D == doctest::Approx(30));
  CHECK(!W.departure()); // said once
  // Later calls change nothing.
  W.record(1, {100, 100});
  CHECK(W.calls() == 1 + static_cast<uint64_t>(C.Samples));
}

TEST_CASE("Watching: calls within the factor, either way, are not a "
          "departure") {
  for (double Micros : {30.0, 100.0, 390.0}) {
    Watch W(WatchConfig{});
    feed(W, Micros, 0, {90, 110});
    W.agree(W.samples());
    CHECK(!W.departure());
  }
  Watch Fast(WatchConfig{});
  feed(Fast, 10, 0, {90, 110});
  Fast.agree(Fast.samples());
  std::optional<double> D = Fast.departure();
  REQUIRE(D);
  CHECK(*D == doctest::Approx(10.0 / 90));
  // Off: nothing is sampled.
  Watch Off(WatchConfig{0, false, 5});
  CHECK(!Off.sampling());
  CHECK(!Off.needsAgreement());
}

TEST_CASE("Adapting: the sides alternate, and the faster one is kept") {
  for (bool LibraryFaster : {true, false}) {
    WatchConfig C;
    C.Adapt = true;
    Watch W(C);
    // collc's warm-up, the library's, then alternating.
    CHECK(W.next() == Watch::Collc);
    W.record(5000, {100, 100});
    CHECK(W.next() == Watch::Library);
    W.record(5000, {100, 100});
    CHECK(W.next() == Watch::Collc);
    const double Collc = 200, Library = LibraryFaster ? 150 : 250;
    CHECK(feed(W, Collc, Library) == 2 * C.Samples);
    std::vector<double> Mine = W.samples();
    CHECK(Mine[0] == Collc);
    CHECK(Mine.back() == Library);
    W.agree(Mine);
    for (int I = 0; I < 4; ++I)
      CHECK(W.next() == (LibraryFaster ? Watch::Library : Watch::Collc));
    CHECK(W.medians()[1] == Library);
    CHECK(!W.departure()); // 200 us against 100: within the factor
  }
}
