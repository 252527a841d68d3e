/// \file
/// The Schedule IR: what collc builds, checks and emits.
///
/// A schedule is an ordered list of steps; a step is a set of transfers. A
/// transfer moves pieces of logical data from one rank to another, as a copy,
/// combined into the receiver's partial result (reductions), or as a signal
/// without data (barriers). A rank performs its part of step s+1 only after
/// what it needs for it has arrived; it never waits for steps it takes no
/// part in.
///
/// Logical data is a set of atoms (origin, dest, chunk):
///  - origin: the rank whose data it is (the root for a broadcast, the
///    contributor for gathers and reductions, the source a of block M[a][b]);
///  - dest: the rank the atom is personalized for (scatter, gather,
///    all-to-all); [0, P) for data every rank receives;
///  - chunk: the segment of the message, 0..NumChunks-1.
/// A Piece names a rectangle of atoms. For a Combine transfer, the origins of
/// a piece are the contributors already folded into the value that travels.
/// Which atoms a collective has, who holds them at the start and who must at
/// the end: ir/Collective.h.
///
/// Times (Start, End, Makespan) are annotations of the cost pass; they never
/// change what the schedule means. The verifier (passes/Verify) states the
/// invariants every emitted schedule satisfies.
#ifndef COLLC_IR_SCHEDULE_H
#define COLLC_IR_SCHEDULE_H

#include "ir/Collective.h"
#include "ir/Interval.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collc {

/// A rectangle of logical data atoms: Origins x Dests x Chunks.
struct Piece {
  Interval Origins;
  Interval Dests;
  Interval Chunks;
  bool operator==(const Piece &O) const = default;
  bool intersects(const Piece &O) const {
    return Origins.intersects(O.Origins) && Dests.intersects(O.Dests) &&
           Chunks.intersects(O.Chunks);
  }
  uint64_t atoms() const {
    return static_cast<uint64_t>(Origins.size()) * Dests.size() * Chunks.size();
  }
};

/// A transfer's pieces: one is kept in place (most transfers carry one
/// rectangle), so that a transfer of one piece takes no allocation of its
/// own.
using PieceList = llvm::SmallVector<Piece, 1>;

/// Sets \p L to the pieces \p Ps. Two or more take one allocation of
/// exactly their size (pushed one by one past the one kept in place, a
/// PieceList would allocate room for three): the ring reductions list
/// millions of transfers of two pieces.
void assignPieces(PieceList &L, llvm::ArrayRef<Piece> Ps);

enum class TransferKind : uint8_t {
  Copy,    ///< The receiver stores the pieces (replacing what it had of them).
  Combine, ///< The receiver folds the pieces into its partial result.
  Signal,  ///< No data: a barrier arrival, release or acknowledgement.
};

const char *transferKindName(TransferKind K);

struct Transfer {
  int32_t Src = 0; ///< Sending rank.
  int32_t Dst = 0; ///< Receiving rank.
  uint64_t Bytes = 0;
  TransferKind Kind = TransferKind::Copy;
  /// Reductions keep two values per rank and chunk: value 0, the partial
  /// result (it starts as the rank's own contribution), and value 1, the
  /// result kept apart (it starts empty; exscan needs it, since rank r's
  /// result 0..r-1 excludes its own contribution). From is the value the
  /// sender reads; Into the values the receiver updates, bit v = value v
  /// (a Combine into an empty value stores the pieces). The defaults are the
  /// plain one-value reduction every other collective uses.
  uint8_t From = 0;
  uint8_t Into = 1;
  /// Torus routing hint: bit i set = when the two ways round written
  /// dimension i are equally long (offset exactly half the extent), this
  /// message takes the decreasing way instead of the default increasing one
  /// (paper 004's P ->_d P' lets the sender choose the direction). Routes,
  /// the contention checker and the simulator honour it; elsewhere it is 0.
  uint8_t TieDown = 0;
  /// What travels: at least one piece for a copy or a combine (the verifier
  /// checks it), none for a signal. (The JSON form leaves out a piece equal
  /// to the whole message, Schedule::wholeMessage, and its reader restores
  /// it.) The one-byte fields above share a word, so that a transfer of one
  /// piece takes 104 bytes.
  PieceList Pieces;
  double Start = NAN; ///< Filled by the cost pass.
  double End = NAN;   ///< Filled by the cost pass: receive complete.
};

static_assert(sizeof(Transfer) <= 104, "a transfer of one piece: 104 bytes");

struct Step {
  std::vector<Transfer> Transfers;
};

/// A transfer by position: Steps[Step].Transfers[Index].
struct TransferRef {
  uint32_t Step = 0;
  uint32_t Index = 0;
};

/// A rank and the physical node it runs on.
struct Participant {
  int64_t Node = 0;
};

struct Schedule {
  Collective Coll = Collective::Bcast;
  std::string Algorithm;
  std::string MachineName;
  /// Message size as MPI counts it: the broadcast buffer, the reduced vector,
  /// or one block of a personalized collective.
  uint64_t Bytes = 0;
  int32_t Root = 0; ///< A rank; 0 for rootless collectives.
  /// Segments the message is split into (1 = unsegmented).
  int64_t NumChunks = 1;
  /// Receives from one peer a rank may have out at once (the posting rule,
  /// passes/Posting.h); 0: the rule's default, RecvWindow. A pipeline of
  /// many small segments takes more, so that its links carry several
  /// segments at a time, as MPI libraries' pipelines post every receive at
  /// once.
  int64_t RecvWindow = 0;
  /// How many of its busiest step's staging areas a rank may hold at once
  /// (the posting plan, passes/Posting.h); 0 or 1: the plan's own budget.
  /// A tree reduce of whole vectors that asks for 2 has two children's
  /// vectors arriving at once, as Open MPI's tree reduces receive into two
  /// buffers.
  int64_t StagingDepth = 0;
  /// Each rank runs its steps one after the other (the posting rule,
  /// passes/Posting.h): nothing of a step is posted before everything of
  /// the rank's latest earlier step has finished, as MPI libraries' loops of
  /// sendrecv do (Open MPI's neighbor exchange). False: receives are posted
  /// ahead and sends as soon as their data has arrived.
  bool Lockstep = false;
  /// A rank posts each send once the receives it carries were applied,
  /// without waiting for its earlier steps' sends to complete (the posting
  /// rule, passes/Posting.h), as SMPI's SMP_NTS ring allgather posts an
  /// isend per block as it arrives and waits for them all at the end. False:
  /// one step's sends at a time leave a rank.
  bool SendsAhead = false;
  /// Reduction operator and element type ("" when not a reduction).
  std::string Op, Datatype;
  bool Commutative = true;
  /// Index = rank.
  std::vector<Participant> Participants;
  std::vector<Step> Steps;
  double Makespan = NAN;

  int32_t size() const { return static_cast<int32_t>(Participants.size()); }
  /// The piece "all of the message, from the root, for everyone".
  Piece wholeMessage() const;
  /// Bytes of chunks [C.Lo, C.Hi) when the message is split into NumChunks
  /// near-equal segments, counted in units of one element (reductions: an
  /// element of Datatype, so that no chunk cuts an element; a byte
  /// otherwise): the first (Bytes / unit) % NumChunks segments are one unit
  /// longer. The MPI runtime splits a message the same way.
  uint64_t chunkBytes(Interval C) const;
  uint64_t numTransfers() const;
};

/// The largest receive window a schedule may ask for (Schedule::RecvWindow).
constexpr int64_t MaxRecvWindow = int64_t(1) << 16;
/// The largest staging depth a schedule may ask for (Schedule::StagingDepth).
constexpr int64_t MaxStagingDepth = 64;

/// Bytes of one element of a reduction's datatype (int32 and float: 4, int64
/// and double: 8); 1 for anything else (data that is not reduced is counted
/// in bytes).
uint64_t elementBytes(const std::string &Datatype);
/// Bytes every message size of collective \p C is a multiple of: an element
/// of a reduction's \p Datatype, \p Ranks of them for a reduce-scatter (its
/// message is the whole vector, a block per rank); 1 for data not reduced.
uint64_t messageUnit(Collective C, const std::string &Datatype, int32_t Ranks);

/// Assigns transfers to steps by dependency rounds: a transfer goes in the
/// step after both the latest step in which its sender received something
/// and the sender's previous send. Transfers must be given in an order in
/// which every sender's receives precede its sends (e.g. the order a tree
/// builder discovers them). Used by the tree builders.
std::vector<Step> stepsByRounds(std::vector<Transfer> Transfers, int32_t Ranks);

} // namespace collc

#endif
