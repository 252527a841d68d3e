// searchSegments (algorithms/Placement.h): a builder's segment count
// chosen by costing candidates with the machine's cost pass.
#include "algorithms/Placement.h"
#include "algorithms/SegmentedBcast.h"
#include "passes/Cost.h"
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

} // namespace

TEST_CASE("searchSegments keeps the least makespan of the counts it tries") {
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
  llvm::Expected<Schedule> Best = searchSegments(M, R, 0, 4096, Build);
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
  const Machine M = linear(10, 0.01);
  Request R = test::bcast(8, 0, 4096, "pipeline");
  R.Segments = 7;
  int Calls = 0;
  llvm::Expected<Schedule> S =
      searchSegments(M, R, 100, 64, [&](int64_t K) -> llvm::Expected<Schedule> {
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
  const Machine M = linear(10, 0.01);
  Request R = test::bcast(8, 0, 1 << 16, "pipeline");
  llvm::Expected<Schedule> S =
      searchSegments(M, R, 0, 64, [&](int64_t K) -> llvm::Expected<Schedule> {
        if (K % 2)
          return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                         "odd count %d", int(K));
        Request Rk = R;
        Rk.Segments = K;
        return buildPipeline(M, Rk);
      });
  REQUIRE(static_cast<bool>(S));
  CHECK(S->NumChunks % 2 == 0);
  llvm::Expected<Schedule> None =
      searchSegments(M, R, 0, 64, [&](int64_t K) -> llvm::Expected<Schedule> {
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "no count %d", int(K));
      });
  REQUIRE(!None);
  CHECK(llvm::toString(None.takeError()).find("no count") == 0);
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
