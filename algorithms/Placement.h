/// \file
/// Helpers shared by the builders of paper 001's collectives: placing
/// transfers into steps, and the segment counts the report derives.
#ifndef COLLC_ALGORITHMS_PLACEMENT_H
#define COLLC_ALGORITHMS_PLACEMENT_H

#include "algorithms/Builder.h"
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
  /// The blocks of \p Ranks ranks and \p Bytes bytes.
  static int64_t count(int64_t Ranks, uint64_t Bytes) {
    return std::min<int64_t>({Ranks,
                              std::max<int64_t>(1, static_cast<int64_t>(Bytes)),
                              maxSegmentsFor(Ranks)});
  }
  /// Sets \p S's NumChunks to the blocks of its ranks and \p R's bytes.
  ScatterBlocks(Schedule &S, const Request &R)
      : Ranks(S.size()), Blocks(count(Ranks, R.Bytes)) {
    S.NumChunks = Blocks;
  }
  int64_t own(int64_t I) const { return std::min(I, Ranks) * Blocks / Ranks; }
};

/// The copies such a broadcast is made of, as its builder lists them:
/// blocks between indices of a rank order (index 0 the root's), each copy in
/// an allgather round whose copies run at once, or in the scatter (-1).
class BlockCopies {
public:
  /// Sets \p S's NumChunks (ScatterBlocks); \p Order: index -> rank.
  BlockCopies(Schedule &S, const Request &R, std::vector<int32_t> Order)
      : S(S), Blocks(S, R), Order(std::move(Order)) {}
  /// The first chunk of index \p I's blocks (ScatterBlocks::own).
  int64_t own(int64_t I) const { return Blocks.own(I); }
  /// Index \p From sends index \p To the blocks of indices [\p A, \p E) in
  /// \p Round; nothing where they hold no chunks (fewer bytes than ranks).
  void copy(int64_t From, int64_t To, int64_t A, int64_t E, int64_t Round);
  /// The copies listed so far.
  const std::vector<Transfer> &copies() const { return Ts; }
  /// The schedule's steps: the copies in the order listed (orderedRounds),
  /// each round's at once.
  std::vector<Step> steps();

private:
  const Schedule &S;
  const ScatterBlocks Blocks;
  const std::vector<int32_t> Order;
  std::vector<Transfer> Ts;
  std::vector<int64_t> Rounds;
};

/// A broadcast named \p Name that scatters the root's message in blocks
/// and gathers them back: the skeleton, then \p List(C, P) lists the copies
/// C of its P ranks in the rank order \p Order(S). With fewer than 2 ranks
/// there is nothing to send: the skeleton is the schedule.
template <class OrderFn, class ListFn>
llvm::Expected<Schedule>
scatterThenAllgather(const Machine &M, const Request &R, llvm::StringRef Name,
                     OrderFn &&Order, ListFn &&List) {
  Schedule S = scheduleSkeleton(M, R, Name);
  const int64_t P = S.size();
  if (P < 2)
    return S;
  BlockCopies C(S, R, Order(S));
  List(C, P);
  S.Steps = C.steps();
  return S;
}

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
/// the next band's factors; and the count whose segments fill the fastest
/// band (fastestBandCount).
/// Every candidate is at most min(Max, maxSegmentsFor(R.size())). A candidate
/// that fails to build is skipped; when none builds, the last error.
/// \p Ways: the schedule has Ways x k chunks (k per tree of a forest).
/// With \p Counts = Coarse, only counts of the form 2^j and 3 x 2^j are
/// tried (the powers, 3/4 and 3/2 of the best, fastestBandCount; not the
/// hint nor the band edges, which move with the size): the count chosen then
/// stays the same over stretches of sizes, and a builder that searches many
/// forms keeps --emit select's work (which locates every change of shape of
/// a contender) bounded.
enum class SegmentCounts { Fine, Coarse };
llvm::Expected<Schedule>
searchSegments(const Machine &M, const Request &R, Pipeline &P, double Hint,
               int64_t Max,
               llvm::function_ref<llvm::Expected<Schedule>(int64_t)> Build,
               int64_t Ways = 1, SegmentCounts Counts = SegmentCounts::Fine);

/// The most receives from one peer a pipeline with an open window has out at
/// once (Schedule::RecvWindow): enough to fill a link with small segments,
/// few enough to keep the messages in flight (and a simulator's work)
/// bounded.
constexpr int64_t OpenWindow = 64;

/// Opens \p S's receive window: up to OpenWindow of its NumChunks segments'
/// receives out at once from one peer, as MPI libraries' pipelines post
/// them, so that a link carries several small segments at a time, their
/// latencies overlapped.
void openWindow(Schedule &S);

/// A pipeline's search run twice, \p Search(false) under the posting rule's
/// receive window and \p Search(true) with an open one (its builder calls
/// openWindow), each timed in \p P as "window=rule" / "window=open"; the
/// cheaper is kept (the rule's on a tie). Where the network splits its links
/// among many messages in flight to everyone's loss, the rule's wins.
llvm::Expected<Schedule>
searchWindows(const Machine &M, Pipeline &P,
              llvm::function_ref<llvm::Expected<Schedule>(bool Open)> Search);

/// The counts k, in rising order, for which \p Bytes cut in Ways x k chunks
/// gives segments that, with the network's envelope, fill a protocol band of
/// \p M's network up to its top: the least k whose longest chunk fits below
/// each band boundary. Empty without a network or bands.
std::vector<int64_t> bandEdgeCounts(const Machine &M, uint64_t Bytes,
                                    int64_t Ways);

/// A count k, of the form 2^j or 3 x 2^j, for which \p Bytes cut in Ways x k
/// chunks falls in the protocol band of \p M's network with the highest
/// bandwidth factor, when that band is faster than the largest messages'
/// (SMPI's default factors: 5,776-9,375 B at 1.087 against 0.94): the least
/// such count whose segments fit below the band's top. 0 when there is no
/// such band or count.
int64_t fastestBandCount(const Machine &M, uint64_t Bytes, int64_t Ways);

/// For broadcasts that leave some rank without some chunk (a spanning tree
/// cut by a process count that is not a power of two), appends steps in
/// which ranks holding a missing chunk send it on, one-port, until every rank
/// holds every chunk. \p Held[r][c]: whether rank r holds chunk c after the
/// existing steps.
void completeBroadcast(Schedule &S, std::vector<std::vector<bool>> Held);

} // namespace collc

#endif
