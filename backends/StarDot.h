/// \file
/// `--emit dot-graph`: the generator structure of a star or macro-star graph
/// (paper 002) as an undirected Graphviz graph, with the schedule's calls
/// drawn over it. Nodes are labelled by their permutation and rank; every
/// edge is coloured by its generator (T_j, S_i), and the edges the broadcast
/// uses are drawn bold with the step of their call.
#ifndef COLLC_BACKENDS_STARDOT_H
#define COLLC_BACKENDS_STARDOT_H

#include "ir/Machine.h"
#include "ir/Schedule.h"

#include "llvm/Support/raw_ostream.h"

namespace collc {

/// Largest graph `--emit dot-graph` draws (S_6).
constexpr int64_t MaxDotGraphNodes = 720;

/// Writes the graph of \p M's star or macro-star topology with \p S's calls.
/// The topology must be a star or macro-star graph of at most
/// MaxDotGraphNodes nodes.
void emitStarGraphDot(llvm::raw_ostream &OS, const Schedule &S,
                      const Machine &M);

} // namespace collc

#endif
