/* small_calls: what a served collective costs over the MPI library's own,
 * on every rank of a real launch, back to back.
 *
 *   mpirun -np 2 -x COLLC_MACHINE=<machine> -x LD_PRELOAD=<lib>/libcollc-mpi.so
 * \ small_calls bcast|allreduce [CALLS [BYTES]]
 *
 * Rounds of CALLS (5000) back-to-back calls of BYTES (1: a 1-byte
 * MPI_Bcast from rank 0, or an MPI_Allreduce of one int; more: that many
 * bytes, rounded up to whole ints for the allreduce): the MPI library's own
 * (PMPI_Bcast, PMPI_Allreduce) and the interposed one (MPI_Bcast,
 * MPI_Allreduce: the drop-in's under LD_PRELOAD, the library's without),
 * alternating round by round in the same launch, so that both see the same
 * load. A round's time is the slowest rank's mean per call; the figure is
 * the median of 41 rounds per side. The data is checked after the last
 * round. Rank 0 prints
 *   <collective> <bytes> B: library <us> us, interposed <us> us, +<us>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { Rounds = 41 };

static int byValue(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  const char *What = argc > 1 ? argv[1] : "bcast";
  const int Bcast = !strcmp(What, "bcast");
  const int Calls = argc > 2 ? atoi(argv[2]) : 5000;
  const long Bytes = argc > 3 ? atol(argv[3]) : 1;
  if ((!Bcast && strcmp(What, "allreduce")) || Calls < 1 || Bytes < 1 ||
      Bytes > (1L << 30)) {
    if (Rank == 0)
      fprintf(stderr,
              "small_calls: expected bcast|allreduce [CALLS [BYTES]]\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int Ints = (int)((Bytes + 3) / 4);
  char *Buf = malloc((size_t)Bytes);
  int *In = malloc(sizeof(int) * (size_t)Ints),
      *Out = malloc(sizeof(int) * (size_t)Ints);
  for (long I = 0; I < Bytes; ++I)
    Buf[I] = Rank == 0 ? (char)(I % 101) : 0;
  for (int I = 0; I < Ints; ++I)
    In[I] = (Rank + 1) * (I % 7 + 1);
  double T[2][Rounds];
  for (int K = 0; K < Rounds; ++K)
    for (int Side = 0; Side < 2; ++Side) {
      PMPI_Barrier(MPI_COMM_WORLD);
      double Start = MPI_Wtime();
      for (int I = 0; I < Calls; ++I) {
        int Err = Bcast ? (Side ? MPI_Bcast : PMPI_Bcast)(
                              Buf, (int)Bytes, MPI_CHAR, 0, MPI_COMM_WORLD)
                        : (Side ? MPI_Allreduce : PMPI_Allreduce)(
                              In, Out, Ints, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (Err != MPI_SUCCESS)
          MPI_Abort(MPI_COMM_WORLD, 1);
      }
      double Mine = (MPI_Wtime() - Start) / Calls * 1e6;
      PMPI_Allreduce(&Mine, &T[Side][K], 1, MPI_DOUBLE, MPI_MAX,
                     MPI_COMM_WORLD);
    }
  int Size;
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  int Wrong = 0;
  for (long I = 0; Bcast && I < Bytes; ++I)
    Wrong |= Buf[I] != (char)(I % 101);
  for (int I = 0; !Bcast && I < Ints; ++I)
    Wrong |= Out[I] != (I % 7 + 1) * Size * (Size + 1) / 2;
  if (Wrong) {
    fprintf(stderr, "small_calls: rank %d: the %s gave wrong data\n", Rank,
            What);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  free(Buf);
  free(In);
  free(Out);
  qsort(T[0], Rounds, sizeof(double), byValue);
  qsort(T[1], Rounds, sizeof(double), byValue);
  if (Rank == 0)
    printf("%s %ld B: library %.3f us, interposed %.3f us, %+.3f, %.2fx "
           "(slowest rank, median of %d rounds of %d calls)\n",
           What, Bytes, T[0][Rounds / 2], T[1][Rounds / 2],
           T[1][Rounds / 2] - T[0][Rounds / 2],
           T[1][Rounds / 2] / T[0][Rounds / 2], Rounds, Calls);
  MPI_Finalize();
  return 0;
}
