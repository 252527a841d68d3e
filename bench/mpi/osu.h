//===- osu.h: what the OSU-style drivers share
//------------------------------===//
//
// The command line (`[--iters N] [--warmup N] [--which collc|mpi|both]
// [--measure average|median|makespan] [--prewarm] [--no-check] SIZE...`) and
// the three measures, in µs:
//  - average (OSU's, the default): the average over ranks of each rank's
//    average time per call, after --warmup calls (2; they also fill collc's
//    communicator cache);
//  - median: each call started after a barrier, its time the slowest
//    rank's; the median over the calls. On a shared, loaded host a call
//    that loses its core for a scheduler's time slice (milliseconds) moves
//    an average of 50 calls by tens of µs, and the median not;
//  - makespan: one call after --warmup calls, every rank starting it at one
//    agreed moment, from that moment to the latest rank's end. Meaningful
//    where the clock is global, as under SimGrid's SMPI (run it with
//    --cfg=smpi/simulate-computation:no); what a physical bound bounds.
// --no-check: no call's data is checked, for launches whose buffers the
// simulator folds onto one page (SMPI's smpi/auto-shared-malloc-thresh: the
// only way thousands of ranks of megabyte buffers fit in memory), where the
// data is meaningless and the times are not (SMPI's times do not depend on
// the data); check the data of the same code at fewer ranks.
// --prewarm: one checked call of one element before the sizes, so that what
// a library sets up at its first call (SMPI's SMP-aware algorithms split the
// communicator then; collc caches a duplicate of it) is not timed, without
// the simulated cost of a warm-up call at every size.
// Drivers that give a prepare and a check (timed) check the data of every
// warm-up call and, for the makespan, of the timed call, outside the timed
// region.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_BENCH_MPI_OSU_H
#define COLLC_BENCH_MPI_OSU_H

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

/// A driver serves two collectives of one signature (osu_gather.cpp and the
/// scatter, osu_allgather.cpp and the all-to-all, osu_allreduce.cpp and the
/// reduce): the file of the second (osu_scatter.cpp, ...) defines
/// OSU_SECOND and includes the first's. OSU_PICK(First, Second) is what the
/// driver is built for, chosen by the preprocessor, so that only that
/// collective's generated function is linked in.
#ifdef OSU_SECOND
#define OSU_PICK(First, Second) Second
#else
#define OSU_PICK(First, Second) First
#endif

namespace osu {

struct Options {
  int Iters = 100;
  int Warmup = 2;
  std::string Which = "both";      ///< collc, mpi or both
  std::string Measure = "average"; ///< average, median or makespan
  bool Prewarm = false;
  bool Check = true; ///< false with --no-check
  std::vector<long> Sizes;
  bool collc() const { return Which != "mpi"; }
  bool mpi() const { return Which != "collc"; }
  bool makespan() const { return Measure == "makespan"; }
  bool median() const { return Measure == "median"; }
};

/// One measurement a driver makes: by the options \p O, of \p Bytes (the
/// size the command line names), of collc's collective or (!\p Collc) the
/// MPI library's, on rank \p Rank of \p P.
struct Case {
  const Options &O;
  long Bytes;
  bool Collc;
  int Rank, P;
  /// The size as an MPI count of bytes and as a buffer length.
  int count() const { return static_cast<int>(Bytes); }
  size_t size() const { return static_cast<size_t>(Bytes); }
};

/// Reads the command line; a bad option or value ends the job with a
/// message naming what was expected.
inline Options parse(int argc, char **argv) {
  Options O;
  auto Bad = [&](const char *What, const char *Got) {
    int Rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
    if (Rank == 0)
      std::fprintf(stderr, "%s: error: expected %s, got '%s'\n", argv[0], What,
                   Got);
    MPI_Abort(MPI_COMM_WORLD, 1);
  };
  auto Count = [&](int I, int Min) {
    char *End = nullptr;
    long V = std::strtol(argv[I], &End, 10);
    if (*End || End == argv[I] || V < Min || V > 1000000)
      Bad(Min ? "a count of at least 1" : "a count of at least 0", argv[I]);
    return static_cast<int>(V);
  };
  for (int I = 1; I < argc; ++I) {
    if (!std::strcmp(argv[I], "--iters") && I + 1 < argc)
      O.Iters = Count(++I, 1);
    else if (!std::strcmp(argv[I], "--warmup") && I + 1 < argc)
      O.Warmup = Count(++I, 0);
    else if (!std::strcmp(argv[I], "--which") && I + 1 < argc)
      O.Which = argv[++I];
    else if (!std::strcmp(argv[I], "--measure") && I + 1 < argc)
      O.Measure = argv[++I];
    else if (!std::strcmp(argv[I], "--prewarm"))
      O.Prewarm = true;
    else if (!std::strcmp(argv[I], "--no-check"))
      O.Check = false;
    else {
      char *End = nullptr;
      long V = std::strtol(argv[I], &End, 10);
      if (*End || End == argv[I] || V < 0)
        Bad("an option (--iters, --warmup, --which, --measure, --prewarm, "
            "--no-check) or a size in bytes",
            argv[I]);
      O.Sizes.push_back(V);
    }
  }
  if (O.Which != "collc" && O.Which != "mpi" && O.Which != "both")
    Bad("--which collc, mpi or both", O.Which.c_str());
  if (O.Measure != "average" && O.Measure != "median" &&
      O.Measure != "makespan")
    Bad("--measure average, median or makespan", O.Measure.c_str());
  return O;
}

/// Aborts the job, saying which call failed, unless \p Rc is MPI_SUCCESS:
/// "<Driver>: the <collc|MPI> <What> failed (<Rc>)".
inline void check(int Rc, const char *Driver, bool Collc, const char *What) {
  if (Rc == MPI_SUCCESS)
    return;
  std::fprintf(stderr, "%s: the %s %s failed (%d)\n", Driver,
               Collc ? "collc" : "MPI", What, Rc);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/// Times Call (which checks its own result) Iters times, after Warmup calls.
template <class F> double latency(F &&Call, int Iters, int Warmup = 2) {
  for (int I = 0; I < Warmup; ++I)
    Call();
  MPI_Barrier(MPI_COMM_WORLD);
  double Start = MPI_Wtime();
  for (int I = 0; I < Iters; ++I)
    Call();
  double Mine = (MPI_Wtime() - Start) / Iters * 1e6, Sum = 0;
  int P = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Reduce(&Mine, &Sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  return Sum / P;
}

/// Times Call (which checks its own result) Iters times, each call started
/// on every rank after a barrier: the median over the calls of the slowest
/// rank's time.
template <class F> double medianLatency(F &&Call, int Iters) {
  std::vector<double> Slowest;
  for (int I = 0; I < Iters; ++I) {
    MPI_Barrier(MPI_COMM_WORLD);
    double Start = MPI_Wtime();
    Call();
    double Mine = (MPI_Wtime() - Start) * 1e6, Max = 0;
    MPI_Allreduce(&Mine, &Max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    Slowest.push_back(Max);
  }
  std::sort(Slowest.begin(), Slowest.end());
  return Slowest[Slowest.size() / 2];
}

/// Aborts the job, saying what was wrong, unless every rank's \p Right.
inline void checkData(bool Right, const char *Driver, bool Collc,
                      const std::string &What) {
  int Wrong = !Right, Any = 0;
  MPI_Allreduce(&Wrong, &Any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!Any)
    return;
  int Rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  if (Rank == 0)
    std::fprintf(stderr, "%s: the %s %s delivered wrong data\n", Driver,
                 Collc ? "collc" : "MPI", What.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/// The makespan of one call in µs, after Warmup calls: every rank starts it
/// at one agreed moment (10 ms after the latest rank's clock when they
/// agree), and the makespan runs from that moment to the latest rank's end.
/// (A barrier would not do: ranks leave it at different times.)
template <class F> double makespan(F &&Call, int Warmup) {
  for (int I = 0; I < Warmup; ++I)
    Call();
  double Now = MPI_Wtime(), Latest = 0;
  MPI_Allreduce(&Now, &Latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double Start = Latest + 0.01;
  double Wait = Start - MPI_Wtime();
  if (Wait > 0) {
    timespec Ts;
    Ts.tv_sec = static_cast<time_t>(Wait);
    Ts.tv_nsec = static_cast<long>((Wait - Ts.tv_sec) * 1e9 + 0.5);
    nanosleep(&Ts, nullptr);
  }
  Call();
  double End = MPI_Wtime(), Last = 0;
  MPI_Reduce(&End, &Last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  return (Last - Start) * 1e6;
}

/// One collective under test, measured by C.O.Measure. Prepare() sets the
/// buffers for a call, Call() runs it and returns its MPI return code (a
/// failure ends the job, naming \p What), Check() says whether this rank got
/// the right data. Every warm-up call (at least one for the average) and the
/// makespan's timed call are prepared and checked outside the timed region;
/// the average's timed calls are not.
template <class P, class F, class K>
double timed(const Case &C, P &&Prepare, F &&Call, K &&Check,
             const char *Driver, const std::string &What) {
  const Options &O = C.O;
  const bool Collc = C.Collc;
  auto Run = [&] { check(Call(), Driver, Collc, What.c_str()); };
  auto Checked = [&] {
    Prepare();
    Run();
    if (O.Check)
      checkData(Check(), Driver, Collc, What);
  };
  if (!O.makespan()) {
    for (int I = 0; I < (O.Warmup > 0 ? O.Warmup : 1); ++I)
      Checked();
    return O.median() ? medianLatency(Run, O.Iters) : latency(Run, O.Iters, 0);
  }
  for (int I = 0; I < O.Warmup; ++I)
    Checked();
  Prepare();
  double T = makespan(Run, 0);
  if (O.Check)
    checkData(Check(), Driver, Collc, What);
  return T;
}

/// The options of --prewarm's call: one checked call of the average
/// measure.
inline Options prewarmOptions(const Options &O) {
  Options One = O;
  One.Measure = "average";
  One.Warmup = 1;
  One.Iters = 1;
  return One;
}

/// Byte \p Byte of rank \p Src's block in the drivers that move blocks
/// (allgather, gather, scatter): a pattern naming both.
inline char blockPattern(int Src, size_t Byte) {
  return static_cast<char>(Src * 131 + Byte * 7 + 3);
}

/// Prints one row on rank 0: bytes, collc's time, the MPI library's time;
/// flushed, so that a run stopped by a time limit keeps the sizes done.
inline void row(long Bytes, double Collc, double Mpi) {
  int Rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  if (Rank != 0)
    return;
  std::printf("%ld %.3f %.3f\n", Bytes, Collc, Mpi);
  std::fflush(stdout);
}

/// The reductions' case (osu_allreduce, osu_reduce) \p C: rank r
/// contributes (r + 1) x (i % 7 + 1) at int32 element i, and the result
/// (every rank's, or rank 0's when \p AtRootOnly) must be the sum,
/// (i % 7 + 1) x P (P + 1) / 2. Call(In, Out, N) runs collc's or the
/// library's reduction of N ints and returns its MPI return code.
template <class F>
double timedSum(const Case &C, bool AtRootOnly, const char *Driver,
                const char *Name, F &&Call) {
  std::vector<int> In(static_cast<size_t>(C.Bytes / 4)), Out(In.size());
  for (size_t I = 0; I < In.size(); ++I)
    In[I] = (C.Rank + 1) * static_cast<int>(I % 7 + 1);
  const int N = static_cast<int>(In.size());
  return timed(
      C, [&] { std::fill(Out.begin(), Out.end(), -1); },
      [&] { return Call(In.data(), Out.data(), N); },
      [&] {
        if (AtRootOnly && C.Rank != 0)
          return true;
        const int Sum = C.P * (C.P + 1) / 2;
        for (size_t I = 0; I < Out.size(); ++I)
          if (Out[I] != static_cast<int>(I % 7 + 1) * Sum)
            return false;
        return true;
      },
      Driver, std::string(Name) + " of " + std::to_string(4L * N) + " bytes");
}

/// A driver's whole main: MPI_Init, the options, the --prewarm call (of
/// \p PrewarmBytes), one row per size, MPI_Finalize.
/// Time(Case) measures one size of collc's collective or the MPI library's,
/// with buffers of its own.
template <class F> int run(int argc, char **argv, long PrewarmBytes, F &&Time) {
  MPI_Init(&argc, &argv);
  int Rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const Options O = parse(argc, argv);
  auto Both = [&](const Options &Opts, long Bytes) {
    return std::make_pair(
        Opts.collc() ? Time(Case{Opts, Bytes, true, Rank, P}) : 0.0,
        Opts.mpi() ? Time(Case{Opts, Bytes, false, Rank, P}) : 0.0);
  };
  if (O.Prewarm)
    Both(prewarmOptions(O), PrewarmBytes);
  for (long Bytes : O.Sizes) {
    auto [C, M] = Both(O, Bytes);
    row(Bytes, C, M);
  }
  MPI_Finalize();
  return 0;
}

} // namespace osu

#endif
