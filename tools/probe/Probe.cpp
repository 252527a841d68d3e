//===- collc-probe: measures a machine and writes its spec ----------------===//
//
//   mpirun -np P collc-probe [-o FILE] [--topology T] [--quick] ...
//
// Rank 0 drives: it sends each partner a command, runs the measurement with
// it (ping-pong, send overhead, concurrent flows, exchange) and collects the
// medians; the other ranks wait for commands, asleep between them so that
// they leave the cores to the ranks measuring when processes outnumber
// cores. The fits and the spec are tools/probe/Fit.h and ProbeSpec.h;
// `collc-probe --help` says what is measured and every option.
//
// Builds with the MPI compiler wrappers (the CMake target collc-probe) and
// with SimGrid's smpicxx (collc-probe-smpi, docs/network.md).
//
// Exit status: 0 success, 1 bad usage, 2 the --max-error check failed, 3 the
// output could not be written.
//
//===----------------------------------------------------------------------===//

#include "ir/Network.h"
#include "tools/probe/Discover.h"
#include "tools/probe/Fit.h"
#include "tools/probe/ProbeOptions.h"
#include "tools/probe/ProbeSpec.h"
#include "tools/probe/ProbeTopology.h"

#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace collc::probe;

namespace {

enum Op : int32_t { Stop, PingPong, Overhead, Fan, Exchange, Flow };

/// What rank 0 asks a partner to do.
struct Command {
  int32_t What = Stop;
  /// Stop: the exit status; Exchange: the rounds; Flow: the rank to send to.
  int32_t Count = 0;
  /// Flow: the rank to receive from; Exchange: the piece size (0: whole).
  int32_t From = 0;
  int64_t Bytes = 0;
};

const int TagCommand = 1, TagData = 2, TagDone = 3, TagFlow = 4;

/// Message buffers, grown on demand: most ranks never need them.
struct Buffers {
  std::vector<char> Out, In;
  void reserve(uint64_t Bytes) {
    if (Out.size() < Bytes) {
      Out.assign(Bytes, 'p');
      In.assign(Bytes, 0);
    }
  }
};

int mpiCount(int64_t Bytes) { return static_cast<int>(Bytes); }

/// One flow of a round (`--topology discover`): receives \p Bytes from
/// rank \p From while sending as many to rank \p To; returns the time to
/// the receive's end, µs.
double flow(Buffers &B, int From, int To, int64_t Bytes) {
  B.reserve(static_cast<uint64_t>(Bytes));
  MPI_Request R[2];
  const double Start = MPI_Wtime();
  MPI_Irecv(B.In.data(), mpiCount(Bytes), MPI_BYTE, From, TagFlow,
            MPI_COMM_WORLD, &R[0]);
  MPI_Isend(B.Out.data(), mpiCount(Bytes), MPI_BYTE, To, TagFlow,
            MPI_COMM_WORLD, &R[1]);
  MPI_Wait(&R[0], MPI_STATUS_IGNORE);
  const double T = (MPI_Wtime() - Start) * 1e6;
  MPI_Wait(&R[1], MPI_STATUS_IGNORE);
  return T;
}

/// A 0-byte exchange with \p Peer: both sides start an exchange together
/// after it, as two ranks of a collective's step do (crossing rendezvous
/// requests are what may share a connection), and after it both are done.
void pairSync(int Peer) {
  MPI_Sendrecv(nullptr, 0, MPI_BYTE, Peer, TagData, nullptr, 0, MPI_BYTE, Peer,
               TagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/// \p Bytes to rank \p Peer and as many from it at once: one MPI_Sendrecv,
/// or with \p Piece (0 < Piece < Bytes) messages of at most Piece bytes
/// each way, all posted at once.
void exchangeOnce(Buffers &B, int Peer, int64_t Bytes, int64_t Piece) {
  if (Piece <= 0 || Piece >= Bytes) {
    MPI_Sendrecv(B.Out.data(), mpiCount(Bytes), MPI_BYTE, Peer, TagData,
                 B.In.data(), mpiCount(Bytes), MPI_BYTE, Peer, TagData,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return;
  }
  std::vector<MPI_Request> R;
  for (int64_t At = 0; At < Bytes; At += Piece) {
    const int Len = mpiCount(std::min(Piece, Bytes - At));
    R.emplace_back();
    MPI_Irecv(B.In.data() + At, Len, MPI_BYTE, Peer, TagData, MPI_COMM_WORLD,
              &R.back());
    R.emplace_back();
    MPI_Isend(B.Out.data() + At, Len, MPI_BYTE, Peer, TagData, MPI_COMM_WORLD,
              &R.back());
  }
  MPI_Waitall(static_cast<int>(R.size()), R.data(), MPI_STATUSES_IGNORE);
}

/// Waits for rank 0's next command. Under real MPI, asleep: a blocking
/// receive spins, and the spinning ranks would take the cores from the two
/// that measure. SMPI runs every rank in one simulation, where a blocking
/// receive costs nothing and a sleep would advance simulated time.
Command waitCommand() {
  Command C;
  MPI_Request R;
  MPI_Irecv(&C, sizeof C, MPI_BYTE, 0, TagCommand, MPI_COMM_WORLD, &R);
#ifdef SMPI_H
  MPI_Wait(&R, MPI_STATUS_IGNORE);
#else
  int Done = 0;
  for (MPI_Test(&R, &Done, MPI_STATUS_IGNORE); !Done;
       MPI_Test(&R, &Done, MPI_STATUS_IGNORE)) {
    timespec Nap{0, 200 * 1000};
    nanosleep(&Nap, nullptr);
  }
#endif
  return C;
}

/// A partner: answers rank 0 until told to stop; returns the exit status.
int serve() {
  Buffers B;
  for (;;) {
    Command C = waitCommand();
    if (C.What == Stop)
      return C.Count;
    B.reserve(static_cast<uint64_t>(C.Bytes));
    if (C.What == Flow) {
      double T = flow(B, C.From, C.Count, C.Bytes);
      MPI_Send(&T, 1, MPI_DOUBLE, 0, TagDone, MPI_COMM_WORLD);
      continue;
    }
    if (C.What == Exchange) {
      for (int32_t I = 0; I < C.Count; ++I) {
        pairSync(0);
        exchangeOnce(B, 0, C.Bytes, C.From);
        pairSync(0);
      }
      continue;
    }
    // Ping-pong, overhead and fan: answer each message until rank 0 says
    // done; a ping-pong returns the message, the others a 0-byte ack.
    for (;;) {
      MPI_Status St;
      MPI_Recv(B.In.data(), mpiCount(C.Bytes), MPI_BYTE, 0, MPI_ANY_TAG,
               MPI_COMM_WORLD, &St);
      if (St.MPI_TAG == TagDone)
        break;
      MPI_Send(B.Out.data(), C.What == PingPong ? mpiCount(C.Bytes) : 0,
               MPI_BYTE, 0, TagData, MPI_COMM_WORLD);
    }
  }
}

/// Rank 0's side of the measurements.
class Driver {
public:
  Driver(const ProbeOptions &O) : O(O) {}

  void command(int Peer, Op What, uint64_t Bytes, int32_t Count = 0,
               int32_t From = 0) {
    Command C;
    C.What = What;
    C.Count = Count;
    C.From = From;
    C.Bytes = static_cast<int64_t>(Bytes);
    MPI_Send(&C, sizeof C, MPI_BYTE, Peer, TagCommand, MPI_COMM_WORLD);
  }
  void done(int Peer) {
    MPI_Send(nullptr, 0, MPI_BYTE, Peer, TagDone, MPI_COMM_WORLD);
  }

  /// Median time of an empty pair of clock readings, µs.
  double measureTimer() {
    std::vector<double> T;
    for (int I = 0; I < 101; ++I) {
      double A = MPI_Wtime();
      double B = MPI_Wtime();
      T.push_back((B - A) * 1e6);
    }
    Timer = median(T);
    return Timer;
  }

  unsigned reps(uint64_t Bytes) const {
    if (Bytes <= 65536)
      return O.Quick ? 9 : 31;
    if (Bytes <= (uint64_t(1) << 20))
      return O.Quick ? 5 : 15;
    return O.Quick ? 3 : 7;
  }
  unsigned warmUp() const { return O.Quick ? 1 : 2; }

  /// Repeats \p Once (which returns µs) \p Reps times after \p Warm
  /// unrecorded runs; up to three times as often while the results spread
  /// by more than 5% (a busy machine), and only five times when they are
  /// all equal (a simulator).
  template <typename F>
  Sample repeat(uint64_t Bytes, unsigned Warm, unsigned Reps, F Once) {
    for (unsigned I = 0; I < Warm; ++I)
      Once();
    std::vector<double> T;
    for (unsigned I = 0; I < 3 * Reps; ++I) {
      T.push_back(Once());
      if (T.size() == 5) {
        auto [Lo, Hi] = std::minmax_element(T.begin(), T.end());
        if (*Hi - *Lo <= 1e-9 * std::max(std::fabs(*Hi), 1.0))
          break;
      }
      if (T.size() >= Reps && !O.Quick) {
        std::vector<double> Copy = T;
        if (relativeSpread(Copy) <= 0.05)
          break;
      } else if (T.size() >= Reps) {
        break;
      }
    }
    Sample S;
    S.Bytes = Bytes;
    S.Spread = relativeSpread(T);
    S.Time = median(T);
    return S;
  }

  /// Median one-way time between rank 0 and \p Peer.
  Sample pingPong(int Peer, uint64_t Bytes, unsigned Hops) {
    Bufs.reserve(Bytes);
    command(Peer, PingPong, Bytes);
    Sample S = repeat(Bytes, warmUp(), reps(Bytes), [&] {
      double A = MPI_Wtime();
      MPI_Send(Bufs.Out.data(), mpiCount(Bytes), MPI_BYTE, Peer, TagData,
               MPI_COMM_WORLD);
      MPI_Recv(Bufs.In.data(), mpiCount(Bytes), MPI_BYTE, Peer, TagData,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      return ((MPI_Wtime() - A) * 1e6 - Timer) / 2;
    });
    done(Peer);
    S.Hops = Hops;
    return S;
  }

  /// Median time a small send keeps rank 0 busy.
  double sendOverhead(int Peer) {
    const uint64_t Bytes = 8;
    Bufs.reserve(Bytes);
    command(Peer, Overhead, Bytes);
    Sample S = repeat(Bytes, warmUp(), O.Quick ? 9 : 31, [&] {
      double A = MPI_Wtime();
      MPI_Send(Bufs.Out.data(), mpiCount(Bytes), MPI_BYTE, Peer, TagData,
               MPI_COMM_WORLD);
      double T = (MPI_Wtime() - A) * 1e6 - Timer;
      MPI_Recv(Bufs.In.data(), 0, MPI_BYTE, Peer, TagData, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      return T;
    });
    done(Peer);
    // Below a picosecond is what is left of the timer's cost: nothing.
    return S.Time < 1e-6 ? 0.0 : S.Time;
  }

  /// Median time from sending \p Bytes to each of \p Peers at once to the
  /// last one's 0-byte acknowledgement.
  double fan(const std::vector<int> &Peers, uint64_t Bytes) {
    Bufs.reserve(Bytes);
    for (int P : Peers)
      command(P, Fan, Bytes);
    std::vector<MPI_Request> R(2 * Peers.size());
    Sample S = repeat(Bytes, warmUp(), reps(Bytes), [&] {
      double A = MPI_Wtime();
      for (size_t I = 0; I < Peers.size(); ++I) {
        MPI_Irecv(nullptr, 0, MPI_BYTE, Peers[I], TagData, MPI_COMM_WORLD,
                  &R[2 * I]);
        MPI_Isend(Bufs.Out.data(), mpiCount(Bytes), MPI_BYTE, Peers[I], TagData,
                  MPI_COMM_WORLD, &R[2 * I + 1]);
      }
      MPI_Waitall(static_cast<int>(R.size()), R.data(), MPI_STATUSES_IGNORE);
      return (MPI_Wtime() - A) * 1e6 - Timer;
    });
    for (int P : Peers)
      done(P);
    return S.Time;
  }

  /// Median time of \p Bytes each way at once between rank 0 and \p Peer.
  double exchange(int Peer, uint64_t Bytes, uint64_t Piece = 0) {
    Bufs.reserve(Bytes);
    unsigned Reps = reps(Bytes), Warm = warmUp();
    command(Peer, Exchange, Bytes, static_cast<int32_t>(Warm + Reps),
            static_cast<int32_t>(Piece));
    // No early stop: the partner runs a fixed number of rounds.
    std::vector<double> T;
    for (unsigned I = 0; I < Warm + Reps; ++I) {
      pairSync(Peer);
      double A = MPI_Wtime();
      exchangeOnce(Bufs, Peer, static_cast<int64_t>(Bytes),
                   static_cast<int64_t>(Piece));
      // Until both sides are done: one direction may finish long before
      // the other.
      pairSync(Peer);
      if (I >= Warm)
        T.push_back((MPI_Wtime() - A) * 1e6 - Timer);
    }
    return median(T);
  }

  /// One round of `--topology discover`: node n (its rank \p Ranks[n])
  /// sends \p Bytes to node \p To[n], all at once; the flows' rates as
  /// their receivers timed them.
  std::vector<FlowSample> flowRound(int Round, const std::vector<int> &Ranks,
                                    const std::vector<int> &To,
                                    uint64_t Bytes) {
    const size_t N = Ranks.size();
    std::vector<int> From(N);
    for (size_t I = 0; I < N; ++I)
      From[static_cast<size_t>(To[I])] = static_cast<int>(I);
    for (size_t I = 1; I < N; ++I)
      command(Ranks[I], Flow, Bytes, Ranks[static_cast<size_t>(To[I])],
              Ranks[static_cast<size_t>(From[I])]);
    std::vector<double> Micros(N);
    Micros[0] =
        flow(Bufs, Ranks[static_cast<size_t>(From[0])],
             Ranks[static_cast<size_t>(To[0])], static_cast<int64_t>(Bytes));
    for (size_t I = 1; I < N; ++I)
      MPI_Recv(&Micros[I], 1, MPI_DOUBLE, Ranks[I], TagDone, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    std::vector<FlowSample> S;
    for (size_t I = 0; I < N; ++I)
      S.push_back({Round, From[I], static_cast<int>(I),
                   static_cast<double>(Bytes) / std::max(Micros[I], 1e-9)});
    return S;
  }

private:
  const ProbeOptions &O;
  Buffers Bufs;
  double Timer = 0;
};

llvm::raw_ostream &progress() { return llvm::errs() << "collc-probe: "; }

std::string partnerText(const Partner &P) {
  if (P.Intra)
    return "rank " + std::to_string(P.Rank) + " (same node)";
  return "rank " + std::to_string(P.Rank) + " (" + std::to_string(P.Hops) +
         (P.Hops == 1 ? " link)" : " links)");
}

/// Writes \p Text to \p Path through a temporary file in the same
/// directory, renamed over it at the end.
bool writeFile(const std::string &Path, const std::string &Text,
               std::string &Why) {
  std::string Tmp = Path + ".tmpXXXXXX";
  int Fd = mkstemp(Tmp.data());
  if (Fd < 0) {
    Why = std::strerror(errno);
    return false;
  }
  size_t Done = 0;
  while (Done < Text.size()) {
    ssize_t N = ::write(Fd, Text.data() + Done, Text.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) {
      Why = std::strerror(errno);
      ::close(Fd);
      ::unlink(Tmp.c_str());
      return false;
    }
    Done += static_cast<size_t>(N);
  }
  // mkstemp makes the file private; give it the mode any new file gets.
  mode_t Mask = ::umask(0);
  ::umask(Mask);
  if (::fchmod(Fd, 0666 & ~Mask) != 0 || ::close(Fd) != 0 ||
      std::rename(Tmp.c_str(), Path.c_str()) != 0) {
    Why = std::strerror(errno);
    ::unlink(Tmp.c_str());
    return false;
  }
  return true;
}

std::string percent(double Fraction) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.2f%%", 100 * Fraction);
  return Buf;
}

int fail(const llvm::Twine &Message, int Status) {
  llvm::WithColor::error(llvm::errs(), "collc-probe") << Message << "\n";
  return Status;
}

/// "1.9": a capacity in flows, one decimal.
std::string capacityText(double Flows) {
  char Text[32];
  std::snprintf(Text, sizeof Text, "%.1f", Flows);
  return Text;
}

/// ", N of them taken as noise" when some flows inside leaves were.
std::string noiseText(const Discovery &Found) {
  return Found.Noise ? ", " + std::to_string(Found.Noise) +
                           " of them inside leaves taken as noise"
                     : std::string();
}

/// `--topology discover`: rounds of concurrent flows between the nodes (the
/// first rank of each), then the topology they show (tools/probe/Discover.h)
/// into \p R.
void discoverTopology(Driver &D, ProbeReport &R, const ProbeOptions &O) {
  const int N = static_cast<int>(R.Where.NodeNames.size());
  std::vector<int> Ranks(static_cast<size_t>(N), -1);
  for (size_t Rank = 0; Rank < R.Where.RankNodes.size(); ++Rank) {
    int &First = Ranks[static_cast<size_t>(R.Where.RankNodes[Rank])];
    if (First < 0)
      First = static_cast<int>(Rank);
  }
  ProbeTopology Flat;
  Flat.K = ProbeTopology::Cluster;
  if (N < 3) {
    R.Topology = Flat;
    R.Discovered = "fewer than 3 nodes, nothing to tell apart: a flat cluster";
    return;
  }
  const uint64_t Bytes =
      std::min<uint64_t>(O.MaxBytes, O.Quick ? 262144 : 1048576);
  progress() << "discovering the topology: rounds of " << N
             << " concurrent flows of " << sizeText(Bytes) << "\n";
  // One flow alone, node 0 to node 1: the full rate.
  const Sample Lone = D.pingPong(Ranks[1], Bytes, 1);
  const double Alone = static_cast<double>(Bytes) / std::max(Lone.Time, 1e-9);
  std::vector<FlowSample> All;
  Discovery Found = discover(
      N, /*Seed=*/1, 2, 16 * N, Alone,
      [&](int Round, const std::vector<int> &To) {
        return D.flowRound(Round, Ranks, To, Bytes);
      },
      All);
  const std::string Rounds =
      std::to_string(All.size() / static_cast<size_t>(N)) + " rounds";
  switch (Found.Result) {
  case Discovery::OneSwitch:
    R.Topology = Flat;
    R.Discovered = "no flow of " + Rounds + " was slowed by another" +
                   (Found.Noise ? ", but for " + std::to_string(Found.Noise) +
                                      " taken as noise"
                                : std::string()) +
                   ": the nodes are as on one switch";
    break;
  case Discovery::Leaves: {
    const int64_t K = static_cast<int64_t>(Found.Groups.front().size());
    const int64_t L = static_cast<int64_t>(Found.Groups.size());
    const int64_t Up = std::clamp<int64_t>(std::llround(Found.Capacity), 1, K);
    std::string Text = std::to_string(Found.Groups.size()) +
                       " leaf switches (" + Rounds + ", " +
                       std::to_string(Found.Slowed) + " flows slowed" +
                       noiseText(Found) + "); a leaf's uplinks carry " +
                       capacityText(Found.Capacity) + " flows at the full rate";
    if (!contiguousLeaves(Found)) {
      Text += ", but the leaves are not of one size in rank order, as a fat "
              "tree's are: the routes are taken as one link";
      R.Discovered = Text;
      break;
    }
    R.Topology.K = ProbeTopology::FatTree;
    R.Topology.Down = {K, L};
    R.Topology.Up = {1, Up};
    R.Topology.Parallel = {1, 1};
    R.Discovered =
        Text + " (" + std::to_string(Up) + " uplinks of a node's rate)";
    break;
  }
  case Discovery::Unclear:
    R.Discovered = "unclear after " + Rounds + " (" + Found.Why +
                   "): the routes are taken as one link";
    break;
  }
  progress() << "topology: " << R.Discovered << "\n";
}

/// Rank 0: measures, fits, writes. Returns the exit status.
int probe(const ProbeOptions &O, const std::vector<std::string> &Names) {
  const int P = static_cast<int>(Names.size());
  ProbeReport R;
  R.Name = O.Name;
  R.Processes = P;
  R.Where = detectPlacement(Names);
  R.Topology = O.Topology;
  R.TopologyNamed = O.Topology.K != ProbeTopology::Full || O.Topology.Nodes;
  R.BaseLink = O.BaseLink;
  R.Quick = O.Quick;
  const int64_t Found = static_cast<int64_t>(R.Where.NodeNames.size());
  R.Nodes = O.Topology.nodeCount(Found);
  if (R.Nodes < Found)
    return fail("--topology " + O.Topology.text() + " has " +
                    llvm::Twine(R.Nodes) + " nodes, but the processes run on " +
                    llvm::Twine(Found),
                1);
  progress() << P << " processes on " << Found
             << (Found == 1 ? " node" : " nodes") << ", up to "
             << R.Where.ProcsPerNode << " per node\n";

  Driver D(O);
  if (O.Discover) {
    discoverTopology(D, R, O);
    R.Nodes = R.Topology.nodeCount(Found);
  }
  R.TimerCost = D.measureTimer();
  std::vector<Partner> Partners = choosePartners(R.Where.RankNodes, R.Topology);
  const Partner &Ref = Partners.front();
  double Overhead = D.sendOverhead(Ref.Rank);
  progress() << "timer " << llvm::format("%.3g", R.TimerCost)
             << " µs per reading; send overhead "
             << llvm::format("%.3g", Overhead) << " µs (8 B to "
             << partnerText(Ref) << ")\n";

  const std::vector<uint64_t> Sizes = probeSizes(O.MaxBytes, O.Quick ? 2 : 4);
  for (const Partner &Pt : Partners) {
    progress() << "ping-pong with " << partnerText(Pt) << ": " << Sizes.size()
               << " sizes, 0 B .. " << sizeText(O.MaxBytes) << "\n";
    MeasuredPair M;
    M.Peer = Pt.Rank;
    M.Hops = Pt.Hops;
    M.Intra = Pt.Intra;
    for (uint64_t Bytes : Sizes)
      M.Samples.push_back(D.pingPong(Pt.Rank, Bytes, Pt.Hops));
    R.Pairs.push_back(std::move(M));
  }

  // The bands come from the routes between nodes, or, when every rank runs
  // on one node, from the intra-node pairs.
  std::vector<Sample> Inter, Intra;
  auto Split = [&] {
    Inter.clear();
    Intra.clear();
    for (const MeasuredPair &M : R.Pairs) {
      std::vector<Sample> &Into = M.Intra ? Intra : Inter;
      Into.insert(Into.end(), M.Samples.begin(), M.Samples.end());
    }
  };
  Split();
  R.OnlyIntra = Inter.empty();
  FitOptions FO;
  FO.Tolerance = fitTolerance(R.OnlyIntra ? Intra : Inter);
  std::vector<BandFit> Bands =
      fitBands(R.OnlyIntra ? Intra : Inter, Overhead, FO);
  std::vector<uint64_t> Froms;
  for (const BandFit &B : Bands)
    Froms.push_back(B.From);
  progress() << "fit: " << Bands.size()
             << (Bands.size() == 1 ? " band" : " bands") << " (aiming at "
             << llvm::format("%.2g", 100 * FO.Tolerance) << "% error)\n";

  if (!O.Quick && Bands.size() > 1) {
    progress() << "refining " << Bands.size() - 1
               << " band boundaries by bisection with " << partnerText(Ref)
               << "\n";
    std::vector<Sample> Extra;
    for (size_t B = 1; B < Bands.size(); ++B) {
      auto Below = std::lower_bound(Sizes.begin(), Sizes.end(), Bands[B].From);
      uint64_t Lo = Below == Sizes.begin() ? 0 : *(Below - 1);
      Froms[B] = refineBoundary(
          Bands[B - 1], Bands[B], Lo, Bands[B].From, Overhead,
          [&](uint64_t Bytes) { return D.pingPong(Ref.Rank, Bytes, Ref.Hops); },
          24, Extra);
    }
    R.Pairs.front().Samples.insert(R.Pairs.front().Samples.end(), Extra.begin(),
                                   Extra.end());
    Split();
  }
  R.Net = fitNetwork(Inter, Intra, Overhead, Froms, O.BaseLink, Sizes.front(),
                     Sizes.back());

  // Concurrent flows out of rank 0: what a node can inject.
  R.FanBytes = std::min<uint64_t>(O.MaxBytes, O.Quick ? 262144 : 1048576);
  R.FanPeers = chooseFanPeers(R.Where.RankNodes, R.Topology,
                              static_cast<unsigned>(std::min(4, P - 1)));
  const int64_t Home = R.Where.RankNodes.front();
  R.FansInterNode = R.Where.RankNodes[R.FanPeers.front()] != Home;
  progress() << "1.." << R.FanPeers.size() << " concurrent flows of "
             << sizeText(R.FanBytes) << " from rank 0\n";
  for (size_t K = 1; K <= R.FanPeers.size(); ++K) {
    std::vector<int> Peers(R.FanPeers.begin(), R.FanPeers.begin() + K);
    std::vector<int64_t> Nodes;
    unsigned Hops = 1;
    for (int Peer : Peers) {
      int64_t N = R.Where.RankNodes[Peer];
      Nodes.push_back(N);
      Hops = std::max(Hops, R.Topology.hops(Home, N));
    }
    double T = D.fan(Peers, R.FanBytes);
    // Take off what is not the flows' transfer: the latency of the data and
    // of the acknowledgement, as the fit predicts them.
    auto OneWay = [&](uint64_t Bytes) {
      return R.FansInterNode ? R.Net.predict(Bytes, Hops)
                             : R.Net.predictIntra(Bytes);
    };
    const collc::ProtocolBand &F = R.Net.band(R.FanBytes);
    double LinkBw =
        R.FansInterNode ? R.Net.Link.Bandwidth : R.Net.Intra.Bandwidth;
    double Latency = OneWay(R.FanBytes) - static_cast<double>(R.FanBytes) /
                                              (F.BandwidthFactor * LinkBw);
    double Transfer = std::max(T - Latency - OneWay(0), 1e-9);
    FanSample S;
    S.Flows = static_cast<unsigned>(K);
    S.Shared = R.FansInterNode ? R.Topology.sharedFirstLink(Home, Nodes) : 1;
    S.Rate = static_cast<double>(K * R.FanBytes) / Transfer;
    R.Fans.push_back(S);
  }
  if (R.FansInterNode)
    fitInjection(R.Fans, R.Net);

  // Both directions at once: full or half duplex.
  R.ExchangeBytes = R.FanBytes;
  progress() << sizeText(R.ExchangeBytes) << " both ways at once with "
             << partnerText(Ref) << "\n";
  double X = D.exchange(Ref.Rank, R.ExchangeBytes);
  double One = Ref.Intra ? R.Net.predictIntra(R.ExchangeBytes)
                         : R.Net.predict(R.ExchangeBytes, Ref.Hops);
  R.ExchangeMeasured = true;
  R.ExchangeIntra = Ref.Intra;
  R.ExchangeRatio = X / One;
  R.Net.FullDuplex = isFullDuplex(X, One);
  // Messages beyond the eager limit that cross on one connection may share
  // it where smaller ones do not (Open MPI over TCP): the same exchange in
  // pieces below the limit, and the pieces kept when whole messages looked
  // half duplex and the pieces are much faster.
  const uint64_t Eager = collc::Network().RendezvousBytes; // the default
  if (R.ExchangeBytes >= 2 * Eager) {
    const uint64_t Piece = Eager - Eager / 128;
    progress() << "the same in pieces of " << Piece << " bytes\n";
    R.PiecesRatio = D.exchange(Ref.Rank, R.ExchangeBytes, Piece) / One;
    if (!R.Net.FullDuplex && R.ExchangeRatio > 1.4 * R.PiecesRatio) {
      R.Net.MaxPiece = Piece;
      R.Net.FullDuplex = isFullDuplex(R.PiecesRatio * One, One);
    }
  }

  // The self-check: every measured median against the spec's prediction.
  std::vector<BandCheck> Checks = selfCheck(R);
  double Worst = maxError(Checks);
  progress() << "self-check, measured against predicted medians:\n";
  writeCheckSummary(llvm::errs(), Checks);
  if (Worst > 2 * FO.Tolerance)
    progress() << "note: predictions are off by up to " << percent(Worst)
               << ": a busy machine (see the spreads), or a topology other "
                  "than the one named\n";
  if (O.MaxError >= 0 && Worst > O.MaxError)
    return fail("a prediction is off its measured median by " + percent(Worst) +
                    ", more than --max-error " + percent(O.MaxError) +
                    "; nothing written",
                2);

  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeProbeSpec(OS, R);
  OS.flush();
  if (O.Output.empty()) {
    llvm::outs() << Text;
    llvm::outs().flush();
    return 0;
  }
  std::string Why;
  if (!writeFile(O.Output, Text, Why))
    return fail("cannot write '" + O.Output + "': " + Why, 3);
  progress() << "wrote " << O.Output << "\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank = 0, Size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);

  std::vector<std::string> Args(argv + 1, argv + argc);
  llvm::Expected<ProbeOptions> Opts = parseProbeOptions(Args);
  int Status = 0;
  if (!Opts) {
    std::string Message = llvm::toString(Opts.takeError());
    if (Rank == 0)
      fail(Message, 1);
    Status = 1;
  } else if (Opts->Help || Opts->Version) {
    if (Rank == 0)
      llvm::outs() << (Opts->Help ? ProbeHelp
                                  : "collc-probe " COLLC_VERSION "\n");
  } else if (Size < 2) {
    Status = fail("needs at least 2 processes", 1);
  }
  if (Status != 0 || !Opts || Opts->Help || Opts->Version) {
    llvm::outs().flush();
    MPI_Finalize();
    return Status;
  }

  char Name[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int Len = 0;
  MPI_Get_processor_name(Name, &Len);
  std::vector<char> All(static_cast<size_t>(Size) * sizeof Name);
  MPI_Gather(Name, sizeof Name, MPI_CHAR, All.data(), sizeof Name, MPI_CHAR, 0,
             MPI_COMM_WORLD);

  if (Rank != 0) {
    Status = serve();
  } else {
    std::vector<std::string> Names;
    for (int R = 0; R < Size; ++R)
      Names.emplace_back(All.data() + static_cast<size_t>(R) * sizeof Name);
    Status = probe(*Opts, Names);
    Command Stop;
    Stop.Count = Status;
    for (int R = 1; R < Size; ++R)
      MPI_Send(&Stop, sizeof Stop, MPI_BYTE, R, TagCommand, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return Status;
}
