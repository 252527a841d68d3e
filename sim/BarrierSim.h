/// \file
/// A discrete-event simulator of the two reliable hardware barriers of paper
/// 003 on a multistage network (ir/MultistageNetwork.h): the barrier of
/// Sivaram, Stunkel and Panda (a 4-cycle SRAM barrier unit per switch,
/// acknowledgements combined end to end, recovery driven by the end points)
/// and the proposed multi-drop barrier (a 3-cycle register barrier unit,
/// release worms that cut-through switches replicate, acknowledgements hop by
/// hop, recovery hop by hop). Both run the same three phases: barrier-reached
/// (combine) up the tree, release multicast down, acknowledgement up.
///
/// The model follows the paper's assumptions 1-7 (section 4.3): synchronous
/// switches on an integer clock, no buffers (a packet that finds the barrier
/// unit busy waits on its link), arrivals uniform in [4, 12] units, packets
/// reaching a unit together are served one at a time, a stage cycle of 1
/// unit, 1 unit between a switch and a processor, one barrier at a time.
/// The paper never gives how long one cycle of the barrier unit lasts; it is
/// a parameter (SimParams::CycleLength). Every modelling decision is listed
/// in docs/barrier.md.
///
/// Processors, switches and the root are explicit finite state machines
/// (Figures 5-7) with timeouts and retransmission; faults (loss, corruption)
/// are injected per phase from a seeded generator.
#ifndef COLLC_SIM_BARRIERSIM_H
#define COLLC_SIM_BARRIERSIM_H

#include "ir/MultistageNetwork.h"
#include "ir/Random.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace collc::barrier {

enum class Scheme { Sivaram, MultiDrop };
const char *schemeName(Scheme S);

/// The 2-bit phase field of a barrier packet (paper 003, Figure 3).
enum class Phase : uint8_t { Reached = 1, Release = 2, Ack = 3 };
const char *phaseName(Phase P);

/// The runs draw from collc's one seeded generator (ir/Random.h), so they are
/// reproducible across compilers and standard libraries.
using collc::Rng;

/// Per-phase fault rates, indexed by phase: [Reached, Release, Ack].
struct Faults {
  std::array<double, 3> Loss{0, 0, 0};
  std::array<double, 3> Corrupt{0, 0, 0};
  static Faults uniform(double Loss, double Corrupt) {
    Faults F;
    F.Loss = {Loss, Loss, Loss};
    F.Corrupt = {Corrupt, Corrupt, Corrupt};
    return F;
  }
  bool any() const;
};

struct SimParams {
  Scheme S = Scheme::MultiDrop;
  int64_t Nodes = 64;
  int64_t Radix = 8;
  /// Cycles the barrier unit spends on one packet; 0 takes the scheme's
  /// (4 for Sivaram's SRAM unit, 3 for the multi-drop register unit).
  int64_t UnitCycles = 0;
  /// Cycles a corrupted packet occupies a barrier unit before its error
  /// check discards it (Sivaram's unit checks in its second cycle).
  int64_t CorruptCycles = 2;
  /// Time units one cycle of the barrier unit lasts. The paper's assumption 4
  /// says only that a packet waits while the unit serves another; it never
  /// says how long a unit cycle is. 1 reads it as a stage cycle (assumption
  /// 5); Figure8CycleLength (tools/BarrierExperiments.h) reproduces the paper's Figure 8.
  int64_t CycleLength = 1;
  /// Whether a multi-drop release worm passes through the barrier unit of
  /// every switch (true) or is replicated by the cut-through crossbar from
  /// its header alone (false). Sivaram's release always takes the unit.
  bool ReleaseThroughUnit = true;
  int64_t StageCycle = 1;    ///< Assumption 5: switch to switch.
  int64_t ProcessorLink = 1; ///< Assumption 6: switch to processor.
  int64_t ArrivalMin = 4;    ///< Assumption 3.
  int64_t ArrivalMax = 12;
  /// Retransmission timeout of every timer; 0 picks one above the longest
  /// fault-free wait on this network (see autoTimeout).
  int64_t Timeout = 0;
  Faults F;

  int64_t unitCycles() const {
    return UnitCycles ? UnitCycles : (S == Scheme::Sivaram ? 4 : 3);
  }
  /// Time units the unit spends on one packet: unitCycles() cycles.
  int64_t unitTime() const { return unitCycles() * CycleLength; }
  /// Time units a corrupted packet occupies the unit.
  int64_t corruptTime() const {
    return std::min(CorruptCycles, unitCycles()) * CycleLength;
  }
  /// A timeout no fault-free episode reaches on this network.
  int64_t autoTimeout() const;
  int64_t timeout() const { return Timeout ? Timeout : autoTimeout(); }
};

/// What one barrier episode did.
struct EpisodeResult {
  int32_t Participants = 0;
  /// Time the last acknowledgement was accepted: every processor, switch and
  /// the root may go on (the end of the paper's A_j).
  int64_t Completion = 0;
  /// AD of section 4.2, read literally: AD = sum_j (A_j - G_j) / N over the
  /// N barrier-reached packets j the participants other than the root send,
  /// G_j when packet j is generated (the processor reaches the barrier) and
  /// A_j when that processor's acknowledgement arrives at its switch.
  double AverageDelay = 0;
  /// The other reading: A_j = Completion for every participant (the time
  /// every switch and the root are done), averaged over all participants.
  double CompletionDelay = 0;
  int64_t LastArrival = 0;  ///< max_j G_j.
  int64_t FirstRelease = 0; ///< Earliest release of a participant.
  uint64_t Packets = 0;     ///< Packets put on a link (all phases).
  uint64_t Lost = 0, Corrupted = 0;
  uint64_t Retransmissions = 0; ///< Packets sent again after a timeout.
  uint64_t Duplicates = 0;      ///< Duplicate packets the FSMs ignored.
  uint64_t Events = 0;
  /// Invariants: every participant released exactly once, none before the
  /// last one arrived, the episode completed. Empty when they hold.
  std::string Problem;
  bool ok() const { return Problem.empty(); }
};

/// One episode's input: who takes part, the root, when each arrives.
struct Episode {
  std::vector<int64_t> Nodes;   ///< Participating processors (distinct).
  int64_t Root = 0;             ///< One of Nodes.
  std::vector<int64_t> Arrival; ///< G_j, parallel to Nodes.
};

/// Draws an episode: \p Participants distinct nodes uniformly at random, a
/// random root among them, arrivals uniform in [ArrivalMin, ArrivalMax].
Episode randomEpisode(const SimParams &P, int32_t Participants, Rng &R);

class Simulator {
public:
  explicit Simulator(SimParams P);
  const SimParams &params() const { return P; }
  const MinNetwork &network() const { return Net; }

  /// Runs one episode; \p R draws the faults.
  EpisodeResult run(const Episode &E, Rng &R);

  /// Optional trace of every packet event ("t=12 sw(0,3) <- reached from
  /// p17"); null to disable.
  std::vector<std::string> *Trace = nullptr;

private:
  SimParams P;
  MinNetwork Net;
};

/// Aggregate over many seeded episodes of one participant count.
struct SweepPoint {
  int32_t Participants = 0;
  int64_t Runs = 0;
  double MeanAD = 0, StdAD = 0;
  double MeanCompletionDelay = 0;
  /// Mean of Completion - LastArrival: how long the barrier takes once the
  /// last participant arrived.
  double MeanCompletion = 0;
  double MeanRetransmissions = 0;
  int64_t Failures = 0; ///< Episodes whose invariants failed.
};

/// Runs \p Runs episodes of \p Participants with seeds Seed, Seed+1, ...
/// The same seed draws the same episode (participants, root, arrivals) for
/// every scheme, so two schemes are compared on identical inputs.
SweepPoint sweep(const SimParams &P, int32_t Participants, int64_t Runs,
                 uint64_t Seed);

} // namespace collc::barrier

#endif
