/* What a non-blocking collective overlaps with computation (OSU's
 * osu_iallreduce method): per collective and size, the median over
 * iterations of
 *   comm     the call and its MPI_Wait alone,
 *   compute  the computation alone (calibrated to last about `comm`),
 *   total    the call, the computation, then MPI_Wait,
 * each iteration's time the slowest rank's, and
 *   overlap = 100 * (1 - (total - compute) / comm), within [0, 100]:
 * 100 when the call costs nothing beyond the computation, 0 when it adds its
 * whole time. With --test N the computation calls MPI_Test on the request N
 * times along the way (a library that moves its collectives on only when
 * the program calls MPI, as collc's drop-in and libNBC do, needs them).
 *
 *   overlap <label> [--iters N] [--test N] [--quick]
 *
 * Prints one row per collective and size: label, collective, bytes, test
 * calls, comm, compute, total and comm + compute (µs), overlap (%). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int Me, P;

static int cmpDouble(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

static double median(double *V, int N) {
  qsort(V, (size_t)N, sizeof *V, cmpDouble);
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

/* The slowest rank's time. */
static double slowest(double T) {
  double Max;
  MPI_Allreduce(&T, &Max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return Max;
}

static volatile double Sink;

/* Work of \p Units units, in \p Slices slices with MPI_Test on \p Req
 * between them (none when Req is null). */
static void compute(long Units, int Slices, MPI_Request *Req) {
  double X = 1.0;
  for (int S = 0; S < Slices; ++S) {
    for (long I = 0; I < Units / Slices; ++I)
      X = X * 1.0000001 + 1e-9;
    if (Req) {
      int Flag;
      MPI_Test(Req, &Flag, MPI_STATUS_IGNORE);
    }
  }
  Sink = X;
}

/* Units of work per microsecond on this rank. */
static double unitsPerMicrosecond(void) {
  const long Units = 20000000;
  double T0 = MPI_Wtime();
  compute(Units, 1, NULL);
  return Units / ((MPI_Wtime() - T0) * 1e6);
}

enum { IAllreduce, IBcast, IAlltoall, NumColls };
static const char *Names[] = {"iallreduce", "ibcast", "ialltoall"};

static void start(int Coll, char *In, char *Out, int Bytes, MPI_Request *R) {
  switch (Coll) {
  case IAllreduce:
    MPI_Iallreduce(In, Out, Bytes / 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, R);
    break;
  case IBcast:
    MPI_Ibcast(Out, Bytes, MPI_BYTE, 0, MPI_COMM_WORLD, R);
    break;
  default:
    MPI_Ialltoall(In, Bytes / P, MPI_BYTE, Out, Bytes / P, MPI_BYTE,
                  MPI_COMM_WORLD, R);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const char *Label = argc > 1 ? argv[1] : "mpi";
  int Iters = 30, Tests = 0, Quick = 0;
  for (int I = 2; I < argc; ++I) {
    if (!strcmp(argv[I], "--iters") && I + 1 < argc)
      Iters = atoi(argv[++I]);
    else if (!strcmp(argv[I], "--test") && I + 1 < argc)
      Tests = atoi(argv[++I]);
    else if (!strcmp(argv[I], "--quick"))
      Quick = 1;
  }
  static const int Sizes[] = {1024, 65536, 1048576, 4194304};
  const int NumSizes = Quick ? 2 : 4;
  const int MaxBytes = Sizes[NumSizes - 1] * 2;
  char *In = malloc((size_t)MaxBytes), *Out = malloc((size_t)MaxBytes);
  memset(In, 1, (size_t)MaxBytes);
  memset(Out, 0, (size_t)MaxBytes);
  double Rate = unitsPerMicrosecond();
  MPI_Allreduce(MPI_IN_PLACE, &Rate, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  double *Comm = malloc(sizeof(double) * (size_t)Iters),
         *Work = malloc(sizeof(double) * (size_t)Iters),
         *Total = malloc(sizeof(double) * (size_t)Iters);
  if (Me == 0)
    printf("%-8s %-11s %9s %5s %10s %10s %10s %10s %8s\n", "library",
           "collective", "bytes", "tests", "comm us", "compute us", "total us",
           "sum us", "overlap");
  for (int C = 0; C < NumColls; ++C)
    for (int S = 0; S < NumSizes; ++S) {
      const int Bytes = Sizes[S] - Sizes[S] % (4 * P);
      MPI_Request R;
      /* Warm up: the first call of a kind builds its schedule. */
      for (int I = 0; I < 3; ++I) {
        start(C, In, Out, Bytes, &R);
        MPI_Wait(&R, MPI_STATUS_IGNORE);
      }
      for (int I = 0; I < Iters; ++I) {
        MPI_Barrier(MPI_COMM_WORLD);
        double T0 = MPI_Wtime();
        start(C, In, Out, Bytes, &R);
        MPI_Wait(&R, MPI_STATUS_IGNORE);
        Comm[I] = slowest(MPI_Wtime() - T0);
      }
      const double CommUs = median(Comm, Iters) * 1e6;
      const int Slices = Tests > 0 ? Tests : 1;
      /* The computation's length, checked and rescaled twice (the rate of
       * a core shared with other work drifts). */
      long Units = (long)(CommUs * Rate);
      for (int K = 0; K < 2 && Units > 0; ++K) {
        double T0 = MPI_Wtime();
        compute(Units, Slices, NULL);
        const double Took = (MPI_Wtime() - T0) * 1e6;
        if (Took > 0)
          Units = (long)(Units * (CommUs / Took));
      }
      for (int I = 0; I < Iters; ++I) {
        MPI_Barrier(MPI_COMM_WORLD);
        double T0 = MPI_Wtime();
        compute(Units, Slices, NULL);
        Work[I] = slowest(MPI_Wtime() - T0);
        MPI_Barrier(MPI_COMM_WORLD);
        T0 = MPI_Wtime();
        start(C, In, Out, Bytes, &R);
        compute(Units, Slices, Tests > 0 ? &R : NULL);
        MPI_Wait(&R, MPI_STATUS_IGNORE);
        Total[I] = slowest(MPI_Wtime() - T0);
      }
      const double WorkUs = median(Work, Iters) * 1e6,
                   TotalUs = median(Total, Iters) * 1e6;
      double Overlap = 100 * (1 - (TotalUs - WorkUs) / CommUs);
      Overlap = Overlap < 0 ? 0 : Overlap > 100 ? 100 : Overlap;
      if (Me == 0)
        printf("%-8s %-11s %9d %5d %10.1f %10.1f %10.1f %10.1f %7.1f%%\n",
               Label, Names[C], Bytes, Tests, CommUs, WorkUs, TotalUs,
               CommUs + WorkUs, Overlap);
    }
  free(In), free(Out), free(Comm), free(Work), free(Total);
  MPI_Finalize();
  return 0;
}
