/// \file
/// Helpers shared by the builders of paper 001's collectives: placing
/// transfers into steps, and the segment counts the report derives.
#ifndef COLLC_ALGORITHMS_PLACEMENT_H
#define COLLC_ALGORITHMS_PLACEMENT_H

#include "ir/Machine.h"
#include "ir/Request.h"
#include "ir/Schedule.h"
#include "passes/Pipeline.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace collc {

/// Steps from transfers tagged with an explicit step number (gaps dropped).
std::vector<Step>
placeInSteps(std::vector<std::pair<int64_t, Transfer>> Tagged);

/// Steps from transfers listed in an order that is causal for every rank
/// (what a rank sends reflects exactly the transfers into it listed before):
/// each transfer goes in the earliest step after its sender's earlier sends
/// and receives and its receiver's earlier receives, and not before its
/// receiver's earlier sends (a step's sends read the values before the
/// step's receives). Unlike stepsByRounds, a receive never moves ahead of a
/// send listed before it, which reductions need. With \p Groups, transfers
/// listed consecutively with the same group id >= 0 are simultaneous (an
/// exchange: each reads the values before the group) and share one step.
/// \p Transfers are moved into the steps: pass them with std::move where
/// they are not needed after (millions of transfers are not copied then).
std::vector<Step> orderedRounds(std::vector<Transfer> Transfers, int32_t Ranks,
                                const std::vector<int64_t> *Groups = nullptr);

/// Steps of an algorithm whose transfers come in groups meant to run at once
/// (\p Groups[i]: the group of transfer i, groups listed consecutively; -1: a
/// transfer alone), listed in an order causal for every rank (as for
/// orderedRounds). A group shares one step when none of its ranks sends or
/// receives more of its transfers than portsPerStep(\p M) allows (any number
/// on a machine with a network, passes/Verify.h); the transfers of a group
/// that does not fit are placed one port at a time, in the order listed.
/// \p Transfers are moved into the steps, as for orderedRounds.
std::vector<Step> groupedRounds(const Machine &M,
                                std::vector<Transfer> Transfers, int32_t Ranks,
                                std::vector<int64_t> Groups);

/// Rank of relative index \p I in a tree or chain rooted at \p Root.
inline int32_t relRank(int64_t I, int32_t Root, int32_t P) {
  return static_cast<int32_t>((I + Root) % P);
}

/// Rank intervals of relative indices [Lo, Hi) (at most two: they may wrap).
std::vector<Interval> relIntervals(int64_t Lo, int64_t Hi, int32_t Root,
                                   int32_t P);

/// Upper bound on a segment count the builders derive themselves.
constexpr int64_t MaxDerivedSegments = 1024;

/// Upper bound on the transfers of a built schedule: what a schedule really
/// holds (a transfer of one piece takes 112 bytes, so 2^22 of them about
/// half a gigabyte). Builders whose transfer count would exceed it
/// refuse with the count (transfersFit).
constexpr int64_t MaxTransfers = int64_t(1) << 22;

/// Whether \p Transfers (a builder's count of what it would list) stay
/// within MaxTransfers; else says why not in \p Why.
bool transfersFit(double Transfers, std::string &Why);

/// Upper bound on the transfers of a schedule of one block each, plain
/// copies (the direct all-to-all and allgather) or one-block folds (the ring
/// and direct reduce-scatters, reduce-scatter-direct's reduce), built
/// because the request names its algorithm: such a transfer takes 112 bytes
/// in the schedule (ir/Schedule.h, PieceList) and 190-300 at the peak of
/// building, verifying and writing it, so 2^24 of them (every pair of 4,096
/// ranks) 3.1-5 GB. `auto` keeps to MaxTransfers for its candidates.
constexpr int64_t MaxCopyTransfers = int64_t(1) << 24;

/// transfersFit for such schedules: within MaxCopyTransfers when \p R names
/// the algorithm, MaxTransfers under `auto`.
bool copyTransfersFit(const Request &R, double Transfers, std::string &Why);

/// Upper bound on ranks x segments the segment searches consider: a
/// segmented schedule has about that many transfers, and a search builds and
/// prices several. It bounds the search, not the schedules a request may ask
/// for with its `segments` (those are bounded by MaxTransfers).
constexpr int64_t SegmentSearchBudget = int64_t(1) << 20;

/// The most segments a search over \p Ranks ranks considers (at least 1).
inline int64_t maxSegmentsFor(int64_t Ranks) {
  return Ranks > 1 ? std::max<int64_t>(1, SegmentSearchBudget / Ranks)
                   : SegmentSearchBudget;
}

/// The blocks of a broadcast that scatters the message and gathers it back
/// (scatter-allgather, scatter-rdb-allgather): one per rank, fewer with
/// fewer bytes than ranks or past maxSegmentsFor. Index i (a relative rank,
/// a position in a rank order) owns chunks [own(i), own(i + 1)).
struct ScatterBlocks {
  int64_t Ranks = 1;
  int64_t Blocks = 1;
  /// Sets \p S's NumChunks to the blocks of its ranks and \p R's bytes.
  ScatterBlocks(Schedule &S, const Request &R)
      : Ranks(S.size()),
        Blocks(std::min<int64_t>(
            {Ranks, std::max<int64_t>(1, static_cast<int64_t>(R.Bytes)),
             maxSegmentsFor(Ranks)})) {
    S.NumChunks = Blocks;
  }
  int64_t own(int64_t I) const { return std::min(I, Ranks) * Blocks / Ranks; }
};

/// Segments for a request: its `segments` when given (capped at \p Max), else
/// \p Optimum rounded and clamped to [1, Max].
int64_t pickSegments(const Request &R, double Optimum, int64_t Max);

/// Searches a builder's segment count with the machine's cost pass
/// (passes/Cost.h: the network evaluator on a machine with a network, else
/// the model), through algorithms/Cheapest.h: builds \p Build(k) for
/// candidate counts, each timed in \p P as "search: k=<k>", and returns the
/// schedule of least makespan (the smaller k on a tie). The request's
/// `segments`, when given, is the only candidate (capped at \p Max). Else the
/// candidates are 1, 2, 4, ... up to \p Max (stopping two powers past the
/// best so far, as the makespan of a segmented schedule falls and then rises
/// with k), \p Hint rounded, and 3/4 and 3/2 of the best power. On a machine
/// with a network, also every count within a factor 2 of the best power
/// whose segments are the largest of a protocol band (bandEdgeCounts): the
/// factors change at those sizes, and a count one short of such a count pays
/// the next band's factors.
/// Every candidate is at most min(Max, maxSegmentsFor(R.size())). A candidate
/// that fails to build is skipped; when none builds, the last error.
/// \p Ways: the schedule has Ways x k chunks (k per tree of a forest).
llvm::Expected<Schedule>
searchSegments(const Machine &M, const Request &R, Pipeline &P, double Hint,
               int64_t Max,
               llvm::function_ref<llvm::Expected<Schedule>(int64_t)> Build,
               int64_t Ways = 1);

/// The counts k, in rising order, for which \p Bytes cut in Ways x k chunks
/// gives segments that, with the network's envelope, fill a protocol band of
/// \p M's network up to its top: the least k whose longest chunk fits below
/// each band boundary. Empty without a network or bands.
std::vector<int64_t> bandEdgeCounts(const Machine &M, uint64_t Bytes,
                                    int64_t Ways);

/// For broadcasts that leave some rank without some chunk (a spanning tree
/// cut by a process count that is not a power of two), appends steps in
/// which ranks holding a missing chunk send it on, one-port, until every rank
/// holds every chunk. \p Held[r][c]: whether rank r holds chunk c after the
/// existing steps.
void completeBroadcast(Schedule &S, std::vector<std::vector<bool>> Held);

} // namespace collc

#endif
