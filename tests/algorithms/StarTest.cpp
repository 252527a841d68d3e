// Paper 002: star and macro-star graphs, their generators, the lemmas behind
// the macro-star broadcast, and the broadcasts' step counts.
#include "algorithms/Greedy.h"
#include "algorithms/MacroStar.h"
#include "algorithms/Registry.h"
#include "algorithms/StarSearch.h"
#include "compiler/Driver.h"
#include "ir/Permutation.h"
#include "ir/ScheduleJson.h"
#include "ir/StarGraph.h"
#include "passes/CallModel.h"
#include "passes/Verify.h"
#include "readers/Spec.h"

#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <cmath>
#include <numeric>
#include <set>

using namespace collc;

namespace {

int64_t node(const char *Perm, int K) {
  std::string Why;
  auto P = parsePermutation(Perm, K, Why);
  REQUIRE_MESSAGE(P, Why);
  return rankPermutation(*P);
}

Machine unitCall(const StarGraph &G) {
  Machine M;
  M.Name = G.title();
  M.M.Kind = ModelKind::UnitCall;
  if (G.isStar()) {
    M.Topo.Kind = TopologyKind::Star;
  } else {
    M.Topo.Kind = TopologyKind::MacroStar;
    M.Topo.MacroL = G.clusters();
    M.Topo.MacroN = G.clusterSize();
  }
  M.Topo.StarK = G.symbols();
  M.Topo.Nodes = G.nodes();
  return M;
}

int64_t lowerBound(int64_t Nodes) {
  int64_t B = 0;
  while ((int64_t(1) << B) < Nodes)
    ++B;
  return B;
}

/// The nodes a generator sequence informs from \p Start (doubling).
std::vector<int64_t> closure(const StarGraph &G, int64_t Start,
                             const std::vector<Generator> &Seq,
                             std::vector<uint8_t> &Informed) {
  std::vector<int64_t> List{Start};
  Informed[Start] = 1;
  applySequence(G, Seq, Informed, List);
  for (int64_t V : List)
    Informed[V] = 0;
  return List;
}

/// Compiles a broadcast (build, cost, verify with the call-model check).
Schedule broadcast(const StarGraph &G, const char *Algorithm,
                   int32_t Root = 0) {
  Machine M = unitCall(G);
  Request R = test::bcast(static_cast<int32_t>(G.nodes()), Root, 8, Algorithm);
  auto S = compile(M, R);
  REQUIRE_MESSAGE(S, llvm::toString(S.takeError()));
  return std::move(*S);
}

} // namespace

TEST_CASE("paper002.Generators: T_2(14523) = 41523, T_3(14523) = 54123, "
          "S_2(41523) = 42315 in MS(2,2)") {
  StarGraph G = StarGraph::macroStar(2, 2);
  CHECK(G.symbols() == 5);
  CHECK(G.nodes() == 120);
  CHECK(G.generators().size() == 3); // degree n + l - 1
  CHECK(G.name(G.neighbour(node("14523", 5), {Generator::T, 2})) == "41523");
  CHECK(G.name(G.neighbour(node("14523", 5), {Generator::T, 3})) == "54123");
  CHECK(G.name(G.neighbour(node("41523", 5), {Generator::S, 2})) == "42315");
  // S_2(T_2(14523)) = 42315, and the edge check recovers the generators.
  auto Gen = G.generatorBetween(node("41523", 5), node("42315", 5));
  REQUIRE(Gen);
  CHECK(Gen->name() == "S_2");
  CHECK(!G.generatorBetween(node("14523", 5), node("42315", 5)));
  // Node numbers are lexicographic ranks.
  CHECK(node("12345", 5) == 0);
  CHECK(node("54321", 5) == 119);
  CHECK(G.name(0) == "12345");
}

TEST_CASE("paper002.Generators: every generator is an involution and S_k has "
          "degree k-1") {
  for (int K = 2; K <= 6; ++K) {
    StarGraph G = StarGraph::star(K);
    CHECK(static_cast<int>(G.generators().size()) == K - 1);
    for (int64_t V = 0; V < G.nodes(); ++V)
      for (Generator Gen : G.generators())
        CHECK(G.neighbour(G.neighbour(V, Gen), Gen) == V);
  }
}

TEST_CASE("paper002.Lemma1: <S_2..S_l, T_2..T_{n+1}, S_l> reaches every "
          "super-cluster(l, p), from every node of MS(2,2), MS(2,3), MS(3,2)") {
  for (auto [L, N] : {std::pair{2, 2}, {2, 3}, {3, 2}}) {
    StarGraph G = StarGraph::macroStar(L, N);
    CAPTURE(G.title());
    const int K = G.symbols();
    auto Seq = lemma1Sequence(G, L);
    std::vector<uint8_t> Informed(G.nodes(), 0);
    int64_t Failures = 0;
    for (int64_t U = 0; U < G.nodes(); ++U) {
      std::set<int> Last;
      for (int64_t V : closure(G, U, Seq, Informed))
        Last.insert(unrankPermutation(V, K).back());
      Failures += static_cast<int>(Last.size()) != K;
    }
    CHECK(Failures == 0);
  }
}

TEST_CASE("paper002.Lemma2: <..., S_l, T_{n-m+1}, S_l> reaches every "
          "super-cluster(l, p p_1..p_m) from super-cluster(l, p_1..p_m), on "
          "MS(2,2), MS(2,3), MS(3,2)") {
  for (auto [L, N] : {std::pair{2, 2}, {2, 3}, {3, 2}}) {
    StarGraph G = StarGraph::macroStar(L, N);
    CAPTURE(G.title());
    const int K = G.symbols();
    std::vector<uint8_t> Informed(G.nodes(), 0);
    int64_t Checked = 0, Failures = 0;
    for (int M = 1; M < N; ++M) {
      auto Seq = lemma2Sequence(G, L, M);
      for (int64_t U = 0; U < G.nodes(); ++U) {
        std::vector<int> PU = unrankPermutation(U, K);
        std::vector<int> Tail(PU.end() - M, PU.end());
        std::set<int> Got;
        for (int64_t V : closure(G, U, Seq, Informed)) {
          std::vector<int> PV = unrankPermutation(V, K);
          if (std::equal(Tail.begin(), Tail.end(), PV.end() - M))
            Got.insert(PV[K - M - 1]);
        }
        ++Checked;
        Failures += static_cast<int>(Got.size()) != K - M;
      }
    }
    CHECK(Checked == (N - 1) * G.nodes());
    CHECK(Failures == 0);
  }
}

TEST_CASE("paper002.Algorithm: steps 1-3 leave the message in every base "
          "module S_{n+1}") {
  for (auto [L, N] : {std::pair{2, 2}, {2, 3}, {3, 2}, {2, 4}}) {
    StarGraph G = StarGraph::macroStar(L, N);
    CAPTURE(G.title());
    const int K = G.symbols();
    std::vector<uint8_t> Informed(G.nodes(), 0);
    std::set<std::vector<int>> Modules;
    for (int64_t V : closure(G, 0, macroStarSequence(G), Informed)) {
      std::vector<int> P = unrankPermutation(V, K);
      Modules.insert(std::vector<int>(P.begin() + N + 1, P.end()));
    }
    CHECK(static_cast<int64_t>(Modules.size()) ==
          G.nodes() / permutationCount(N + 1));
  }
}

TEST_CASE(
    "paper002.StepCounts: S_4..S_9 and MS(2,2), MS(2,3), MS(3,2), MS(2,4) "
    "verify, stay within their bounds and are compared with greedy") {
  for (int K = 4; K <= 9; ++K) {
    StarGraph G = StarGraph::star(K);
    CAPTURE(G.title());
    Schedule S = broadcast(G, "star-search");
    Schedule Gr = broadcast(G, "greedy");
    int64_t Steps = static_cast<int64_t>(S.Steps.size());
    int64_t Greedy = static_cast<int64_t>(Gr.Steps.size());
    CHECK(Steps >= lowerBound(G.nodes()));
    // Documented in docs/star.md: the bound on S_4, one step more on S_5..S_9,
    // and never more than the greedy baseline.
    CHECK(Steps <= lowerBound(G.nodes()) + (K == 4 ? 0 : 1));
    CHECK(Steps <= Greedy);
    CHECK(S.Makespan == doctest::Approx(Steps)); // one unit per step
    CHECK(Greedy >= lowerBound(G.nodes()));
    MESSAGE(G.title() << ": star-search " << Steps << ", greedy " << Greedy
                      << ", lower bound " << lowerBound(G.nodes()));
  }
  for (auto [L, N] : {std::pair{2, 2}, {2, 3}, {3, 2}, {2, 4}}) {
    StarGraph G = StarGraph::macroStar(L, N);
    CAPTURE(G.title());
    Schedule S = broadcast(G, "macro-star");
    Schedule Gr = broadcast(G, "greedy");
    int64_t Steps = static_cast<int64_t>(S.Steps.size());
    CHECK(Steps >= lowerBound(G.nodes()));
    // Never longer than the sequences plus star-search's plan of S_{n+1}.
    CHECK(Steps <= static_cast<int64_t>(macroStarSequence(G).size()) +
                       starPlan(N + 1).Steps);
    CHECK(static_cast<int64_t>(Gr.Steps.size()) >= lowerBound(G.nodes()));
    MESSAGE(G.title() << ": macro-star " << Steps << ", greedy "
                      << Gr.Steps.size() << ", lower bound "
                      << lowerBound(G.nodes()));
  }
}

TEST_CASE("star: starPlan is a deterministic broadcast of S_m along "
          "generators, one call per node and step") {
  for (int M = 1; M <= 7; ++M) {
    CAPTURE(M);
    StarPlan P = starPlan(M);
    StarPlan Q = starPlan(M);
    CHECK(P.Parent == Q.Parent);
    CHECK(P.Time == Q.Time);
    StarGraph G = StarGraph::star(M);
    REQUIRE(static_cast<int64_t>(P.Parent.size()) == G.nodes());
    // The plan numbers nodes by inversion code; the graph by rank.
    std::vector<int64_t> NodeOf(G.nodes(), -1);
    for (int64_t V = 0; V < G.nodes(); ++V) {
      int64_t Code = inversionCode(unrankPermutation(V, M));
      REQUIRE(Code >= 0);
      REQUIRE(Code < G.nodes());
      CHECK(NodeOf[Code] == -1);
      NodeOf[Code] = V;
    }
    CHECK(NodeOf[0] == 0); // the identity
    int64_t Roots = 0;
    std::set<std::pair<int, int32_t>> Busy; // (step, code)
    for (int64_t V = 0; V < G.nodes(); ++V) {
      if (P.Parent[V] < 0) {
        Roots += V == 0 && P.Time[V] == 0;
        continue;
      }
      int32_t U = P.Parent[V];
      CHECK(G.generatorBetween(NodeOf[U], NodeOf[V]).has_value());
      CHECK(P.Time[U] < P.Time[V]);
      CHECK(P.Time[V] <= P.Steps);
      CHECK(Busy.insert({P.Time[V], U}).second);
      CHECK(Busy.insert({P.Time[V], static_cast<int32_t>(V)}).second);
    }
    CHECK(Roots == 1);
  }
}

TEST_CASE("star: star-search takes the same steps from every root (the plan "
          "is relabelled onto the root)") {
  StarGraph G = StarGraph::star(6);
  size_t Steps = broadcast(G, "star-search").Steps.size();
  for (int32_t Root : {1, 17, 360, 719}) {
    CAPTURE(Root);
    Schedule S = broadcast(G, "star-search", Root);
    CHECK(S.Root == Root);
    CHECK(S.Steps.size() == Steps);
  }
}

TEST_CASE("star: broadcasts from a permutation root verify") {
  StarGraph G = StarGraph::macroStar(2, 2);
  int32_t Root = static_cast<int32_t>(node("14523", 5));
  Schedule S = broadcast(G, "macro-star", Root);
  CHECK(S.Root == Root);
  Schedule T = broadcast(StarGraph::star(5), "star-search", Root);
  CHECK(T.Root == Root);
}

TEST_CASE("star: the verifier rejects calls between non-adjacent nodes and "
          "nodes in two calls of a step") {
  StarGraph G = StarGraph::star(4);
  Machine M = unitCall(G);
  Schedule S = broadcast(G, "star-search");
  // Redirect the first call to a node two generators away.
  Schedule Bad = S;
  Transfer &T = Bad.Steps[0].Transfers[0];
  int64_t Far =
      G.neighbour(G.neighbour(T.Src, {Generator::T, 2}), {Generator::T, 3});
  T.Dst = static_cast<int32_t>(Far);
  auto Problems = checkCallModel(Bad, M);
  REQUIRE(Problems.size() == 1);
  CHECK(Problems[0].find("are not adjacent in S_4") != std::string::npos);
  CHECK(!verifySchedule(Bad, M).empty());
  // Two calls of one node in one step (a sender that also receives).
  Schedule Twice = S;
  Transfer Extra = Twice.Steps[1].Transfers[0];
  std::swap(Extra.Src, Extra.Dst);
  int64_t Other = G.neighbour(Extra.Src, {Generator::T, 4});
  Extra.Dst = static_cast<int32_t>(Other);
  Twice.Steps[1].Transfers.push_back(Extra);
  bool Second = false;
  for (const std::string &P : checkCallModel(Twice, M))
    Second |= P.find("second call in the same step") != std::string::npos;
  CHECK(Second);
}

TEST_CASE("greedy: maximum matchings broadcast on meshes, tori, hypercubes "
          "and crossbars") {
  struct Case {
    TopologyKind Kind;
    std::vector<int64_t> Dims;
    int64_t Nodes;
    int64_t MaxSteps;
  } Cases[] = {
      {TopologyKind::Mesh, {4, 4}, 16, 6},  // diameter 6
      {TopologyKind::Torus, {4, 4}, 16, 5}, // lower bound 4, diameter 4
      {TopologyKind::Hypercube, {2, 2, 2, 2}, 16, 4},
      {TopologyKind::Full, {}, 0, 4},
      {TopologyKind::Mesh, {1, 7}, 7, 6}, // a line from rank 0
  };
  for (const Case &C : Cases) {
    Machine M = test::parameterized(1, 1);
    M.Topo.Kind = C.Kind;
    M.Topo.Dims = C.Dims;
    M.Topo.Nodes = C.Nodes;
    int32_t P = static_cast<int32_t>(C.Nodes ? C.Nodes : 16);
    CAPTURE(P);
    auto S = compile(M, test::bcast(P, 0, 8, "greedy"));
    REQUIRE_MESSAGE(S, llvm::toString(S.takeError()));
    CHECK(static_cast<int64_t>(S->Steps.size()) <= C.MaxSteps);
    CHECK(static_cast<int64_t>(S->Steps.size()) >= lowerBound(P));
  }
}

TEST_CASE("star: tree builders do not apply to star graphs") {
  Machine M = unitCall(StarGraph::star(4));
  std::string Why;
  const AlgorithmInfo *A = findAlgorithm("binomial", Collective::Bcast);
  REQUIRE(A);
  CHECK(!A->applies(M, test::bcast(24), Why));
  CHECK(Why.find("adjacent") != std::string::npos);
  CHECK(findAlgorithm("star-search", Collective::Bcast)
            ->applies(M, test::bcast(24), Why));
  // auto picks a builder that respects the graph.
  auto S = compile(M, test::bcast(24));
  REQUIRE(S);
  CHECK(S->Algorithm == "star-search");
}

TEST_CASE("star: star-optimal, the former name of star-search, still names "
          "it in request files, on the command line and in schedule JSON") {
  auto M = loadMachine(std::string(COLLC_SOURCE_DIR) +
                       "/examples/machines/star-4.yaml");
  REQUIRE_MESSAGE(M, llvm::toString(M.takeError()));
  auto Json = [&](const char *FileAlgorithm,
                  std::optional<std::string> ArgAlgorithm) {
    std::string Text = "collective: bcast\nranks: 24\nroot: \"2413\"\n"
                       "bytes: 8\nalgorithm: " +
                       std::string(FileAlgorithm) + "\n";
    llvm::MemoryBufferRef Ref(Text, "r.yaml");
    RequestOverrides O;
    O.Algorithm = ArgAlgorithm;
    auto R = parseRequest(&Ref, O, *M);
    REQUIRE_MESSAGE(R, llvm::toString(R.takeError()));
    auto S = compile(*M, *R);
    REQUIRE_MESSAGE(S, llvm::toString(S.takeError()));
    CHECK(S->Algorithm == "star-search");
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    writeScheduleJson(OS, *S, &*M);
    return Out;
  };
  const std::string New = Json("star-search", std::nullopt);
  CHECK(Json("star-optimal", std::nullopt) == New);
  CHECK(Json("binomial", std::string("star-optimal")) == New);
  // A schedule written under the old name reads back as it was written.
  std::string Old = New;
  size_t At = Old.find("\"star-search\"");
  REQUIRE(At != std::string::npos);
  Old.replace(At, 13, "\"star-optimal\"");
  auto Back = readScheduleJson(Old, "old.json");
  REQUIRE_MESSAGE(Back, llvm::toString(Back.takeError()));
  CHECK(Back->Algorithm == "star-optimal");
  CHECK(findAlgorithm(Back->Algorithm, Back->Coll) ==
        findAlgorithm("star-search", Collective::Bcast));
  std::string Again;
  llvm::raw_string_ostream OS(Again);
  writeScheduleJson(OS, *Back, &*M);
  CHECK(Again == Old);
}

TEST_CASE("star: auto never picks a schedule that greedy beats on star and "
          "macro-star graphs") {
  for (StarGraph G : {StarGraph::star(5), StarGraph::star(6),
                      StarGraph::macroStar(2, 2), StarGraph::macroStar(3, 2)}) {
    CAPTURE(G.title());
    Machine M = unitCall(G);
    auto Auto = compile(M, test::bcast(static_cast<int32_t>(G.nodes())));
    REQUIRE_MESSAGE(Auto, llvm::toString(Auto.takeError()));
    Schedule Greedy = broadcast(G, "greedy");
    CHECK(Auto->Makespan <= Greedy.Makespan);
    // Ties go to the first in the registry: star-search before greedy.
    if (G.isStar())
      CHECK(Auto->Algorithm == "star-search");
  }
  // Greedy stays out of auto where a maximum matching per step is too dear.
  std::string Why;
  Machine Big = unitCall(StarGraph::star(10));
  // 10! ranks, beyond MaxRanks: a request collc would refuse, made by hand
  // to ask the greedy rule alone.
  Request Huge;
  Huge.Nodes.resize(3628800);
  std::iota(Huge.Nodes.begin(), Huge.Nodes.end(), 0);
  CHECK(!greedyInAuto(Big, Huge, Why));
  CHECK(Why.find("362880") != std::string::npos);
}
