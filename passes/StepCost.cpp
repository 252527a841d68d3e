#include "passes/StepCost.h"

#include "ir/FatTree.h"
#include "passes/Dependencies.h"
#include "passes/Routes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace collc {

namespace {

constexpr double Inf = std::numeric_limits<double>::infinity();

/// One message of the step being priced.
struct Message {
  double Bytes = 0;   ///< Envelope included.
  double Latency = 0; ///< Route latency x the band's latency factor.
  double Weight = 1;  ///< 1 / penalty: its share of a link it shares.
  double Alone = Inf; ///< The rate it gets alone (before the band's factor).
  double Factor = 1;  ///< The band's bandwidth factor.
  uint32_t Begin = 0, End = 0; ///< Its resources, in StepPricer::Uses.
};

/// Channel keys hashed with every bit mixed in (DenseMap's own hash of an
/// integer keeps only its low 32 bits, where the sender's vertex is not).
struct ChannelKeyInfo {
  static uint64_t getEmptyKey() { return ~uint64_t(0); }
  static uint64_t getTombstoneKey() { return ~uint64_t(0) - 1; }
  static unsigned getHashValue(uint64_t K) {
    K ^= K >> 33;
    K *= 0xff51afd7ed558ccdULL;
    K ^= K >> 33;
    K *= 0xc4ceb9fe1a85ec53ULL;
    K ^= K >> 33;
    return static_cast<unsigned>(K);
  }
  static bool isEqual(uint64_t A, uint64_t B) { return A == B; }
};

/// What the messages of one step put on one resource.
struct Load {
  double Weight = 0, Bytes = 0;
};

/// The resources the step pricing shares among a step's messages: the
/// links (both directions one on a half duplex link class) and, where the
/// network limits them, each node's injection and ejection, numbered as
/// they are met, with their capacities.
class ResourceMap {
public:
  ResourceMap(const Machine &M, const std::vector<Participant> &Participants)
      : M(M), Net(*M.Net) {
    int64_t Vertices = 0;
    for (const Participant &Pt : Participants)
      Vertices = std::max(Vertices, Pt.Node + 1);
    const double Limit = Net.injectionLimit();
    if (Limit < Inf) {
      // Node n's injection is resource 2n, its ejection 2n + 1; a SimGrid
      // limiter is 2n alone, on every node a route may cross.
      if (Net.SharedLimiter)
        Vertices = std::max(Vertices, M.Topo.Nodes);
      Capacity.assign(static_cast<size_t>(2 * Vertices), Limit);
      NodeLimits = true;
    }
    // On a mesh, torus or hypercube a link is found by its node and
    // direction, without hashing (a step of a million routes crosses
    // hundreds of millions of links).
    if (M.Topo.hasCoordinates()) {
      const size_t Dims = M.Topo.Dims.size();
      Strides.assign(Dims, 1);
      for (size_t I = Dims; I-- > 1;)
        Strides[I - 1] = Strides[I] * M.Topo.Dims[I];
      // Per node, a slot per dimension and way: two ways where the extent
      // exceeds 2 (a ring of 2 or a hypercube's edge has one neighbour).
      Slot.assign(Dims + 1, 0);
      for (size_t I = 0; I < Dims; ++I)
        Slot[I + 1] = Slot[I] + (M.Topo.Dims[I] > 2 ? 2 : 1);
      ByDirection.assign(static_cast<size_t>(M.Topo.Nodes * Slot[Dims]), NoId);
    }
    // On a fat tree, likewise by the link's lower vertex, the parent it
    // leads to, its lane and its direction (hashing the keys of a step's
    // routes took a tenth of a 65,536-rank allreduce's search).
    if (M.Topo.Kind == TopologyKind::FatTree && M.Topo.Levels >= 1 &&
        M.Topo.Up.size() == size_t(M.Topo.Levels) &&
        M.Topo.Parallel.size() == size_t(M.Topo.Levels)) {
      Tree.emplace(M.Topo);
      if (Tree->nodes() + Tree->numSwitches() >= int64_t(NoUpper)) {
        Tree.reset(); // vertices beyond a slot's number: hashed
        return;
      }
      TreeBase.assign(size_t(M.Topo.Levels) + 1, 0);
      for (int32_t Lv = 0; Lv < Tree->levels(); ++Lv)
        TreeBase[Lv + 1] = TreeBase[Lv] + Tree->verticesAt(Lv) * M.Topo.Up[Lv] *
                                              M.Topo.Parallel[Lv] * 2;
      ByTreeLink.assign(size_t(TreeBase.back()), TreeLink{});
    }
  }

  /// Calls \p Fn with every resource of the route from node \p A to node
  /// \p B (\p Route holds its channels), in the order describe() books them.
  template <typename F>
  void forEachResource(int64_t A, int64_t B, const std::vector<Channel> &Route,
                       F &&Fn) {
    for (const Channel &C : Route)
      if (!Net.Links[C.Class].FatPipe)
        Fn(linkResource(C));
    if (NodeLimits && Net.SharedLimiter) {
      LimiterNodes.clear();
      appendLimiterNodes(M.Topo, A, B, Route, LimiterNodes);
      for (int64_t N : LimiterNodes)
        Fn(static_cast<uint32_t>(2 * N));
    } else if (NodeLimits) {
      Fn(static_cast<uint32_t>(2 * A));
      Fn(static_cast<uint32_t>(2 * B + 1));
    }
  }

  /// Per resource, its capacity (bytes per unit of time).
  std::vector<double> Capacity;

private:
  /// The resource of channel \p C (both directions share one on a half
  /// duplex link class).
  LLVM_ATTRIBUTE_ALWAYS_INLINE uint32_t linkResource(const Channel &C) {
    int64_t A = C.From, B = C.To;
    if (!Net.Links[C.Class].FullDuplex && A > B)
      std::swap(A, B);
    if (!ByDirection.empty() && C.Lane == 0)
      if (uint32_t *Id = directed(A, B))
        return claim(*Id, C);
    if (Tree)
      if (uint32_t *Id = treeLink(A, B, C.Lane))
        return claim(*Id, C);
    const uint64_t Key = (static_cast<uint64_t>(A) << 40) ^
                         (static_cast<uint64_t>(B) << 16) ^
                         static_cast<uint64_t>(C.Lane);
    auto [It, New] = LinkIds.try_emplace(Key, uint32_t(Capacity.size()));
    if (New)
      Capacity.push_back(Net.Links[C.Class].Bandwidth);
    return It->second;
  }

  /// The slot of the link from node \p A to its neighbour \p B on a mesh,
  /// torus or hypercube: A's, by the dimension and the way (up, or down
  /// where the extent exceeds 2: a ring of 2 has one neighbour) B lies in;
  /// nullptr where B is no neighbour. The node distance names the
  /// dimension: +-stride (no wrap) or -+(extent - 1) x stride (a wrap),
  /// distinct across the dimensions of extent 2 or more.
  LLVM_ATTRIBUTE_ALWAYS_INLINE uint32_t *directed(int64_t A, int64_t B) {
    const int64_t Delta = B - A;
    // A route's hops in one dimension share their distance: the slot
    // found for the last one serves them all.
    if (Delta != LastDelta) {
      LastDelta = Delta;
      LastSlot = NoSlot;
      for (size_t I = Strides.size(); I-- > 0;) {
        const int64_t D = M.Topo.Dims[I], S = Strides[I];
        if (D < 2)
          continue;
        const bool Up = Delta == S || Delta == -(D - 1) * S;
        if (Up || Delta == -S || Delta == (D - 1) * S) {
          LastSlot = Slot[I] + (D > 2 && !Up);
          break;
        }
      }
    }
    if (LastSlot == NoSlot)
      return nullptr;
    return &ByDirection[size_t(A * Slot.back() + LastSlot)];
  }

  /// The resource in slot \p Id, numbered now (as channel \p C's link)
  /// if it was not met yet.
  uint32_t claim(uint32_t &Id, const Channel &C) {
    if (Id == NoId) {
      Id = static_cast<uint32_t>(Capacity.size());
      Capacity.push_back(Net.Links[C.Class].Bandwidth);
    }
    return Id;
  }

  /// The slot of the fat tree's link from vertex \p A to vertex \p B
  /// (one level apart) on lane \p Lane: by the lower vertex, the parent's
  /// digit at the lower level, the lane and the direction. A slot belongs
  /// to the first upper vertex met on it; nullptr for another (hashed
  /// instead) and for channels that are no such link.
  uint32_t *treeLink(int64_t A, int64_t B, int32_t Lane) {
    const int64_t Lo = std::min(A, B), Hi = std::max(A, B);
    if (Lo < 0)
      return nullptr;
    const FatTreeVertex V = Tree->vertexOf(Lo), U = Tree->vertexOf(Hi);
    if (V.Level >= Tree->levels() || U.Level != V.Level + 1)
      return nullptr;
    const int64_t Up = M.Topo.Up[V.Level], Par = M.Topo.Parallel[V.Level];
    const int64_t J = Tree->digit(U, V.Level);
    if (J < 0 || J >= Up || Lane < 0 || Lane >= Par)
      return nullptr;
    TreeLink &L =
        ByTreeLink[size_t(TreeBase[V.Level] +
                          ((V.Position * Up + J) * Par + Lane) * 2 + (A > B))];
    if (L.Upper == NoUpper)
      L.Upper = static_cast<uint32_t>(Hi);
    else if (L.Upper != Hi)
      return nullptr;
    return &L.Id;
  }

  static constexpr uint32_t NoId = ~uint32_t(0);
  static constexpr int64_t NoSlot = -1;
  const Machine &M;
  const Network &Net;
  bool NodeLimits = false;
  std::vector<int64_t> LimiterNodes;
  llvm::DenseMap<uint64_t, uint32_t, ChannelKeyInfo> LinkIds;
  /// On a mesh, torus or hypercube: per dimension its stride and its first
  /// slot (the last: the slots of a node), and per node and slot the link's
  /// resource (NoId: not met yet).
  std::vector<int64_t> Strides, Slot;
  std::vector<uint32_t> ByDirection;
  /// The node distance directed() met last (0: none, no link's) and its
  /// slot (NoSlot: no neighbour's).
  int64_t LastDelta = 0, LastSlot = NoSlot;
  /// On a fat tree: its vertices, per level the first of its links' slots
  /// (the last: their number), and per slot the upper vertex it belongs to
  /// (NoUpper: none yet) and the link's resource (NoId: not met yet).
  static constexpr uint32_t NoUpper = ~uint32_t(0);
  struct TreeLink {
    uint32_t Upper = NoUpper;
    uint32_t Id = NoId;
  };
  std::optional<FatTreeNetwork> Tree;
  std::vector<int64_t> TreeBase;
  std::vector<TreeLink> ByTreeLink;
};

/// How long a message of Bytes keeps a resource of a capacity busy at a
/// band's bandwidth factor: the bytes at the capacity over the factor,
/// divided once per capacity met in a row (a route's links share theirs).
class BusyAt {
public:
  BusyAt(double Bytes, double Factor) : Bytes(Bytes), Factor(Factor) {}
  double operator()(double Capacity) {
    if (!(Capacity == Last)) {
      Last = Capacity;
      Busy = Bytes / Capacity / Factor;
    }
    return Busy;
  }

private:
  const double Bytes, Factor;
  double Last = std::numeric_limits<double>::quiet_NaN(), Busy = 0;
};

class StepPricer {
public:
  StepPricer(Schedule &S, const Machine &M, size_t KeepUsesUpTo,
             double GiveUpAbove)
      : S(S), M(M), Net(*M.Net), KeepUsesUpTo(KeepUsesUpTo),
        GiveUpAbove(GiveUpAbove), Got(S.size(), S.numTransfers(), S.NumChunks),
        Clock(S.size(), 0.0), Res(M, S.Participants), Capacity(Res.Capacity) {}

  bool run() {
    double Makespan = 0;
    uint32_t Id = 0;
    std::vector<double> ReadyAt;
    for (Step &St : S.Steps) {
      Got.latestEnds(St, ReadyAt);
      describe(St);
      for (size_t I = 0; I < St.Transfers.size(); ++I) {
        Transfer &T = St.Transfers[I];
        const Message &Ms = Msgs[I];
        double &C = Clock[T.Src];
        C = std::max(C, ReadyAt[I]) + Net.SendOverhead;
        T.Start = C;
        T.End = occupy(T, Ms, C + Ms.Latency);
        Makespan = std::max(Makespan, T.End);
      }
      // The makespan only grows: past the bound the rest cannot bring it
      // back below.
      if (Makespan > GiveUpAbove) {
        S.Makespan = Makespan;
        return false;
      }
      for (uint32_t R : Touched)
        Loads[R] = Load{};
      Touched.clear();
      Got.addStep(St, Id);
      Id += static_cast<uint32_t>(St.Transfers.size());
    }
    S.Makespan = Makespan;
    return true;
  }

private:
  void use(Message &Ms, uint32_t R) {
    if (KeepUses)
      Uses.push_back(R);
    if (R >= Loads.size())
      Loads.resize(std::max<size_t>(R + 1, Capacity.size()));
    if (Loads[R].Weight == 0)
      Touched.push_back(R);
    Loads[R].Weight += Ms.Weight;
    Loads[R].Bytes += Ms.Bytes;
  }

  /// Fills Msgs and the loads of the resources for the transfers of \p St.
  void describe(const Step &St) {
    Msgs.assign(St.Transfers.size(), Message{});
    Uses.clear();
    // A step of many messages does not keep each message's resources:
    // occupy() routes it again (estimateStepCost).
    KeepUses = St.Transfers.size() <= KeepUsesUpTo;
    for (size_t I = 0; I < St.Transfers.size(); ++I) {
      const Transfer &T = St.Transfers[I];
      Message &Ms = Msgs[I];
      const uint64_t Bytes = T.Bytes + Net.EnvelopeBytes;
      const ProtocolBand &Band = Net.band(Bytes);
      Ms.Bytes = static_cast<double>(Bytes);
      Ms.Factor = Band.BandwidthFactor;
      const int64_t A = S.Participants[T.Src].Node,
                    B = S.Participants[T.Dst].Node;
      Ms.Begin = Ms.End = static_cast<uint32_t>(Uses.size());
      if (A == B) {
        Ms.Latency = Net.IntraNode.Latency * Band.LatencyFactor;
        if (Net.IntraNode.Bandwidth > 0)
          Ms.Alone = Net.IntraNode.Bandwidth;
        continue;
      }
      Route.clear();
      llvm::cantFail(appendRoute(M.Topo, A, B, Route, T.TieDown));
      double Latency = 0, WeightTerm = 0;
      for (const Channel &C : Route) {
        const LinkClass &LC = Net.Links[C.Class];
        Latency += LC.Latency;
        if (Net.WeightS > 0)
          WeightTerm += Net.WeightS / LC.Bandwidth;
        Ms.Alone = std::min(Ms.Alone, LC.Bandwidth);
      }
      if (Net.TcpGamma > 0 && Latency > 0)
        Ms.Alone = std::min(Ms.Alone, Net.TcpGamma / (2 * Latency));
      Ms.Latency = Latency * Band.LatencyFactor;
      const double Penalty = Latency + WeightTerm;
      Ms.Weight = Penalty > 0 ? 1 / Penalty : 1;
      Res.forEachResource(A, B, Route, [&](uint32_t R) { use(Ms, R); });
      Ms.End = static_cast<uint32_t>(Uses.size());
    }
  }

  /// When the data phase of \p Ms, starting at \p From, ends: alone at its
  /// bound, or its share of the busiest resource it crosses among the
  /// step's messages, whichever is slower, and not before each resource has
  /// carried what earlier messages put on it (a rank's sends of later steps
  /// leave without waiting for its earlier ones, so steps overlap on the
  /// links). Books the resources it crosses.
  double occupy(const Transfer &Tr, const Message &Ms, double From) {
    double T = Ms.Alone < Inf ? Ms.Bytes / Ms.Alone : 0;
    double End = From;
    BusyAt Busy(Ms.Bytes, Ms.Factor);
    auto Book = [&](uint32_t R) {
      const Load &L = Loads[R];
      const double Shared = std::min(Ms.Bytes * L.Weight / Ms.Weight, L.Bytes);
      T = std::max(T, Shared / Capacity[R]);
      if (R >= FreeAt.size())
        FreeAt.resize(std::max<size_t>(R + 1, Capacity.size()), 0.0);
      FreeAt[R] = std::max(FreeAt[R], From) + Busy(Capacity[R]);
      End = std::max(End, FreeAt[R]);
    };
    if (KeepUses) {
      for (uint32_t U = Ms.Begin; U < Ms.End; ++U)
        Book(Uses[U]);
    } else {
      const int64_t A = S.Participants[Tr.Src].Node,
                    B = S.Participants[Tr.Dst].Node;
      if (A != B) {
        Route.clear();
        llvm::cantFail(appendRoute(M.Topo, A, B, Route, Tr.TieDown));
        Res.forEachResource(A, B, Route, Book);
      }
    }
    return std::max(From + T / Ms.Factor, End);
  }

  Schedule &S;
  const Machine &M;
  const Network &Net;
  const size_t KeepUsesUpTo;
  const double GiveUpAbove;
  ArrivalIndex Got;
  /// Per rank, when it can post its next send.
  std::vector<double> Clock;
  ResourceMap Res;
  const std::vector<double> &Capacity;
  std::vector<Load> Loads;
  /// Per resource, until when the messages booked so far keep it busy.
  std::vector<double> FreeAt;
  std::vector<uint32_t> Touched, Uses;
  /// Whether Uses holds the step's resources (else occupy() routes again).
  bool KeepUses = true;
  std::vector<Message> Msgs;
  std::vector<Channel> Route;
};

} // namespace

bool pricedBySteps(const Schedule &S, const Machine &M) {
  if (!M.Net)
    return false;
  if (pricedBySteps(S.size(), M))
    return true;
  for (const Step &St : S.Steps)
    if (St.Transfers.size() > StepPricingTransfers)
      return true;
  return false;
}

bool pricedBySteps(int64_t Ranks, const Machine &M) {
  return M.Net && Ranks > StepPricingRanks;
}

double leastTransferTime(const Network &N, uint64_t MinBytes, bool NodesShared,
                         unsigned Hops) {
  double Latency = Inf, Bandwidth = 0;
  for (const LinkClass &L : N.Links) {
    Latency = std::min(Latency, L.Latency);
    Bandwidth = std::max(Bandwidth, L.Bandwidth);
  }
  // describe() and occupy(): the latency times the band's factor, then the
  // bytes at the message's rate alone (at most its links' bandwidth) times
  // the band's factor.
  auto Time = [&](uint64_t Bytes) {
    const ProtocolBand &B = N.band(Bytes);
    double T = Inf;
    if (Hops > 0 && !N.Links.empty()) {
      T = double(Hops) * Latency * B.LatencyFactor;
      if (Bandwidth > 0)
        T += double(Bytes) / (Bandwidth * B.BandwidthFactor);
    }
    if (NodesShared || Hops == 0)
      T = std::min(T, N.IntraNode.Latency * B.LatencyFactor +
                          (N.IntraNode.Bandwidth > 0
                               ? double(Bytes) /
                                     (N.IntraNode.Bandwidth * B.BandwidthFactor)
                               : 0.0));
    return T;
  };
  // Within a band the time grows with the bytes, so the least is at the
  // smallest size or at the lower edge of a band above it.
  const uint64_t Least = MinBytes + N.EnvelopeBytes;
  double Best = Time(Least);
  for (const ProtocolBand &B : N.Bands)
    if (B.MinBytes > Least)
      Best = std::min(Best, Time(B.MinBytes));
  return N.SendOverhead + Best;
}

LeastHopTime::LeastHopTime(const Machine &M, uint64_t MinBytes)
    : Topo(M.Topo), Net(*M.Net), MinBytes(MinBytes),
      ByDistance(M.Topo.hasCoordinates()) {}

int64_t LeastHopTime::linksPerNode() const {
  if (!Topo.hasCoordinates())
    return 0;
  for (const LinkClass &L : Net.Links)
    if (L.FatPipe || !(L.Bandwidth > 0))
      return 0;
  return 2 * static_cast<int64_t>(Topo.Dims.size());
}

double LeastHopTime::leastLinkBusy() const {
  double Bandwidth = 0;
  for (const LinkClass &L : Net.Links)
    Bandwidth = std::max(Bandwidth, L.Bandwidth);
  // occupy(): a link is busy for a message's bytes at its capacity over the
  // band's factor; within a band that grows with the bytes, so the least is
  // at the smallest size or at the lower edge of a band above it.
  auto Busy = [&](uint64_t Bytes) {
    return double(Bytes) / Bandwidth / Net.band(Bytes).BandwidthFactor;
  };
  const uint64_t Least = MinBytes + Net.EnvelopeBytes;
  double Best = Busy(Least);
  for (const ProtocolBand &B : Net.Bands)
    if (B.MinBytes > Least)
      Best = std::min(Best, Busy(B.MinBytes));
  return Best;
}

double LeastHopTime::at(unsigned Hops) const {
  while (Times.size() <= Hops)
    Times.push_back(leastTransferTime(Net, MinBytes, /*NodesShared=*/false,
                                      static_cast<unsigned>(Times.size())));
  return Times[Hops];
}

struct BookedLoad::Impl {
  Impl(const Machine &M, const std::vector<Participant> &Participants)
      : M(M), Net(*M.Net), Participants(Participants), Res(M, Participants) {}

  /// What a resource is booked for: until Before at the end of the
  /// earlier phases; in phase Phase from Start on for Busy.
  struct Booking {
    int64_t Phase = -1;
    double Before = 0, Start = Inf, Busy = 0;
    double end() const {
      return Phase < 0 ? 0 : std::max(Before, Start) + Busy;
    }
  };

  const Machine &M;
  const Network &Net;
  const std::vector<Participant> &Participants;
  ResourceMap Res;
  std::vector<Booking> Booked;
  std::vector<Channel> Route;
  double Most = 0;
};

BookedLoad::BookedLoad(const Machine &M,
                       const std::vector<Participant> &Participants)
    : I(std::make_unique<Impl>(M, Participants)) {}

BookedLoad::~BookedLoad() = default;

double BookedLoad::add(const Transfer &T, double ReadyAtLeast, int64_t Phase) {
  const Network &Net = I->Net;
  // describe() and run(): the data phase starts after the sender's overhead
  // and the route's latency (times the band's factor), and takes at least
  // the bytes at the rate the message gets alone (times the band's factor).
  const uint64_t Bytes = T.Bytes + Net.EnvelopeBytes;
  const ProtocolBand &Band = Net.band(Bytes);
  const int64_t A = I->Participants[T.Src].Node,
                B = I->Participants[T.Dst].Node;
  double Latency = 0, Alone = Inf;
  if (A == B) {
    Latency = Net.IntraNode.Latency;
    if (Net.IntraNode.Bandwidth > 0)
      Alone = Net.IntraNode.Bandwidth;
  } else {
    I->Route.clear();
    llvm::cantFail(appendRoute(I->M.Topo, A, B, I->Route, T.TieDown));
    for (const Channel &C : I->Route) {
      Latency += Net.Links[C.Class].Latency;
      Alone = std::min(Alone, Net.Links[C.Class].Bandwidth);
    }
    if (Net.TcpGamma > 0 && Latency > 0)
      Alone = std::min(Alone, Net.TcpGamma / (2 * Latency));
  }
  const double From =
      ReadyAtLeast + Net.SendOverhead + Latency * Band.LatencyFactor;
  double End =
      From + (Alone < Inf ? double(Bytes) / Alone / Band.BandwidthFactor : 0);
  if (A != B) {
    // occupy(): each resource is busy for the bytes at its capacity over
    // the band's factor, after what was booked on it before.
    BusyAt Busy(double(Bytes), Band.BandwidthFactor);
    double Most = I->Most;
    I->Res.forEachResource(A, B, I->Route, [&](uint32_t R) {
      if (R >= I->Booked.size())
        I->Booked.resize(std::max<size_t>(R + 1, I->Res.Capacity.size()));
      Impl::Booking &Bk = I->Booked[R];
      if (Bk.Phase != Phase) {
        Bk.Before = Bk.end();
        Bk.Phase = Phase;
        Bk.Start = Inf;
        Bk.Busy = 0;
      }
      Bk.Start = std::min(Bk.Start, From);
      Bk.Busy += Busy(I->Res.Capacity[R]);
      Most = std::max(Most, Bk.end());
    });
    I->Most = Most;
  }
  I->Most = std::max(I->Most, End);
  return End;
}

double BookedLoad::bound() const { return I->Most; }

bool estimateStepCost(Schedule &S, const Machine &M, size_t KeepRoutesUpTo,
                      double GiveUpAbove) {
  return StepPricer(S, M, KeepRoutesUpTo, GiveUpAbove).run();
}

} // namespace collc
