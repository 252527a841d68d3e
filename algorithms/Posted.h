/// \file
/// MPI libraries' algorithms whose trees collc has, posted as the libraries
/// post them, which the flow-level evaluator times apart from collc's own
/// posting:
///  - `knomial-fanout` (MVAPICH2's k-nomial broadcast, SMPI's
///    mvapich2_knomial_intra_node): the k-nomial tree of `knomial`, each
///    rank sending to the k - 1 children of one digit at once and waiting
///    for them all before the next digit's (`knomial` sends to one child
///    after the other). Concurrent sends share the sender's links but
///    overlap their latencies and the routes beyond the first link, which
///    on an oversubscribed fat tree is where a single send's time goes.
///  - `lockstep-scatter-allgather` (SMPI's scatter_LR_allgather, MPICH's
///    scatter-ring-allgather): `scatter-allgather`'s binomial scatter and
///    ring allgather, each rank running its steps as a loop of sendrecv
///    (Schedule::Lockstep). Posted ahead, a rank that holds blocks from the
///    scatter sends them on as fast as its links take them while its
///    neighbours' ring messages queue behind them; in lockstep every rank
///    moves one block a round.
///  - `lockstep-reduce-scatter-allgather` (SMPI's rab_rdb, MPICH's
///    Rabenseifner allreduce): `reduce-scatter-allgather` (recursive
///    halving, then recursive doubling) as a loop of sendrecv, as MPICH runs
///    it. Posted ahead, a rank's next halving exchange is out while the
///    previous one's fold still waits, and its messages meet its partners'
///    earlier ones on the links.
#ifndef COLLC_ALGORITHMS_POSTED_H
#define COLLC_ALGORITHMS_POSTED_H

#include "algorithms/Builder.h"

#include <cstdint>

namespace collc {

/// The k-nomial tree of radix \p K over the ranks in node order from the
/// root (\p K at least 2), each digit's sends of a rank at once (one step).
llvm::Expected<Schedule> buildKnomialFanoutRadix(const Machine &M,
                                                 const Request &R, int64_t K);

/// knomial-fanout: the radix (2..8, below P + 1) searched
/// with the cost pass.
SearchingBuilder buildKnomialFanout;

/// lockstep-scatter-allgather: scatter-allgather's schedule in lockstep.
PlainBuilder buildLockstepScatterAllgather;

/// lockstep-reduce-scatter-allgather: reduce-scatter-allgather's schedule
/// (reduce or allreduce) in lockstep.
PlainBuilder buildLockstepReduceScatterAllgather;

} // namespace collc

#endif
