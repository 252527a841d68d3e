// libcollc-mpi: MPI's collectives interposed (PMPI), each call served by a
// schedule the engine (dropin/Engine.h) builds for its kind on first use and
// the table runtime (runtime/collc/runtime.h) runs; what collc cannot serve
// correctly goes to the MPI library's own collective (PMPI_*), and says why
// under COLLC_VERBOSE. Compiled once per MPI library (their ABIs differ):
// libcollc-mpi.so (Open MPI), libcollc-mpi-mpich.so, libcollc-mpi-smpi.so.
//
// No message is exchanged to agree on a schedule: every rank takes the same
// decision from the same inputs. shapeOf() measures a call from arguments
// equal on every rank; the communicator's node list comes from world ranks
// and the machine's placement; the engine's build is a pure function of the
// machine and the kind. A failed build is cached like a schedule, so every
// rank passes the same kinds to the MPI library.

#include "runtime/collc/runtime.h"
#ifdef OMPI_MAJOR_VERSION
#include <mpi-ext.h> // MPIX_*_init: Open MPI 4's persistent collectives
#endif

#include "dropin/Engine.h"
#include "dropin/Watch.h"
#include "ir/Escape.h"
#include "ir/MpiEntries.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <atomic>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

using namespace collc;

namespace {

/// Where the non-blocking and persistent calls of one communicator travel:
/// a duplicate of it, made with MPI_Comm_idup by its first such call (a
/// blocking MPI_Comm_dup there could wait for a rank that is not yet in a
/// collective call, which a non-blocking call must never do). The calls
/// wait for it to be ready before posting anything. Each call in flight has
/// its own tag, from the number of its start (the same on every rank: MPI
/// wants collective calls started in the same order on every rank), so
/// their messages never match each other's, nor those of blocking calls or
/// the program's.
///
/// SimGrid's SMPI 3.32 has no MPI_Comm_idup (it aborts the program): under
/// SMPI, non-blocking calls go to SMPI's own (and say so under
/// COLLC_VERBOSE). SMPI has no persistent collectives.
struct Channel {
  MPI_Comm Dup = MPI_COMM_NULL;
  /// The MPI_Comm_idup in flight (MPI_REQUEST_NULL once it completed).
  MPI_Request Making = MPI_REQUEST_NULL;
  /// Non-blocking calls started so far, and persistent requests made.
  uint64_t Starts = 0, Inits = 0;
  /// The tags of the runs in flight.
  std::multiset<int> InFlight;
  ~Channel() {
    if (Making != MPI_REQUEST_NULL)
      PMPI_Wait(&Making, MPI_STATUS_IGNORE);
    if (Dup != MPI_COMM_NULL)
      PMPI_Comm_free(&Dup);
  }
};

/// What the library knows of a communicator, cached on it.
struct CommInfo {
  int32_t Layout = 0;
  /// Why no schedule can serve it (empty when they can).
  std::string Error;
  /// Made by the first non-blocking or persistent call served.
  std::shared_ptr<Channel> Chan;
  /// The blocking calls served on it, per kind (dropin/Watch.h).
  std::map<dropin::Key, dropin::Watch> Watches;
};

/// What decide() found: the schedule that serves a call, or why none does.
struct Decision {
  const dropin::Entry *Served = nullptr;
  std::string Why;
  rt::Shape Sh;
  CommInfo *Info = nullptr;
  bool Commutative = true;
  /// The call's kind (when Served).
  dropin::Key K;
  /// A recent decision (decideBlocking()): the runtime's state cached on
  /// the communicator, the kind's watch (null: not watched), and the call
  /// it was taken for.
  bool Recent = false;
  rt::CommState *St = nullptr;
  dropin::Watch *Watched = nullptr;
  rt::Call Of{};
};

/// The decisions of the last blocking calls served, by the arguments that
/// decide them (decideBlocking()).
struct RecentCalls {
  /// 1: kept (one thread calls MPI at a time), 0: not, -1: not asked yet.
  /// (Atomic: under MPI_THREAD_MULTIPLE threads may ask at once.)
  std::atomic<int> Usable{-1};
  /// The decisions (Decision::Recent: in use) and the next to replace.
  std::array<Decision, 8> Kept;
  unsigned Next = 0;
  void clear() {
    if (Usable.load(std::memory_order_relaxed) > 0)
      for (Decision &D : Kept)
        D.Recent = false;
  }
};

/// The process's state. SMPI runs every rank in one process and shares it:
/// the engine locks, and initialisation happens once.
struct State {
  std::once_flag Once;
  dropin::Config Config;
  std::unique_ptr<dropin::Engine> Engine;
  /// Why every call goes to the MPI library (no engine).
  std::string Disabled;
  int Keyval = MPI_KEYVAL_INVALID;
  std::mutex KeyvalLock;
  /// Per collective: whether a failed build was said (once, without
  /// COLLC_VERBOSE: it makes collc serve less than asked).
  std::atomic<bool> FailureSaid[rt::NumColls] = {};
  /// Whether a cache file that failed a check was said (once).
  std::atomic<bool> CacheSaid{false};
  /// COLLC_WATCH and COLLC_ADAPT.
  dropin::WatchConfig Watching;
  /// The (collective, size band) pairs whose departure from the model, or
  /// whose trial won by the MPI library, was said (once each).
  std::set<std::pair<int, int>> WatchSaid;
  std::mutex WatchLock;
  /// The decisions of recent blocking calls (see decideBlocking()).
  RecentCalls Recent;
};

State TheState;

/// Prints one line on stderr with one write, so that lines of processes
/// sharing the stream (mpirun forwards them) never interleave.
__attribute__((format(printf, 1, 2))) void say(const char *Fmt, ...) {
  char Line[1024];
  std::va_list Args;
  va_start(Args, Fmt);
  int N = std::vsnprintf(Line, sizeof Line - 1, Fmt, Args);
  va_end(Args);
  if (N < 0)
    return;
  size_t Len = std::min<size_t>(static_cast<size_t>(N), sizeof Line - 2);
  Line[Len++] = '\n';
  for (size_t Done = 0; Done < Len;) {
    ssize_t W = ::write(2, Line + Done, Len - Done);
    if (W <= 0)
      return;
    Done += static_cast<size_t>(W);
  }
}

/// Says \p Text after \p Prefix, one line per line of it (a diagnostic may
/// carry its source line and a caret), each line printable: text from files
/// (a machine's name, an algorithm's) never reaches the terminal raw.
void sayText(const char *Prefix, const std::string &Text) {
  llvm::StringRef Rest(Text);
  do {
    auto [Line, Tail] = Rest.split('\n');
    say("%s%s", Prefix, printableText(Line).c_str());
    Rest = Tail;
  } while (!Rest.empty());
}

int worldRank() {
  int R = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &R);
  return R;
}

int deleteInfo(MPI_Comm, int, void *Attr, void *);

/// Whether the simulated ranks of SMPI share this copy of the library: then
/// they would share the runtime's cached state on the one MPI_COMM_WORLD
/// object and its attribute keyval. With smpi/privatize-libs each rank runs
/// a copy of its own, under another name; every rank finds the same answer,
/// before any call is served.
bool sharedByRanks() {
#ifdef COLLC_DROPIN_SMPI
  int Size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  Dl_info Self;
  if (Size < 2 || !dladdr(reinterpret_cast<void *>(&deleteInfo), &Self) ||
      !Self.dli_fname)
    return false;
  llvm::StringRef Name(Self.dli_fname);
  return Name.endswith("/libcollc-mpi-smpi.so") ||
         Name == "libcollc-mpi-smpi.so";
#else
  return false;
#endif
}

State &state() {
  std::call_once(TheState.Once, [] {
    State &S = TheState;
    llvm::Expected<dropin::Config> C = dropin::parseConfig(
        std::getenv("COLLC_MACHINE"), std::getenv("COLLC_COLLECTIVES"),
        std::getenv("COLLC_ALGORITHM"), std::getenv("COLLC_VERBOSE"),
        std::getenv("COLLC_CACHE"));
    if (C) {
      S.Config = *C;
      llvm::Expected<std::unique_ptr<dropin::Engine>> E =
          dropin::Engine::create(*C);
      if (E)
        S.Engine = std::move(*E);
      else
        S.Disabled = llvm::toString(E.takeError());
    } else {
      S.Disabled = llvm::toString(C.takeError());
      // The verbosity still counts when the rest is wrong.
      S.Config.Verbose = rt::verbosityOf(std::getenv("COLLC_VERBOSE"));
    }
    int WorldSize = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &WorldSize);
    if (S.Engine) {
      // A machine smaller than the job serves no communicator: say so once
      // rather than pass every call on quietly.
      if (llvm::Error Err = S.Engine->checkWorld(WorldSize)) {
        S.Disabled = llvm::toString(std::move(Err));
        S.Engine.reset();
      }
    }
    bool Shared = sharedByRanks();
    if (Shared && S.Disabled.empty()) {
      S.Engine.reset();
      S.Disabled = "libcollc-mpi-smpi.so is shared by every simulated rank; "
                   "give each its own copy with "
                   "--cfg=smpi/privatize-libs:libcollc-mpi-smpi.so";
    }
    // One clear message, from world rank 0 (every rank with
    // COLLC_VERBOSE=all; the one that gets here first when the ranks share
    // this library), even without COLLC_VERBOSE.
    const bool Speak = worldRank() == 0 || S.Config.Verbose == 2 || Shared;
    if (!S.Disabled.empty() && Speak) {
      sayText("collc: error: ", S.Disabled);
      say("collc: every collective runs in the MPI library");
    } else if (S.Engine && Speak) {
      for (const std::string &Note : S.Engine->notes())
        sayText("collc: note: ", Note);
    }
    std::vector<std::string> WatchNotes;
    S.Watching = dropin::parseWatch(std::getenv("COLLC_WATCH"),
                                    std::getenv("COLLC_ADAPT"), WatchNotes);
    if (S.Engine && Speak)
      for (const std::string &Note : WatchNotes)
        sayText("collc: note: ", Note);
    // The machine's piece size (the runtime's when COLLC_MAX_PIECE is not
    // given).
    if (S.Engine && S.Engine->machine().Net) {
      rt::machinePiece() = S.Engine->machine().Net->MaxPiece;
      if (rt::machinePiece() && Speak && S.Config.Verbose)
        sayText("collc: ", "messages go in pieces of up to " +
                               std::to_string(rt::maxPiece()) +
                               " bytes (the machine's max_piece, unless "
                               "COLLC_MAX_PIECE says otherwise)");
    }
    // A piece size the runtime cannot use (it keeps its default).
    bool PieceValid = true;
    const char *Piece = std::getenv("COLLC_MAX_PIECE");
    rt::maxPieceOf(Piece, &PieceValid);
    if (!PieceValid && Speak)
      sayText("collc: note: ",
              "COLLC_MAX_PIECE='" + std::string(Piece) +
                  "' is not a byte count from 1 to 1073741824: messages go in "
                  "pieces of up to 1 GiB");
  });
  return TheState;
}

int deleteInfo(MPI_Comm, int, void *Attr, void *) {
  // A freed communicator's handle may come back for another: no recent
  // decision outlives the communicator it was taken on.
  TheState.Recent.clear();
  delete static_cast<CommInfo *>(Attr);
  return MPI_SUCCESS;
}

/// The node list of \p Comm (\p Size ranks): each rank's world rank placed
/// on the machine.
std::unique_ptr<CommInfo> describe(dropin::Engine &E, MPI_Comm Comm, int Size) {
  auto Info = std::make_unique<CommInfo>();
  MPI_Group G, W;
  int WorldSize = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &WorldSize);
  std::vector<int> Ranks(Size), World(Size);
  std::iota(Ranks.begin(), Ranks.end(), 0);
  MPI_Comm_group(Comm, &G);
  MPI_Comm_group(MPI_COMM_WORLD, &W);
  int Err = MPI_Group_translate_ranks(G, Size, Ranks.data(), W, World.data());
  MPI_Group_free(&G);
  MPI_Group_free(&W);
  if (Err != MPI_SUCCESS) {
    Info->Error = "cannot translate the communicator's ranks to world ranks";
    return Info;
  }
  std::vector<int64_t> Nodes(Size);
  for (int I = 0; I < Size; ++I) {
    if (World[I] == MPI_UNDEFINED) {
      Info->Error = "rank " + std::to_string(I) +
                    " of the communicator is not in MPI_COMM_WORLD";
      return Info;
    }
    llvm::Expected<int64_t> N = E.nodeOfWorldRank(World[I], WorldSize);
    if (!N) {
      Info->Error = llvm::toString(N.takeError());
      return Info;
    }
    Nodes[I] = *N;
  }
  Info->Layout = E.layout(Nodes);
  return Info;
}

/// The information cached on \p Comm, made on first use (null when the
/// attribute cannot be kept: the call then goes to the MPI library).
CommInfo *commInfo(State &S, MPI_Comm Comm, int Size) {
  {
    std::lock_guard<std::mutex> G(S.KeyvalLock);
    if (S.Keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleteInfo, &S.Keyval,
                               nullptr) != MPI_SUCCESS)
      return nullptr;
  }
  void *Attr = nullptr;
  int Found = 0;
  if (MPI_Comm_get_attr(Comm, S.Keyval, &Attr, &Found) != MPI_SUCCESS)
    return nullptr;
  if (Found)
    return static_cast<CommInfo *>(Attr);
  std::unique_ptr<CommInfo> Info = describe(*S.Engine, Comm, Size);
  if (MPI_Comm_set_attr(Comm, S.Keyval, Info.get()) != MPI_SUCCESS)
    return nullptr;
  return Info.release();
}

/// Whether this rank reports (rank \p Rank of its communicator).
bool reports(const State &S, int Rank) {
  return S.Config.Verbose == 2 || (S.Config.Verbose == 1 && Rank == 0);
}

/// The forms of a collective call.
enum Form { Blocking, NonBlocking, Persistent };

#if defined(MPICH_VERSION) && MPI_VERSION >= 4
#define COLLC_PERSISTENT 1
// MPI-4's large-count forms (MPI_Bcast_c, MPI_Ibcast_c, MPI_Bcast_init_c):
// the same calls with MPI_Count counts.
#define COLLC_LARGE_COUNT 1
constexpr const char *PersistentPrefix = "MPI_";
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define COLLC_PERSISTENT 1
constexpr const char *PersistentPrefix = "MPIX_";
#endif

/// The MPI library's function for the collective whose blocking call is
/// MPI_\p Called ("Bcast") in form \p F: MPI_Bcast, MPI_Ibcast,
/// MPI_Bcast_init (MPIX_Bcast_init under Open MPI 4); a large-count call
/// ("Bcast_c") likewise: MPI_Bcast_c, MPI_Ibcast_c, MPI_Bcast_init_c.
std::string mpiFunction(llvm::StringRef Called, Form F) {
  if (Called.consume_back("_c"))
    return mpiFunction(Called, F) + "_c";
  if (F == NonBlocking)
    return "MPI_I" + Called.lower();
#ifdef COLLC_PERSISTENT
  if (F == Persistent)
    return PersistentPrefix + Called.str() + "_init";
#endif
  return "MPI_" + Called.str();
}
std::string mpiFunction(int Coll, Form F) {
  return mpiFunction(llvm::StringRef(rt::mpiName(Coll)).drop_front(4), F);
}

/// How COLLC_VERBOSE names the call MPI_\p Called in form \p F: bcast,
/// ibcast, bcast_init (bcast_c, ibcast_c, bcast_init_c).
std::string formName(llvm::StringRef Called, Form F) {
  if (Called.consume_back("_c"))
    return formName(Called, F) + "_c";
  const std::string Name = Called.lower();
  return F == NonBlocking  ? "i" + Name
         : F == Persistent ? Name + "_init"
                           : Name;
}
std::string formName(int Coll, Form F) {
  return formName(llvm::StringRef(rt::mpiName(Coll)).drop_front(4), F);
}

/// A program's call that collc serves as one of its collectives
/// (MPI_Allgatherv as an allgather), and what runs before each start and
/// after each run of the schedule: a staging copy's packing and unpacking.
/// Empty for the collectives' own calls.
struct Via {
  /// The program's function after "MPI_" ("Allgatherv"); null: the
  /// collective's own.
  const char *Called = nullptr;
  std::function<int()> Before, After;
};

/// Runs the call in the MPI library, saying why under COLLC_VERBOSE.
template <typename Fn>
int pass(const State &S, const rt::Call &C, Form F, int Rank, const char *Why,
         Fn &&Library, const char *Called = nullptr) {
  if (reports(S, Rank))
    say("%s; %s of the MPI library runs", printableText(Why).c_str(),
        (Called ? mpiFunction(Called, F) : mpiFunction(C.Collective, F))
            .c_str());
  return Library();
}

/// Whether collc serves call \p C, and with what. The same on every rank
/// (see the top of this file).
Decision decide(State &S, const rt::Call &C) {
  Decision D;
  rt::Shape &Sh = D.Sh;
  if (S.Config.Verbose && C.Comm != MPI_COMM_NULL &&
      (!S.Engine || !S.Config.TakeOver[C.Collective]))
    MPI_Comm_rank(C.Comm, &Sh.Rank);
  if (!S.Engine) {
    D.Why = "collc: not in use (see its error above)";
    return D;
  }
  if (!S.Config.TakeOver[C.Collective]) {
    D.Why = std::string("collc: ") + rt::collName(C.Collective) +
            " is not taken over (COLLC_COLLECTIVES)";
    return D;
  }
  int Code = MPI_SUCCESS;
  if (!rt::shapeOf(C, Sh, Code)) {
    D.Why = rt::lastError();
    return D;
  }
  D.Info = commInfo(S, C.Comm, Sh.Size);
  if (!D.Info) {
    D.Why = "collc: cannot keep an attribute on the communicator";
    return D;
  }
  if (!D.Info->Error.empty()) {
    D.Why = std::string("collc: ") + rt::collName(C.Collective) + " on " +
            std::to_string(Sh.Size) + " ranks: " + D.Info->Error;
    return D;
  }
  dropin::Key K;
  K.Coll = C.Collective;
  K.Layout = D.Info->Layout;
  K.Root = rt::isRooted(C.Collective) ? C.Root : 0;
  K.Band = C.Collective == rt::Barrier ? 0 : powerOfTwoBand(Sh.Bytes);
  K.Commutative = !rt::isReduction(C.Collective) || Sh.Commute;
  D.Commutative = K.Commutative;
  D.K = K;
  const dropin::Entry &E = S.Engine->get(K, Sh.Rank);
  // Said once, on rank 0 of the communicator, without COLLC_VERBOSE: a
  // cache file that failed a check, and the first kind of a collective that
  // collc cannot serve (it then serves less than asked).
  if (!E.CacheNote.empty() && Sh.Rank == 0 && !S.CacheSaid.exchange(true))
    sayText("collc: note: ", E.CacheNote);
  if (!E.Error.empty()) {
    D.Why = std::string("collc: no ") + rt::collName(C.Collective) +
            " schedule for " + std::to_string(Sh.Size) + " ranks and " +
            std::to_string(Sh.Bytes) + " bytes: " + E.Error;
    if (!reports(S, Sh.Rank) && Sh.Rank == 0 &&
        !S.FailureSaid[C.Collective].exchange(true)) {
      sayText("", D.Why);
      say("collc: such %s calls run in the MPI library (COLLC_VERBOSE=1 "
          "reports each)",
          rt::collName(C.Collective));
    }
    return D;
  }
  D.Served = &E;
  return D;
}

/// Whether \p T is one of MPI's named datatypes, which the program never
/// frees (so its handle never comes back for another datatype).
bool namedType(MPI_Datatype T) {
  int Ints = 0, Addrs = 0, Types = 0, Combiner = 0;
  return T != MPI_DATATYPE_NULL &&
         PMPI_Type_get_envelope(T, &Ints, &Addrs, &Types, &Combiner) ==
             MPI_SUCCESS &&
         Combiner == MPI_COMBINER_NAMED;
}

/// Whether calls \p A and \p B have the arguments decide() decides by
/// (all but the buffers, and whether they are MPI_IN_PLACE).
bool sameDecision(const rt::Call &A, const rt::Call &B) {
  return A.Collective == B.Collective && A.Comm == B.Comm &&
         A.SendCount == B.SendCount && A.SendType == B.SendType &&
         A.RecvCount == B.RecvCount && A.RecvType == B.RecvType &&
         A.Op == B.Op && A.Root == B.Root &&
         (A.Send == MPI_IN_PLACE) == (B.Send == MPI_IN_PLACE) &&
         (A.Recv == MPI_IN_PLACE) == (B.Recv == MPI_IN_PLACE);
}

dropin::Watch *watchOf(State &S, const Decision &D);
bool predefinedOp(MPI_Op Op);

/// decide() for a blocking call, and what running it takes (the runtime's
/// state on the communicator, the kind's watch), kept for the next calls
/// with the same arguments (sameDecision()): a program makes the same few
/// calls over and over, and deciding one anew (the communicator's
/// attribute under a lock, MPI's queries of the communicator and the
/// datatypes, the engine's cache under another lock) costs more than a
/// small broadcast on shared memory. A decision is kept only where reusing
/// it cannot be wrong:
/// - the datatypes are named and the operator predefined (or none): a
///   handle the program frees may come back for a datatype of another size
///   or an operator of another commutativity, a named one never;
/// - the communicator's attribute is deleted when it is freed, and with it
///   every kept decision (deleteInfo()), so a handle that comes back for
///   another communicator finds none;
/// - one thread calls MPI at a time (below MPI_THREAD_MULTIPLE); not under
///   SMPI, whose simulated ranks may share the process.
/// Every rank makes the same MPI calls as deciding anew would (none that
/// communicates), so ranks that keep a decision and ranks that cannot (a
/// derived datatype on some of them) stay in step.
Decision decideBlocking(State &S, const rt::Call &C) {
  RecentCalls &R = S.Recent;
  const int Usable = R.Usable.load(std::memory_order_relaxed);
  if (Usable > 0)
    for (Decision &D : R.Kept)
      if (D.Recent && sameDecision(D.Of, C)) {
        // The runtime's state, once a run made it.
        if (!D.St)
          D.St = rt::knownCommState(C.Comm);
        return D;
      }
  Decision D = decide(S, C);
  if (!D.Served || !Usable)
    return D;
  if (Usable < 0) {
#ifdef COLLC_DROPIN_SMPI
    const bool Keep = false;
#else
    int Level = MPI_THREAD_SINGLE;
    const bool Keep = PMPI_Query_thread(&Level) == MPI_SUCCESS &&
                      Level != MPI_THREAD_MULTIPLE;
#endif
    R.Usable.store(Keep ? 1 : 0, std::memory_order_relaxed);
    if (!Keep)
      return D;
  }
  if (!predefinedOp(C.Op) || !namedType(C.SendType) ||
      (C.RecvType != C.SendType && !namedType(C.RecvType)))
    return D;
  // Not made here: duplicating the communicator is a collective call, and
  // a rank that decides anew (a derived datatype) makes it in its run, after
  // the watch's barrier. The next call finds it.
  D.St = rt::knownCommState(C.Comm);
  D.Watched = watchOf(S, D);
  D.Of = C;
  D.Recent = true;
  R.Kept[R.Next] = D;
  R.Next = (R.Next + 1) % R.Kept.size();
  return D;
}

/// Says, under COLLC_VERBOSE, which schedule serves a call of form \p F
/// (\p Prefix before it: "" for the call itself).
void sayServed(const State &S, const rt::Call &C, Form F, const Decision &D,
               const char *Prefix = "", const char *Called = nullptr) {
  const rt::Shape &Sh = D.Sh;
  if (!reports(S, Sh.Rank))
    return;
  const dropin::Entry &E = *D.Served;
  std::string Rank =
      S.Config.Verbose == 2 ? " (rank " + std::to_string(Sh.Rank) + ")" : "";
  const std::string Name =
      Called ? formName(Called, F) + " as " + formName(C.Collective, F)
             : formName(C.Collective, F);
  // Which way `auto` chose (dropin/Engine.h: PricedChoiceRanks).
  const char *Chosen = !E.Auto    ? ""
                       : E.Priced ? ", auto's choice by closed-form price"
                                  : ", auto's choice from whole candidates";
  if (C.Collective == rt::Barrier)
    say("collc: %s%s '%s' on %d ranks%s%s", Prefix, Name.c_str(),
        printableText(E.Algorithm).c_str(), Sh.Size, Chosen, Rank.c_str());
  else
    say("collc: %s%s '%s' on %d ranks, %llu bytes%s, schedule for "
        "%llu..%llu bytes%s%s%s",
        Prefix, Name.c_str(), printableText(E.Algorithm).c_str(), Sh.Size,
        (unsigned long long)Sh.Bytes,
        D.Commutative ? "" : ", non-commutative operator in rank order",
        (unsigned long long)E.Variant.MinBytes,
        (unsigned long long)E.Variant.MaxBytes,
        E.Rank >= 0 ? ", this rank's part built"
                    : ", whole schedule built (no per-rank form)",
        Chosen, Rank.c_str());
}

// ---- non-blocking and persistent calls
// -------------------------------------------------------------------------
//
// A non-blocking collective collc serves runs its schedule with the table
// executor made resumable (rt::Pending: each call owns its state, several
// may be in flight on one communicator, each with its own tag on the
// communicator's Channel). Nothing runs behind the program's back: no
// thread (it would need MPI_THREAD_MULTIPLE, and it would take a core from
// the program), no progress hook of the MPI library (there is no portable
// one). As in libNBC, the runs move on when the program calls MPI to test or
// complete requests: every MPI_Wait*, MPI_Test* and MPI_Request_get_status,
// every non-blocking call collc serves and start of a persistent one, the
// blocking point-to-point calls while runs are in flight (at the end of this
// file) and a blocking run of collc while it waits (collc_rt_progress_others,
// runtime.h) move all of collc's runs in flight on, so that a rank that
// waits for anything still forwards what the others wait for. A rank
// blocked in another MPI call (MPI_Mprobe, a collective collc passes on)
// does not move them; docs/mpi.md says so.
//
// The program's handle is a real MPI_Request, so that it mixes with others
// in every MPI_Wait*/MPI_Test* call:
//  - a non-blocking call's is a generalized request (MPI_Grequest_start)
//    that collc completes (MPI_Grequest_complete) when the run is over; the
//    MPI library then frees it as any request (MPI_Request_free included:
//    the free function runs once both happened);
//  - a persistent call's is an inactive persistent receive from
//    MPI_PROC_NULL (MPI_Recv_init), made at _init; when a run that MPI_Start
//    began is over, collc starts it, and the MPI library completes it at
//    once. Until then the MPI library would take the inactive request for a
//    complete one, so the interposers hide it (as MPI_REQUEST_NULL, and
//    never answer "done" while one is hidden).
// The Wait calls poll (test everything, then MPI_Test* the program's
// requests) while collc has runs in flight, and are the MPI library's own
// otherwise.

/// A call of collc's that runs while the program goes on.
struct Flight {
  Form F = NonBlocking;
  std::unique_ptr<rt::Pending> Run;
  std::shared_ptr<Channel> Chan;
  /// The program's handle.
  MPI_Request Handle = MPI_REQUEST_NULL;
  /// How the call was served (said again at each start of a persistent
  /// one).
  Decision D;
  /// Derived datatypes, duplicated: the program may free its own while the
  /// call is in flight.
  MPI_Datatype Types[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  int Error = MPI_SUCCESS;
  /// A persistent one's number among the channel's persistent requests, in
  /// the order they were made (MPI matches persistent collectives by it).
  uint64_t Init = 0;
  /// The tag of its run on the channel (launch()).
  int Tag = 0;
  /// Started by the program, its run not over (a persistent one's handle is
  /// hidden meanwhile).
  bool Started = false;
  /// Its run is not started yet: the channel is not ready.
  bool Queued = false;
  /// A persistent one the program freed while it ran.
  bool FreeWhenDone = false;
  /// The program's call, when it is not the collective's own (Via).
  const char *Called = nullptr;
  /// Before each run and after each run that succeeded (Via).
  std::function<int()> Before, After;

  ~Flight() {
    for (MPI_Datatype &T : Types)
      if (T != MPI_DATATYPE_NULL)
        PMPI_Type_free(&T);
  }
};

/// collc's calls in flight, and its persistent requests.
struct Flights {
  /// Started and not over, in start order.
  std::vector<Flight *> Flying;
  /// Persistent requests by their handle.
  std::unordered_map<MPI_Request, Flight *> Persistent;
  /// Freed by the MPI library (a generalized request's free function):
  /// deleted at the next call, outside of the MPI library's callbacks.
  std::vector<Flight *> Dead;
  /// The handles of freed persistent requests, kept for the next ones:
  /// MPICH 4.0.2 hangs in a persistent collective made on the request object
  /// of a freed persistent receive (it reuses the handle), so collc never
  /// frees one before MPI_Finalize.
  std::vector<MPI_Request> Spare;
  /// Inside collc: the interposers go straight to the MPI library.
  int Busy = 0;
  bool Progressing = false;
  int TagUb = -1;
};

Flights TheFlights;

void bury() {
  Flights &Q = TheFlights;
  for (Flight *F : Q.Dead)
    delete F;
  Q.Dead.clear();
}

/// Whether the interposers of request calls have nothing of collc's to do.
bool idle() {
  const Flights &Q = TheFlights;
  return Q.Busy > 0 || Q.Flying.empty();
}

/// Whether \p R is a persistent request of collc's whose run is not over.
bool hidden(MPI_Request R) {
  const Flights &Q = TheFlights;
  if (Q.Persistent.empty())
    return false;
  auto It = Q.Persistent.find(R);
  return It != Q.Persistent.end() && It->second->Started;
}

int queryFlight(void *Extra, MPI_Status *St) {
  const Flight *F = static_cast<const Flight *>(Extra);
  PMPI_Status_set_elements(St, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(St, 0);
  St->MPI_SOURCE = MPI_UNDEFINED;
  St->MPI_TAG = MPI_UNDEFINED;
  St->MPI_ERROR = F->Error;
  return F->Error;
}

int freeFlight(void *Extra) {
  TheFlights.Dead.push_back(static_cast<Flight *>(Extra));
  return MPI_SUCCESS;
}

/// A collective call cannot be cancelled (MPI says so): nothing to do.
int cancelFlight(void *, int) { return MPI_SUCCESS; }

/// Whether \p C's channel is ready for runs; \p Err is set when its making
/// failed.
bool channelReady(Channel &C, int *Err = nullptr) {
  if (C.Making == MPI_REQUEST_NULL)
    return true;
  int Flag = 0;
  const int Code = PMPI_Test(&C.Making, &Flag, MPI_STATUS_IGNORE);
  if (Err)
    *Err = Code;
  if (Code != MPI_SUCCESS || !Flag)
    return false;
  PMPI_Comm_set_errhandler(C.Dup, MPI_ERRORS_RETURN);
  return true;
}

int progress();

/// Completes the duplicate of \p Info's communicator if it is being made.
/// MPI_Comm_idup runs collectives of its own on the communicator, each
/// started when the one before completes, at different moments on
/// different ranks; a non-blocking collective started there meanwhile (one
/// passed to the MPI library, or the watch's) could be matched on another
/// rank with one of them. So collc completes it first.
void quietChannel(const CommInfo *Info) {
  if (!Info || !Info->Chan)
    return;
  for (int Err = MPI_SUCCESS;
       !channelReady(*Info->Chan, &Err) && Err == MPI_SUCCESS;)
    if (!idle())
      progress();
}

/// The channel of \p Info's communicator \p Comm, made (its duplicate asked
/// for) on first use. Null, with \p Why, when there can be none.
std::shared_ptr<Channel> channelOf(CommInfo &Info, MPI_Comm Comm,
                                   std::string &Why) {
  if (Info.Chan)
    return Info.Chan;
  auto C = std::make_shared<Channel>();
#ifdef COLLC_DROPIN_SMPI
  (void)Comm;
  Why = "collc: SMPI 3.32 has no MPI_Comm_idup, which collc's non-blocking "
        "calls need";
  return nullptr;
#else
  if (PMPI_Comm_idup(Comm, &C->Dup, &C->Making) != MPI_SUCCESS) {
    Why = "collc: MPI_Comm_idup failed";
    return nullptr;
  }
#endif
  Info.Chan = C;
  return C;
}

/// Keeps the freed persistent request \p R (inactive once waited for: a
/// receive from MPI_PROC_NULL completes at once) for the next one.
void spare(MPI_Request R) {
  PMPI_Wait(&R, MPI_STATUS_IGNORE);
  TheFlights.Spare.push_back(R);
}

/// The last run of \p F is over: hands the program its completion.
void land(Flight &F) {
  F.Started = false;
  if (F.After && F.Error == MPI_SUCCESS)
    F.Error = F.After();
  if (F.F == NonBlocking) {
    // The free function may run in here (the program freed the request):
    // F is not touched after.
    PMPI_Grequest_complete(F.Handle);
    return;
  }
  if (F.Error != MPI_SUCCESS)
    say("%s (rank %d)", printableText(rt::lastError()).c_str(), F.D.Sh.Rank);
  if (F.FreeWhenDone) {
    TheFlights.Persistent.erase(F.Handle);
    spare(F.Handle);
    delete &F;
    return;
  }
  PMPI_Start(&F.Handle); // a receive from MPI_PROC_NULL: complete at once
}

#if defined(OMPI_MAJOR_VERSION) && !defined(COLLC_DROPIN_SMPI)
#define COLLC_LIBRARY_PROGRESS_HOOK 1
#else
#define COLLC_LIBRARY_PROGRESS_HOOK 0
#endif

#if COLLC_LIBRARY_PROGRESS_HOOK
/// Open MPI's progress callback (opal/runtime/opal_progress.h).
using LibraryCallback = int (*)();
int libraryProgress() {
  if (!TheFlights.Flying.empty())
    progress();
  return 0;
}
/// Has Open MPI's progress engine call libraryProgress() from every wait
/// inside the library, as its own non-blocking collectives (libNBC) are
/// moved on: a rank blocked in any call of the library (a collective collc
/// passes on, a communicator's making) still relays what collc's runs on
/// other ranks wait for. Once, at the first run; undone by MPI_Finalize.
void hookLibraryProgress(bool On) {
  static bool Hooked = false;
  if (Hooked == On)
    return;
  auto *Fn = reinterpret_cast<int (*)(LibraryCallback)>(
      dlsym(RTLD_DEFAULT,
            On ? "opal_progress_register" : "opal_progress_unregister"));
  if (Fn && Fn(&libraryProgress) == 0)
    Hooked = On;
  else if (On && state().Config.Verbose && !Fn)
    say("collc: Open MPI's opal_progress_register is not found: a collective "
        "collc passes on, entered with collc's runs in flight, may wait for "
        "them");
}
#else
void hookLibraryProgress(bool) {}
#endif

/// Moves every run of collc's in flight on; returns how many remain.
int progress() {
  Flights &Q = TheFlights;
  if (Q.Progressing)
    return static_cast<int>(Q.Flying.size());
  Q.Progressing = true;
  ++Q.Busy;
  for (size_t I = 0; I < Q.Flying.size();) {
    Flight &F = *Q.Flying[I];
    bool Over = false;
    int Err = MPI_SUCCESS;
    if (F.Queued && channelReady(*F.Chan)) {
      F.Queued = false;
      // Start n's tag: n modulo MPI_TAG_UB + 1.
      Err = F.Run->start(F.Chan->Dup, F.Tag);
    }
    if (Err == MPI_SUCCESS && !F.Queued)
      Err = F.Run->test(Over);
    if (Err != MPI_SUCCESS) {
      F.Error = Err;
      Over = true;
      if (state().Config.Verbose)
        say("%s (rank %d)", printableText(rt::lastError()).c_str(),
            F.D.Sh.Rank);
    }
    if (!Over) {
      ++I;
      continue;
    }
    Q.Flying.erase(Q.Flying.begin() + static_cast<std::ptrdiff_t>(I));
    F.Chan->InFlight.erase(F.Chan->InFlight.find(F.Tag));
    land(F);
  }
  --Q.Busy;
  Q.Progressing = false;
  collc_rt_progress_others = Q.Flying.empty() ? nullptr : &progress;
  return static_cast<int>(Q.Flying.size());
}

/// Starts a run of \p F: it takes its tag (the channel's next start number,
/// or its persistent request's number), and runs as soon as the channel is
/// ready.
void launch(Flight &F) {
  Flights &Q = TheFlights;
  Channel &C = *F.Chan;
  if (Q.TagUb < 0) {
    void *Ub = nullptr;
    int Flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &Ub, &Flag);
    Q.TagUb = Flag && Ub ? *static_cast<int *>(Ub) : 32767;
  }
  // MPI matches non-blocking collectives in the order they start, and
  // persistent ones in the order they were made (their starts may come in
  // any order): the lower half of the tags numbers the non-blocking calls'
  // starts, the upper half the persistent requests. A run whose tag is in
  // use on the channel waits until that run is over.
  const uint64_t Half = std::max<uint64_t>(1, (uint64_t(Q.TagUb) + 1) / 2);
  F.Tag = static_cast<int>(F.F == Persistent ? Half + F.Init % Half
                                             : C.Starts++ % Half);
  while (C.InFlight.count(F.Tag))
    progress();
  C.InFlight.insert(F.Tag);
  F.Started = true;
  F.Queued = true;
  F.Error = F.Before ? F.Before() : MPI_SUCCESS;
  Q.Flying.push_back(&F);
  hookLibraryProgress(true);
  progress();
}

/// Whether \p Op is one of MPI's predefined operators.
bool predefinedOp(MPI_Op Op) {
  for (MPI_Op P : {MPI_OP_NULL, MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                   MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC,
                   MPI_MAXLOC, MPI_REPLACE})
    if (Op == P)
      return true;
  return false;
}

/// A duplicate of \p T when it is a derived datatype (the program may free
/// its own before the call completes), else null.
MPI_Datatype keepType(MPI_Datatype T) {
  if (T == MPI_DATATYPE_NULL || namedType(T))
    return MPI_DATATYPE_NULL;
  MPI_Datatype Dup = MPI_DATATYPE_NULL;
  return PMPI_Type_dup(T, &Dup) == MPI_SUCCESS ? Dup : MPI_DATATYPE_NULL;
}

/// The common path of the non-blocking and persistent interposers: decide,
/// and make the call's Flight (\p F says which form), or run \p Library.
template <typename Fn>
int dispatchFlight(rt::Call C, Form F, MPI_Request *Req, Fn &&Library,
                   Via V = {}) {
  State &S = state();
  bury();
  Decision D = decide(S, C);
  int Level = MPI_THREAD_SINGLE;
  if (D.Served && PMPI_Query_thread(&Level) == MPI_SUCCESS &&
      Level == MPI_THREAD_MULTIPLE) {
    D.Served = nullptr;
    D.Why = "collc: the program runs with MPI_THREAD_MULTIPLE, and collc moves "
            "its non-blocking calls on from one thread at a time";
  }
  if (D.Served && !predefinedOp(C.Op)) {
    D.Served = nullptr;
    D.Why = "collc: a user-defined operator may be freed before the call "
            "completes, and collc cannot hold it";
  }
  if (D.Served && !Req) {
    D.Served = nullptr;
    D.Why = "collc: no request to return";
  }
  std::shared_ptr<Channel> Chan;
  if (D.Served && !(Chan = channelOf(*D.Info, C.Comm, D.Why)))
    D.Served = nullptr;
  if (!D.Served) {
    quietChannel(D.Info);
    return pass(S, C, F, D.Sh.Rank, D.Why.c_str(), Library, V.Called);
  }
  sayServed(S, C, F, D, "", V.Called);
  auto Fl = std::make_unique<Flight>();
  Fl->F = F;
  Fl->Called = V.Called;
  Fl->Before = std::move(V.Before);
  Fl->After = std::move(V.After);
  const bool OneType = C.RecvType == C.SendType;
  Fl->Types[0] = keepType(C.SendType);
  if (!OneType)
    Fl->Types[1] = keepType(C.RecvType);
  if (Fl->Types[0] != MPI_DATATYPE_NULL)
    C.SendType = Fl->Types[0];
  if (OneType)
    C.RecvType = C.SendType;
  else if (Fl->Types[1] != MPI_DATATYPE_NULL)
    C.RecvType = Fl->Types[1];
  const rt::Shape &Sh = D.Sh;
  Fl->Run = std::make_unique<rt::Pending>(D.Served->Variant, C, Sh.Bytes,
                                          Sh.Unit, Sh.Rank);
  Fl->D = std::move(D);
  Fl->Chan = std::move(Chan);
  int Err = MPI_SUCCESS;
  if (F == NonBlocking) {
    Err = PMPI_Grequest_start(queryFlight, freeFlight, cancelFlight, Fl.get(),
                              &Fl->Handle);
  } else if (!TheFlights.Spare.empty()) {
    Fl->Handle = TheFlights.Spare.back();
    TheFlights.Spare.pop_back();
  } else {
    Err = PMPI_Recv_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF,
                         &Fl->Handle);
  }
  if (F == Persistent)
    Fl->Init = Fl->Chan->Inits++;
  if (Err != MPI_SUCCESS)
    return rt::reportError(C.Comm, Err);
  *Req = Fl->Handle;
  Flight &Made = *Fl.release();
  if (F == NonBlocking)
    launch(Made);
  else
    TheFlights.Persistent.emplace(Made.Handle, &Made);
  return MPI_SUCCESS;
}

/// The program's requests as the MPI library may see them: collc's
/// persistent ones whose run is not over as MPI_REQUEST_NULL (inactive, the
/// library would take them for complete).
struct Unhidden {
  std::vector<MPI_Request> Seen;
  /// Which of them were hidden; how many.
  std::vector<char> Was;
  int Hidden = 0;

  Unhidden(int N, const MPI_Request *Reqs)
      : Seen(Reqs, Reqs + std::max(N, 0)), Was(Seen.size(), 0) {
    for (size_t I = 0; I < Seen.size(); ++I)
      if (hidden(Seen[I])) {
        Seen[I] = MPI_REQUEST_NULL;
        Was[I] = 1;
        ++Hidden;
      }
  }
  /// Writes back what the MPI library did to the requests it saw (a run
  /// that ended meanwhile, moved on from inside the library, keeps its
  /// handle).
  void writeBack(MPI_Request *Reqs) const {
    for (size_t I = 0; I < Seen.size(); ++I)
      if (!Was[I])
        Reqs[I] = Seen[I];
  }
};

/// Calls \p Test (which sets its argument when the wait is over) until it
/// says so, moving collc's runs on between; once none is in flight, the
/// MPI library's \p Wait finishes the job.
template <typename TestFn, typename WaitFn>
int poll(TestFn &&Test, WaitFn &&Wait) {
  for (;;) {
    if (TheFlights.Flying.empty())
      return Wait();
    bool Over = false;
    int Err = Test(Over);
    if (Err != MPI_SUCCESS || Over)
      return Err;
    sched_yield();
  }
}

int testOne(MPI_Request *R, int *Flag, MPI_Status *St) {
  progress();
  if (R && hidden(*R)) {
    *Flag = 0;
    return MPI_SUCCESS;
  }
  return PMPI_Test(R, Flag, St);
}

/// MPI_Wait of \p R, moving collc's runs on meanwhile.
int waitOne(MPI_Request *R, MPI_Status *St) {
  return poll(
      [&](bool &Over) {
        int Flag = 0;
        int Err = testOne(R, &Flag, St);
        Over = Flag;
        return Err;
      },
      [&] { return PMPI_Wait(R, St); });
}

/// A blocking call as its non-blocking form \p Post and waitOne().
template <typename Fn>
int postAndWait(Fn &&Post, MPI_Status *St = MPI_STATUS_IGNORE) {
  MPI_Request R;
  int Err = Post(&R);
  return Err != MPI_SUCCESS ? Err : waitOne(&R, St);
}

int testAny(int N, MPI_Request *Reqs, int *Index, int *Flag, MPI_Status *St) {
  progress();
  Unhidden U(N, Reqs);
  int Err = PMPI_Testany(N, U.Seen.data(), Index, Flag, St);
  U.writeBack(Reqs);
  if (Err == MPI_SUCCESS && *Flag && *Index == MPI_UNDEFINED && U.Hidden)
    *Flag = 0;
  return Err;
}

int testAll(int N, MPI_Request *Reqs, int *Flag, MPI_Status *Sts) {
  progress();
  if (Unhidden(N, Reqs).Hidden) {
    *Flag = 0;
    return MPI_SUCCESS;
  }
  return PMPI_Testall(N, Reqs, Flag, Sts);
}

int testSome(int N, MPI_Request *Reqs, int *Out, int *Indices,
             MPI_Status *Sts) {
  progress();
  Unhidden U(N, Reqs);
  int Err = PMPI_Testsome(N, U.Seen.data(), Out, Indices, Sts);
  U.writeBack(Reqs);
  if (Err == MPI_SUCCESS && *Out == MPI_UNDEFINED && U.Hidden)
    *Out = 0;
  return Err;
}

/// The watch of the kind of served call \p D on its communicator, or null
/// when calls are not watched (dropin/Watch.h).
dropin::Watch *watchOf(State &S, const Decision &D) {
  if (S.Watching.Factor <= 0 && !S.Watching.Adapt)
    return nullptr;
  return &D.Info->Watches.try_emplace(D.K, S.Watching).first->second;
}

/// Whether \p What of (collective, band) of \p D was not said yet (and is
/// now taken as said).
bool firstSaying(State &S, const Decision &D, int What) {
  std::lock_guard<std::mutex> G(S.WatchLock);
  return S.WatchSaid.insert({D.K.Coll * 4 + What, D.K.Band}).second;
}

/// "bcast on 8 ranks, 65536..131071 bytes".
std::string kindText(const rt::Call &C, const Decision &D) {
  std::string Text = std::string(rt::collName(C.Collective)) + " on " +
                     std::to_string(D.Sh.Size) + " ranks";
  if (C.Collective != rt::Barrier)
    Text += ", " + std::to_string(D.Served->Variant.MinBytes) + ".." +
            std::to_string(D.Served->Variant.MaxBytes) + " bytes";
  return Text;
}

/// "14.2x", "0.05x".
std::string ratioText(double Ratio) {
  char Text[32];
  std::snprintf(Text, sizeof Text, Ratio >= 10 ? "%.0fx" : "%.2gx", Ratio);
  return Text;
}

/// Completes \p R, the request of a call of collc's own that returned
/// \p Err, moving collc's runs in flight on while it waits.
int finish(int Err, MPI_Request &R) {
  // Nothing of collc's to move on: the library's own wait (a polling loop
  // would leave the ranks at different moments: SMPI makes each unsuccessful
  // MPI_Test cost more simulated time than the one before).
  if (Err == MPI_SUCCESS && idle())
    return PMPI_Wait(&R, MPI_STATUS_IGNORE);
  for (int Done = 0; Err == MPI_SUCCESS && !Done;) {
    if (!idle())
      progress();
    Err = PMPI_Test(&R, &Done, MPI_STATUS_IGNORE);
  }
  return Err;
}

/// What collc keeps on \p Comm, if it made anything (null otherwise).
const CommInfo *knownInfo(State &S, MPI_Comm Comm) {
  int Key = MPI_KEYVAL_INVALID;
  {
    std::lock_guard<std::mutex> G(S.KeyvalLock);
    Key = S.Keyval;
  }
  void *Attr = nullptr;
  int Found = 0;
  if (Key == MPI_KEYVAL_INVALID || Comm == MPI_COMM_NULL ||
      MPI_Comm_get_attr(Comm, Key, &Attr, &Found) != MPI_SUCCESS || !Found)
    return nullptr;
  return static_cast<const CommInfo *>(Attr);
}

/// A blocking collective collc hands to the MPI library on \p Comm, entered
/// maybe while collc's runs are in flight: the other ranks' runs may wait
/// for this rank to relay, and a rank may wait for them before it enters
/// this call (MPI allows it), so the runs must move on inside it.
/// - Under Open MPI, the library's progress engine moves them on
///   (hookLibraryProgress()): its blocking call \p Blocking.
/// - Elsewhere, on a communicator where collc has served a non-blocking or
///   persistent call (it has a channel: the same on every rank, as those
///   calls are collective), the library's non-blocking form \p NonBlocking
///   and a wait that moves collc's runs on (MPI never matches a blocking
///   collective with a non-blocking one, so every rank of the communicator
///   takes the same form); on other communicators \p Blocking (docs/mpi.md
///   says what is left).
template <typename BlockingFn, typename NonBlockingFn>
int viaLibrary(MPI_Comm Comm, BlockingFn &&Blocking,
               NonBlockingFn &&NonBlocking) {
#if COLLC_LIBRARY_PROGRESS_HOOK
  (void)Comm;
  (void)NonBlocking;
  return Blocking();
#else
  const CommInfo *Info = knownInfo(state(), Comm);
  if (!Info || !Info->Chan)
    return Blocking();
  // The duplicate's making runs collectives of its own (quietChannel).
  quietChannel(Info);
  MPI_Request R = MPI_REQUEST_NULL;
  return finish(NonBlocking(&R), R);
#endif
}

/// Records a watched call that took \p Micros; once the samples are in,
/// agrees with the other ranks on the slowest times, says a departure from
/// the model once and, after a trial, which side serves.
void watched(State &S, const rt::Call &C, const Decision &D, dropin::Watch &W,
             double Micros) {
  const dropin::Entry &E = *D.Served;
  W.record(Micros, dropin::predictedRange(
                       E.Makespan, E.Bytes,
                       C.Collective == rt::Barrier ? 0 : D.Sh.Bytes));
  if (!W.needsAgreement())
    return;
  // The slowest rank's time of each sampled call, the same on every rank.
  // Non-blocking, so that collc's runs in flight move on while it waits.
  const std::vector<double> Mine = W.samples();
  std::vector<double> Slowest(Mine.size());
  MPI_Request R = MPI_REQUEST_NULL;
  int Err = finish(PMPI_Iallreduce(Mine.data(), Slowest.data(),
                                   static_cast<int>(Mine.size()), MPI_DOUBLE,
                                   MPI_MAX, C.Comm, &R),
                   R);
  if (Err != MPI_SUCCESS) // cannot agree: collc keeps its calls, quietly
    Slowest.assign(Mine.size(), 0.0);
  W.agree(Slowest);
  const bool Speaks = D.Sh.Rank == 0 || S.Config.Verbose == 2;
  const std::array<double, 2> M = W.medians();
  auto Micro = [](double T) {
    return std::to_string(static_cast<long long>(std::llround(T))) + " us";
  };
  const std::string Samples =
      "median of " + std::to_string(S.Watching.Samples) + " calls";
  if (std::optional<double> Ratio = W.departure())
    if (Speaks && firstSaying(S, D, 0))
      sayText("collc: note: ",
              kindText(C, D) + ": the calls of schedule '" + E.Algorithm +
                  "' take " + ratioText(*Ratio) +
                  " the time the machine's model gives them (" + Samples +
                  ", slowest rank: " + Micro(M[0]) +
                  "; the model: " + Micro(E.Makespan) +
                  " at the band's build size): COLLC_MACHINE may describe "
                  "another machine (collc-probe measures this one); "
                  "COLLC_ADAPT=1 keeps the MPI library's call where it is "
                  "faster");
  if (!S.Watching.Adapt || Err != MPI_SUCCESS)
    return;
  const bool Library = W.next() == dropin::Watch::Library;
  if (reports(S, D.Sh.Rank) || (Library && Speaks && firstSaying(S, D, 1)))
    sayText("collc: note: COLLC_ADAPT: ",
            kindText(C, D) + ": schedule '" + E.Algorithm + "' " + Micro(M[0]) +
                ", " + rt::mpiName(C.Collective) + " of the MPI library " +
                Micro(M[1]) + " (" + Samples + " each, slowest rank): " +
                (Library ? "the MPI library's" : "collc's") +
                " serves the later calls");
}

/// The common path of every blocking interposer.
template <typename Fn>
int dispatch(const rt::Call &C, Fn &&Library, const Via &V = {}) {
  State &S = state();
  Decision D = decideBlocking(S, C);
  if (!D.Served)
    return pass(S, C, Blocking, D.Sh.Rank, D.Why.c_str(), Library, V.Called);
  // A sampled call starts on every rank at once (a barrier first), so
  // that its time is the call's, not the wait for the last rank to come.
  dropin::Watch *W = D.Recent ? D.Watched : watchOf(S, D);
  const bool Timed = W && W->sampling();
  if (Timed) {
    quietChannel(D.Info);
    MPI_Request R = MPI_REQUEST_NULL;
    finish(PMPI_Ibarrier(C.Comm, &R), R);
  }
  const double Start = Timed ? PMPI_Wtime() : 0;
  if (W && W->next() == dropin::Watch::Library) {
    const char *Why = W->agreed() ? "collc: the MPI library's call was faster "
                                    "for this kind (COLLC_ADAPT)"
                                  : "collc: timing the MPI library's call "
                                    "for this kind (COLLC_ADAPT)";
    const int Code = pass(S, C, Blocking, D.Sh.Rank, Why, Library, V.Called);
    if (Timed)
      watched(S, C, D, *W, (PMPI_Wtime() - Start) * 1e6);
    return Code;
  }
  sayServed(S, C, Blocking, D, "", V.Called);
  const rt::Shape &Sh = D.Sh;
  // While runs are in flight, the run's own MPI calls go straight to the
  // MPI library, and those runs move on through collc_rt_progress_others.
  // (Without any, nothing is touched: a program under MPI_THREAD_MULTIPLE,
  // which has none, may make blocking calls from several threads.)
  Flights &Q = TheFlights;
  const bool Flying = !Q.Flying.empty();
  if (Flying) {
    bury();
    ++Q.Busy;
  }
  int Code = V.Before ? V.Before() : MPI_SUCCESS;
  if (Code == MPI_SUCCESS)
    Code = D.St ? rt::executeOn(*D.St, D.Served->Variant, C, Sh.Bytes, Sh.Unit,
                                Sh.Rank, &Sh.Measured)
                : rt::execute(D.Served->Variant, C, Sh.Bytes, Sh.Unit, Sh.Rank);
  if (Code == MPI_SUCCESS && V.After)
    Code = V.After();
  if (Flying)
    --Q.Busy;
  if (Code != MPI_SUCCESS && S.Config.Verbose)
    say("%s (rank %d)", printableText(rt::lastError()).c_str(), Sh.Rank);
  if (Timed)
    watched(S, C, D, *W, (PMPI_Wtime() - Start) * 1e6);
  return rt::reportError(C.Comm, Code);
}

// ---- the MPI collectives that are no collective of collc's
// (ir/MpiEntries.h: COLLC_MPI_OTHERS)

/// One tag type per call of COLLC_MPI_OTHERS, to pick its server.
namespace other {
#define COLLC_OTHER_TAG(Coll, ICall, Shape, Why, Unused)                       \
  struct Coll {};
COLLC_MPI_OTHERS(COLLC_OTHER_TAG, )
#undef COLLC_OTHER_TAG
} // namespace other

/// Hands the program's call MPI_\p Called (form \p F) on \p Comm to the MPI
/// library, saying \p Why under COLLC_VERBOSE.
template <typename Fn>
int passOn(const char *Called, Form F, const char *Why, MPI_Comm Comm,
           Fn &&Library) {
  State &S = state();
  if (F != Blocking)
    quietChannel(knownInfo(S, Comm)); // see quietChannel
  int Rank = 0;
  if (S.Config.Verbose && Comm != MPI_COMM_NULL)
    MPI_Comm_rank(Comm, &Rank);
  if (reports(S, Rank))
    say("%s; %s of the MPI library runs", printableText(Why).c_str(),
        mpiFunction(Called, F).c_str());
  return Library();
}

/// A call of COLLC_MPI_OTHERS that collc does not serve: to the MPI library.
template <typename Tag, typename Fn, typename... Args>
int serve(Tag, const char *Called, Form F, const char *Why, MPI_Request *,
          Fn &&Library, Args... A) {
  return passOn(Called, F, Why, std::get<sizeof...(Args) - 1>(std::tie(A...)),
                Library);
}

/// How many blocks of the largest count may move, at the most, for what the
/// counts add up to: a call whose counts differ by rank is served with
/// every block padded to the largest (the padding moved and dropped) when
/// that moves at most this many times the data.
constexpr int64_t MaxPadding = 2;

/// The count of the blocks that serve a call MPI_\p Called (form \p F) of
/// the ranks' counts \p Counts on \p Comm (an intracommunicator of \p P
/// ranks): the largest count, when they are all equal (\p Equal) or P blocks
/// of it move at most MaxPadding times what the counts add up to. Every rank
/// has every count, so every rank takes the same decision. Otherwise the
/// call goes to the MPI library, saying \p Why (or why the arguments do not
/// do), and \p Code is the library's result.
template <typename Fn, typename CountT>
std::optional<int64_t> blockCount(const char *Called, Form F, const char *Why,
                                  MPI_Comm Comm, const CountT Counts[], int &P,
                                  bool &Equal, int &Code, Fn &&Library) {
  int Inter = 0;
  const char *Refusal = nullptr;
  if (Comm == MPI_COMM_NULL || !Counts ||
      MPI_Comm_test_inter(Comm, &Inter) != MPI_SUCCESS ||
      MPI_Comm_size(Comm, &P) != MPI_SUCCESS)
    Refusal = "collc: invalid arguments";
  else if (Inter)
    Refusal = "collc: an intercommunicator (collc schedules run on "
              "intracommunicators)";
  int64_t Most = 0, Sum = 0;
  Equal = true;
  for (int I = 0; !Refusal && I < P; ++I) {
    if (Counts[I] < 0)
      Refusal = "collc: invalid arguments";
    Most = std::max<int64_t>(Most, Counts[I]);
    Sum += Counts[I];
    Equal = Equal && Counts[I] == Counts[0];
  }
  if (!Refusal && !Equal && int64_t(P) * Most > MaxPadding * Sum)
    Refusal = Why;
  if (Refusal) {
    Code = passOn(Called, F, Refusal, Comm, Library);
    return std::nullopt;
  }
  return Most;
}

/// The staging copy of an MPI_Allgatherv whose displacements on this rank
/// are not the ones of an allgather, or whose counts differ by rank: the
/// schedule gathers the blocks packed, one after the other, each padded to
/// the largest count, and they are unpacked to the displacements after.
struct Staging {
  std::vector<char> Packed;
  std::vector<int> Counts;
  std::vector<MPI_Aint> Displs;
  char *User = nullptr;
  MPI_Datatype Type = MPI_DATATYPE_NULL;
  /// Where this rank's own block comes from when the counts differ (the
  /// send buffer; null: in place, the receive buffer).
  const void *Own = nullptr;
  int OwnCount = 0;
  MPI_Datatype OwnType = MPI_DATATYPE_NULL;
  /// Duplicates of derived Type and OwnType (the program may free its own
  /// meanwhile).
  MPI_Datatype Kept[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  MPI_Aint Extent = 0;
  uint64_t Block = 0;
  MPI_Comm Comm = MPI_COMM_NULL;
  ~Staging() {
    for (MPI_Datatype &T : Kept)
      if (T != MPI_DATATYPE_NULL)
        PMPI_Type_free(&T);
  }
  /// Packs (or unpacks) block \p I between the program's buffer and Packed.
  int copy(int I, bool Pack) {
    char *At = User + static_cast<MPI_Aint>(Displs[I]) * Extent;
    char *Bytes = Packed.data() + static_cast<uint64_t>(I) * Block;
    int Pos = 0;
    const int Len = static_cast<int>(Block);
    int Err = Pack ? PMPI_Pack(At, Counts[I], Type, Bytes, Len, &Pos, Comm)
                   : PMPI_Unpack(Bytes, Len, &Pos, At, Counts[I], Type, Comm);
    return Err == MPI_SUCCESS
               ? Err
               : rt::fail(Err, "collc: %s MPI_Allgatherv's block %d failed",
                          Pack ? "packing" : "unpacking", I);
  }
  /// Packs this rank's block (\p Rank) from the send buffer, or from the
  /// receive buffer in place.
  int packOwn(int Rank) {
    if (!Own)
      return copy(Rank, true);
    int Pos = 0;
    int Err = PMPI_Pack(Own, OwnCount, OwnType,
                        Packed.data() + static_cast<uint64_t>(Rank) * Block,
                        static_cast<int>(Block), &Pos, Comm);
    return Err == MPI_SUCCESS
               ? Err
               : rt::fail(Err, "collc: packing MPI_Allgatherv's send buffer "
                               "failed");
  }
};

/// A staging copy of \p Bytes bytes, or why it cannot be had (an
/// MPI_ERR_NO_MEM reported on \p Comm).
bool stage(std::vector<char> &Copy, uint64_t Bytes, const char *Called,
           MPI_Comm Comm, int &Code) {
#if defined(__cpp_exceptions)
  try {
    Copy.resize(static_cast<size_t>(Bytes));
  } catch (const std::bad_alloc &) {
    Code = rt::reportError(
        Comm, rt::fail(MPI_ERR_NO_MEM,
                       "collc: MPI_%s's staging copy of %llu bytes cannot be "
                       "allocated",
                       Called, (unsigned long long)Bytes));
    return false;
  }
#else
  Copy.resize(static_cast<size_t>(Bytes));
#endif
  return true;
}

/// MPI_Allgatherv (\p F: any form): served as collc's allgather of blocks
/// of the largest count (blockCount). The displacements are this rank's own
/// layout (they may differ by rank), so they decide only whether the blocks
/// go straight to the receive buffer (equal counts in an allgather's
/// layout: block i at i * count) or through a staging copy.
template <typename Fn, typename CountT, typename DisplT>
int serve(other::Allgatherv, const char *Called, Form F, const char *Why,
          MPI_Request *Req, Fn &&Library, const void *sendbuf, CountT sendcount,
          MPI_Datatype sendtype, void *recvbuf, const CountT recvcounts[],
          const DisplT displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  int P = 0, Rank = 0, Size = 0, Code = MPI_SUCCESS;
  bool Equal = true;
  if (comm == MPI_COMM_NULL || !displs ||
      MPI_Comm_rank(comm, &Rank) != MPI_SUCCESS ||
      PMPI_Type_size(recvtype, &Size) != MPI_SUCCESS)
    return passOn(Called, F, "collc: invalid arguments", comm, Library);
  const std::optional<int64_t> Most =
      blockCount(Called, F, Why, comm, recvcounts, P, Equal, Code, Library);
  if (!Most)
    return Code;
  const int64_t Count = *Most;
  // The staging copy's blocks are MPI_BYTE counts: the same limit on every
  // rank, whether it stages or not.
  const uint64_t Block = static_cast<uint64_t>(Count) * Size;
  if (Block > static_cast<uint64_t>(INT_MAX) || Count > INT_MAX)
    return passOn(Called, F, "collc: a block of more than INT_MAX bytes", comm,
                  Library);
  rt::Call C{rt::Allgather, sendbuf,  sendcount,   sendtype, recvbuf,
             Count,         recvtype, MPI_OP_NULL, 0,        comm};
  Via V;
  V.Called = Called;
  bool Straight = Equal;
  for (int I = 0; I < P && Count > 0 && Straight; ++I)
    Straight =
        static_cast<int64_t>(displs[I]) == static_cast<int64_t>(I) * Count;
  if (!Straight) {
    auto St = std::make_shared<Staging>();
    if (!stage(St->Packed, uint64_t(P) * Block, Called, comm, Code))
      return Code;
    St->Counts.assign(recvcounts, recvcounts + P);
    St->Displs.assign(displs, displs + P);
    St->User = static_cast<char *>(recvbuf);
    St->Kept[0] = F == Blocking ? MPI_DATATYPE_NULL : keepType(recvtype);
    St->Type = St->Kept[0] != MPI_DATATYPE_NULL ? St->Kept[0] : recvtype;
    St->Block = Block;
    St->Comm = comm;
    MPI_Aint Lb = 0;
    PMPI_Type_get_extent(recvtype, &Lb, &St->Extent);
    C.Recv = St->Packed.data();
    C.RecvCount = static_cast<MPI_Count>(Block);
    C.RecvType = MPI_BYTE;
    if (!Equal && sendbuf != MPI_IN_PLACE) {
      // Blocks of the largest count: this rank's goes into its place in
      // the staging copy, and the schedule gathers in place.
      St->Own = sendbuf;
      St->OwnCount = static_cast<int>(sendcount);
      St->Kept[1] = F == Blocking ? MPI_DATATYPE_NULL : keepType(sendtype);
      St->OwnType = St->Kept[1] != MPI_DATATYPE_NULL ? St->Kept[1] : sendtype;
      C.Send = MPI_IN_PLACE;
    }
    if (C.Send == MPI_IN_PLACE) // this rank's block is in the staging copy
      V.Before = [St, Rank]() -> int { return St->packOwn(Rank); };
    V.After = [St, P]() -> int {
      for (int I = 0; I < P; ++I)
        if (int Err = St->copy(I, false))
          return Err;
      return MPI_SUCCESS;
    };
  }
  return F == Blocking ? dispatch(C, Library, V)
                       : dispatchFlight(C, F, Req, Library, std::move(V));
}

/// MPI_Reduce_scatter (\p F: any form): served as collc's reduce-scatter
/// (MPI_Reduce_scatter_block) of blocks of the largest count (blockCount).
/// With equal counts the buffers are laid out as the block form's (the
/// blocks one after the other, the result at the start of the receive
/// buffer, in place too); otherwise each rank's vector is copied into
/// blocks of the largest count (the padding is reduced and dropped) and its
/// own block's result copied back.
template <typename Fn, typename CountT>
int serve(other::Reduce_scatter, const char *Called, Form F, const char *Why,
          MPI_Request *Req, Fn &&Library, const void *sendbuf, void *recvbuf,
          const CountT recvcounts[], MPI_Datatype type, MPI_Op op,
          MPI_Comm comm) {
  int P = 0, Rank = 0, Code = MPI_SUCCESS;
  bool Equal = true;
  const std::optional<int64_t> Most =
      blockCount(Called, F, Why, comm, recvcounts, P, Equal, Code, Library);
  if (!Most)
    return Code;
  rt::Call C{rt::Reduce_scatter_block,
             sendbuf,
             *Most,
             type,
             recvbuf,
             *Most,
             type,
             op,
             0,
             comm};
  Via V;
  V.Called = Called;
  if (!Equal) {
    // Elements as the runtime folds them: contiguous ones, or MPI's pair
    // types as whole extents; other datatypes go to the library as they are.
    uint64_t Size = 0;
    int64_t Extent = 0;
    bool Contig = false;
    MPI_Aint Lb = 0, Ext = 0;
    if (MPI_Comm_rank(comm, &Rank) != MPI_SUCCESS ||
        rt::typeLayout(type, Size, Extent, Contig) != MPI_SUCCESS ||
        PMPI_Type_get_extent(type, &Lb, &Ext) != MPI_SUCCESS)
      return passOn(Called, F, "collc: invalid arguments", comm, Library);
    if (!Contig && !(rt::isPairType(type) && Lb == 0 && Ext > 0))
      return passOn(Called, F,
                    "collc: the counts differ by rank, and the datatype is "
                    "not contiguous (collc folds contiguous vectors)",
                    comm, Library);
    const uint64_t Elem = Contig ? Size : static_cast<uint64_t>(Ext);
    const uint64_t Block = static_cast<uint64_t>(*Most) * Elem;
    auto Pad = std::make_shared<std::vector<char>[]>(2);
    if (!stage(Pad[0], uint64_t(P) * Block, Called, comm, Code) ||
        !stage(Pad[1], Block, Called, comm, Code))
      return Code;
    std::vector<int64_t> Counts(recvcounts, recvcounts + P);
    const char *From =
        static_cast<const char *>(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf);
    char *To = static_cast<char *>(recvbuf);
    C.Send = Pad[0].data();
    C.Recv = Pad[1].data();
    V.Before = [Pad, Counts, From, Block, Elem]() -> int {
      uint64_t At = 0;
      for (size_t X = 0; X < Counts.size(); ++X) {
        std::memcpy(Pad[0].data() + X * Block, From + At, Counts[X] * Elem);
        At += Counts[X] * Elem;
      }
      return MPI_SUCCESS;
    };
    V.After = [Pad, To, Own = Counts[Rank] * Elem]() -> int {
      std::memcpy(To, Pad[1].data(), Own);
      return MPI_SUCCESS;
    };
  }
  return F == Blocking ? dispatch(C, Library, V)
                       : dispatchFlight(C, F, Req, Library, std::move(V));
}

} // namespace

// ---- the program's MPI library, checked before anything is interposed
// ---------------------------------------------------------------------------
//
// Each build of this library is compiled against one MPI library's headers,
// and MPI libraries differ in their ABI: Open MPI's handles are pointers,
// MPICH's are 32-bit integers. Preloaded into a program of the other library
// (libcollc-mpi-mpich.so into an Open MPI program), the interposers would
// read the program's handles with the wrong types and hand them on damaged:
// the program would crash in its first collective. So, where it can be done
// without touching the arguments (x86-64 Linux), each interposed symbol is a
// two-way jump decided when the library is loaded: to collc's interposer, or,
// when the program's MPI library is not the one this build is for, straight
// to that library's own function, every register and the stack untouched;
// and the library says so once. Which library serves the program is read
// from the object that defines the next PMPI_Init after this one: it must
// define a symbol only the build's library has.

#if defined(__x86_64__) && defined(__linux__) &&                               \
    (defined(OMPI_MAJOR_VERSION) || defined(MPICH_VERSION))
#define COLLC_ABI_GUARD 1
#endif

// X(Name) with a collective's blocking or non-blocking call's name, or with
// the expansion of Name (a macro such as COLLC_INIT(Bcast)); the collectives
// are ir/MpiEntries.h's.
#define COLLC_NAMED(X, Name) X(Name)
#define COLLC_BLOCKING_OF(Coll, ICall, Shape, X) X(MPI_##Coll)
#define COLLC_NONBLOCKING_OF(Coll, ICall, Shape, X) X(MPI_##ICall)
#define COLLC_OTHER_BLOCKING_OF(Coll, ICall, Shape, Why, X) X(MPI_##Coll)
#define COLLC_OTHER_NONBLOCKING_OF(Coll, ICall, Shape, Why, X) X(MPI_##ICall)

// The persistent collectives' names: MPI-4's (MPICH 4), or Open MPI 4's
// MPIX_ extension.
// COLLC_INIT_AS(Bcast, _init_c) is the large-count form's.
#if defined(COLLC_PERSISTENT) && defined(OMPI_MAJOR_VERSION)
#define COLLC_INIT_AS(Coll, Suffix) MPIX_##Coll##Suffix
#define COLLC_PINIT_AS(Coll, Suffix) PMPIX_##Coll##Suffix
#elif defined(COLLC_PERSISTENT)
#define COLLC_INIT_AS(Coll, Suffix) MPI_##Coll##Suffix
#define COLLC_PINIT_AS(Coll, Suffix) PMPI_##Coll##Suffix
#endif
#define COLLC_INIT(Coll) COLLC_INIT_AS(Coll, _init)
#ifdef COLLC_PERSISTENT
// X(Name) for every persistent collective.
#define COLLC_PERSISTENT_OF(Coll, ICall, Shape, X)                             \
  COLLC_NAMED(X, COLLC_INIT(Coll))
#define COLLC_OTHER_PERSISTENT_OF(Coll, ICall, Shape, Why, X)                  \
  COLLC_NAMED(X, COLLC_INIT(Coll))
#define COLLC_PERSISTENT_LIST(X)                                               \
  COLLC_MPI_COLLECTIVES(COLLC_PERSISTENT_OF, X)                                \
  COLLC_MPI_OTHERS(COLLC_OTHER_PERSISTENT_OF, X)
#else
#define COLLC_PERSISTENT_LIST(X)
#endif
#ifdef COLLC_LARGE_COUNT
// X(Name) for every large-count form of a collective.
#define COLLC_LARGE_NAMES(Coll, ICall, X)                                      \
  X(MPI_##Coll##_c)                                                            \
  X(MPI_##ICall##_c) COLLC_NAMED(X, COLLC_INIT_AS(Coll, _init_c))
#define COLLC_LARGE_OF(Coll, ICall, Shape, X)                                  \
  COLLC_MPI_IF_COUNTED(Shape, COLLC_LARGE_NAMES, Coll, ICall, X)
#define COLLC_OTHER_LARGE_OF(Coll, ICall, Shape, Why, X)                       \
  COLLC_LARGE_NAMES(Coll, ICall, X)
#define COLLC_LARGE_LIST(X)                                                    \
  COLLC_MPI_COLLECTIVES(COLLC_LARGE_OF, X)                                     \
  COLLC_MPI_OTHERS(COLLC_OTHER_LARGE_OF, X)
#else
#define COLLC_LARGE_LIST(X)
#endif

#ifdef COLLC_ABI_GUARD
// collc's interposer of Name, reached through the trampoline below (two
// steps, so that Name may be a macro: COLLC_INIT(Bcast)).
#define COLLC_SERVE_NAME(Name) collcServe_##Name
#define COLLC_INTERPOSED(Name)                                                 \
  __attribute__((visibility("hidden"), used)) COLLC_SERVE_NAME(Name)

// The interposed functions that every MPI library has, one X(Name) each:
// the collectives, blocking and non-blocking, and the calls that start,
// test, complete or free requests (they move collc's runs on), the blocking
// point-to-point calls (so do they, while runs are in flight), and
// MPI_Finalize (which lets collc's runs end first).
#define COLLC_INTERPOSED_LIST(X)                                               \
  COLLC_MPI_COLLECTIVES(COLLC_BLOCKING_OF, X)                                  \
  COLLC_MPI_COLLECTIVES(COLLC_NONBLOCKING_OF, X)                               \
  COLLC_MPI_OTHERS(COLLC_OTHER_BLOCKING_OF, X)                                 \
  COLLC_MPI_OTHERS(COLLC_OTHER_NONBLOCKING_OF, X)                              \
  X(MPI_Wait)                                                                  \
  X(MPI_Test)                                                                  \
  X(MPI_Waitany)                                                               \
  X(MPI_Testany)                                                               \
  X(MPI_Waitall)                                                               \
  X(MPI_Testall)                                                               \
  X(MPI_Waitsome)                                                              \
  X(MPI_Testsome)                                                              \
  X(MPI_Request_get_status)                                                    \
  X(MPI_Request_free)                                                          \
  X(MPI_Start)                                                                 \
  X(MPI_Startall)                                                              \
  X(MPI_Send)                                                                  \
  X(MPI_Ssend)                                                                 \
  X(MPI_Recv)                                                                  \
  X(MPI_Sendrecv)                                                              \
  X(MPI_Probe)                                                                 \
  X(MPI_Finalize)

extern "C" {
/// Nonzero when the program's MPI library is not this build's: every
/// interposed symbol jumps to the library's own function.
__attribute__((visibility("hidden"))) unsigned char collcPassThrough = 0;
#define COLLC_DECLARE(Name)                                                    \
  __attribute__((visibility("hidden"))) void *collcNext_##Name = nullptr;
COLLC_INTERPOSED_LIST(COLLC_DECLARE)
COLLC_PERSISTENT_LIST(COLLC_DECLARE)
COLLC_LARGE_LIST(COLLC_DECLARE)
#undef COLLC_DECLARE
}

// The exported symbol: a test of collcPassThrough (flags only: no argument
// register is touched) and a tail jump.
#define COLLC_TRAMPOLINE(Name)                                                 \
  asm(".text\n"                                                                \
      ".globl " #Name "\n"                                                     \
      ".type " #Name ", @function\n" #Name ":\n"                               \
      "  cmpb $0, collcPassThrough(%rip)\n"                                    \
      "  jne 1f\n"                                                             \
      "  jmp collcServe_" #Name "\n"                                           \
      "1:\n"                                                                   \
      "  jmp *collcNext_" #Name "(%rip)\n"                                     \
      ".size " #Name ", .-" #Name "\n");
COLLC_INTERPOSED_LIST(COLLC_TRAMPOLINE)
COLLC_PERSISTENT_LIST(COLLC_TRAMPOLINE)
COLLC_LARGE_LIST(COLLC_TRAMPOLINE)
#undef COLLC_TRAMPOLINE

namespace {

#ifdef OMPI_MAJOR_VERSION
constexpr const char *BuildLibrary = "Open MPI";
constexpr const char *BuildMarker = "ompi_mpi_comm_world";
constexpr const char *OtherBuild = "libcollc-mpi-mpich.so";
#else
constexpr const char *BuildLibrary = "MPICH";
constexpr const char *BuildMarker = "MPII_Comm_get_attr";
constexpr const char *OtherBuild = "libcollc-mpi.so";
#endif

/// The file of the MPI library the program's MPI calls reach, when it is
/// not the one this build is for; empty when it is, or when it cannot be
/// told (then collc serves as usual).
std::string foreignLibrary() {
  void *Next = dlsym(RTLD_NEXT, "PMPI_Init");
  Dl_info Info;
  if (!Next || !dladdr(Next, &Info) || !Info.dli_fname)
    return {};
  void *Handle = dlopen(Info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!Handle)
    return {};
  const bool Ours = dlsym(Handle, BuildMarker) != nullptr;
  dlclose(Handle);
  return Ours ? std::string() : std::string(Info.dli_fname);
}

/// Whether this process is rank 0 of its job, as far as the launchers'
/// environment says before MPI_Init (a process no launcher started is).
bool firstOfJob() {
  for (const char *Var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char *V = std::getenv(Var))
      return llvm::StringRef(V) == "0";
  return true;
}

__attribute__((constructor)) void checkProgramLibrary() {
  const std::string Foreign = foreignLibrary();
  if (Foreign.empty())
    return;
  bool Resolved = true;
#define COLLC_RESOLVE(Name)                                                    \
  collcNext_##Name = dlsym(RTLD_NEXT, #Name);                                  \
  Resolved = Resolved && collcNext_##Name;
  COLLC_INTERPOSED_LIST(COLLC_RESOLVE)
#undef COLLC_RESOLVE
  if (!Resolved)
    return; // No MPI library to hand the calls to: nothing to protect.
    // The persistent collectives are the build's library's own names (MPI-4's
    // or Open MPI's MPIX_), and the large-count forms MPI-4's: the other
    // library may not have them, and then its programs do not call them.
#define COLLC_RESOLVE_OPTIONAL(Name) collcNext_##Name = dlsym(RTLD_NEXT, #Name);
  COLLC_PERSISTENT_LIST(COLLC_RESOLVE_OPTIONAL)
  COLLC_LARGE_LIST(COLLC_RESOLVE_OPTIONAL)
#undef COLLC_RESOLVE_OPTIONAL
  collcPassThrough = 1;
  if (firstOfJob())
    say("collc: error: this drop-in library is built for %s, but the "
        "program's MPI library is %s: every collective goes to it untouched; "
        "preload %s instead",
        BuildLibrary, printableText(Foreign).c_str(), OtherBuild);
}

} // namespace
#else
#define COLLC_INTERPOSED(Name) Name
#endif

// ---- the interposers
// ---------------------------------------------------------

// Each collective in its three forms: blocking (MPI_Bcast), non-blocking
// (MPI_Ibcast) and persistent (MPI_Bcast_init, where the MPI library has
// it), by the shape of its arguments (ir/MpiEntries.h): \p Fields lists the
// rt::Call's fields after the collective from the arguments; \p Args the
// arguments themselves. COLLC_FORMS_AS names them: the blocking and the
// non-blocking call after "MPI_" (Bcast, Ibcast), the persistent one's
// suffix (_init), and what COLLC_VERBOSE calls the program's function
// (null: the collective's own name; "Bcast_c" for the large-count forms).
#ifdef COLLC_PERSISTENT
#define COLLC_PERSISTENT_FORM(Coll, InitSuffix, Called, Params, Fields, Args)  \
  int COLLC_INTERPOSED(COLLC_INIT_AS(Coll, InitSuffix))(                       \
      COLLC_UNPAREN Params, MPI_Info info, MPI_Request * request) {            \
    return dispatchFlight(                                                     \
        rt::Call{rt::Coll, COLLC_UNPAREN Fields}, Persistent, request,         \
        [&] {                                                                  \
          return COLLC_PINIT_AS(Coll, InitSuffix)(COLLC_UNPAREN Args, info,    \
                                                  request);                    \
        },                                                                     \
        Via{Called, {}, {}});                                                  \
  }
#else
#define COLLC_PERSISTENT_FORM(Coll, InitSuffix, Called, Params, Fields, Args)
#endif
#define COLLC_UNPAREN COLLC_MPI_UNPAREN
// The MPI library's blocking call MPI_Name, as viaLibrary() runs it.
#define COLLC_BLOCKING_LIBRARY(Name, IName, Args)                              \
  [&] {                                                                        \
    return viaLibrary(                                                         \
        comm, [&] { return PMPI_##Name(COLLC_UNPAREN Args); },                 \
        [&](MPI_Request *Started) {                                            \
          return PMPI_##IName(COLLC_UNPAREN Args, Started);                    \
        });                                                                    \
  }
#define COLLC_FORMS_AS(Coll, Name, IName, InitSuffix, Called, Params, Fields,  \
                       Args)                                                   \
  int COLLC_INTERPOSED(MPI_##Name)(COLLC_UNPAREN Params) {                     \
    return dispatch(rt::Call{rt::Coll, COLLC_UNPAREN Fields},                  \
                    COLLC_BLOCKING_LIBRARY(Name, IName, Args),                 \
                    Via{Called, {}, {}});                                      \
  }                                                                            \
  int COLLC_INTERPOSED(MPI_##IName)(COLLC_UNPAREN Params,                      \
                                    MPI_Request * request) {                   \
    return dispatchFlight(                                                     \
        rt::Call{rt::Coll, COLLC_UNPAREN Fields}, NonBlocking, request,        \
        [&] { return PMPI_##IName(COLLC_UNPAREN Args, request); },             \
        Via{Called, {}, {}});                                                  \
  }                                                                            \
  COLLC_PERSISTENT_FORM(Coll, InitSuffix, Called, Params, Fields, Args)
#define COLLC_FORMS(Coll, ICall, Params, Fields, Args)                         \
  COLLC_FORMS_AS(Coll, Coll, ICall, _init, nullptr, Params, Fields, Args)
#define COLLC_FORMS_OF(Coll, ICall, Shape, Unused)                             \
  COLLC_MPI_APPLY(COLLC_FORMS, Coll, ICall, Shape)
// The large-count forms: MPI_Bcast_c, MPI_Ibcast_c, MPI_Bcast_init_c.
#define COLLC_LARGE_FORMS(Coll, ICall, Params, Fields, Args)                   \
  COLLC_FORMS_AS(Coll, Coll##_c, ICall##_c, _init_c, #Coll "_c", Params,       \
                 Fields, Args)
#define COLLC_LARGE_FORMS_OF(Coll, ICall, Shape, Unused)                       \
  COLLC_MPI_APPLY_LARGE(COLLC_LARGE_FORMS, Coll, ICall, Shape)

// The calls of COLLC_MPI_OTHERS in their three forms, each to its server,
// named as COLLC_FORMS_AS names the collectives' (the server is the
// collective's, Tag: other::Allgatherv serves MPI_Allgatherv_c too).
#ifdef COLLC_PERSISTENT
#define COLLC_OTHER_PERSISTENT_FORM(Tag, InitSuffix, Called, Params, Args,     \
                                    Why)                                       \
  int COLLC_INTERPOSED(COLLC_INIT_AS(Tag, InitSuffix))(                        \
      COLLC_UNPAREN Params, MPI_Info info, MPI_Request * request) {            \
    return serve(                                                              \
        other::Tag{}, Called, Persistent, Why, request,                        \
        [&] {                                                                  \
          return COLLC_PINIT_AS(Tag, InitSuffix)(COLLC_UNPAREN Args, info,     \
                                                 request);                     \
        },                                                                     \
        COLLC_UNPAREN Args);                                                   \
  }
#else
#define COLLC_OTHER_PERSISTENT_FORM(Tag, InitSuffix, Called, Params, Args, Why)
#endif
#define COLLC_OTHER_FORMS_AS(Tag, Name, IName, InitSuffix, Called, Params,     \
                             Args, Why)                                        \
  int COLLC_INTERPOSED(MPI_##Name)(COLLC_UNPAREN Params) {                     \
    return serve(other::Tag{}, Called, Blocking, Why, nullptr,                 \
                 COLLC_BLOCKING_LIBRARY(Name, IName, Args),                    \
                 COLLC_UNPAREN Args);                                          \
  }                                                                            \
  int COLLC_INTERPOSED(MPI_##IName)(COLLC_UNPAREN Params,                      \
                                    MPI_Request * request) {                   \
    return serve(                                                              \
        other::Tag{}, Called, NonBlocking, Why, request,                       \
        [&] { return PMPI_##IName(COLLC_UNPAREN Args, request); },             \
        COLLC_UNPAREN Args);                                                   \
  }                                                                            \
  COLLC_OTHER_PERSISTENT_FORM(Tag, InitSuffix, Called, Params, Args, Why)
#define COLLC_OTHER_FORMS(Coll, ICall, Params, Args, Why)                      \
  COLLC_OTHER_FORMS_AS(Coll, Coll, ICall, _init, #Coll, Params, Args, Why)
#define COLLC_OTHER_APPLY(F, Coll, ICall, Params, Args, Why)                   \
  F(Coll, ICall, Params, Args, Why)
#define COLLC_OTHER_APPLY_(...) COLLC_OTHER_APPLY(__VA_ARGS__)
#define COLLC_OTHER_FORMS_OF(Coll, ICall, Shape, Why, Unused)                  \
  COLLC_OTHER_APPLY_(COLLC_OTHER_FORMS, Coll, ICall, Shape(int, int), Why)
// The large-count forms: MPI_Allgatherv_c, MPI_Iallgatherv_c,
// MPI_Allgatherv_init_c.
#define COLLC_OTHER_LARGE_FORMS(Coll, ICall, Params, Args, Why)                \
  COLLC_OTHER_FORMS_AS(Coll, Coll##_c, ICall##_c, _init_c, #Coll "_c", Params, \
                       Args, Why)
#define COLLC_OTHER_LARGE_FORMS_OF(Coll, ICall, Shape, Why, Unused)            \
  COLLC_OTHER_APPLY_(COLLC_OTHER_LARGE_FORMS, Coll, ICall,                     \
                     Shape(MPI_Count, MPI_Aint), Why)

extern "C" {

COLLC_MPI_COLLECTIVES(COLLC_FORMS_OF, )
#ifdef COLLC_LARGE_COUNT
COLLC_MPI_COLLECTIVES(COLLC_LARGE_FORMS_OF, )
#endif
COLLC_MPI_OTHERS(COLLC_OTHER_FORMS_OF, )
#ifdef COLLC_LARGE_COUNT
COLLC_MPI_OTHERS(COLLC_OTHER_LARGE_FORMS_OF, )
#endif

// ---- requests: every call that tests or completes one moves collc's runs
// on (see "non-blocking and persistent calls" above).

int COLLC_INTERPOSED(MPI_Wait)(MPI_Request *request, MPI_Status *status) {
  if (idle())
    return PMPI_Wait(request, status);
  return waitOne(request, status);
}

int COLLC_INTERPOSED(MPI_Test)(MPI_Request *request, int *flag,
                               MPI_Status *status) {
  if (idle())
    return PMPI_Test(request, flag, status);
  return testOne(request, flag, status);
}

int COLLC_INTERPOSED(MPI_Request_get_status)(MPI_Request request, int *flag,
                                             MPI_Status *status) {
  if (!idle()) {
    progress();
    if (hidden(request)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  return PMPI_Request_get_status(request, flag, status);
}

int COLLC_INTERPOSED(MPI_Waitany)(int count, MPI_Request requests[], int *index,
                                  MPI_Status *status) {
  if (idle())
    return PMPI_Waitany(count, requests, index, status);
  return poll(
      [&](bool &Over) {
        int Flag = 0;
        int Err = testAny(count, requests, index, &Flag, status);
        Over = Flag;
        return Err;
      },
      [&] { return PMPI_Waitany(count, requests, index, status); });
}

int COLLC_INTERPOSED(MPI_Testany)(int count, MPI_Request requests[], int *index,
                                  int *flag, MPI_Status *status) {
  if (idle())
    return PMPI_Testany(count, requests, index, flag, status);
  return testAny(count, requests, index, flag, status);
}

int COLLC_INTERPOSED(MPI_Waitall)(int count, MPI_Request requests[],
                                  MPI_Status statuses[]) {
  if (idle())
    return PMPI_Waitall(count, requests, statuses);
  return poll(
      [&](bool &Over) {
        int Flag = 0;
        int Err = testAll(count, requests, &Flag, statuses);
        Over = Flag;
        return Err;
      },
      [&] { return PMPI_Waitall(count, requests, statuses); });
}

int COLLC_INTERPOSED(MPI_Testall)(int count, MPI_Request requests[], int *flag,
                                  MPI_Status statuses[]) {
  if (idle())
    return PMPI_Testall(count, requests, flag, statuses);
  return testAll(count, requests, flag, statuses);
}

int COLLC_INTERPOSED(MPI_Waitsome)(int incount, MPI_Request requests[],
                                   int *outcount, int indices[],
                                   MPI_Status statuses[]) {
  if (idle())
    return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  return poll(
      [&](bool &Over) {
        int Err = testSome(incount, requests, outcount, indices, statuses);
        Over = *outcount != 0;
        return Err;
      },
      [&] {
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
      });
}

int COLLC_INTERPOSED(MPI_Testsome)(int incount, MPI_Request requests[],
                                   int *outcount, int indices[],
                                   MPI_Status statuses[]) {
  if (idle())
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  return testSome(incount, requests, outcount, indices, statuses);
}

int COLLC_INTERPOSED(MPI_Request_free)(MPI_Request *request) {
  Flights &Q = TheFlights;
  auto It =
      request && Q.Busy == 0 ? Q.Persistent.find(*request) : Q.Persistent.end();
  if (It == Q.Persistent.end())
    return PMPI_Request_free(request);
  Flight *F = It->second;
  *request = MPI_REQUEST_NULL;
  if (F->Started) { // freed in flight: gone once its run is over
    F->FreeWhenDone = true;
    return MPI_SUCCESS;
  }
  Q.Persistent.erase(It);
  spare(F->Handle);
  delete F;
  return MPI_SUCCESS;
}

/// Starts collc's persistent request \p F.
int startFlight(Flight &F) {
  if (F.Started)
    return rt::reportError(
        F.Run->call().Comm,
        rt::fail(MPI_ERR_REQUEST,
                 "collc: MPI_Start of a persistent %s that is still active",
                 rt::collName(F.Run->call().Collective)));
  sayServed(state(), F.Run->call(), Persistent, F.D, "MPI_Start of ", F.Called);
  launch(F);
  return MPI_SUCCESS;
}

int COLLC_INTERPOSED(MPI_Start)(MPI_Request *request) {
  Flights &Q = TheFlights;
  bury();
  auto It =
      request && Q.Busy == 0 ? Q.Persistent.find(*request) : Q.Persistent.end();
  if (It == Q.Persistent.end())
    return PMPI_Start(request);
  return startFlight(*It->second);
}

int COLLC_INTERPOSED(MPI_Startall)(int count, MPI_Request requests[]) {
  Flights &Q = TheFlights;
  bury();
  if (Q.Persistent.empty() || Q.Busy)
    return PMPI_Startall(count, requests);
  // collc's in the array's order (the order of their starts on every rank),
  // the others each with MPI_Start.
  for (int I = 0; I < count; ++I) {
    auto It = Q.Persistent.find(requests[I]);
    int Err = It == Q.Persistent.end() ? PMPI_Start(&requests[I])
                                       : startFlight(*It->second);
    if (Err != MPI_SUCCESS)
      return Err;
  }
  return MPI_SUCCESS;
}

// ---- blocking point-to-point calls: while collc has runs in flight, each
// is its non-blocking form and a wait that moves them on (MPI defines it so),
// so that a rank that waits for a message still forwards what other ranks'
// runs wait for: they may be what the message waits for.

namespace {

using SendFn = int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
using IsendFn = int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm,
                        MPI_Request *);

/// A blocking send (MPI_Send, MPI_Ssend): \p Blocking itself, or its
/// non-blocking form \p NonBlocking and a wait.
int blockingSend(SendFn Blocking, IsendFn NonBlocking, const void *buf,
                 int count, MPI_Datatype type, int dest, int tag,
                 MPI_Comm comm) {
  if (idle())
    return Blocking(buf, count, type, dest, tag, comm);
  return postAndWait([&](MPI_Request *R) {
    return NonBlocking(buf, count, type, dest, tag, comm, R);
  });
}

} // namespace

int COLLC_INTERPOSED(MPI_Send)(const void *buf, int count, MPI_Datatype type,
                               int dest, int tag, MPI_Comm comm) {
  return blockingSend(PMPI_Send, PMPI_Isend, buf, count, type, dest, tag, comm);
}

int COLLC_INTERPOSED(MPI_Ssend)(const void *buf, int count, MPI_Datatype type,
                                int dest, int tag, MPI_Comm comm) {
  return blockingSend(PMPI_Ssend, PMPI_Issend, buf, count, type, dest, tag,
                      comm);
}

int COLLC_INTERPOSED(MPI_Recv)(void *buf, int count, MPI_Datatype type,
                               int source, int tag, MPI_Comm comm,
                               MPI_Status *status) {
  if (idle())
    return PMPI_Recv(buf, count, type, source, tag, comm, status);
  return postAndWait(
      [&](MPI_Request *R) {
        return PMPI_Irecv(buf, count, type, source, tag, comm, R);
      },
      status);
}

int COLLC_INTERPOSED(MPI_Sendrecv)(const void *sendbuf, int sendcount,
                                   MPI_Datatype sendtype, int dest, int sendtag,
                                   void *recvbuf, int recvcount,
                                   MPI_Datatype recvtype, int source,
                                   int recvtag, MPI_Comm comm,
                                   MPI_Status *status) {
  if (idle())
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                         recvcount, recvtype, source, recvtag, comm, status);
  MPI_Request R[2];
  int Err =
      PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &R[0]);
  if (Err != MPI_SUCCESS)
    return Err;
  if ((Err = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm,
                        &R[1])) != MPI_SUCCESS) {
    PMPI_Cancel(&R[0]);
    PMPI_Request_free(&R[0]);
    return Err;
  }
  if ((Err = waitOne(&R[1], MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
    PMPI_Cancel(&R[0]);
    PMPI_Request_free(&R[0]);
    return Err;
  }
  return waitOne(&R[0], status);
}

int COLLC_INTERPOSED(MPI_Probe)(int source, int tag, MPI_Comm comm,
                                MPI_Status *status) {
  if (idle())
    return PMPI_Probe(source, tag, comm, status);
  return poll(
      [&](bool &Over) {
        progress();
        int Flag = 0;
        int Err = PMPI_Iprobe(source, tag, comm, &Flag, status);
        Over = Flag;
        return Err;
      },
      [&] { return PMPI_Probe(source, tag, comm, status); });
}

int COLLC_INTERPOSED(MPI_Finalize)(void) {
  // Runs the program freed in flight end before MPI does.
  while (progress() > 0)
    sched_yield();
  hookLibraryProgress(false);
  bury();
  for (MPI_Request &R : TheFlights.Spare)
    PMPI_Request_free(&R);
  TheFlights.Spare.clear();
  return PMPI_Finalize();
}

} // extern "C"
