//===- bound_bench: physical lower bounds of a broadcast and an allreduce
//--===//
//
//   build/bin/bench-bound --machine PLATFORM.xml|SPEC.yaml
//                         --collective bcast|allreduce [--ranks P] [--root R]
//                         BYTES...
//
// Reads the machine with the reader `collc --machine` uses (a SimGrid
// platform or a spec with a `network:` section; one process per node) and
// prints, per size, a lower bound on the makespan of any schedule under the
// network's model (SMPI's: a message of m bytes pays its route's latency x
// the latency factor of its band, then moves at most at the bandwidth factor
// x each link's bandwidth), and its parts.
//
// Assumptions. The message may be cut into pieces of any size from 1 byte
// to all of it (no padding); the best latency factor (LF) and the best
// bandwidth factor (BF) are each taken over the bands such a piece (with
// the library's envelope) can fall in, independently of each other. A
// node's links move data at once, each at most at its bandwidth x BF, and
// no faster than the node's injection limit; cross traffic, the sharing
// penalty and the TCP window are left out; routes are shortest paths (as on
// the torus, the fat tree and the cluster), so a relay never reaches a node
// sooner than the route's latency x LF.
//  - bcast: every node n must receive all M bytes through its incoming links,
//    and none of them before the route latency from the root to n x LF:
//    max over n of lat(root, n) x LF + M / (in(n) x BF); the root must send
//    M bytes: out(root) likewise.
//  - allreduce: every node must receive and send 2 (P-1)/P M bytes (the
//    classic bandwidth bound of reduce-scatter plus allgather), its data no
//    sooner than its nearest neighbour's latency x LF; and the last node's
//    result depends on the farthest node's input: max(diameter x LF, max
//    over n of near(n) x LF + 2 (P-1)/P M / (min(in(n), out(n)) x BF)).
//
// Output: a header line, then per size "bytes bound latency bandwidth LF BF
// node", times in the machine's unit (µs for platforms): the bound, its
// latency and bandwidth terms and the node they are reached at.
//
//===----------------------------------------------------------------------===//

#include "readers/Spec.h"
#include "passes/Routes.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>
#include <set>

using namespace collc;

namespace {

llvm::cl::opt<std::string> MachinePath("machine", llvm::cl::Required,
                                       llvm::cl::desc("machine file"),
                                       llvm::cl::value_desc("file"));
llvm::cl::opt<std::string> CollName("collective", llvm::cl::Required,
                                    llvm::cl::desc("bcast or allreduce"));
llvm::cl::opt<int64_t> Ranks("ranks", llvm::cl::init(0),
                             llvm::cl::desc("ranks (default: every node)"));
llvm::cl::opt<int64_t> Root("root", llvm::cl::init(0),
                            llvm::cl::desc("the broadcast's root"));
llvm::cl::list<uint64_t> Sizes(llvm::cl::Positional, llvm::cl::OneOrMore,
                               llvm::cl::desc("BYTES..."));

int fail(const llvm::Twine &Msg) {
  llvm::WithColor::error(llvm::errs(), "bench-bound") << Msg << "\n";
  return 1;
}

/// What the bound needs of the network, per node.
struct Reach {
  std::vector<double> FromRoot; ///< route latency root -> n
  std::vector<double> Nearest;  ///< smallest route latency into n
  double Diameter = 0;          ///< largest route latency
  std::vector<double> In, Out;  ///< bandwidth of n's links in and out
};

llvm::Expected<Reach> reach(const Machine &M, int64_t P, int64_t RootNode) {
  const Network &N = *M.Net;
  Reach R;
  R.FromRoot.assign(P, 0);
  R.Nearest.assign(P, std::numeric_limits<double>::infinity());
  std::vector<std::set<std::pair<int64_t, int32_t>>> InLinks(P), OutLinks(P);
  std::vector<double> In(P, 0), Out(P, 0);
  std::vector<Channel> Route;
  for (int64_t A = 0; A < P; ++A)
    for (int64_t B = 0; B < P; ++B) {
      if (A == B)
        continue;
      Route.clear();
      if (llvm::Error E = appendRoute(M.Topo, A, B, Route))
        return E;
      double Lat = 0;
      for (const Channel &C : Route)
        Lat += N.Links[C.Class].Latency;
      if (A == RootNode)
        R.FromRoot[B] = Lat;
      R.Nearest[B] = std::min(R.Nearest[B], Lat);
      R.Diameter = std::max(R.Diameter, Lat);
      const Channel &First = Route.front(), &Last = Route.back();
      if (OutLinks[A].insert({First.To, First.Lane}).second)
        Out[A] += N.Links[First.Class].Bandwidth;
      if (InLinks[B].insert({Last.From, Last.Lane}).second)
        In[B] += N.Links[Last.Class].Bandwidth;
    }
  auto Limit = [&](double Cap) {
    if (N.InjectionLinks > 0)
      Cap = std::min(Cap, N.InjectionLinks * N.Links[0].Bandwidth);
    if (N.InjectionBandwidth > 0)
      Cap = std::min(Cap, N.InjectionBandwidth);
    return Cap;
  };
  for (int64_t X = 0; X < P; ++X) {
    R.In.push_back(Limit(In[X]));
    R.Out.push_back(Limit(Out[X]));
  }
  return R;
}

/// The best latency and bandwidth factors among the bands a piece of 1 to
/// \p Bytes payload bytes (plus the envelope) falls in.
std::pair<double, double> bestFactors(const Network &N, uint64_t Bytes) {
  if (N.Bands.empty())
    return {1, 1};
  double LF = std::numeric_limits<double>::infinity(), BF = 0;
  const uint64_t Lo = 1 + N.EnvelopeBytes, Hi = Bytes + N.EnvelopeBytes;
  for (size_t I = 0; I < N.Bands.size(); ++I) {
    uint64_t BandHi = I + 1 < N.Bands.size()
                          ? N.Bands[I + 1].MinBytes - 1
                          : std::numeric_limits<uint64_t>::max();
    if (N.Bands[I].MinBytes > Hi || BandHi < Lo)
      continue;
    LF = std::min(LF, N.Bands[I].LatencyFactor);
    BF = std::max(BF, N.Bands[I].BandwidthFactor);
  }
  return {LF, BF};
}

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "physical lower bounds of a broadcast and an allreduce\n");
  const bool Bcast = CollName == "bcast";
  if (!Bcast && CollName != "allreduce")
    return fail("--collective: expected bcast or allreduce, got '" + CollName +
                "'");
  auto M = loadMachine(MachinePath);
  if (!M)
    return fail(llvm::toString(M.takeError()));
  if (!M->Net)
    return fail("machine '" + M->Name +
                "' has no network: the bound needs its links (a SimGrid "
                "platform or a spec with a `network:` section)");
  if (M->Net->ProcsPerNode != 1)
    return fail("machine '" + M->Name +
                "' runs several processes per node: the bound assumes one");
  if (!isRouted(M->Topo) || M->Topo.Nodes < 2)
    return fail("machine '" + M->Name +
                "' needs a routed topology of at least 2 nodes");
  const int64_t P = Ranks == 0 ? M->Topo.Nodes : Ranks;
  if (P < 2 || P > M->Topo.Nodes)
    return fail("--ranks: expected 2 to " + llvm::Twine(M->Topo.Nodes) +
                ", got " + llvm::Twine(P));
  if (Root < 0 || Root >= P)
    return fail("--root: expected 0 to " + llvm::Twine(P - 1) + ", got " +
                llvm::Twine(Root));
  auto R = reach(*M, P, Root);
  if (!R)
    return fail(llvm::toString(R.takeError()));

  llvm::outs() << "# " << CollName << " on " << M->Name << ", " << P
               << " ranks: bytes bound latency bandwidth LF BF node\n";
  for (uint64_t Bytes : Sizes) {
    auto [LF, BF] = bestFactors(*M->Net, Bytes);
    double Bound = 0, Lat = 0, Bw = 0;
    int64_t At = 0;
    auto Consider = [&](int64_t Node, double L, double B) {
      if (L + B > Bound) {
        Bound = L + B;
        Lat = L;
        Bw = B;
        At = Node;
      }
    };
    if (Bcast) {
      Consider(Root, R->Nearest[Root] * LF, Bytes / (R->Out[Root] * BF));
      for (int64_t N = 0; N < P; ++N)
        if (N != Root)
          Consider(N, R->FromRoot[N] * LF, Bytes / (R->In[N] * BF));
    } else {
      const double Moved = 2.0 * (P - 1) / P * Bytes;
      for (int64_t N = 0; N < P; ++N)
        Consider(N, R->Nearest[N] * LF,
                 Moved / (std::min(R->In[N], R->Out[N]) * BF));
      if (R->Diameter * LF > Bound) {
        Bound = Lat = R->Diameter * LF;
        Bw = 0;
        At = -1;
      }
    }
    llvm::outs() << Bytes << " " << llvm::format("%.3f", Bound) << " "
                 << llvm::format("%.3f", Lat) << " " << llvm::format("%.3f", Bw)
                 << " " << llvm::format("%.5g", LF) << " "
                 << llvm::format("%.6g", BF) << " "
                 << (At < 0 ? std::string("diameter") : nodeName(M->Topo, At))
                 << "\n";
  }
  return 0;
}
