// Every algorithm of every collective at random rank counts up to 5,000
// (issue 26): each registry entry is built for a few drawn P on a torus of
// the linear model (a fully connected machine where the torus is refused) and
// verified (data flow and ports). What may be refused is said here once,
// with why: the star-graph builders (their graphs fix P), the allgathers
// for an even P or a power of two (neighbor-exchange, farthest-doubling)
// and, above 1,024 ranks, the algorithms of about P^2 transfers that refuse
// it; the all-to-alls and the allgathers of about P^2 transfers or pieces
// are drawn up to 1,024 ranks. The default suite draws one P per entry up
// to 300; the long test draws three up to 5,000.
#include "algorithms/Registry.h"
#include "ir/Random.h"
#include "passes/Verify.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

using namespace collc;

namespace {

/// A fully connected machine of \p P nodes with the linear model of
/// test::linearTorus.
Machine linearFull(int32_t P) {
  Machine M = test::linearTorus(P);
  M.Topo.Kind = TopologyKind::Full;
  M.Topo.Dims.clear();
  M.Topo.Nodes = P;
  return M;
}

/// The request of \p C on \p P ranks: 64 KiB for the rooted and reducing
/// collectives (whole int32 elements, P blocks of them for reduce-scatter),
/// 16 bytes a block for the others; a multicast goes from a drawn root to
/// P - 1 drawn nodes of a torus of about 2P nodes.
Request drawRequest(Collective C, int32_t P, const Machine &M, Rng &G,
                    const char *Name) {
  const int32_t Root = int32_t(G.uniform(0, P - 1));
  uint64_t Bytes = 16;
  switch (C) {
  case Collective::Bcast:
  case Collective::Multicast:
  case Collective::Reduce:
  case Collective::Allreduce:
  case Collective::Scan:
  case Collective::Exscan:
    Bytes = 65536;
    break;
  case Collective::ReduceScatter:
    Bytes = 8 * uint64_t(P);
    break;
  default:
    break;
  }
  Request R = test::request(C, P, isRooted(C) ? Root : 0, Bytes, Name);
  if (C == Collective::Multicast) {
    std::vector<int64_t> Nodes(size_t(M.Topo.Nodes));
    std::iota(Nodes.begin(), Nodes.end(), 0);
    for (size_t I = Nodes.size() - 1; I > 0; --I)
      std::swap(Nodes[I], Nodes[size_t(G.uniform(0, int64_t(I)))]);
    Nodes.resize(size_t(P));
    R.Nodes = Nodes;
    R.Root = 0;
  }
  return R;
}

/// A square torus of side \p N with the linear model (the torus all-to-alls
/// need all its nodes).
Machine linearSquareTorus(int64_t N) {
  Machine M = test::linearTorus(2);
  M.Topo.Dims = {N, N};
  M.Topo.Nodes = N * N;
  return M;
}

/// Whether \p A may be refused at \p P with \p Why: the star-graph builders
/// (their graphs fix P), the allgathers for an even P or a power of two
/// and, beyond 1,024 ranks, what lists about P^2 transfers (over
/// MaxTransfers, or MaxCopyTransfers for plain copies).
bool excused(const AlgorithmInfo &A, int32_t P, const std::string &Why) {
  if (A.OnStarGraphs && std::string(A.Name) != "greedy")
    return true;
  // packing routes every ordered pair of nodes and grows its trees in up to
  // O(N^3): it refuses above 512 nodes in use (algorithms/Packing.cpp), a
  // limit of its own that the README's scale section lists.
  if (P > 512 && std::string(A.Name) == "packing" &&
      Why.find("at most 512 nodes in use") != std::string::npos)
    return true;
  // The library allgathers whose pattern fixes P: neighbor exchange pairs
  // the ranks (an even P), farthest-first doubling halves them (a power of
  // two); the square tori tried last may not give them one either.
  if ((std::string(A.Name) == "neighbor-exchange" &&
       Why.find("needs an even number of ranks") != std::string::npos) ||
      (std::string(A.Name) == "farthest-doubling" &&
       Why.find("needs a power-of-two number of ranks") != std::string::npos))
    return true;
  if (P <= 1024)
    return false;
  return Why.find("a schedule may hold") != std::string::npos;
}

/// Whether \p A lists about P^2 transfers or blocks for \p C and builds
/// them at any P (the all-to-alls; the allgathers whose ranks each send P - 1
/// messages, or P / 2 of two blocks, or whose pieces add up to about P^2 as
/// farthest-doubling's strided blocks; the reductions whose ranks each fold
/// P - 1 blocks, named up to 4,096 ranks, the ring allreduce among them):
/// at 4,096 ranks they take minutes
/// and gigabytes
/// (bench/scale_algorithms.sh), so they are drawn up to 1,024 ranks.
bool quadratic(const AlgorithmInfo &A, Collective C) {
  const std::string Name = A.Name;
  return C == Collective::Alltoall ||
         (C == Collective::Allgather &&
          (Name == "ring" || Name == "direct" || Name == "node-direct" ||
           Name == "grid-direct" || Name == "node-ring" ||
           Name == "neighbor-exchange" || Name == "farthest-doubling")) ||
         (C == Collective::ReduceScatter &&
          (Name == "ring" || Name == "direct")) ||
         (C == Collective::Allreduce && Name == "ring") ||
         Name == "reduce-scatter-direct";
}

/// Builds every registry entry at \p Draws rank counts drawn up to \p MaxP
/// from \p Seed (the quadratic ones up to 1,024) and verifies each. Returns
/// how many were verified.
int checkEveryAlgorithm(uint64_t Seed, int Draws, int32_t MaxP) {
  Rng G(Seed);
  int Verified = 0;
  for (const AlgorithmInfo &A : algorithms()) {
    for (Collective C : A.Collectives) {
      CAPTURE(A.Name);
      CAPTURE(collectiveName(C));
      for (int D = 0; D < Draws; ++D) {
        const int32_t Drawn = int32_t(
            G.uniform(2, quadratic(A, C) ? std::min(MaxP, 1024) : MaxP));
        CAPTURE(Drawn);
        // The torus first (its own builders need it), then a fully
        // connected machine, then square tori of N^2 <= P ranks (N a
        // multiple of 4 last) for the torus all-to-alls.
        const int32_t Scale = C == Collective::Multicast ? 2 : 1;
        const int64_t N =
            std::max<int64_t>(2, int64_t(std::sqrt(double(Drawn))));
        std::vector<std::pair<Machine, int32_t>> Tries = {
            {test::linearTorus(Scale * Drawn), Drawn},
            {linearFull(Scale * Drawn), Drawn},
            {linearSquareTorus(N), int32_t(N * N)}};
        if (N > 4 && N % 4)
          Tries.push_back({linearSquareTorus(N - N % 4),
                           int32_t((N - N % 4) * (N - N % 4))});
        std::string Why;
        bool Built = false;
        for (const auto &Try : Tries) {
          const Machine &M = Try.first;
          const int32_t P = Try.second;
          Request R = drawRequest(C, P, M, G, A.Name);
          std::string Reason;
          if (!A.applies(M, R, Reason)) {
            Why += (Why.empty() ? "" : "; ") + Reason;
            continue;
          }
          CAPTURE(P);
          CAPTURE(R.Root);
          llvm::Expected<Schedule> S = A.Build(M, R);
          if (!S) {
            Why = llvm::toString(S.takeError());
            break;
          }
          VerifyOptions O;
          O.Timing = false;
          if (llvm::Error E = verify(*S, M, O))
            FAIL_CHECK(llvm::toString(std::move(E)));
          else
            ++Verified;
          Built = true;
          break;
        }
        if (!Built && !excused(A, Drawn, Why))
          FAIL_CHECK("refused: " << Why);
      }
    }
  }
  return Verified;
}

} // namespace

TEST_CASE("scale: every algorithm builds and verifies at a random rank count "
          "up to 300") {
  CHECK(checkEveryAlgorithm(0x26a11, 1, 300) > 40);
}

TEST_CASE("scale: every algorithm builds and verifies at random rank counts "
          "up to 5000" *
          doctest::skip()) {
  CHECK(checkEveryAlgorithm(0x26a115, 3, 5000) > 120);
}
