// `--emit goal` against the GOAL grammar that LogGOPSim's reader (txt2bin)
// accepts, checked by a small reader written here from that grammar:
//
//   file     := { blank | comment | "num_ranks" INT | rank }
//   rank     := "rank" INT "{" { blank | comment | op NL | dep NL } "}"
//   op       := [ LABEL ":" ] ( "send" INT "b" "to" INT | "recv" INT "b"
//               "from" ( INT | "-1" ) ) [ "tag" ( INT | "-1" ) ] [ "cpu" INT ]
//               [ "nic" INT ]  |  [ LABEL ":" ] "calc" INT [ "cpu" INT ]
//   dep      := LABEL ( "requires" | "irequires" ) LABEL
//   comment  := "//" ... NL  |  "/*" ... "*/"
//   LABEL    := [a-zA-Z][a-zA-Z0-9_]*, a keyword only when it is exactly one
//
// Blanks are spaces and tabs; NL is "\n" or "\r\n". Anything else (a `#`
// comment, a comment after an op) is an error. Beyond the syntax, what the
// simulator needs to run the file: ranks 0..num_ranks-1 in order, labels
// defined once per rank and before a dependency names them, no cycle of
// dependencies, targets that are ranks, tags below 2^32 - 1 (which means any
// tag), and every send matched by one receive of the same size and tag.
#include "algorithms/Registry.h"
#include "backends/Traces.h"
#include "compiler/Driver.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include "llvm/ADT/StringExtras.h"

#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <tuple>

using namespace collc;

namespace {

class GoalReader {
public:
  explicit GoalReader(llvm::StringRef Text) : T(Text) {}

  /// Empty when \p Text is a GOAL file the simulator can run; else
  /// "line N: what was expected".
  std::string check() {
    if (!file())
      return "line " + std::to_string(Line) + ": " + Err;
    return {};
  }

private:
  llvm::StringRef T;
  size_t I = 0;
  unsigned Line = 1;
  std::string Err;
  uint64_t NumRanks = 0;
  bool HaveNumRanks = false;
  int64_t Rank = -1; // inside this rank's braces, or -1
  uint64_t NextRank = 0;
  std::map<std::string, size_t> Labels;  // of the current rank
  std::vector<std::vector<size_t>> Deps; // per op of the current rank
  // (src, dst, tag, bytes) -> sends minus receives.
  std::map<std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>, int64_t> Match;

  bool fail(const std::string &Msg) {
    if (Err.empty())
      Err = Msg;
    return false;
  }
  bool eof() const { return I >= T.size(); }
  void blanks() {
    while (!eof() && (T[I] == ' ' || T[I] == '\t'))
      ++I;
  }
  bool lit(llvm::StringRef S) {
    if (!T.substr(I).startswith(S))
      return false;
    I += S.size();
    return true;
  }
  /// A line end (the reader treats the end of the file as one).
  bool newline() {
    blanks();
    if (eof())
      return true;
    if (lit("\n") || lit("\r\n")) {
      ++Line;
      return true;
    }
    return fail("expected the end of the line");
  }
  std::string word() {
    size_t B = I;
    if (!eof() && llvm::isAlpha(T[I]))
      while (!eof() && (llvm::isAlnum(T[I]) || T[I] == '_'))
        ++I;
    return T.slice(B, I).str();
  }
  bool integer(uint64_t &V, uint64_t Max, const char *What) {
    blanks();
    size_t B = I;
    V = 0;
    while (!eof() && llvm::isDigit(T[I])) {
      if (V > (Max - (T[I] - '0')) / 10)
        return fail(std::string(What) + " out of range");
      V = V * 10 + (T[I++] - '0');
    }
    return I > B || fail(std::string("expected an integer: ") + What);
  }
  bool keyword(const char *K) {
    blanks();
    size_t B = I;
    if (word() == K)
      return true;
    I = B;
    return false;
  }

  bool file() {
    for (;;) {
      blanks();
      if (eof())
        break;
      if (lit("\n") || lit("\r\n")) {
        ++Line;
        continue;
      }
      if (lit("//")) {
        while (!eof() && T[I] != '\n')
          ++I;
        continue;
      }
      if (lit("/*")) {
        size_t E = T.find("*/", I);
        if (E == llvm::StringRef::npos)
          return fail("unterminated /* comment");
        Line += T.slice(I, E).count('\n');
        I = E + 2;
        continue;
      }
      if (lit("}")) {
        if (Rank < 0)
          return fail("'}' outside a rank");
        if (!acyclic())
          return false;
        Rank = -1;
        continue;
      }
      size_t B = I;
      std::string W = word();
      if (W.empty())
        return fail("unexpected character '" + T.substr(I, 1).str() + "'");
      if (W == "num_ranks") {
        if (HaveNumRanks || Rank >= 0 || NextRank > 0)
          return fail("num_ranks must come once, before the ranks");
        if (!integer(NumRanks, UINT32_MAX, "num_ranks"))
          return false;
        if (NumRanks < 1)
          return fail("num_ranks must be at least 1");
        HaveNumRanks = true;
      } else if (W == "rank") {
        uint64_t R;
        if (Rank >= 0 || !HaveNumRanks)
          return fail("a rank inside a rank or before num_ranks");
        if (!integer(R, UINT32_MAX, "rank"))
          return false;
        if (R != NextRank || R >= NumRanks)
          return fail("rank " + std::to_string(R) + " out of order");
        blanks();
        if (!lit("{"))
          return fail("expected '{'");
        Rank = static_cast<int64_t>(R);
        ++NextRank;
        Labels.clear();
        Deps.clear();
      } else {
        I = B;
        if (!statement())
          return false;
      }
    }
    if (Rank >= 0)
      return fail("the file ends inside rank " + std::to_string(Rank));
    if (!HaveNumRanks || NextRank != NumRanks)
      return fail("expected ranks 0.." + std::to_string(NumRanks) + " - 1");
    for (auto &[Key, N] : Match)
      if (N != 0)
        return fail("a send without its receive (or the reverse) from " +
                    std::to_string(std::get<0>(Key)) + " to " +
                    std::to_string(std::get<1>(Key)) + " tag " +
                    std::to_string(std::get<2>(Key)));
    return true;
  }

  /// An op or a dependency, inside a rank.
  bool statement() {
    if (Rank < 0)
      return fail("an operation outside a rank");
    std::string Label;
    std::string W = word();
    if (W != "send" && W != "recv" && W != "calc") {
      Label = W;
      blanks();
      if (lit(":")) {
        blanks();
        W = word();
      } else {
        std::string K = word();
        if (K != "requires" && K != "irequires")
          return fail("expected ':', 'requires' or 'irequires'");
        blanks();
        std::string On = word();
        if (!Labels.count(Label) || !Labels.count(On))
          return fail("a dependency on an undefined label");
        Deps[Labels[Label]].push_back(Labels[On]);
        return newline();
      }
    }
    if (!Label.empty() && !Labels.emplace(Label, Deps.size()).second)
      return fail("label " + Label + " defined twice");
    Deps.emplace_back();
    uint64_t Bytes, Peer = 0, Tag = 0, Small;
    if (W == "calc") {
      if (!integer(Bytes, UINT64_MAX, "calc time"))
        return false;
      if (keyword("cpu") && !integer(Small, 255, "cpu"))
        return false;
      return newline();
    }
    if (W != "send" && W != "recv")
      return fail("expected send, recv or calc");
    bool Send = W == "send";
    if (!integer(Bytes, UINT64_MAX, "size"))
      return false;
    blanks();
    if (!lit("b"))
      return fail("expected 'b' after the size");
    if (!keyword(Send ? "to" : "from"))
      return fail(Send ? "expected 'to'" : "expected 'from'");
    if (!integer(Peer, NumRanks - 1, "peer"))
      return false;
    if (keyword("tag") && !integer(Tag, UINT32_MAX - 1, "tag"))
      return false;
    if (keyword("cpu") && !integer(Small, 255, "cpu"))
      return false;
    if (keyword("nic") && !integer(Small, 255, "nic"))
      return false;
    uint64_t Me = static_cast<uint64_t>(Rank);
    Match[{Send ? Me : Peer, Send ? Peer : Me, Tag, Bytes}] += Send ? 1 : -1;
    return newline();
  }

  bool acyclic() {
    std::vector<int> State(Deps.size(), 0); // 0 new, 1 on the path, 2 done
    std::function<bool(size_t)> Visit = [&](size_t V) {
      if (State[V] == 1)
        return false;
      if (State[V] == 0) {
        State[V] = 1;
        for (size_t W : Deps[V])
          if (!Visit(W))
            return false;
        State[V] = 2;
      }
      return true;
    };
    for (size_t V = 0; V < Deps.size(); ++V)
      if (!Visit(V))
        return fail("a cycle of dependencies in rank " + std::to_string(Rank));
    return true;
  }
};

std::string goalOf(const Schedule &S, const Machine &M) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  emitGoal(OS, S, M);
  return OS.str();
}

} // namespace

TEST_CASE("backends.goal-grammar: the reader rejects what LogGOPSim rejects") {
  const char *Good = "// c\nnum_ranks 2\n\nrank 0 {\nl1: send 8b to 1 tag 3\n"
                     "l2: calc 5 cpu 0\nl2 requires l1\n}\n"
                     "rank 1 {\n/* a\n b */ l1: recv 8b from 0 tag 3\n}\n";
  CHECK(GoalReader(Good).check() == "");
  CHECK(GoalReader(std::string("# c\n") + Good).check() ==
        "line 1: unexpected character '#'");
  CHECK(GoalReader("num_ranks 1\nrank 0 {\nl1: send 8b to 0 tag 3 // x\n}\n")
            .check() == "line 3: expected the end of the line");
  CHECK(GoalReader("num_ranks 2\nrank 0 {\nl1: send 8b to 1\n}\nrank 1 {\n}\n")
            .check()
            .find("a send without its receive") != std::string::npos);
  CHECK(GoalReader("num_ranks 1\nrank 0 {\nl1: calc 1\nl1 requires l2\n}\n")
            .check() == "line 4: a dependency on an undefined label");
  CHECK(GoalReader("num_ranks 2\nrank 0 {\n}\n").check() ==
        "line 4: expected ranks 0..2 - 1");
}

TEST_CASE("backends.goal-grammar: every algorithm's GOAL file reads as "
          "LogGOPSim reads it") {
  Machine M = test::parameterized(20, 55, 0.01, 0.02);
  int Checked = 0;
  for (const AlgorithmInfo &A : algorithms())
    for (Collective C : A.Collectives)
      for (int32_t P : {1, 5, 8}) {
        Request R = test::bcast(P, P > 2 ? 2 : 0, 1000, A.Name);
        R.Coll = C;
        if (C == Collective::Barrier)
          R.Bytes = 0;
        if (C == Collective::Scan || C == Collective::Exscan ||
            C == Collective::Allreduce || C == Collective::Allgather ||
            C == Collective::Alltoall || C == Collective::Barrier)
          R.Root = 0;
        if (isReduction(C)) {
          R.Op = "sum";
          R.Datatype = "int32";
        }
        auto S = compile(M, R);
        if (!S) { // not every algorithm serves every size on this machine
          llvm::consumeError(S.takeError());
          continue;
        }
        INFO(A.Name, " ", collectiveName(C), " on ", P, " ranks");
        std::string Goal = goalOf(*S, M);
        CHECK(GoalReader(Goal).check() == "");
        ++Checked;
      }
  // Every algorithm that serves a crossbar at these sizes: most of them.
  CHECK(Checked > 50);
}

TEST_CASE("backends.goal-grammar: hostile names stay inside the comment") {
  Machine M = test::parameterized(20, 55);
  auto S = compile(M, test::bcast(4, 0, 1000, "binomial"));
  REQUIRE(S);
  S->Algorithm = "x\nrank 9 {\n*/ \" \\ # ?\?= \xff\\";
  S->MachineName = "m\r\n}";
  std::string Goal = goalOf(*S, M);
  CHECK(GoalReader(Goal).check() == "");
  CHECK(Goal.substr(0, Goal.find('\n')) ==
        "// collc: x\\nrank 9 {\\n*/ \" \\\\ # ?\\x3f= \\xff\\x5c bcast, 4 "
        "ranks, 1000 bytes; tag = transfer number");
}
