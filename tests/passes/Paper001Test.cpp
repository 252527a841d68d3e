// Paper 001's closed forms, recomputed by the cost pass on collc's schedules
// under the linear model T_send(m) = t_s + m/B with the SP2's send/receive
// overlap factor 2 and a reduction cost t_op per byte. For P = 2..64 (powers
// of two where the formula assumes them) the makespan equals the report's
// formula, or, where collc's schedule is faster, the formula minus what the
// schedule saves, stated in each test.
#include "algorithms/Registry.h"
#include "algorithms/SegmentedBcast.h"
#include "compiler/Driver.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace collc;

namespace {

constexpr double Ts = 46, PerByte = 0.035, TOp = 0.01;

Machine sp2() {
  Machine M;
  M.Name = "sp2";
  M.M.Kind = ModelKind::Linear;
  M.M.Linear = {Ts, PerByte};
  M.M.SendRecvFactor = 2;
  M.M.OpPerByte = TOp;
  return M;
}

double tsend(double Bytes) { return Ts + PerByte * Bytes; }

Schedule compiled(Collective C, int32_t P, uint64_t Bytes, const char *Alg,
                  int64_t Segments = 0) {
  Request R = test::bcast(P, 0, Bytes, Alg);
  R.Coll = C;
  R.Segments = Segments;
  if (C != Collective::Bcast) {
    R.Op = "sum";
    R.Datatype = "int32";
  }
  auto S = compile(sp2(), R);
  REQUIRE(S);
  return std::move(*S);
}

bool close(double A, double B) {
  return std::fabs(A - B) <= 1e-9 * std::max(1.0, std::fabs(B));
}

const int32_t Pow2[] = {2, 4, 8, 16, 32, 64};

// A message size every segment count used below divides: 2^6 * 3 * 5 * 7 * 4.
constexpr uint64_t Bytes = 64 * 3 * 5 * 7 * 4 * 16;

} // namespace

TEST_CASE("paper001.Bcast: binomial = (t_s + M/B) log P") {
  for (int32_t P = 2; P <= 64; ++P) {
    Schedule S = compiled(Collective::Bcast, P, Bytes, "binomial");
    CAPTURE(P);
    CHECK(close(S.Makespan, std::ceil(std::log2(P)) * tsend(Bytes)));
  }
}

TEST_CASE("paper001.Bcast: edge-disjoint = 3 log P T_send(M/log P), collc one "
          "T_send(M/log P) less") {
  // The report charges every one of the 2 log P steps but the first log P as
  // T_send/recv; in collc's schedule the first step (root -> 2^0) and the
  // last (only receives remain on the far side) do not overlap both ways,
  // which saves one T_send(M / log P) for P >= 4. P = 2 is a single send.
  for (int32_t P : Pow2) {
    double D = std::log2(P);
    Schedule S = compiled(Collective::Bcast, P, Bytes, "edge-disjoint");
    CAPTURE(P);
    CHECK(S.NumChunks == int64_t(D));
    double Report = 3 * D * tsend(Bytes / D);
    CHECK(close(S.Makespan, P == 2 ? tsend(Bytes) : Report - tsend(Bytes / D)));
    CHECK(S.Makespan < Report);
  }
}

TEST_CASE("paper001.Bcast: k-segment = (3k + P/k - 4) T_send(M/k) for every k "
          "dividing P") {
  for (int32_t P : Pow2)
    for (int64_t K = 1; K <= P; K *= 2) {
      Schedule S = compiled(Collective::Bcast, P, Bytes, "k-segment", K);
      CAPTURE(P);
      CAPTURE(K);
      double Want = (3 * K + double(P) / K - 4) * tsend(double(Bytes) / K);
      if (P == 2 && K == 2)
        // Two groups of one: the root's segment needs no ring pass, so collc
        // finishes in 2 T_send(M/2) where the formula counts 4.
        CHECK(S.Makespan < Want - 1);
      else
        CHECK(close(S.Makespan, Want));
    }
}

TEST_CASE("paper001.Bcast: k-segment optimum k = P/2 gives t_s(3P/2 - 2) + "
          "(M/B)(3 - 4/P)") {
  for (int32_t P : Pow2) {
    Schedule S = compiled(Collective::Bcast, P, Bytes, "k-segment");
    CAPTURE(P);
    CHECK(S.NumChunks == std::max(1, P / 2));
    CHECK(close(S.Makespan,
                Ts * (1.5 * P - 2) + PerByte * Bytes * (3 - 4.0 / P)));
    // k = P/2 minimizes the per-byte term (3 + P/k^2 - 4/k) M/B over
    // k <= P/2, which is what the report optimizes; the start-up term
    // (3k + P/k - 4) t_s grows with k, so for moderate M a smaller k wins
    // (docs/collectives.md). Compare the slopes in M.
    auto Slope = [&](int64_t K) {
      return compiled(Collective::Bcast, P, 2 * Bytes, "k-segment", K)
                 .Makespan -
             compiled(Collective::Bcast, P, Bytes, "k-segment", K).Makespan;
    };
    double Best = Slope(std::max(1, P / 2));
    for (int64_t K = 1; K <= P / 2; K *= 2)
      CHECK(Slope(K) >= Best - 1e-6);
  }
}

TEST_CASE("paper001.Bcast: pipeline = (k + P - 2) 2 T_send(M/k), collc 2 "
          "T_send(M/k) less") {
  // The report counts k + P - 2 steps of T_send/recv; the first step (the
  // root's first send) and the last (the last rank only receives) overlap
  // nothing, so collc's pipeline takes 2 T_send(M/k) less for k >= 2, P >= 3.
  for (int32_t P = 3; P <= 64; ++P)
    for (int64_t K : {2, 3, 8, 35, 64}) {
      Schedule S = compiled(Collective::Bcast, P, Bytes, "pipeline", K);
      CAPTURE(P);
      CAPTURE(K);
      double T = tsend(double(Bytes) / K);
      CHECK(close(S.Makespan, (K + P - 2) * 2 * T - 2 * T));
    }
}

TEST_CASE("paper001.Bcast: pipeline optimal k = sqrt((P-2) M / (B t_s))") {
  for (int32_t P : {4, 8, 16, 32, 64}) {
    Schedule S = compiled(Collective::Bcast, P, Bytes, "pipeline");
    double Want = std::sqrt((P - 2) * double(Bytes) * PerByte / Ts);
    CAPTURE(P);
    CHECK(S.NumChunks == std::llround(Want));
    // Near the minimum of collc's own pipeline over all k (within 1%).
    double Best = S.Makespan;
    for (int64_t K = 1; K <= 4 * S.NumChunks; ++K)
      Best = std::min(
          Best, compiled(Collective::Bcast, P, Bytes, "pipeline", K).Makespan);
    CHECK(S.Makespan <= 1.01 * Best);
  }
}

TEST_CASE("paper001.Bcast: 2-path pipeline = (k + P/2 - 2) 2 T_send(M/k), "
          "collc (P/2 - 2) T_send(M/k) less") {
  // Fed alternately, each path gets a segment every other step, so its ranks
  // alternate receiving and sending and never pay the overlap factor: collc's
  // schedule takes (2k + P/2 - 2) T_send(M/k).
  for (int32_t P : {4, 8, 16, 32, 64})
    for (int64_t K : {2, 5, 16, 64}) {
      Schedule S =
          compiled(Collective::Bcast, P, Bytes, "two-path-pipeline", K);
      CAPTURE(P);
      CAPTURE(K);
      double T = tsend(double(Bytes) / K);
      double Report = (K + P / 2.0 - 2) * 2 * T;
      CHECK(close(S.Makespan, Report - (P / 2.0 - 2) * T));
    }
}

TEST_CASE("paper001.Reduce: binomial = log P (t_s + (1/B + t_op) M)") {
  for (int32_t P : Pow2) {
    CAPTURE(P);
    double D = std::log2(P);
    Schedule R = compiled(Collective::Reduce, P, Bytes, "binomial");
    CHECK(close(R.Makespan, D * (Ts + (PerByte + TOp) * Bytes)));
    // Allreduce: the same, then a binomial broadcast of the result.
    Schedule A = compiled(Collective::Allreduce, P, Bytes, "binomial");
    CHECK(close(A.Makespan,
                D * (Ts + (PerByte + TOp) * Bytes) + D * tsend(Bytes)));
  }
}

TEST_CASE("paper001.Reduce: segmented = 4 t_s log P + (4/B + t_op) M (P-1)/P") {
  for (int32_t P : Pow2) {
    CAPTURE(P);
    double D = std::log2(P), F = (P - 1.0) / P;
    Schedule A =
        compiled(Collective::Allreduce, P, Bytes, "reduce-scatter-allgather");
    CHECK(close(A.Makespan, 4 * Ts * D + (4 * PerByte + TOp) * Bytes * F));
    // Reduce gathers the reduced segments to the root instead of exchanging
    // them: one-way sends, so collc's reduce takes
    // 3 t_s log P + (3/B + t_op) M (P-1)/P.
    Schedule R =
        compiled(Collective::Reduce, P, Bytes, "reduce-scatter-allgather");
    CHECK(close(R.Makespan, 3 * Ts * D + (3 * PerByte + TOp) * Bytes * F));
  }
}

TEST_CASE("paper001.Scan: linear = P (2 T_send(M) + T_op(M)), collc "
          "(P-1)(T_send(M) + T_op(M))") {
  // Rank r receives before it sends, never both in one step: no overlap
  // factor, and P - 1 transfers instead of the report's P.
  for (int32_t P = 2; P <= 64; ++P) {
    Schedule S = compiled(Collective::Scan, P, Bytes, "linear");
    CAPTURE(P);
    CHECK(close(S.Makespan, (P - 1) * (tsend(Bytes) + TOp * Bytes)));
    CHECK(S.Makespan < P * (2 * tsend(Bytes) + TOp * Bytes));
  }
}

TEST_CASE("paper001.Scan: pipelined = (k + P)(2 T_send(M/k) + T_op(M/k)), "
          "collc less") {
  // Ranks 1..P-2 receive segment c+1 while sending segment c (factor 2) and
  // the critical path has k + P - 2 transfers, the first and last without
  // overlap; a rank's sends follow each other t_hold apart, so only the P - 1
  // combines of the last segment add up: collc's pipelined scan takes
  // (k + P - 3) 2 T_send(M/k) + (P - 1) T_op(M/k).
  for (int32_t P = 3; P <= 64; ++P)
    for (int64_t K : {2, 4, 16}) {
      Schedule S = compiled(Collective::Scan, P, Bytes, "pipelined", K);
      CAPTURE(P);
      CAPTURE(K);
      double M = double(Bytes) / K;
      CHECK(close(S.Makespan, (K + P - 3) * 2 * tsend(M) + (P - 1) * TOp * M));
      CHECK(S.Makespan < (K + P) * (2 * tsend(M) + TOp * M));
    }
}

TEST_CASE("paper001.Scan: Brent-Kung takes 2 log P - 1 steps, (2 log P - "
          "1)(T_send + T_op) less one T_op") {
  // The rank that sends twice in a row (up-sweep, then down-sweep) starts its
  // second send t_hold after the first, before the receiver's combine of
  // the first is done: one T_op(M) off the report's critical path.
  for (int32_t P : Pow2) {
    Schedule S = compiled(Collective::Scan, P, Bytes, "brent-kung");
    CAPTURE(P);
    double D = std::log2(P);
    CHECK(S.Steps.size() == size_t(2 * D - 1));
    double Report = (2 * D - 1) * (tsend(Bytes) + TOp * Bytes);
    CHECK(close(S.Makespan, P == 2 ? Report : Report - TOp * Bytes));
  }
}

TEST_CASE("paper001.Scan: RootP covers s(s+1)/2 ranks in s steps, about 2 "
          "sqrt(2P) steps") {
  for (int32_t P = 2; P <= 64; ++P) {
    Schedule S = compiled(Collective::Scan, P, Bytes, "rootp");
    CAPTURE(P);
    int64_t Blocks = 0;
    while (Blocks * (Blocks + 1) / 2 < P)
      ++Blocks;
    CHECK(S.Steps.size() <= size_t(2 * Blocks));
    CHECK(double(S.Steps.size()) <= 2 * std::sqrt(2.0 * P) + 1);
  }
}

TEST_CASE("paper001.Figures: segmented broadcasts beat binomial about 2x at 1 "
          "MiB on the SP2 model") {
  // The report measured edge-disjoint, k-segment and pipeline broadcasts
  // "about 200%" better than the SP2's MPI library (binomial) and nearly
  // flat in P. Under the model at 1 MiB: each beats binomial by more than
  // 1.5x at P = 32, the best (two-path pipeline) by about 2x, and their time
  // grows far less with P than binomial's (bench-sweep prints the table).
  const uint64_t MiB = uint64_t(1) << 20;
  double Bin8 = compiled(Collective::Bcast, 8, MiB, "binomial").Makespan;
  double Bin32 = compiled(Collective::Bcast, 32, MiB, "binomial").Makespan;
  double Best = Bin32;
  for (const char *Alg :
       {"edge-disjoint", "k-segment", "pipeline", "two-path-pipeline"}) {
    CAPTURE(Alg);
    double T8 = compiled(Collective::Bcast, 8, MiB, Alg).Makespan;
    double T32 = compiled(Collective::Bcast, 32, MiB, Alg).Makespan;
    CHECK(Bin32 / T32 > 1.5);
    CHECK(T32 / T8 < 0.8 * (Bin32 / Bin8));
    Best = std::min(Best, T32);
  }
  CHECK(Bin32 / Best > 1.9);
  CHECK(Bin32 / Best < 2.5);
}
