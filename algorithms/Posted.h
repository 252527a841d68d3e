/// \file
/// MPI libraries' algorithms whose trees collc has, posted as the libraries
/// post them, which the flow-level evaluator times apart from collc's own
/// posting:
///  - `knomial-fanout` (MVAPICH2's k-nomial broadcast, SMPI's
///    mvapich2_knomial_intra_node): the k-nomial tree of `knomial`, each
///    rank sending to the k - 1 children of one digit at once and waiting
///    for them all before the next digit's (`knomial` sends to one child
///    after the other). Sends at once share the sender's links; they gain
///    where one send alone does not fill them (on a drawn 3-level fat tree
///    of 25 GB/s links a 1 MiB send alone took about 130 us, a third of
///    the link's rate; SMPI: 576.4 us against `binomial`'s 662.7).
///  - `lockstep-scatter-allgather` (SMPI's scatter_LR_allgather, MPICH's
///    scatter-ring-allgather): `scatter-allgather`'s binomial scatter and
///    ring allgather, each rank running its steps as a loop of sendrecv
///    (Schedule::Lockstep), which the evaluator and SMPI time faster than
///    the same schedule posted ahead on a drawn fat tree (63 ranks, 1 MiB:
///    1100.7 us against 1290.7 under SMPI).
///  - `lockstep-reduce-scatter-allgather` (SMPI's rab_rdb, MPICH's
///    Rabenseifner allreduce): `reduce-scatter-allgather` (recursive
///    halving, then recursive doubling) as a loop of sendrecv, as MPICH runs
///    it (SMPI on a 51-rank flat cluster, 64 KiB: 179.3 us against 200.3
///    posted ahead).
/// The flow-level evaluator times each posting, and `auto` takes these
/// where it times them faster by more than rounding.
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
