// checkTables (backends/MpiTables.h): every algorithm's lowered tables pass
// it, on random rank counts, roots and sizes; and each way of damaging tables
// that once crashed, hung or misled the drop-in's runtime is caught.
#include "backends/MpiTables.h"

#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "readers/MachineSpec.h"
#include "tests/Requests.h"

#include "llvm/Support/Error.h"

#include <doctest/doctest.h>

#include <functional>
#include <random>

using namespace collc;

namespace {

Machine load(const char *Rel) {
  llvm::Expected<Machine> M =
      loadMachine(std::string(COLLC_SOURCE_DIR "/") + Rel);
  REQUIRE(M);
  return *M;
}

/// The fields of \p C among ranks 0..P-1, rooted at \p Root where the
/// collective has a root, of \p Bytes rounded down to whole int32 elements
/// for a reduction.
RequestFields fieldsFor(Collective C, int32_t P, int32_t Root, uint64_t Bytes,
                        const std::string &Algorithm, bool Commutative = true) {
  return test::fields(C, P, traits(C).rooted() ? Root : 0,
                      isReduction(C) ? Bytes - Bytes % 4 : Bytes, Algorithm,
                      Commutative);
}

std::string checkOf(const MpiTables &T, const Schedule &S) {
  llvm::Error E = checkTables(T, S.Coll, S.size(), S.Root, S.NumChunks);
  return E ? llvm::toString(std::move(E)) : "";
}

} // namespace

TEST_CASE("tables: every algorithm's tables pass the check on random shapes") {
  std::mt19937_64 Rng(20261126);
  const char *Machines[] = {"examples/machines/pc-cluster.yaml",
                            "examples/platforms/torus-4x4.xml",
                            "examples/machines/fat-tree-256-net.yaml"};
  int Checked = 0;
  for (const char *Path : Machines) {
    Machine M = load(Path);
    const int32_t MaxP =
        int32_t(std::min<int64_t>(M.Topo.Nodes > 0 ? M.Topo.Nodes : 16, 24));
    for (const AlgorithmInfo &A : algorithms())
      for (Collective C : A.Collectives)
        for (int Draw = 0; Draw < 2; ++Draw) {
          const int32_t P = int32_t(2 + Rng() % uint64_t(MaxP - 1));
          const int32_t Root = int32_t(Rng() % uint64_t(P));
          const uint64_t Bytes = uint64_t(4) << (Rng() % 18);
          if (C == Collective::Multicast)
            continue; // the drop-in serves no multicast
          // A request collc refuses (the algorithm does not apply here) is
          // none to lower.
          llvm::Expected<Request> R =
              makeRequest(fieldsFor(C, P, Root, Bytes, A.Name, Draw == 0), M);
          if (!R) {
            llvm::consumeError(R.takeError());
            continue;
          }
          llvm::Expected<Schedule> S = compile(M, *R);
          if (!S) {
            llvm::consumeError(S.takeError()); // refusals are tested elsewhere
            continue;
          }
          llvm::Expected<MpiTables> T = lowerToTables(*S);
          if (!T) {
            llvm::consumeError(T.takeError());
            continue;
          }
          CAPTURE(Path);
          CAPTURE(A.Name);
          CAPTURE(collectiveName(C));
          CAPTURE(P);
          CAPTURE(Root);
          CAPTURE(Bytes);
          CHECK(checkOf(*T, *S) == "");
          ++Checked;
        }
  }
  CHECK(Checked > 60);
}

TEST_CASE("tables: damaged tables are caught") {
  Machine M = load("examples/machines/pc-cluster.yaml");
  struct Base {
    Schedule S;
    MpiTables T;
  };
  auto baseOf = [&](Collective C, int32_t P, uint64_t Bytes,
                    const char *Algorithm) {
    llvm::Expected<Schedule> S =
        compile(M, test::made(M, fieldsFor(C, P, 1, Bytes, Algorithm)));
    REQUIRE(S);
    llvm::Expected<MpiTables> T = lowerToTables(*S);
    REQUIRE(T);
    REQUIRE(checkOf(*T, *S) == "");
    return Base{*S, *T};
  };
  // A broadcast, a gather relaying through scratch, a reduction.
  Base Bcast = baseOf(Collective::Bcast, 7, 5000, "binomial");
  Base Gather = baseOf(Collective::Gather, 9, 3000, "binomial");
  Base Reduce = baseOf(Collective::Allreduce, 6, 4000, "auto");

  auto expect = [](Base B, const std::function<void(MpiTables &)> &Damage,
                   const std::string &Why) {
    Damage(B.T);
    std::string Got = checkOf(B.T, B.S);
    CAPTURE(Got);
    CHECK(!Got.empty());
    CHECK(Got.find(Why) != std::string::npos);
  };
  auto firstOf = [](const MpiTables &T, bool Recv) -> size_t {
    for (size_t I = 0; I < T.Ops.size(); ++I)
      if (bool(T.Ops[I].Flags & rt::OpRecv) == Recv && T.Ops[I].NumSegs > 0)
        return I;
    FAIL("no such operation");
    return 0;
  };

  expect(
      Bcast, [](MpiTables &T) { T.Segs[0].Block = 1; },
      "of the receive buffer, which has 1 there");
  expect(
      Bcast, [](MpiTables &T) { T.Segs[0].NumBlocks = int64_t(1) << 40; },
      "which has 1 there");
  expect(
      Bcast, [](MpiTables &T) { T.Segs[0].ChunkHi = 1 << 30; },
      "addresses chunks");
  expect(
      Bcast,
      [&](MpiTables &T) { T.Ops[firstOf(T, true)].Flags |= rt::OpCombine; },
      "combines, which a bcast does not");
  expect(
      Bcast, [](MpiTables &T) { T.Segs[0].Buf = rt::AccBuf; },
      "of the accumulator, which has 0 there");
  expect(
      Bcast, [](MpiTables &T) { T.Segs[0].Buf = 9; }, "an unknown buffer");
  expect(
      Gather, [](MpiTables &T) { T.ScratchBlocks = int64_t(1) << 40; },
      "scratch blocks, where a gather of 9 ranks needs at most 9");
  expect(
      Gather,
      [&](MpiTables &T) {
        for (rt::Seg &G : T.Segs)
          if (G.Buf == rt::ScratchBuf)
            G.Block = (int64_t(1) << 62) - 1;
      },
      "of the scratch");
  expect(
      Gather,
      [&](MpiTables &T) {
        // A receive into the send buffer: a non-root's own block.
        rt::Op &O = T.Ops[firstOf(T, true)];
        T.Segs[size_t(O.Seg)].Buf = rt::SendBuf;
      },
      "send buffer");
  expect(
      Bcast,
      [&](MpiTables &T) {
        rt::Op &O = T.Ops[firstOf(T, false)];
        O.Peer = (O.Peer + 1) % 7 == 0 ? 2 : (O.Peer + 1) % 7;
      },
      "the tables fail a check");
  expect(
      Bcast,
      [&](MpiTables &T) {
        // A rank sending to itself: the root's first send.
        const size_t I = firstOf(T, false);
        int32_t R = 0;
        while (T.RankOps[size_t(R) + 1] <= int64_t(I))
          ++R;
        T.Ops[I].Peer = R;
      },
      "has peer 1 (expected another rank of 7)");
  expect(
      Bcast,
      [&](MpiTables &T) { T.Ops[firstOf(T, false)].Flags |= rt::OpRecv; },
      "5 sends and 7 receives");
  expect(
      Bcast,
      [&](MpiTables &T) {
        // Zero-byte messages: a send and its receive that carry nothing.
        for (rt::Op &O : T.Ops)
          O.NumSegs = 0;
      },
      "a message carries no data");
  expect(
      Reduce,
      [&](MpiTables &T) {
        // A wait cycle: two operations of rank 0 waiting for each other.
        const int32_t W0 = int32_t(T.Waits.size());
        T.Waits.insert(T.Waits.end(), {-1, 1, 0, 1});
        const int32_t W1 = int32_t(T.Waits.size());
        T.Waits.insert(T.Waits.end(), {-1, 1, 0, 0});
        // Keep the staging each had: cycles are what is tested.
        T.Waits[size_t(W0)] = T.Waits[size_t(T.Ops[0].Wait)];
        T.Waits[size_t(W1)] = T.Waits[size_t(T.Ops[1].Wait)];
        T.Ops[0].Wait = W0;
        T.Ops[1].Wait = W1;
      },
      "would wait forever");
  expect(
      Reduce,
      [&](MpiTables &T) {
        const int32_t W = int32_t(T.Waits.size());
        T.Waits.insert(T.Waits.end(), {-1, 1, 0, 0});
        T.Waits[size_t(W)] = T.Waits[size_t(T.Ops[0].Wait)];
        T.Ops[0].Wait = W;
      },
      "waits for operation 0 (expected another");
  expect(
      Reduce,
      [&](MpiTables &T) {
        const int32_t W = int32_t(T.Waits.size());
        T.Waits.insert(T.Waits.end(), {int32_t(1) << 30, 0, 0});
        T.Ops[size_t(firstOf(T, true))].Wait = W;
      },
      "chunk units where its staged operations move");
  expect(
      Reduce,
      [&](MpiTables &T) {
        const int32_t W = int32_t(T.Waits.size());
        T.Waits.insert(T.Waits.end(), {-1, 0, 0});
        T.Ops[size_t(firstOf(T, true))].Wait = W;
      },
      "a reduction receive and not staged");
  expect(
      Reduce, [](MpiTables &T) { T.RankOps.pop_back(); },
      "not laid out in order");
  expect(
      Reduce, [](MpiTables &T) { T.Ops[0].Wait = 1 << 30; },
      "has no wait record");
}

TEST_CASE("tables: another root's or a shorter schedule's tables fail the "
          "check for this call") {
  Machine M = load("examples/machines/pc-cluster.yaml");
  llvm::Expected<Schedule> S = compile(
      M, test::made(M, fieldsFor(Collective::Scatter, 6, 2, 800, "binomial")));
  REQUIRE(S);
  llvm::Expected<MpiTables> T = lowerToTables(*S);
  REQUIRE(T);
  // Root 2's tables read root 2's send buffer: as root 4's they address a
  // send buffer rank 2 does not have.
  llvm::Error Other =
      checkTables(*T, Collective::Scatter, S->size(), 4, S->NumChunks);
  REQUIRE(static_cast<bool>(Other));
  CHECK(llvm::toString(std::move(Other)).find("send buffer") !=
        std::string::npos);
  // The tables of 6 ranks are not those of 5.
  llvm::Error Fewer = checkTables(*T, Collective::Scatter, 5, 2, S->NumChunks);
  REQUIRE(static_cast<bool>(Fewer));
  llvm::consumeError(std::move(Fewer));
}
