/// \file
/// The schedule tables: what `collc --emit mpi` bakes into generated code and
/// the runtime (collc/runtime.h) executes. Plain C++17 with no MPI, shared by
/// the runtime, which ships with user programs, and collc's MPI backend
/// (backends/Mpi.cpp), which writes the tables.
///
/// For every rank, its operations in schedule order:
///   Op  {Step, Peer, Flags, Seg, NumSegs, Wait}: send to or receive from Peer
///       in step Step; what travels is the concatenation of segments
///       Segs[Seg .. Seg+NumSegs); Waits[Wait ..] says where it is staged and
///       which of the rank's operations it waits for (below).
///   Seg {Block, NumBlocks, ChunkLo, ChunkHi, Buf, Mode}: chunks
///       [ChunkLo, ChunkHi) of blocks [Block, Block+NumBlocks) of buffer Buf;
///       Mode says how a received reduction value is applied (SegRight...).
/// Buffers: the user's send buffer, the user's receive buffer, a scratch area
/// of whole blocks (data an intermediate rank forwards), the reduction
/// accumulator (value 0 of the Schedule IR: the partial result), and the
/// result kept apart from it (value 1; exscan only: the receive buffer). A
/// block is what MPI counts per rank (the broadcast buffer, one block of a
/// gather/scatter/all-to-all, the reduced vector); it is split in NumChunks
/// near-equal chunks (the first `size % NumChunks` one unit longer; the unit is
/// a byte, or an element for reductions so that chunks never cut an element).
///
/// Waits (passes/Posting.h plans them): the record of an operation is
///   Waits[Wait] = its staging area's first chunk unit, or -1 when the
///                 message goes straight to or from its buffer (a chunk unit
///                 is the bytes of the longest chunk of a block);
///   Waits[Wait+1] = NP, Waits[Wait+2] = NA;
///   Waits[Wait+3 .. +3+NP): the rank's operations (indices from its first)
///                 that must have finished before it is posted;
///   the next NA: the sends that must have completed before a reduction
///                 receive is applied.
/// A send has finished when it completed, a receive when it was applied.
/// Records are shared; Waits[0..2] = {-1, 0, 0} waits for nothing.
#ifndef COLLC_RUNTIME_TABLES_H
#define COLLC_RUNTIME_TABLES_H

#include <cstdint>

namespace collc {
namespace rt {

/// Collectives, numbered as in the Schedule IR (collc::Collective of
/// ir/Collective.h; the MPI backend checks that they agree). Generated code
/// holds these numbers (Variant::Collective): they never change.
enum Coll : int {
  Bcast = 0,
  Multicast = 1,
  Reduce = 2,
  Allreduce = 3,
  Scan = 4,
  Exscan = 5,
  Gather = 6,
  Scatter = 7,
  Allgather = 8,
  Alltoall = 9,
  Barrier = 10,
  /// MPI_Reduce_scatter_block (collc's reduce-scatter): named after its
  /// entry point, as ir/MpiEntries.h names the others.
  Reduce_scatter_block = 11,
};

/// The number of collectives.
constexpr int NumColls = Reduce_scatter_block + 1;

/// Names of the collectives, as collc spells them ("bcast").
inline constexpr const char *CollNames[] = {
    "bcast",     "multicast", "reduce",  "allreduce",
    "scan",      "exscan",    "gather",  "scatter",
    "allgather", "alltoall",  "barrier", "reduce-scatter"};

/// The MPI library's collective that entry point \p C stands for.
inline constexpr const char *MpiNames[] = {
    "MPI_Bcast",     "MPI_Bcast",    "MPI_Reduce",  "MPI_Allreduce",
    "MPI_Scan",      "MPI_Exscan",   "MPI_Gather",  "MPI_Scatter",
    "MPI_Allgather", "MPI_Alltoall", "MPI_Barrier", "MPI_Reduce_scatter_block"};

constexpr const char *collName(int C) {
  return C >= 0 && C < NumColls ? CollNames[C] : "?";
}

constexpr const char *mpiName(int C) {
  return C >= 0 && C < NumColls ? MpiNames[C] : "?";
}

/// Whether calls of \p C name a root.
constexpr bool isRooted(int C) {
  return C == Bcast || C == Multicast || C == Reduce || C == Gather ||
         C == Scatter;
}

/// Whether \p C combines contributions with an operator.
constexpr bool isReduction(int C) {
  return C == Reduce || C == Allreduce || C == Scan || C == Exscan ||
         C == Reduce_scatter_block;
}

/// Buffers a segment addresses.
enum Buf : uint8_t {
  SendBuf = 0,
  RecvBuf = 1,
  ScratchBuf = 2,
  AccBuf = 3,
  ResultBuf = 4, ///< Exscan: the result, kept apart from the accumulator.
};

/// Op flags.
enum : uint8_t {
  OpRecv = 1,    ///< Receive (else send).
  OpCombine = 2, ///< Reduction: fold into the accumulator (else copy).
  OpSignal = 4,  ///< No data: a zero-byte message.
};

/// Seg modes: how a received reduction value updates its segment.
enum : uint8_t {
  SegRight = 1,      ///< Combine: the incoming value is the right operand.
  SegStore = 2,      ///< Combine into an empty value: store it.
  SegAlso = 4,       ///< The same chunks of the result (ResultBuf) too,
  SegAlsoRight = 8,  ///< ... as the right operand,
  SegAlsoStore = 16, ///< ... or stored (the result was empty).
};

struct Seg {
  int64_t Block;
  int64_t NumBlocks;
  int32_t ChunkLo, ChunkHi;
  uint8_t Buf;
  uint8_t Mode; ///< Received reduction values: SegRight, SegStore, ...
};

struct Op {
  int32_t Step;
  int32_t Peer;
  uint8_t Flags;
  int32_t Seg;
  int32_t NumSegs;
  int32_t Wait; ///< Its record in Variant::Waits.
};

/// One compiled schedule.
struct Variant {
  const char *Algorithm;
  int Collective;
  int32_t Ranks;
  int32_t Root;
  /// Message sizes (bytes per block, see above) this variant serves.
  uint64_t MinBytes, MaxBytes;
  int64_t NumChunks;
  /// Whether the schedule relies on the operator being commutative.
  bool NeedsCommutative;
  /// Scratch blocks the busiest rank needs.
  int64_t ScratchBlocks;
  const int64_t *RankOps; ///< Ranks+1 offsets into Ops.
  const Op *Ops;
  const Seg *Segs;
  const int32_t *Waits; ///< Staging and waits of the operations (above).
};

} // namespace rt
} // namespace collc

#endif
