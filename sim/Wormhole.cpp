#include "sim/Wormhole.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace collc {
namespace sim {

namespace {

constexpr uint32_t None = std::numeric_limits<uint32_t>::max();

enum class EventKind : uint32_t {
  Header,   ///< The header of worm W has crossed Pos channels.
  Drain,    ///< The tail of worm W frees channel Pos (1-based).
  Arrive,   ///< Worm W (with an empty route) reaches its receiver.
  RecvDone, ///< The receiver has processed message W.
};

struct Event {
  double T;
  uint64_t Seq; ///< Ties: events at one time run in the order they were made.
  uint32_t W;
  uint32_t Pos;
  EventKind Kind;
};

/// A binary min-heap on (T, Seq); simpler and faster than
/// std::priority_queue with a comparator object for this 32-byte payload.
class EventQueue {
public:
  void push(const Event &E) {
    Heap.push_back(E);
    size_t I = Heap.size() - 1;
    while (I > 0) {
      size_t P = (I - 1) / 2;
      if (!less(Heap[I], Heap[P]))
        break;
      std::swap(Heap[I], Heap[P]);
      I = P;
    }
  }
  Event pop() {
    Event Top = Heap.front();
    Heap.front() = Heap.back();
    Heap.pop_back();
    size_t N = Heap.size(), I = 0;
    while (true) {
      size_t L = 2 * I + 1, R = L + 1, M = I;
      if (L < N && less(Heap[L], Heap[M]))
        M = L;
      if (R < N && less(Heap[R], Heap[M]))
        M = R;
      if (M == I)
        break;
      std::swap(Heap[I], Heap[M]);
      I = M;
    }
    return Top;
  }
  bool empty() const { return Heap.empty(); }
  void reserve(size_t N) { Heap.reserve(N); }

private:
  static bool less(const Event &A, const Event &B) {
    return A.T < B.T || (A.T == B.T && A.Seq < B.Seq);
  }
  std::vector<Event> Heap;
};

class Simulator {
public:
  Simulator(const SimInput &In, const WormTiming &T) : In(In), T(T) {}
  SimResult run();

private:
  void schedule(double At, uint32_t W, uint32_t Pos, EventKind K) {
    Queue.push({At, Seq++, W, Pos, K});
  }
  void advanceSends(int32_t Rank);
  void header(double Now, uint32_t W, uint32_t Pos);
  void drain(double Now, uint32_t W, uint32_t I, uint64_t Ticks);
  void release(double Now, uint32_t Channel);
  void arrive(double Now, uint32_t W);
  void received(double Now, uint32_t W);

  uint32_t hops(uint32_t W) const {
    return In.Messages[W].RouteEnd - In.Messages[W].RouteBegin;
  }
  /// Length of the worm in flits: a signal still has its header.
  uint64_t length(uint32_t W) const {
    return std::max<uint64_t>(1, In.Messages[W].Flits);
  }
  uint32_t channel(uint32_t W, uint32_t I) const { // I is 1-based
    return In.Route[In.Messages[W].RouteBegin + I - 1];
  }

  const SimInput &In;
  WormTiming T;
  SimResult R;
  EventQueue Queue;
  uint64_t Seq = 0;

  // Sends: each rank's messages in order (CSR), the next one to start, and
  // when each port becomes free.
  std::vector<uint32_t> SendBegin, SendList, NextSend;
  std::vector<double> SendFree, RecvFree;
  // Dependencies: reverse edges (CSR), outstanding count, ready time.
  std::vector<uint32_t> DependentBegin, Dependents, Pending;
  std::vector<double> Ready;
  // Channels: owner worm (None when free), when it was taken, FIFO of
  // waiting worms linked through NextWaiter.
  std::vector<uint32_t> Owner, WaitHead, WaitTail, NextWaiter, WaitPos;
  std::vector<uint32_t> WaitingOn; ///< Per worm: channel, None if not waiting.
  std::vector<double> Taken, BlockedSince;
  std::vector<uint8_t> Got; ///< Received, per message.
};

void Simulator::advanceSends(int32_t Rank) {
  const unsigned Ports = std::max(1u, In.Ports);
  double *Free = &SendFree[static_cast<size_t>(Rank) * Ports];
  uint32_t &Next = NextSend[Rank];
  while (Next < SendBegin[Rank + 1]) {
    uint32_t W = SendList[Next];
    if (Pending[W] != 0)
      return;
    ++Next;
    double *Port = std::min_element(Free, Free + Ports);
    const SimMessage &M = In.Messages[W];
    double Start = std::max(Ready[W], *Port);
    double Send = T.Ss + static_cast<double>(M.Flits) * T.Sd;
    *Port = Start + Send;
    SimMessageResult &MR = R.Messages[W];
    MR.Start = Start;
    MR.Inject = Start + Send;
    schedule(MR.Inject, W, 0, EventKind::Header);
  }
}

/// Logical time (in c_d periods after injection) at which the tail frees
/// channel I (1-based) of a K-channel route, for a worm of L flits: a flit
/// holds the channel it sits in until it has crossed the next one, so the
/// worm holds the L channels below its header; the receiver consumes flits
/// as they cross the last channel.
static uint64_t releaseTick(uint64_t I, uint64_t K, uint64_t L) {
  return std::min(I + L, K + L - 1);
}

void Simulator::header(double Now, uint32_t W, uint32_t Pos) {
  const uint32_t K = hops(W);
  const uint64_t L = length(W);
  if (K == 0) {
    // No channel to share (both ranks on one node): the worm still takes
    // the one-channel network time.
    schedule(Now + static_cast<double>(L) * T.Cd, W, 0, EventKind::Arrive);
    return;
  }
  // The tail moves up as the header does: it leaves channel Pos - L.
  if (Pos > L)
    release(Now, channel(W, static_cast<uint32_t>(Pos - L)));
  if (Pos == K) {
    // The header is at the receiver; the rest of the worm drains one flit
    // per c_d and cannot be blocked any more.
    uint64_t First = K >= L ? K - L + 1 : 1; // first channel still held
    drain(Now, W, static_cast<uint32_t>(First), releaseTick(First, K, L) - K);
    return;
  }
  uint32_t C = channel(W, Pos + 1);
  if (Owner[C] == None) {
    Owner[C] = W;
    Taken[C] = Now;
    schedule(Now + T.Cd, W, Pos + 1, EventKind::Header);
    return;
  }
  // Blocked: the whole worm stops where it is, holding its channels.
  BlockedSince[W] = Now;
  WaitPos[W] = Pos;
  WaitingOn[W] = C;
  NextWaiter[W] = None;
  if (WaitHead[C] == None)
    WaitHead[C] = W;
  else
    NextWaiter[WaitTail[C]] = W;
  WaitTail[C] = W;
}

void Simulator::drain(double Now, uint32_t W, uint32_t I, uint64_t Ticks) {
  if (Ticks > 0) {
    schedule(Now + static_cast<double>(Ticks) * T.Cd, W, I, EventKind::Drain);
    return;
  }
  const uint32_t K = hops(W);
  const uint64_t L = length(W);
  // Release every channel due now (the last two go together).
  while (true) {
    release(Now, channel(W, I));
    if (I == K) {
      arrive(Now, W);
      return;
    }
    uint64_t Gap = releaseTick(I + 1, K, L) - releaseTick(I, K, L);
    ++I;
    if (Gap > 0) {
      schedule(Now + static_cast<double>(Gap) * T.Cd, W, I, EventKind::Drain);
      return;
    }
  }
}

void Simulator::release(double Now, uint32_t C) {
  R.ChannelBusy[C] += Now - Taken[C];
  uint32_t W = WaitHead[C];
  if (W == None) {
    Owner[C] = None;
    return;
  }
  WaitHead[C] = NextWaiter[W];
  WaitingOn[W] = None;
  Owner[C] = W;
  Taken[C] = Now;
  R.Messages[W].Blocked += Now - BlockedSince[W];
  schedule(Now + T.Cd, W, WaitPos[W] + 1, EventKind::Header);
}

void Simulator::arrive(double Now, uint32_t W) {
  const SimMessage &M = In.Messages[W];
  const unsigned Ports = std::max(1u, In.Ports);
  double *Free = &RecvFree[static_cast<size_t>(M.Dst) * Ports];
  double *Port = std::min_element(Free, Free + Ports);
  SimMessageResult &MR = R.Messages[W];
  MR.Arrive = Now;
  MR.RecvStart = std::max(Now, *Port);
  MR.End = MR.RecvStart + T.Rs + static_cast<double>(M.Flits) * T.Rd;
  *Port = MR.End;
  schedule(MR.End, W, 0, EventKind::RecvDone);
}

void Simulator::received(double Now, uint32_t W) {
  Got[W] = 1;
  R.Makespan = std::max(R.Makespan, Now);
  for (uint32_t I = DependentBegin[W]; I < DependentBegin[W + 1]; ++I) {
    uint32_t D = Dependents[I];
    Ready[D] = std::max(Ready[D], Now);
    if (--Pending[D] == 0)
      advanceSends(In.Messages[D].Src);
  }
}

SimResult Simulator::run() {
  const uint32_t N = static_cast<uint32_t>(In.Messages.size());
  const unsigned Ports = std::max(1u, In.Ports);
  R.Messages.assign(N, {});
  R.ChannelBusy.assign(In.NumChannels, 0.0);

  SendBegin.assign(In.Ranks + 2, 0);
  for (const SimMessage &M : In.Messages)
    ++SendBegin[M.Src + 2];
  for (int32_t I = 2; I < In.Ranks + 2; ++I)
    SendBegin[I] += SendBegin[I - 1];
  SendList.resize(N);
  for (uint32_t W = 0; W < N; ++W)
    SendList[SendBegin[In.Messages[W].Src + 1]++] = W;
  NextSend.assign(SendBegin.begin(), SendBegin.end() - 1);
  SendFree.assign(static_cast<size_t>(In.Ranks) * Ports, 0.0);
  RecvFree.assign(static_cast<size_t>(In.Ranks) * Ports, 0.0);

  DependentBegin.assign(N + 2, 0);
  Pending.assign(N, 0);
  Ready.assign(N, 0.0);
  for (uint32_t W = 0; W < N; ++W) {
    const SimMessage &M = In.Messages[W];
    Pending[W] = M.DepEnd - M.DepBegin;
    for (uint32_t I = M.DepBegin; I < M.DepEnd; ++I)
      ++DependentBegin[In.Deps[I] + 2];
  }
  for (uint32_t I = 2; I < N + 2; ++I)
    DependentBegin[I] += DependentBegin[I - 1];
  Dependents.resize(In.Deps.size());
  for (uint32_t W = 0; W < N; ++W) {
    const SimMessage &M = In.Messages[W];
    for (uint32_t I = M.DepBegin; I < M.DepEnd; ++I)
      Dependents[DependentBegin[In.Deps[I] + 1]++] = W;
  }
  DependentBegin.pop_back();

  Owner.assign(In.NumChannels, None);
  WaitHead.assign(In.NumChannels, None);
  WaitTail.assign(In.NumChannels, None);
  Taken.assign(In.NumChannels, 0.0);
  NextWaiter.assign(N, None);
  WaitPos.assign(N, 0);
  WaitingOn.assign(N, None);
  BlockedSince.assign(N, 0.0);
  Got.assign(N, 0);
  Queue.reserve(std::min<size_t>(N, 1 << 20) + 16);

  for (int32_t Rank = 0; Rank < In.Ranks; ++Rank)
    advanceSends(Rank);
  double Last = 0;
  while (!Queue.empty()) {
    Event E = Queue.pop();
    ++R.Events;
    Last = E.T;
    switch (E.Kind) {
    case EventKind::Header:
      header(E.T, E.W, E.Pos);
      break;
    case EventKind::Drain:
      drain(E.T, E.W, E.Pos, 0);
      break;
    case EventKind::Arrive:
      arrive(E.T, E.W);
      break;
    case EventKind::RecvDone:
      received(E.T, E.W);
      break;
    }
  }
  for (uint32_t W = 0; W < N; ++W) {
    if (WaitingOn[W] != None) {
      // Waiting forever: count the wait up to the moment nothing moved.
      R.Messages[W].Blocked += Last - BlockedSince[W];
      R.Waits.push_back({W, WaitingOn[W], Owner[WaitingOn[W]]});
    }
    R.TotalBlocked += R.Messages[W].Blocked;
    if (!Got[W])
      R.Stuck.push_back(W);
  }
  if (!R.Stuck.empty())
    R.StopTime = Last;
  return std::move(R);
}

} // namespace

SimResult simulate(const SimInput &In, const WormTiming &T) {
  return Simulator(In, T).run();
}

std::vector<SimWait> deadlockCycle(const SimResult &R) {
  if (R.Waits.empty())
    return {};
  std::vector<uint32_t> Index(R.Messages.size(), None);
  for (uint32_t I = 0; I < R.Waits.size(); ++I)
    Index[R.Waits[I].Message] = I;
  // Follow holders from the first waiting worm until one repeats; the
  // walk can only end at a worm that is not waiting if the simulation was
  // not finished, which run() rules out.
  std::vector<uint32_t> Seen(R.Waits.size(), None), Walk;
  uint32_t I = 0;
  while (I != None && Seen[I] == None) {
    Seen[I] = static_cast<uint32_t>(Walk.size());
    Walk.push_back(I);
    I = Index[R.Waits[I].Holder];
  }
  if (I == None)
    return {};
  std::vector<SimWait> Cycle;
  for (size_t K = Seen[I]; K < Walk.size(); ++K)
    Cycle.push_back(R.Waits[Walk[K]]);
  return Cycle;
}

} // namespace sim
} // namespace collc
