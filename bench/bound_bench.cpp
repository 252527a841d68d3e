//===- bound_bench: physical lower bounds of collectives on a network -----===//
//
//   build/bin/bench-bound --machine PLATFORM.xml|SPEC.yaml
//                         --collective
//                         bcast|reduce|allreduce|allgather|alltoall
//                         [--ranks P] [--root R] BYTES...
//
// Reads the machine with the reader `collc --machine` uses (a SimGrid
// platform or a spec with a `network:` section; its processes per node and
// placement) and prints, per size, a lower bound on the makespan of any
// schedule of the collective under the network's model (SMPI's), and the
// term that reaches it: the physical bound of passes/LowerBound.h, which
// counts every shared resource (a node's links, a backbone, a fat tree's
// uplinks and oversubscribed levels, a torus's bisection, injection limits)
// and every latency. Its derivation is in passes/LowerBound.h and
// docs/network.md ("The bound"). BYTES is the vector (bcast, reduce,
// allreduce) or one rank's block (allgather, alltoall).
//
// Output: a header line, then per size "bytes bound latency transfer LF BF
// where", times in the machine's unit (µs for platforms): the bound, the
// latency and transfer parts of its largest term, the factors used and what
// the term is.
//
//===----------------------------------------------------------------------===//

#include "passes/LowerBound.h"
#include "passes/Routes.h"
#include "readers/Spec.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace collc;

namespace {

llvm::cl::opt<std::string> MachinePath("machine", llvm::cl::Required,
                                       llvm::cl::desc("machine file"),
                                       llvm::cl::value_desc("file"));
llvm::cl::opt<std::string>
    CollName("collective", llvm::cl::Required,
             llvm::cl::desc("bcast, reduce, allreduce, allgather or alltoall"));
llvm::cl::opt<int64_t> Ranks("ranks", llvm::cl::init(0),
                             llvm::cl::desc("ranks (default: every process "
                                            "of every node)"));
llvm::cl::opt<int64_t> Root("root", llvm::cl::init(0),
                            llvm::cl::desc("the root rank (bcast, reduce)"));
llvm::cl::list<uint64_t> Sizes(llvm::cl::Positional, llvm::cl::OneOrMore,
                               llvm::cl::desc("BYTES..."));

int fail(const llvm::Twine &Msg) {
  llvm::WithColor::error(llvm::errs(), "bench-bound") << Msg << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "physical lower bounds of collectives on a network\n");
  auto Coll = parseCollective(CollName);
  if (!Coll)
    return fail("--collective: expected bcast, reduce, allreduce, allgather "
                "or alltoall, got '" +
                CollName + "'");
  auto M = loadMachine(MachinePath);
  if (!M)
    return fail(llvm::toString(M.takeError()));
  const int64_t P =
      Ranks != 0 ? Ranks : M->Topo.Nodes * (M->Net ? M->Net->ProcsPerNode : 1);
  auto B = PhysicalBound::analyse(*M, P);
  if (!B)
    return fail(llvm::toString(B.takeError()));
  llvm::outs() << "# " << CollName << " on " << M->Name << ", " << P
               << " ranks on " << B->nodes()
               << " nodes: bytes bound latency transfer LF BF where\n";
  for (uint64_t Bytes : Sizes) {
    auto L = B->of(*Coll, Bytes, Root);
    if (!L)
      return fail(llvm::toString(L.takeError()));
    llvm::outs() << Bytes << " " << llvm::format("%.3f", L->Time) << " "
                 << llvm::format("%.3f", L->Latency) << " "
                 << llvm::format("%.3f", L->Transfer) << " "
                 << llvm::format("%.5g", L->LatencyFactor) << " "
                 << llvm::format("%.6g", L->BandwidthFactor) << " "
                 << (L->Where.empty() ? std::string("-") : L->Where) << "\n";
  }
  return 0;
}
