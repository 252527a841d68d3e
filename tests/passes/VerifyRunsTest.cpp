// The verifier on runs (VerifyOptions::Tracking::Runs, passes/HeldFlow.h and
// passes/ReductionFlow.h) against the atom-exact one: on every algorithm's
// schedules at random sizes, and on those schedules broken at random, both
// report the same problems, word for word.
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "passes/HeldFlow.h"
#include "passes/ReductionFlow.h"
#include "passes/Verify.h"
#include "readers/Spec.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <random>

using namespace collc;

namespace {

/// The problems found, one a line.
std::string verifyBy(const Schedule &S, const Machine &M,
                     VerifyOptions::Tracking T) {
  VerifyOptions O;
  O.Flow = T;
  std::string Out;
  for (const std::string &Problem : verifySchedule(S, M, O))
    Out += Problem + "\n";
  return Out;
}

/// Breaks \p S in one of several ways, chosen by \p Rng.
void breakAtRandom(Schedule &S, std::mt19937_64 &Rng) {
  auto Pick = [&](size_t N) {
    return std::uniform_int_distribution<size_t>(0, N - 1)(Rng);
  };
  std::vector<std::pair<size_t, size_t>> All;
  for (size_t SI = 0; SI < S.Steps.size(); ++SI)
    for (size_t TI = 0; TI < S.Steps[SI].Transfers.size(); ++TI)
      All.emplace_back(SI, TI);
  if (All.empty())
    return;
  auto [SI, TI] = All[Pick(All.size())];
  Transfer &T = S.Steps[SI].Transfers[TI];
  const int64_t K = S.NumChunks;
  switch (Pick(8)) {
  case 0: // dropped
    S.Steps[SI].Transfers.erase(S.Steps[SI].Transfers.begin() + TI);
    break;
  case 1: { // moved to the first step
    Transfer Copy = T;
    S.Steps[SI].Transfers.erase(S.Steps[SI].Transfers.begin() + TI);
    S.Steps[0].Transfers.push_back(Copy);
    break;
  }
  case 2: // sent twice, one step later
    if (SI + 1 < S.Steps.size())
      S.Steps[SI + 1].Transfers.push_back(T);
    else
      S.Steps.push_back({{T}});
    break;
  case 3: { // a piece's origins shifted or widened (the bytes follow)
    Piece &Pc = T.Pieces[Pick(T.Pieces.size())];
    const int64_t P = S.size();
    if (Pick(2) && Pc.Origins.Hi < P)
      ++Pc.Origins.Hi;
    else if (Pc.Origins.Lo > 0)
      --Pc.Origins.Lo;
    else if (Pc.Origins.Hi < P)
      Pc = {{Pc.Origins.Lo + 1, Pc.Origins.Hi + 1}, Pc.Dests, Pc.Chunks};
    break;
  }
  case 4: { // a piece's chunks shifted (the bytes follow)
    Piece &Pc = T.Pieces[Pick(T.Pieces.size())];
    if (Pc.Chunks.Hi < K)
      Pc.Chunks = {Pc.Chunks.Lo + 1, Pc.Chunks.Hi + 1};
    else if (Pc.Chunks.Lo > 0)
      Pc.Chunks = {Pc.Chunks.Lo - 1, Pc.Chunks.Hi - 1};
    break;
  }
  case 5: // sent earlier than its data is there
    if (!std::isnan(T.Start)) {
      const double Duration = T.End - T.Start;
      T.Start /= 3;
      T.End = T.Start + Duration;
    }
    break;
  case 6: // sender and receiver swapped
    std::swap(T.Src, T.Dst);
    break;
  case 7: // a non-commutative operator: unordered folds are refused
    S.Commutative = false;
    break;
  }
  // Bytes as the pieces make them, so that the break reaches the data flow
  // instead of stopping at the structure check.
  if (SI < S.Steps.size() && TI < S.Steps[SI].Transfers.size()) {
    Transfer &U = S.Steps[SI].Transfers[TI];
    std::vector<Interval> Chunks;
    uint64_t Bytes = 0;
    for (const Piece &Pc : U.Pieces) {
      Chunks.push_back(Pc.Chunks);
      Bytes += S.chunkBytes(Pc.Chunks) * Pc.Origins.size();
    }
    if (traits(S.Coll).Data == DataKind::Reduction) {
      Bytes = 0;
      for (const Interval &C : IntervalSet::of(std::move(Chunks)))
        Bytes += S.chunkBytes(C);
    }
    U.Bytes = Bytes;
  }
}

struct Case {
  const char *MachineName;
  Collective Coll;
};

Machine machine(const std::string &Name) {
  auto M = loadMachine(std::string(COLLC_SOURCE_DIR) + "/examples/machines/" +
                       Name + ".yaml");
  REQUIRE(M);
  return *M;
}

} // namespace

TEST_CASE("verify-runs: runs and atoms agree on every algorithm's schedules, "
          "whole and broken, at random sizes") {
  std::mt19937_64 Rng(2026);
  const char *const Machines[] = {"pc-cluster", "torus-16x16", "mesh-6x6",
                                  "min64"};
  const Collective Colls[] = {Collective::Bcast,     Collective::Reduce,
                              Collective::Allreduce, Collective::Scan,
                              Collective::Exscan,    Collective::Allgather};
  size_t Whole = 0, Broken = 0, Caught = 0;
  for (const char *Name : Machines) {
    const Machine M = machine(Name);
    const int32_t MaxP =
        M.Topo.Nodes ? static_cast<int32_t>(std::min<int64_t>(M.Topo.Nodes, 40))
                     : 40;
    for (Collective C : Colls)
      for (const AlgorithmInfo &A : algorithms()) {
        if (!A.supports(C))
          continue;
        for (int Trial = 0; Trial < 3; ++Trial) {
          const int32_t P =
              std::uniform_int_distribution<int32_t>(2, MaxP)(Rng);
          const int32_t Root =
              std::uniform_int_distribution<int32_t>(0, P - 1)(Rng);
          const uint64_t Drawn =
              std::uniform_int_distribution<uint64_t>(1, 1 << 17)(Rng);
          // Reductions: whole int32 elements.
          const uint64_t Bytes = isReduction(C) ? (Drawn + 3) / 4 * 4 : Drawn;
          Request R = test::request(C, P, Root, Bytes, A.Name);
          std::string Why;
          if (!A.applies(M, R, Why))
            continue;
          auto Built = buildAndCost(M, R, A.Name);
          if (!Built) {
            llvm::consumeError(Built.takeError());
            continue;
          }
          const std::string Alg = A.Name, Coll = collectiveName(C), Mach = Name;
          CAPTURE(Mach);
          CAPTURE(Alg);
          CAPTURE(Coll);
          CAPTURE(P);
          CAPTURE(Root);
          CAPTURE(Bytes);
          auto Runs = verifyBy(*Built, M, VerifyOptions::Tracking::Runs);
          CHECK(Runs == verifyBy(*Built, M, VerifyOptions::Tracking::Atoms));
          CHECK(Runs == verifyBy(*Built, M, VerifyOptions::Tracking::Auto));
          CHECK(Runs.empty());
          ++Whole;
          for (int B = 0; B < 4; ++B) {
            Schedule S = *Built;
            breakAtRandom(S, Rng);
            auto RunsB = verifyBy(S, M, VerifyOptions::Tracking::Runs);
            auto AtomsB = verifyBy(S, M, VerifyOptions::Tracking::Atoms);
            CHECK(RunsB == AtomsB);
            ++Broken;
            Caught += !RunsB.empty();
          }
        }
      }
  }
  MESSAGE(Whole << " schedules, " << Broken << " broken copies, " << Caught
                << " caught");
  CHECK(Whole > 100);
  // Most breaks are caught (a dropped transfer into a value nobody reads,
  // say, is not a problem).
  CHECK(Caught * 2 > Broken);
}

TEST_CASE("verify-runs: the reduction flow on runs holds what the chunk flow "
          "holds, chunk by chunk") {
  std::mt19937_64 Rng(7);
  const Machine M = test::parameterized(10, 20, 0.01, 0.02);
  size_t Compared = 0;
  for (const AlgorithmInfo &A : algorithms())
    for (Collective C : {Collective::Allreduce, Collective::Exscan}) {
      if (!A.supports(C))
        continue;
      const int32_t P = std::uniform_int_distribution<int32_t>(2, 33)(Rng);
      Request R = test::request(C, P, 0, 4096 * 4, A.Name);
      std::string Why;
      if (!A.applies(M, R, Why))
        continue;
      auto S = buildAndCost(M, R, A.Name);
      if (!S) {
        llvm::consumeError(S.takeError());
        continue;
      }
      const std::string Alg = A.Name;
      CAPTURE(Alg);
      ReductionFlow Runs(*S);
      ChunkReductionFlow Chunks(*S);
      for (const Step &St : S->Steps) {
        std::vector<const Transfer *> Ts;
        for (const Transfer &T : St.Transfers)
          Ts.push_back(&T);
        Runs.step(Ts);
        Chunks.step(Ts);
      }
      for (int V = 0; V < 2; ++V)
        for (int32_t Rk = 0; Rk < P; ++Rk)
          for (int64_t Ch = 0; Ch < S->NumChunks; ++Ch)
            CHECK(Runs.value(V, Rk, Ch) == Chunks.value(V, Rk, Ch));
      ++Compared;
    }
  CHECK(Compared > 5);
}

TEST_CASE("verify-runs: a ring allgather keeps a few runs per rank") {
  // Each rank ends holding every origin's one chunk: one run of origins.
  const int32_t P = 1000;
  HeldFlow H(P, 1, {0, P});
  for (int32_t S = 0; S + 1 < P; ++S)
    for (int32_t R = 0; R < P; ++R) {
      const int64_t Or = ((R - S) % P + P) % P;
      H.deliver((R + 1) % P, {Or, Or + 1}, {0, 1}, S + 1);
    }
  // Times differ per origin: runs split by arrival, not by holding.
  bool AllHeld = true;
  for (int32_t R = 0; R < P; R += 97)
    H.visit(R, {0, P}, {0, 1}, [&](Interval, Interval, const Arrival &A) {
      AllHeld &= A.Held;
      return true;
    });
  CHECK(AllHeld);
  HeldFlow Untimed(P, 1, {0, P});
  for (int32_t S = 0; S + 1 < P; ++S)
    for (int32_t R = 0; R < P; ++R) {
      const int64_t Or = ((R - S) % P + P) % P;
      Untimed.deliver((R + 1) % P, {Or, Or + 1}, {0, 1}, 0);
    }
  CHECK(Untimed.runs() == static_cast<size_t>(P));
}

TEST_CASE("verify-runs: runs lift the atom limit on ranks x chunks, not the "
          "one on the chunks of a message") {
  const Machine M = test::parameterized(10, 20);
  // Two ranks, 2^26 chunks: 2^27 atoms, beyond what atoms follow.
  const int64_t K = int64_t(1) << 26;
  Schedule S;
  S.Coll = Collective::Allreduce;
  S.Algorithm = "hand";
  S.Bytes = uint64_t(K) * 4;
  S.NumChunks = K;
  S.Op = "sum";
  S.Datatype = "int32";
  S.Participants = {{0}, {1}};
  Transfer Up;
  Up.Src = 1;
  Up.Dst = 0;
  Up.Kind = TransferKind::Combine;
  Up.Bytes = S.Bytes;
  Up.Pieces = {{{1, 2}, {0, 2}, {0, K}}};
  Transfer Down = Up;
  Down.Src = 0;
  Down.Dst = 1;
  Down.Kind = TransferKind::Copy;
  Down.Pieces = {{{0, 2}, {0, 2}, {0, K}}};
  S.Steps = {{{Up}}, {{Down}}};
  CHECK(verifyBy(S, M, VerifyOptions::Tracking::Auto).empty());
  CHECK(verifyBy(S, M, VerifyOptions::Tracking::Runs).empty());
  CHECK(verifyBy(S, M, VerifyOptions::Tracking::Atoms)
            .find("larger than the verifier tracks") != std::string::npos);
  // Rank 1 sending its own contribution again is caught as runs too.
  S.Steps.push_back({{Up}});
  CHECK(verifyBy(S, M, VerifyOptions::Tracking::Auto)
            .find("sends chunk 0 combined over ranks {1} but rank 1 holds it "
                  "combined over {0..1}") != std::string::npos);
  // More chunks than that: refused whatever the tracking.
  S.NumChunks = 2 * K;
  for (Transfer *T : {&S.Steps[0].Transfers[0], &S.Steps[1].Transfers[0],
                      &S.Steps[2].Transfers[0]})
    T->Pieces[0].Chunks = {0, 2 * K};
  CHECK(verifyBy(S, M, VerifyOptions::Tracking::Runs)
            .find("larger than the verifier tracks") != std::string::npos);
}

TEST_CASE("verify-runs: held data kept along one axis (one chunk, or one "
          "origin) holds what an array of arrivals holds") {
  // Random deliveries, some over atoms held already (they take the new
  // time), against a brute-force array of arrival times (NaN: not held).
  std::mt19937_64 Rng(13);
  auto Draw = [&](int64_t N) {
    int64_t A = std::uniform_int_distribution<int64_t>(0, N)(Rng),
            B = std::uniform_int_distribution<int64_t>(0, N)(Rng);
    return Interval{std::min(A, B), std::max(A, B)};
  };
  const int32_t P = 23;
  for (const int64_t K : {int64_t(1), int64_t(37)}) {
    // One chunk: every rank's data; 37 chunks: rank 5's data alone.
    const Interval Sources = K == 1 ? Interval{0, P} : Interval{5, 6};
    HeldFlow H(P, K, Sources);
    std::vector<double> Truth(static_cast<size_t>(P) * P * K, NAN);
    auto At = [&](int64_t R, int64_t O, int64_t C) -> double & {
      return Truth[(static_cast<size_t>(R) * P + O) * K + C];
    };
    for (int64_t O = Sources.Lo; O < Sources.Hi; ++O)
      for (int64_t C = 0; C < K; ++C)
        At(O, O, C) = 0;
    for (int I = 0; I < 2000; ++I) {
      const int32_t R = std::uniform_int_distribution<int32_t>(0, P - 1)(Rng);
      const Interval Os = K == 1 ? Draw(P) : Sources;
      const Interval Cs = Draw(K);
      const double When = std::uniform_int_distribution<int>(1, 4)(Rng);
      H.deliver(R, Os, Cs, When);
      for (int64_t O = Os.Lo; O < Os.Hi; ++O)
        for (int64_t C = Cs.Lo; C < Cs.Hi; ++C)
          At(R, O, C) = When;
      // Every rank's state, visited over a random rectangle (clipped to the
      // data space, as the runs clip it), atom by atom in origin-major
      // order.
      const int32_t V = std::uniform_int_distribution<int32_t>(0, P - 1)(Rng);
      const Interval Vo{Draw(P).Lo - 1, Draw(P).Hi + 1}, Vc = Draw(K);
      std::vector<std::pair<int64_t, int64_t>> Seen;
      bool Agree = true;
      H.visit(V, Vo, Vc, [&](Interval Or, Interval Ch, const Arrival &A) {
        for (int64_t O = Or.Lo; O < Or.Hi; ++O)
          for (int64_t C = Ch.Lo; C < Ch.Hi; ++C) {
            Seen.emplace_back(O, C);
            const double T = At(V, O, C);
            Agree &= A.Held == !std::isnan(T) && (!A.Held || A.Since == T);
          }
        return true;
      });
      std::vector<std::pair<int64_t, int64_t>> Want;
      for (int64_t O = std::max<int64_t>(Vo.Lo, 0);
           O < std::min<int64_t>(Vo.Hi, P); ++O)
        for (int64_t C = Vc.Lo; C < Vc.Hi; ++C)
          Want.emplace_back(O, C);
      if (Vc.empty())
        Want.clear();
      CAPTURE(K);
      CAPTURE(I);
      CHECK(Agree);
      REQUIRE(Seen == Want);
      // The shortcut: known to hold the rectangle exactly when every atom
      // of it is held, with a latest arrival no earlier than theirs.
      bool All = !Want.empty();
      double Max = -1;
      for (const auto &OC : Want) {
        const double T = At(V, OC.first, OC.second);
        All &= !std::isnan(T);
        Max = std::max(Max, std::isnan(T) ? Max : T);
      }
      double Latest = -1;
      const bool Known =
          H.visit(V, Vo, Vc,
                  [](Interval, Interval, const Arrival &) { return true; }) &&
          H.holdsAll(V, Vo, Vc, Latest);
      CHECK(Known == All);
      if (Known)
        CHECK(Latest >= Max);
    }
  }
}

TEST_CASE("verify-runs: one-axis held data still rejects a broadcast and an "
          "allgather that send too early or twice") {
  Machine M = test::parameterized(10, 20);
  M.Ports = 2;
  // A broadcast of 64 chunks (kept along the chunks) from rank 1 on 4
  // ranks: 1 -> 2 chunks 0..32 and 1 -> 3 chunks 32..64 (step 0), then 2 <-> 3
  // swap their halves (step 1) and 2 -> 0 forwards all (step 2).
  Schedule B;
  B.Coll = Collective::Bcast;
  B.Algorithm = "hand";
  B.Root = 1;
  B.NumChunks = 64;
  B.Bytes = 64;
  B.Participants = {{0}, {1}, {2}, {3}};
  auto Send = [](int32_t Src, int32_t Dst, Interval Os, Interval Cs,
                 uint64_t Bytes) {
    Transfer T;
    T.Src = Src;
    T.Dst = Dst;
    T.Bytes = Bytes;
    T.Pieces = {{Os, {0, 4}, Cs}};
    return T;
  };
  B.Steps = {
      {{Send(1, 2, {1, 2}, {0, 32}, 32), Send(1, 3, {1, 2}, {32, 64}, 32)}},
      {{Send(2, 3, {1, 2}, {0, 32}, 32), Send(3, 2, {1, 2}, {32, 64}, 32)}},
      {{Send(2, 0, {1, 2}, {0, 64}, 64)}}};
  auto Same = [&](const Schedule &S) {
    const std::string Runs = verifyBy(S, M, VerifyOptions::Tracking::Runs);
    CHECK(Runs == verifyBy(S, M, VerifyOptions::Tracking::Atoms));
    return Runs;
  };
  // Whether both report \p Text.
  auto Finds = [&](const Schedule &S, const char *Text) {
    return Same(S).find(Text) != std::string::npos;
  };
  CHECK(Same(B).empty());
  {
    // Rank 0 forwards from rank 2 one step early: it lacks chunks 32..63.
    Schedule S = B;
    std::swap(S.Steps[1], S.Steps[2]);
    CHECK(Finds(S, "rank 2 sends the message chunk 32"));
  }
  {
    // Rank 3 receives chunk 40 a second time.
    Schedule S = B;
    S.Steps[2].Transfers.push_back(Send(1, 3, {1, 2}, {40, 41}, 1));
    CHECK(Finds(S, "rank 3 receives the message chunk 40"));
  }
  {
    // Timed: rank 2 forwards at 5 chunks 0..31, which arrived at 7.
    Schedule S = B;
    double T0 = 0;
    for (Step &St : S.Steps) {
      for (Transfer &T : St.Transfers) {
        T.Start = T0;
        T.End = T0 + 7;
      }
      T0 += 7;
    }
    S.Steps[1].Transfers[0].Start = 5;
    CHECK(Finds(S, "starts at 5 before the message chunk 0 arrived (7)"));
  }
  // An allgather of one chunk (kept along the origins) on 4 ranks by
  // recursive doubling: 0 <-> 1, 2 <-> 3, then pairs of origins.
  Schedule G;
  G.Coll = Collective::Allgather;
  G.Algorithm = "hand";
  G.NumChunks = 1;
  G.Bytes = 1;
  G.Participants = {{0}, {1}, {2}, {3}};
  G.Steps = {{{Send(0, 1, {0, 1}, {0, 1}, 1), Send(1, 0, {1, 2}, {0, 1}, 1),
               Send(2, 3, {2, 3}, {0, 1}, 1), Send(3, 2, {3, 4}, {0, 1}, 1)}},
             {{Send(0, 2, {0, 2}, {0, 1}, 2), Send(2, 0, {2, 4}, {0, 1}, 2),
               Send(1, 3, {0, 2}, {0, 1}, 2), Send(3, 1, {2, 4}, {0, 1}, 2)}}};
  CHECK(Same(G).empty());
  {
    // Rank 2 sends origins 2..3 before origin 3 arrived.
    Schedule S = G;
    std::swap(S.Steps[0].Transfers[3], S.Steps[1].Transfers[1]);
    CHECK(Finds(S, "rank 2 sends the block of rank 3 before it holds it"));
  }
  {
    // Timed: rank 2 holds origins 2..3 when it sends them, but origin 3
    // arrives at 9, after the send starts at 8.
    Schedule S = G;
    for (size_t SI = 0; SI < S.Steps.size(); ++SI)
      for (Transfer &T : S.Steps[SI].Transfers) {
        T.Start = 10.0 * SI;
        T.End = T.Start + 7;
      }
    S.Steps[0].Transfers[3].End = 9;   // 3 -> 2
    S.Steps[1].Transfers[1].Start = 8; // 2 -> 0, origins 2..3
    CHECK(Finds(S, "starts at 8 before the block of rank 3 arrived (9)"));
  }
  {
    // Rank 3 receives origin 0 twice.
    Schedule S = G;
    S.Steps[1].Transfers.push_back(Send(2, 3, {0, 1}, {0, 1}, 1));
    CHECK(Finds(S, "rank 3 receives the block of rank 0 a second time"));
  }
}
