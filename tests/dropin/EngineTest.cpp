// The drop-in library's engine (dropin/Engine.h): configuration from the
// environment, size bands, placement of a communicator's ranks, and the
// cache of schedules built where the program runs.
#include "dropin/Engine.h"
#include "backends/MpiTables.h"
#include "compiler/Driver.h"
#include "runtime/collc/settings.h"
#include "tests/TestUtil.h"

#include "readers/MachineSpec.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <sys/stat.h>

using namespace collc;
using namespace collc::dropin;

namespace {

std::string errorOf(llvm::Expected<Config> C) {
  REQUIRE(!C);
  return llvm::toString(C.takeError());
}

Machine pcCluster() {
  llvm::Expected<Machine> M =
      loadMachine(COLLC_SOURCE_DIR "/examples/machines/pc-cluster.yaml");
  REQUIRE(M);
  return *M;
}

Key keyOf(int Coll, int32_t Layout, int32_t Root, uint64_t Bytes,
          bool Commutative = true) {
  Key K;
  K.Coll = Coll;
  K.Layout = Layout;
  K.Root = Root;
  K.Band = powerOfTwoBand(Bytes);
  K.Commutative = Commutative;
  return K;
}

} // namespace

TEST_CASE("dropin: configuration from the environment") {
  llvm::Expected<Config> D = parseConfig("m.yaml", nullptr, nullptr, nullptr);
  REQUIRE(D);
  CHECK(D->MachinePath == "m.yaml");
  CHECK(D->Verbose == 0);
  for (int I = 0; I <= rt::Barrier; ++I)
    CHECK(D->TakeOver[I] == (I != rt::Multicast));

  llvm::Expected<Config> C = parseConfig(
      "m.yaml", "bcast, allreduce", "bcast=binomial,allreduce=ring", "all");
  REQUIRE(C);
  CHECK(C->TakeOver[rt::Bcast]);
  CHECK(C->TakeOver[rt::Allreduce]);
  CHECK(!C->TakeOver[rt::Reduce]);
  CHECK(C->Algorithm[rt::Bcast] == "binomial");
  CHECK(C->Algorithm[rt::Allreduce] == "ring");
  CHECK(C->Algorithm[rt::Gather].empty());
  CHECK(C->Verbose == 2);
  CHECK(parseConfig(nullptr, nullptr, nullptr, "1")->Verbose == 1);
  CHECK(parseConfig(nullptr, nullptr, nullptr, "0")->Verbose == 0);
  CHECK(D->Notes.empty());

  CHECK(
      errorOf(parseConfig("m", "bcast,reduse", nullptr, nullptr)) ==
      "COLLC_COLLECTIVES: unknown collective 'reduse'; expected bcast, "
      "reduce, allreduce, scan, exscan, gather, scatter, allgather, alltoall, "
      "barrier or reduce-scatter");
  CHECK(
      errorOf(parseConfig("m", nullptr, "multicast=binomial", nullptr)) ==
      "COLLC_ALGORITHM: unknown collective 'multicast'; expected bcast, "
      "reduce, allreduce, scan, exscan, gather, scatter, allgather, alltoall, "
      "barrier or reduce-scatter");
  CHECK(errorOf(parseConfig("m", nullptr, "bcast", nullptr)) ==
        "COLLC_ALGORITHM: expected collective=algorithm (e.g. "
        "bcast=binomial,allreduce=ring), got 'bcast'");
}

TEST_CASE(
    "dropin: a sub-communicator's ranks sit on their world ranks' nodes") {
  Machine M = pcCluster(); // 16 nodes, one rank each
  Engine E(M, Config{});
  CHECK(*E.nodeOfWorldRank(5, 8) == 5);
  llvm::Expected<int64_t> Over = E.nodeOfWorldRank(0, 17);
  REQUIRE(!Over);
  CHECK(llvm::toString(Over.takeError()) ==
        "machine 'pc-cluster' holds 16 ranks; the program runs 17");

  // Two processes per node, cyclic: world rank r of 8 on node r mod 4.
  Machine N = M;
  N.Net.emplace();
  N.Net->ProcsPerNode = 2;
  N.Net->Placement = RankPlacement::Cyclic;
  Engine EN(N, Config{});
  CHECK(*EN.nodeOfWorldRank(6, 8) == 2);
  CHECK(*EN.nodeOfWorldRank(3, 8) == 3);

  // Node lists are interned: equal lists, one id.
  int32_t A = E.layout({4, 2, 0}), B = E.layout({0, 2, 4}),
          C = E.layout({4, 2, 0});
  CHECK(A == C);
  CHECK(A != B);
}

TEST_CASE("dropin: a kind's schedule is built once, verified, and serves "
          "its band") {
  Engine E(pcCluster(), Config{});
  int32_t L = E.layout({7, 3, 5, 1, 9});
  const Entry &B = E.get(keyOf(rt::Bcast, L, 2, 1000));
  REQUIRE(B.Error.empty());
  CHECK(B.Variant.Collective == rt::Bcast);
  CHECK(B.Variant.Ranks == 5);
  CHECK(B.Variant.Root == 2);
  CHECK(B.Variant.MinBytes == 512);
  CHECK(B.Variant.MaxBytes == 1023);
  CHECK(std::string(B.Variant.Algorithm) == B.Algorithm);
  CHECK(B.Variant.RankOps == B.Tables.RankOps.data());
  CHECK(B.BuildSeconds > 0);
  // A later call of the kind finds it; another root is another kind.
  CHECK(&E.get(keyOf(rt::Bcast, L, 2, 600)) == &B);
  CHECK(&E.get(keyOf(rt::Bcast, L, 1, 600)) != &B);
  CHECK(E.size() == 2);
  CHECK(E.memoryBytes() > B.Tables.Ops.size() * sizeof(rt::Op));

  // The empty message and the barrier.
  const Entry &Z = E.get(keyOf(rt::Allgather, L, 0, 0));
  REQUIRE(Z.Error.empty());
  CHECK(Z.Variant.MinBytes == 0);
  CHECK(Z.Variant.MaxBytes == 0);
  const Entry &Bar = E.get(keyOf(rt::Barrier, L, 0, 0));
  REQUIRE(Bar.Error.empty());
  CHECK(Bar.Variant.MaxBytes == UINT64_MAX);
}

TEST_CASE("dropin: every rank builds the same tables") {
  // Two engines stand for two ranks: same machine, same kinds asked in a
  // different order, identical tables.
  Engine E1(pcCluster(), Config{}), E2(pcCluster(), Config{});
  std::vector<int64_t> Nodes = {0, 1, 2, 3, 4, 5, 6};
  int32_t L1 = E1.layout(Nodes);
  E2.layout({9, 8});
  int32_t L2 = E2.layout(Nodes);
  const int Colls[] = {rt::Reduce, rt::Alltoall, rt::Scan, rt::Scatter};
  for (int C : {rt::Alltoall, rt::Scatter})
    E2.get(keyOf(C, L2, 3, 70000));
  for (int C : Colls) {
    CAPTURE(C);
    const Entry &A = E1.get(keyOf(C, L1, 3, 70000));
    const Entry &B = E2.get(keyOf(C, L2, 3, 70000));
    REQUIRE(A.Error.empty());
    CHECK(A.Algorithm == B.Algorithm);
    CHECK(A.Tables.RankOps == B.Tables.RankOps);
    REQUIRE(A.Tables.Ops.size() == B.Tables.Ops.size());
    for (size_t I = 0; I < A.Tables.Ops.size(); ++I) {
      const rt::Op &X = A.Tables.Ops[I], &Y = B.Tables.Ops[I];
      CHECK((X.Step == Y.Step && X.Peer == Y.Peer && X.Flags == Y.Flags &&
             X.Seg == Y.Seg && X.NumSegs == Y.NumSegs));
    }
  }
}

TEST_CASE("dropin: non-commutative operators get a rank-ordered schedule") {
  Engine E(pcCluster(), Config{});
  int32_t L = E.layout({0, 1, 2, 3, 4});
  for (int C : {rt::Reduce, rt::Allreduce, rt::Scan, rt::Exscan}) {
    CAPTURE(C);
    const Entry &N = E.get(keyOf(C, L, C == rt::Reduce ? 3 : 0, 4000, false));
    REQUIRE(N.Error.empty());
    CHECK(!N.Variant.NeedsCommutative);
  }
}

TEST_CASE("dropin: an algorithm collc lacks is a note; one that cannot "
          "serve here is an error, cached") {
  llvm::Expected<Config> C =
      parseConfig(nullptr, nullptr, "bcast=no-such-algorithm", nullptr);
  REQUIRE(C);
  CHECK(!C->TakeOver[rt::Bcast]);
  REQUIRE(C->Notes.size() == 1);
  CHECK(C->Notes[0] ==
        "COLLC_ALGORITHM: collc has no bcast algorithm 'no-such-algorithm' "
        "(`collc --list-algorithms` lists them); MPI_Bcast runs in the MPI "
        "library");
  // Not taken over anyway: nothing to say.
  llvm::Expected<Config> Quiet =
      parseConfig(nullptr, "gather", "bcast=no-such-algorithm", nullptr);
  REQUIRE(Quiet);
  CHECK(Quiet->Notes.empty());

  // opt-mesh is collc's, but needs a mesh.
  llvm::Expected<Config> Mesh =
      parseConfig(nullptr, nullptr, "bcast=opt-mesh", nullptr);
  REQUIRE(Mesh);
  CHECK(Mesh->Notes.empty());
  Engine E(pcCluster(), *Mesh);
  int32_t L = E.layout({0, 1, 2});
  const Entry &B = E.get(keyOf(rt::Bcast, L, 0, 100));
  CHECK(!B.Error.empty());
  CHECK(B.Error.find("opt-mesh") != std::string::npos);
  CHECK(&E.get(keyOf(rt::Bcast, L, 0, 100)) == &B);
  // Other collectives keep `auto`.
  CHECK(E.get(keyOf(rt::Gather, L, 0, 100)).Error.empty());
}

TEST_CASE("dropin: a kind the request checks refuse is left to the MPI "
          "library, with the reason") {
  Engine E(pcCluster(), Config{});
  const int64_t Nodes = E.machine().Topo.Nodes;
  REQUIRE(Nodes > 3);
  // The kind's request is made by makeRequest, as collc's own: a node the
  // machine lacks, and a size beyond the largest a request may ask for
  // (MaxBytes), are refused there, for the whole kind and for a rank's part
  // alike.
  const int32_t Outside = E.layout({0, 1, Nodes});
  llvm::Expected<Request> R = E.requestOf(keyOf(rt::Bcast, Outside, 0, 100));
  REQUIRE(!R);
  const std::string Why = llvm::toString(R.takeError());
  CHECK(Why.find("is outside the machine") != std::string::npos);
  const Entry &B = E.get(keyOf(rt::Bcast, Outside, 0, 100), 1);
  CHECK(B.Error == Why);
  CHECK(&E.get(keyOf(rt::Bcast, Outside, 0, 100)) == &B);

  const int32_t L = E.layout({0, 1, 2, 3});
  Key Huge = keyOf(rt::Allgather, L, 0, 0);
  Huge.Band = 63; // 2^62 bytes and up per block
  const Entry &H = E.get(Huge, 0);
  CHECK(H.Error.find("] for 'bytes', got '") != std::string::npos);

  // A kind they accept: the entry keeps the size its request was made at.
  const Key K = keyOf(rt::Allreduce, L, 0, 3000);
  llvm::Expected<Request> Ok = E.requestOf(K);
  REQUIRE(static_cast<bool>(Ok));
  CHECK(Ok->Bytes % 4 == 0);
  CHECK(Ok->Op == "sum");
  for (int32_t Rank : {2, -1}) {
    const Entry &A = E.get(K, Rank);
    REQUIRE(A.Error.empty());
    CHECK(A.Bytes == Ok->Bytes);
  }
}

TEST_CASE("dropin: COLLC_VERBOSE=0, off, no and false mean off") {
  for (const char *Off : {"0", "", " 0 ", "off", "OFF", "no", "false"})
    CHECK(parseConfig(nullptr, nullptr, nullptr, Off)->Verbose == 0);
  for (const char *On : {"1", "yes", "on", "2", "verbose"})
    CHECK(parseConfig(nullptr, nullptr, nullptr, On)->Verbose == 1);
  CHECK(parseConfig(nullptr, nullptr, nullptr, "ALL")->Verbose == 2);
  CHECK(parseConfig(nullptr, nullptr, nullptr, nullptr)->Verbose == 0);
}

TEST_CASE("runtime: COLLC_MAX_PIECE is a byte count from 1 to 2^30") {
  const uint64_t GiB = uint64_t(1) << 30;
  bool Valid = false;
  CHECK(rt::maxPieceOf(nullptr, &Valid) == GiB);
  CHECK(Valid);
  CHECK(rt::maxPieceOf("65000", &Valid) == 65000);
  CHECK(Valid);
  CHECK(rt::maxPieceOf("1", &Valid) == 1);
  CHECK(rt::maxPieceOf("1073741824", &Valid) == GiB);
  CHECK(Valid);
  // Anything else keeps the default and is reported as not valid.
  for (const char *Bad : {"", "0", "-5", "+5", " 5", "5 ", "64k", "1073741825",
                          "99999999999999999999999999"}) {
    CAPTURE(Bad);
    CHECK(rt::maxPieceOf(Bad, &Valid) == GiB);
    CHECK(!Valid);
  }
}

TEST_CASE("dropin: a missing or bad machine file is one clear error") {
  Config C;
  llvm::Expected<std::unique_ptr<Engine>> None = Engine::create(C);
  REQUIRE(!None);
  CHECK(llvm::toString(None.takeError()) ==
        "COLLC_MACHINE is not set; expected the path of a machine spec or a "
        "SimGrid platform file");
  C.MachinePath = COLLC_SOURCE_DIR "/no/such/machine.yaml";
  llvm::Expected<std::unique_ptr<Engine>> Bad = Engine::create(C);
  REQUIRE(!Bad);
  std::string Msg = llvm::toString(Bad.takeError());
  CHECK(Msg.rfind("COLLC_MACHINE: ", 0) == 0);
  CHECK(Msg.find("machine.yaml") != std::string::npos);
  C.MachinePath = COLLC_SOURCE_DIR "/examples/platforms/cluster-256.xml";
  llvm::Expected<std::unique_ptr<Engine>> Platform = Engine::create(C);
  REQUIRE(Platform);
  CHECK((*Platform)->machine().Net.has_value());
}

TEST_CASE("dropin: a machine path that is not a regular file is refused "
          "at once") {
  llvm::SmallString<128> Dir;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("collc-machine", Dir));
  const std::string Fifo = (Dir + "/fifo").str();
  REQUIRE(::mkfifo(Fifo.c_str(), 0600) == 0);
  const std::pair<std::string, std::string> Cases[] = {
      {Fifo, "is a FIFO; expected a regular file"},
      {"/dev/zero", "is a character device; expected a regular file"},
      {std::string(Dir), "is a directory; expected a regular file"}};
  for (const auto &[Path, What] : Cases) {
    Config C;
    C.MachinePath = Path;
    // A FIFO without a writer would block a reader forever, /dev/zero never
    // end: the test finishing at all is half the check.
    llvm::Expected<std::unique_ptr<Engine>> E = Engine::create(C);
    REQUIRE(!E);
    CHECK(llvm::toString(E.takeError()) ==
          "COLLC_MACHINE: " + Path + ": error: " + What);
  }
  llvm::sys::fs::remove(Fifo);
  llvm::sys::fs::remove(Dir);
}

TEST_CASE("dropin: the cache file gives a later process the same tables") {
  llvm::SmallString<128> Dir;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("collc-dropin", Dir));
  Config C;
  C.CacheDir = std::string(Dir);
  std::vector<int64_t> Nodes = {3, 1, 4, 0, 5};
  Engine First(pcCluster(), C, 42);
  Key K = keyOf(rt::Allreduce, First.layout(Nodes), 0, 70000, false);
  const Entry &Built = First.get(K);
  REQUIRE(Built.Error.empty());
  CHECK(!Built.FromFile);

  Engine Later(pcCluster(), C, 42);
  K.Layout = Later.layout(Nodes);
  const Entry &Read = Later.get(K);
  REQUIRE(Read.Error.empty());
  CHECK(Read.FromFile);
  CHECK(Read.Algorithm == Built.Algorithm);
  CHECK(Read.Tables.RankOps == Built.Tables.RankOps);
  CHECK(Read.Tables.Ops.size() == Built.Tables.Ops.size());
  CHECK(Read.Tables.Segs.size() == Built.Tables.Segs.size());
  // The posting plan's waits travel too: the runtime reads them for every
  // operation.
  CHECK(Read.Tables.Waits == Built.Tables.Waits);
  const rt::Variant &A = Built.Variant, &B = Read.Variant;
  CHECK((A.Collective == B.Collective && A.Ranks == B.Ranks &&
         A.Root == B.Root && A.MinBytes == B.MinBytes &&
         A.MaxBytes == B.MaxBytes && A.NumChunks == B.NumChunks &&
         A.NeedsCommutative == B.NeedsCommutative &&
         A.ScratchBlocks == B.ScratchBlocks));
  CHECK(B.Ops == Read.Tables.Ops.data());
  CHECK(B.Waits == Read.Tables.Waits.data());

  // Another machine (digest) or another kind: not that file.
  Engine Other(pcCluster(), C, 43);
  K.Layout = Other.layout(Nodes);
  CHECK(!Other.get(K).FromFile);

  // A damaged file is ignored and replaced.
  std::error_code EC;
  llvm::sys::fs::directory_iterator It(Dir, EC);
  for (; !EC && It != llvm::sys::fs::directory_iterator(); It.increment(EC)) {
    llvm::raw_fd_ostream OS(It->path(), EC, llvm::sys::fs::OF_Append);
    OS << "x";
  }
  Engine Damaged(pcCluster(), C, 42);
  K.Layout = Damaged.layout(Nodes);
  CHECK(!Damaged.get(K).FromFile);
  Engine Again(pcCluster(), C, 42);
  K.Layout = Again.layout(Nodes);
  CHECK(Again.get(K).FromFile);
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("dropin: a rank builds only its part where the algorithm has a "
          "rank-part form, the whole schedule elsewhere") {
  for (const char *Named : {"bruck", "direct"}) {
    // direct: with ports for every rank's 10 messages its whole schedule
    // is one step, and a rank's part is derived.
    CAPTURE(Named);
    Config C;
    C.Algorithm[rt::Allgather] = Named;
    Machine M = pcCluster();
    M.Ports = 16;
    Engine E(M, C);
    Engine Whole(M, C);
    const int32_t L = E.layout({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    REQUIRE(Whole.layout({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) == L);
    const Key K = keyOf(rt::Allgather, L, 0, 100);
    const Entry &W = Whole.get(K);
    REQUIRE(W.Error.empty());
    CHECK(W.Rank == -1);
    for (int32_t R = 0; R < 11; ++R) {
      CAPTURE(R);
      const Entry &P = E.get(K, R);
      REQUIRE(P.Error.empty());
      CHECK(P.Rank == R);
      CHECK(P.Algorithm == Named);
      CHECK_FALSE(P.Auto);       // named by the configuration
      CHECK(&E.get(K, R) == &P); // built once
      // Its operations are the whole schedule's for that rank, and only those.
      const int64_t N = P.Tables.RankOps[R + 1] - P.Tables.RankOps[R];
      CHECK(N == W.Tables.RankOps[R + 1] - W.Tables.RankOps[R]);
      CHECK(int64_t(P.Tables.Ops.size()) == N);
      for (int64_t I = 0; I < N; ++I) {
        const rt::Op &A = P.Tables.Ops[P.Tables.RankOps[R] + I],
                     &B = W.Tables.Ops[W.Tables.RankOps[R] + I];
        CHECK(A.Step == B.Step);
        CHECK(A.Peer == B.Peer);
        CHECK(A.Flags == B.Flags);
        CHECK(A.NumSegs == B.NumSegs);
      }
      CHECK(P.Variant.MinBytes == W.Variant.MinBytes);
      CHECK(P.Variant.MaxBytes == W.Variant.MaxBytes);
      CHECK(P.Variant.NumChunks == W.Variant.NumChunks);
    }
  }
  Config C;
  C.Algorithm[rt::Allgather] = "direct";
  Engine E(pcCluster(), C);
  const int32_t L = E.layout({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  // One port: the direct allgather's steps follow it, built whole.
  const Entry &D = E.get(keyOf(rt::Allgather, L, 0, 100), 4);
  REQUIRE(D.Error.empty());
  CHECK(D.Algorithm == "direct");
  CHECK(D.Rank == -1);
  // A broadcast's algorithm (auto's choice) has no rank-part form: built
  // whole, once, for every rank.
  const Key B = keyOf(rt::Bcast, L, 3, 1000);
  const Entry &B0 = E.get(B, 0);
  REQUIRE(B0.Error.empty());
  CHECK(B0.Rank == -1);
  CHECK(B0.Auto);
  CHECK_FALSE(B0.Priced);
  CHECK(&E.get(B, 5) == &B0);
  CHECK(&E.get(B) == &B0);
}

TEST_CASE("dropin: from PricedChoiceRanks ranks auto chooses by price and "
          "every rank builds only its part of the verified whole") {
  // Linear-model tori of 600 and 2,500 ranks (neither a power of two):
  // auto's choice for an allreduce, a broadcast, an allgather and an
  // all-to-all is the priced one, the same for every rank, and each rank's
  // part is that rank's tables of the whole schedule of the chosen
  // algorithm (built, verified and lowered here as the compiler would).
  static_assert(600 >= PricedChoiceRanks, "the test needs a priced choice");
  for (const int32_t P : {600, 2500}) {
    CAPTURE(P);
    Machine M = test::linearTorus(P);
    Engine E(M, Config());
    std::vector<int64_t> Nodes(P);
    for (int32_t I = 0; I < P; ++I)
      Nodes[I] = I;
    const int32_t L = E.layout(Nodes);
    for (const std::pair<int, uint64_t> &Case :
         {std::pair<int, uint64_t>{rt::Allreduce, 1 << 20},
          {rt::Allreduce, 4},
          {rt::Bcast, 1 << 16},
          {rt::Allgather, 64},
          {rt::Alltoall, 8}}) {
      const int Coll = Case.first;
      const uint64_t Bytes = Case.second;
      // The all-to-all's whole schedule (P (P - 1) blocks) only at 600.
      if (Coll == rt::Alltoall && P > 1000)
        continue;
      const Key K = keyOf(Coll, L, Coll == rt::Bcast ? 7 : 0, Bytes);
      llvm::Expected<Request> Made = E.requestOf(K);
      REQUIRE(static_cast<bool>(Made));
      const Request &R = *Made;
      CAPTURE(collectiveName(R.Coll));
      CAPTURE(Bytes);
      const PricedChoice Pick = choosePricedPart(M, R);
      REQUIRE(Pick.Algorithm != nullptr);
      Request Named = R;
      Named.Algorithm = Pick.Algorithm;
      llvm::Expected<Schedule> S = compile(M, Named);
      REQUIRE(static_cast<bool>(S));
      llvm::Expected<MpiTables> Whole = lowerToTables(*S);
      REQUIRE(static_cast<bool>(Whole));
      for (int32_t Rk : {0, 1, 7, P / 2, PricedChoiceRanks - 1,
                         PricedChoiceRanks, 2047, 2048, P - 1}) {
        if (Rk >= P)
          continue;
        CAPTURE(Rk);
        const Entry &Part = E.get(K, Rk);
        REQUIRE(Part.Error.empty());
        CHECK(Part.Rank == Rk);
        CHECK(Part.Auto);
        CHECK(Part.Priced);
        CHECK(Part.Algorithm == Pick.Algorithm);
        CHECK(Part.Makespan == Pick.Price);
        const int64_t N = Part.Tables.RankOps[Rk + 1] - Part.Tables.RankOps[Rk];
        REQUIRE(N == Whole->RankOps[Rk + 1] - Whole->RankOps[Rk]);
        for (int64_t I = 0; I < N; ++I) {
          const rt::Op &A = Part.Tables.Ops[Part.Tables.RankOps[Rk] + I],
                       &B = Whole->Ops[Whole->RankOps[Rk] + I];
          CHECK(A.Step == B.Step);
          CHECK(A.Peer == B.Peer);
          CHECK(A.Flags == B.Flags);
          CHECK(A.NumSegs == B.NumSegs);
        }
      }
    }
  }
  Machine M = test::linearTorus(64);
  // Below the threshold auto still chooses from whole candidates.
  Engine Small(M, Config());
  std::vector<int64_t> Few(64);
  for (int32_t I = 0; I < 64; ++I)
    Few[I] = I;
  const Key K = keyOf(rt::Allreduce, Small.layout(Few), 0, 4);
  const Entry &X = Small.get(K, 3);
  REQUIRE(X.Error.empty());
  CHECK(X.Auto);
  CHECK_FALSE(X.Priced);
}
