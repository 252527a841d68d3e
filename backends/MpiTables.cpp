#include "backends/MpiTables.h"

#include <algorithm>
#include <climits>
#include <map>
#include <tuple>

using namespace llvm;

namespace collc {

// The runtime's collectives (runtime/collc/tables.h) are the IR's
// (ir/Collective.h): the same numbers, names and traits.
static_assert(rt::Bcast == static_cast<int>(Collective::Bcast) &&
              rt::Multicast == static_cast<int>(Collective::Multicast) &&
              rt::Reduce == static_cast<int>(Collective::Reduce) &&
              rt::Allreduce == static_cast<int>(Collective::Allreduce) &&
              rt::Scan == static_cast<int>(Collective::Scan) &&
              rt::Exscan == static_cast<int>(Collective::Exscan) &&
              rt::Gather == static_cast<int>(Collective::Gather) &&
              rt::Scatter == static_cast<int>(Collective::Scatter) &&
              rt::Allgather == static_cast<int>(Collective::Allgather) &&
              rt::Alltoall == static_cast<int>(Collective::Alltoall) &&
              rt::Barrier == static_cast<int>(Collective::Barrier) &&
              rt::Reduce_scatter_block ==
                  static_cast<int>(Collective::ReduceScatter) &&
              rt::NumColls == static_cast<int>(NumCollectives));

namespace {

/// Whether \p A equals \p B, optionally after "MPI_" and with its first
/// letter in upper case (\p AsMpi: "MPI_Bcast" against "bcast").
constexpr bool sameName(const char *A, const char *B, bool AsMpi) {
  if (AsMpi) {
    for (const char *Prefix = "MPI_"; *Prefix; ++Prefix, ++A)
      if (*A != *Prefix)
        return false;
    if (*A != *B - 'a' + 'A')
      return false;
    ++A;
    ++B;
  }
  for (; *A && *A == *B; ++A, ++B)
    ;
  return *A == *B;
}

constexpr bool runtimeAgrees() {
  for (const CollectiveTraits &T : CollectiveTable) {
    const int C = static_cast<int>(T.Coll);
    if (!sameName(rt::collName(C), T.Name, false) ||
        !sameName(rt::mpiName(C), traits(T.Entry).Ident, true) ||
        rt::isRooted(C) != T.rooted() ||
        rt::isReduction(C) != (T.Data == DataKind::Reduction))
      return false;
  }
  return true;
}
static_assert(runtimeAgrees(), "runtime/collc/tables.h disagrees with "
                               "ir/Collective.h on a collective's traits");

// The plan's buffers, flags and modes (passes/Posting.h) are the runtime's
// numbers: the tables copy them as they are.
constexpr bool planAgrees() {
  const int Plan[] = {SendBuf, RecvBuf,      ScratchBuf,  AccBuf,   ResultBuf,
                      OpRecv,  OpCombine,    OpSignal,    SegRight, SegStore,
                      SegAlso, SegAlsoRight, SegAlsoStore};
  const int Runtime[] = {rt::SendBuf,     rt::RecvBuf,   rt::ScratchBuf,
                         rt::AccBuf,      rt::ResultBuf, rt::OpRecv,
                         rt::OpCombine,   rt::OpSignal,  rt::SegRight,
                         rt::SegStore,    rt::SegAlso,   rt::SegAlsoRight,
                         rt::SegAlsoStore};
  for (size_t I = 0; I < sizeof Plan / sizeof Plan[0]; ++I)
    if (Plan[I] != Runtime[I])
      return false;
  return true;
}
static_assert(planAgrees(),
              "passes/Posting.h disagrees with runtime/collc/tables.h");

rt::Seg toRuntime(const PlannedSeg &G) {
  return {G.Block, G.NumBlocks, G.ChunkLo, G.ChunkHi, G.Buf, G.Mode};
}

auto key(const PlannedSeg &G) {
  return std::tie(G.Block, G.NumBlocks, G.ChunkLo, G.ChunkHi, G.Buf, G.Mode);
}

struct SegListLess {
  bool operator()(const std::vector<PlannedSeg> &A,
                  const std::vector<PlannedSeg> &B) const {
    return std::lexicographical_compare(
        A.begin(), A.end(), B.begin(), B.end(),
        [](const PlannedSeg &X, const PlannedSeg &Y) {
          return key(X) < key(Y);
        });
  }
};

/// The tables of a posting plan: segment lists and wait records interned.
class TableWriter {
public:
  Expected<MpiTables> write(PostingPlan Plan) {
    MpiTables Out;
    Out.Waits = {-1, 0, 0};
    Records.emplace(Out.Waits, 0);
    Out.RankOps.reserve(Plan.Ranks.size() + 1);
    // A rank's part (one rank with operations): its segments, which repeat
    // little, reserved at once (the whole tables' repeat much more).
    size_t Ops = 0, Segs = 0, Planned = 0;
    for (const RankPlan &RP : Plan.Ranks) {
      Ops += RP.Ops.size();
      Planned += !RP.Ops.empty();
      for (const PlannedOp &O : RP.Ops)
        Segs += O.Segs.size();
    }
    Out.Ops.reserve(Ops);
    if (Planned == 1)
      Out.Segs.reserve(Segs);
    for (const RankPlan &RP : Plan.Ranks) {
      Out.RankOps.push_back(static_cast<int64_t>(Out.Ops.size()));
      for (const PlannedOp &O : RP.Ops) {
        rt::Op Op{
            O.Step, O.Peer, O.Flags, 0, static_cast<int32_t>(O.Segs.size()), 0};
        if (!O.Segs.empty()) {
          auto It = Interned.find(O.Segs);
          if (It == Interned.end()) {
            It = Interned.emplace(O.Segs, static_cast<int32_t>(Out.Segs.size()))
                     .first;
            for (const PlannedSeg &G : O.Segs)
              Out.Segs.push_back(toRuntime(G));
          }
          Op.Seg = It->second;
        }
        if (O.Stage > INT32_MAX || O.PostWaits.size() > INT32_MAX ||
            O.ApplyWaits.size() > INT32_MAX)
          return createStringError(inconvertibleErrorCode(),
                                   "a rank's staging or waits exceed the "
                                   "runtime's 32-bit tables");
        std::vector<int32_t> Rec{static_cast<int32_t>(O.Stage),
                                 static_cast<int32_t>(O.PostWaits.size()),
                                 static_cast<int32_t>(O.ApplyWaits.size())};
        Rec.insert(Rec.end(), O.PostWaits.begin(), O.PostWaits.end());
        Rec.insert(Rec.end(), O.ApplyWaits.begin(), O.ApplyWaits.end());
        auto [It, New] =
            Records.try_emplace(Rec, static_cast<int32_t>(Out.Waits.size()));
        if (New) {
          if (Out.Waits.size() + Rec.size() > INT32_MAX)
            return createStringError(inconvertibleErrorCode(),
                                     "the wait records exceed the runtime's "
                                     "32-bit tables");
          Out.Waits.insert(Out.Waits.end(), Rec.begin(), Rec.end());
        }
        Op.Wait = It->second;
        Out.Ops.push_back(Op);
      }
      Out.ScratchBlocks = std::max(Out.ScratchBlocks, RP.ScratchSlots);
    }
    Out.RankOps.push_back(static_cast<int64_t>(Out.Ops.size()));
    Out.NeedsCommutative = Plan.NeedsCommutative;
    Out.Plan = std::move(Plan);
    return Out;
  }

private:
  std::map<std::vector<PlannedSeg>, int32_t, SegListLess> Interned;
  std::map<std::vector<int32_t>, int32_t> Records;
};

} // namespace

rt::Variant MpiTables::variant(const Schedule &S, uint64_t MinBytes,
                               uint64_t MaxBytes) const {
  return {S.Algorithm.c_str(),
          static_cast<int>(S.Coll),
          S.size(),
          isRooted(S.Coll) ? S.Root : 0,
          MinBytes,
          MaxBytes,
          S.NumChunks,
          NeedsCommutative,
          ScratchBlocks,
          RankOps.data(),
          Ops.data(),
          Segs.data(),
          Waits.data()};
}

Expected<MpiTables> lowerToTables(const Schedule &S) {
  Expected<PostingPlan> Plan = planPosting(S);
  if (!Plan)
    return Plan.takeError();
  return TableWriter().write(std::move(*Plan));
}

Expected<MpiTables> lowerRankTables(const Schedule &S, int32_t Rank) {
  if (Rank < 0 || Rank >= S.size())
    return createStringError(inconvertibleErrorCode(),
                             "rank %d is not one of the schedule's %d", Rank,
                             S.size());
  Expected<PostingPlan> Plan = planRankPosting(S, Rank);
  if (!Plan)
    return Plan.takeError();
  return TableWriter().write(std::move(*Plan));
}

} // namespace collc
