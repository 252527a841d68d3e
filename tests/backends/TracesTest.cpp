// The trace backends: chrome-trace (JSON that Perfetto opens: processes,
// send/recv threads, flow arrows), goal (golden), ti-trace (actions and the
// index), and the simulator report.
#include "backends/Traces.h"
#include "compiler/Driver.h"
#include "ir/Format.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"
#include "tools/WormholeExperiments.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace collc;

namespace {

std::string emit(void (*Fn)(llvm::raw_ostream &, const Schedule &,
                            const Machine &),
                 const Schedule &S, const Machine &M) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  Fn(OS, S, M);
  OS.flush();
  return Text;
}

Schedule multicastOn(const Machine &M, std::vector<int64_t> Nodes,
                     uint64_t Bytes, const char *Algorithm) {
  Request R;
  R.Coll = Collective::Multicast;
  R.Nodes = std::move(Nodes);
  R.Bytes = Bytes;
  R.Algorithm = Algorithm;
  auto S = compile(M, R);
  REQUIRE(S);
  return *S;
}

} // namespace

TEST_CASE("backends.chrome-trace: a process per rank, send and recv threads, "
          "one flow arrow per transfer") {
  Machine M = paperMesh();
  Schedule S = multicastOn(M, randomPlacement(3, 40, 256), 4096, "opt-tree");
  for (auto *Fn : {emitChromeTrace, emitChromeTraceSim}) {
    auto J = nlohmann::json::parse(emit(Fn, S, M));
    int Processes = 0, Threads = 0, Sends = 0, Recvs = 0, FlowS = 0, FlowF = 0;
    for (const auto &E : J["traceEvents"]) {
      std::string Ph = E["ph"], Name = E["name"];
      if (Ph == "M" && Name == "process_name")
        ++Processes;
      if (Ph == "M" && Name == "thread_name")
        ++Threads;
      if (Ph == "X" && E["tid"] == 1)
        ++Sends;
      if (Ph == "X" && E["tid"] == 2)
        ++Recvs;
      FlowS += Ph == "s";
      FlowF += Ph == "f";
    }
    CHECK(Processes == 40);
    CHECK(Threads == 80);
    CHECK(Sends == 39);
    CHECK(Recvs == 39);
    CHECK(FlowS == 39);
    CHECK(FlowF == 39);
  }
  // OPT-tree on a random placement of 40 meets contention here: the
  // simulated trace names the blocked worms.
  std::string Sim = emit(emitChromeTraceSim, S, M);
  CHECK(Sim.find("blocked worm") != std::string::npos);
  CHECK(emit(emitChromeTrace, S, M).find("\"model\"") != std::string::npos);
}

TEST_CASE("backends.goal: sends, receives and requires of a binomial tree") {
  Machine M = test::parameterized(20, 55);
  auto S = compile(M, test::bcast(4, 0, 1000, "binomial"));
  REQUIRE(S);
  CHECK(emit(emitGoal, *S, M) ==
        "// collc: binomial bcast, 4 ranks, 1000 bytes; tag = transfer number\n"
        "num_ranks 4\n"
        "\nrank 0 {\nl1: send 1000b to 2 tag 0\nl2: send 1000b to 1 tag 1\n"
        "l2 requires l1\n}\n"
        "\nrank 1 {\nl1: recv 1000b from 0 tag 1\n}\n"
        "\nrank 2 {\nl1: recv 1000b from 0 tag 0\nl2: send 1000b to 3 tag 2\n"
        "l2 requires l1\n}\n"
        "\nrank 3 {\nl1: recv 1000b from 2 tag 2\n}\n");
}

TEST_CASE("backends.ti-trace: every rank inits, posts its receives, waits "
          "before forwarding, and the index names one file per rank") {
  Machine M = test::parameterized(20, 55);
  auto S = compile(M, test::bcast(4, 0, 1000, "binomial"));
  REQUIRE(S);
  CHECK(emit(emitTiTrace, *S, M) ==
        "0 init\n0 isend 2 0 1000\n0 isend 1 1 1000\n0 wait 0 2 0\n"
        "0 wait 0 1 1\n0 finalize\n"
        "1 init\n1 irecv 0 1 1000\n1 wait 0 1 1\n1 finalize\n"
        "2 init\n2 irecv 0 0 1000\n2 wait 0 2 0\n2 isend 3 2 1000\n"
        "2 wait 2 3 2\n2 finalize\n"
        "3 init\n3 irecv 2 2 1000\n3 wait 2 3 2\n3 finalize\n");
  auto Files = tiTraceFiles(*S, "out/bcast.txt");
  REQUIRE(Files.size() == 5);
  CHECK(Files[0].first == "out/bcast.txt");
  CHECK(Files[0].second ==
        "bcast.txt.0\nbcast.txt.1\nbcast.txt.2\nbcast.txt.3\n");
  CHECK(Files[3].first == "out/bcast.txt.2");
  CHECK(Files[3].second.rfind("2 init\n", 0) == 0);
}

TEST_CASE("backends.sim: the report gives makespan beside the model's, "
          "blocked time, one row per transfer and the channels") {
  Machine M = paperMesh();
  Schedule S = multicastOn(M, {0, 17, 34, 51}, 100, "opt-mesh");
  std::string R = emit(emitSimReport, S, M);
  std::string Makespan = formatNumber(S.Makespan);
  CHECK(R.find("makespan    " + Makespan + " (model " + Makespan + ")") !=
        std::string::npos);
  CHECK(R.find("blocked     0 in total, 0 of 3 transfers blocked") !=
        std::string::npos);
  CHECK(R.find("deadlock    none") != std::string::npos);
  CHECK(R.find("(0,0)->(1,0)") != std::string::npos);
}
