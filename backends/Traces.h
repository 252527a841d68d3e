/// \file
/// Backends that replay a schedule elsewhere or show how it ran: the wormhole
/// simulator's report, Chrome/Perfetto traces, GOAL schedules for
/// LogGOPSim and SimGrid time-independent traces.
#ifndef COLLC_BACKENDS_TRACES_H
#define COLLC_BACKENDS_TRACES_H

#include "ir/Machine.h"
#include "ir/Schedule.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace collc {

/// `--emit sim`: runs the schedule on the wormhole simulator
/// (sim/ScheduleSim.h) and reports, per transfer, its start, header-blocked
/// time and end beside the model's end; per channel its busy time; overall the
/// makespan (beside the model's) and the total blocked time. The machine
/// must pass checkSimulatable().
void emitSimReport(llvm::raw_ostream &OS, const Schedule &S, const Machine &M);
/// Runs the simulator on \p S: an error when it cannot complete on \p M's
/// network (a deadlock; the message names a cycle of waiting transfers and
/// the channels they wait for). `collc --emit sim` and `chrome-trace-sim`
/// check this first and exit 2 on it, writing nothing.
llvm::Error checkSimCompletes(const Schedule &S, const Machine &M);

/// `--emit chrome-trace`: the Trace Event JSON that chrome://tracing and
/// Perfetto open, with the cost model's times: one process per rank, a
/// "send" and a "recv" thread in each, a flow arrow from every send to its
/// receive. Times are in the model's unit, written as microseconds.
void emitChromeTrace(llvm::raw_ostream &OS, const Schedule &S,
                     const Machine &M);

/// `--emit chrome-trace-sim`: the same with the simulator's times and a
/// "network" thread per rank holding its worms, where blocked worms are
/// named so and carry their blocked time.
void emitChromeTraceSim(llvm::raw_ostream &OS, const Schedule &S,
                        const Machine &M);

/// `--emit goal`: the schedule in the GOAL language of LogGOPSim/Schedgen:
/// `num_ranks N`, then per rank its sends and receives (one op per
/// transfer, tagged with the transfer's number) and `requires` edges: a
/// send requires the receives it forwards data from (the rule of
/// passes/Cost.cpp) and the rank's previous send.
void emitGoal(llvm::raw_ostream &OS, const Schedule &S, const Machine &M);

/// `--emit ti-trace`: SimGrid time-independent trace actions of every rank,
/// one per line prefixed by the rank: init, irecv of everything the rank
/// receives, then per send the waits for what it forwards and an isend,
/// then waits for all, finalize. Counts are MPI_BYTE, tags the transfer's
/// number.
void emitTiTrace(llvm::raw_ostream &OS, const Schedule &S, const Machine &M);

/// The files `--emit ti-trace -o PATH` writes: (path, contents) pairs. PATH
/// is the index smpirun -replay reads: one line per rank naming that rank's
/// trace, PATH.<rank> beside it (named by file name only, so the set can be
/// moved together; smpirun is run from their directory).
std::vector<std::pair<std::string, std::string>>
tiTraceFiles(const Schedule &S, llvm::StringRef Path);

} // namespace collc

#endif
