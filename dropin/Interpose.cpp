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

#include "dropin/Engine.h"
#include "ir/Escape.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

using namespace collc;

namespace {

/// What the library knows of a communicator, cached on it.
struct CommInfo {
  int32_t Layout = 0;
  /// Why no schedule can serve it (empty when they can).
  std::string Error;
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
  std::atomic<bool> FailureSaid[rt::Barrier + 1] = {};
  /// Whether a cache file that failed a check was said (once).
  std::atomic<bool> CacheSaid{false};
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
const CommInfo *commInfo(State &S, MPI_Comm Comm, int Size) {
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

/// Runs the call in the MPI library, saying why under COLLC_VERBOSE.
template <typename Fn>
int pass(const State &S, const rt::Call &C, int Rank, const char *Why,
         Fn &&Library) {
  if (reports(S, Rank))
    say("%s; %s of the MPI library runs", printableText(Why).c_str(),
        rt::mpiName(C.Collective));
  return Library();
}

/// The common path of every interposer.
template <typename Fn> int dispatch(const rt::Call &C, Fn &&Library) {
  State &S = state();
  int Rank = 0;
  if (S.Config.Verbose && C.Comm != MPI_COMM_NULL &&
      (!S.Engine || !S.Config.TakeOver[C.Collective]))
    MPI_Comm_rank(C.Comm, &Rank);
  if (!S.Engine)
    return pass(S, C, Rank, "collc: not in use (see its error above)", Library);
  if (!S.Config.TakeOver[C.Collective]) {
    std::string Why = std::string("collc: ") + rt::collName(C.Collective) +
                      " is not taken over (COLLC_COLLECTIVES)";
    return pass(S, C, Rank, Why.c_str(), Library);
  }
  rt::Shape Sh;
  int Code = MPI_SUCCESS;
  if (!rt::shapeOf(C, Sh, Code))
    return pass(S, C, Sh.Rank, rt::lastError(), Library);
  const CommInfo *Info = commInfo(S, C.Comm, Sh.Size);
  if (!Info)
    return pass(S, C, Sh.Rank,
                "collc: cannot keep an attribute on the communicator", Library);
  if (!Info->Error.empty()) {
    std::string Why = std::string("collc: ") + rt::collName(C.Collective) +
                      " on " + std::to_string(Sh.Size) +
                      " ranks: " + Info->Error;
    return pass(S, C, Sh.Rank, Why.c_str(), Library);
  }
  dropin::Key K;
  K.Coll = C.Collective;
  K.Layout = Info->Layout;
  K.Root = rt::isRooted(C.Collective) ? C.Root : 0;
  K.Band = C.Collective == rt::Barrier ? 0 : powerOfTwoBand(Sh.Bytes);
  K.Commutative = !rt::isReduction(C.Collective) || Sh.Commute;
  const dropin::Entry &E = S.Engine->get(K);
  // Said once, on rank 0 of the communicator, without COLLC_VERBOSE: a
  // cache file that failed a check, and the first kind of a collective that
  // collc cannot serve (it then serves less than asked).
  if (!E.CacheNote.empty() && Sh.Rank == 0 && !S.CacheSaid.exchange(true))
    sayText("collc: note: ", E.CacheNote);
  if (!E.Error.empty()) {
    std::string Why = std::string("collc: no ") + rt::collName(C.Collective) +
                      " schedule for " + std::to_string(Sh.Size) +
                      " ranks and " + std::to_string(Sh.Bytes) +
                      " bytes: " + E.Error;
    if (!reports(S, Sh.Rank) && Sh.Rank == 0 &&
        !S.FailureSaid[C.Collective].exchange(true)) {
      sayText("", Why);
      say("collc: such %s calls run in the MPI library (COLLC_VERBOSE=1 "
          "reports each)",
          rt::collName(C.Collective));
    }
    return pass(S, C, Sh.Rank, Why.c_str(), Library);
  }
  if (reports(S, Sh.Rank)) {
    std::string Rank =
        S.Config.Verbose == 2 ? " (rank " + std::to_string(Sh.Rank) + ")" : "";
    if (C.Collective == rt::Barrier)
      say("collc: barrier '%s' on %d ranks%s",
          printableText(E.Algorithm).c_str(), Sh.Size, Rank.c_str());
    else
      say("collc: %s '%s' on %d ranks, %llu bytes%s, schedule for "
          "%llu..%llu bytes%s",
          rt::collName(C.Collective), printableText(E.Algorithm).c_str(),
          Sh.Size, (unsigned long long)Sh.Bytes,
          K.Commutative ? "" : ", non-commutative operator in rank order",
          (unsigned long long)E.Variant.MinBytes,
          (unsigned long long)E.Variant.MaxBytes, Rank.c_str());
  }
  Code = rt::execute(E.Variant, C, Sh.Bytes, Sh.Unit, Sh.Rank);
  if (Code != MPI_SUCCESS && S.Config.Verbose)
    say("%s (rank %d)", printableText(rt::lastError()).c_str(), Sh.Rank);
  return rt::reportError(C.Comm, Code);
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

#ifdef COLLC_ABI_GUARD
// collc's interposer of Name, reached through the trampoline below.
#define COLLC_INTERPOSED(Name)                                                 \
  __attribute__((visibility("hidden"), used)) collcServe_##Name

// The interposed collectives, one X(Name) each.
#define COLLC_INTERPOSED_LIST(X)                                               \
  X(MPI_Bcast)                                                                 \
  X(MPI_Reduce)                                                                \
  X(MPI_Allreduce)                                                             \
  X(MPI_Scan)                                                                  \
  X(MPI_Exscan)                                                                \
  X(MPI_Gather)                                                                \
  X(MPI_Scatter)                                                               \
  X(MPI_Allgather)                                                             \
  X(MPI_Alltoall)                                                              \
  X(MPI_Barrier)

extern "C" {
/// Nonzero when the program's MPI library is not this build's: every
/// interposed symbol jumps to the library's own function.
__attribute__((visibility("hidden"))) unsigned char collcPassThrough = 0;
#define COLLC_DECLARE(Name)                                                    \
  __attribute__((visibility("hidden"))) void *collcNext_##Name = nullptr;
COLLC_INTERPOSED_LIST(COLLC_DECLARE)
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

extern "C" {

int COLLC_INTERPOSED(MPI_Bcast)(void *buf, int count, MPI_Datatype type,
                                int root, MPI_Comm comm) {
  const rt::Call C = {rt::Bcast, buf,  count,       type, buf,
                      count,     type, MPI_OP_NULL, root, comm};
  return dispatch(C, [&] { return PMPI_Bcast(buf, count, type, root, comm); });
}

int COLLC_INTERPOSED(MPI_Reduce)(const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype type, MPI_Op op, int root,
                                 MPI_Comm comm) {
  const rt::Call C = {rt::Reduce, sendbuf, count, type, recvbuf,
                      count,      type,    op,    root, comm};
  return dispatch(C, [&] {
    return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  });
}

int COLLC_INTERPOSED(MPI_Allreduce)(const void *sendbuf, void *recvbuf,
                                    int count, MPI_Datatype type, MPI_Op op,
                                    MPI_Comm comm) {
  const rt::Call C = {rt::Allreduce, sendbuf, count, type, recvbuf,
                      count,         type,    op,    0,    comm};
  return dispatch(C, [&] {
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  });
}

int COLLC_INTERPOSED(MPI_Scan)(const void *sendbuf, void *recvbuf, int count,
                               MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const rt::Call C = {rt::Scan, sendbuf, count, type, recvbuf,
                      count,    type,    op,    0,    comm};
  return dispatch(
      C, [&] { return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm); });
}

int COLLC_INTERPOSED(MPI_Exscan)(const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const rt::Call C = {rt::Exscan, sendbuf, count, type, recvbuf,
                      count,      type,    op,    0,    comm};
  return dispatch(
      C, [&] { return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm); });
}

int COLLC_INTERPOSED(MPI_Gather)(const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm) {
  const rt::Call C = {rt::Gather, sendbuf,  sendcount,   sendtype, recvbuf,
                      recvcount,  recvtype, MPI_OP_NULL, root,     comm};
  return dispatch(C, [&] {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, root, comm);
  });
}

int COLLC_INTERPOSED(MPI_Scatter)(const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype,
                                  int root, MPI_Comm comm) {
  const rt::Call C = {rt::Scatter, sendbuf,  sendcount,   sendtype, recvbuf,
                      recvcount,   recvtype, MPI_OP_NULL, root,     comm};
  return dispatch(C, [&] {
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, root, comm);
  });
}

int COLLC_INTERPOSED(MPI_Allgather)(const void *sendbuf, int sendcount,
                                    MPI_Datatype sendtype, void *recvbuf,
                                    int recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm) {
  const rt::Call C = {rt::Allgather, sendbuf,  sendcount,   sendtype, recvbuf,
                      recvcount,     recvtype, MPI_OP_NULL, 0,        comm};
  return dispatch(C, [&] {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, comm);
  });
}

int COLLC_INTERPOSED(MPI_Alltoall)(const void *sendbuf, int sendcount,
                                   MPI_Datatype sendtype, void *recvbuf,
                                   int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm) {
  const rt::Call C = {rt::Alltoall, sendbuf,  sendcount,   sendtype, recvbuf,
                      recvcount,    recvtype, MPI_OP_NULL, 0,        comm};
  return dispatch(C, [&] {
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         recvtype, comm);
  });
}

int COLLC_INTERPOSED(MPI_Barrier)(MPI_Comm comm) {
  const rt::Call C = {rt::Barrier, nullptr,  0,           MPI_BYTE, nullptr,
                      0,           MPI_BYTE, MPI_OP_NULL, 0,        comm};
  return dispatch(C, [&] { return PMPI_Barrier(comm); });
}

} // extern "C"
