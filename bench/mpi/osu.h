//===- osu.h: what the OSU-style drivers share
//------------------------------===//
//
// The command line (`[--iters N] [--which collc|mpi|both] SIZE...`) and the
// measure: the average over ranks of each rank's average time per call in
// µs, after two warm-up calls (which also fill collc's communicator cache).
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_BENCH_MPI_OSU_H
#define COLLC_BENCH_MPI_OSU_H

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace osu {

struct Options {
  int Iters = 100;
  std::string Which = "both"; ///< collc, mpi or both
  std::vector<long> Sizes;
  bool collc() const { return Which != "mpi"; }
  bool mpi() const { return Which != "collc"; }
};

inline Options parse(int argc, char **argv) {
  Options O;
  for (int I = 1; I < argc; ++I) {
    if (!std::strcmp(argv[I], "--iters") && I + 1 < argc)
      O.Iters = std::atoi(argv[++I]);
    else if (!std::strcmp(argv[I], "--which") && I + 1 < argc)
      O.Which = argv[++I];
    else
      O.Sizes.push_back(std::atol(argv[I]));
  }
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

/// Times Call (which checks its own result) Iters times.
template <class F> double latency(F &&Call, int Iters) {
  for (int I = 0; I < 2; ++I)
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

} // namespace osu

#endif
