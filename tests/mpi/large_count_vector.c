/* MPI-4's large-count vector collectives (MPI_Allgatherv_c and kin: counts
 * of MPI_Count, displacements of MPI_Aint) in their three forms: blocking,
 * non-blocking (then MPI_Wait) and persistent (made, started, freed). Each
 * runs on three patterns of counts (equal; N + rank, which collc serves as
 * blocks of the largest; all on one rank, which it passes on) with gaps
 * between the blocks, and its result is compared with the MPI library's own
 * int-count call (the PMPI_ entry points, which a preloaded library does not
 * interpose).
 *
 *   large_count_vector
 *
 * Prints "large_count_vector: S served, L passed on" on rank 0 (the calls
 * of each kind a library that serves MPI_Allgatherv_c and
 * MPI_Reduce_scatter_c where their counts allow would report under
 * COLLC_VERBOSE=1, persistent starts included), then "large_count_vector:
 * results correct" on every rank, or each wrong result and an exit status of
 * 1. Needs at least 3 ranks (with 2, "all on one rank" is within the
 * padding collc serves). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"

static int Size, Served, Passed, Wrong;

enum Kind {
  Allgatherv,
  ReduceScatter,
  Gatherv,
  Scatterv,
  Alltoallv,
  Alltoallw,
  Kinds
};
static const char *KindNames[] = {"allgatherv", "reduce_scatter", "gatherv",
                                  "scatterv",   "alltoallv",      "alltoallw"};
enum Form { Blocking, NonBlocking, Persistent, Forms };
static const char *FormNames[] = {"blocking", "non-blocking", "persistent"};
enum Pattern { Equal, Mild, OneRank, Patterns };

/* The count of rank R's block in pattern Pt. */
static int countOf(enum Pattern Pt, int R, int N) {
  return Pt == Equal ? N : Pt == Mild ? N + R : R == 0 ? N : 0;
}

/* The count rank From sends to rank To in an all-to-all. */
static int pairCount(int From, int To, int N) {
  return N + (From + 2 * To) % 3;
}

/* One call's arguments, in both count types. */
struct Args {
  int Counts[64], Displs[64], SendCounts[64], SendDispls[64];
  MPI_Count LCounts[64], LSendCounts[64];
  MPI_Aint LDispls[64], LSendDispls[64];
  MPI_Datatype Types[64];
  int SendCount, RecvCount;
  size_t InInts, OutInts;
};

/* Lays out kind K's call for this rank: blocks one element apart. */
static void layout(enum Kind K, enum Pattern Pt, int N, struct Args *A) {
  int At = 0, SendAt = 0;
  for (int I = 0; I < Size; ++I) {
    A->Counts[I] = K == Alltoallv || K == Alltoallw ? pairCount(I, Rank, N)
                                                    : countOf(Pt, I, N);
    A->SendCounts[I] = K == Alltoallv || K == Alltoallw ? pairCount(Rank, I, N)
                                                        : countOf(Pt, I, N);
    A->Displs[I] = At;
    A->SendDispls[I] = SendAt;
    At += A->Counts[I] + 1;
    SendAt += A->SendCounts[I] + 1;
    A->Types[I] = MPI_INT;
  }
  if (K == Alltoallw) /* displacements in bytes */
    for (int I = 0; I < Size; ++I) {
      A->Displs[I] *= (int)sizeof(int);
      A->SendDispls[I] *= (int)sizeof(int);
    }
  for (int I = 0; I < Size; ++I) {
    A->LCounts[I] = A->Counts[I];
    A->LSendCounts[I] = A->SendCounts[I];
    A->LDispls[I] = A->Displs[I];
    A->LSendDispls[I] = A->SendDispls[I];
  }
  A->SendCount = countOf(Pt, Rank, N);
  A->RecvCount = countOf(Pt, Rank, N);
  A->InInts = (size_t)SendAt + 1;
  A->OutInts = (size_t)At + 1;
  if (K == ReduceScatter) { /* a packed vector in, this rank's block out */
    A->InInts = (size_t)(At - Size) + 1;
    A->OutInts = (size_t)A->Counts[Rank] + 1;
  }
}

/* Whether collc serves kind K on pattern Pt (it says so under
 * COLLC_VERBOSE): MPI_Allgatherv_c and MPI_Reduce_scatter_c unless the
 * counts are too far apart. */
static int served(enum Kind K, enum Pattern Pt) {
  return (K == Allgatherv || K == ReduceScatter) && Pt != OneRank;
}

/* Starts (persistent: makes) the large-count call; *Req is the request of
 * the last two forms. */
static int largeCall(enum Kind K, enum Form F, const struct Args *A,
                     const int *In, int *Out, MPI_Request *Req) {
  const MPI_Comm W = MPI_COMM_WORLD;
  const int Root = Size - 1;
  const MPI_Datatype T = MPI_INT;
  const MPI_Info I = MPI_INFO_NULL;
  switch (K) {
  case Allgatherv:
    return F == Blocking ? MPI_Allgatherv_c(In, A->SendCount, T, Out,
                                            A->LCounts, A->LDispls, T, W)
           : F == NonBlocking
               ? MPI_Iallgatherv_c(In, A->SendCount, T, Out, A->LCounts,
                                   A->LDispls, T, W, Req)
               : MPI_Allgatherv_init_c(In, A->SendCount, T, Out, A->LCounts,
                                       A->LDispls, T, W, I, Req);
  case ReduceScatter:
    return F == Blocking
               ? MPI_Reduce_scatter_c(In, Out, A->LCounts, T, MPI_SUM, W)
           : F == NonBlocking
               ? MPI_Ireduce_scatter_c(In, Out, A->LCounts, T, MPI_SUM, W, Req)
               : MPI_Reduce_scatter_init_c(In, Out, A->LCounts, T, MPI_SUM, W,
                                           I, Req);
  case Gatherv:
    return F == Blocking ? MPI_Gatherv_c(In, A->SendCount, T, Out, A->LCounts,
                                         A->LDispls, T, Root, W)
           : F == NonBlocking
               ? MPI_Igatherv_c(In, A->SendCount, T, Out, A->LCounts,
                                A->LDispls, T, Root, W, Req)
               : MPI_Gatherv_init_c(In, A->SendCount, T, Out, A->LCounts,
                                    A->LDispls, T, Root, W, I, Req);
  case Scatterv:
    return F == Blocking ? MPI_Scatterv_c(In, A->LSendCounts, A->LSendDispls, T,
                                          Out, A->RecvCount, T, Root, W)
           : F == NonBlocking
               ? MPI_Iscatterv_c(In, A->LSendCounts, A->LSendDispls, T, Out,
                                 A->RecvCount, T, Root, W, Req)
               : MPI_Scatterv_init_c(In, A->LSendCounts, A->LSendDispls, T, Out,
                                     A->RecvCount, T, Root, W, I, Req);
  case Alltoallv:
    return F == Blocking ? MPI_Alltoallv_c(In, A->LSendCounts, A->LSendDispls,
                                           T, Out, A->LCounts, A->LDispls, T, W)
           : F == NonBlocking
               ? MPI_Ialltoallv_c(In, A->LSendCounts, A->LSendDispls, T, Out,
                                  A->LCounts, A->LDispls, T, W, Req)
               : MPI_Alltoallv_init_c(In, A->LSendCounts, A->LSendDispls, T,
                                      Out, A->LCounts, A->LDispls, T, W, I,
                                      Req);
  case Alltoallw:
    return F == Blocking
               ? MPI_Alltoallw_c(In, A->LSendCounts, A->LSendDispls, A->Types,
                                 Out, A->LCounts, A->LDispls, A->Types, W)
           : F == NonBlocking
               ? MPI_Ialltoallw_c(In, A->LSendCounts, A->LSendDispls, A->Types,
                                  Out, A->LCounts, A->LDispls, A->Types, W, Req)
               : MPI_Alltoallw_init_c(In, A->LSendCounts, A->LSendDispls,
                                      A->Types, Out, A->LCounts, A->LDispls,
                                      A->Types, W, I, Req);
  default:
    return MPI_ERR_OTHER;
  }
}

/* The MPI library's own int-count call of kind K. */
static int libraryCall(enum Kind K, const struct Args *A, const int *In,
                       int *Out) {
  const MPI_Comm W = MPI_COMM_WORLD;
  const int Root = Size - 1;
  const MPI_Datatype T = MPI_INT;
  switch (K) {
  case Allgatherv:
    return PMPI_Allgatherv(In, A->SendCount, T, Out, A->Counts, A->Displs, T,
                           W);
  case ReduceScatter:
    return PMPI_Reduce_scatter(In, Out, A->Counts, T, MPI_SUM, W);
  case Gatherv:
    return PMPI_Gatherv(In, A->SendCount, T, Out, A->Counts, A->Displs, T, Root,
                        W);
  case Scatterv:
    return PMPI_Scatterv(In, A->SendCounts, A->SendDispls, T, Out, A->RecvCount,
                         T, Root, W);
  case Alltoallv:
    return PMPI_Alltoallv(In, A->SendCounts, A->SendDispls, T, Out, A->Counts,
                          A->Displs, T, W);
  case Alltoallw:
    return PMPI_Alltoallw(In, A->SendCounts, A->SendDispls, A->Types, Out,
                          A->Counts, A->Displs, A->Types, W);
  default:
    return MPI_ERR_OTHER;
  }
}

static void test(enum Kind K, enum Form F, enum Pattern Pt, int N) {
  struct Args A;
  layout(K, Pt, N, &A);
  int *In = must(A.InInts * sizeof(int)), *Out = must(A.OutInts * sizeof(int)),
      *Want = must(A.OutInts * sizeof(int));
  MPI_Request Req = MPI_REQUEST_NULL;
  /* MPICH 4.0.2's own persistent collectives may be wrong on a second start
   * (tests/mpi/large_count.c): the ones passed to it start once. */
  const int Runs = F == Persistent && served(K, Pt) ? 2 : 1;
  for (int Start = 0; Start < Runs; ++Start) {
    fill(In, A.InInts, (int)K * 1000 + (int)F * 100 + (int)Pt * 10 + Start);
    memset(Out, 0, A.OutInts * sizeof(int));
    memset(Want, 0, A.OutInts * sizeof(int));
    check(libraryCall(K, &A, In, Want), "the library's call");
    if (F == Persistent) {
      if (Start == 0)
        check(largeCall(K, F, &A, In, Out, &Req), "the _init_c call");
      check(MPI_Start(&Req), "MPI_Start");
      check(MPI_Wait(&Req, MPI_STATUS_IGNORE), "MPI_Wait");
    } else {
      check(largeCall(K, F, &A, In, Out, &Req), "the _c call");
      if (F == NonBlocking)
        check(MPI_Wait(&Req, MPI_STATUS_IGNORE), "MPI_Wait");
    }
    /* The made call and each start are said. */
    const int Said = F == Persistent && Start == 0 ? 2 : 1;
    if (served(K, Pt))
      Served += Said;
    else
      Passed += Said - (F == Persistent && Start == 0); /* said once */
    /* A rooted result is the root's only. */
    const int Defined = !(K == Gatherv && Rank != Size - 1);
    if (Defined && memcmp(Out, Want, A.OutInts * sizeof(int))) {
      fprintf(stderr,
              "large_count_vector: %s (%s) of counts pattern %d, N %d on rank "
              "%d, start %d: the result differs from the MPI library's\n",
              KindNames[K], FormNames[F], (int)Pt, N, Rank, Start);
      ++Wrong;
    }
  }
  if (F == Persistent)
    check(MPI_Request_free(&Req), "MPI_Request_free");
  free(In);
  free(Out);
  free(Want);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Program = "large_count_vector";
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (Size < 3 || Size > 64) {
    fprintf(stderr, "large_count_vector: needs 3 to 64 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int Ns[] = {1, 1000};
  for (int K = 0; K < Kinds; ++K)
    for (int F = 0; F < Forms; ++F)
      for (int Pt = 0; Pt < Patterns; ++Pt)
        for (int C = 0; C < 2; ++C)
          test((enum Kind)K, (enum Form)F, (enum Pattern)Pt, Ns[C]);
  if (Rank == 0)
    printf("large_count_vector: %d served, %d passed on\n", Served, Passed);
  if (!Wrong)
    printf("large_count_vector: results correct\n");
  MPI_Finalize();
  return Wrong ? 1 : 0;
}
