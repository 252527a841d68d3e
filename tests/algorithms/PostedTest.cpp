// Schedules posted as the MPI libraries post them (algorithms/Posted.h):
// `knomial-fanout` (MVAPICH2's k-nomial tree, each rank sending to the
// k - 1 children of a digit at once), `lockstep-scatter-allgather` (SMPI's
// scatter_LR_allgather: scatter-allgather as a loop of sendrecv) and
// `lockstep-reduce-scatter-allgather` (SMPI's rab_rdb). For rank counts
// drawn from 2..70 (primes among them), roots and placements, all build and
// verify; a fan-out's step holds one digit's sends of a rank; and on the
// drawn platforms where SMPI's mvapich2_knomial_intra_node and
// scatter_LR_allgather beat auto's 1 MiB broadcast, and rab_rdb its 64 KiB
// allreduce, auto takes them, faster than what it took before.
#include "algorithms/Posted.h"
#include "algorithms/LibraryBcast.h"
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "ir/Random.h"
#include "tests/Examples.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>
#include <utility>

using namespace collc;

TEST_CASE("knomial-fanout, lockstep-scatter-allgather and "
          "lockstep-reduce-scatter-allgather: every rank count, root and "
          "placement builds and verifies") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  Rng G(7331);
  size_t Built = 0;
  const std::vector<int32_t> Ps =
      test::drawnRankCounts({2, 3, 17, 30, 41, 63, 67}, 8807, 12);
  const std::pair<const char *, Collective> Cases[] = {
      {"knomial-fanout", Collective::Bcast},
      {"lockstep-scatter-allgather", Collective::Bcast},
      {"lockstep-reduce-scatter-allgather", Collective::Reduce},
      {"lockstep-reduce-scatter-allgather", Collective::Allreduce}};
  for (const auto &Case : Cases)
    for (int32_t P : Ps)
      for (int PerNode : {1, 3, 0}) {
        const char *Alg = Case.first;
        const Collective C = Case.second;
        const int32_t Root = C == Collective::Allreduce
                                 ? 0
                                 : static_cast<int32_t>(G.uniform(0, P - 1));
        Request R = test::request(Net, C, P, Root, 100000, Alg);
        test::placeOnNodes(R, PerNode ? PerNode : 3, PerNode == 0, G);
        CAPTURE(Alg);
        CAPTURE(static_cast<int>(C));
        CAPTURE(P);
        CAPTURE(Root);
        CAPTURE(PerNode);
        auto S = compile(Net, R);
        REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
        CHECK(S->Algorithm == Alg);
        CHECK(S->Lockstep == (std::string(Alg) != "knomial-fanout"));
        ++Built;
      }
  CHECK(Built == 4 * Ps.size() * 3);
}

TEST_CASE("knomial-fanout: each rank's step sends to the children of one "
          "digit of the k-nomial tree, all of them, and nothing else") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  for (int32_t P : {5, 16, 30, 61})
    for (int64_t K : {2, 3, 4, 7}) {
      Request R =
          test::request(Net, Collective::Bcast, P, 0, 4096, "knomial-fanout");
      auto S = buildKnomialFanoutRadix(Net, R, K);
      REQUIRE(static_cast<bool>(S));
      CAPTURE(P);
      CAPTURE(K);
      // (sender, step) -> receivers, in the ranks' node order (one rank a
      // node here: the ranks themselves).
      std::map<std::pair<int64_t, size_t>, std::vector<int64_t>> Sent;
      size_t Transfers = 0;
      for (size_t St = 0; St < S->Steps.size(); ++St)
        for (const Transfer &T : S->Steps[St].Transfers) {
          Sent[{T.Src, St}].push_back(T.Dst);
          ++Transfers;
        }
      CHECK(Transfers == size_t(P - 1));
      // A rank's steps, in order, give its children digit by digit from
      // the highest (knomialChildren's order).
      std::map<int64_t, std::vector<std::vector<int64_t>>> Digits;
      for (auto &[Key, To] : Sent)
        Digits[Key.first].push_back(To);
      for (int64_t I = 0; I < P; ++I) {
        const std::vector<int64_t> Kids = knomialChildren(I, K, P);
        std::vector<int64_t> Flat;
        for (const std::vector<int64_t> &D : Digits[I]) {
          CHECK(D.size() <= size_t(K - 1));
          // One digit: the offsets share the highest power of K dividing
          // them.
          std::set<int64_t> Pows;
          for (int64_t C : D) {
            int64_t Pow = 1;
            while ((C - I) % (Pow * K) == 0)
              Pow *= K;
            Pows.insert(Pow);
          }
          CHECK(Pows.size() == 1);
          Flat.insert(Flat.end(), D.begin(), D.end());
        }
        CHECK(Flat == Kids);
      }
    }
}

TEST_CASE("knomial-fanout and lockstep-scatter-allgather: auto takes them "
          "on the drawn fat trees where SMPI's MVAPICH2 k-nomial and "
          "scatter_LR_allgather beat auto's 1 MiB broadcast") {
  int32_t P = 0;
  // Seed 751201558's 17th platform: a 3-level fat tree, 30 hosts, one rank
  // each. auto took binomial (SMPI 662.7 us; mvapich2_knomial_intra_node
  // 619.5).
  const Machine Tree3 = test::arenaPlatform(17, P);
  REQUIRE(P == 30);
  test::autoTakes(Tree3,
                  test::arenaRequest(Tree3, Collective::Bcast, 1 << 20, "auto"),
                  "knomial-fanout", {"binomial", "knomial"});
  // Seed 20261127's third platform: a 2-level fat tree, 63 hosts. auto took
  // pipeline (SMPI 1182.2 us; scatter_LR_allgather 1110.7).
  const Machine Tree2 = test::drawnPlatform(20261127, 24, 64, 2, P);
  REQUIRE(P == 63);
  test::autoTakes(
      Tree2, test::arenaRequest(Tree2, Collective::Bcast, 1 << 20, "auto"),
      "lockstep-scatter-allgather", {"pipeline", "scatter-allgather"});
}

TEST_CASE("lockstep-reduce-scatter-allgather: auto takes it on the drawn "
          "flat cluster where SMPI's rab_rdb beat auto's 64 KiB allreduce") {
  // Seed 20261127's fifth platform: a flat cluster of 51 hosts, one rank
  // each. auto took reduce-scatter-direct (SMPI 187.7 us; rab_rdb 179.3).
  int32_t P = 0;
  const Machine M = test::drawnPlatform(20261127, 24, 64, 4, P);
  REQUIRE(P == 51);
  test::autoTakes(M,
                  test::arenaRequest(M, Collective::Allreduce, 65536, "auto"),
                  "lockstep-reduce-scatter-allgather",
                  {"reduce-scatter-direct", "reduce-scatter-allgather"});
}
