/// \file
/// The collectives collc schedules, and what each one means: one table of
/// traits that the verifier, the backends and the front end all read.
///
/// The data a collective moves is a set of atoms (origin, dest, chunk), see
/// ir/Schedule.h. A collective's traits say what kind of data that is, whose
/// data it is (the ranks that hold it at the start) and which ranks hold the
/// result at the end:
///
///   collective  data          origins  results  entry point
///   bcast       replicated    root     all      bcast
///   multicast   replicated    root     all      bcast (among its group)
///   reduce      reduction     all      root     reduce
///   allreduce   reduction     all      all      allreduce
///   scan        reduction     all      all      scan
///   exscan      reduction     all      all      exscan (result kept apart)
///   gather      personalized  all      root     gather
///   scatter     personalized  root     all      scatter
///   allgather   replicated    all      all      allgather
///   alltoall    personalized  all      all      alltoall
///   barrier     signal        all      all      barrier
///   reduce-scatter reduction  all      own      reduce_scatter_block
///
/// A reduce-scatter's message is the whole vector every rank contributes
/// (MPI's count per rank times the process count); it is cut in P blocks,
/// and rank r ends holding block r reduced over all ranks (results "own").
/// Its chunks are the blocks (NumChunks = P; chunk r is block r).
///
/// The numbering of Collective is also the runtime's (collc::rt::Coll in
/// runtime/collc/tables.h, which generated code is compiled against): the MPI
/// backend checks at compile time that the two agree.
#ifndef COLLC_IR_COLLECTIVE_H
#define COLLC_IR_COLLECTIVE_H

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace collc {

enum class Collective {
  Bcast,
  Multicast,
  Reduce,
  Allreduce,
  Scan,
  Exscan,
  Gather,
  Scatter,
  Allgather,
  Alltoall,
  Barrier,
  ReduceScatter,
};

/// What a rank holds of a collective's data, and so how transfers move it.
enum class DataKind {
  /// One message every receiver gets a copy of (bcast, multicast; allgather:
  /// one block per origin). The dest axis of a piece does not split it.
  Replicated,
  /// Blocks M[origin][dest], each meant for one rank (scatter, gather,
  /// all-to-all).
  Personalized,
  /// Contributions combined with an operator (reduce, allreduce, scan,
  /// exscan): Combine transfers fold them into the receiver's values.
  Reduction,
  /// No data: barrier signals.
  Signal,
};

/// A set of ranks a trait names: the root alone, or every rank; Own: every
/// rank, each its own block of the result (reduce-scatter).
enum class RankScope { Root, All, Own };

/// What one collective means.
struct CollectiveTraits {
  Collective Coll;
  /// Lower-case name, as requests and diagnostics spell it ("bcast").
  const char *Name;
  /// The name as generated code spells it in identifiers (collc_bcast_...),
  /// MPI's name of the entry point in lower case ("reduce_scatter_block").
  const char *Ident;
  DataKind Data;
  /// The ranks whose data the collective moves; each holds its own atoms
  /// (origin = itself) from the start.
  RankScope Origins;
  /// The ranks that hold the result at the end.
  RankScope Results;
  /// The collective whose MPI entry point serves it: a multicast is a
  /// broadcast among its participants.
  Collective Entry;
  /// Reductions: the result is kept apart from the partial result a rank
  /// forwards (value 1 of Transfer::From/Into): exscan, whose rank r ends
  /// with ranks 0..r-1, without its own contribution.
  bool ResultApart;

  /// Whether calls name a root: the data starts or ends at one rank.
  constexpr bool rooted() const {
    return Origins == RankScope::Root || Results == RankScope::Root;
  }
};

/// The traits, indexed by Collective.
inline constexpr CollectiveTraits CollectiveTable[] = {
    {Collective::Bcast, "bcast", "bcast", DataKind::Replicated, RankScope::Root,
     RankScope::All, Collective::Bcast, false},
    {Collective::Multicast, "multicast", "multicast", DataKind::Replicated,
     RankScope::Root, RankScope::All, Collective::Bcast, false},
    {Collective::Reduce, "reduce", "reduce", DataKind::Reduction,
     RankScope::All, RankScope::Root, Collective::Reduce, false},
    {Collective::Allreduce, "allreduce", "allreduce", DataKind::Reduction,
     RankScope::All, RankScope::All, Collective::Allreduce, false},
    {Collective::Scan, "scan", "scan", DataKind::Reduction, RankScope::All,
     RankScope::All, Collective::Scan, false},
    {Collective::Exscan, "exscan", "exscan", DataKind::Reduction,
     RankScope::All, RankScope::All, Collective::Exscan, true},
    {Collective::Gather, "gather", "gather", DataKind::Personalized,
     RankScope::All, RankScope::Root, Collective::Gather, false},
    {Collective::Scatter, "scatter", "scatter", DataKind::Personalized,
     RankScope::Root, RankScope::All, Collective::Scatter, false},
    {Collective::Allgather, "allgather", "allgather", DataKind::Replicated,
     RankScope::All, RankScope::All, Collective::Allgather, false},
    {Collective::Alltoall, "alltoall", "alltoall", DataKind::Personalized,
     RankScope::All, RankScope::All, Collective::Alltoall, false},
    {Collective::Barrier, "barrier", "barrier", DataKind::Signal,
     RankScope::All, RankScope::All, Collective::Barrier, false},
    {Collective::ReduceScatter, "reduce-scatter", "reduce_scatter_block",
     DataKind::Reduction, RankScope::All, RankScope::Own,
     Collective::ReduceScatter, false},
};

/// The number of collectives.
inline constexpr size_t NumCollectives =
    sizeof(CollectiveTable) / sizeof(CollectiveTable[0]);

/// Whether CollectiveTable[i] describes collective i, for every collective.
constexpr bool collectiveTableIsIndexed() {
  for (size_t I = 0; I < NumCollectives; ++I)
    if (static_cast<size_t>(CollectiveTable[I].Coll) != I)
      return false;
  return NumCollectives == static_cast<size_t>(Collective::ReduceScatter) + 1;
}
static_assert(collectiveTableIsIndexed(),
              "CollectiveTable lists every collective in enum order");

/// The traits of \p C.
constexpr const CollectiveTraits &traits(Collective C) {
  return CollectiveTable[static_cast<size_t>(C)];
}

/// Shorthands for the traits.
constexpr const char *collectiveName(Collective C) { return traits(C).Name; }
/// CollectiveTraits::Ident.
constexpr const char *collectiveIdent(Collective C) { return traits(C).Ident; }
constexpr DataKind dataKindOf(Collective C) { return traits(C).Data; }
constexpr bool isReduction(Collective C) {
  return traits(C).Data == DataKind::Reduction;
}
constexpr bool isPersonalized(Collective C) {
  return traits(C).Data == DataKind::Personalized;
}
constexpr bool isRooted(Collective C) { return traits(C).rooted(); }
/// The collective whose entry point serves \p C (CollectiveTraits::Entry).
constexpr Collective entryOf(Collective C) { return traits(C).Entry; }
/// Whether every rank ends with a block of every rank (allgather,
/// all-to-all): the data space has a block per pair of ranks.
constexpr bool blockPerPair(Collective C) {
  const CollectiveTraits &T = traits(C);
  return (T.Data == DataKind::Replicated || T.Data == DataKind::Personalized) &&
         T.Origins == RankScope::All && T.Results == RankScope::All;
}

/// "a" or "an", whichever goes before collectiveName(C) ("an allreduce").
const char *withArticle(Collective C);
std::optional<Collective> parseCollective(const std::string &Name);
/// All collectives, in declaration order (for --help and diagnostics).
const std::vector<Collective> &allCollectives();

} // namespace collc

#endif
