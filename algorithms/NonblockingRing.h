/// \file
/// The nonblocking ring allgather (SMPI's SMP_NTS with one rank a node,
/// allgather-SMP-NTS.cpp): the ring of the ranks in node order (`ring`),
/// each rank posting every receive ahead and an isend of each block as soon
/// as it arrived, without waiting for its previous send to complete
/// (Schedule::SendsAhead; it waits for them all at the end). Past the
/// rendezvous size a send completes only once its data is delivered, so
/// where `ring` (SMPI's NTSLR_NB) pays each step's latency after the step
/// before it has ended, this one starts the next block's latency phase
/// while the previous block's data still moves.
#ifndef COLLC_ALGORITHMS_NONBLOCKINGRING_H
#define COLLC_ALGORITHMS_NONBLOCKINGRING_H

#include "algorithms/Builder.h"

namespace collc {

/// The ring allgather's schedule with SendsAhead.
PlainBuilder buildNonblockingRingAllgather;

} // namespace collc

#endif
