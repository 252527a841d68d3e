// The pipelined reduces (`pipeline`: a chain of the ranks in node order,
// `pipelined-binary`: a binary tree of them), and the schedule's receive
// window that lets a pipeline of small segments post every receive at once.
// For rank counts drawn from 2..70, several roots and segment counts, each
// builds and verifies; every rank but the root sends each segment once, to
// one parent; a non-commutative operator is refused with the reason; the
// window changes the posting plan and the evaluator's time as stated.
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "ir/Random.h"
#include "ir/ScheduleJson.h"
#include "passes/NetworkCost.h"
#include "passes/Posting.h"
#include "readers/MachineSpec.h"
#include "tests/Examples.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <map>
#include <set>

using namespace collc;

namespace {

/// A reduce to rank 0 among 24 ranks, 4 on each of \p M's nodes 0..5.
Request fourPerNode(const Machine &M, uint64_t Bytes, const char *Alg) {
  return test::fourPerNode(M, Collective::Reduce, Bytes, Alg);
}

/// Rank counts: 2, 3, 31, 70, and six drawn from 2..70.
std::vector<int32_t> rankCounts() {
  std::set<int32_t> Ps{2, 3, 31, 70};
  Rng G(4099);
  while (Ps.size() < 10)
    Ps.insert(static_cast<int32_t>(G.uniform(2, 70)));
  return {Ps.begin(), Ps.end()};
}

/// The parent each rank sends to in \p S (-1: none), and how many
/// transfers it sends; the test fails if a rank sends to two ranks.
std::vector<int32_t> parents(const Schedule &S, std::vector<int64_t> &Sent) {
  std::vector<int32_t> Parent(S.size(), -1);
  Sent.assign(S.size(), 0);
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers) {
      CHECK((Parent[T.Src] < 0 || Parent[T.Src] == T.Dst));
      Parent[T.Src] = T.Dst;
      ++Sent[T.Src];
    }
  return Parent;
}

} // namespace

TEST_CASE("pipeline reduce: every rank count, root and segment count builds "
          "and verifies; each rank sends every segment once to one parent") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  const Machine Model = test::exampleMachine("pc-cluster.yaml");
  size_t Built = 0;
  for (const char *Alg : {"pipeline", "pipelined-binary"})
    for (int32_t P : rankCounts())
      for (int32_t Root : {0, P / 2, P - 1})
        for (int64_t K : {1, 3, 8})
          for (const Machine *M : {&Net, &Model}) {
            if (M == &Model && P > 16)
              continue; // its 16 nodes
            Request R =
                test::request(*M, Collective::Reduce, P, Root, 4000, Alg);
            R.Segments = K;
            CAPTURE(Alg);
            CAPTURE(P);
            CAPTURE(Root);
            CAPTURE(K);
            auto S = compile(*M, R);
            REQUIRE_MESSAGE(static_cast<bool>(S),
                            llvm::toString(S.takeError()));
            CHECK(S->Algorithm == Alg);
            CHECK(S->NumChunks == K);
            // The posting rule's window, or every segment's receive out.
            CHECK((S->RecvWindow == 0 || S->RecvWindow == K));
            std::vector<int64_t> Sent;
            std::vector<int32_t> Parent = parents(*S, Sent);
            // Every rank but the root sends each segment once, upwards.
            for (int32_t V = 0; V < P; ++V) {
              CHECK(Sent[V] == (V == Root ? 0 : K));
              // The depth: P - 1 for the chain, log2 for the binary tree.
              int64_t Depth = 0;
              for (int32_t U = V; U != Root && Depth <= P; U = Parent[U])
                ++Depth;
              CHECK(Depth <= (std::string(Alg) == "pipeline"
                                  ? int64_t(P - 1)
                                  : int64_t(ceilLog2(P))));
            }
            ++Built;
          }
  CHECK(Built > 2 * 10 * 3 * 3);
}

TEST_CASE("pipeline reduce: a non-commutative operator is refused, saying "
          "why") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  for (const char *Alg : {"pipeline", "pipelined-binary"}) {
    auto R = makeRequest(test::fields(Collective::Reduce, 8, 0, 4000, Alg,
                                      /*Commutative=*/false),
                         Net);
    REQUIRE_FALSE(R);
    CHECK(llvm::toString(R.takeError()).find("commutative") !=
          std::string::npos);
  }
}

TEST_CASE("posting: a schedule's receive window lets every segment's "
          "receive out at once") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  Request R = test::request(Net, Collective::Reduce, 6, 0, 1 << 16, "pipeline");
  R.Segments = 16;
  auto S = compile(Net, R);
  REQUIRE(S);
  Schedule Wide = *S;
  Wide.RecvWindow = 16;
  // The index of each receive in its rank's operations, and which peer.
  auto Waits = [](const Schedule &Sched) {
    auto Plan = planPosting(Sched);
    REQUIRE(static_cast<bool>(Plan));
    // Receives that wait for an earlier receive from the same peer.
    size_t OnPeer = 0, Recvs = 0;
    bool Waits = false;
    for (const RankPlan &RP : Plan->Ranks) {
      std::map<int32_t, std::set<int32_t>> FromPeer;
      for (size_t I = 0; I < RP.Ops.size(); ++I) {
        const PlannedOp &O = RP.Ops[I];
        if (!O.isRecv())
          continue;
        ++Recvs;
        Waits = false;
        for (int32_t W : O.PostWaits)
          Waits = Waits || FromPeer[O.Peer].count(W);
        OnPeer += Waits;
        FromPeer[O.Peer].insert(int32_t(I));
      }
    }
    return std::pair<size_t, size_t>(OnPeer, Recvs);
  };
  const std::pair<size_t, size_t> Open = Waits(Wide);
  CHECK(Open.second == 5 * 16);
  CHECK(Open.first == 0);
  // The default window: the third receive from a peer waits for the first.
  Schedule Narrow = *S;
  Narrow.RecvWindow = 0;
  const std::pair<size_t, size_t> Held = Waits(Narrow);
  CHECK(Held.second == Open.second);
  CHECK(Held.first == 5 * (16 - size_t(RecvWindow)));
}

TEST_CASE("pipeline reduce: the search keeps the cheaper window; on a "
          "cluster whose links SMPI's factors make latency-bound, the open "
          "one, as MPI libraries' pipelines post every receive") {
  const Machine Thin = test::thinCluster();
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  for (const Machine *M : {&Thin, &Net}) {
    Request R = M == &Net ? test::request(Net, Collective::Reduce, 24, 0,
                                          1 << 20, "pipeline")
                          : fourPerNode(*M, 1 << 20, "pipeline");
    R.Segments = 128;
    auto S = compile(*M, R);
    REQUIRE(S);
    // The same segments under each window, timed by the evaluator.
    Schedule Rule = *S, Open = *S;
    Rule.RecvWindow = 0;
    Open.RecvWindow = 64;
    estimateNetworkCost(Rule, *M);
    estimateNetworkCost(Open, *M);
    CAPTURE(M->Name);
    CAPTURE(Rule.Makespan);
    CAPTURE(Open.Makespan);
    CHECK(S->Makespan ==
          doctest::Approx(std::min(Rule.Makespan, Open.Makespan)));
  }
  // The thin cluster: the open window pipelines at the links' rate, and
  // auto takes a pipeline over the binomial tree.
  Request R = fourPerNode(Thin, 1 << 20, "pipeline");
  R.Segments = 128;
  auto S = compile(Thin, R);
  REQUIRE(S);
  CHECK(S->RecvWindow == 64);
  Schedule Rule = *S;
  Rule.RecvWindow = 0;
  estimateNetworkCost(Rule, Thin);
  CHECK(S->Makespan < 0.6 * Rule.Makespan);
  auto Auto = compile(Thin, fourPerNode(Thin, 1 << 20, "auto"));
  auto Binomial = compile(Thin, fourPerNode(Thin, 1 << 20, "binomial"));
  REQUIRE(Auto);
  REQUIRE(Binomial);
  CHECK(Auto->Algorithm == "pipeline");
  CHECK(Auto->Makespan < 0.5 * Binomial->Makespan);
}

TEST_CASE("json: a schedule's receive window survives the round trip, and a "
          "bad one is refused with its place") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  Request R = test::request(Net, Collective::Reduce, 5, 2, 400, "pipeline");
  R.Segments = 7;
  auto S = compile(Net, R);
  REQUIRE(S);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeScheduleJson(OS, *S, &Net);
  OS.flush();
  CHECK(Text.find("\"recv_window\": 7") != std::string::npos);
  auto Back = readScheduleJson(Text, "w.json");
  REQUIRE(Back);
  CHECK(Back->RecvWindow == 7);
  const size_t At = Text.find("\"recv_window\": 7");
  std::string Bad = Text;
  Bad.replace(At, 16, "\"recv_window\": -1");
  auto Refused = readScheduleJson(Bad, "w.json");
  REQUIRE_FALSE(Refused);
  CHECK(llvm::toString(Refused.takeError()).find("w.json:") == 0);
}

TEST_CASE("knomial reduce: every rank count and root builds and verifies; a "
          "level's children arrive in one step on a network, one a step on a "
          "model") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  const Machine Model = test::exampleMachine("pc-cluster.yaml");
  size_t Built = 0;
  for (int32_t P : rankCounts())
    for (int32_t Root : {0, P / 3, P - 1})
      for (const Machine *M : {&Net, &Model}) {
        if (M == &Model && P > 16)
          continue; // its 16 nodes
        CAPTURE(P);
        CAPTURE(Root);
        auto S = compile(
            *M, test::request(*M, Collective::Reduce, P, Root, 64, "knomial"));
        REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
        CHECK(S->Algorithm == "knomial");
        // Every rank but the root sends once, to one parent.
        std::vector<int64_t> Sent;
        parents(*S, Sent);
        for (int32_t V = 0; V < P; ++V)
          CHECK(Sent[V] == (V == Root ? 0 : 1));
        // The radix the search kept: the most a rank receives in one step
        // on the network, and the levels that takes.
        size_t Most = 0;
        for (const Step &St : S->Steps) {
          std::map<int32_t, size_t> In;
          for (const Transfer &T : St.Transfers)
            Most = std::max(Most, ++In[T.Dst]);
        }
        if (M == &Model) {
          CHECK(Most == 1);
        } else if (P > 1) {
          CHECK(Most >= 1);
          CHECK(Most <= 7);
          int64_t Levels = 0;
          for (int64_t Span = 1; Span < P; Span *= int64_t(Most) + 1)
            ++Levels;
          CHECK(S->Steps.size() >= size_t(Levels));
        }
        ++Built;
      }
  CHECK(Built > 40);
  // A non-commutative operator is refused, saying why.
  auto R = makeRequest(test::fields(Collective::Reduce, 8, 0, 64, "knomial",
                                    /*Commutative=*/false),
                       Net);
  REQUIRE_FALSE(R);
  CHECK(llvm::toString(R.takeError()).find("commutative") != std::string::npos);
}
