/// \file
/// Software barriers as schedules of signals (TransferKind::Signal, no data).
/// A rank leaves the barrier when its last transfer in the schedule is done;
/// the verifier proves that by then a chain of signals links every rank's
/// arrival to it (happens-before).
///
///  - dissemination (Hensgen, Finkel and Manber): ceil(log2 P) rounds; in
///    round k rank i signals rank (i + 2^k) mod P. Every rank sends and
///    receives once per round; no root.
///  - tree: a binomial gather of arrival signals to the root, then the
///    binomial release from the root: 2 ceil(log2 P) rounds.
///  - gather-broadcast (paper 003, Figure 1; Panda's two-phase barrier on a
///    linear array): the ranks in a line starting at the root; the gather
///    worm starts at the far end and visits every rank towards the root
///    (each adds its arrival and passes it on), then the broadcast worm
///    releases them in the reverse order. As point-to-point signals: a chain
///    of P-1 signals in and P-1 out.
#ifndef COLLC_ALGORITHMS_BARRIERS_H
#define COLLC_ALGORITHMS_BARRIERS_H

#include "algorithms/Builder.h"

namespace collc {

/// Largest barrier collc builds: the verifier's happens-before check keeps
/// P x P bits of knowledge (32 MiB at this size).
constexpr int64_t MaxBarrierRanks = int64_t(1) << 14;

PlainBuilder buildDisseminationBarrier;
PlainBuilder buildTreeBarrier;
PlainBuilder buildGatherBroadcastBarrier;

/// Applies to every machine; refuses more than MaxBarrierRanks ranks.
AppliesTest barrierApplies;

} // namespace collc

#endif
