//===- coll_bench.cpp: one collective, every implementation, one launch ---===//
//
// Times one collective at several sizes under every implementation a single
// Open MPI launch offers, interleaved so that each one's runs share the same
// moments of a shared machine and their ratios are fair:
//  - "collc": MPI_Bcast (MPI_Allreduce, ...) on MPI_COMM_WORLD, which is
//    collc's drop-in library when it is preloaded (checked: the symbol must
//    come from libcollc-mpi);
//  - "generated" (built with -DCOLLC_GENERATED and a file from
//    `collc --emit mpi --mpi-name tb`): collc_bcast_tb (...);
//  - "ompi:default": PMPI_Bcast on a duplicate of MPI_COMM_WORLD made while
//    coll/tuned's forced algorithm was 0, i.e. Open MPI's own choice;
//  - "ompi:<algorithm>[/<segment bytes>]": PMPI_Bcast on a duplicate made
//    after coll_tuned_<collective>_algorithm (and _algorithm_segmentsize)
//    were written through MPI_T: coll/tuned reads them when a communicator
//    is made. The algorithms are listed from the variable's enumeration, so
//    every algorithm of the library at hand is tried. Needs
//    --mca coll_tuned_use_dynamic_rules 1 (checked).
//
// Each measurement is one call's makespan: every rank sleeps until an agreed
// moment of the host's monotonic clock (the ranks share one host, so one
// clock), calls, and the latest rank's end minus that moment is the time.
// The first round is a warm-up (it also builds collc's schedules); an Open
// MPI variant whose warm-up took more than --prune times the fastest Open
// MPI warm-up of the size, and over 50 ms, is not run again (reported as
// pruned with that one time; never the default). Sizes below 256 KiB get
// three times --runs. Every call's result is checked outside the timed
// region.
//
// Sizes are bytes per rank: the broadcast buffer, the reduced vector
// (int32, sum), and for allgather and all-to-all the whole receive buffer of
// a rank, P blocks of size / P bytes.
//
//   coll_bench --collective bcast|allreduce|allgather|alltoall
//              --sizes 1024,4096,... [--runs 5] [--segments 0,16384,131072]
//              [--prune 3] [--variants collc,generated,default,forced]
//
// Output (rank 0, stdout), one line per size and variant:
//   cell <collective> <ranks> <bytes> <variant> <median µs> <min> <max> <runs>
//   pruned <collective> <ranks> <bytes> <variant> <warm-up µs>
//
//===----------------------------------------------------------------------===//

#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#ifdef COLLC_GENERATED
// Weak: a generated file holds the entry points of the collectives it was
// made for only.
extern "C" {
__attribute__((weak)) int collc_bcast_tb(void *, int, MPI_Datatype, int,
                                         MPI_Comm);
__attribute__((weak)) int collc_allreduce_tb(const void *, void *, int,
                                             MPI_Datatype, MPI_Op, MPI_Comm);
__attribute__((weak)) int collc_allgather_tb(const void *, int, MPI_Datatype,
                                             void *, int, MPI_Datatype,
                                             MPI_Comm);
__attribute__((weak)) int collc_alltoall_tb(const void *, int, MPI_Datatype,
                                            void *, int, MPI_Datatype,
                                            MPI_Comm);
}
#endif

namespace {

int Rank = 0, Size = 1;
/// Pruning by the warm-up only for calls longer than this (µs).
constexpr double PruneFloorUs = 50000;
/// Sizes below this get three times the runs.
constexpr long SmallBytes = 262144;

[[noreturn]] void fail(const std::string &Msg) {
  std::fprintf(stderr, "coll_bench: error: %s\n", Msg.c_str());
  PMPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

double now() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

void sleepUntil(double T) {
  timespec Ts;
  Ts.tv_sec = static_cast<time_t>(T);
  Ts.tv_nsec = static_cast<long>((T - Ts.tv_sec) * 1e9);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &Ts, nullptr) != 0) {
  }
}

std::vector<long> parseList(const char *Opt, const char *Text) {
  std::vector<long> Out;
  std::string S(Text);
  size_t Pos = 0;
  while (Pos <= S.size()) {
    size_t Comma = S.find(',', Pos);
    std::string Item = S.substr(Pos, Comma == std::string::npos ? std::string::npos
                                                               : Comma - Pos);
    char *End = nullptr;
    long V = std::strtol(Item.c_str(), &End, 10);
    if (Item.empty() || *End || V < 0 || V > (1L << 31))
      fail(std::string(Opt) + ": expected a list of byte counts such as "
                              "1024,65536, got '" + Text + "'");
    Out.push_back(V);
    if (Comma == std::string::npos)
      break;
    Pos = Comma + 1;
  }
  return Out;
}

// ---- MPI_T: coll/tuned's control variables --------------------------------

int cvarIndex(const std::string &Name) {
  int Index = -1;
  if (MPI_T_cvar_get_index(Name.c_str(), &Index) != MPI_SUCCESS)
    fail("Open MPI has no control variable " + Name +
         " (is coll/tuned there?)");
  return Index;
}

void cvarWrite(const std::string &Name, int Value) {
  MPI_T_cvar_handle H;
  int Count = 0;
  if (MPI_T_cvar_handle_alloc(cvarIndex(Name), nullptr, &H, &Count) !=
          MPI_SUCCESS ||
      MPI_T_cvar_write(H, &Value) != MPI_SUCCESS)
    fail("cannot write " + Name + " through MPI_T");
  int Back = -1;
  MPI_T_cvar_read(H, &Back);
  MPI_T_cvar_handle_free(&H);
  if (Back != Value)
    fail(Name + " reads back " + std::to_string(Back) + " after writing " +
         std::to_string(Value));
}

int cvarRead(const std::string &Name) {
  MPI_T_cvar_handle H;
  int Count = 0, Value = 0;
  if (MPI_T_cvar_handle_alloc(cvarIndex(Name), nullptr, &H, &Count) !=
          MPI_SUCCESS ||
      MPI_T_cvar_read(H, &Value) != MPI_SUCCESS)
    fail("cannot read " + Name + " through MPI_T");
  MPI_T_cvar_handle_free(&H);
  return Value;
}

/// The values and names of an enumerated control variable.
std::vector<std::pair<int, std::string>> cvarEnum(const std::string &Name) {
  char VarName[256], Desc[1024];
  int NameLen = sizeof VarName, DescLen = sizeof Desc, Verbosity, Bind, Scope;
  MPI_Datatype Type;
  MPI_T_enum Enum;
  if (MPI_T_cvar_get_info(cvarIndex(Name), VarName, &NameLen, &Verbosity,
                          &Type, &Enum, Desc, &DescLen, &Bind,
                          &Scope) != MPI_SUCCESS ||
      Enum == MPI_T_ENUM_NULL)
    fail(Name + " has no enumeration of its values");
  char EnumName[256];
  int Num = 0, Len = sizeof EnumName;
  MPI_T_enum_get_info(Enum, &Num, EnumName, &Len);
  std::vector<std::pair<int, std::string>> Out;
  for (int I = 0; I < Num; ++I) {
    char Item[256];
    int Value = 0, ItemLen = sizeof Item;
    MPI_T_enum_get_item(Enum, I, &Value, Item, &ItemLen);
    Out.push_back({Value, Item});
  }
  return Out;
}

/// Whether Open MPI's forced algorithm \p Alg of \p Coll cuts the message
/// in segments of coll_tuned_<coll>_algorithm_segmentsize (Open MPI 4.1's
/// ompi_coll_tuned_<coll>_intra_do_this passes it to these only).
bool segments(const std::string &Coll, const std::string &Alg) {
  if (Coll == "bcast")
    return Alg == "chain" || Alg == "pipeline" || Alg == "split_binary_tree" ||
           Alg == "binary_tree" || Alg == "binomial" || Alg == "knomial";
  if (Coll == "allreduce")
    return Alg == "segmented_ring";
  return false;
}

// ---- the collectives, their data and checks --------------------------------

struct Buffers {
  std::vector<unsigned char> Send, Recv;
};

/// The byte a rank's data holds at index I in run \p Run (bcast: the root's
/// buffer; allgather and all-to-all: block of \p From for \p To).
unsigned char pattern(long I, int From, int To, int Run) {
  return static_cast<unsigned char>(I * 7 + From * 31 + To * 13 + Run * 5 + 1);
}

struct Collective {
  std::string Name;
  long Bytes = 0; ///< bytes per rank (see the file comment)
  long Count = 0; ///< the count of the call
  MPI_Datatype Type = MPI_BYTE;

  Collective(std::string N, long B) : Name(std::move(N)), Bytes(B) {
    if (Name == "allreduce") {
      Type = MPI_INT;
      Count = std::max(1L, B / 4);
    } else if (Name == "allgather" || Name == "alltoall") {
      Count = std::max(1L, B / Size);
    } else {
      Count = B;
    }
  }

  void prepare(Buffers &Buf, int Run) const {
    if (Name == "bcast") {
      Buf.Send.assign(Count, 0);
      if (Rank == 0)
        for (long I = 0; I < Count; ++I)
          Buf.Send[I] = pattern(I, 0, 0, Run);
    } else if (Name == "allreduce") {
      Buf.Send.resize(Count * 4);
      Buf.Recv.assign(Count * 4, 0);
      int32_t *S = reinterpret_cast<int32_t *>(Buf.Send.data());
      for (long I = 0; I < Count; ++I)
        S[I] = (Rank + 1) * static_cast<int32_t>(I % 7 + Run);
    } else if (Name == "allgather") {
      Buf.Send.resize(Count);
      Buf.Recv.assign(Count * Size, 0);
      for (long I = 0; I < Count; ++I)
        Buf.Send[I] = pattern(I, Rank, 0, Run);
    } else {
      Buf.Send.resize(Count * Size);
      Buf.Recv.assign(Count * Size, 0);
      for (int D = 0; D < Size; ++D)
        for (long I = 0; I < Count; ++I)
          Buf.Send[D * Count + I] = pattern(I, Rank, D, Run);
    }
  }

  bool check(const Buffers &Buf, int Run) const {
    if (Name == "bcast") {
      for (long I = 0; I < Count; ++I)
        if (Buf.Send[I] != pattern(I, 0, 0, Run))
          return false;
    } else if (Name == "allreduce") {
      const int32_t *R = reinterpret_cast<const int32_t *>(Buf.Recv.data());
      const int32_t Ranks = Size * (Size + 1) / 2;
      for (long I = 0; I < Count; ++I)
        if (R[I] != Ranks * static_cast<int32_t>(I % 7 + Run))
          return false;
    } else if (Name == "allgather") {
      for (int F = 0; F < Size; ++F)
        for (long I = 0; I < Count; ++I)
          if (Buf.Recv[F * Count + I] != pattern(I, F, 0, Run))
            return false;
    } else {
      for (int F = 0; F < Size; ++F)
        for (long I = 0; I < Count; ++I)
          if (Buf.Recv[F * Count + I] != pattern(I, F, Rank, Run))
            return false;
    }
    return true;
  }
};

using CallFn = std::function<int(Buffers &)>;

/// One implementation of the four collectives, with MPI's signatures.
struct Api {
  int (*Bcast)(void *, int, MPI_Datatype, int, MPI_Comm);
  int (*Allreduce)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
  int (*Allgather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
                   MPI_Comm);
  int (*Alltoall)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
                  MPI_Comm);
};

/// The MPI_ entry points: collc's when its drop-in is preloaded.
const Api Mpi = {MPI_Bcast, MPI_Allreduce, MPI_Allgather, MPI_Alltoall};
/// The MPI library's own, whatever is preloaded.
const Api Pmpi = {PMPI_Bcast, PMPI_Allreduce, PMPI_Allgather, PMPI_Alltoall};
#ifdef COLLC_GENERATED
/// collc's generated code (`--emit mpi --mpi-name tb`).
const Api Generated = {collc_bcast_tb, collc_allreduce_tb, collc_allgather_tb,
                       collc_alltoall_tb};
#endif

/// The call of \p C through \p A on \p Comm.
CallFn callOf(const Collective &C, const Api &A, MPI_Comm Comm) {
  if (C.Name == "bcast")
    return [=](Buffers &B) {
      return A.Bcast(B.Send.data(), C.Count, C.Type, 0, Comm);
    };
  if (C.Name == "allreduce")
    return [=](Buffers &B) {
      return A.Allreduce(B.Send.data(), B.Recv.data(), C.Count, C.Type,
                         MPI_SUM, Comm);
    };
  auto Fn = C.Name == "allgather" ? A.Allgather : A.Alltoall;
  return [=](Buffers &B) {
    return Fn(B.Send.data(), C.Count, C.Type, B.Recv.data(), C.Count, C.Type,
              Comm);
  };
}

struct Variant {
  Variant(std::string N, MPI_Comm C, bool L = false)
      : Name(std::move(N)), Comm(C), Library(L) {}
  std::string Name;
  MPI_Comm Comm = MPI_COMM_WORLD;
  bool Library = false; ///< an Open MPI variant (pruned by the warm-up)
  bool Pruned = false;
  double Warmup = 0;
  std::vector<double> Times;
};

/// One timed call of \p Call: its makespan in µs from an agreed start.
double timeOnce(const CallFn &Call, Buffers &Buf, const Collective &C,
                int Run, const std::string &What) {
  for (int Attempt = 0;; ++Attempt) {
    C.prepare(Buf, Run);
    PMPI_Barrier(MPI_COMM_WORLD);
    // 20 ms ahead of rank 0's clock: enough for the start to reach every
    // rank first even on a loaded host; a rank that gets it late says so
    // and the call is timed again.
    double Start = now() + 0.02;
    PMPI_Bcast(&Start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int Late = now() > Start, AnyLate = 0;
    sleepUntil(Start);
    int Rc = Call(Buf);
    double End = now();
    if (Rc != MPI_SUCCESS)
      fail(What + " returned " + std::to_string(Rc));
    int Wrong = !C.check(Buf, Run), AnyWrong = 0;
    PMPI_Allreduce(&Wrong, &AnyWrong, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (AnyWrong)
      fail(What + " delivered wrong data (" + C.Name + ", " +
           std::to_string(C.Bytes) + " bytes, run " + std::to_string(Run) +
           ")");
    PMPI_Allreduce(&Late, &AnyLate, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    double Span = End - Start, Max = 0;
    PMPI_Allreduce(&Span, &Max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (!AnyLate || Attempt == 5)
      return Max * 1e6;
  }
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

} // namespace

int main(int argc, char **argv) {
  int Provided = 0;
  MPI_Init(&argc, &argv);
  MPI_T_init_thread(MPI_THREAD_SINGLE, &Provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);

  std::string Coll, Wanted = "collc,default,forced";
  std::vector<long> Sizes, Segments = {0, 16384, 131072};
  int Runs = 5;
  double Prune = 3;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    const char *V = I + 1 < argc ? argv[I + 1] : nullptr;
    if (!V)
      fail("option " + A + " needs a value");
    ++I;
    if (A == "--collective")
      Coll = V;
    else if (A == "--sizes")
      Sizes = parseList("--sizes", V);
    else if (A == "--segments")
      Segments = parseList("--segments", V);
    else if (A == "--runs")
      Runs = std::atoi(V);
    else if (A == "--prune")
      Prune = std::atof(V);
    else if (A == "--variants")
      Wanted = V;
    else
      fail("unknown option " + A + "; expected --collective, --sizes, "
           "--runs, --segments, --prune or --variants");
  }
  if (Coll != "bcast" && Coll != "allreduce" && Coll != "allgather" &&
      Coll != "alltoall")
    fail("--collective: expected bcast, allreduce, allgather or alltoall, "
         "got '" + Coll + "'");
  if (Sizes.empty() || Runs < 1 || Prune <= 1)
    fail("expected --sizes, --runs of at least 1 and --prune above 1");
  auto wants = [&](const char *W) {
    return ("," + Wanted + ",").find(std::string(",") + W + ",") !=
           std::string::npos;
  };

  std::vector<Variant> Variants;
  if (wants("collc")) {
    // The MPI_ symbol must be the drop-in's, or this column is a lie.
    Dl_info Info;
    void *Sym = Coll == "bcast"       ? reinterpret_cast<void *>(Mpi.Bcast)
                : Coll == "allreduce" ? reinterpret_cast<void *>(Mpi.Allreduce)
                : Coll == "allgather" ? reinterpret_cast<void *>(Mpi.Allgather)
                                      : reinterpret_cast<void *>(Mpi.Alltoall);
    if (!dladdr(Sym, &Info) || !Info.dli_fname ||
        !std::strstr(Info.dli_fname, "libcollc-mpi"))
      fail("the collc variant needs LD_PRELOAD of libcollc-mpi.so (MPI_" +
           Coll + " comes from " +
           (Info.dli_fname ? Info.dli_fname : std::string("?")) + ")");
    Variants.emplace_back("collc", MPI_COMM_WORLD);
  }
#ifdef COLLC_GENERATED
  if (wants("generated")) {
    const void *Fn = Coll == "bcast"       ? (const void *)Generated.Bcast
                     : Coll == "allreduce" ? (const void *)Generated.Allreduce
                     : Coll == "allgather" ? (const void *)Generated.Allgather
                                           : (const void *)Generated.Alltoall;
    if (!Fn)
      fail("the generated code has no " + Coll + " (collc_" + Coll + "_tb)");
    Variants.emplace_back("generated", MPI_COMM_WORLD);
  }
#else
  if (wants("generated"))
    fail("built without generated code (-DCOLLC_GENERATED)");
#endif
  const std::string Var = "coll_tuned_" + Coll + "_algorithm";
  if (wants("default") || wants("forced")) {
    if (!cvarRead("coll_tuned_use_dynamic_rules"))
      fail("Open MPI's forced algorithms need --mca "
           "coll_tuned_use_dynamic_rules 1");
    auto Dup = [&](int Alg, long Seg) {
      cvarWrite(Var, Alg);
      if (Alg)
        cvarWrite(Var + "_segmentsize", static_cast<int>(Seg));
      MPI_Comm C;
      PMPI_Comm_dup(MPI_COMM_WORLD, &C);
      return C;
    };
    if (wants("default"))
      Variants.emplace_back("ompi:default", Dup(0, 0), true);
    if (wants("forced"))
      for (auto &[Value, Name] : cvarEnum(Var)) {
        // 0 is "ignore" (the default above); two_proc serves 2 ranks only.
        if (Value == 0 || (Name == "two_proc" && Size != 2))
          continue;
        if (!segments(Coll, Name)) {
          Variants.emplace_back("ompi:" + Name, Dup(Value, 0), true);
          continue;
        }
        for (long Seg : Segments)
          Variants.emplace_back(
              "ompi:" + Name + (Seg ? "/" + std::to_string(Seg) : ""),
              Dup(Value, Seg), true);
      }
    cvarWrite(Var, 0);
    cvarWrite(Var + "_segmentsize", 0);
  }
  if (Variants.empty())
    fail("--variants: expected collc, generated, default or forced");

  // Open every connection before anything is timed.
  {
    std::vector<char> S(Size), R(Size);
    PMPI_Alltoall(S.data(), 1, MPI_CHAR, R.data(), 1, MPI_CHAR,
                  MPI_COMM_WORLD);
    for (Variant &V : Variants)
      if (V.Comm != MPI_COMM_WORLD)
        PMPI_Alltoall(S.data(), 1, MPI_CHAR, R.data(), 1, MPI_CHAR, V.Comm);
  }

  Buffers Buf;
  for (long Bytes : Sizes) {
    Collective C(Coll, Bytes);
    std::vector<CallFn> Calls;
    for (Variant &V : Variants) {
      V.Times.clear();
      V.Pruned = false;
#ifdef COLLC_GENERATED
      if (V.Name == "generated") {
        Calls.push_back(callOf(C, Generated, V.Comm));
        continue;
      }
#endif
      Calls.push_back(callOf(C, V.Name == "collc" ? Mpi : Pmpi, V.Comm));
    }
    // Round 0 warms up (and builds collc's schedules); rounds 1..Runs are
    // timed, every variant once per round.
    // Small calls are cheap and noisy (a late wake-up costs milliseconds
    // here): three times the runs below SmallBytes.
    const int SizeRuns = Bytes < SmallBytes ? 3 * Runs : Runs;
    for (int Run = 0; Run <= SizeRuns; ++Run) {
      for (size_t I = 0; I < Variants.size(); ++I) {
        Variant &V = Variants[I];
        if (V.Pruned)
          continue;
        double T = timeOnce(Calls[I], Buf, C, Run, V.Name);
        if (Run == 0)
          V.Warmup = T;
        else
          V.Times.push_back(T);
      }
      if (Run == 0) {
        double Best = 0;
        for (const Variant &V : Variants)
          if (V.Library && (Best == 0 || V.Warmup < Best))
            Best = V.Warmup;
        // Only where it saves time (a call over PruneFloorUs): below, one
        // warm-up is too noisy to judge by. Open MPI's default is a column
        // of its own and always runs.
        for (Variant &V : Variants)
          V.Pruned = V.Library && V.Name != "ompi:default" &&
                     V.Warmup > Prune * Best && V.Warmup > PruneFloorUs;
      }
    }
    if (Rank == 0) {
      for (const Variant &V : Variants) {
        if (V.Pruned) {
          std::printf("pruned %s %d %ld %s %.1f\n", Coll.c_str(), Size, Bytes,
                      V.Name.c_str(), V.Warmup);
          continue;
        }
        std::printf("cell %s %d %ld %s %.1f %.1f %.1f %d\n", Coll.c_str(),
                    Size, Bytes, V.Name.c_str(), median(V.Times),
                    *std::min_element(V.Times.begin(), V.Times.end()),
                    *std::max_element(V.Times.begin(), V.Times.end()),
                    static_cast<int>(V.Times.size()));
      }
      std::fflush(stdout);
    }
  }
  for (Variant &V : Variants)
    if (V.Comm != MPI_COMM_WORLD)
      PMPI_Comm_free(&V.Comm);
  MPI_T_finalize();
  MPI_Finalize();
  return 0;
}
