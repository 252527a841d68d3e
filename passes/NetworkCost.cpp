#include "passes/NetworkCost.h"

#include "passes/Posting.h"
#include "passes/Routes.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <queue>
#include <unordered_map>

namespace collc {

namespace {

constexpr uint32_t None = std::numeric_limits<uint32_t>::max();
constexpr double Inf = std::numeric_limits<double>::infinity();

/// A resource of the sharing: one direction of a link, a half-duplex link
/// (both directions), or a node's injection or ejection.
struct Resource {
  double Capacity = 0;
  /// Messages in their data phase that use it: (message, index of the
  /// element in the message's list).
  std::vector<std::pair<uint32_t, uint32_t>> Users;
  // Scratch of one solve.
  double Rem = 0, Usage = 0;
  /// The highest bound level of its users (Inf: one has no bound).
  double Ceiling = 0;
  uint32_t Unfrozen = 0, Epoch = 0;
};

/// The level (the share of a message of penalty 1) at which \p R fills up,
/// with what its frozen users leave.
double level(const Resource &R) {
  return std::max(R.Rem, 0.0) / std::max(R.Usage, 1e-300);
}

/// One resource a message uses, with the weight it loads it with.
struct Element {
  uint32_t Res = 0;
  uint32_t Pos = 0; ///< Its index in Resource::Users while in use.
  double Weight = 1;
  double Share = 0; ///< Weight / the message's penalty.
};

/// A resource's fill level, or a message's bound level, with its id.
using Level = std::pair<double, uint32_t>;

/// A min-heap of levels (4-ary: shallow, its children side by side), lowest
/// level first, then lowest id. The order is total (levels are never NaN),
/// so which entry is on top does not depend on how the heap is kept.
class LevelHeap {
public:
  void clear() { H.clear(); }
  bool empty() const { return H.empty(); }
  const Level &top() const { return H.front(); }
  /// Adds \p L without ordering; heapify() orders what was added.
  void add(Level L) { H.push_back(L); }
  void heapify() {
    for (size_t I = H.size() / 4 + 1; I-- > 0;)
      down(I);
  }
  void pop() {
    H.front() = H.back();
    H.pop_back();
    down(0);
  }
  /// Raises the top's level to \p L.
  void raiseTop(double L) {
    H.front().first = L;
    down(0);
  }

private:
  /// A.first < B.first, or equal and A.second < B.second, without branches:
  /// levels are >= 0 (or -0, which equals 0), whose bits order as the
  /// values do.
  static bool lower(const Level &A, const Level &B) {
    const uint64_t X = llvm::bit_cast<uint64_t>(A.first + 0.0),
                   Y = llvm::bit_cast<uint64_t>(B.first + 0.0);
    return (X < Y) | ((X == Y) & (A.second < B.second));
  }
  void down(size_t I) {
    const size_t N = H.size();
    if (I >= N)
      return;
    const Level X = H[I];
    for (;;) {
      const size_t C = 4 * I + 1;
      if (C >= N)
        break;
      size_t Best = C;
      for (size_t J = C + 1, E = std::min(C + 4, N); J < E; ++J)
        Best = lower(H[J], H[Best]) ? J : Best;
      if (!lower(H[Best], X))
        break;
      H[I] = H[Best];
      I = Best;
    }
    H[I] = X;
  }
  std::vector<Level> H;
};

/// A transfer as the network sees it (what the sharing solve reads first).
struct Message {
  uint32_t ElemBegin = 0, ElemEnd = 0;
  /// The sharing weight is 1 / Penalty; Bound caps the share.
  double Penalty = 1, Bound = Inf;
  double Value = 0, NewValue = 0;
  uint32_t Src = 0, Dst = 0;
  double Latency = 0; ///< Route latency x the band's latency factor.
  double Factor = 1;  ///< The band's bandwidth factor.
  double Bytes = 0;   ///< Payload and envelope.
  /// Between two ranks of one node: the loopback's rate (Inf: instant).
  bool Intra = false;
  double IntraRate = Inf;
  bool Rendezvous = false;
  // State.
  double SendPost = NAN, RecvPost = NAN, Start = NAN, End = NAN;
  double Remaining = 0, LastUpdate = 0;
  uint32_t Version = 0;
  bool Active = false;
};

enum class EventKind : uint8_t { DataStart, Finish };

struct Event {
  double Time;
  uint32_t Msg;
  uint32_t Version;
  EventKind Kind;
  bool operator>(const Event &O) const { return Time > O.Time; }
};

/// A link's identity: both directions of a half-duplex link are one.
struct LinkKey {
  int64_t A, B;
  int32_t Lane;
  bool operator==(const LinkKey &O) const = default;
};
struct LinkKeyHash {
  size_t operator()(const LinkKey &K) const {
    uint64_t H = static_cast<uint64_t>(K.A) * 0x9E3779B97F4A7C15ull;
    H ^= static_cast<uint64_t>(K.B) + 0x7F4A7C159E3779B9ull + (H << 6) +
         (H >> 2);
    H ^= static_cast<uint64_t>(K.Lane) * 0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(H ^ (H >> 29));
  }
};

/// What every message between two nodes shares: the resources it uses (a
/// template of its elements), and the constants of its route.
struct RouteInfo {
  uint32_t Begin = 0, End = 0; ///< Into Evaluator::Templates.
  double Latency = 0;          ///< Sum of the links' latencies.
  double WeightTerm = 0;       ///< Sum of WeightS / bandwidth.
  double MinBandwidth = Inf;
};

class Evaluator {
public:
  Evaluator(Schedule &S, const Machine &M, const NetworkCostOptions &O)
      : S(S), M(M), Net(*M.Net), Opts(O) {}

  NetworkCostStats run();

private:
  // Setup.
  uint32_t linkResource(const Channel &C);
  const RouteInfo &routeInfo(int64_t A, int64_t B, uint8_t TieDown);
  void buildMessages();
  void buildPrograms();

  // Posting.
  void postSend(uint32_t Id, double At);
  void postRecv(uint32_t Id, double At);
  void match(uint32_t Id);
  void advanceStepByStep(uint32_t Rank, double Now);
  void completed(uint32_t Id, double Now);
  // AsDataArrives: the posting plan.
  bool buildPlan();
  void postOp(uint64_t G, double At);
  void finishOp(uint64_t G, double At);
  void applyInOrder(uint32_t Rank, double At);
  void drain();

  // The flows.
  void startData(uint32_t Id, double Now);
  void finish(uint32_t Id, double Now);
  void settle(Message &Ms, double Now) {
    Ms.Remaining -= Ms.Value * Ms.Factor * (Now - Ms.LastUpdate);
    Ms.LastUpdate = Now;
  }
  void solve(double Now);
  void freeze(uint32_t Id, double Value);

  Schedule &S;
  const Machine &M;
  const Network &Net;
  NetworkCostOptions Opts;
  NetworkCostStats Stats;

  std::vector<Resource> Res;
  std::unordered_map<LinkKey, uint32_t, LinkKeyHash> LinkIds;
  std::vector<uint32_t> Inject, Eject; ///< Per node, None without limits.
  std::unordered_map<uint64_t, RouteInfo> Routes;
  std::vector<Element> Templates, Elements;
  std::vector<Channel> Scratch, BackScratch;
  std::vector<Message> Msgs;

  // The ranks' programs. StepByStep: each rank's operations in schedule
  // order, a step's receives before its sends (ids; Recv marks receives).
  struct Op {
    uint32_t Id;
    uint32_t Step;
    bool Recv;
  };
  std::vector<uint64_t> OpBegin; ///< Per rank, then the total.
  std::vector<Op> Ops;
  struct RankState {
    uint64_t Pos = 0;
    double Clock = 0;
    uint32_t Outstanding = 0;
    bool Blocked = false;
  };
  std::vector<RankState> Ranks;
  // AsDataArrives: the operations of passes/Posting.h, rank after rank
  // (OpBegin), each with its transfer (Ops[G].Id), the waits left before
  // it is posted and applied, the next one of its rank with the same peer
  // and direction, and who waits for it (Waiters: 2 x op, + 1 to apply).
  bool Planned = false;
  bool ReductionPlan = false;
  std::vector<uint32_t> PostLeft, ApplyLeft;
  std::vector<uint64_t> NextSame, SendOp, RecvOp;
  std::vector<uint64_t> WaitersBegin, Waiters;
  std::vector<bool> Arrived;
  std::vector<uint64_t> NextApply; ///< Per rank, as an index into Ops.
  /// What is to be done: (op, time, finish rather than post).
  struct Work {
    uint64_t Op;
    double At;
    bool Finish;
  };
  std::vector<Work> Todo;

  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> Queue;
  std::vector<uint32_t> Dirty; ///< Resources whose users changed.
  uint32_t Epoch = 0;
  std::vector<uint32_t> CompMsgs, CompRes;
  LevelHeap Heap, Bounded;
  /// Per message, apart from Msgs so that the solve's scans stay in cache:
  /// the last solve that reached it, and whether its share is fixed.
  std::vector<uint32_t> MsgEpoch;
  std::vector<uint8_t> Frozen;
};

uint32_t Evaluator::linkResource(const Channel &C) {
  const LinkClass &LC = Net.Links[C.Class];
  LinkKey K{C.From, C.To, C.Lane};
  if (!LC.FullDuplex && K.A > K.B)
    std::swap(K.A, K.B);
  auto [It, New] = LinkIds.try_emplace(K, static_cast<uint32_t>(Res.size()));
  if (New) {
    Res.emplace_back();
    Res.back().Capacity = LC.Bandwidth;
  }
  return It->second;
}

const RouteInfo &Evaluator::routeInfo(int64_t A, int64_t B, uint8_t TieDown) {
  const uint64_t Key =
      (static_cast<uint64_t>(A) << 36) ^ (static_cast<uint64_t>(B) << 8) ^
      (M.Topo.Routing == DimensionRouting::SimGrid ? 0 : TieDown);
  auto [It, New] = Routes.try_emplace(Key);
  RouteInfo &RI = It->second;
  if (!New)
    return RI;
  Scratch.clear();
  llvm::cantFail(appendRoute(M.Topo, A, B, Scratch, TieDown));
  RI.Begin = static_cast<uint32_t>(Templates.size());
  for (const Channel &C : Scratch) {
    const LinkClass &LC = Net.Links[C.Class];
    RI.Latency += LC.Latency;
    if (Net.WeightS > 0)
      RI.WeightTerm += Net.WeightS / LC.Bandwidth;
    RI.MinBandwidth = std::min(RI.MinBandwidth, LC.Bandwidth);
    // A FATPIPE is not shared (SimGrid: each flow alone is bounded by its
    // bandwidth), so it bounds the message's rate and fills no resource.
    if (!LC.FatPipe)
      Templates.push_back({linkResource(C), 0, 1.0});
  }
  // The acknowledgements load the reverse route (a link both routes cross,
  // half duplex, carries the sum).
  if (Net.CrossTraffic > 0) {
    BackScratch.clear();
    llvm::cantFail(appendRoute(M.Topo, B, A, BackScratch, TieDown));
    for (const Channel &C : BackScratch) {
      if (Net.Links[C.Class].FatPipe)
        continue;
      uint32_t R = linkResource(C);
      auto Same = std::find_if(Templates.begin() + RI.Begin, Templates.end(),
                               [&](const Element &E) { return E.Res == R; });
      if (Same != Templates.end())
        Same->Weight += Net.CrossTraffic;
      else
        Templates.push_back({R, 0, Net.CrossTraffic});
    }
  }
  if (Inject[A] != None)
    Templates.push_back({Inject[A], 0, 1.0});
  if (Eject[B] != None)
    Templates.push_back({Eject[B], 0, 1.0});
  RI.End = static_cast<uint32_t>(Templates.size());
  return RI;
}

void Evaluator::buildMessages() {
  // Injection and ejection limits: resources per node.
  int64_t Vertices = 0;
  for (const Participant &Pt : S.Participants)
    Vertices = std::max(Vertices, Pt.Node + 1);
  Inject.assign(static_cast<size_t>(Vertices), None);
  Eject.assign(static_cast<size_t>(Vertices), None);
  double Limit = Inf;
  if (Net.InjectionLinks > 0 && !Net.Links.empty())
    Limit = Net.InjectionLinks * Net.Links[0].Bandwidth;
  if (Net.InjectionBandwidth > 0)
    Limit = std::min(Limit, Net.InjectionBandwidth);
  if (Limit < Inf)
    for (const Participant &Pt : S.Participants)
      for (std::vector<uint32_t> *V : {&Inject, &Eject})
        if ((*V)[Pt.Node] == None) {
          (*V)[Pt.Node] = static_cast<uint32_t>(Res.size());
          Res.emplace_back();
          Res.back().Capacity = Limit;
        }

  Msgs.resize(S.numTransfers());
  MsgEpoch.assign(Msgs.size(), 0);
  Frozen.assign(Msgs.size(), 0);
  uint32_t Id = 0;
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers) {
      Message &Ms = Msgs[Id++];
      Ms.Src = static_cast<uint32_t>(T.Src);
      Ms.Dst = static_cast<uint32_t>(T.Dst);
      const uint64_t Bytes = T.Bytes + Net.EnvelopeBytes;
      const ProtocolBand &Band = Net.band(Bytes);
      Ms.Bytes = static_cast<double>(Bytes);
      Ms.Factor = Band.BandwidthFactor;
      Ms.Rendezvous = Net.rendezvous(T.Bytes);
      const int64_t A = S.Participants[T.Src].Node,
                    B = S.Participants[T.Dst].Node;
      if (A == B) {
        Ms.Intra = true;
        Ms.Latency = Net.IntraNode.Latency * Band.LatencyFactor;
        if (Net.IntraNode.Bandwidth > 0)
          Ms.IntraRate = Net.IntraNode.Bandwidth * Band.BandwidthFactor;
        continue;
      }
      const RouteInfo &RI = routeInfo(A, B, T.TieDown);
      Ms.Latency = RI.Latency * Band.LatencyFactor;
      Ms.Penalty = RI.Latency + RI.WeightTerm;
      if (!(Ms.Penalty > 0))
        Ms.Penalty = 1; // no latency, no weight-S: equal shares
      Ms.Bound = RI.MinBandwidth;
      if (Net.TcpGamma > 0 && RI.Latency > 0)
        Ms.Bound = std::min(Ms.Bound, Net.TcpGamma / (2 * RI.Latency));
      Ms.ElemBegin = static_cast<uint32_t>(Elements.size());
      Elements.insert(Elements.end(), Templates.begin() + RI.Begin,
                      Templates.begin() + RI.End);
      Ms.ElemEnd = static_cast<uint32_t>(Elements.size());
      for (uint32_t E = Ms.ElemBegin; E < Ms.ElemEnd; ++E)
        Elements[E].Share = Elements[E].Weight / Ms.Penalty;
    }
}

void Evaluator::buildPrograms() {
  const uint32_t P = static_cast<uint32_t>(S.size());
  Ranks.assign(P, RankState{});
  if (Opts.Posting == PostingRule::AsDataArrives && buildPlan())
    return;
  // StepByStep: per rank, per step, receives then sends.
  OpBegin.assign(static_cast<size_t>(P) + 1, 0);
  for (const Message &Ms : Msgs) {
    ++OpBegin[Ms.Src + 1];
    ++OpBegin[Ms.Dst + 1];
  }
  for (uint32_t R = 0; R < P; ++R)
    OpBegin[R + 1] += OpBegin[R];
  Ops.resize(OpBegin.back());
  std::vector<uint64_t> Next(OpBegin.begin(), OpBegin.end() - 1);
  uint32_t Id = 0;
  for (uint32_t SI = 0; SI < S.Steps.size(); ++SI)
    for (size_t I = 0; I < S.Steps[SI].Transfers.size(); ++I, ++Id) {
      Ops[Next[Msgs[Id].Dst]++] = {Id, SI, true};
      Ops[Next[Msgs[Id].Src]++] = {Id, SI, false};
    }
  // A step's receives are posted before its sends.
  for (uint32_t R = 0; R < P; ++R) {
    auto B = Ops.begin() + OpBegin[R], E = Ops.begin() + OpBegin[R + 1];
    while (B != E) {
      auto G =
          std::find_if(B, E, [&](const Op &O) { return O.Step != B->Step; });
      std::stable_partition(B, G, [](const Op &O) { return O.Recv; });
      B = G;
    }
  }
}

void Evaluator::match(uint32_t Id) {
  Message &Ms = Msgs[Id];
  Ms.Start = std::max(Ms.SendPost, Ms.RecvPost);
  Queue.push({Ms.Start + Ms.Latency, Id, 0, EventKind::DataStart});
}

void Evaluator::postSend(uint32_t Id, double At) {
  Msgs[Id].SendPost = At;
  if (!std::isnan(Msgs[Id].RecvPost))
    match(Id);
}

void Evaluator::postRecv(uint32_t Id, double At) {
  Msgs[Id].RecvPost = At;
  if (!std::isnan(Msgs[Id].SendPost))
    match(Id);
}

/// The runtime's rule: a step that sends waits for everything the rank
/// posted before; then the step's receives, then its sends, are posted.
void Evaluator::advanceStepByStep(uint32_t Rank, double Now) {
  RankState &RS = Ranks[Rank];
  RS.Clock = std::max(RS.Clock, Now);
  RS.Blocked = false;
  const uint64_t End = OpBegin[Rank + 1];
  while (OpBegin[Rank] + RS.Pos < End) {
    const uint64_t B = OpBegin[Rank] + RS.Pos;
    uint64_t G = B;
    bool Sends = false;
    while (G < End && Ops[G].Step == Ops[B].Step)
      Sends |= !Ops[G++].Recv;
    if (Sends && RS.Outstanding > 0) {
      RS.Blocked = true;
      return;
    }
    for (uint64_t I = B; I < G; ++I) {
      const Op &O = Ops[I];
      if (O.Recv) {
        ++RS.Outstanding;
        postRecv(O.Id, RS.Clock);
        continue;
      }
      RS.Clock += Net.SendOverhead;
      if (Msgs[O.Id].Rendezvous)
        ++RS.Outstanding;
      postSend(O.Id, RS.Clock);
    }
    RS.Pos = G - OpBegin[Rank];
  }
}

/// The runtime's plan (passes/Posting.h), or false when the MPI backend
/// cannot lower the schedule (then the rank steps through it).
bool Evaluator::buildPlan() {
  llvm::Expected<PostingPlan> Plan = planPosting(S);
  if (!Plan) {
    llvm::consumeError(Plan.takeError());
    return false;
  }
  Planned = true;
  ReductionPlan = isReduction(S.Coll);
  const uint32_t P = static_cast<uint32_t>(S.size());
  OpBegin.assign(static_cast<size_t>(P) + 1, 0);
  for (uint32_t R = 0; R < P; ++R)
    OpBegin[R + 1] = OpBegin[R] + Plan->Ranks[R].Ops.size();
  const uint64_t N = OpBegin.back();
  Ops.resize(N);
  PostLeft.assign(N, 0);
  ApplyLeft.assign(N, 0);
  NextSame.assign(N, UINT64_MAX);
  Arrived.assign(N, false);
  SendOp.assign(Msgs.size(), 0);
  RecvOp.assign(Msgs.size(), 0);
  WaitersBegin.assign(N + 1, 0);
  NextApply.assign(P, 0);
  std::vector<uint64_t> Last(2 * static_cast<size_t>(P), UINT64_MAX);
  for (uint32_t R = 0; R < P; ++R) {
    std::fill(Last.begin(), Last.end(), UINT64_MAX);
    NextApply[R] = OpBegin[R];
    for (size_t I = 0; I < Plan->Ranks[R].Ops.size(); ++I) {
      const PlannedOp &O = Plan->Ranks[R].Ops[I];
      const uint64_t G = OpBegin[R] + I;
      Ops[G] = {O.Transfer, static_cast<uint32_t>(O.Step), O.isRecv()};
      (O.isRecv() ? RecvOp : SendOp)[O.Transfer] = G;
      PostLeft[G] = static_cast<uint32_t>(O.PostWaits.size());
      ApplyLeft[G] = static_cast<uint32_t>(O.ApplyWaits.size());
      for (int32_t W : O.PostWaits)
        ++WaitersBegin[OpBegin[R] + W + 1];
      for (int32_t W : O.ApplyWaits)
        ++WaitersBegin[OpBegin[R] + W + 1];
      uint64_t &L = Last[2 * static_cast<size_t>(O.Peer) + O.isRecv()];
      if (L != UINT64_MAX) {
        NextSame[L] = G;
        ++PostLeft[G];
      }
      L = G;
    }
  }
  for (uint64_t G = 0; G < N; ++G)
    WaitersBegin[G + 1] += WaitersBegin[G];
  Waiters.resize(WaitersBegin.back());
  std::vector<uint64_t> At(WaitersBegin.begin(), WaitersBegin.end() - 1);
  for (uint32_t R = 0; R < P; ++R)
    for (size_t I = 0; I < Plan->Ranks[R].Ops.size(); ++I) {
      const PlannedOp &O = Plan->Ranks[R].Ops[I];
      const uint64_t G = OpBegin[R] + I;
      for (int32_t W : O.PostWaits)
        Waiters[At[OpBegin[R] + W]++] = 2 * G;
      for (int32_t W : O.ApplyWaits)
        Waiters[At[OpBegin[R] + W]++] = 2 * G + 1;
    }
  return true;
}

/// Posts operation \p G at \p At (a send after the rank's send overhead);
/// an eager send completes as it is posted.
void Evaluator::postOp(uint64_t G, double At) {
  const Op &O = Ops[G];
  const Message &Ms = Msgs[O.Id];
  if (O.Recv) {
    postRecv(O.Id, At);
  } else {
    RankState &RS = Ranks[Ms.Src];
    RS.Clock = std::max(RS.Clock, At) + Net.SendOverhead;
    At = RS.Clock;
    postSend(O.Id, At);
    if (!Ms.Rendezvous)
      Todo.push_back({G, At, true});
  }
  if (NextSame[G] != UINT64_MAX && --PostLeft[NextSame[G]] == 0)
    Todo.push_back({NextSame[G], At, false});
}

/// Operation \p G finished at \p At: a send completed, a receive applied.
void Evaluator::finishOp(uint64_t G, double At) {
  for (uint64_t K = WaitersBegin[G]; K < WaitersBegin[G + 1]; ++K) {
    const uint64_t W = Waiters[K] / 2;
    if (Waiters[K] & 1) {
      if (--ApplyLeft[W] == 0)
        applyInOrder(Msgs[Ops[W].Id].Dst, At);
    } else if (--PostLeft[W] == 0) {
      Todo.push_back({W, At, false});
    }
  }
}

/// A reduction's receives are applied in schedule order, each once it
/// arrived and the sends reading what it updates completed.
void Evaluator::applyInOrder(uint32_t Rank, double At) {
  uint64_t &G = NextApply[Rank];
  for (; G < OpBegin[Rank + 1]; ++G) {
    if (!Ops[G].Recv)
      continue;
    if (!Arrived[G] || ApplyLeft[G] > 0)
      return;
    Todo.push_back({G, At, true});
  }
}

void Evaluator::drain() {
  while (!Todo.empty()) {
    Work W = Todo.back();
    Todo.pop_back();
    if (W.Finish)
      finishOp(W.Op, W.At);
    else
      postOp(W.Op, W.At);
  }
}

void Evaluator::completed(uint32_t Id, double Now) {
  Message &Ms = Msgs[Id];
  Ms.End = Now;
  if (Planned) {
    if (Ms.Rendezvous)
      Todo.push_back({SendOp[Id], Now, true});
    const uint64_t G = RecvOp[Id];
    if (ReductionPlan) {
      Arrived[G] = true;
      applyInOrder(Ms.Dst, Now);
    } else {
      Todo.push_back({G, Now, true});
    }
    drain();
    return;
  }
  for (uint32_t R : {Ms.Dst, Ms.Rendezvous ? Ms.Src : None}) {
    if (R == None)
      continue;
    RankState &RS = Ranks[R];
    assert(RS.Outstanding > 0);
    if (--RS.Outstanding == 0 && RS.Blocked)
      advanceStepByStep(R, Now);
  }
}

void Evaluator::startData(uint32_t Id, double Now) {
  Message &Ms = Msgs[Id];
  Ms.Remaining = Ms.Bytes;
  Ms.LastUpdate = Now;
  // Alone on its route: within a node, without bytes, or over links none
  // of which is shared (FATPIPEs), where its bound alone sets its rate.
  if (Ms.Intra || Ms.Bytes == 0 || Ms.ElemBegin == Ms.ElemEnd) {
    double Rate = Ms.Intra        ? Ms.IntraRate
                  : Ms.Bytes == 0 ? Inf
                                  : Ms.Bound * Ms.Factor;
    double Dur = Rate < Inf ? Ms.Bytes / Rate : 0;
    Queue.push({Now + Dur, Id, Ms.Version, EventKind::Finish});
    return;
  }
  Ms.Active = true;
  Ms.Value = 0;
  for (uint32_t E = Ms.ElemBegin; E < Ms.ElemEnd; ++E) {
    Element &El = Elements[E];
    Resource &R = Res[El.Res];
    El.Pos = static_cast<uint32_t>(R.Users.size());
    R.Users.push_back({Id, E});
    Dirty.push_back(El.Res);
  }
}

void Evaluator::finish(uint32_t Id, double Now) {
  Message &Ms = Msgs[Id];
  if (Ms.Active) {
    Ms.Active = false;
    for (uint32_t E = Ms.ElemBegin; E < Ms.ElemEnd; ++E) {
      const Element &El = Elements[E];
      Resource &R = Res[El.Res];
      // Swap-remove, keeping the moved user's position right.
      auto Last = R.Users.back();
      R.Users[El.Pos] = Last;
      Elements[Last.second].Pos = El.Pos;
      R.Users.pop_back();
      Dirty.push_back(El.Res);
    }
  }
  completed(Id, Now);
}

void Evaluator::freeze(uint32_t Id, double Value) {
  Message &Ms = Msgs[Id];
  Frozen[Id] = 1;
  Ms.NewValue = Value;
  for (uint32_t E = Ms.ElemBegin; E < Ms.ElemEnd; ++E) {
    const Element &El = Elements[E];
    Resource &R = Res[El.Res];
    R.Rem -= El.Weight * Value;
    R.Usage -= El.Share;
    --R.Unfrozen;
  }
}

/// Re-solves the weighted max-min sharing among the messages reachable from
/// the dirty resources, and re-times those whose rate changed.
void Evaluator::solve(double Now) {
  ++Stats.Solves;
  ++Epoch;
  CompMsgs.clear();
  CompRes.clear();
  for (uint32_t R : Dirty)
    if (Res[R].Epoch != Epoch) {
      Res[R].Epoch = Epoch;
      CompRes.push_back(R);
    }
  Dirty.clear();
  for (size_t I = 0; I < CompRes.size(); ++I)
    for (auto [Id, E] : Res[CompRes[I]].Users) {
      (void)E;
      if (MsgEpoch[Id] == Epoch)
        continue;
      MsgEpoch[Id] = Epoch;
      const Message &Ms = Msgs[Id];
      CompMsgs.push_back(Id);
      for (uint32_t X = Ms.ElemBegin; X < Ms.ElemEnd; ++X) {
        uint32_t R = Elements[X].Res;
        if (Res[R].Epoch != Epoch) {
          Res[R].Epoch = Epoch;
          CompRes.push_back(R);
        }
      }
    }
  if (CompMsgs.empty())
    return;
  Stats.Rerated += CompMsgs.size();
  for (uint32_t R : CompRes) {
    Resource &Rs = Res[R];
    Rs.Rem = Rs.Capacity;
    Rs.Usage = 0;
    Rs.Unfrozen = 0;
    Rs.Ceiling = 0;
  }
  for (uint32_t Id : CompMsgs) {
    Message &Ms = Msgs[Id];
    Frozen[Id] = 0;
    const double BoundLevel = Ms.Bound * Ms.Penalty;
    for (uint32_t E = Ms.ElemBegin; E < Ms.ElemEnd; ++E) {
      Resource &R = Res[Elements[E].Res];
      R.Usage += Elements[E].Share;
      ++R.Unfrozen;
      R.Ceiling = std::max(R.Ceiling, BoundLevel);
    }
  }
  // Messages by the level at which their bound stops them.
  Bounded.clear();
  double Ceiling = 0;
  size_t NumBounded = 0;
  for (uint32_t Id : CompMsgs)
    if (Msgs[Id].Bound < Inf) {
      const double L = Msgs[Id].Bound * Msgs[Id].Penalty;
      Bounded.add({L, Id});
      Ceiling = std::max(Ceiling, L);
      ++NumBounded;
    }
  Bounded.heapify();
  // A resource whose level reaches the highest bound level of its users
  // never fills first: a user of it still rising has a bound at or below
  // that level, and so has the lowest bound still pending, which wins a tie;
  // levels only rise. Neither does one above every message's bound level,
  // when all have one. Such a resource stays out of the heap.
  if (NumBounded < CompMsgs.size())
    Ceiling = Inf;
  // Resources by the level at which they fill (lazy: an entry is current
  // when its level is the resource's level now).
  Heap.clear();
  for (uint32_t R : CompRes)
    if (Res[R].Unfrozen > 0) {
      const double L = level(Res[R]);
      if (L < std::min(Ceiling, Res[R].Ceiling))
        Heap.add({L, R});
    }
  Heap.heapify();
  size_t Left = CompMsgs.size();

  while (Left > 0) {
    // Levels only rise as messages freeze: an entry below its resource's
    // level now goes back in at that level (a lazy increase-key), an entry
    // of a resource without rising users, or above the ceiling, goes.
    while (!Heap.empty()) {
      const Resource &Top = Res[Heap.top().second];
      double Level = Top.Unfrozen > 0 ? level(Top) : Inf;
      if (Level <= Heap.top().first)
        break;
      if (Level < std::min(Ceiling, Top.Ceiling))
        Heap.raiseTop(Level);
      else
        Heap.pop();
    }
    while (!Bounded.empty() && Frozen[Bounded.top().second])
      Bounded.pop();
    double LevelRes = Heap.empty() ? Inf : Heap.top().first;
    double LevelBound = Bounded.empty() ? Inf : Bounded.top().first;
    if (LevelBound <= LevelRes) {
      if (LevelBound == Inf)
        break; // nothing limits what is left (cannot happen: every message
               // crosses a link)
      uint32_t Id = Bounded.top().second;
      Bounded.pop();
      freeze(Id, Msgs[Id].Bound);
      --Left;
      continue;
    }
    const uint32_t R = Heap.top().second;
    Heap.pop();
    // Every message still rising on R stops at this level. Freezing one
    // reorders R's users only when they finish, not here.
    for (size_t U = 0; U < Res[R].Users.size(); ++U) {
      uint32_t Id = Res[R].Users[U].first;
      if (Frozen[Id])
        continue;
      freeze(Id, LevelRes / Msgs[Id].Penalty);
      --Left;
    }
  }
  // Re-time the messages whose rate changed.
  for (uint32_t Id : CompMsgs) {
    Message &Ms = Msgs[Id];
    if (Ms.NewValue == Ms.Value)
      continue;
    settle(Ms, Now);
    Ms.Value = Ms.NewValue;
    ++Ms.Version;
    double Rate = Ms.Value * Ms.Factor;
    double Left = std::max(Ms.Remaining, 0.0);
    Queue.push({Rate > 0 ? Now + Left / Rate : Inf, Id, Ms.Version,
                EventKind::Finish});
  }
}

NetworkCostStats Evaluator::run() {
  Stats.Transfers = S.numTransfers();
  buildMessages();
  buildPrograms();
  const uint32_t P = static_cast<uint32_t>(S.size());
  if (Planned) {
    for (uint64_t G = OpBegin.back(); G-- > 0;)
      if (PostLeft[G] == 0)
        Todo.push_back({G, 0, false});
    drain();
  } else {
    for (uint32_t R = 0; R < P; ++R)
      advanceStepByStep(R, 0);
  }
  while (!Queue.empty()) {
    const double Now = Queue.top().Time;
    if (Now == Inf)
      break;
    ++Stats.Moments;
    // Everything within a relative 1e-9 of Now happens at Now, including
    // what the events themselves set off that soon.
    const double Until = Now + 1e-9 * std::max(1.0, std::fabs(Now));
    while (!Queue.empty() && Queue.top().Time <= Until) {
      Event E = Queue.top();
      Queue.pop();
      Message &Ms = Msgs[E.Msg];
      if (E.Kind == EventKind::DataStart) {
        startData(E.Msg, Now);
        continue;
      }
      if (E.Version != Ms.Version || !std::isnan(Ms.End))
        continue; // re-timed since
      if (Ms.Active)
        settle(Ms, Now);
      finish(E.Msg, Now);
    }
    if (!Dirty.empty())
      solve(Now);
  }
  double Makespan = 0;
  uint32_t Id = 0;
  for (Step &St : S.Steps)
    for (Transfer &T : St.Transfers) {
      const Message &Ms = Msgs[Id++];
      // A transfer that never completes: the runtime would hang.
      T.Start = std::isnan(Ms.Start) ? Inf : Ms.Start;
      T.End = std::isnan(Ms.End) ? Inf : Ms.End;
      Makespan = std::max(Makespan, T.End);
    }
  S.Makespan = Makespan;
  return Stats;
}

} // namespace

NetworkCostStats estimateNetworkCost(Schedule &S, const Machine &M,
                                     const NetworkCostOptions &Opts) {
  assert(M.Net && "the machine has no network");
  return Evaluator(S, M, Opts).run();
}

} // namespace collc
