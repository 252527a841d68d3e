/// \file
/// Cost estimation: fills every transfer's Start and End and the schedule's
/// Makespan under the machine's model or, when the machine has a network
/// (Machine::Net), by the network evaluator (passes/NetworkCost.h), and on
/// more than StepPricingRanks ranks or with a step of more than
/// StepPricingTransfers transfers by the step pricing (passes/StepCost.h);
/// the rest of this comment is the model's rule.
///
/// A rank starts a transfer as soon as (1) it holds what the transfer carries:
/// every transfer the transfer depends on has ended (passes/Dependencies.h:
/// those into the sender from an earlier step whose pieces meet the ones it
/// sends; for a signal, every earlier transfer into it), (2) one of
/// its ports has been free for t_hold since its previous send on that port,
/// and (3) the receiver's previous receive on that port ended at least t_hold
/// before this one ends. The receive ends t_end after the start.
#ifndef COLLC_PASSES_COST_H
#define COLLC_PASSES_COST_H

#include "ir/Machine.h"
#include "ir/Schedule.h"

#include <limits>

namespace collc {

/// With a finite \p GiveUpAbove, a schedule priced by steps is priced only
/// until its makespan so far exceeds it (estimateStepCost): false then, and
/// S.Makespan is a lower bound of its makespan. The other pricings always
/// run to the end (true).
bool estimateCost(Schedule &S, const Machine &M,
                  double GiveUpAbove = std::numeric_limits<double>::infinity());

/// Linear model (paper 001): a node that both sends and receives in one step
/// is slowed by Model::SendRecvFactor (the SP2's T_send/recv = 2 T_send).
/// Per transfer, the factor of its t_hold (the sender's occupancy: slowed
/// when the sender also receives in the step) and of its t_end (the
/// delivery: slowed when either end overlaps a send with a receive).
struct SendRecvFactor {
  double Hold = 1, End = 1;
};
/// Fills \p Factors, one per transfer of \p St; all 1 under every model but
/// the linear one. \p Scratch (one entry per rank) must be zero on entry and
/// is zero again on return.
void sendRecvFactors(const Step &St, const Machine &M,
                     std::vector<uint8_t> &Scratch,
                     std::vector<SendRecvFactor> &Factors);

/// t_hold and t_end of one transfer: the model's, times the step's
/// send/receive factors, and for a Combine the reduction work at the
/// receiver (Model::OpPerByte per byte) added to t_end.
struct TransferTime {
  double Hold = 0, End = 0;
};
TransferTime transferTime(const Schedule &S, const Machine &M,
                          const Transfer &T, SendRecvFactor F = {});

/// t_end of one transfer on \p M (hops from the participants' nodes).
double transferEnd(const Schedule &S, const Machine &M, const Transfer &T);

} // namespace collc

#endif
