// SimGrid time-independent traces keep the model's one-port sends: a send
// the model starts only after an earlier send of the same rank has been
// received waits for that send first (what tests/cli/ti_replay.sh relies on
// to replay linear-model schedules at the model's times).
#include "backends/Traces.h"
#include "compiler/Driver.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

std::string tiTrace(const Machine &M, const char *Algorithm, int32_t Ranks) {
  auto S = compile(M, test::bcast(Ranks, 0, 1000, Algorithm));
  REQUIRE(S);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  emitTiTrace(OS, *S, M);
  return OS.str();
}

} // namespace

TEST_CASE("ti-trace: with t_hold = t_end a rank waits for each send before "
          "its next; with t_hold < t_end its sends overlap") {
  // Binomial on 4 ranks: the root sends to 2, then to 1.
  CHECK(tiTrace(test::parameterized(46, 46), "binomial", 4)
            .rfind("0 init\n0 isend 2 0 1000\n0 wait 0 2 0\n"
                   "0 isend 1 1 1000\n0 wait 0 1 1\n0 finalize\n",
                   0) == 0);
  CHECK(tiTrace(test::parameterized(20, 55), "binomial", 4)
            .rfind("0 init\n0 isend 2 0 1000\n0 isend 1 1 1000\n"
                   "0 wait 0 2 0\n0 wait 0 1 1\n0 finalize\n",
                   0) == 0);
  // A sequential broadcast on the linear model: every send but the first
  // waits for the one before it, and each is waited for once.
  std::string Seq = tiTrace(test::parameterized(46, 46), "sequential", 5);
  CHECK(Seq.find("0 isend 1 0 1000\n0 wait 0 1 0\n0 isend 2 1 1000\n"
                 "0 wait 0 2 1\n0 isend 3 2 1000\n0 wait 0 3 2\n"
                 "0 isend 4 3 1000\n0 wait 0 4 3\n0 finalize\n") !=
        std::string::npos);
}
