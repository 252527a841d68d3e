/* Run by tests/bench/arena_limits.sh: rank 0 prints a row, then every rank
   either computes without end ("spin", what a launch that runs out of CPU
   time does) or sleeps without computing ("sleep", a launch that hangs), or
   ends at once ("done"). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  if (Rank == 0) {
    printf("1 2.5\n");
    fflush(stdout);
  }
  const char *What = argc > 1 ? argv[1] : "done";
  volatile unsigned long X = 0;
  if (strcmp(What, "spin") == 0)
    for (;;)
      ++X;
  if (strcmp(What, "sleep") == 0)
    for (;;)
      sleep(1);
  MPI_Finalize();
  return 0;
}
