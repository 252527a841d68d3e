// searchSegments (compiler/algorithms/Placement.h): a builder's segment count
// chosen by costing candidates with the machine's cost pass.
#include "compiler/algorithms/Placement.h"
#include "compiler/algorithms/SegmentedBcast.h"
#include "passes/Cost.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

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
