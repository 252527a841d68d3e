/* MPI-4's large-count collectives (MPI_Bcast_c and kin, with MPI_Count
 * counts) in their three forms: blocking, non-blocking (MPI_Ibcast_c, then
 * MPI_Wait) and persistent (MPI_Bcast_init_c, started twice, then freed).
 * Each of the ten collectives with a count (the barrier has none) runs on
 * 0, 1 and 1000 elements, root P - 1 where there is one, and its result is
 * compared with the MPI library's own int-count call (the PMPI_ entry
 * points, which a preloaded library does not interpose).
 *
 *   large_count [big]
 *
 * With "big", one MPI_Bcast_c of 2^31 + 8 bytes (a count beyond INT_MAX)
 * from rank 0 instead, checked byte for byte (about 2 GiB a rank).
 *
 * Prints "large_count: B blocking, N non-blocking, I persistent, S starts"
 * on rank 0 (the calls a library serving them all would report under
 * COLLC_VERBOSE=1), then "large_count: results correct" on every rank, or
 * each wrong result and an exit status of 1. MPICH 4.0.2's own persistent
 * collectives cannot be the reference: a persistent MPI_Gather_init started
 * again gathers the data of its first start, and a persistent scatter after
 * it fails with "Invalid communicator"; so the program runs under the
 * drop-in only, which serves every call. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"

static int Size, Calls[3], Starts, Wrong;

enum Kind {
  Bcast,
  Reduce,
  Allreduce,
  Scan,
  Exscan,
  Gather,
  Scatter,
  Allgather,
  Alltoall,
  ReduceScatterBlock,
  Kinds
};
static const char *KindNames[] = {
    "bcast",  "reduce",  "allreduce", "scan",     "exscan",
    "gather", "scatter", "allgather", "alltoall", "reduce_scatter_block"};
enum Form { Blocking, NonBlocking, Persistent, Forms };
static const char *FormNames[] = {"blocking", "non-blocking", "persistent"};

/* Starts (persistent: makes) the large-count call of kind K in form F;
 * *Req is the request of the last two. */
static int largeCall(enum Kind K, enum Form F, const int *In, int *Out,
                     MPI_Count N, MPI_Request *Req) {
  const MPI_Comm W = MPI_COMM_WORLD;
  const int Root = Size - 1;
  const MPI_Datatype T = MPI_INT;
  const MPI_Info I = MPI_INFO_NULL;
  switch (K) {
  case Bcast:
    return F == Blocking      ? MPI_Bcast_c(Out, N, T, Root, W)
           : F == NonBlocking ? MPI_Ibcast_c(Out, N, T, Root, W, Req)
                              : MPI_Bcast_init_c(Out, N, T, Root, W, I, Req);
  case Reduce:
    return F == Blocking ? MPI_Reduce_c(In, Out, N, T, MPI_SUM, Root, W)
           : F == NonBlocking
               ? MPI_Ireduce_c(In, Out, N, T, MPI_SUM, Root, W, Req)
               : MPI_Reduce_init_c(In, Out, N, T, MPI_SUM, Root, W, I, Req);
  case Allreduce:
    return F == Blocking ? MPI_Allreduce_c(In, Out, N, T, MPI_SUM, W)
           : F == NonBlocking
               ? MPI_Iallreduce_c(In, Out, N, T, MPI_SUM, W, Req)
               : MPI_Allreduce_init_c(In, Out, N, T, MPI_SUM, W, I, Req);
  case Scan:
    return F == Blocking ? MPI_Scan_c(In, Out, N, T, MPI_MAX, W)
           : F == NonBlocking
               ? MPI_Iscan_c(In, Out, N, T, MPI_MAX, W, Req)
               : MPI_Scan_init_c(In, Out, N, T, MPI_MAX, W, I, Req);
  case Exscan:
    return F == Blocking ? MPI_Exscan_c(In, Out, N, T, MPI_SUM, W)
           : F == NonBlocking
               ? MPI_Iexscan_c(In, Out, N, T, MPI_SUM, W, Req)
               : MPI_Exscan_init_c(In, Out, N, T, MPI_SUM, W, I, Req);
  case Gather:
    return F == Blocking ? MPI_Gather_c(In, N, T, Out, N, T, Root, W)
           : F == NonBlocking
               ? MPI_Igather_c(In, N, T, Out, N, T, Root, W, Req)
               : MPI_Gather_init_c(In, N, T, Out, N, T, Root, W, I, Req);
  case Scatter:
    return F == Blocking ? MPI_Scatter_c(In, N, T, Out, N, T, Root, W)
           : F == NonBlocking
               ? MPI_Iscatter_c(In, N, T, Out, N, T, Root, W, Req)
               : MPI_Scatter_init_c(In, N, T, Out, N, T, Root, W, I, Req);
  case Allgather:
    return F == Blocking ? MPI_Allgather_c(In, N, T, Out, N, T, W)
           : F == NonBlocking
               ? MPI_Iallgather_c(In, N, T, Out, N, T, W, Req)
               : MPI_Allgather_init_c(In, N, T, Out, N, T, W, I, Req);
  case Alltoall:
    return F == Blocking ? MPI_Alltoall_c(In, N, T, Out, N, T, W)
           : F == NonBlocking
               ? MPI_Ialltoall_c(In, N, T, Out, N, T, W, Req)
               : MPI_Alltoall_init_c(In, N, T, Out, N, T, W, I, Req);
  case ReduceScatterBlock:
    return F == Blocking ? MPI_Reduce_scatter_block_c(In, Out, N, T, MPI_SUM, W)
           : F == NonBlocking
               ? MPI_Ireduce_scatter_block_c(In, Out, N, T, MPI_SUM, W, Req)
               : MPI_Reduce_scatter_block_init_c(In, Out, N, T, MPI_SUM, W, I,
                                                 Req);
  default:
    return MPI_ERR_OTHER;
  }
}

/* The MPI library's own int-count call of kind K. */
static int libraryCall(enum Kind K, const int *In, int *Out, int N) {
  const MPI_Comm W = MPI_COMM_WORLD;
  const int Root = Size - 1;
  const MPI_Datatype T = MPI_INT;
  switch (K) {
  case Bcast:
    return PMPI_Bcast(Out, N, T, Root, W);
  case Reduce:
    return PMPI_Reduce(In, Out, N, T, MPI_SUM, Root, W);
  case Allreduce:
    return PMPI_Allreduce(In, Out, N, T, MPI_SUM, W);
  case Scan:
    return PMPI_Scan(In, Out, N, T, MPI_MAX, W);
  case Exscan:
    return PMPI_Exscan(In, Out, N, T, MPI_SUM, W);
  case Gather:
    return PMPI_Gather(In, N, T, Out, N, T, Root, W);
  case Scatter:
    return PMPI_Scatter(In, N, T, Out, N, T, Root, W);
  case Allgather:
    return PMPI_Allgather(In, N, T, Out, N, T, W);
  case Alltoall:
    return PMPI_Alltoall(In, N, T, Out, N, T, W);
  case ReduceScatterBlock:
    return PMPI_Reduce_scatter_block(In, Out, N, T, MPI_SUM, W);
  default:
    return MPI_ERR_OTHER;
  }
}

/* How many ints rank Rank's result of kind K holds that MPI defines
 * (exscan: none on rank 0; rooted results: only the root's). */
static size_t defined(enum Kind K, int N) {
  const int Root = Rank == Size - 1;
  switch (K) {
  case Reduce:
  case Gather:
    return Root ? (size_t)N * (K == Gather ? Size : 1) : 0;
  case Exscan:
    return Rank == 0 ? 0 : (size_t)N;
  case Allgather:
  case Alltoall:
    return (size_t)N * Size;
  default:
    return (size_t)N;
  }
}

static void test(enum Kind K, enum Form F, int N) {
  const size_t Ints = (size_t)N * Size + 1;
  int *In = must(Ints * sizeof(int)), *Out = must(Ints * sizeof(int)),
      *Want = must(Ints * sizeof(int));
  MPI_Request Req = MPI_REQUEST_NULL;
  const int Runs = F == Persistent ? 2 : 1;
  for (int Start = 0; Start < Runs; ++Start) {
    fill(In, Ints, (int)K * 100 + (int)F * 10 + Start);
    memset(Out, 0, Ints * sizeof(int));
    memset(Want, 0, Ints * sizeof(int));
    if (K == Bcast && Rank == Size - 1) { /* the root's message */
      memcpy(Out, In, (size_t)N * sizeof(int));
      memcpy(Want, In, (size_t)N * sizeof(int));
    }
    check(libraryCall(K, In, Want, N), "the library's call");
    if (F == Persistent) {
      if (Start == 0) {
        check(largeCall(K, F, In, Out, N, &Req), "the _init_c call");
        ++Calls[F];
      }
      check(MPI_Start(&Req), "MPI_Start");
      ++Starts;
      check(MPI_Wait(&Req, MPI_STATUS_IGNORE), "MPI_Wait");
    } else {
      check(largeCall(K, F, In, Out, N, &Req), "the _c call");
      if (F == NonBlocking)
        check(MPI_Wait(&Req, MPI_STATUS_IGNORE), "MPI_Wait");
      ++Calls[F];
    }
    if (memcmp(Out, Want, defined(K, N) * sizeof(int))) {
      fprintf(stderr,
              "large_count: %s (%s) of %d ints on rank %d, start %d: the "
              "result differs from the MPI library's\n",
              KindNames[K], FormNames[F], N, Rank, Start);
      ++Wrong;
    }
  }
  if (F == Persistent)
    check(MPI_Request_free(&Req), "MPI_Request_free");
  free(In);
  free(Out);
  free(Want);
}

/* One broadcast of more than INT_MAX bytes. */
static void big(void) {
  const MPI_Count N = ((MPI_Count)1 << 31) + 8;
  unsigned char *Buf = malloc((size_t)N);
  if (!Buf) {
    fprintf(stderr, "large_count: no memory for %lld bytes\n", (long long)N);
    exit(1);
  }
  for (MPI_Count I = 0; I < N; ++I)
    Buf[I] = Rank == 0 ? (unsigned char)(I * 131 + (I >> 20)) : 0;
  check(MPI_Bcast_c(Buf, N, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast_c");
  ++Calls[Blocking];
  for (MPI_Count I = 0; I < N; ++I)
    if (Buf[I] != (unsigned char)(I * 131 + (I >> 20))) {
      fprintf(stderr, "large_count: byte %lld of the broadcast differs\n",
              (long long)I);
      exit(1);
    }
  free(Buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Program = "large_count";
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (argc > 1 && !strcmp(argv[1], "big")) {
    big();
  } else {
    const int Counts[] = {0, 1, 1000};
    for (int K = 0; K < Kinds; ++K)
      for (int F = 0; F < Forms; ++F)
        for (int C = 0; C < 3; ++C)
          test((enum Kind)K, (enum Form)F, Counts[C]);
  }
  if (Rank == 0)
    printf("large_count: %d blocking, %d non-blocking, %d persistent, %d "
           "starts\n",
           Calls[Blocking], Calls[NonBlocking], Calls[Persistent], Starts);
  if (!Wrong)
    printf("large_count: results correct\n");
  MPI_Finalize();
  return Wrong ? 1 : 0;
}
