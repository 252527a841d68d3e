/* Calls one MPI collective at a few sizes and checks the results; run under
 * a coll/tuned rules file written by `collc --emit ompi-rules`. With "time",
 * prints the seconds three 64 KiB broadcasts take. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int Rank, Size, Bad;

static void check(int Ok, const char *What, int N) {
  if (!Ok && !Bad) {
    fprintf(stderr, "rank %d: %s of %d elements: wrong result\n", Rank, What,
            N);
    Bad = 1;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  const char *C = argc > 1 ? argv[1] : "bcast";
  if (!strcmp(C, "time")) {
    static char B[1 << 16];
    MPI_Barrier(MPI_COMM_WORLD);
    double T = MPI_Wtime();
    for (int I = 0; I < 3; ++I)
      MPI_Bcast(B, sizeof B, MPI_BYTE, 0, MPI_COMM_WORLD);
    T = MPI_Wtime() - T;
    if (!Rank)
      printf("%.6f\n", T);
    MPI_Finalize();
    return 0;
  }
  const int Sizes[] = {1, 100, 4096, 65536};
  for (int S = 0; S < 4; ++S) {
    int N = Sizes[S];
    int *In = malloc(sizeof(int) * N * Size),
        *Out = malloc(sizeof(int) * N * Size);
    for (int I = 0; I < N * Size; ++I)
      In[I] = Rank * 1000 + I, Out[I] = -1;
    if (!strcmp(C, "bcast")) {
      MPI_Bcast(In, N, MPI_INT, 0, MPI_COMM_WORLD);
      for (int I = 0; I < N; ++I)
        check(In[I] == I, C, N);
    } else if (!strcmp(C, "reduce") || !strcmp(C, "allreduce") ||
               !strcmp(C, "scan")) {
      if (!strcmp(C, "reduce"))
        MPI_Reduce(In, Out, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
      else if (!strcmp(C, "allreduce"))
        MPI_Allreduce(In, Out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      else
        MPI_Scan(In, Out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      int Upto = !strcmp(C, "scan") ? Rank + 1 : Size;
      if (strcmp(C, "reduce") || !Rank)
        for (int I = 0; I < N; ++I)
          check(Out[I] == 1000 * Upto * (Upto - 1) / 2 + Upto * I, C, N);
    } else if (!strcmp(C, "gather")) {
      MPI_Gather(In, N, MPI_INT, Out, N, MPI_INT, 0, MPI_COMM_WORLD);
      if (!Rank)
        for (int I = 0; I < N * Size; ++I)
          check(Out[I] == (I / N) * 1000 + I % N, C, N);
    } else if (!strcmp(C, "scatter")) {
      MPI_Scatter(In, N, MPI_INT, Out, N, MPI_INT, 0, MPI_COMM_WORLD);
      for (int I = 0; I < N; ++I)
        check(Out[I] == Rank * N + I, C, N);
    } else if (!strcmp(C, "alltoall")) {
      MPI_Alltoall(In, N, MPI_INT, Out, N, MPI_INT, MPI_COMM_WORLD);
      for (int I = 0; I < N * Size; ++I)
        check(Out[I] == (I / N) * 1000 + Rank * N + I % N, C, N);
    } else {
      fprintf(stderr, "unknown collective %s\n", C);
      Bad = 1;
    }
    free(In);
    free(Out);
  }
  int AnyBad = 0;
  MPI_Allreduce(&Bad, &AnyBad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return AnyBad;
}
