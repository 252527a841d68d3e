// Every algorithm of the registry, for every collective it serves, on every
// bundled machine with 1 to 4 ports: what applies builds, costs and passes
// the verifier (timing included), and `auto` succeeds.
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "passes/Verify.h"
#include "readers/Spec.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

using namespace collc;

namespace {

const char *const Machines[] = {
    "pc-cluster",      "sp2",         "ibm-sp", "t3e",    "mesh-6x6",
    "mesh16-wormhole", "torus-16x16", "min64",  "star-4", "macro-star-2-2"};

Machine machine(const std::string &Name) {
  auto M = loadMachine(std::string(COLLC_SOURCE_DIR) + "/examples/machines/" +
                       Name + ".yaml");
  REQUIRE(M);
  return *M;
}

bool hasRoot(Collective C) {
  return C == Collective::Bcast || C == Collective::Multicast ||
         C == Collective::Reduce || C == Collective::Gather ||
         C == Collective::Scatter;
}

} // namespace

TEST_CASE("ports: every algorithm verifies with 1 to 4 ports") {
  size_t Checked = 0;
  for (const char *Name : Machines) {
    Machine M = machine(Name);
    const int64_t Nodes = M.Topo.Nodes ? M.Topo.Nodes : 64;
    for (unsigned Ports = 1; Ports <= 4; ++Ports) {
      M.Ports = Ports;
      for (int32_t P : {2, 3, 5, 8}) {
        if (P > Nodes)
          continue;
        for (Collective C : allCollectives()) {
          if (C == Collective::Multicast)
            continue; // a broadcast to a destination list: bcast covers it
          for (int32_t Root : {0, P - 1}) {
            if (Root && !hasRoot(C))
              continue;
            for (uint64_t Size : {64u, 4096u}) {
              // A reduce-scatter's size is the whole vector: a block a rank.
              const uint64_t Bytes =
                  C == Collective::ReduceScatter ? Size * P : Size;
              bool AnyBuilds = false;
              const auto Candidates =
                  autoCandidates(M, test::request(C, P, Root, Bytes, "auto"));
              for (const AlgorithmInfo &A : algorithms()) {
                if (!A.supports(C))
                  continue;
                Request R = test::request(C, P, Root, Bytes, A.Name);
                std::string Why;
                if (!A.applies(M, R, Why))
                  continue;
                auto S = compile(M, R);
                std::string Err = S ? "" : llvm::toString(S.takeError());
                const std::string MachineName = Name, Coll = collectiveName(C),
                                  Alg = A.Name;
                CAPTURE(MachineName);
                CAPTURE(Ports);
                CAPTURE(P);
                CAPTURE(Coll);
                CAPTURE(Root);
                CAPTURE(Bytes);
                CAPTURE(Alg);
                // A builder may refuse a size it cannot serve, but never
                // produce a schedule that fails verification.
                CHECK(Err.find("fails verification") == std::string::npos);
                AnyBuilds |= Err.empty() && std::count(Candidates.begin(),
                                                       Candidates.end(), &A);
                ++Checked;
              }
              // auto finds a schedule whenever one of its candidates does.
              auto S = compile(M, test::request(C, P, Root, Bytes, "auto"));
              std::string Err = S ? "" : llvm::toString(S.takeError());
              CAPTURE(Err);
              CHECK(bool(S) == AnyBuilds);
            }
          }
        }
      }
    }
  }
  CHECK(Checked > 1000);
}
