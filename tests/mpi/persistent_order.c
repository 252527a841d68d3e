/* Persistent collectives (MPI-4) as MPI matches them: by the order they were
 * made, whatever the order of their starts. Two ranks' halves make a
 * persistent broadcast and a persistent allreduce in the same order and
 * start them in opposite orders, several times; then every rank frees
 * them and makes a persistent scan with a user-defined operator (collc
 * passes it on to the MPI library, whose request may take a freed one's
 * handle) and runs it. Each result is checked.
 *
 *   persistent_order
 *
 * Prints "persistent_order: results correct" on every rank; otherwise the
 * first wrong result, and exits with 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int Rank, Size;

static void fail(const char *What, int Got, int Want) {
  fprintf(stderr, "persistent_order: rank %d: %s is %d, not %d\n", Rank, What,
          Got, Want);
  exit(1);
}

static void add(void *In, void *InOut, int *Len, MPI_Datatype *Type) {
  (void)Type;
  for (int I = 0; I < *Len; ++I)
    ((int *)InOut)[I] += ((int *)In)[I];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  int Buf[64], Mine[64], Sum[64];
  MPI_Request Req[2];
  MPI_Bcast_init(Buf, 64, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &Req[0]);
  MPI_Allreduce_init(Mine, Sum, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                     MPI_INFO_NULL, &Req[1]);
  for (int Round = 0; Round < 4; ++Round) {
    for (int I = 0; I < 64; ++I) {
      Buf[I] = Rank == 0 ? Round * 1000 + I : -1;
      Mine[I] = Rank + Round + I;
    }
    /* The lower half starts the broadcast first, the upper half last. */
    const int First = Rank < Size / 2 ? 0 : 1;
    MPI_Start(&Req[First]);
    MPI_Start(&Req[1 - First]);
    MPI_Status Statuses[2];
    MPI_Waitall(2, Req, Statuses);
    for (int I = 0; I < 64; ++I) {
      if (Buf[I] != Round * 1000 + I)
        fail("a broadcast element", Buf[I], Round * 1000 + I);
      const int Want = Size * (Size - 1) / 2 + Size * (Round + I);
      if (Sum[I] != Want)
        fail("an allreduce element", Sum[I], Want);
    }
  }
  MPI_Request_free(&Req[0]);
  MPI_Request_free(&Req[1]);
  MPI_Op Add;
  MPI_Op_create(add, 1, &Add);
  int One = Rank, Prefix = -1;
  MPI_Request Scan;
  MPI_Scan_init(&One, &Prefix, 1, MPI_INT, Add, MPI_COMM_WORLD, MPI_INFO_NULL,
                &Scan);
  for (int Round = 0; Round < 3; ++Round) {
    MPI_Start(&Scan);
    MPI_Wait(&Scan, MPI_STATUS_IGNORE);
    if (Prefix != Rank * (Rank + 1) / 2)
      fail("the scan", Prefix, Rank * (Rank + 1) / 2);
  }
  MPI_Request_free(&Scan);
  MPI_Op_free(&Add);
  printf("persistent_order: results correct\n");
  MPI_Finalize();
  return 0;
}
