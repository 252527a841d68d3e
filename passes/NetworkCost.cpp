#include "passes/NetworkCost.h"

#include "passes/MaxMinSharing.h"
#include "passes/Posting.h"
#include "passes/Routes.h"

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

/// A transfer as the network sees it; its share of the network is the flow
/// of the same id in the evaluator's MaxMinSharing.
struct Message {
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

/// What every message between two nodes shares: the resources it uses
/// (Evaluator::Templates[Begin, End)), and the constants of its route.
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
  /// The bytes \p Ms moved at \p Rate since it was last settled.
  static void settle(Message &Ms, double Rate, double Now) {
    Ms.Remaining -= Rate * Ms.Factor * (Now - Ms.LastUpdate);
    Ms.LastUpdate = Now;
  }
  void solve(double Now);

  Schedule &S;
  const Machine &M;
  const Network &Net;
  NetworkCostOptions Opts;
  NetworkCostStats Stats;

  MaxMinSharing Sharing;
  std::unordered_map<LinkKey, uint32_t, LinkKeyHash> LinkIds;
  std::vector<uint32_t> Inject, Eject; ///< Per node, None without limits.
  /// Per node, its half-duplex intra-node link (None: none made yet).
  std::vector<uint32_t> IntraRes;
  /// Network::SharedLimiter: per node, its limiter (None until a route
  /// crosses it).
  std::vector<uint32_t> Limiters;
  double LimiterBandwidth = Inf;
  std::vector<int64_t> LimiterNodes;
  uint32_t limiterResource(int64_t Node) {
    if (static_cast<size_t>(Node) >= Limiters.size())
      Limiters.resize(static_cast<size_t>(Node) + 1, None);
    uint32_t &R = Limiters[static_cast<size_t>(Node)];
    if (R == None)
      R = Sharing.addResource(LimiterBandwidth);
    return R;
  }
  std::unordered_map<uint64_t, RouteInfo> Routes;
  std::vector<MaxMinSharing::Use> Templates;
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
};

uint32_t Evaluator::linkResource(const Channel &C) {
  const LinkClass &LC = Net.Links[C.Class];
  LinkKey K{C.From, C.To, C.Lane};
  if (!LC.FullDuplex && K.A > K.B)
    std::swap(K.A, K.B);
  auto [It, New] = LinkIds.try_emplace(K, 0);
  if (New)
    It->second = Sharing.addResource(LC.Bandwidth);
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
      Templates.push_back({linkResource(C), 1.0});
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
      auto Same = std::find_if(
          Templates.begin() + RI.Begin, Templates.end(),
          [&](const MaxMinSharing::Use &U) { return U.Resource == R; });
      if (Same != Templates.end())
        Same->Weight += Net.CrossTraffic;
      else
        Templates.push_back({R, Net.CrossTraffic});
    }
  }
  if (Net.SharedLimiter && LimiterBandwidth < Inf) {
    // SimGrid's limiters: one resource per node, which the acknowledgements
    // load too (on the reverse route's nodes).
    auto Add = [&](int64_t Node, double Weight) {
      const uint32_t R = limiterResource(Node);
      auto Same = std::find_if(
          Templates.begin() + RI.Begin, Templates.end(),
          [&](const MaxMinSharing::Use &U) { return U.Resource == R; });
      if (Same != Templates.end())
        Same->Weight += Weight;
      else
        Templates.push_back({R, Weight});
    };
    LimiterNodes.clear();
    appendLimiterNodes(M.Topo, A, B, Scratch, LimiterNodes);
    for (int64_t N : LimiterNodes)
      Add(N, 1.0);
    if (Net.CrossTraffic > 0) {
      LimiterNodes.clear();
      appendLimiterNodes(M.Topo, B, A, BackScratch, LimiterNodes);
      for (int64_t N : LimiterNodes)
        Add(N, Net.CrossTraffic);
    }
  } else {
    if (Inject[A] != None)
      Templates.push_back({Inject[A], 1.0});
    if (Eject[B] != None)
      Templates.push_back({Eject[B], 1.0});
  }
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
  const double Limit = Net.injectionLimit();
  LimiterBandwidth = Limit;
  if (Limit < Inf && !Net.SharedLimiter)
    for (const Participant &Pt : S.Participants)
      for (std::vector<uint32_t> *V : {&Inject, &Eject})
        if ((*V)[Pt.Node] == None)
          (*V)[Pt.Node] = Sharing.addResource(Limit);

  Msgs.resize(S.numTransfers());
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
        Ms.Latency = Net.IntraNode.Latency * Band.LatencyFactor;
        if (!Net.IntraNode.FullDuplex && !Net.IntraNode.FatPipe &&
            Net.IntraNode.Bandwidth > 0) {
          // A half-duplex intra-node link is the node's: every message
          // between two of its ranks shares it (both directions together).
          if (IntraRes.size() <= static_cast<size_t>(A))
            IntraRes.resize(static_cast<size_t>(A) + 1, None);
          if (IntraRes[A] == None)
            IntraRes[A] = Sharing.addResource(Net.IntraNode.Bandwidth);
          MaxMinSharing::Use U{IntraRes[A], 1.0};
          Sharing.addFlow(llvm::makeArrayRef(&U, 1), 1,
                          Net.IntraNode.Bandwidth);
          continue;
        }
        Ms.Intra = true;
        if (Net.IntraNode.Bandwidth > 0)
          Ms.IntraRate = Net.IntraNode.Bandwidth * Band.BandwidthFactor;
        Sharing.addFlow({}, 1); // a loopback shares nothing
        continue;
      }
      const RouteInfo &RI = routeInfo(A, B, T.TieDown);
      Ms.Latency = RI.Latency * Band.LatencyFactor;
      double Penalty = RI.Latency + RI.WeightTerm;
      if (!(Penalty > 0))
        Penalty = 1; // no latency, no weight-S: equal shares
      double Bound = RI.MinBandwidth;
      if (Net.TcpGamma > 0 && RI.Latency > 0)
        Bound = std::min(Bound, Net.TcpGamma / (2 * RI.Latency));
      Sharing.addFlow(
          llvm::makeArrayRef(Templates).slice(RI.Begin, RI.End - RI.Begin),
          Penalty, Bound);
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
  if (Ms.Intra || Ms.Bytes == 0 || Sharing.usesNothing(Id)) {
    double Rate = Ms.Intra        ? Ms.IntraRate
                  : Ms.Bytes == 0 ? Inf
                                  : Sharing.bound(Id) * Ms.Factor;
    double Dur = Rate < Inf ? Ms.Bytes / Rate : 0;
    Queue.push({Now + Dur, Id, Ms.Version, EventKind::Finish});
    return;
  }
  Ms.Active = true;
  Sharing.start(Id);
}

void Evaluator::finish(uint32_t Id, double Now) {
  Message &Ms = Msgs[Id];
  if (Ms.Active) {
    Ms.Active = false;
    Sharing.stop(Id);
  }
  completed(Id, Now);
}

/// Re-solves the sharing among the messages a start or an end can reach,
/// and re-times those whose rate changed.
void Evaluator::solve(double Now) {
  ++Stats.Solves;
  Stats.Rerated += Sharing.solve([&](uint32_t Id, double Old, double New) {
    Message &Ms = Msgs[Id];
    settle(Ms, Old, Now);
    ++Ms.Version;
    double Rate = New * Ms.Factor;
    double Left = std::max(Ms.Remaining, 0.0);
    Queue.push({Rate > 0 ? Now + Left / Rate : Inf, Id, Ms.Version,
                EventKind::Finish});
  });
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
        settle(Ms, Sharing.rate(E.Msg), Now);
      finish(E.Msg, Now);
    }
    if (Sharing.pending())
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
