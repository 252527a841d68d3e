// The dense block-exact tracker (passes/BlockFlow) against the verifier's
// per-rank path: same verdicts and messages on correct and broken
// all-to-all schedules.
#include "compiler/Driver.h"
#include "passes/Verify.h"

#include <doctest/doctest.h>

#include <numeric>

using namespace collc;

namespace {

using BS = VerifyOptions::BlockState;

std::vector<std::string> check(const Schedule &S, const Machine &M, BS Mode,
                               bool Timing = true) {
  VerifyOptions O;
  O.AlltoallBlocks = Mode;
  O.Timing = Timing;
  return verifySchedule(S, M, O);
}

Schedule sem4x4(Machine &M) {
  M.Name = "torus";
  M.M.Kind = ModelKind::Wormhole;
  M.M.Worm = {5, 0.001, 0.0001, 5, 0.001, 1};
  M.Topo.Kind = TopologyKind::Torus;
  M.Topo.Dims = {4, 4};
  M.Topo.Nodes = 16;
  Request R;
  R.Coll = Collective::Alltoall;
  R.Nodes.resize(16);
  std::iota(R.Nodes.begin(), R.Nodes.end(), 0);
  R.Bytes = 8;
  R.Algorithm = "sem";
  auto S = compile(M, R);
  REQUIRE(S);
  return std::move(*S);
}

Transfer blocks(int32_t Src, int32_t Dst, std::vector<Piece> Ps,
                uint64_t Block = 1) {
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  for (const Piece &P : Ps)
    T.Bytes += P.atoms() * Block;
  T.Pieces.assign(Ps.begin(), Ps.end());
  return T;
}

Piece block(int64_t A, int64_t B) { return {{A, A + 1}, {B, B + 1}, {0, 1}}; }

} // namespace

TEST_CASE("BlockFlow: a correct schedule passes both ways") {
  Machine M;
  Schedule S = sem4x4(M);
  CHECK(check(S, M, BS::PerRank).empty());
  CHECK(check(S, M, BS::Dense).empty());
}

TEST_CASE("BlockFlow: a missing delivery is reported like the per-rank path") {
  Machine M;
  Schedule S = sem4x4(M);
  S.Steps.back().Transfers.pop_back();
  auto A = check(S, M, BS::PerRank), B = check(S, M, BS::Dense);
  REQUIRE(!A.empty());
  CHECK(A == B);
}

TEST_CASE("BlockFlow: sending a block not yet held, and a late start") {
  Machine M;
  Schedule S = sem4x4(M);
  // Stage 3's first transfer moved ahead of the stage that feeds it.
  Transfer T = S.Steps.back().Transfers.front();
  S.Steps.back().Transfers.erase(S.Steps.back().Transfers.begin());
  S.Steps.front().Transfers.push_back(T);
  auto A = check(S, M, BS::PerRank, false), B = check(S, M, BS::Dense, false);
  auto Held = [](const std::vector<std::string> &V) {
    for (const std::string &X : V)
      if (X.find("before it holds it") != std::string::npos)
        return X;
    return std::string();
  };
  CHECK(!Held(A).empty());
  CHECK(Held(A) == Held(B));
  // A start before the data arrived.
  Schedule S2 = sem4x4(M);
  S2.Steps.back().Transfers.front().Start = 0;
  auto C = check(S2, M, BS::PerRank), D = check(S2, M, BS::Dense);
  REQUIRE(!C.empty());
  CHECK(C.front().find("arrived") != std::string::npos);
  CHECK(C.front() == D.front());
}

TEST_CASE("BlockFlow: a block received twice") {
  Machine M;
  Schedule S = sem4x4(M);
  // Re-send stage 3's first delivery in one more step.
  Step Extra;
  Extra.Transfers.push_back(S.Steps.back().Transfers.front());
  S.Steps.push_back(Extra);
  auto A = check(S, M, BS::PerRank, false), B = check(S, M, BS::Dense, false);
  REQUIRE(!A.empty());
  REQUIRE(!B.empty());
  CHECK(B.front().find("a second time") != std::string::npos);
  // Same transfer named; the atom may be another of the repeated ones.
  CHECK(A.front().substr(0, A.front().find(':')) ==
        B.front().substr(0, B.front().find(':')));
}

TEST_CASE("BlockFlow: forwarding a block passed on before stays legal") {
  // 4 ranks on a crossbar: 0 -> 1 -> 2 carries M[0][2]; rank 1 then copies
  // it once more to rank 3 (not the chain's last holder any more); every
  // other block goes directly.
  Machine M;
  M.Name = "x";
  M.M.Kind = ModelKind::UnitCall;
  M.Topo.Kind = TopologyKind::Full;
  Schedule S;
  S.Coll = Collective::Alltoall;
  S.Algorithm = "hand";
  S.Bytes = 1;
  S.Participants.resize(4);
  for (int I = 0; I < 4; ++I)
    S.Participants[I].Node = I;
  S.Steps.resize(3);
  S.Steps[0].Transfers.push_back(blocks(0, 1, {block(0, 1), block(0, 2)}));
  S.Steps[1].Transfers.push_back(blocks(1, 2, {block(0, 2)}));
  S.Steps[2].Transfers.push_back(blocks(1, 3, {block(0, 2)}));
  for (int32_t A = 0; A < 4; ++A)
    for (int32_t B = 0; B < 4; ++B)
      if (A != B && !(A == 0 && (B == 1 || B == 2))) {
        Step St;
        St.Transfers.push_back(blocks(A, B, {block(A, B)}));
        S.Steps.push_back(St);
      }
  CHECK(check(S, M, BS::PerRank, false).empty());
  CHECK(check(S, M, BS::Dense, false).empty());
  // And rank 3, which never held M[0][1], cannot forward it.
  S.Steps[2].Transfers.push_back(blocks(3, 2, {block(0, 1)}));
  auto A = check(S, M, BS::PerRank, false), B = check(S, M, BS::Dense, false);
  REQUIRE(!A.empty());
  CHECK(A == B);
}
