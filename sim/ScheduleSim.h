/// \file
/// Runs a Schedule on the wormhole simulator (sim/Wormhole.h): each
/// transfer becomes a message along its dimension-ordered route
/// (passes/Routes.h), waiting for what its sender must hold first.
///
/// A transfer may start when its sender holds what it carries: every transfer
/// it depends on (passes/Dependencies.h, the rule of the cost pass too) has
/// been received. A rank's sends start in schedule order, one per port at a
/// time; ports belong to ranks, channels to the nodes the ranks run on.
#ifndef COLLC_SIM_SCHEDULESIM_H
#define COLLC_SIM_SCHEDULESIM_H

#include "ir/Machine.h"
#include "ir/Schedule.h"
#include "passes/Routes.h"
#include "sim/Wormhole.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace collc {

/// A simulated schedule. Messages are the transfers in schedule order (step
/// by step, then as listed in the step): message numbers are the transfer
/// ids of passes/Dependencies.h.
struct ScheduleSim {
  sim::SimInput Input;
  sim::SimResult Result;
  std::vector<Channel> Channels; ///< Channel number -> its two vertices.
  std::vector<unsigned> Hops;    ///< Per message: channels on its route.
  std::vector<uint64_t> Bytes;   ///< Per message: the transfer's size.
  /// Per message: the model's end time of the same transfer alone on the
  /// network (start + Model::tEnd(bytes, hops)), for comparison.
  std::vector<double> ModelEnd;
};

/// Whether the simulator can run schedules for \p M: a wormhole model and a
/// topology with routes (mesh, torus, hypercube, full).
llvm::Error checkSimulatable(const Machine &M);

/// The simulator's parameters from a wormhole model.
sim::WormTiming wormTiming(const Model &M);

/// Builds the simulator input for \p S on \p M.
llvm::Expected<ScheduleSim> prepareSimulation(const Schedule &S,
                                              const Machine &M);

/// Builds and runs it. A deadlock is a result, not an error: see
/// sim::SimResult::Stuck and deadlockReport().
llvm::Expected<ScheduleSim> simulateSchedule(const Schedule &S,
                                             const Machine &M);

/// When \p Sim deadlocked: what a user needs to see, several lines: how
/// many transfers never completed, when the network stopped, and a cycle of
/// transfers waiting for each other's channels (at most \p MaxCycle of them
/// named, each with the channel it waits for and the transfer holding it).
/// Empty when every transfer completed.
std::string deadlockReport(const ScheduleSim &Sim, const Schedule &S,
                           const Machine &M, size_t MaxCycle = 6);

} // namespace collc

#endif
