/* The drop-in watching its calls (dropin/Watch.h): <calls> rounds of a
 * broadcast of <bytes> bytes from rank 0 and an allreduce of <bytes>/4 ints,
 * each result checked; on a split communicator (the even ranks) the same.
 * Prints one line per rank: "watch: <calls> rounds as rank R, results
 * correct", or what was wrong.
 *
 *   watch <bytes> <calls>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(MPI_Comm Comm, int Bytes, int Round) {
  int Rank, Size, Bad = 0;
  MPI_Comm_rank(Comm, &Rank);
  MPI_Comm_size(Comm, &Size);
  unsigned char *Buf = malloc((size_t)Bytes);
  for (int I = 0; I < Bytes; ++I)
    Buf[I] = Rank == 0 ? (unsigned char)(I * 7 + Round) : 0;
  MPI_Bcast(Buf, Bytes, MPI_UNSIGNED_CHAR, 0, Comm);
  for (int I = 0; I < Bytes; ++I)
    Bad |= Buf[I] != (unsigned char)(I * 7 + Round);
  int Count = Bytes / 4 > 0 ? Bytes / 4 : 1;
  int *In = malloc(sizeof(int) * (size_t)Count);
  int *Out = malloc(sizeof(int) * (size_t)Count);
  for (int I = 0; I < Count; ++I)
    In[I] = Rank + I + Round;
  MPI_Allreduce(In, Out, Count, MPI_INT, MPI_SUM, Comm);
  for (int I = 0; I < Count; ++I)
    Bad |= Out[I] != Size * (I + Round) + Size * (Size - 1) / 2;
  free(Buf);
  free(In);
  free(Out);
  return Bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Bytes = argc > 1 ? atoi(argv[1]) : 65536;
  int Calls = argc > 2 ? atoi(argv[2]) : 16;
  int Rank, Bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm Half;
  MPI_Comm_split(MPI_COMM_WORLD, Rank % 2, Rank, &Half);
  for (int Round = 0; Round < Calls; ++Round) {
    Bad |= check(MPI_COMM_WORLD, Bytes, Round);
    if (Rank % 2 == 0)
      Bad |= check(Half, Bytes, Round);
  }
  MPI_Comm_free(&Half);
  if (Bad)
    printf("watch: rank %d: wrong results\n", Rank);
  else
    printf("watch: %d rounds as rank %d, results correct\n", Calls, Rank);
  MPI_Finalize();
  return 0;
}
