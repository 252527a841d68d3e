/// \file
/// A discrete-event simulator of a wormhole-switched network, after the
/// flit-level simulator of paper 000 section 4.2, modelled at worm level.
///
/// The network is a set of directed channels (numbered 0..NumChannels-1); a
/// message names the channels of its route in order. It knows nothing of
/// topologies or schedules: sim/ScheduleSim.h turns a Schedule into
/// this input with passes/Routes.h.
///
/// Timing of a message of m flits whose route has k channels (paper 000):
///   - the sender's port is busy for t_send = s_s + m*s_d from the send start
///     (this is t_hold: the next send of the port may start after it);
///   - then the header enters the network: it takes c_d per channel, so
///     without contention it reaches the destination k*c_d later and the
///     tail (m-1)*c_d after that: t_net = k*c_d + (m-1)*c_d;
///   - then the receiver's port spends t_recv = r_s + m*r_d on it; receives of
///     one port are served one at a time in order of arrival.
/// Uncontended, a message ends t_send + t_net + t_recv after it starts, which
/// is Model::tEnd(bytes, k) of the wormhole model.
///
/// Wormhole switching. Every channel buffers one flit, so a worm of m flits
/// sits in the m channels below its header (fewer while it is still being
/// injected or drained): a flit holds the channel it has crossed until it
/// has crossed the next one, and the receiver consumes flits as they cross
/// the last channel. Before crossing a channel the header must own it; a
/// channel owned by another worm blocks the header, and since the flits
/// behind it cannot advance either, the whole worm stops, keeps every
/// channel it holds and resumes, shifted by the time it waited, when the
/// channel is released. Blocked headers wait first come, first served per
/// channel (ties: the order the events were made). This is what a
/// flit-by-flit simulation of 1-flit buffers does, at a few events per hop
/// instead of one per flit per cycle.
///
/// A message of 0 flits (a signal) travels as one header flit: its send and
/// receive overheads use m = 0, its network time is k*c_d.
///
/// Dependencies: a message may start only after every message it depends on
/// has been received (its receive overhead completed). A port's sends start
/// in the order the messages are given.
#ifndef COLLC_SIM_WORMHOLE_H
#define COLLC_SIM_WORMHOLE_H

#include <cstdint>
#include <string>
#include <vector>

namespace collc {
namespace sim {

/// Paper 000's per-message parameters, in one time unit (10 ns in the
/// paper). Flits are the unit of m.
struct WormTiming {
  double Ss = 0; ///< Send start-up.
  double Sd = 0; ///< Send time per flit.
  double Cd = 0; ///< Channel time per flit.
  double Rs = 0; ///< Receive start-up.
  double Rd = 0; ///< Receive time per flit.
};

/// One message of the input.
struct SimMessage {
  int32_t Src = 0;                       ///< Sending port owner (a rank).
  int32_t Dst = 0;                       ///< Receiving port owner.
  uint64_t Flits = 0;                    ///< m.
  uint32_t RouteBegin = 0, RouteEnd = 0; ///< Its channels: Route[Begin, End).
  uint32_t DepBegin = 0, DepEnd = 0; ///< Its dependencies: Deps[Begin, End).
};

struct SimInput {
  int32_t Ranks = 0;
  unsigned Ports = 1; ///< Sends (and receives) a rank may have in progress.
  uint32_t NumChannels = 0;
  /// In the order each rank performs its sends.
  std::vector<SimMessage> Messages;
  std::vector<uint32_t> Route; ///< Channel numbers, per message in order.
  std::vector<uint32_t> Deps;  ///< Message numbers, per message.
};

/// What happened to one message.
struct SimMessageResult {
  double Start = 0; ///< Send start (the sender holds the data, a port is free).
  double Inject = 0;    ///< Start + t_send: the header enters the network.
  double Blocked = 0;   ///< Time the header spent waiting for channels.
  double Arrive = 0;    ///< The tail reached the receiver.
  double RecvStart = 0; ///< The receiver's port took it (>= Arrive).
  double End = 0;       ///< Receive complete.
};

/// A worm left waiting for a channel when nothing could move any more.
struct SimWait {
  uint32_t Message = 0; ///< The waiting worm.
  uint32_t Channel = 0; ///< The channel its header waits for.
  uint32_t Holder = 0;  ///< The worm that owns that channel.
};

struct SimResult {
  std::vector<SimMessageResult> Messages;
  std::vector<double> ChannelBusy; ///< Time each channel was owned by a worm.
  double Makespan = 0;             ///< Latest receive end.
  /// Sum of the messages' Blocked, including the waiting of worms still
  /// waiting at a deadlock (up to StopTime).
  double TotalBlocked = 0;
  uint64_t Events = 0; ///< Events processed.
  /// Messages that never completed: a deadlock of the network (worms
  /// waiting for each other's channels) and whatever depends on them (or
  /// unsatisfiable dependencies). Empty when every message was received.
  std::vector<uint32_t> Stuck;
  /// When messages are stuck: the time of the last event, after which
  /// nothing moved. A worm still waiting then is credited Blocked up to it.
  double StopTime = 0;
  /// The stuck worms that wait for a channel, in message order. Every
  /// holder is itself waiting (nothing else is left to move), so following
  /// holders always ends in a cycle: see deadlockCycle().
  std::vector<SimWait> Waits;
  bool deadlocked() const { return !Stuck.empty(); }
};

/// One cycle of worms waiting for each other's channels, in waiting order
/// (each entry's Holder is the next entry's Message, the last's the first's);
/// empty when no worm waits.
std::vector<SimWait> deadlockCycle(const SimResult &R);

/// Runs the input to completion or until nothing can move (a deadlock: see
/// SimResult::Stuck, Waits, StopTime). Inputs must be consistent:
/// channel numbers < NumChannels, ranks < Ranks, dependency numbers <
/// Messages.size().
SimResult simulate(const SimInput &In, const WormTiming &T);

} // namespace sim
} // namespace collc

#endif
