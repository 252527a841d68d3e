/* Run by tests/tools/platforms_smpi.sh on every drawn platform: each rank
   checks that it runs on host node-(rank / PER_HOST), the placement collc
   plans for (block by block, `core` ranks per host), and all ranks sum their
   ranks and exchange with a neighbour, so that every route SMPI builds for
   the platform carries a message. Prints "ok P" on rank 0, or aborts. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, P, Len, Sum = 0, Got = -1;
  char Name[MPI_MAX_PROCESSOR_NAME], Want[64];
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Get_processor_name(Name, &Len);
  const int PerHost = argc > 1 ? atoi(argv[1]) : 1;
  snprintf(Want, sizeof Want, "node-%d", Rank / PerHost);
  if (strcmp(Name, Want) != 0) {
    fprintf(stderr, "rank %d runs on %s, not %s\n", Rank, Name, Want);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Allreduce(&Rank, &Sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (Sum != P * (P - 1) / 2)
    MPI_Abort(MPI_COMM_WORLD, 2);
  /* Everyone to the rank half the job away, and back. */
  const int To = (Rank + P / 2) % P, From = (Rank - P / 2 + P) % P;
  MPI_Sendrecv(&Rank, 1, MPI_INT, To, 0, &Got, 1, MPI_INT, From, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (Got != From)
    MPI_Abort(MPI_COMM_WORLD, 3);
  if (Rank == 0)
    printf("ok %d\n", P);
  MPI_Finalize();
  return 0;
}
