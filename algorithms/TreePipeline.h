/// \file
/// Pipelined broadcasts down trees over ranks, the piece the topology's
/// broadcasts (algorithms/TopologyBcast.h) and the switch network's
/// (algorithms/SwitchBcast.h) share: the steps of a forest of trees each
/// carrying its share of the chunks in segments, and the search of the
/// segment count of one tree through the cost pass (searchSegments,
/// algorithms/Placement.h).
#ifndef COLLC_ALGORITHMS_TREEPIPELINE_H
#define COLLC_ALGORITHMS_TREEPIPELINE_H

#include "algorithms/Builder.h"

#include <cstdint>
#include <vector>

namespace collc {

/// A spanning tree for the broadcast helpers: Parent[v] is the node (or
/// rank) v receives from, -1 at the root.
using ParentArray = std::vector<int64_t>;

/// A tree over ranks and the chunks it carries.
struct TreeShare {
  ParentArray Parent;
  int64_t Lo = 0, Hi = 0;
  /// Segments of Group chunks each, the first of one chunk (Group 1: every
  /// chunk its own segment).
  int64_t Group = 1;
  /// A rank sends each segment to all its children in one step, the sends
  /// posted together (a multi-port fan-out, as a tree of non-blocking sends
  /// runs: children on one node share its fast local copies), instead of
  /// one child after the other.
  bool FanOutTogether = false;
};

/// Transfers of one candidate of a search at most: `auto` builds and times
/// every candidate of every builder, and a 256-rank broadcast must stay well
/// under a second or two (a candidate of 2^15 transfers costs about 0.1 s).
constexpr int64_t MaxSearchTransfers = int64_t(1) << 15;

/// Depth of every rank in \p Parent (the root 0).
std::vector<int64_t> depths(const ParentArray &Parent);

/// Steps of a broadcast in which tree t carries chunks [Lo, Hi) of \p Trees
/// down its edges in segments (TreeShare::Group), listed in the order the data
/// arrives when every link has RecvWindow segments in flight (the posting
/// rule's window, passes/Posting.h): a hop then takes as long as RecvWindow
/// segments following each other on a link, so segment i of a tree leaves
/// a rank of depth h at "time" i + RecvWindow x h (trees interleaved on a
/// tie). A rank posts its receives in that order, at most RankRecvWindow at
/// once: a receive listed before data that comes sooner would hold the
/// window (the trees of a forest reach a rank at different depths).
std::vector<Step> forestSteps(const Schedule &S,
                              const std::vector<TreeShare> &Trees);

/// At most one segment per byte, within what a schedule over P ranks may
/// have and a search affords, shared by \p Ways trees.
int64_t maxSegmentsPerTree(const Request &R, int64_t Ways,
                           int64_t Budget = MaxSearchTransfers);

/// A broadcast of every chunk down one tree over ranks, its segment count
/// searched from \p Hint.
llvm::Expected<Schedule> searchOneTree(const Machine &M, const Request &R,
                                       Pipeline &Pl, const Schedule &Skel,
                                       const ParentArray &Tree, double Hint,
                                       int64_t Budget = MaxSearchTransfers);

} // namespace collc

#endif
