// The bandwidth-optimal reductions and allgathers at scale (issue 26): at
// random rank counts up to 5,000 they build with O(P log P) or O(P x ring
// steps) transfers, each carrying at most two pieces where the contributors
// stay one range, and verify. The default suite draws a few rank counts; the
// long label draws more.
#include "algorithms/Personalized.h"
#include "algorithms/Placement.h"
#include "algorithms/Reductions.h"
#include "algorithms/Registry.h"
#include "algorithms/TopologyReductions.h"
#include "ir/Random.h"
#include "passes/Verify.h"
#include "readers/MachineSpec.h"
#include "tests/Requests.h"
#include "tests/Schedules.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

using namespace collc;

namespace {

Machine linearMachine() {
  Machine M;
  M.Name = "scale";
  M.M.Kind = ModelKind::Linear;
  M.M.Linear = {2, 1e-4};
  M.M.OpPerByte = 1e-5;
  return M;
}

int64_t pieces(const Schedule &S) {
  int64_t N = 0;
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers)
      N += static_cast<int64_t>(T.Pieces.size());
  return N;
}

/// Verifies \p S as runs (the way that scales), times left out.
void verifyRuns(const Schedule &S, const Machine &M) {
  VerifyOptions O;
  O.Flow = VerifyOptions::Tracking::Runs;
  O.Timing = false;
  if (llvm::Error E = verify(S, M, O))
    FAIL(llvm::toString(std::move(E)));
}

/// Builds \p Algorithm for \p R on \p M and verifies it; returns it.
Schedule buildVerified(const Machine &M, const Request &R,
                       const char *Algorithm) {
  CAPTURE(Algorithm);
  CAPTURE(R.size());
  auto A = lookupAlgorithm(Algorithm, M, R);
  REQUIRE(static_cast<bool>(A));
  auto S = (*A)->Build(M, R);
  if (!S)
    FAIL(llvm::toString(S.takeError()));
  verifyRuns(*S, M);
  return std::move(*S);
}

/// Draws \p Draws rank counts from \p Seed and checks every builder; the
/// rings only where one lane lists at most \p RingBudget transfers (a
/// million take half a minute to build and verify).
void drawAndCheck(uint64_t Seed, int Draws, double RingBudget) {
  Rng G(Seed);
  for (int D = 0; D < Draws; ++D) {
    const int32_t P = static_cast<int32_t>(G.uniform(2, 5000));
    const bool Commutative = G.uniform(0, 3) != 0;
    const int32_t Root = static_cast<int32_t>(G.uniform(0, P - 1));
    CAPTURE(P);
    CAPTURE(Commutative);
    CAPTURE(Root);
    const Machine M = test::linearTorus(P);
    int64_t Core = 1;
    while (Core * 2 <= P)
      Core *= 2;
    const double LogCore = std::log2(double(Core));
    for (Collective C : {Collective::Allreduce, Collective::Reduce}) {
      Request R = test::request(C, P, C == Collective::Reduce ? Root : 0,
                                uint64_t(4) * Core * 3, "auto");
      R.Commutative = Commutative;
      for (const char *Name : {"reduce-scatter-allgather", "nearest-halving"}) {
        if (C == Collective::Reduce && std::string(Name) == "nearest-halving")
          continue;
        const Schedule S = buildVerified(M, R, Name);
        // log2(Core) exchanges each way (a reduce's gather: fewer), the fold
        // in and out; every transfer carries one contributor range (two
        // rank intervals when it wraps) over one chunk range.
        CHECK(S.numTransfers() <= 2 * Core * LogCore + 2 * (P - Core) + 1);
        CHECK(pieces(S) <= 2 * int64_t(S.numTransfers()));
      }
    }
    // The rings: P transfers per ring step, lane and way. A rank count
    // whose grid is one long ring (P prime) may exceed MaxTransfers: then
    // the builder says so.
    Request R = test::request(Collective::Allreduce, P, 0, 0, "auto");
    R.Commutative = Commutative;
    int64_t RingSteps = 0;
    for (int64_t L : ringGrid(M, R, false).Extents)
      RingSteps += L - 1;
    CAPTURE(RingSteps);
    for (Collective C : {Collective::Allreduce, Collective::Allgather}) {
      R.Coll = C;
      R.Bytes = C == Collective::Allgather ? 8 : 0;
      const int64_t Ways = C == Collective::Allgather ? 1 : 2;
      const double Transfers =
          double(Ways * P * RingSteps) *
          (C == Collective::Allgather || Commutative ? 1 : 2);
      if (Transfers > RingBudget)
        continue;
      if (Transfers > double(MaxTransfers)) {
        auto S = buildDimensionRingsCut(M, R, 1, 1);
        REQUIRE_FALSE(static_cast<bool>(S));
        const std::string Msg = llvm::toString(S.takeError());
        CHECK(Msg.find("transfers, more than the") != std::string::npos);
        continue;
      }
      // One lane (the search over lanes prices each, which takes longer
      // than building).
      auto S = buildDimensionRingsCut(M, R, 1, 1);
      if (!S)
        FAIL(llvm::toString(S.takeError()));
      verifyRuns(*S, M);
      CHECK(double(S->numTransfers()) <= Transfers);
    }
  }
}

} // namespace

TEST_CASE("scale: the bandwidth-optimal reductions and rings build and "
          "verify at random rank counts up to 5,000") {
  drawAndCheck(26, 2, double(1 << 18));
}

TEST_CASE("scale: more random rank counts up to 5000" * doctest::skip()) {
  drawAndCheck(2026, 24, 1e18);
}

TEST_CASE("scale: a 4,096-rank reduce-scatter + allgather holds O(P log P) "
          "transfers, not the P^2 pieces of farthest-first pairing") {
  const Machine M = test::linearTorus(4096);
  Request R = test::request(Collective::Allreduce, 4096, 0, 1 << 20, "auto");
  const Schedule S = buildVerified(M, R, "reduce-scatter-allgather");
  CHECK(S.numTransfers() == 2 * 4096 * 12);
  CHECK(pieces(S) == int64_t(S.numTransfers()));
}

TEST_CASE("scale: a schedule beyond MaxTransfers is refused with its count") {
  // A pipelined scan of 4,096 ranks in 2,048 segments lists 8.4 million
  // transfers.
  const Machine M = linearMachine();
  Request R = test::request(Collective::Scan, 4096, 0, 1 << 20, "pipelined");
  R.Segments = 2048;
  std::string Msg;
  if (auto A = lookupAlgorithm("pipelined", M, R)) {
    auto S = (*A)->Build(M, R);
    REQUIRE_FALSE(static_cast<bool>(S));
    Msg = llvm::toString(S.takeError());
  } else {
    Msg = llvm::toString(A.takeError());
  }
  CHECK(Msg.find("transfers, more than the " + std::to_string(MaxTransfers)) !=
        std::string::npos);
}

namespace {

/// The direct all-to-all and allgather at \p P ranks: named, each applies
/// within MaxCopyTransfers, builds, verifies, and lists its P (P - 1) copies
/// of one piece each; under `auto` the same requests keep to MaxTransfers.
/// Scatter-allgather's broadcast (its ring passes each segment owner's
/// segments P - 1 times) builds and verifies.
void checkCopyExchanges(int32_t P) {
  CAPTURE(P);
  const Machine M = test::linearTorus(P);
  const double Pairs = double(P) * (P - 1);
  for (Collective C : {Collective::Alltoall, Collective::Allgather}) {
    Request R = test::request(C, P, 0, 16, "direct");
    const AlgorithmInfo *A = findAlgorithm("direct", C);
    REQUIRE(A);
    std::string Why;
    CHECK(A->applies(M, R, Why) == (Pairs <= double(MaxCopyTransfers)));
    R.Algorithm = "auto";
    CHECK(A->applies(M, R, Why) == (Pairs <= double(MaxTransfers)));
    R.Algorithm = "direct";
    const Schedule S = buildVerified(M, R, "direct");
    CHECK(S.numTransfers() == uint64_t(Pairs));
    CHECK(pieces(S) == int64_t(Pairs));
  }
  const Request R =
      test::request(Collective::Bcast, P, P / 3, 1 << 16, "scatter-allgather");
  const Schedule S = buildVerified(M, R, "scatter-allgather");
  CHECK(S.numTransfers() >= uint64_t(P - 1));
  CHECK(double(S.numTransfers()) <= double(P - 1) * double(S.NumChunks + 1));
}

} // namespace

TEST_CASE("scale: the direct exchanges named build past MaxTransfers "
          "within MaxCopyTransfers and verify at a drawn P up to 400") {
  Rng G(0x26c09);
  checkCopyExchanges(int32_t(G.uniform(2, 400)));
  // Past MaxTransfers: refused under auto, applies when named (not built
  // here), up to 4,096 ranks; past MaxCopyTransfers (4,097 ranks) refused
  // either way.
  const AlgorithmInfo *A = findAlgorithm("direct", Collective::Allgather);
  const int32_t P = 2800;
  const Machine M = test::linearTorus(P);
  Request R = test::request(Collective::Allgather, P, 0, 16, "direct");
  std::string Why;
  CHECK(A->applies(M, R, Why));
  R.Algorithm = "auto";
  CHECK_FALSE(A->applies(M, R, Why));
  CHECK(Why.find("more than the " + std::to_string(MaxTransfers)) !=
        std::string::npos);
  const Machine Big = test::linearTorus(4096);
  const Request Named =
      test::request(Collective::Allgather, 4096, 0, 16, "direct");
  CHECK(A->applies(Big, Named, Why));
  const Machine Bigger = test::linearTorus(4097);
  const Request Over =
      test::request(Collective::Allgather, 4097, 0, 16, "direct");
  CHECK_FALSE(A->applies(Bigger, Over, Why));
  CHECK(Why.find("16781312 transfers, more than the " +
                 std::to_string(MaxCopyTransfers)) != std::string::npos);
}

TEST_CASE("scale: the direct exchanges past MaxTransfers at a drawn P over "
          "2048" *
          doctest::skip()) {
  Rng G(0x26c0a);
  checkCopyExchanges(int32_t(G.uniform(2049, 2300)));
}

TEST_CASE("scale: the P^2 reductions named build past MaxTransfers within "
          "MaxCopyTransfers and verify at a drawn P up to 300") {
  struct Case {
    Collective C;
    const char *Algorithm;
  } Cases[] = {
      {Collective::ReduceScatter, "ring"},
      {Collective::ReduceScatter, "direct"},
      {Collective::Reduce, "reduce-scatter-direct"},
      {Collective::Allreduce, "reduce-scatter-direct"},
  };
  Rng G(0x26c0b);
  const int32_t P = static_cast<int32_t>(G.uniform(2, 300));
  const Machine M = linearMachine();
  for (const Case &K : Cases) {
    CAPTURE(K.Algorithm);
    const uint64_t Bytes =
        K.C == Collective::ReduceScatter ? 4 * uint64_t(P) : 1 << 16;
    const Request R = test::request(K.C, P, 0, Bytes, K.Algorithm);
    const Schedule S = buildVerified(M, R, K.Algorithm);
    // One transfer per pair of ranks and block; the allreduce gathers the
    // blocks back as many times, the reduce once to the root.
    const uint64_t Pairs = uint64_t(P) * (P - 1);
    const uint64_t Want = K.C == Collective::Allreduce ? 2 * Pairs
                          : K.C == Collective::Reduce  ? Pairs + (P - 1)
                                                       : Pairs;
    CHECK(S.numTransfers() == Want);
  }
  // At 2,800 ranks (7.8 million transfers): named, the one-block reductions
  // apply, and the allreduce (15.7 million: the ring allgather alone, written
  // as it is); under `auto` they keep to MaxTransfers; past 4,096 ranks none
  // applies.
  for (const Case &K : Cases) {
    CAPTURE(K.Algorithm);
    const AlgorithmInfo *A = findAlgorithm(K.Algorithm, K.C);
    REQUIRE(A);
    for (int32_t Ranks : {2800, 4097}) {
      const Machine Big = test::linearTorus(Ranks);
      Request R =
          test::request(K.C, Ranks, 0, 4 * uint64_t(Ranks), K.Algorithm);
      std::string Why;
      CHECK(A->applies(Big, R, Why) == (Ranks == 2800));
      R.Algorithm = "auto";
      CHECK_FALSE(A->applies(Big, R, Why));
      CHECK(Why.find("transfers, more than the ") != std::string::npos);
    }
  }
}

TEST_CASE("scale: a reduction step past the verifier's batch is followed in "
          "batches, and a contribution folded twice is still found") {
  // A SimGrid cluster of 300 nodes: the direct reduce-scatter is one step of
  // 300 x 299 = 89,700 folds, none of which reads a block another delivers.
  const std::string Xml =
      "<?xml version='1.0'?>\n"
      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n"
      "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-299\" "
      "speed=\"1Gf\" bw=\"125MBps\" lat=\"50us\"/>\n</platform>\n";
  auto Parsed = parseMachine(llvm::MemoryBufferRef(Xml, "cluster.xml"));
  REQUIRE_MESSAGE(static_cast<bool>(Parsed),
                  llvm::toString(Parsed.takeError()));
  const Machine M = std::move(*Parsed);
  const int32_t P = 300;
  const Request R =
      test::request(M, Collective::ReduceScatter, P, 0, 4 * P, "direct");
  Schedule S = buildVerified(M, R, "direct");
  REQUIRE(S.Steps.size() == 1);
  CHECK(S.Steps[0].Transfers.size() == size_t(P) * (P - 1));
  // The step's first fold listed again at its end, in its last batch.
  std::vector<Transfer> &Ts = S.Steps[0].Transfers;
  const Transfer Again = Ts.front();
  Ts.push_back(Again);
  VerifyOptions O;
  O.Flow = VerifyOptions::Tracking::Runs;
  O.Timing = false;
  llvm::Error E = verify(S, M, O);
  REQUIRE(static_cast<bool>(E));
  const std::string Msg = llvm::toString(std::move(E));
  CHECK(Msg.find("a contribution would count twice") != std::string::npos);
  CHECK(Msg.find("of rank " + std::to_string(Again.Dst)) != std::string::npos);
}

TEST_CASE("scale: the ring allreduce written step by step is the one the "
          "Reducer follows, at drawn P up to 60") {
  Rng G(0x26c0d);
  const Machine M = linearMachine();
  for (int D = 0; D < 6; ++D) {
    const int32_t P = static_cast<int32_t>(G.uniform(1, 60));
    const int64_t Segments = G.uniform(1, 3);
    CAPTURE(P);
    CAPTURE(Segments);
    Request R = test::request(Collective::Allreduce, P, 0,
                              uint64_t(4) * P * Segments * 5, "ring");
    R.Segments = Segments;
    auto Direct = buildRingAllreduce(M, R);
    REQUIRE(static_cast<bool>(Direct));
    test::checkSameTransfers(*Direct, ringAllreduceFollowed(M, R));
    // P - 1 ring steps each way, one step per ring step and segment, every
    // rank sending once in each.
    CHECK(Direct->Steps.size() == size_t(2 * (P - 1) * Segments));
    CHECK(Direct->numTransfers() == uint64_t(2) * P * (P - 1) * Segments);
  }
}

TEST_CASE("scale: the ring allreduce named builds past MaxTransfers, verifies "
          "and lists 2 P (P - 1) transfers at a drawn P up to 300") {
  Rng G(0x26c0e);
  const int32_t P = static_cast<int32_t>(G.uniform(2, 300));
  CAPTURE(P);
  const Machine M = linearMachine();
  const Request R =
      test::request(Collective::Allreduce, P, 0, uint64_t(4) * P, "ring");
  const Schedule S = buildVerified(M, R, "ring");
  CHECK(S.numTransfers() == uint64_t(2) * P * (P - 1));
  // The folds of step s carry the ranks r - s..r: two rank ranges where
  // they wrap past rank 0 (r < s).
  int64_t Wrapped = 0;
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers) {
      CHECK(T.Pieces.size() <= 2);
      Wrapped += T.Pieces.size() == 2;
    }
  CHECK(Wrapped == int64_t(P - 1) * (P - 2) / 2);
  // Named, up to 4,096 ranks (2 x 16.8 million transfers); under `auto`
  // within MaxTransfers; with a non-commutative operator (two chains, the
  // Reducer) within MaxTransfers too.
  const AlgorithmInfo *A = findAlgorithm("ring", Collective::Allreduce);
  REQUIRE(A);
  for (int32_t Ranks : {4096, 4097}) {
    CAPTURE(Ranks);
    const Machine Big = test::linearTorus(Ranks);
    Request Named = test::request(Collective::Allreduce, Ranks, 0,
                                  uint64_t(4) * Ranks, "ring");
    std::string Why;
    CHECK(A->applies(Big, Named, Why) == (Ranks == 4096));
    if (Ranks > 4096)
      CHECK(Why.find(std::to_string(2 * MaxCopyTransfers) +
                     " a schedule may hold") != std::string::npos);
    Request Auto = Named;
    Auto.Algorithm = "auto";
    CHECK_FALSE(A->applies(Big, Auto, Why));
    CHECK(Why.find("transfers, more than the " +
                   std::to_string(MaxTransfers)) != std::string::npos);
    Request Ordered = Named;
    Ordered.Commutative = false;
    CHECK_FALSE(A->applies(Big, Ordered, Why));
  }
}

TEST_CASE("scale: assignPieces keeps two or more pieces in an allocation of "
          "their size, one in place") {
  const Piece A{{0, 3}, {0, 8}, {2, 3}}, B{{5, 8}, {0, 8}, {2, 3}},
      C{{4, 5}, {0, 8}, {1, 2}};
  PieceList One, Two, Three;
  assignPieces(One, {A});
  CHECK(One.size() == 1);
  CHECK(One.capacity() == 1);
  assignPieces(Two, {A, B});
  CHECK(Two.size() == 2);
  CHECK(Two.capacity() == 2);
  PieceList Pushed;
  Pushed.push_back(A);
  Pushed.push_back(B);
  CHECK(Two == Pushed);
  CHECK(Pushed.capacity() == 3); // what pushing one by one would allocate
  assignPieces(Three, {A, B, C});
  CHECK(Three.capacity() == 3);
  CHECK(Three[2] == C);
  // Reassigned, the list takes the new pieces.
  assignPieces(Three, {C});
  CHECK(Three.size() == 1);
  CHECK(Three[0] == C);
  // A copy holds the same pieces.
  const Transfer T = [&] {
    Transfer X;
    assignPieces(X.Pieces, {B, A});
    return X;
  }();
  Transfer Copy = T;
  CHECK(Copy.Pieces == T.Pieces);
  CHECK(Copy.Pieces[0] == B);
}

TEST_CASE("scale: the Reducer's transfers keep their pieces in allocations "
          "of their size (a verified swing at a drawn P)") {
  // A latency-form swing on a 2-D torus: partial results of many
  // contributor ranges (hundreds per transfer at 65,536 ranks).
  Rng G(0x26c0f);
  const int32_t P = static_cast<int32_t>(G.uniform(64, 256));
  CAPTURE(P);
  const Machine M = test::linearTorus(P);
  const Schedule S = buildVerified(
      M, test::request(Collective::Allreduce, P, 0, 4, "swing"), "swing");
  uint64_t Several = 0;
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers) {
      CHECK(T.Pieces.capacity() == std::max<size_t>(1, T.Pieces.size()));
      Several += T.Pieces.size() >= 2;
    }
  CHECK(Several > 0);
}

TEST_CASE("scale: Bruck's all-to-all past BruckBlockPieces lists rectangles "
          "that expand to its one-block pieces, and verifies") {
  // Below the bound (every rank count the outputs' snapshot tries) the
  // blocks stay one piece each.
  CHECK_FALSE(bruckAlltoallRectangles(2));
  CHECK_FALSE(bruckAlltoallRectangles(120));
  CHECK_FALSE(bruckAlltoallRectangles(880));
  CHECK(bruckAlltoallRectangles(1024));
  Rng G(0x26c0f);
  const int32_t P = static_cast<int32_t>(G.uniform(1000, 1100));
  CAPTURE(P);
  REQUIRE(bruckAlltoallRectangles(P));
  const Machine M = linearMachine();
  const Request R = test::request(Collective::Alltoall, P, 0, 16, "bruck");
  const Schedule S = buildVerified(M, R, "bruck");
  int64_t Blocks = 0;
  for (const Step &St : S.Steps) {
    const int64_t Bit =
        (St.Transfers.front().Dst - St.Transfers.front().Src + P) % P;
    for (const Transfer &T : St.Transfers) {
      // The blocks the one-block form lists: distance d with bit k set,
      // origin Src - (d mod Bit), dest origin + d.
      std::vector<std::pair<int64_t, int64_t>> Want, Got;
      for (int64_t D = Bit; D < P; ++D)
        if (D & Bit) {
          const int64_t A = ((T.Src - D % Bit) % P + P) % P;
          Want.push_back({A, (A + D) % P});
        }
      for (const Piece &Pc : T.Pieces) {
        CHECK(Pc.Chunks == Interval{0, S.NumChunks});
        for (int64_t A = Pc.Origins.Lo; A < Pc.Origins.Hi; ++A)
          for (int64_t B = Pc.Dests.Lo; B < Pc.Dests.Hi; ++B)
            Got.push_back({A, B});
      }
      std::sort(Want.begin(), Want.end());
      std::sort(Got.begin(), Got.end());
      CHECK(Got == Want);
      CHECK(T.Bytes == 16 * Want.size());
      // A run of Bit distances is one rectangle (two where it wraps).
      CHECK(int64_t(T.Pieces.size()) <= 2 * ((P + 2 * Bit - 1) / (2 * Bit)));
      Blocks += int64_t(Want.size());
    }
  }
  CHECK(pieces(S) < Blocks);
}

TEST_CASE("scale: reduce-scatter-direct's allreduce written as it is past "
          "MaxTransfers is the one the Reducer follows, at drawn P up to 60") {
  Rng G(0x26c10);
  for (int D = 0; D < 6; ++D) {
    const int32_t P = static_cast<int32_t>(G.uniform(1, 60));
    // An element count below P too: fewer blocks than ranks.
    const uint64_t Elements = D % 3 == 0 ? uint64_t(G.uniform(1, P)) : 4 * P;
    CAPTURE(P);
    CAPTURE(Elements);
    // One port (the all-to-all placed transfer by transfer) and as many as
    // ranks (the all-to-all one step, as on a network).
    Machine Wide = linearMachine();
    Wide.Ports = static_cast<unsigned>(std::max(P, 1));
    for (const Machine &M : {linearMachine(), Wide}) {
      const Request R = test::request(Collective::Allreduce, P, 0, 4 * Elements,
                                      "reduce-scatter-direct");
      const Schedule Direct = reduceScatterDirectRingAllreduce(M, R);
      test::checkSameTransfers(Direct, reduceScatterDirectRingFollowed(M, R));
      verifyRuns(Direct, M);
    }
  }
}
