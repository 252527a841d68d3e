/// \file
/// The call model of paper 002 on star and macro-star graphs: a call joins
/// two adjacent nodes (one generator T_j or S_i apart) and takes one time
/// unit; a node takes part in at most one call per step. The verifier runs
/// this check on every schedule for a star or macro-star topology.
#ifndef COLLC_PASSES_CALLMODEL_H
#define COLLC_PASSES_CALLMODEL_H

#include "ir/Machine.h"
#include "ir/Schedule.h"
#include "ir/StarGraph.h"

#include <optional>
#include <string>
#include <vector>

namespace collc {

/// The generator that the transfer \p T of \p S uses on \p G, or nullopt when
/// its nodes are not adjacent (recomputed from the node numbers; the JSON
/// form of a schedule does not store it).
std::optional<Generator> callGenerator(const StarGraph &G, const Schedule &S,
                                       const Transfer &T);

/// Every violation of the call model, one sentence each (at most
/// \p MaxProblems); empty when every transfer joins adjacent nodes and no
/// node is in two calls of one step. Only star and macro-star topologies are
/// checked.
std::vector<std::string> checkCallModel(const Schedule &S, const Machine &M,
                                        size_t MaxProblems = 20);

} // namespace collc

#endif
