// The one-shot algorithms (issue 27): `direct` broadcast, gather, scatter,
// all-to-all, allgather, reduce and allreduce, `reduce-scatter-direct`, and
// the allgathers in groups, `grid-direct` and `node-direct`.
// For rank counts drawn at random from 2..70 (and the odd and prime counts
// among them), every root, commutative and not, each builds and verifies on a
// model machine (one port: the messages one at a time) and on a machine with
// a network (every message of a step at once: one step); the network
// evaluator shares a rank's link among its messages; a step's receives are
// posted together; auto takes them where they are the cheapest.
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "ir/Random.h"
#include "passes/Posting.h"
#include "passes/Verify.h"
#include "tests/Examples.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

using namespace collc;

namespace {

struct Case {
  Collective Coll;
  const char *Alg;
};
const Case Cases[] = {
    {Collective::Bcast, "direct"},
    {Collective::Gather, "direct"},
    {Collective::Scatter, "direct"},
    {Collective::Alltoall, "direct"},
    {Collective::Allgather, "direct"},
    {Collective::Allgather, "grid-direct"},
    {Collective::Reduce, "direct"},
    {Collective::Allreduce, "direct"},
    {Collective::Reduce, "reduce-scatter-direct"},
    {Collective::Allreduce, "reduce-scatter-direct"},
};

/// The most messages one rank sends, and receives, in one step of \p S.
std::pair<size_t, size_t> mostPerStep(const Schedule &S) {
  size_t Sends = 0, Recvs = 0;
  for (const Step &St : S.Steps) {
    std::vector<size_t> Out(S.size(), 0), In(S.size(), 0);
    for (const Transfer &T : St.Transfers) {
      Sends = std::max(Sends, ++Out[T.Src]);
      Recvs = std::max(Recvs, ++In[T.Dst]);
    }
  }
  return {Sends, Recvs};
}

/// Rank counts: 2, 3, the primes 31 and 67, 70, and six drawn from 2..70.
std::vector<int32_t> rankCounts() {
  std::set<int32_t> Ps{2, 3, 31, 67, 70};
  Rng G(2027);
  while (Ps.size() < 11)
    Ps.insert(static_cast<int32_t>(G.uniform(2, 70)));
  return {Ps.begin(), Ps.end()};
}

} // namespace

TEST_CASE("direct: every algorithm, rank count and root builds and verifies, "
          "at once on a network and one port at a time on a model") {
  const Machine Model = test::exampleMachine("pc-cluster.yaml");
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  REQUIRE(Net.Net);
  REQUIRE_FALSE(Model.Net);
  size_t Built = 0;
  for (int32_t P : rankCounts())
    for (const Case &C : Cases) {
      const bool Rooted =
          C.Coll == Collective::Bcast || C.Coll == Collective::Gather ||
          C.Coll == Collective::Scatter || C.Coll == Collective::Reduce;
      for (int32_t Root = 0; Root < (Rooted ? P : 1); ++Root)
        for (bool Commutative : {true, false}) {
          if (!isReduction(C.Coll) && !Commutative)
            continue;
          // 4 elements (fewer blocks than ranks) and 1000.
          for (uint64_t Bytes : {16u, 4000u}) {
            Request R =
                test::request(C.Coll, P, Root, Bytes, C.Alg, Commutative);
            std::string Coll = collectiveName(C.Coll), Alg = C.Alg;
            CAPTURE(Coll);
            CAPTURE(Alg);
            CAPTURE(P);
            CAPTURE(Root);
            CAPTURE(Commutative);
            CAPTURE(Bytes);
            auto OnNet = compile(Net, R);
            REQUIRE_MESSAGE(static_cast<bool>(OnNet),
                            llvm::toString(OnNet.takeError()));
            auto OnModel = compile(Model, R);
            REQUIRE_MESSAGE(static_cast<bool>(OnModel),
                            llvm::toString(OnModel.takeError()));
            CHECK(OnNet->Algorithm == C.Alg);
            CHECK(OnNet->Commutative == Commutative);
            // A model machine's one port: one message per rank and step.
            CHECK(mostPerStep(*OnModel) == std::pair<size_t, size_t>(1, 1));
            // On the network: the phases, each one step.
            size_t Phases = 1;
            if (C.Coll == Collective::Allreduce)
              Phases = 2;
            // Inside the groups, then across (one group when P <= 2).
            if (std::string(C.Alg) == "grid-direct")
              Phases = P <= 2 ? 1 : 2;
            if (std::string(C.Alg) == "reduce-scatter-direct") {
              const int64_t Blocks = std::min<int64_t>(P, Bytes / 4);
              // Reduce: the gather is empty when the root owns the only
              // block. Allreduce: a direct allgather or a ring of P - 1.
              Phases = C.Coll == Collective::Reduce
                           ? (Blocks == 1 && Root == 0 ? 1 : 2)
                       : OnNet->Steps.size() == 2 ? 2
                                                  : size_t(P);
            }
            CHECK(OnNet->Steps.size() == Phases);
            // A rank with P - 1 messages takes P - 1 steps of one port.
            if (C.Coll != Collective::Allreduce &&
                std::string(C.Alg) != "grid-direct")
              CHECK(OnModel->Steps.size() >= size_t(P - 1));
            ++Built;
          }
        }
    }
  CHECK(Built > 2000);
}

TEST_CASE("direct: the root's messages of one step share its link") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  const uint64_t MiB = 1 << 20;
  auto Two =
      compile(Net, test::request(Collective::Bcast, 2, 0, MiB, "direct"));
  REQUIRE(Two);
  for (int32_t P : {9, 33}) {
    auto Many =
        compile(Net, test::request(Collective::Bcast, P, 0, MiB, "direct"));
    REQUIRE(Many);
    REQUIRE(Many->Steps.size() == 1);
    // P - 1 messages of 1 MiB leave through the root's one link: no faster
    // than the fastest link
    // carries them at the band's bandwidth factor, where one message alone
    // takes a fraction of that time per message.
    CAPTURE(P);
    double Fastest = 0;
    for (const LinkClass &L : Net.Net->Links)
      Fastest = std::max(Fastest, L.Bandwidth);
    const double LinkBytesPerUs = Fastest * Net.Net->band(MiB).BandwidthFactor;
    CHECK(Many->Makespan >= (P - 1) * MiB / LinkBytesPerUs);
    CHECK(Many->Makespan > 0.5 * (P - 1) * Two->Makespan);
    // They run side by side: every message starts before the first ends.
    double FirstEnd = Many->Makespan;
    for (const Transfer &T : Many->Steps[0].Transfers)
      FirstEnd = std::min(FirstEnd, T.End);
    for (const Transfer &T : Many->Steps[0].Transfers)
      CHECK(T.Start < FirstEnd);
  }
}

TEST_CASE("direct: a step's receives are posted together, beyond the window "
          "of receives a rank has out") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  const int32_t P = 30;
  for (Collective C : {Collective::Allgather, Collective::Gather}) {
    auto S = compile(Net, test::request(C, P, 0, 64, "direct"));
    REQUIRE(S);
    auto Plan = planPosting(*S);
    REQUIRE(Plan);
    size_t Recvs = 0;
    for (const RankPlan &RP : Plan->Ranks)
      for (const PlannedOp &O : RP.Ops)
        if (O.isRecv()) {
          ++Recvs;
          // Nothing before them to wait for.
          CHECK(O.PostWaits.empty());
        }
    CHECK(Recvs ==
          (C == Collective::Gather ? size_t(P - 1) : size_t(P) * (P - 1)));
  }
  // A step of one receive keeps the window: the pairwise all-to-all's ninth
  // receive waits for the first.
  auto Pairwise =
      compile(Net, test::request(Collective::Alltoall, P, 0, 64, "pairwise"));
  REQUIRE(Pairwise);
  auto Plan = planPosting(*Pairwise);
  REQUIRE(Plan);
  std::vector<int32_t> RecvAt;
  for (size_t I = 0; I < Plan->Ranks[0].Ops.size(); ++I)
    if (Plan->Ranks[0].Ops[I].isRecv())
      RecvAt.push_back(int32_t(I));
  REQUIRE(RecvAt.size() > size_t(RankRecvWindow));
  const std::vector<int32_t> &W =
      Plan->Ranks[0].Ops[size_t(RecvAt[RankRecvWindow])].PostWaits;
  CHECK(std::find(W.begin(), W.end(), RecvAt[0]) != W.end());
}

TEST_CASE("direct: one step beats the chains at a few bytes on a network, "
          "and auto takes a one-shot candidate there") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  const int32_t P = 32;
  struct Pair {
    Collective Coll;
    const char *Chain;
  };
  for (const Pair &X : {Pair{Collective::Allgather, "ring"},
                        Pair{Collective::Alltoall, "pairwise"},
                        Pair{Collective::Gather, "linear"}}) {
    std::string Coll = collectiveName(X.Coll);
    CAPTURE(Coll);
    auto Direct = compile(Net, test::request(X.Coll, P, 0, 1, "direct"));
    auto Chain = compile(Net, test::request(X.Coll, P, 0, 1, X.Chain));
    REQUIRE(Direct);
    REQUIRE(Chain);
    CHECK(Direct->Makespan < Chain->Makespan);
    auto Auto = compile(Net, test::request(X.Coll, P, 0, 1, "auto"));
    REQUIRE(Auto);
    CHECK(Auto->Makespan <= Direct->Makespan);
  }
}

TEST_CASE("node-direct: ranks sharing nodes, every rank count and "
          "placement, verify; a block crosses each node link once per node") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  Rng G(27);
  size_t Built = 0;
  for (int32_t P : rankCounts())
    for (int PerNode : {1, 2, 3, 8}) {
      Request R =
          test::request(Collective::Allgather, P, 0, 1000, "node-direct");
      // PerNode ranks per node in blocks, or scattered at random.
      for (bool Shuffled : {false, true}) {
        test::placeOnNodes(R, PerNode, Shuffled, G);
        CAPTURE(P);
        CAPTURE(PerNode);
        CAPTURE(Shuffled);
        auto S = compile(Net, R);
        REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
        CHECK(S->Steps.size() <= 3);
        // Bytes leaving each node for other nodes: its blocks once per
        // other node that runs ranks.
        std::map<int64_t, uint64_t> Out;
        std::set<int64_t> Used(R.Nodes.begin(), R.Nodes.end());
        for (const Step &St : S->Steps)
          for (const Transfer &T : St.Transfers)
            if (R.Nodes[T.Src] != R.Nodes[T.Dst])
              Out[R.Nodes[T.Src]] += T.Bytes;
        for (int64_t Node : Used) {
          const uint64_t Mine =
              1000 * uint64_t(std::count(R.Nodes.begin(), R.Nodes.end(), Node));
          CHECK(Out[Node] == Mine * (Used.size() - 1));
        }
        ++Built;
      }
    }
  CHECK(Built == rankCounts().size() * 8);
  // Where ranks share nodes, auto considers it, and at 64 KiB blocks on 3
  // ranks per node it halves what crosses the links and beats direct.
  Request R = test::request(Collective::Allgather, 30, 0, 65536, "direct");
  for (int32_t Rk = 0; Rk < 30; ++Rk)
    R.Nodes[Rk] = Rk / 3;
  auto Direct = compile(Net, R);
  R.Algorithm = "node-direct";
  auto Node = compile(Net, R);
  REQUIRE(Direct);
  REQUIRE(Node);
  CHECK(Node->Makespan < Direct->Makespan);
  R.Algorithm = "auto";
  auto Auto = compile(Net, R);
  REQUIRE(Auto);
  CHECK(Auto->Makespan <= Node->Makespan);
}

TEST_CASE("node-tree: ranks sharing nodes, any root and placement, verify; "
          "every chunk enters each other node once; auto takes it where one "
          "copy per node pays") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  Rng G(41);
  size_t Built = 0;
  for (int32_t P : rankCounts())
    for (int PerNode : {1, 2, 4}) {
      const int32_t Root = static_cast<int32_t>(G.uniform(0, P - 1));
      Request R = test::request(Collective::Bcast, P, Root, 20000, "node-tree");
      for (bool Shuffled : {false, true}) {
        test::placeOnNodes(R, PerNode, Shuffled, G);
        CAPTURE(P);
        CAPTURE(PerNode);
        CAPTURE(Shuffled);
        CAPTURE(Root);
        auto S = compile(Net, R);
        REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
        // What enters each node other than the root's: the message once.
        std::map<int64_t, uint64_t> In;
        for (const Step &St : S->Steps)
          for (const Transfer &T : St.Transfers)
            if (R.Nodes[T.Src] != R.Nodes[T.Dst])
              In[R.Nodes[T.Dst]] += T.Bytes;
        std::set<int64_t> Used(R.Nodes.begin(), R.Nodes.end());
        for (int64_t Node : Used)
          CHECK(In[Node] == (Node == R.Nodes[Root] ? 0 : R.Bytes));
        ++Built;
      }
    }
  CHECK(Built == rankCounts().size() * 6);
  // On one port a rank's sends go one after the other; it still verifies.
  const Machine OnePort = test::exampleMachine("pc-cluster.yaml");
  Request R1 = test::request(Collective::Bcast, 12, 5, 4096, "node-tree");
  for (int32_t Rk = 0; Rk < 12; ++Rk)
    R1.Nodes[Rk] = Rk / 4;
  auto S1 = compile(OnePort, R1);
  REQUIRE_MESSAGE(static_cast<bool>(S1), llvm::toString(S1.takeError()));
  // Four ranks a node behind 1.5:1 uplinks: at 64 KiB one copy per node
  // beats every tree over ranks, and auto takes it.
  Request R = test::request(Collective::Bcast, 32, 0, 65536, "auto");
  for (int32_t Rk = 0; Rk < 32; ++Rk)
    R.Nodes[Rk] = Rk / 4;
  auto Auto = compile(Net, R);
  REQUIRE(Auto);
  CHECK(Auto->Algorithm == "node-tree");
  for (const char *Other : {"bine", "knomial", "k-segment", "edge-disjoint"}) {
    R.Algorithm = Other;
    auto O = compile(Net, R);
    REQUIRE(O);
    CAPTURE(Other);
    CHECK(Auto->Makespan < O->Makespan);
  }
}
