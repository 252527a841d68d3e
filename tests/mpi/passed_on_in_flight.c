/* A collective collc passes on, entered while a call collc serves is in
 * flight: a non-blocking broadcast from rank 0 (served: its relays run in
 * collc's schedule), then every rank but the last enters MPI_Alltoallv
 * (passed on to the MPI library) before waiting for the broadcast, the last
 * rank after. MPI allows it; the ranks inside the library's all-to-all must
 * still relay the broadcast the last rank waits for. Each result is checked.
 *
 *   passed_on_in_flight [same|other]
 *
 * same (the default): the all-to-all on the broadcast's communicator; other:
 * on a duplicate of it made at the start.
 *
 * Prints "passed_on_in_flight: results correct" on every rank; otherwise
 * the first wrong result, and exits with 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  MPI_Comm Other = MPI_COMM_WORLD;
  if (argc > 1 && strcmp(argv[1], "other") == 0)
    MPI_Comm_dup(MPI_COMM_WORLD, &Other);
  const int N = 1 << 18;
  int *Buf = malloc(sizeof(int) * N);
  int *Send = malloc(sizeof(int) * Size), *Recv = malloc(sizeof(int) * Size);
  int *Counts = malloc(sizeof(int) * Size),
      *Displs = malloc(sizeof(int) * Size);
  if (!Buf || !Send || !Recv || !Counts || !Displs)
    return 1;
  for (int Round = 0; Round < 3; ++Round) {
    for (int I = 0; I < N; ++I)
      Buf[I] = Rank == 0 ? Round * 7 + I : -1;
    for (int I = 0; I < Size; ++I) {
      Send[I] = Rank * 100 + I + Round;
      Recv[I] = -1;
      Counts[I] = 1;
      Displs[I] = I;
    }
    MPI_Request Req;
    MPI_Ibcast(Buf, N, MPI_INT, 0, MPI_COMM_WORLD, &Req);
    if (Rank == Size - 1)
      MPI_Wait(&Req, MPI_STATUS_IGNORE);
    MPI_Alltoallv(Send, Counts, Displs, MPI_INT, Recv, Counts, Displs, MPI_INT,
                  Other);
    if (Rank != Size - 1)
      MPI_Wait(&Req, MPI_STATUS_IGNORE);
    for (int I = 0; I < N; ++I)
      if (Buf[I] != Round * 7 + I) {
        fprintf(stderr, "passed_on_in_flight: rank %d: element %d is %d\n",
                Rank, I, Buf[I]);
        return 1;
      }
    for (int I = 0; I < Size; ++I)
      if (Recv[I] != I * 100 + Rank + Round) {
        fprintf(stderr, "passed_on_in_flight: rank %d: block %d is %d\n", Rank,
                I, Recv[I]);
        return 1;
      }
  }
  printf("passed_on_in_flight: results correct\n");
  free(Buf);
  free(Send);
  free(Recv);
  free(Counts);
  free(Displs);
  if (Other != MPI_COMM_WORLD)
    MPI_Comm_free(&Other);
  MPI_Finalize();
  return 0;
}
