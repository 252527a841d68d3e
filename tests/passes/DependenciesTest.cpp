// The dependency rule (passes/Dependencies.h): a hand-built schedule with
// its dependencies spelled out, transfer ids <-> positions, and the fast
// lookups (chunk index, sorted pieces, signal shortcuts) against the rule
// applied literally, on schedules that exercise each of them.
#include "passes/Dependencies.h"
#include "compiler/Driver.h"
#include "readers/Spec.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace collc;

namespace {

/// Chunk -1: a signal.
constexpr int64_t Signal = -1;

/// Chunk \p Chunk of rank 0's data from \p Src to \p Dst, or a signal.
Transfer hop(int32_t Src, int32_t Dst, int64_t Chunk) {
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  if (Chunk == Signal)
    T.Kind = TransferKind::Signal;
  else
    T.Pieces = {{{0, 1}, {0, 4}, {Chunk, Chunk + 1}}};
  return T;
}

std::vector<uint32_t> depsOf(const TransferDependencies &D, uint32_t Id) {
  return std::vector<uint32_t>(D.of(Id).begin(), D.of(Id).end());
}

/// The rule as the header states it, transfer by transfer against every
/// earlier one.
std::vector<std::vector<uint32_t>> literalRule(const Schedule &S) {
  std::vector<const Transfer *> ById;
  std::vector<uint32_t> StepOf;
  for (uint32_t St = 0; St < S.Steps.size(); ++St)
    for (const Transfer &T : S.Steps[St].Transfers) {
      ById.push_back(&T);
      StepOf.push_back(St);
    }
  std::vector<std::vector<uint32_t>> Out(ById.size());
  for (uint32_t I = 0; I < ById.size(); ++I)
    for (uint32_t J = 0; J < I; ++J) {
      const Transfer &T = *ById[I], &G = *ById[J];
      if (StepOf[J] == StepOf[I] || G.Dst != T.Src)
        continue;
      bool Meets =
          T.Kind == TransferKind::Signal || G.Kind == TransferKind::Signal;
      for (const Piece &A : T.Pieces)
        for (const Piece &B : G.Pieces)
          Meets = Meets || A.intersects(B);
      if (Meets)
        Out[I].push_back(J);
    }
  return Out;
}

Machine example(const char *Name) {
  auto M = loadMachine(std::string(COLLC_SOURCE_DIR) + "/examples/machines/" +
                       Name + ".yaml");
  REQUIRE(M);
  return *M;
}

} // namespace

TEST_CASE("dependencies: a transfer waits for the earlier transfers into its "
          "sender that carry what it sends, a signal for all of them") {
  Schedule S;
  S.Participants.resize(4);
  S.NumChunks = 2;
  S.Steps.resize(4);
  S.Steps[0].Transfers = {hop(0, 1, 0), hop(0, 2, 1)};
  S.Steps[1].Transfers = {hop(1, 2, 0), hop(2, 3, 1), hop(1, 3, 1)};
  // Step 2 is empty.
  S.Steps[3].Transfers = {hop(2, 0, Signal), hop(3, 0, 1), hop(2, 1, 0)};
  TransferDependencies D = transferDependencies(S);
  REQUIRE(D.Ids.size() == 8);
  CHECK(depsOf(D, 0).empty());
  CHECK(depsOf(D, 1).empty());
  CHECK(depsOf(D, 2) == std::vector<uint32_t>{0});    // chunk 0 came in #0
  CHECK(depsOf(D, 3) == std::vector<uint32_t>{1});    // chunk 1 came in #1
  CHECK(depsOf(D, 4).empty());                        // rank 1 has no chunk 1
  CHECK(depsOf(D, 5) == std::vector<uint32_t>{1, 2}); // a signal: all into 2
  CHECK(depsOf(D, 6) == std::vector<uint32_t>{3, 4}); // chunk 1 into rank 3
  CHECK(depsOf(D, 7) == std::vector<uint32_t>{2});    // chunk 0 into rank 2

  // Ids <-> positions, across the empty step.
  CHECK(D.Ids.numSteps() == 4);
  CHECK(D.Ids.stepBegin(2) == 5);
  CHECK(D.Ids.stepBegin(3) == 5);
  CHECK(D.Ids.stepBegin(4) == 8);
  for (uint32_t Id = 0; Id < D.Ids.size(); ++Id) {
    TransferRef R = D.Ids.ref(Id);
    CHECK(D.Ids.id(R) == Id);
    CHECK(R.Step != 2);
  }
  CHECK(D.Ids.ref(5).Step == 3);
  CHECK(D.Ids.ref(5).Index == 0);

  // A received signal is a dependency of every later send of its receiver;
  // #6 brought chunk 1 only.
  S.Steps.push_back(Step{{hop(0, 3, 0)}});
  D = transferDependencies(S);
  CHECK(depsOf(D, 8) == std::vector<uint32_t>{5});
}

TEST_CASE("dependencies: the fast lookups agree with the rule applied "
          "literally, and the cost pass starts every transfer after them") {
  struct Case {
    const char *Machine;
    Collective C;
    int32_t Ranks;
    uint64_t Bytes;
    const char *Algorithm;
    int64_t Segments;
  } Cases[] = {
      // Many receives per rank: the chunk index.
      {"sp2", Collective::Bcast, 4, 1 << 20, "pipeline", 100},
      {"sp2", Collective::Scan, 6, 1 << 20, "pipelined", 64},
      // Many receives of whole blocks: the index by origin.
      {"sp2", Collective::Allgather, 48, 64, "ring", 0},
      {"sp2", Collective::Alltoall, 40, 64, "pairwise", 0},
      // Many pieces per transfer: the sorted-pieces lookup.
      {"torus-16x16", Collective::Alltoall, 256, 64, "sem", 0},
      {"sp2", Collective::Alltoall, 16, 64, "bruck", 0},
      {"sp2", Collective::Allreduce, 12, 4096, "reduce-scatter-allgather", 0},
      // Contributor sets in many intervals on both sides, every arrival met
      // by the send (the latency form's partial results): the sorted flags.
      {"torus-16x16", Collective::Allreduce, 256, 4, "swing", 0},
      // A reduction's combined arrivals, indexed by chunk; the owner's sends
      // of one reduced block to every other rank, from the last one asked.
      {"sp2", Collective::Allreduce, 40, 4096, "reduce-scatter-direct", 0},
      {"sp2", Collective::ReduceScatter, 40, 160, "ring", 0},
      // Signals.
      {"sp2", Collective::Barrier, 9, 0, "dissemination", 0},
      {"sp2", Collective::Barrier, 40, 0, "tree", 0},
      {"mesh-6x6", Collective::Barrier, 36, 0, "gather-broadcast", 0},
  };
  for (const Case &K : Cases) {
    CAPTURE(K.Algorithm);
    Machine M = example(K.Machine);
    Request R = test::request(K.C, K.Ranks, 0, K.Bytes, K.Algorithm);
    R.Segments = K.Segments;
    auto S = compile(M, R);
    REQUIRE(S);
    TransferDependencies D = transferDependencies(*S);
    std::vector<std::vector<uint32_t>> Want = literalRule(*S);
    REQUIRE(D.Ids.size() == Want.size());
    uint32_t Differ = 0;
    for (uint32_t Id = 0; Id < D.Ids.size(); ++Id)
      Differ += depsOf(D, Id) != Want[Id];
    CHECK(Differ == 0);

    // What ArrivalIndex::latestEnds answers, the cost pass used.
    for (uint32_t Id = 0; Id < D.Ids.size(); ++Id) {
      TransferRef Ref = D.Ids.ref(Id);
      const Transfer &T = S->Steps[Ref.Step].Transfers[Ref.Index];
      for (uint32_t W : D.of(Id)) {
        TransferRef WR = D.Ids.ref(W);
        CHECK(S->Steps[WR.Step].Transfers[WR.Index].End <= T.Start);
      }
    }
    // With the chunk count known (chunk hulls in buckets) and not (in the
    // ordered map).
    for (int64_t Chunks : {S->NumChunks, int64_t(0)}) {
      CAPTURE(Chunks);
      ArrivalIndex Got(S->size(), D.Ids.size(), Chunks);
      std::vector<double> Ends;
      for (uint32_t St = 0; St < S->Steps.size(); ++St) {
        Got.latestEnds(S->Steps[St], Ends);
        for (uint32_t I = 0; I < Ends.size(); ++I) {
          double Latest = 0;
          for (uint32_t W : D.of(D.Ids.stepBegin(St) + I)) {
            TransferRef WR = D.Ids.ref(W);
            Latest =
                std::max(Latest, S->Steps[WR.Step].Transfers[WR.Index].End);
          }
          CHECK(Ends[I] == Latest);
        }
        Got.addStep(S->Steps[St], D.Ids.stepBegin(St));
      }
    }
  }
}

TEST_CASE("dependencies: a rank's many arrivals of wide hulls, indexed by "
          "chunk, are found whether the index scans its buckets or its "
          "entries") {
  // Rank 0 receives 40 transfers from rank 1, each carrying chunks
  // [i, i + Width) of 1,000 (past 32 arrivals its receives are indexed by
  // chunk), then sends each chunk range to rank 2: a narrow range scans the
  // buckets that can hold a meeting hull, a wide one (more buckets than
  // arrivals) the arrivals.
  for (int64_t Width : {1, 30, 900}) {
    CAPTURE(Width);
    Schedule S;
    S.Coll = Collective::Bcast;
    S.NumChunks = 1000;
    S.Participants.resize(3);
    for (int64_t I = 0; I < 40; ++I) {
      Transfer T = hop(1, 0, 0);
      T.Pieces = {
          {{0, 1}, {0, 3}, {I * 20, std::min<int64_t>(I * 20 + Width, 1000)}}};
      T.End = double(I + 1);
      S.Steps.push_back(Step{{T}});
    }
    Step Sends;
    for (int64_t C = 0; C < 1000; C += 37) {
      Transfer T = hop(0, 2, 0);
      T.Pieces = {{{0, 1}, {0, 3}, {C, std::min<int64_t>(C + Width, 1000)}}};
      Sends.Transfers.push_back(T);
    }
    S.Steps.push_back(Sends);
    TransferDependencies D = transferDependencies(S);
    std::vector<std::vector<uint32_t>> Want = literalRule(S);
    REQUIRE(D.Ids.size() == Want.size());
    uint32_t Differ = 0, Found = 0;
    for (uint32_t Id = 0; Id < D.Ids.size(); ++Id) {
      Differ += depsOf(D, Id) != Want[Id];
      Found += uint32_t(Want[Id].size());
    }
    CHECK(Differ == 0);
    CHECK(Found > 0);
    ArrivalIndex Got(S.size(), D.Ids.size(), S.NumChunks);
    std::vector<double> Ends;
    for (uint32_t St = 0; St < S.Steps.size(); ++St) {
      Got.latestEnds(S.Steps[St], Ends);
      for (uint32_t I = 0; I < Ends.size(); ++I) {
        double Latest = 0;
        for (uint32_t W : Want[D.Ids.stepBegin(St) + I])
          Latest = std::max(Latest, double(W + 1));
        CHECK(Ends[I] == Latest);
      }
      Got.addStep(S.Steps[St], D.Ids.stepBegin(St));
    }
  }
}
