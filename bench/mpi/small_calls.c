/* small_calls: what a served one-element collective costs over the MPI
 * library's own, on every rank of a real launch, back to back.
 *
 *   mpirun -np 2 -x COLLC_MACHINE=<machine> -x LD_PRELOAD=<lib>/libcollc-mpi.so
 * \ small_calls bcast|allreduce [CALLS]
 *
 * Rounds of CALLS (5000) back-to-back calls of one element (a 1-byte
 * MPI_Bcast from rank 0, or an MPI_Allreduce of one int): the MPI library's
 * own (PMPI_Bcast, PMPI_Allreduce) and the interposed one (MPI_Bcast,
 * MPI_Allreduce: the drop-in's under LD_PRELOAD, the library's without),
 * alternating round by round in the same launch, so that both see the same
 * load. A round's time is the slowest rank's mean per call; the figure is
 * the median of 41 rounds per side. Rank 0 prints
 *   <collective> 1 element: library <us> us, interposed <us> us, +<us>
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
  if ((!Bcast && strcmp(What, "allreduce")) || Calls < 1) {
    if (Rank == 0)
      fprintf(stderr, "small_calls: expected bcast|allreduce [CALLS]\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  char Byte = Rank == 0 ? 7 : 0;
  int In = Rank + 1, Out = 0;
  double T[2][Rounds];
  for (int K = 0; K < Rounds; ++K)
    for (int Side = 0; Side < 2; ++Side) {
      PMPI_Barrier(MPI_COMM_WORLD);
      double Start = MPI_Wtime();
      for (int I = 0; I < Calls; ++I) {
        int Err = Bcast ? (Side ? MPI_Bcast : PMPI_Bcast)(&Byte, 1, MPI_CHAR, 0,
                                                          MPI_COMM_WORLD)
                        : (Side ? MPI_Allreduce : PMPI_Allreduce)(
                              &In, &Out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (Err != MPI_SUCCESS)
          MPI_Abort(MPI_COMM_WORLD, 1);
      }
      double Mine = (MPI_Wtime() - Start) / Calls * 1e6;
      PMPI_Allreduce(&Mine, &T[Side][K], 1, MPI_DOUBLE, MPI_MAX,
                     MPI_COMM_WORLD);
    }
  int Size;
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (Bcast ? Byte != 7 : Out != Size * (Size + 1) / 2) {
    fprintf(stderr, "small_calls: rank %d: the %s gave %d\n", Rank, What,
            Bcast ? Byte : Out);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  qsort(T[0], Rounds, sizeof(double), byValue);
  qsort(T[1], Rounds, sizeof(double), byValue);
  if (Rank == 0)
    printf("%s 1 element: library %.3f us, interposed %.3f us, %+.3f "
           "(slowest rank, median of %d rounds of %d calls)\n",
           What, T[0][Rounds / 2], T[1][Rounds / 2],
           T[1][Rounds / 2] - T[0][Rounds / 2], Rounds, Calls);
  MPI_Finalize();
  return 0;
}
