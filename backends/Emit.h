/// \file
/// Backends: one emitter per output kind, each writing to a raw_ostream.
#ifndef COLLC_BACKENDS_EMIT_H
#define COLLC_BACKENDS_EMIT_H

#include "ir/Machine.h"
#include "ir/Schedule.h"

#include "llvm/Support/raw_ostream.h"

namespace collc {

/// `--emit summary`: a human table: algorithm, ranks, bytes, makespan, depth,
/// steps, then one line per rank with its parent(s) and send times.
void emitSummary(llvm::raw_ostream &OS, const Schedule &S, const Machine &M);

/// `--emit dot`: the schedule as a Graphviz digraph; edges are transfers,
/// labelled with the sender's send order and the start-end times.
void emitDot(llvm::raw_ostream &OS, const Schedule &S, const Machine &M);

/// `--emit dot` on a mesh or torus (emitDot hands over to it): nodes at their
/// grid positions for `neato -n`, transfers drawn hop by hop along their
/// routes, coloured by send time.
void emitMeshDot(llvm::raw_ostream &OS, const Schedule &S, const Machine &M);

/// Longest chain of transfers, each depending on the previous one.
int64_t scheduleDepth(const Schedule &S);

} // namespace collc

#endif
