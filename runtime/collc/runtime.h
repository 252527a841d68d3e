/// \file
/// The collc MPI runtime: a small, header-only executor of schedule tables.
///
/// `collc --emit mpi` writes C++ that includes this header and defines
/// functions with MPI's own signatures (collc_bcast_<name>, ...). Each such
/// function holds one or more *variants*: a schedule compiled for one
/// communicator size, one root and a band of message sizes, baked in as
/// tables. This header picks the variant, checks the arguments, and runs it.
///
/// The tables (their layout: collc/tables.h). For every rank, its operations
/// in schedule order, each a send or receive of segments of the user's
/// buffers, a scratch area, the reduction accumulator or the result kept
/// apart from it.
///
/// Execution on one rank (Executor): every operation is posted, non-blocking,
/// as soon as what it waits for has finished (its wait record, planned at
/// compile time by passes/Posting.h): receives ahead, as far as the memory
/// they write is free; sends as soon as the receives whose data they carry
/// were applied, without waiting for the rank's earlier sends. Per peer, a
/// rank posts its sends, and its receives, in schedule order, so MPI's
/// ordered matching pairs them right. Nothing else waits, so a rank never
/// waits for steps it takes no part in. Contiguous messages go straight to
/// and from the user's buffers and the scratch slots; others are packed in a
/// staging area. A Combine receive is staged and folded into the accumulator
/// with MPI_Reduce_local in schedule order, once it arrived and the sends
/// reading what it updates completed; SegRight marks
/// contributions of higher ranks (acc = acc op in), so non-commutative
/// operators see their operands in rank order (a commutative one folds them
/// in place, as in op acc). An exscan keeps its result
/// apart from the partial it forwards: a segment with SegAlso updates both
/// from one message. Messages above 1 GiB (or COLLC_MAX_PIECE bytes) are
/// split.
///
/// Messages travel on a duplicate of the user's communicator, made once and
/// cached on it with an attribute, so they never match the user's traffic.
/// Datatypes that are not one contiguous run are packed (MPI_Pack) into the
/// arena and unpacked after, except for reductions, which need contiguous
/// ones.
///
/// Whether a call is served, and by which variant, follows from arguments
/// that are significant and equal on every rank (see choose()), so every
/// rank decides alike. Errors come back as MPI error codes, raised through
/// the communicator's error handler (reportError()) as the MPI library's
/// own collectives do; lastError() says what was wrong.
#ifndef COLLC_RUNTIME_H
#define COLLC_RUNTIME_H

// The deprecated C++ bindings of some MPI headers do not compile warning-free.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include "settings.h"
#include "tables.h"

#include <algorithm>
#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <vector>

// ---- process-wide state ----------------------------------------------------
//
// Shared by every translation unit that includes this header as weak
// definitions of ordinary globals (not function-local statics, which GCC makes
// "unique" symbols that simulators such as SMPI cannot privatize per rank).

extern "C" {
/// The attribute keyval under which collc caches its state on communicators.
__attribute__((weak)) int collc_rt_keyval = MPI_KEYVAL_INVALID;
/// The message of the last failing call.
__attribute__((weak)) char collc_rt_last_error[512] = "";
/// COLLC_VERBOSE: -1 not read yet, 0 off, 1 on (settings.h).
__attribute__((weak)) int collc_rt_verbose = -1;
/// Progresses the calls of the process that are in flight apart from the
/// running one (non-blocking and persistent ones: the drop-in sets it while
/// it has any) and returns how many remain. A blocking run then polls
/// instead of waiting in MPI_Waitany, so that a rank blocked in one call
/// still moves the others (another rank's blocking call may wait for them).
__attribute__((weak)) int (*collc_rt_progress_others)(void) = nullptr;
}

namespace collc {
namespace rt {

// ---- errors -----------------------------------------------------------------

inline char *lastErrorBuffer() { return collc_rt_last_error; }

/// What the last failing collc call was told (empty when none failed).
inline const char *lastError() { return lastErrorBuffer(); }

/// Records the printf-style message as the last error and returns \p Code.
/// A C variadic function, so that compilers check every format string.
__attribute__((format(printf, 2, 3))) inline int fail(int Code, const char *Fmt,
                                                      ...) {
  std::va_list Args;
  va_start(Args, Fmt);
  std::vsnprintf(lastErrorBuffer(), sizeof collc_rt_last_error, Fmt, Args);
  va_end(Args);
  return Code;
}

// ---- the cached communicator ------------------------------------------------

/// The executor's bookkeeping, kept between calls so that a call allocates
/// nothing once the vectors have grown.
struct ExecState {
  /// Per operation: waits left before posting and applying, requests in
  /// flight, Posted/Arrived/Done bits, the next one with the same peer and
  /// direction.
  std::vector<int32_t> PostLeft, ApplyLeft, ReqsLeft, NextSame;
  std::vector<uint8_t> State;
  /// Who waits for operation i: Waiters[WaiterBegin[i] ..), each 2 x the
  /// waiter (+ 1 when it waits to apply).
  std::vector<int64_t> WaiterBegin, Fill;
  std::vector<int32_t> Waiters;
  std::vector<int32_t> Ready, Last;
  /// Requests in flight and their operations.
  std::vector<MPI_Request> Reqs;
  std::vector<int32_t> ReqOp;
  size_t Active = 0;
  int32_t Finished = 0;
};

/// What collc keeps per user communicator.
struct CommState {
  MPI_Comm Dup = MPI_COMM_NULL;
  std::vector<char> Arena;
  ExecState Exec;
};

inline int &keyval() { return collc_rt_keyval; }

inline int deleteState(MPI_Comm, int, void *Attr, void *) {
  CommState *St = static_cast<CommState *>(Attr);
  int Err = MPI_SUCCESS;
  if (St->Dup != MPI_COMM_NULL)
    Err = MPI_Comm_free(&St->Dup);
  delete St;
  return Err;
}

/// The state cached on \p Comm, or null when none was made yet (nothing is
/// made here: making it duplicates the communicator, a collective call).
inline CommState *knownCommState(MPI_Comm Comm) {
  void *Attr = nullptr;
  int Found = 0;
  if (keyval() == MPI_KEYVAL_INVALID ||
      MPI_Comm_get_attr(Comm, keyval(), &Attr, &Found) != MPI_SUCCESS || !Found)
    return nullptr;
  return static_cast<CommState *>(Attr);
}

/// The state cached on \p Comm, made on first use.
inline int commState(MPI_Comm Comm, CommState *&Out) {
  int Err;
  if (keyval() == MPI_KEYVAL_INVALID &&
      (Err = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleteState,
                                    &keyval(), nullptr)) != MPI_SUCCESS)
    return fail(Err, "collc: cannot create the attribute keyval");
  void *Attr = nullptr;
  int Found = 0;
  if ((Err = MPI_Comm_get_attr(Comm, keyval(), &Attr, &Found)) != MPI_SUCCESS)
    return fail(Err, "collc: cannot read the communicator's attribute");
  if (Found) {
    Out = static_cast<CommState *>(Attr);
    return MPI_SUCCESS;
  }
  CommState *St = new CommState;
  if ((Err = MPI_Comm_dup(Comm, &St->Dup)) != MPI_SUCCESS) {
    delete St;
    return fail(Err, "collc: cannot duplicate the communicator");
  }
  MPI_Comm_set_errhandler(St->Dup, MPI_ERRORS_RETURN);
  if ((Err = MPI_Comm_set_attr(Comm, keyval(), St)) != MPI_SUCCESS) {
    MPI_Comm_free(&St->Dup);
    delete St;
    return fail(Err, "collc: cannot cache the duplicated communicator");
  }
  Out = St;
  return MPI_SUCCESS;
}

// ---- the executor
// -------------------------------------------------------------

/// Where a call's data lives on this rank.
struct Buffers {
  const char *Send = nullptr;
  char *Recv = nullptr;
  char *Scratch = nullptr;
  char *Acc = nullptr;
  char *Result = nullptr;
  /// Bytes of one block, and the unit chunks are measured in.
  uint64_t BlockBytes = 0;
  uint64_t Unit = 1;
  /// Reductions.
  MPI_Datatype Type = MPI_BYTE;
  MPI_Op Op = MPI_OP_NULL;
  /// Op is commutative: a right operand folds in place like a left one.
  bool Commute = false;
};

/// Byte offset of chunk \p C in a block.
inline uint64_t chunkOffset(const Buffers &B, int64_t K, int64_t C) {
  uint64_t Units = B.BlockBytes / B.Unit, Base = Units / K, Extra = Units % K;
  uint64_t UC = static_cast<uint64_t>(C);
  return (UC * Base + std::min<uint64_t>(UC, Extra)) * B.Unit;
}

inline char *bufferBase(const Buffers &B, uint8_t Which) {
  switch (Which) {
  case SendBuf:
    return const_cast<char *>(B.Send);
  case RecvBuf:
    return B.Recv;
  case ScratchBuf:
    return B.Scratch;
  case ResultBuf:
    return B.Result;
  default:
    return B.Acc;
  }
}

/// Calls \p F(Buf, Offset, Bytes, Seg) for each contiguous run of segment
/// \p S, in message order.
template <typename Fn>
void forEachRun(const Buffers &B, int64_t K, const Seg &S, Fn &&F) {
  if (S.ChunkLo == 0 && S.ChunkHi == K) {
    F(S.Buf, S.Block * B.BlockBytes, S.NumBlocks * B.BlockBytes, S);
    return;
  }
  uint64_t Lo = chunkOffset(B, K, S.ChunkLo), Hi = chunkOffset(B, K, S.ChunkHi);
  for (int64_t Bl = S.Block; Bl < S.Block + S.NumBlocks; ++Bl)
    F(S.Buf, Bl * B.BlockBytes + Lo, Hi - Lo, S);
}

/// Bytes an operation moves, and whether they form one contiguous run of
/// one buffer (then \p Buf and \p Off say where).
inline uint64_t opBytes(const Buffers &B, const Variant &V, const Op &O,
                        bool &Contig, uint8_t &Buf, uint64_t &Off) {
  uint64_t N = 0;
  bool First = true;
  Contig = true;
  Buf = RecvBuf;
  Off = 0;
  for (int32_t I = 0; I < O.NumSegs; ++I)
    forEachRun(B, V.NumChunks, V.Segs[O.Seg + I],
               [&](uint8_t Bf, uint64_t At, uint64_t Len, const Seg &) {
                 if (First) {
                   Buf = Bf;
                   Off = At;
                   First = false;
                 } else if (Bf != Buf || At != Off + N) {
                   Contig = false;
                 }
                 N += Len;
               });
  return N;
}

/// The machine's largest piece (its `protocol: {max_piece}`), 0 for none:
/// the drop-in sets it from the machine it reads, before its first call.
inline uint64_t &machinePiece() {
  static uint64_t Piece = 0;
  return Piece;
}

/// Largest piece of a message given to one MPI call: the bytes
/// COLLC_MAX_PIECE gives (settings.h: maxPieceOf), else the machine's
/// (machinePiece), else 1 GiB. A message longer than that goes as several,
/// all posted at once. Under Open MPI over TCP two messages beyond the eager
/// limit that cross on one connection (an exchange) move at half the link's
/// rate, and pieces below the limit do not (docs/testbed.md, "Why collc
/// loses here"); collc-probe measures it and writes `max_piece`.
inline uint64_t maxPiece() {
  static const char *Given = std::getenv("COLLC_MAX_PIECE");
  static bool Valid = true;
  static const uint64_t Piece = maxPieceOf(Given, &Valid);
  return Given && Valid ? Piece : machinePiece() ? machinePiece() : Piece;
}

/// The tag of the messages of blocking calls (on the communicator's cached
/// duplicate, where nothing else travels).
constexpr int BlockingTag = 7171;

inline int postPieces(bool Recv, char *P, uint64_t N, int Peer, MPI_Comm C,
                      int Tag, std::vector<MPI_Request> &Reqs,
                      bool Blocking = false) {
  do {
    uint64_t Len = std::min(N, maxPiece());
    MPI_Request R = MPI_REQUEST_NULL;
    const int Count = static_cast<int>(Len);
    int Err = Blocking ? (Recv ? MPI_Recv(P, Count, MPI_BYTE, Peer, Tag, C,
                                          MPI_STATUS_IGNORE)
                               : MPI_Send(P, Count, MPI_BYTE, Peer, Tag, C))
              : Recv   ? MPI_Irecv(P, Count, MPI_BYTE, Peer, Tag, C, &R)
                       : MPI_Isend(P, Count, MPI_BYTE, Peer, Tag, C, &R);
    if (Err != MPI_SUCCESS)
      return fail(Err, "collc: posting a %s of %llu bytes %s rank %d failed",
                  Recv ? "receive" : "send", (unsigned long long)Len,
                  Recv ? "from" : "to", Peer);
    Reqs.push_back(R);
    P += Len;
    N -= Len;
  } while (N > 0);
  return MPI_SUCCESS;
}

/// Runs the part of \p V that rank \p Rank plays; \p Staging has room for
/// stagingBytes().
///
/// Every operation is posted as soon as what it waits for (its record in
/// Variant::Waits; passes/Posting.h plans them and argues why they cannot
/// deadlock) has finished, and after the rank's earlier operations of the
/// same direction with the same peer, so that MPI's ordered matching pairs
/// each send with its receive: receives are posted ahead, as far as their
/// memory is free; sends as soon as the data they carry is there. The rank
/// then waits for whichever request completes next (MPI_Waitany). A
/// completed send finishes; a received copy is unpacked if it was staged
/// and finishes; a reduction receive is applied (folded) in schedule order,
///
/// The executor is resumable: start() posts what can be posted at once,
/// test() handles whatever completed since, without blocking, and run()
/// (a blocking call) waits until the rank's part is done. Its state lives
/// in the ExecState it is given, one per call in flight, and its messages
/// carry the communicator and tag it is given, so that calls in flight
/// together on one communicator never match each other's messages.
class Executor {
public:
  Executor(const Variant &V, const Buffers &B, int Rank, ExecState &X,
           MPI_Comm Comm, int Tag, char *Staging)
      : V(V), B(B), Rank(Rank), X(X), Comm(Comm), Tag(Tag), Staging(Staging),
        Base(V.RankOps[Rank]),
        N(static_cast<int32_t>(V.RankOps[Rank + 1] - V.RankOps[Rank])) {}

  /// Runs the rank's part to its end.
  int run() {
    // A part of one operation (a broadcast's leaf, a gather's sender) waits
    // for nothing of this rank's: the MPI library's blocking call, which
    // costs less than a request and a wait. (Not while other calls are in
    // flight: the wait moves them on.)
    Alone = N == 1 && !collc_rt_progress_others;
    if (int Err = start())
      return Err;
    while (!finished()) {
      if (int Err = waitNext())
        return Err;
      if (int Err = pump())
        return Err;
    }
    return MPI_SUCCESS;
  }

  /// Posts every operation that waits for nothing.
  int start() {
    setup();
    return pump();
  }

  /// Handles every request that has completed, without blocking, and posts
  /// and applies what that allows.
  int test() {
    while (!finished()) {
      if (X.Active == 0)
        return fail(MPI_ERR_INTERN,
                    "collc: rank %d waits for operations nothing will finish",
                    Rank);
      int Index = MPI_UNDEFINED, Flag = 0;
      int Err = testAny(Index, Flag);
      if (Err != MPI_SUCCESS)
        return fail(Err, "collc: a transfer of the schedule failed");
      if (!Flag || Index == MPI_UNDEFINED)
        return MPI_SUCCESS;
      if ((Err = completed(Index)) != MPI_SUCCESS || (Err = pump()))
        return Err;
    }
    return MPI_SUCCESS;
  }

  /// Whether the rank's part is done.
  bool finished() const { return X.Finished == N; }

  /// Scratch blocks and staging chunk units rank \p Rank uses.
  static void needs(const Variant &V, int Rank, int64_t &ScratchBlocks,
                    int64_t &StageUnits) {
    ScratchBlocks = StageUnits = 0;
    for (int64_t I = V.RankOps[Rank]; I < V.RankOps[Rank + 1]; ++I) {
      const Op &O = V.Ops[I];
      int64_t Units = 0;
      for (int32_t J = 0; J < O.NumSegs; ++J) {
        const Seg &G = V.Segs[O.Seg + J];
        Units += static_cast<int64_t>(G.ChunkHi - G.ChunkLo) * G.NumBlocks;
        if (G.Buf == ScratchBuf)
          ScratchBlocks = std::max(ScratchBlocks, G.Block + G.NumBlocks);
      }
      const int32_t Stage = V.Waits[O.Wait];
      if (Stage >= 0)
        StageUnits = std::max(StageUnits, Stage + Units);
    }
  }

  /// Bytes of a chunk unit: the longest chunk of a block.
  static uint64_t unitBytes(const Variant &V, const Buffers &B) {
    return chunkOffset(B, V.NumChunks, 1);
  }

  /// Staging bytes rank \p Rank needs for one call.
  static uint64_t stagingBytes(const Variant &V, const Buffers &B, int Rank) {
    int64_t Scratch = 0, Units = 0;
    needs(V, Rank, Scratch, Units);
    return static_cast<uint64_t>(Units) * unitBytes(V, B);
  }

private:
  enum : uint8_t { Posted = 1, Arrived = 2, Done = 4 };

  const Op &op(int32_t I) const { return V.Ops[Base + I]; }
  const int32_t *record(int32_t I) const { return V.Waits + op(I).Wait; }

  /// Posts what is ready and applies what can be, until nothing changes.
  int pump() {
    bool Progress = true;
    while (Progress) {
      Progress = false;
      while (!X.Ready.empty()) {
        const int32_t I = X.Ready.back();
        X.Ready.pop_back();
        if (int Err = post(I))
          return Err;
        Progress = true;
      }
      while (NextApply < N) {
        const Op &O = op(NextApply);
        if (!(O.Flags & OpRecv) || !isReduction(V.Collective)) {
          ++NextApply;
          continue;
        }
        if (!(X.State[NextApply] & Arrived) || X.ApplyLeft[NextApply] > 0)
          break;
        if (int Err = unstage(NextApply))
          return Err;
        finish(NextApply++);
        Progress = true;
      }
    }
    if (finished()) {
      X.Reqs.clear();
      X.ReqOp.clear();
    }
    return MPI_SUCCESS;
  }

  /// Counts what each operation waits for and lists who waits for whom.
  void setup() {
    X.PostLeft.assign(static_cast<size_t>(N), 0);
    X.ApplyLeft.assign(static_cast<size_t>(N), 0);
    X.ReqsLeft.assign(static_cast<size_t>(N), 0);
    X.State.assign(static_cast<size_t>(N), 0);
    X.NextSame.assign(static_cast<size_t>(N), -1);
    X.WaiterBegin.assign(static_cast<size_t>(N) + 1, 0);
    X.Ready.clear();
    X.Reqs.clear();
    X.ReqOp.clear();
    X.Finished = 0;
    X.Active = 0;
    X.Last.assign(2 * static_cast<size_t>(V.Ranks), -1);
    for (int32_t I = 0; I < N; ++I) {
      const int32_t *R = record(I);
      X.PostLeft[I] = R[1];
      X.ApplyLeft[I] = R[2];
      for (int32_t J = 0; J < R[1] + R[2]; ++J)
        ++X.WaiterBegin[R[3 + J] + 1];
      const Op &O = op(I);
      int32_t &L = X.Last[2 * static_cast<size_t>(O.Peer) +
                          ((O.Flags & OpRecv) ? 1 : 0)];
      if (L >= 0) {
        X.NextSame[L] = I;
        ++X.PostLeft[I];
      }
      L = I;
    }
    for (int32_t I = 0; I < N; ++I)
      X.WaiterBegin[I + 1] += X.WaiterBegin[I];
    X.Waiters.resize(static_cast<size_t>(X.WaiterBegin[N]));
    X.Fill.assign(X.WaiterBegin.begin(), X.WaiterBegin.end() - 1);
    for (int32_t I = 0; I < N; ++I) {
      const int32_t *R = record(I);
      for (int32_t J = 0; J < R[1] + R[2]; ++J)
        X.Waiters[X.Fill[R[3 + J]]++] = 2 * I + (J >= R[1] ? 1 : 0);
    }
    for (int32_t I = N - 1; I >= 0; --I)
      if (X.PostLeft[I] == 0)
        X.Ready.push_back(I); // popped from the back: in schedule order
  }

  /// Operation \p I finished: release what waits for it.
  void finish(int32_t I) {
    X.State[I] |= Done;
    ++X.Finished;
    for (int64_t K = X.WaiterBegin[I]; K < X.WaiterBegin[I + 1]; ++K) {
      const int32_t W = X.Waiters[K] / 2;
      if (X.Waiters[K] & 1)
        --X.ApplyLeft[W];
      else if (--X.PostLeft[W] == 0)
        X.Ready.push_back(W);
    }
  }

  /// Where operation \p I's bytes are staged (null: not staged).
  char *stageOf(int32_t I) const {
    const int32_t Stage = record(I)[0];
    return Stage < 0 ? nullptr
                     : Staging + static_cast<uint64_t>(Stage) * unitBytes(V, B);
  }

  int post(int32_t I) {
    const Op &O = op(I);
    const bool Recv = O.Flags & OpRecv;
    bool Contig = true;
    uint8_t Buf = RecvBuf;
    uint64_t Off = 0, Bytes = 0;
    if (!(O.Flags & OpSignal))
      Bytes = opBytes(B, V, O, Contig, Buf, Off);
    char *Where = Staging; // signals: any valid address
    if (char *Stage = stageOf(I)) {
      Where = Stage;
      if (!Recv) { // pack
        char *To = Stage;
        for (int32_t K = 0; K < O.NumSegs; ++K)
          forEachRun(B, V.NumChunks, V.Segs[O.Seg + K],
                     [&](uint8_t Bf, uint64_t At, uint64_t Len, const Seg &) {
                       std::memcpy(To, bufferBase(B, Bf) + At, Len);
                       To += Len;
                     });
      }
    } else if (!(O.Flags & OpSignal)) {
      if (!Contig)
        return fail(MPI_ERR_INTERN,
                    "collc: operation %d of rank %d is neither contiguous nor "
                    "staged",
                    I, Rank);
      Where = bufferBase(B, Buf) + Off;
    }
    const size_t First = X.Reqs.size();
    if (int Err =
            postPieces(Recv, Where, Bytes, O.Peer, Comm, Tag, X.Reqs, Alone))
      return Err;
    X.ReqOp.resize(X.Reqs.size(), I);
    X.ReqsLeft[I] = static_cast<int32_t>(X.Reqs.size() - First);
    X.Active += X.ReqsLeft[I];
    X.State[I] |= Posted;
    if (Alone) { // its pieces are done already
      X.Active -= X.ReqsLeft[I];
      X.ReqsLeft[I] = 0;
      X.Reqs.resize(First);
      X.ReqOp.resize(First);
      return arrived(I);
    }
    if (X.NextSame[I] >= 0 && --X.PostLeft[X.NextSame[I]] == 0)
      X.Ready.push_back(X.NextSame[I]);
    return MPI_SUCCESS;
  }

  /// Waits for the next request to complete and handles it. (MPI_Waitany,
  /// not MPI_Waitsome: SMPI's waitsome tests the requests still pending
  /// after the first completes, and every failed test costs simulated
  /// time.) While other calls are in flight (collc_rt_progress_others), it
  /// polls instead, moving them too.
  int waitNext() {
    if (X.Active == 0)
      return fail(MPI_ERR_INTERN,
                  "collc: rank %d waits for operations nothing will finish",
                  Rank);
    int Index = MPI_UNDEFINED, Err = MPI_SUCCESS;
    for (int Flag = 0; !Flag;) {
      if (!collc_rt_progress_others || collc_rt_progress_others() == 0) {
        Err = MPI_Waitany(static_cast<int>(X.Reqs.size()), X.Reqs.data(),
                          &Index, MPI_STATUS_IGNORE);
        break;
      }
      if ((Err = testAny(Index, Flag)) != MPI_SUCCESS)
        break;
    }
    if (Err != MPI_SUCCESS || Index == MPI_UNDEFINED)
      return fail(Err != MPI_SUCCESS ? Err : MPI_ERR_INTERN,
                  "collc: a transfer of the schedule failed");
    return completed(Index);
  }

  /// MPI_Testany on the requests in flight.
  int testAny(int &Index, int &Flag) {
    return MPI_Testany(static_cast<int>(X.Reqs.size()), X.Reqs.data(), &Index,
                       &Flag, MPI_STATUS_IGNORE);
  }

  /// Request \p Index of X.Reqs completed: its operation arrived, or
  /// finished.
  int completed(int Index) {
    int Err = MPI_SUCCESS;
    --X.Active;
    const int32_t I = X.ReqOp[static_cast<size_t>(Index)];
    if (--X.ReqsLeft[I] == 0 && (Err = arrived(I)) != MPI_SUCCESS)
      return Err;
    // Completed requests are MPI_REQUEST_NULL: drop them once they are
    // most of the list.
    if (2 * X.Active < X.Reqs.size()) {
      size_t To = 0;
      for (size_t K = 0; K < X.Reqs.size(); ++K)
        if (X.Reqs[K] != MPI_REQUEST_NULL) {
          X.Reqs[To] = X.Reqs[K];
          X.ReqOp[To++] = X.ReqOp[K];
        }
      X.Reqs.resize(To);
      X.ReqOp.resize(To);
    }
    return MPI_SUCCESS;
  }

  /// Every piece of operation \p I has arrived (or been sent): a send or a
  /// copy finishes (a staged copy unpacked first); a reduction's receive
  /// waits for pump() to apply it in schedule order.
  int arrived(int32_t I) {
    X.State[I] |= Arrived;
    if ((op(I).Flags & OpRecv) && isReduction(V.Collective))
      return MPI_SUCCESS;
    if (op(I).Flags & OpRecv)
      if (int Err = unstage(I))
        return Err;
    finish(I);
    return MPI_SUCCESS;
  }

  /// Applies received operation \p I from its staging area (nothing to do
  /// when it was received in place).
  int unstage(int32_t I) {
    char *In = stageOf(I);
    if (!In)
      return MPI_SUCCESS;
    const Op &O = op(I);
    for (int32_t K = 0; K < O.NumSegs; ++K) {
      int Err = MPI_SUCCESS;
      forEachRun(B, V.NumChunks, V.Segs[O.Seg + K],
                 [&](uint8_t Bf, uint64_t At, uint64_t Len, const Seg &S) {
                   if (Err == MPI_SUCCESS)
                     Err = apply(O, S, In, Bf, At, Len);
                   In += Len;
                 });
      if (Err != MPI_SUCCESS)
        return Err;
    }
    return MPI_SUCCESS;
  }

  /// Applies received bytes \p In to segment \p S at offset \p At of
  /// buffer \p Bf (and, with SegAlso, of the result).
  int apply(const Op &O, const Seg &S, char *In, uint8_t Bf, uint64_t At,
            uint64_t Len) {
    char *Dst = bufferBase(B, Bf) + At;
    bool Combine = O.Flags & OpCombine;
    if (!(S.Mode & SegAlso))
      return update(Combine && !(S.Mode & SegStore), S.Mode & SegRight, In, Dst,
                    Len);
    // Both values from one message. A right combine overwrites the incoming
    // bytes (see update), so it goes last; the emitter never makes both
    // right combines.
    char *Res = bufferBase(B, ResultBuf) + At;
    bool ResCombine = Combine && !(S.Mode & SegAlsoStore);
    bool ResRight = ResCombine && (S.Mode & SegAlsoRight);
    int Err;
    if (ResRight) {
      if ((Err = update(Combine && !(S.Mode & SegStore), S.Mode & SegRight, In,
                        Dst, Len)) != MPI_SUCCESS)
        return Err;
      return update(true, true, In, Res, Len);
    }
    if ((Err = update(ResCombine, false, In, Res, Len)) != MPI_SUCCESS)
      return Err;
    return update(Combine && !(S.Mode & SegStore), S.Mode & SegRight, In, Dst,
                  Len);
  }

  /// Dst = In (a copy), In op Dst, or with \p Right Dst op In (which leaves
  /// In overwritten, unless the operator commutes: then Dst op In is In op
  /// Dst, folded in place without the copy back).
  int update(bool Combine, bool Right, char *In, char *Dst, uint64_t Len) {
    if (!Combine) {
      std::memcpy(Dst, In, Len);
      return MPI_SUCCESS;
    }
    int Err = MPI_SUCCESS;
    for (uint64_t Done = 0; Done < Len && Err == MPI_SUCCESS;) {
      uint64_t Elems = std::min<uint64_t>((Len - Done) / B.Unit, INT_MAX);
      if (Right && !B.Commute) { // acc = acc op in
        Err = MPI_Reduce_local(Dst + Done, In + Done, static_cast<int>(Elems),
                               B.Type, B.Op);
        std::memcpy(Dst + Done, In + Done, Elems * B.Unit);
      } else { // acc = in op acc
        Err = MPI_Reduce_local(In + Done, Dst + Done, static_cast<int>(Elems),
                               B.Type, B.Op);
      }
      Done += Elems * B.Unit;
    }
    if (Err != MPI_SUCCESS)
      return fail(Err, "collc: MPI_Reduce_local failed");
    return MPI_SUCCESS;
  }

  const Variant &V;
  const Buffers &B;
  int Rank;
  ExecState &X;
  MPI_Comm Comm;
  int Tag;
  char *Staging;
  const int64_t Base; ///< The rank's first operation.
  const int32_t N;    ///< Its operations.
  int32_t NextApply = 0;
  /// The rank's one operation runs as blocking calls (run()).
  bool Alone = false;
};

// ---- argument checks and entry points
// ----------------------------------------

/// What an entry point was called with: MPI's arguments, unchanged. A
/// broadcast passes its buffer, count and datatype as both sides; a
/// reduction its count and datatype as both sides.
struct Call {
  int Collective;
  const void *Send; ///< May be MPI_IN_PLACE.
  /// The counts: int in MPI-3's calls, MPI_Count in MPI-4's large-count
  /// forms (MPI_Bcast_c); the runtime measures in bytes either way.
  MPI_Count SendCount;
  MPI_Datatype SendType;
  void *Recv; ///< May be MPI_IN_PLACE (scatter root).
  MPI_Count RecvCount;
  MPI_Datatype RecvType;
  MPI_Op Op; ///< MPI_OP_NULL unless a reduction.
  int Root;  ///< Rooted collectives only.
  MPI_Comm Comm;
};

/// Sentinel: no variant fits; the caller falls back or reports the code.
constexpr int NoVariant = -1;

/// Size of \p T in bytes (MPI_Type_size_x: beyond INT_MAX too), its extent,
/// and whether it lays its elements out as one contiguous run (lower bound
/// 0, extent = true extent = size).
inline int typeLayout(MPI_Datatype T, uint64_t &Size, int64_t &Extent,
                      bool &Contig) {
  MPI_Count S = 0;
  MPI_Aint Lb = 0, Ext = 0, TLb = 0, TExt = 0;
  if (T == MPI_DATATYPE_NULL || MPI_Type_size_x(T, &S) != MPI_SUCCESS ||
      S < 0 || MPI_Type_get_extent(T, &Lb, &Ext) != MPI_SUCCESS ||
      MPI_Type_get_true_extent(T, &TLb, &TExt) != MPI_SUCCESS)
    return fail(MPI_ERR_TYPE, "collc: an invalid datatype");
  Size = static_cast<uint64_t>(S);
  Extent = static_cast<int64_t>(Ext);
  Contig = Lb == 0 && TLb == 0 && static_cast<MPI_Count>(Ext) == S &&
           static_cast<MPI_Count>(TExt) == S;
  return MPI_SUCCESS;
}

/// A datatype and what typeLayout() says of it, kept so that a call that
/// measured it does not ask MPI again (prepare()).
struct TypeInfo {
  MPI_Datatype Type = MPI_DATATYPE_NULL;
  uint64_t Size = 0;
  int64_t Extent = 0;
  bool Contig = true;
};

/// Bytes of \p Count elements of \p T (a block, as the variants count it);
/// \p Info (when given) gets T's layout.
inline int measure(int Coll, MPI_Count Count, MPI_Datatype T, uint64_t &Bytes,
                   uint64_t &Size, bool &Contig, TypeInfo *Info = nullptr) {
  if (Count < 0)
    return fail(MPI_ERR_COUNT, "collc: %s with a negative count (%lld)",
                collName(Coll), (long long)Count);
  int64_t Extent = 0;
  if (int Err = typeLayout(T, Size, Extent, Contig))
    return Err;
  if (Info)
    *Info = TypeInfo{T, Size, Extent, Contig};
  if (__builtin_mul_overflow(static_cast<uint64_t>(Count), Size, &Bytes))
    return fail(MPI_ERR_COUNT,
                "collc: %s of %lld elements of %llu bytes: the size overflows "
                "64 bits",
                collName(Coll), (long long)Count, (unsigned long long)Size);
  return MPI_SUCCESS;
}

/// Picks the variant for a call of \p Bytes per block: communicator size,
/// root, size band, and, for a non-commutative operator, a schedule that
/// folds in rank order (a commutative one prefers the variant built for
/// commutativity). Returns its index, or NoVariant with lastError() and
/// \p Code set. Every argument is the same on every rank, and so is the
/// choice.
inline int pickVariant(const Variant *Vs, int N, int Coll, int Size, int Root,
                       uint64_t Bytes, bool Commute, int &Code) {
  bool SizeOk = false, RootOk = false;
  int Found = NoVariant, Refused = NoVariant;
  for (int I = 0; I < N; ++I) {
    if (Vs[I].Ranks != Size)
      continue;
    SizeOk = true;
    if (isRooted(Coll) && Vs[I].Root != Root)
      continue;
    RootOk = true;
    if (Bytes < Vs[I].MinBytes || Bytes > Vs[I].MaxBytes)
      continue;
    if (Vs[I].NeedsCommutative && !Commute) {
      Refused = I;
      continue;
    }
    if (Vs[I].NeedsCommutative || !Commute)
      return I;
    if (Found == NoVariant)
      Found = I;
  }
  if (Found != NoVariant)
    return Found;
  if (!SizeOk) {
    Code = fail(MPI_ERR_COMM,
                "collc: no %s schedule for a communicator of %d ranks",
                collName(Coll), Size);
  } else if (!RootOk) {
    Code = fail(MPI_ERR_ROOT, "collc: no %s schedule for %d ranks with root %d",
                collName(Coll), Size, Root);
  } else if (Refused != NoVariant) {
    Code = fail(MPI_ERR_OP,
                "collc: the %s schedule '%s' for %d ranks and %llu bytes "
                "needs a commutative operator, and no schedule that folds in "
                "rank order fits",
                collName(Coll), Vs[Refused].Algorithm, Size,
                (unsigned long long)Bytes);
  } else {
    Code =
        fail(MPI_ERR_COUNT, "collc: no %s schedule for %d ranks and %llu bytes",
             collName(Coll), Size, (unsigned long long)Bytes);
  }
  return NoVariant;
}

/// One side (send or receive) of a personalized collective or broadcast on
/// this rank: the user's buffer in the user's datatype, and where the
/// schedule finds it as contiguous bytes (the buffer itself, or a packed
/// copy in the arena).
struct Side {
  bool Used = false;            ///< Significant on this rank.
  bool In = false, Out = false; ///< Read by / written by the schedule.
  int64_t Blocks = 0;
  MPI_Count Count = 0;
  MPI_Datatype Type = MPI_BYTE;
  char *User = nullptr;
  uint64_t Size = 0; ///< Bytes per element.
  int64_t Extent = 0;
  bool Contig = true;
  char *Bytes = nullptr; ///< What the schedule reads and writes.

  void use(const void *Buf, MPI_Count Cnt, MPI_Datatype T, int64_t NumBlocks,
           bool Input, bool Output) {
    Used = true;
    User = static_cast<char *>(const_cast<void *>(Buf));
    Count = Cnt;
    Type = T;
    Blocks = NumBlocks;
    In = Input;
    Out = Output;
  }
};

/// The sides \p C uses on rank \p Rank of \p P (none for reductions, which
/// run on contiguous datatypes, and barriers).
inline void sidesOf(const Call &C, int Rank, int P, Side &S, Side &R) {
  const bool Root = Rank == C.Root, SendInPlace = C.Send == MPI_IN_PLACE,
             RecvInPlace = C.Recv == MPI_IN_PLACE;
  switch (C.Collective) {
  case Bcast:
  case Multicast:
    R.use(C.Recv, C.RecvCount, C.RecvType, 1, Root, !Root);
    break;
  case Gather:
    if (!(Root && SendInPlace))
      S.use(C.Send, C.SendCount, C.SendType, 1, true, false);
    if (Root)
      R.use(C.Recv, C.RecvCount, C.RecvType, P, SendInPlace, true);
    break;
  case Scatter:
    if (Root)
      S.use(C.Send, C.SendCount, C.SendType, P, true, false);
    if (!(Root && RecvInPlace))
      R.use(C.Recv, C.RecvCount, C.RecvType, 1, false, true);
    break;
  case Allgather:
  case Alltoall:
    if (!SendInPlace)
      S.use(C.Send, C.SendCount, C.SendType, C.Collective == Alltoall ? P : 1,
            true, false);
    R.use(C.Recv, C.RecvCount, C.RecvType, P, SendInPlace, true);
    break;
  default:
    break;
  }
}

/// Copies \p Elems elements of \p Sd's datatype from the user's buffer to
/// its packed bytes (\p Pack) or back. Pieces stay within MPI_Pack's int
/// sizes.
inline int packSide(const Side &Sd, bool Pack, MPI_Comm Comm) {
  if (Sd.Size == 0) // no bytes, whatever the count
    return MPI_SUCCESS;
  const int64_t Elems = Sd.Blocks * Sd.Count;
  if (Elems == 0)
    return MPI_SUCCESS;
  if (Sd.Size > static_cast<uint64_t>(INT_MAX))
    return fail(MPI_ERR_COUNT,
                "collc: an element of %llu bytes of a non-contiguous datatype "
                "exceeds what MPI_Pack can copy",
                (unsigned long long)Sd.Size);
  const int64_t Piece =
      std::max<int64_t>(1, INT_MAX / static_cast<int64_t>(Sd.Size));
  for (int64_t Done = 0; Done < Elems;) {
    const int Num = static_cast<int>(std::min(Piece, Elems - Done));
    const int Len = static_cast<int>(Num * Sd.Size);
    char *User = Sd.User + Done * Sd.Extent;
    char *Packed = Sd.Bytes + Done * static_cast<int64_t>(Sd.Size);
    int Pos = 0;
    int Err = Pack ? MPI_Pack(User, Num, Sd.Type, Packed, Len, &Pos, Comm)
                   : MPI_Unpack(Packed, Len, &Pos, User, Num, Sd.Type, Comm);
    if (Err != MPI_SUCCESS)
      return fail(Err, "collc: %s a non-contiguous datatype failed",
                  Pack ? "packing" : "unpacking");
    if (Pos != Len)
      return fail(MPI_ERR_INTERN,
                  "collc: the MPI library packs %d bytes of data in %d bytes",
                  Len, Pos);
    Done += Num;
  }
  return MPI_SUCCESS;
}

/// Lays out a run of variant \p V for call \p C of \p Blk bytes per block
/// (in elements of \p Unit bytes for reductions) on rank \p Rank (\p Known:
/// a datatype of the call already measured, or null): the
/// buffers \p B, the sides \p Sides (packed when their datatype is not
/// contiguous) and the staging area \p StageArea, in \p Arena (grown as
/// needed); the accumulator and the blocks the rank keeps of its own are
/// filled in. Then the Executor runs, and finishRun() ends it.
inline int prepare(const Variant &V, const Call &C, uint64_t Blk, uint64_t Unit,
                   int Rank, std::vector<char> &Arena, Buffers &B,
                   Side (&Sides)[2], char *&StageArea,
                   const TypeInfo *Known = nullptr) {
  int Err = MPI_SUCCESS;
  B = Buffers();
  Sides[0] = Side();
  Sides[1] = Side();
  B.BlockBytes = Blk;
  B.Unit = Unit ? Unit : 1;
  B.Type = C.SendType;
  B.Op = C.Op;
  int Commutes = 0;
  B.Commute = isReduction(C.Collective) && C.Op != MPI_OP_NULL &&
              MPI_Op_commutative(C.Op, &Commutes) == MPI_SUCCESS && Commutes;
  B.Send = static_cast<const char *>(C.Send);
  B.Recv = static_cast<char *>(C.Recv);
  const uint64_t P = static_cast<uint64_t>(V.Ranks);
  bool SendInPlace = C.Send == MPI_IN_PLACE,
       RecvInPlace = C.Recv == MPI_IN_PLACE;

  // Non-contiguous datatypes travel packed: each side whose datatype is not
  // one contiguous run gets a contiguous copy in the arena.
  sidesOf(C, Rank, V.Ranks, Sides[0], Sides[1]);
  uint64_t PackBytes[2] = {0, 0};
  for (int I = 0; I < 2; ++I) {
    Side &Sd = Sides[I];
    if (!Sd.Used)
      continue;
    if (Known && Known->Type == Sd.Type) {
      Sd.Size = Known->Size;
      Sd.Extent = Known->Extent;
      Sd.Contig = Known->Contig;
    } else if ((Err = typeLayout(Sd.Type, Sd.Size, Sd.Extent, Sd.Contig)) !=
               MPI_SUCCESS) {
      return Err;
    }
    uint64_t SideBytes = 0;
    if (Sd.Count < 0 ||
        __builtin_mul_overflow(static_cast<uint64_t>(Sd.Count), Sd.Size,
                               &SideBytes) ||
        SideBytes != Blk)
      return fail(MPI_ERR_TRUNCATE,
                  "collc: %s: the %s side has %lld elements of %llu bytes per "
                  "block, the call %llu bytes",
                  collName(C.Collective), I ? "receive" : "send",
                  (long long)Sd.Count, (unsigned long long)Sd.Size,
                  (unsigned long long)Blk);
    if (!Sd.Contig)
      PackBytes[I] = static_cast<uint64_t>(Sd.Blocks) * Blk;
  }

  // Arena: [scratch slots][accumulator][all-to-all in-place copy]
  // [packed send][packed receive][staging], the slots and staging this
  // rank's operations use (assigned by lifetime: passes/Posting.h).
  int64_t ScratchSlots = 0, StageUnits = 0;
  Executor::needs(V, Rank, ScratchSlots, StageUnits);
  uint64_t ScratchBytes = static_cast<uint64_t>(ScratchSlots) * Blk;
  // The accumulator lives in the arena on the non-root ranks of a reduce
  // and for exscan, whose receive buffer holds the result kept apart.
  // A reduce-scatter's too: the whole vector, of which the receive buffer
  // takes the rank's block at the end (finishRun()).
  bool OwnAcc = (C.Collective == Reduce && Rank != C.Root) ||
                C.Collective == Exscan || C.Collective == Reduce_scatter_block;
  uint64_t AccBytes = OwnAcc ? Blk : 0;
  uint64_t CopyBytes = C.Collective == Alltoall && SendInPlace ? P * Blk : 0;
  uint64_t Stage =
      static_cast<uint64_t>(StageUnits) * Executor::unitBytes(V, B);
  uint64_t Need = ScratchBytes + AccBytes + CopyBytes + PackBytes[0] +
                  PackBytes[1] + Stage + 1;
  if (Arena.size() < Need) {
#if defined(__cpp_exceptions)
    try {
      Arena.resize(Need);
    } catch (const std::bad_alloc &) {
      return fail(MPI_ERR_NO_MEM,
                  "collc: %s needs %llu bytes of scratch on rank %d, more "
                  "than can be allocated",
                  collName(C.Collective), (unsigned long long)Need, Rank);
    }
#else
    Arena.resize(Need);
#endif
  }
  char *A = Arena.data();
  B.Scratch = A;
  char *AccArea = A + ScratchBytes;
  char *CopyArea = AccArea + AccBytes;
  char *PackArea[2] = {CopyArea + CopyBytes,
                       CopyArea + CopyBytes + PackBytes[0]};
  StageArea = PackArea[1] + PackBytes[1];
  for (int I = 0; I < 2; ++I) {
    Side &Sd = Sides[I];
    if (!Sd.Used)
      continue;
    Sd.Bytes = Sd.Contig ? Sd.User : PackArea[I];
    if (!Sd.Contig && Sd.In &&
        (Err = packSide(Sd, true, C.Comm)) != MPI_SUCCESS)
      return Err;
  }
  if (Sides[0].Used)
    B.Send = Sides[0].Bytes;
  if (Sides[1].Used) {
    B.Recv = Sides[1].Bytes;
    if (C.Collective == Bcast || C.Collective == Multicast)
      B.Send = B.Recv;
  }

  switch (C.Collective) {
  case Reduce:
  case Allreduce:
  case Scan:
  case Exscan:
  case Reduce_scatter_block:
    // The accumulator: the receive buffer where the result goes, a scratch
    // vector on the non-root ranks of a reduce and for exscan (its result,
    // MPI_Exscan's receive buffer, is kept apart; rank 0's stays untouched).
    B.Acc = OwnAcc ? AccArea : B.Recv;
    B.Result = C.Collective == Exscan ? B.Recv : nullptr;
    if (SendInPlace &&
        (C.Collective == Exscan || C.Collective == Reduce_scatter_block))
      std::memcpy(B.Acc, B.Recv, Blk); // the input is in the receive buffer
    else if (!SendInPlace && B.Acc != B.Send)
      std::memcpy(B.Acc, B.Send, Blk);
    break;
  case Allgather:
    if (!SendInPlace)
      std::memcpy(B.Recv + Rank * Blk, B.Send, Blk);
    break;
  case Gather:
    if (Rank == C.Root && !SendInPlace)
      std::memcpy(B.Recv + Rank * Blk, B.Send, Blk);
    break;
  case Scatter:
    if (Rank == C.Root && !RecvInPlace)
      std::memcpy(B.Recv, B.Send + Rank * Blk, Blk);
    break;
  case Alltoall:
    if (SendInPlace) {
      std::memcpy(CopyArea, B.Recv, P * Blk);
      B.Send = CopyArea;
    }
    std::memcpy(B.Recv + Rank * Blk, B.Send + Rank * Blk, Blk);
    break;
  default:
    break;
  }
  return MPI_SUCCESS;
}

/// Finishes a run of variant \p V for call \p C on rank \p Rank: a
/// reduce-scatter's block, reduced in the accumulator, goes to the receive
/// buffer (chunk Rank of the P the schedule splits the vector in); what the
/// run wrote to the packed copies of \p Sides is unpacked.
inline int finishRun(const Variant &V, const Call &C, const Buffers &B,
                     int Rank, const Side (&Sides)[2]) {
  if (C.Collective == Reduce_scatter_block && B.BlockBytes > 0) {
    const uint64_t At = chunkOffset(B, V.NumChunks, Rank),
                   End = chunkOffset(B, V.NumChunks, Rank + 1);
    std::memmove(B.Recv, B.Acc + At, End - At);
  }
  for (const Side &Sd : Sides)
    if (Sd.Used && !Sd.Contig && Sd.Out)
      if (int Err = packSide(Sd, false, C.Comm))
        return Err;
  return MPI_SUCCESS;
}

/// Runs variant \p V for call \p C of \p Blk bytes per block (in elements
/// of \p Unit bytes for reductions) on rank \p Rank, to its end, with the
/// state \p St cached on the call's communicator (commState()); \p Known
/// as prepare() takes it.
inline int executeOn(CommState &St, const Variant &V, const Call &C,
                     uint64_t Blk, uint64_t Unit, int Rank,
                     const TypeInfo *Known = nullptr) {
  int Err = MPI_SUCCESS;
  Buffers B;
  Side Sides[2];
  char *StageArea = nullptr;
  if ((Err = prepare(V, C, Blk, Unit, Rank, St.Arena, B, Sides, StageArea,
                     Known)))
    return Err;
  Executor E(V, B, Rank, St.Exec, St.Dup, BlockingTag, StageArea);
  if ((Err = E.run()) != MPI_SUCCESS)
    return Err;
  return finishRun(V, C, B, Rank, Sides);
}

/// executeOn() with the state cached on the call's communicator, made on
/// first use.
inline int execute(const Variant &V, const Call &C, uint64_t Blk, uint64_t Unit,
                   int Rank) {
  CommState *St = nullptr;
  if (int Err = commState(C.Comm, St))
    return Err;
  return executeOn(*St, V, C, Blk, Unit, Rank);
}

/// A call that runs while the program goes on: a non-blocking collective,
/// or one start of a persistent one. It owns all that its run needs (the
/// buffers' layout, its arena, the executor's state), so that several may be
/// in flight on one communicator; its messages travel on the communicator
/// and tag its start() is given, which no other call in flight shares.
/// Started, it moves only when test() is called (the drop-in calls it from
/// the program's MPI calls that test or complete requests).
class Pending {
public:
  /// Variant \p V (it must outlive this) for call \p C, measured as
  /// execute() takes it.
  Pending(const Variant &V, const Call &C, uint64_t Blk, uint64_t Unit,
          int Rank)
      : V(V), C(C), Blk(Blk), Unit(Unit), Rank(Rank) {}
  Pending(const Pending &) = delete;
  Pending &operator=(const Pending &) = delete;

  /// Lays the run out and posts what can be posted; the messages go on
  /// \p Comm with tag \p Tag.
  int start(MPI_Comm Comm, int Tag) {
    Done = false;
    Exec.reset();
    char *StageArea = nullptr;
    if (int Err = prepare(V, C, Blk, Unit, Rank, Arena, B, Sides, StageArea))
      return Err;
    Exec.emplace(V, B, Rank, X, Comm, Tag, StageArea);
    if (int Err = Exec->start())
      return Err;
    return step();
  }

  /// Moves the run on without blocking; \p Finished says whether it is
  /// over (its results are then in the user's buffers).
  int test(bool &Finished) {
    int Err = Done ? MPI_SUCCESS : step();
    Finished = Done;
    return Err;
  }

  const Call &call() const { return C; }

private:
  int step() {
    int Err = Exec->test();
    if (Err == MPI_SUCCESS && Exec->finished()) {
      Err = finishRun(V, C, B, Rank, Sides);
      Done = true;
    }
    return Err;
  }

  const Variant &V;
  const Call C;
  const uint64_t Blk, Unit;
  const int Rank;
  Buffers B;
  Side Sides[2];
  std::vector<char> Arena;
  ExecState X;
  /// Remade at each start: it holds references to B and X.
  std::optional<Executor> Exec;
  bool Done = false;
};

/// Whether COLLC_VERBOSE asks to be told (verbosityOf(); `0` and `off` do
/// not): then rank 0 says on stderr which schedule serves each call, or why
/// none does.
inline bool verbose() {
  if (collc_rt_verbose < 0)
    collc_rt_verbose = verbosityOf(std::getenv("COLLC_VERBOSE")) > 0;
  return collc_rt_verbose == 1;
}

/// What a variant is chosen by (see choose()).
struct Shape {
  uint64_t Bytes = 0; ///< Per block.
  uint64_t Unit = 1;  ///< Chunks count bytes, or elements for reductions.
  int Rank = 0, Size = 0;
  bool Commute = true; ///< The operator's commutativity.
  /// The datatype the bytes were measured in, and its layout.
  TypeInfo Measured;
};

/// Whether \p T is one of MPI's predefined pair types, the value-index
/// pairs of MPI_MINLOC and MPI_MAXLOC.
inline bool isPairType(MPI_Datatype T) {
  return T == MPI_DOUBLE_INT || T == MPI_FLOAT_INT || T == MPI_LONG_INT ||
         T == MPI_SHORT_INT || T == MPI_LONG_DOUBLE_INT || T == MPI_2INT;
}

/// Measures \p C from arguments that are significant and equal on every rank
/// (so every rank decides alike): the communicator (an intracommunicator),
/// its size, the root, the bytes per block (MPI's matching type signatures
/// give every rank the same), the operator's commutativity and, for
/// reductions, the datatype. Returns false, with \p Code and lastError()
/// saying why, for a call no schedule can serve.
inline bool shapeOf(const Call &C, Shape &Sh, int &Code) {
  const char *Name = collName(C.Collective);
  int Inter = 0;
  int &Rank = Sh.Rank, &Size = Sh.Size;
  uint64_t &Bytes = Sh.Bytes, &Unit = Sh.Unit;
  if (C.Comm == MPI_COMM_NULL) {
    Code = fail(MPI_ERR_COMM, "collc: %s on MPI_COMM_NULL", Name);
    return false;
  }
  if ((Code = MPI_Comm_test_inter(C.Comm, &Inter)) != MPI_SUCCESS) {
    fail(Code, "collc: %s on an invalid communicator", Name);
    return false;
  }
  MPI_Comm_rank(C.Comm, &Rank); // the rank in the local group
  if (Inter) {
    Code = fail(MPI_ERR_COMM,
                "collc: %s on an intercommunicator (collc schedules run on "
                "intracommunicators)",
                Name);
    return false;
  }
  MPI_Comm_size(C.Comm, &Size);
  if (isRooted(C.Collective) && (C.Root < 0 || C.Root >= Size)) {
    Code = fail(MPI_ERR_ROOT,
                "collc: %s with root %d, not a rank of the communicator of %d "
                "ranks",
                Name, C.Root, Size);
    return false;
  }
  // The arguments that measure a block on this rank: those significant here.
  const bool Root = isRooted(C.Collective) && Rank == C.Root;
  bool BySend = C.Collective != Allgather && C.Collective != Alltoall &&
                C.Collective != Barrier;
  if (C.Collective == Gather)
    BySend = !Root;
  else if (C.Collective == Scatter)
    BySend = Root;
  bool Contig = true;
  Bytes = 0;
  Unit = 1;
  if (C.Collective != Barrier &&
      (Code = BySend ? measure(C.Collective, C.SendCount, C.SendType, Bytes,
                               Unit, Contig, &Sh.Measured)
                     : measure(C.Collective, C.RecvCount, C.RecvType, Bytes,
                               Unit, Contig, &Sh.Measured)) != MPI_SUCCESS)
    return false;
  // MPI's pair types (MPI_DOUBLE_INT and kin, for MPI_MINLOC and
  // MPI_MAXLOC) are padded, so not contiguous: their elements travel and
  // fold as whole extents, the padding inside each element with them.
  if (isReduction(C.Collective) && !Contig && isPairType(C.SendType)) {
    MPI_Aint Lb = 0, Ext = 0;
    MPI_Type_get_extent(C.SendType, &Lb, &Ext);
    if (Lb == 0 && Ext > 0) {
      Unit = static_cast<uint64_t>(Ext);
      if (__builtin_mul_overflow(static_cast<uint64_t>(C.SendCount), Unit,
                                 &Bytes)) {
        Code = fail(MPI_ERR_COUNT,
                    "collc: %s of %lld elements of %llu bytes: the size "
                    "overflows 64 bits",
                    Name, (long long)C.SendCount, (unsigned long long)Unit);
        return false;
      }
      Contig = true;
    }
  }
  // A reduce-scatter's calls count a rank's block: the schedule's message
  // is the whole vector, P blocks.
  if (C.Collective == Reduce_scatter_block &&
      __builtin_mul_overflow(Bytes, static_cast<uint64_t>(Size), &Bytes)) {
    Code = fail(MPI_ERR_COUNT,
                "collc: %s of %d ranks x %lld elements: the size overflows "
                "64 bits",
                Name, Size, (long long)C.SendCount);
    return false;
  }
  bool &Commute = Sh.Commute;
  // Chunks are counted in bytes, or in elements for reductions (then every
  // rank has the same datatype).
  if (!isReduction(C.Collective)) {
    Unit = 1;
  } else {
    // MPI_Reduce_local folds elements where the datatype lays them out, and
    // every rank passes the same datatype: only contiguous ones are served.
    if (!Contig) {
      MPI_Aint Lb = 0, Ext = 0;
      MPI_Type_get_extent(C.SendType, &Lb, &Ext);
      Code = fail(MPI_ERR_TYPE,
                  "collc: %s on a datatype that is not contiguous (%llu bytes "
                  "in an extent of %lld; collc folds contiguous vectors)",
                  Name, (unsigned long long)Unit, (long long)Ext);
      return false;
    }
    int Flag = 1;
    if (C.Op != MPI_OP_NULL && MPI_Op_commutative(C.Op, &Flag) == MPI_SUCCESS)
      Commute = Flag != 0;
  }
  return true;
}

/// Chooses the variant for \p C by its shape (shapeOf()). Returns the
/// variant or NoVariant with \p Code and lastError() saying why.
inline int choose(const Variant *Vs, int N, const Call &C, uint64_t &Bytes,
                  uint64_t &Unit, int &Rank, int &Size, int &Code) {
  Shape Sh;
  bool Ok = shapeOf(C, Sh, Code);
  Bytes = Sh.Bytes;
  Unit = Sh.Unit;
  Rank = Sh.Rank;
  Size = Sh.Size;
  if (!Ok)
    return NoVariant;
  return pickVariant(Vs, N, C.Collective, Size, C.Root, Bytes, Sh.Commute,
                     Code);
}

/// The common path of every entry point. Returns true when collc ran the
/// call (\p Code is its result), false when no variant fits (\p Code and
/// lastError() say why; the generated code then runs the MPI library's
/// collective when \p Fallback, else reports the error). With
/// COLLC_VERBOSE, rank 0 says which schedule served the call or why none
/// did, and a rank whose run fails says so.
inline bool serve(const Variant *Vs, int N, const Call &C, bool Fallback,
                  int &Code) {
  uint64_t Bytes = 0, Unit = 1;
  int Rank = 0, Size = 0;
  Code = MPI_SUCCESS;
  int I = choose(Vs, N, C, Bytes, Unit, Rank, Size, Code);
  if (verbose() && Rank == 0) {
    if (I == NoVariant) {
      if (Fallback)
        std::fprintf(stderr, "%s; %s of the MPI library runs\n", lastError(),
                     mpiName(C.Collective));
      else
        std::fprintf(stderr, "%s\n", lastError());
    } else {
      int Flag = 1;
      if (C.Op != MPI_OP_NULL)
        MPI_Op_commutative(C.Op, &Flag);
      std::fprintf(stderr, "collc: %s '%s' on %d ranks, %llu bytes%s\n",
                   collName(C.Collective), Vs[I].Algorithm, Size,
                   (unsigned long long)Bytes,
                   Flag ? "" : ", non-commutative operator in rank order");
    }
  }
  if (I == NoVariant)
    return false;
  Code = execute(Vs[I], C, Bytes, Unit, Rank);
  if (Code != MPI_SUCCESS && verbose())
    std::fprintf(stderr, "%s (rank %d)\n", lastError(), Rank);
  return true;
}

/// Reports \p Code as the MPI library's own collective would: through the
/// communicator's error handler (MPI_COMM_WORLD's for MPI_COMM_NULL).
/// Returns \p Code.
inline int reportError(MPI_Comm Comm, int Code) {
  if (Code == MPI_SUCCESS)
    return Code;
  MPI_Comm C = Comm == MPI_COMM_NULL ? MPI_COMM_WORLD : Comm;
  // MPI_ERRORS_RETURN only returns the code, which the caller does; calling
  // it is not needed, and SimGrid's SMPI 3.32 crashes calling a predefined
  // handler through MPI_Comm_call_errhandler.
  MPI_Errhandler H = MPI_ERRHANDLER_NULL;
  if (MPI_Comm_get_errhandler(C, &H) == MPI_SUCCESS && H == MPI_ERRORS_RETURN)
    return Code;
  if (H != MPI_ERRHANDLER_NULL && H != MPI_ERRORS_ARE_FATAL)
    MPI_Errhandler_free(&H);
  MPI_Comm_call_errhandler(C, Code);
  return Code;
}

} // namespace rt
} // namespace collc

#endif
