// searchSegments (algorithms/Placement.h): a builder's segment count
// chosen by costing candidates with the machine's cost pass.
#include "algorithms/Cheapest.h"
#include "algorithms/Placement.h"
#include "algorithms/SegmentedBcast.h"
#include "passes/Cost.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"
#include "tests/network/Platforms.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>

using namespace collc;

namespace {

Machine linear(double Ts, double PerByte) {
  Machine M;
  M.Name = "linear";
  M.M.Kind = ModelKind::Linear;
  M.M.Linear = {Ts, PerByte};
  return M;
}

/// A pipeline that prints nothing, for searches whose timing is not looked
/// at.
struct QuietPipeline {
  PipelineOptions O;
  Pipeline P{O};
};

} // namespace

TEST_CASE("searchSegments keeps the least makespan of the counts it tries") {
  QuietPipeline Q;
  const Machine M = linear(10, 0.01);
  Request R = test::bcast(16, 3, 1 << 20, "pipeline");
  std::map<int64_t, double> Times;
  auto Build = [&](int64_t K) -> llvm::Expected<Schedule> {
    Request Rk = R;
    Rk.Segments = K;
    llvm::Expected<Schedule> S = buildPipeline(M, Rk);
    if (S) {
      Schedule C = *S;
      estimateCost(C, M);
      Times[K] = C.Makespan;
    }
    return S;
  };
  llvm::Expected<Schedule> Best = searchSegments(M, R, Q.P, 0, 4096, Build);
  REQUIRE(static_cast<bool>(Best));
  REQUIRE(Times.size() >= 3);
  double Least = Times.begin()->second;
  for (const auto &[K, T] : Times)
    Least = std::min(Least, T);
  CHECK(Best->Makespan == doctest::Approx(Least));
  // The pipeline's optimum (about sqrt((P-2) M / (B t_s)) = 121 here) lies
  // between the powers of two tried; the search gets within a factor 2.
  CHECK(Best->NumChunks >= 60);
  CHECK(Best->NumChunks <= 256);
  // Past the best power the search stops: it never tried the cap.
  CHECK(Times.count(4096) == 0);
}

TEST_CASE("searchSegments: the request's segments is the only candidate") {
  QuietPipeline Q;
  const Machine M = linear(10, 0.01);
  Request R = test::bcast(8, 0, 4096, "pipeline");
  R.Segments = 7;
  int Calls = 0;
  llvm::Expected<Schedule> S = searchSegments(
      M, R, Q.P, 100, 64, [&](int64_t K) -> llvm::Expected<Schedule> {
        ++Calls;
        CHECK(K == 7);
        Request Rk = R;
        Rk.Segments = K;
        return buildPipeline(M, Rk);
      });
  REQUIRE(static_cast<bool>(S));
  CHECK(Calls == 1);
  CHECK(S->NumChunks == 7);
}

TEST_CASE("searchSegments skips candidates that fail, and reports when all "
          "fail") {
  QuietPipeline Q;
  const Machine M = linear(10, 0.01);
  Request R = test::bcast(8, 0, 1 << 16, "pipeline");
  llvm::Expected<Schedule> S = searchSegments(
      M, R, Q.P, 0, 64, [&](int64_t K) -> llvm::Expected<Schedule> {
        if (K % 2)
          return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                         "odd count %d", int(K));
        Request Rk = R;
        Rk.Segments = K;
        return buildPipeline(M, Rk);
      });
  REQUIRE(static_cast<bool>(S));
  CHECK(S->NumChunks % 2 == 0);
  llvm::Expected<Schedule> None = searchSegments(
      M, R, Q.P, 0, 64, [&](int64_t K) -> llvm::Expected<Schedule> {
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "no count %d", int(K));
      });
  REQUIRE(!None);
  CHECK(llvm::toString(None.takeError()).find("no count") == 0);
}

TEST_CASE("searchSegments times every candidate in the pipeline, under the "
          "run it is part of") {
  const Machine M = linear(10, 0.01);
  Request R = test::bcast(16, 3, 1 << 20, "pipeline");
  std::vector<int64_t> Built;
  std::string Log;
  {
    llvm::raw_string_ostream OS(Log);
    PipelineOptions O;
    O.TimePasses = true;
    O.Log = &OS;
    Pipeline P(O);
    auto S = P.run("build pipeline", [&] {
      return searchSegments(M, R, P, 0, 4096,
                            [&](int64_t K) -> llvm::Expected<Schedule> {
                              Built.push_back(K);
                              Request Rk = R;
                              Rk.Segments = K;
                              return buildPipeline(M, Rk);
                            });
    });
    REQUIRE(static_cast<bool>(S));
  } // the table is printed when the pipeline ends
  REQUIRE(Built.size() >= 3);
  // One row per candidate built, indented under the run that searched.
  CHECK(Log.find("  build pipeline\n") != std::string::npos);
  for (int64_t K : Built)
    CHECK(Log.find("    search: k=" + std::to_string(K) + "\n") !=
          std::string::npos);
  // The total counts the outermost run only: it is the build's own time.
  const size_t Total = Log.find("100.0%  total");
  CHECK(Total != std::string::npos);
}

TEST_CASE("Cheapest keeps the lowest score, the lower tie key on a tie, and "
          "only an accepted candidate") {
  const Machine M = linear(10, 0.01);
  PipelineOptions O;
  Pipeline P(O);
  auto Fixed = [&](double Makespan, int64_t Chunks) {
    Schedule S;
    S.NumChunks = Chunks;
    S.Makespan = Makespan; // costed: the judge keeps it
    return S;
  };
  Cheapest C(M, P, makespanJudge());
  CandidateHooks H;
  H.TieKey = 5;
  CHECK(C.consider(
      "a", [&] { return Fixed(3.0, 1); }, H));
  H.TieKey = 2;
  CHECK(C.consider(
      "b", [&] { return Fixed(3.0, 2); }, H));
  CHECK(C.best()->NumChunks == 2); // equal time, lower key
  H.TieKey = 1;
  auto Refuse = [](const Schedule &) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "no");
  };
  H.Accept = Refuse;
  CHECK(C.consider(
      "c", [&] { return Fixed(1.0, 3); }, H));
  CHECK(C.best()->NumChunks == 2); // faster, but not accepted
  CHECK(!C.consider("d", [&]() -> llvm::Expected<Schedule> {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "broken");
  }));
  CHECK(llvm::toString(C.takeLastError()) == "broken");
  llvm::Expected<Schedule> Best = C.take();
  REQUIRE(static_cast<bool>(Best));
  CHECK(Best->NumChunks == 2);
}

TEST_CASE("bandEdgeCounts: the least counts whose segments fit each protocol "
          "band") {
  CHECK(bandEdgeCounts(linear(10, 0.01), 1 << 20, 4).empty());
  const Machine M = test::smpiTorus16x16();
  const uint64_t Bytes = 1 << 20;
  const uint64_t Env = M.Net->EnvelopeBytes;
  for (int64_t Ways : {1, 4}) {
    std::vector<int64_t> Counts = bandEdgeCounts(M, Bytes, Ways);
    REQUIRE(!Counts.empty());
    CHECK(std::is_sorted(Counts.begin(), Counts.end()));
    // Each count's longest segment, envelope included, ends a band: one
    // count fewer crosses into the next band.
    for (int64_t K : Counts) {
      auto Longest = [&](int64_t C) {
        return (Bytes + Ways * C - 1) / (Ways * C) + Env;
      };
      const ProtocolBand &In = M.Net->band(Longest(K));
      if (K > 1)
        CHECK(&M.Net->band(Longest(K - 1)) != &In);
    }
  }
  // 1 MiB over 4 trees: 28 segments of 9363 bytes pass the band that ends
  // at 9376 with the 16-byte envelope; 29 fit.
  std::vector<int64_t> Four = bandEdgeCounts(M, Bytes, 4);
  CHECK(std::find(Four.begin(), Four.end(), 29) != Four.end());
}

TEST_CASE("fastestBandCount: the least count of the form 2^j or 3 x 2^j "
          "whose segments fit the band of the highest bandwidth factor") {
  CHECK(fastestBandCount(linear(10, 0.01), 1 << 20, 1) == 0);
  const Machine M = test::smpiTorus16x16();
  const uint64_t Env = M.Net->EnvelopeBytes;
  double Fastest = 0;
  for (const ProtocolBand &B : M.Net->Bands)
    Fastest = std::max(Fastest, B.BandwidthFactor);
  for (uint64_t Bytes : {uint64_t(1) << 16, uint64_t(1) << 20, uint64_t(3e6)})
    for (int64_t Ways : {1, 4}) {
      CAPTURE(Bytes);
      CAPTURE(Ways);
      const int64_t K = fastestBandCount(M, Bytes, Ways);
      REQUIRE(K > 1);
      auto Longest = [&](int64_t C) {
        return (Bytes + Ways * C - 1) / (Ways * C) + Env;
      };
      // Its segments are in the fastest band; the count of the form before
      // it is above the band.
      CHECK(M.Net->band(Longest(K)).BandwidthFactor == Fastest);
      const bool Power = (K & (K - 1)) == 0;
      CHECK((Power || K % 3 == 0));
      const int64_t Before = Power ? K / 4 * 3 : K / 3 * 2;
      CHECK(Longest(std::max<int64_t>(1, Before)) >
            M.Net->Bands[6].MinBytes - 1);
    }
  // Where the largest messages' band is the fastest, none.
  Machine Flat = M;
  Flat.Net->Bands.back().BandwidthFactor = 2;
  CHECK(fastestBandCount(Flat, 1 << 20, 1) == 0);
}
