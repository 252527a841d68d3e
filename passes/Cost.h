/// \file
/// Cost estimation: fills every transfer's Start and End and the schedule's
/// Makespan under the machine's model.
///
/// A rank starts a transfer as soon as (1) it holds what the transfer carries:
/// every transfer into it from an earlier step whose pieces meet the ones it
/// sends has ended (for a signal: every earlier transfer into it), (2) one of
/// its ports has been free for t_hold since its previous send on that port,
/// and (3) the receiver's previous receive on that port ended at least t_hold
/// before this one ends. The receive ends t_end after the start.
#ifndef COLLC_PASSES_COST_H
#define COLLC_PASSES_COST_H

#include "ir/Machine.h"
#include "ir/Schedule.h"

namespace collc {

void estimateCost(Schedule &S, const Machine &M);

/// t_end of one transfer on \p M (hops from the participants' nodes).
double transferEnd(const Schedule &S, const Machine &M, const Transfer &T);

} // namespace collc

#endif
