// The allgather on a grid of three dimensions (`grid-direct-3d`, SMPI's
// 3dmesh for any P = a x b x c): the shapes it tries are exactly factorings
// of P (none for primes and products of two primes, which it refuses); for
// drawn rank counts and placements it builds and verifies, every rank
// sending a + b + c - 3 messages; and on the platform of a fresh random draw
// where SMPI's 3dmesh beat auto's grid-direct by 1.19x, auto takes it.
#include "algorithms/GridDirect3.h"
#include "compiler/Driver.h"
#include "ir/Random.h"
#include "tests/Examples.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace collc;

namespace {

/// Whether \p P is a product of three factors of at least 2 (by trying
/// every pair of them).
bool hasThreeFactors(int32_t P) {
  for (int32_t A = 2; A <= P; ++A)
    for (int32_t B = 2; int64_t(A) * B <= P; ++B)
      if (P % (int64_t(A) * B) == 0 && P / (A * B) >= 2)
        return true;
  return false;
}

} // namespace

TEST_CASE("grid-direct-3d: its shapes are the factorings of P into three, in "
          "every order") {
  for (int32_t P = 1; P <= 300; ++P) {
    CAPTURE(P);
    const auto Shapes = grid3Shapes(P);
    CHECK(Shapes.empty() == !hasThreeFactors(P));
    CHECK(Shapes.size() <= 18);
    std::set<std::array<int32_t, 3>> Seen;
    for (const auto &S : Shapes) {
      CHECK(int64_t(S[0]) * S[1] * S[2] == P);
      CHECK(std::min({S[0], S[1], S[2]}) >= 2);
      CHECK(Seen.insert(S).second);
    }
    // Every order of each shape is tried.
    for (std::array<int32_t, 3> S : Shapes) {
      std::sort(S.begin(), S.end());
      do
        CHECK(Seen.count(S) == 1);
      while (std::next_permutation(S.begin(), S.end()));
    }
  }
}

TEST_CASE("grid-direct-3d: every rank count with three factors and every "
          "placement builds and verifies; primes are refused") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  Rng G(3303);
  std::vector<int32_t> Ps;
  for (int32_t P : test::drawnRankCounts({8, 12, 27, 45, 60, 64}, 7717, 20))
    if (hasThreeFactors(P))
      Ps.push_back(P);
  REQUIRE(Ps.size() >= 6);
  for (int32_t P : Ps)
    for (int PerNode : {1, 3, 0}) {
      Request R = test::request(Net, Collective::Allgather, P, 0, 1000,
                                "grid-direct-3d");
      test::placeOnNodes(R, PerNode ? PerNode : 3, PerNode == 0, G);
      CAPTURE(P);
      CAPTURE(PerNode);
      auto S = compile(Net, R);
      REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
      CHECK(S->Algorithm == "grid-direct-3d");
      // Three steps (one a dimension), each rank sending a + b + c - 3
      // messages of one of the shapes tried.
      CHECK(S->Steps.size() == 3);
      std::vector<int64_t> Sent(size_t(P), 0);
      for (const Step &St : S->Steps)
        for (const Transfer &T : St.Transfers)
          ++Sent[size_t(T.Src)];
      bool OfAShape = false;
      for (const auto &Sh : grid3Shapes(P))
        OfAShape |= Sent[0] == Sh[0] + Sh[1] + Sh[2] - 3;
      CHECK(OfAShape);
      CHECK(std::count(Sent.begin(), Sent.end(), Sent[0]) == P);
    }
  for (int32_t P : {2, 7, 13, 22, 49}) {
    CAPTURE(P);
    Request R = test::request(Net, Collective::Allgather, P, 0, 1000, "direct");
    R.Algorithm = "grid-direct-3d";
    auto S = compile(Net, R);
    REQUIRE_FALSE(static_cast<bool>(S));
    CHECK(llvm::toString(S.takeError()).find("a x b x c") != std::string::npos);
  }
}

TEST_CASE("grid-direct-3d: auto takes it where the evaluator times it fastest "
          "(a platform of a fresh draw where SMPI's 3dmesh beat auto's "
          "grid-direct)") {
  // Seed 20261127's ninth platform: a 3x3x5 torus, one rank a host; 1 KiB
  // blocks (SMPI: 3dmesh 16.4 µs, collc's grid-direct 19.5).
  int32_t P = 0;
  const Machine M = test::drawnPlatform(20261127, 24, 64, 8, P);
  REQUIRE(P == 45);
  test::autoTakes(M, test::arenaRequest(M, Collective::Allgather, 1024, "auto"),
                  "grid-direct-3d", {"grid-direct", "direct"});
}
