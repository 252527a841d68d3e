#include "sim/BarrierSim.h"

#include "ir/EnumNames.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace collc::barrier {

const char *schemeName(Scheme S) {
  return S == Scheme::Sivaram ? "sivaram" : "multi-drop";
}

const char *phaseName(Phase P) {
  static constexpr const char *Names[] = {"reached", "release", "ack"};
  return enumName<Phase::Reached, Phase::Ack>(P, Names);
}

bool Faults::any() const {
  for (int I = 0; I < 3; ++I)
    if (Loss[I] > 0 || Corrupt[I] > 0)
      return true;
  return false;
}

int64_t SimParams::autoTimeout() const {
  MinNetwork Net(Nodes, Radix);
  int64_t N = Net.stages();
  int64_t PathSwitches = 2 * N - 1;
  int64_t Link = std::max(StageCycle, ProcessorLink);
  // Longest fault-free wait of any timer: the spread of arrivals, every unit
  // on a root path busy with all its children's packets in each of the three
  // phases, and every link of the round trip. The slowest unit (4 cycles)
  // is used for both schemes, so both run with the same timers.
  int64_t C = std::max<int64_t>(unitCycles(), 4) * CycleLength;
  return ArrivalMax + 3 * PathSwitches * (Radix + 1) * C + 8 * N * Link + 16;
}

Episode randomEpisode(const SimParams &P, int32_t Participants, Rng &R) {
  assert(Participants >= 1 && Participants <= P.Nodes);
  // Partial Fisher-Yates over the nodes.
  std::vector<int64_t> All(P.Nodes);
  for (int64_t I = 0; I < P.Nodes; ++I)
    All[I] = I;
  Episode E;
  for (int32_t I = 0; I < Participants; ++I) {
    int64_t J = R.uniform(I, P.Nodes - 1);
    std::swap(All[I], All[J]);
    E.Nodes.push_back(All[I]);
  }
  std::sort(E.Nodes.begin(), E.Nodes.end());
  E.Root = E.Nodes[R.uniform(0, Participants - 1)];
  for (int32_t I = 0; I < Participants; ++I)
    E.Arrival.push_back(R.uniform(P.ArrivalMin, P.ArrivalMax));
  return E;
}

Simulator::Simulator(SimParams Params)
    : P(Params), Net(Params.Nodes, Params.Radix) {}

namespace {

enum class Role : uint8_t { Processor, Root, Switch };

/// Finite-state machine states (paper 003, Figures 5-7).
enum class State : uint8_t {
  Idle,        ///< Not yet in the barrier (processor, root, switch).
  Collecting,  ///< Switch: some children reached, not all.
  WaitAll,     ///< Root: arrived itself, waiting for the others.
  WaitSelf,    ///< Root: the others arrived, waiting for itself.
  WaitRelease, ///< Processor or switch: reached sent, waiting for release.
  WaitAck,     ///< Root or switch: release sent, waiting for acks.
  Done,        ///< Finished this barrier (a processor: released).
};

struct Node {
  Role R = Role::Processor;
  State St = State::Idle;
  int32_t Parent = -1;
  int32_t SlotInParent = -1;
  int64_t LinkUp = 1; ///< Delay of the link to the parent.
  std::vector<int32_t> Children;
  std::vector<char> Reached, Acked;
  int32_t NumReached = 0, NumAcked = 0;
  // Barrier unit (switches): packets waiting, and whether it is busy.
  struct Pending {
    Phase Ph;
    int32_t From; ///< Child slot, or -1 for the parent.
    bool Corrupt;
  };
  /// FIFO of the packets waiting for the unit: Queue[QHead..] (a vector
  /// rather than a deque: most units never hold more than a few).
  std::vector<Pending> Queue;
  size_t QHead = 0;
  bool Busy = false;
  uint32_t TimerGen = 0;
  int64_t DoneTime = -1;
  // Processors and the root.
  int64_t Arrival = -1;
  int64_t ReleaseTime = -1;
  int64_t AckArrival =
      -1; ///< When this processor's first ack reached its switch.
  int32_t Releases = 0;
  bool AllReached = false; ///< Root: the combined reached arrived.
  int64_t Label = 0;       ///< Processor node or switch id, for traces.
};

enum class EvKind : uint8_t { Arrive, Packet, UnitDone, Timer };

struct Event;

/// The event list. Times are integers (assumption 1: a synchronous clock)
/// and no event lies more than a timeout ahead of the present, so a ring of
/// FIFO buckets, one per time unit, orders events by (time, creation) in
/// O(1): the calendar queue of discrete-event simulators.
class EventQueue {
public:
  void reset(int64_t MaxAhead);
  void push(const Event &Ev, int64_t Time);
  bool pop(Event &Ev);

private:
  std::vector<std::vector<Event>> Ring;
  size_t Mask = 0;
  int64_t Now = 0;
  size_t Cursor = 0;
  uint64_t Pending = 0;
};

struct Event {
  int64_t Time;
  uint64_t Seq;
  EvKind Kind;
  Phase Ph;
  bool Corrupt;
  int32_t Node;
  int32_t From;
  uint32_t Gen;
  bool operator>(const Event &O) const {
    return Time != O.Time ? Time > O.Time : Seq > O.Seq;
  }
};

void EventQueue::reset(int64_t MaxAhead) {
  size_t Size = 1;
  while (Size < static_cast<size_t>(MaxAhead) + 2)
    Size *= 2;
  for (auto &B : Ring)
    B.clear();
  if (Ring.size() < Size)
    Ring.resize(Size);
  Mask = Ring.size() - 1;
  Now = 0;
  Cursor = 0;
  Pending = 0;
}

void EventQueue::push(const Event &Ev, int64_t Time) {
  assert(Time >= Now && Time - Now <= static_cast<int64_t>(Mask) &&
         "an event beyond the ring");
  Ring[static_cast<size_t>(Time) & Mask].push_back(Ev);
  ++Pending;
}

bool EventQueue::pop(Event &Ev) {
  while (Pending) {
    std::vector<Event> &B = Ring[static_cast<size_t>(Now) & Mask];
    if (Cursor < B.size()) {
      Ev = B[Cursor++];
      --Pending;
      return true;
    }
    B.clear();
    Cursor = 0;
    ++Now;
  }
  return false;
}

class Run {
public:
  Run(const SimParams &P, const MinNetwork &Net, const Episode &E, Rng &R,
      std::vector<std::string> *Trace, EventQueue &Q)
      : P(P), Net(Net), E(E), R(R), Trace(Trace), Q(Q), C(P.unitTime()),
        Timeout(P.timeout()), Sivaram(P.S == Scheme::Sivaram) {}

  EpisodeResult go() {
    Nodes.reserve(E.Nodes.size() +
                  2 * static_cast<size_t>(Net.stages()) * E.Nodes.size());
    build();
    for (size_t J = 0; J < E.Nodes.size(); ++J)
      push({E.Arrival[J], 0, EvKind::Arrive, Phase::Reached, false,
            static_cast<int32_t>(J == RootIdx ? 0 : ProcOf[J]), -1, 0});
    // Guard against a protocol that never finishes (a bug, not a fault):
    // no correct episode comes near it.
    const int64_t Horizon = 1000000 + 1000 * Timeout;
    Event Ev;
    while (Q.pop(Ev)) {
      ++Res.Events;
      if (Ev.Time > Horizon) {
        Res.Problem =
            "the barrier did not complete by time " + std::to_string(Horizon);
        break;
      }
      dispatch(Ev);
    }
    finish();
    return Res;
  }

private:
  const SimParams &P;
  const MinNetwork &Net;
  const Episode &E;
  Rng &R;
  std::vector<std::string> *Trace;
  EventQueue &Q;
  const int64_t C, Timeout; ///< C: the unit's time per packet.
  const bool Sivaram;
  std::vector<Node> Nodes;
  size_t RootIdx = 0;
  std::vector<int32_t> ProcOf; ///< Tree node of participant j.
  uint64_t NextSeq = 0;
  EpisodeResult Res;

  void push(Event Ev) {
    Ev.Seq = NextSeq++;
    Q.push(Ev, Ev.Time);
  }

  std::string nameOf(int32_t N) const {
    const Node &X = Nodes[N];
    if (X.R == Role::Switch)
      return MinNetwork::name(Net.switchOf(X.Label));
    return (X.R == Role::Root ? "root p" : "p") + std::to_string(X.Label);
  }

  void trace(int64_t T, const std::string &What) {
    if (Trace)
      Trace->push_back("t=" + std::to_string(T) + " " + What);
  }

  /// The combining tree: the union of the turnaround routes from every
  /// participant to the root (a tree, see ir/MultistageNetwork.h).
  void build() {
    Nodes.emplace_back();
    Nodes[0].R = Role::Root;
    for (size_t J = 0; J < E.Nodes.size(); ++J)
      if (E.Nodes[J] == E.Root) {
        RootIdx = J;
        Nodes[0].Arrival = E.Arrival[J];
        Nodes[0].Label = E.Root;
      }
    std::vector<int32_t> SwitchNode(static_cast<size_t>(Net.numSwitches()), -1);
    auto SwitchIdx = [&](MinSwitch S) {
      int64_t Id = Net.switchId(S);
      if (SwitchNode[Id] < 0) {
        SwitchNode[Id] = static_cast<int32_t>(Nodes.size());
        Nodes.emplace_back();
        Nodes.back().R = Role::Switch;
        Nodes.back().Label = Id;
      }
      return SwitchNode[Id];
    };
    auto Link = [&](int32_t Child, int32_t Parent, int64_t Delay) {
      Node &Ch = Nodes[Child];
      if (Ch.Parent >= 0) {
        assert(Ch.Parent == Parent &&
               "turnaround routes to one node form a tree");
        return false;
      }
      Ch.Parent = Parent;
      Ch.LinkUp = Delay;
      Ch.SlotInParent = static_cast<int32_t>(Nodes[Parent].Children.size());
      Nodes[Parent].Children.push_back(Child);
      return true;
    };
    ProcOf.assign(E.Nodes.size(), -1);
    for (size_t J = 0; J < E.Nodes.size(); ++J) {
      if (J == RootIdx)
        continue;
      int32_t Me = static_cast<int32_t>(Nodes.size());
      Nodes.emplace_back();
      Nodes[Me].R = Role::Processor;
      Nodes[Me].Label = E.Nodes[J];
      Nodes[Me].Arrival = E.Arrival[J];
      ProcOf[J] = Me;
      std::vector<MinSwitch> Path = Net.switchesOnRoute(E.Nodes[J], E.Root);
      int32_t Prev = Me;
      int64_t Delay = P.ProcessorLink;
      for (MinSwitch S : Path) {
        int32_t Sw = SwitchIdx(S);
        if (!Link(Prev, Sw, Delay))
          break; // the rest of the route is already in the tree
        Prev = Sw;
        Delay = P.StageCycle;
      }
      if (Prev != Me && Nodes[Prev].Parent < 0)
        Link(Prev, 0, P.ProcessorLink);
    }
    for (Node &N : Nodes) {
      N.Reached.assign(N.Children.size(), 0);
      N.Acked.assign(N.Children.size(), 0);
    }
  }

  int64_t linkDelay(int32_t From, int32_t To) const {
    return Nodes[From].Parent == To ? Nodes[From].LinkUp : Nodes[To].LinkUp;
  }

  /// Puts a packet on the link from \p From to \p To (parent or child),
  /// drawing this phase's faults.
  void send(int64_t T, int32_t From, int32_t To, Phase Ph) {
    ++Res.Packets;
    int I = static_cast<int>(Ph) - 1;
    if (R.chance(P.F.Loss[I])) {
      ++Res.Lost;
      if (Trace)
        trace(T, nameOf(From) + " -> " + nameOf(To) + " " + phaseName(Ph) +
                     " LOST");
      return;
    }
    bool Corrupt = R.chance(P.F.Corrupt[I]);
    if (Corrupt)
      ++Res.Corrupted;
    int32_t Slot = Nodes[From].Parent == To ? Nodes[From].SlotInParent : -1;
    push(
        {T + linkDelay(From, To), 0, EvKind::Packet, Ph, Corrupt, To, Slot, 0});
  }

  void armTimer(int64_t T, int32_t N) {
    push({T + Timeout, 0, EvKind::Timer, Phase::Reached, false, N, -1,
          ++Nodes[N].TimerGen});
  }
  void cancelTimer(int32_t N) { ++Nodes[N].TimerGen; }

  void dispatch(const Event &Ev) {
    Node &N = Nodes[Ev.Node];
    switch (Ev.Kind) {
    case EvKind::Arrive:
      arrive(Ev.Time, Ev.Node);
      return;
    case EvKind::Timer:
      if (Ev.Gen == N.TimerGen)
        timer(Ev.Time, Ev.Node);
      return;
    case EvKind::UnitDone: {
      Node::Pending Pk = N.Queue[N.QHead++];
      if (N.QHead == N.Queue.size()) {
        N.Queue.clear();
        N.QHead = 0;
      }
      N.Busy = false;
      if (!Pk.Corrupt)
        handle(Ev.Time, Ev.Node, Pk.Ph, Pk.From);
      else if (Trace)
        trace(Ev.Time,
              nameOf(Ev.Node) + " discards a corrupted " + phaseName(Pk.Ph));
      startUnit(Ev.Time, Ev.Node);
      return;
    }
    case EvKind::Packet:
      if (Trace)
        trace(Ev.Time, nameOf(Ev.Node) + " <- " + phaseName(Ev.Ph) + " from " +
                           (Ev.From < 0 ? nameOf(N.Parent)
                                        : nameOf(N.Children[Ev.From])) +
                           (Ev.Corrupt ? " (corrupted)" : ""));
      if (Ev.Ph == Phase::Ack && Ev.From >= 0 && !Ev.Corrupt) {
        Node &Ch = Nodes[N.Children[Ev.From]];
        if (Ch.R == Role::Processor && Ch.AckArrival < 0)
          Ch.AckArrival = Ev.Time;
      }
      if (N.R != Role::Switch) {
        if (!Ev.Corrupt) // processors check and drop corrupted packets
          handle(Ev.Time, Ev.Node, Ev.Ph, Ev.From);
        return;
      }
      // A multi-drop release worm is replicated by the cut-through crossbar
      // from its header's port mask; it does not queue for the barrier unit.
      if (!Sivaram && !P.ReleaseThroughUnit && Ev.Ph == Phase::Release) {
        if (!Ev.Corrupt)
          handle(Ev.Time, Ev.Node, Ev.Ph, Ev.From);
        return;
      }
      N.Queue.push_back({Ev.Ph, Ev.From, Ev.Corrupt});
      startUnit(Ev.Time, Ev.Node);
      return;
    }
  }

  /// Assumption 4: one packet at a time in the barrier unit; the others wait
  /// on their links (assumption 2: no buffers) in arrival order.
  void startUnit(int64_t T, int32_t Id) {
    Node &N = Nodes[Id];
    if (N.Busy || N.QHead == N.Queue.size())
      return;
    N.Busy = true;
    int64_t Hold = N.Queue[N.QHead].Corrupt ? P.corruptTime() : C;
    push({T + Hold, 0, EvKind::UnitDone, Phase::Reached, false, Id, -1, 0});
  }

  void arrive(int64_t T, int32_t Id) {
    Node &N = Nodes[Id];
    if (Trace)
      trace(T, nameOf(Id) + " reaches the barrier");
    if (N.R == Role::Root) {
      if (N.AllReached) {
        startRelease(T);
      } else {
        N.St = State::WaitAll;
      }
      return;
    }
    N.St = State::WaitRelease;
    send(T, Id, N.Parent, Phase::Reached);
    armTimer(T, Id);
  }

  void startRelease(int64_t T) {
    Node &Root = Nodes[0];
    Root.St = State::WaitAck;
    for (int32_t Ch : Root.Children)
      send(T, 0, Ch, Phase::Release);
    armTimer(T, 0);
  }

  void release(int64_t T, int32_t Id) {
    Node &N = Nodes[Id];
    N.ReleaseTime = T;
    ++N.Releases;
    if (Trace)
      trace(T, nameOf(Id) + " released");
  }

  void handle(int64_t T, int32_t Id, Phase Ph, int32_t From) {
    switch (Nodes[Id].R) {
    case Role::Processor:
      return processor(T, Id, Ph);
    case Role::Root:
      return root(T, Ph);
    case Role::Switch:
      return switchFsm(T, Id, Ph, From);
    }
  }

  /// Figure 5: a participant that is not the root.
  void processor(int64_t T, int32_t Id, Phase Ph) {
    Node &N = Nodes[Id];
    if (Ph != Phase::Release) {
      ++Res.Duplicates;
      return;
    }
    if (N.St == State::WaitRelease) {
      N.St = State::Done;
      cancelTimer(Id);
      release(T, Id);
      send(T, Id, N.Parent, Phase::Ack);
      return;
    }
    if (N.St == State::Done) {
      // A repeated release: the ack was lost (or the release repeated).
      ++Res.Duplicates;
      send(T, Id, N.Parent, Phase::Ack);
      return;
    }
    // A release before this processor reached the barrier.
    ++N.Releases;
    N.ReleaseTime = T;
  }

  /// Figure 7: the root.
  void root(int64_t T, Phase Ph) {
    Node &N = Nodes[0];
    if (Ph == Phase::Reached) {
      if (N.AllReached) {
        ++Res.Duplicates;
        return;
      }
      N.AllReached = true;
      if (N.St == State::WaitAll)
        startRelease(T);
      else
        N.St = State::WaitSelf;
      return;
    }
    if (Ph == Phase::Ack && N.St == State::WaitAck) {
      N.St = State::Done;
      N.DoneTime = T;
      cancelTimer(0);
      release(T, 0);
      return;
    }
    ++Res.Duplicates;
  }

  /// Figure 6: a switch (and, for Sivaram's scheme, its SRAM entry).
  void switchFsm(int64_t T, int32_t Id, Phase Ph, int32_t From) {
    Node &N = Nodes[Id];
    const int32_t K = static_cast<int32_t>(N.Children.size());
    switch (Ph) {
    case Phase::Reached:
      if (N.St == State::Idle || N.St == State::Collecting) {
        if (N.Reached[From]) {
          ++Res.Duplicates;
          return;
        }
        N.Reached[From] = 1;
        if (++N.NumReached < K) {
          N.St = State::Collecting;
          return;
        }
        // The XOR with the compare register is zero: all children arrived.
        N.St = State::WaitRelease;
        send(T, Id, N.Parent, Phase::Reached);
        if (!Sivaram)
          armTimer(T, Id);
        return;
      }
      ++Res.Duplicates;
      // End-to-end recovery: a child still asking means it has no release;
      // Sivaram's switch passes the request on towards the root in case its
      // own combine was lost. The multi-drop switch ignores it (its own timer
      // repeats its reached packet).
      if (Sivaram && N.St == State::WaitRelease)
        send(T, Id, N.Parent, Phase::Reached);
      return;
    case Phase::Release:
      if (N.St == State::WaitRelease) {
        N.St = State::WaitAck;
        for (int32_t Ch : N.Children)
          send(T, Id, Ch, Phase::Release);
        if (!Sivaram) {
          // Hop by hop: acknowledge to the previous switch (or the root) as
          // the release goes on down.
          send(T, Id, N.Parent, Phase::Ack);
          armTimer(T, Id);
        }
        return;
      }
      ++Res.Duplicates;
      if (Sivaram) {
        if (N.St == State::WaitAck) {
          for (int32_t I = 0; I < K; ++I)
            if (!N.Acked[I])
              send(T, Id, N.Children[I], Phase::Release);
        } else if (N.St == State::Done) {
          send(T, Id, N.Parent, Phase::Ack);
        }
      } else if (N.St == State::WaitAck || N.St == State::Done) {
        send(T, Id, N.Parent, Phase::Ack);
      }
      return;
    case Phase::Ack:
      if (N.St != State::WaitAck || N.Acked[From]) {
        ++Res.Duplicates;
        return;
      }
      N.Acked[From] = 1;
      if (++N.NumAcked < K)
        return;
      N.St = State::Done;
      N.DoneTime = T;
      if (Sivaram)
        send(T, Id, N.Parent, Phase::Ack); // the combined acknowledgement
      else
        cancelTimer(Id);
      return;
    }
  }

  void timer(int64_t T, int32_t Id) {
    Node &N = Nodes[Id];
    switch (N.R) {
    case Role::Processor:
      if (N.St != State::WaitRelease)
        return;
      if (Trace)
        trace(T, nameOf(Id) + " times out: resends reached");
      ++Res.Retransmissions;
      send(T, Id, N.Parent, Phase::Reached);
      break;
    case Role::Root:
      if (N.St != State::WaitAck)
        return;
      if (Trace)
        trace(T, nameOf(Id) + " times out: resends release");
      for (int32_t Ch : N.Children) {
        ++Res.Retransmissions;
        send(T, Id, Ch, Phase::Release);
      }
      break;
    case Role::Switch:
      assert(!Sivaram && "Sivaram's switches keep no timers");
      if (N.St == State::WaitRelease) {
        if (Trace)
          trace(T, nameOf(Id) + " times out: resends reached");
        ++Res.Retransmissions;
        send(T, Id, N.Parent, Phase::Reached);
      } else if (N.St == State::WaitAck) {
        if (Trace)
          trace(T, nameOf(Id) + " times out: resends release");
        for (size_t I = 0; I < N.Children.size(); ++I)
          if (!N.Acked[I]) {
            ++Res.Retransmissions;
            send(T, Id, N.Children[I], Phase::Release);
          }
      } else {
        return;
      }
      break;
    }
    armTimer(T, Id);
  }

  void finish() {
    Res.Participants = static_cast<int32_t>(E.Nodes.size());
    int64_t Last = 0;
    for (int64_t A : E.Arrival)
      Last = std::max(Last, A);
    Res.LastArrival = Last;
    int64_t Completion = 0, FirstRelease = INT64_MAX;
    for (size_t I = 0; I < Nodes.size() && Res.Problem.empty(); ++I) {
      const Node &N = Nodes[I];
      if (N.R == Role::Switch || N.R == Role::Root) {
        if (N.St != State::Done) {
          Res.Problem =
              nameOf(static_cast<int32_t>(I)) + " never finished the barrier";
          break;
        }
        Completion = std::max(Completion, N.DoneTime);
      }
      if (N.R == Role::Processor || N.R == Role::Root) {
        if (N.Releases != 1) {
          Res.Problem = nameOf(static_cast<int32_t>(I)) + " was released " +
                        std::to_string(N.Releases) + " times";
          break;
        }
        if (N.ReleaseTime < Last) {
          Res.Problem = nameOf(static_cast<int32_t>(I)) + " was released at " +
                        std::to_string(N.ReleaseTime) +
                        ", before the last arrival at " + std::to_string(Last);
          break;
        }
        if (N.R == Role::Processor && N.AckArrival < 0) {
          Res.Problem = nameOf(static_cast<int32_t>(I)) +
                        "'s acknowledgement never arrived";
          break;
        }
        FirstRelease = std::min(FirstRelease, N.ReleaseTime);
        Completion = std::max(Completion, N.ReleaseTime);
      }
    }
    Res.Completion = Completion;
    Res.FirstRelease = FirstRelease == INT64_MAX ? 0 : FirstRelease;
    double SumAll = 0, SumPackets = 0;
    int64_t Packets = 0;
    for (const Node &N : Nodes) {
      if (N.R == Role::Processor) {
        SumPackets += static_cast<double>(N.AckArrival - N.Arrival);
        ++Packets;
      }
      if (N.R == Role::Processor || N.R == Role::Root)
        SumAll += static_cast<double>(Completion - N.Arrival);
    }
    Res.AverageDelay = Packets ? SumPackets / static_cast<double>(Packets) : 0;
    Res.CompletionDelay = SumAll / static_cast<double>(E.Nodes.size());
  }
};

} // namespace

EpisodeResult Simulator::run(const Episode &E, Rng &R) {
  assert(!E.Nodes.empty() && E.Nodes.size() == E.Arrival.size());
  if (E.Nodes.size() == 1) {
    // A barrier of one: nothing to wait for.
    EpisodeResult Res;
    Res.Participants = 1;
    Res.Completion = Res.LastArrival = Res.FirstRelease = E.Arrival[0];
    return Res;
  }
  // One event ring per thread, reused across episodes.
  thread_local EventQueue Q;
  int64_t MaxAhead = std::max({P.timeout(), P.unitTime(), P.corruptTime(),
                               P.StageCycle, P.ProcessorLink, P.ArrivalMax});
  Q.reset(MaxAhead);
  return Run(P, Net, E, R, Trace, Q).go();
}

SweepPoint sweep(const SimParams &P, int32_t Participants, int64_t Runs,
                 uint64_t Seed) {
  Simulator Sim(P);
  SweepPoint Pt;
  Pt.Participants = Participants;
  Pt.Runs = Runs;
  double Sum = 0, Sum2 = 0, Comp = 0, Retx = 0, CompletionDelay = 0;
  for (int64_t I = 0; I < Runs; ++I) {
    // One stream draws the episode, another the faults: both schemes see the
    // same episodes whatever faults they meet.
    Rng EpisodeRng(Seed + static_cast<uint64_t>(I));
    Rng FaultRng((Seed + static_cast<uint64_t>(I)) ^ 0x5deece66dULL);
    Episode E = randomEpisode(P, Participants, EpisodeRng);
    EpisodeResult Res = Sim.run(E, FaultRng);
    if (!Res.ok())
      ++Pt.Failures;
    Sum += Res.AverageDelay;
    CompletionDelay += Res.CompletionDelay;
    Sum2 += Res.AverageDelay * Res.AverageDelay;
    Comp += static_cast<double>(Res.Completion - Res.LastArrival);
    Retx += static_cast<double>(Res.Retransmissions);
  }
  double N = static_cast<double>(std::max<int64_t>(Runs, 1));
  Pt.MeanAD = Sum / N;
  Pt.MeanCompletionDelay = CompletionDelay / N;
  Pt.StdAD = std::sqrt(std::max(0.0, Sum2 / N - Pt.MeanAD * Pt.MeanAD));
  Pt.MeanCompletion = Comp / N;
  Pt.MeanRetransmissions = Retx / N;
  return Pt;
}

} // namespace collc::barrier
