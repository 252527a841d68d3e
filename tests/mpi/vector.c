/* A program that knows nothing of collc and calls MPI's collectives that
 * are no collective of collc's or new to it: the vector variants
 * (MPI_Allgatherv, MPI_Gatherv, MPI_Scatterv, MPI_Alltoallv, MPI_Alltoallw),
 * reduce-scatter (MPI_Reduce_scatter_block, MPI_Reduce_scatter) and the
 * neighborhood
 * collectives of a Cartesian topology, blocking, non-blocking and (where the
 * MPI library has them) persistent, with equal and unequal counts, in place
 * and not, on MPI_COMM_WORLD and on a split communicator. Every result is
 * checked, and so are the gaps between the blocks a call must not touch.
 *
 *   vector [rounds [seed]]
 *
 * A seed draws each round's count (0 to 2999 ints), gaps, root and whether
 * the rooted and all-to-all calls' counts differ (the same on every rank);
 * without one they follow a fixed cycle.
 *
 * Prints, for every call it made as rank 0 of its communicator (the calls
 * COLLC_VERBOSE=1 reports), what the drop-in library must say of it:
 *   vector: expect served allgatherv       (served as an allgather)
 *   vector: expect served reduce_scatter_block (served by collc)
 *   vector: expect passed MPI_Gatherv      (handed to the MPI library)
 * then, per rank, "vector: results correct"; exits with 1 after printing
 * the first wrong value. */
#include <mpi.h>
#if defined(OMPI_MAJOR_VERSION)
#include <mpi-ext.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define INIT(Coll) MPIX_##Coll##_init
#define INIT_NAME "MPIX_"
#define HAVE_PERSISTENT 1
#elif defined(MPICH_VERSION) && MPI_VERSION >= 4
#define INIT(Coll) MPI_##Coll##_init
#define INIT_NAME "MPI_"
#define HAVE_PERSISTENT 1
#endif

/* SimGrid's SMPI: no MPI_Comm_idup, so collc passes every non-blocking call
 * on; its neighborhood collectives are not implemented. */
#ifdef SMPI_H
#define SERVES_NONBLOCKING 0
#define HAVE_NEIGHBORS 0
#else
#define SERVES_NONBLOCKING 1
#define HAVE_NEIGHBORS 1
#endif

/* A value no call writes: the gaps between blocks keep it. */
#define GAP (-7)

static int WorldRank;

static int value(int Rank, int I, int Round) {
  return Rank * 100003 + I * 7 + Round;
}

static void check(int Got, int Want, const char *What, int At) {
  if (Got == Want)
    return;
  fprintf(stderr, "vector: rank %d: %s at %d is %d, expected %d\n", WorldRank,
          What, At, Got, Want);
  exit(1);
}

static int rankOf(MPI_Comm C) {
  int R;
  MPI_Comm_rank(C, &R);
  return R;
}

/* What the drop-in must say of a call made on \p C. */
static void expect(MPI_Comm C, const char *How, const char *Name) {
  if (rankOf(C) == 0)
    printf("vector: expect %s %s\n", How, Name);
}

static void *must(size_t Bytes) {
  void *P = malloc(Bytes ? Bytes : 1);
  if (!P) {
    fprintf(stderr, "vector: out of memory\n");
    exit(1);
  }
  return P;
}

/* The forms of a call. */
enum Form { Blocking, NonBlocking, Persistent };

/* Whether the drop-in serves a call of these counts: all equal, or P blocks
 * of the largest move at most twice what they add up to (dropin/
 * Interpose.cpp, MaxPadding). */
static int padded(const int *Counts, int P) {
  long Sum = 0, Max = 0;
  for (int I = 0; I < P; ++I) {
    Sum += Counts[I];
    if (Counts[I] > Max)
      Max = Counts[I];
  }
  return (long)P * Max <= 2 * Sum;
}

/* Rank r's count of a call of \p Count ints a rank: Count (Unequal 0),
 * Count + r (1), or all on rank 0 (2: Count * P + 1 there, none elsewhere). */
static int countOf(int Count, int Unequal, int R, int P) {
  return Unequal == 2 ? (R == 0 ? Count * P + 1 : 0)
                      : Count + (Unequal ? R : 0);
}

/* MPI_Allgatherv with \p Count ints from every rank (Unequal: countOf), the
 * blocks laid out at \p Stride ints apart in \p Order (0: rank order; 1:
 * reversed), in place or not, in form \p F. */
static void allgatherv(MPI_Comm C, int Count, int Unequal, int Stride,
                       int Order, int InPlace, enum Form F, int Round) {
#ifndef HAVE_PERSISTENT
  if (F == Persistent)
    return;
#endif
  int P, R = rankOf(C);
  MPI_Comm_size(C, &P);
  int *Counts = must(sizeof(int) * P), *Displs = must(sizeof(int) * P);
  int Max = 0;
  for (int I = 0; I < P; ++I) {
    Counts[I] = countOf(Count, Unequal, I, P);
    if (Counts[I] > Max)
      Max = Counts[I];
  }
  if (Stride < Max)
    Stride = Max;
  for (int I = 0; I < P; ++I)
    Displs[I] = (Order ? P - 1 - I : I) * Stride;
  const int Total = P * Stride;
  int *Recv = must(sizeof(int) * Total), *Send = must(sizeof(int) * Max);
  for (int I = 0; I < Total; ++I)
    Recv[I] = GAP;
  for (int I = 0; I < Counts[R]; ++I) {
    Send[I] = value(R, I, Round);
    if (InPlace)
      Recv[Displs[R] + I] = Send[I];
  }
  const void *From = InPlace ? MPI_IN_PLACE : Send;
  /* Served as an allgather of blocks of the largest count when the counts
   * are equal (one rank's always are) or not too unequal; collc's
   * non-blocking calls need MPI_Comm_idup (not under SMPI). */
  const int Served = padded(Counts, P) && (F == Blocking || SERVES_NONBLOCKING);
  MPI_Request Req;
  switch (F) {
  case Blocking:
    MPI_Allgatherv(From, Counts[R], MPI_INT, Recv, Counts, Displs, MPI_INT, C);
    expect(C, Served ? "served" : "passed",
           Served ? "allgatherv" : "MPI_Allgatherv");
    break;
  case NonBlocking:
    MPI_Iallgatherv(From, Counts[R], MPI_INT, Recv, Counts, Displs, MPI_INT, C,
                    &Req);
    MPI_Wait(&Req, MPI_STATUS_IGNORE);
    expect(C, Served ? "served" : "passed",
           Served ? "iallgatherv" : "MPI_Iallgatherv");
    break;
  case Persistent:
#ifdef HAVE_PERSISTENT
    INIT(Allgatherv)
    (From, Counts[R], MPI_INT, Recv, Counts, Displs, MPI_INT, C, MPI_INFO_NULL,
     &Req);
    expect(C, Served ? "served" : "passed",
           Served ? "allgatherv_init" : INIT_NAME "Allgatherv_init");
    /* Two starts, the second on new data. */
    for (int S = 0; S < 2; ++S) {
      if (S == 1)
        for (int I = 0; I < Counts[R]; ++I) {
          Send[I] = value(R, I, Round + 1);
          if (InPlace)
            Recv[Displs[R] + I] = Send[I];
        }
      MPI_Start(&Req);
      MPI_Wait(&Req, MPI_STATUS_IGNORE);
      if (Served)
        expect(C, "served", "MPI_Start of allgatherv_init");
    }
    MPI_Request_free(&Req);
    ++Round;
#endif
    break;
  }
  for (int X = 0; X < P; ++X)
    for (int I = 0; I < Stride; ++I)
      check(Recv[Displs[X] + I], I < Counts[X] ? value(X, I, Round) : GAP,
            "allgatherv", Displs[X] + I);
  free(Counts);
  free(Displs);
  free(Recv);
  free(Send);
}

/* MPI_Gatherv and MPI_Scatterv to and from \p Root, rank r's block Count
 * (+ r when Unequal) ints at (P - 1 - r) * Stride. */
static void rooted(MPI_Comm C, int Count, int Unequal, int Root, int Round) {
  int P, R = rankOf(C);
  MPI_Comm_size(C, &P);
  int *Counts = must(sizeof(int) * P), *Displs = must(sizeof(int) * P);
  const int Stride = Count + P + 2;
  for (int I = 0; I < P; ++I) {
    Counts[I] = Count + (Unequal ? I : 0);
    Displs[I] = (P - 1 - I) * Stride;
  }
  int *All = must(sizeof(int) * P * Stride), *Mine = must(sizeof(int) * Stride);
  for (int I = 0; I < P * Stride; ++I)
    All[I] = GAP;
  for (int I = 0; I < Counts[R]; ++I)
    Mine[I] = value(R, I, Round);
  MPI_Gatherv(Mine, Counts[R], MPI_INT, All, Counts, Displs, MPI_INT, Root, C);
  expect(C, "passed", "MPI_Gatherv");
  if (R == Root)
    for (int X = 0; X < P; ++X)
      for (int I = 0; I < Stride; ++I)
        check(All[Displs[X] + I], I < Counts[X] ? value(X, I, Round) : GAP,
              "gatherv", Displs[X] + I);
  /* Scatter back what was gathered, with the non-blocking form. */
  for (int I = 0; I < Stride; ++I)
    Mine[I] = GAP;
  MPI_Request Req;
  MPI_Iscatterv(All, Counts, Displs, MPI_INT, Mine, Counts[R], MPI_INT, Root, C,
                &Req);
  MPI_Wait(&Req, MPI_STATUS_IGNORE);
  expect(C, "passed", "MPI_Iscatterv");
  for (int I = 0; I < Stride; ++I)
    check(Mine[I], I < Counts[R] ? value(R, I, Round) : GAP, "iscatterv", I);
  free(Counts);
  free(Displs);
  free(All);
  free(Mine);
}

/* MPI_Alltoallv and MPI_Alltoallw: rank a sends b Count (+ a + b when
 * Unequal) ints. */
static void alltoallv(MPI_Comm C, int Count, int Unequal, int Round) {
  int P, R = rankOf(C);
  MPI_Comm_size(C, &P);
  const int Stride = Count + 2 * P;
  int *SC = must(sizeof(int) * P), *SD = must(sizeof(int) * P),
      *RC = must(sizeof(int) * P), *RD = must(sizeof(int) * P),
      *SB = must(sizeof(int) * P), *RB = must(sizeof(int) * P);
  MPI_Datatype *Types = must(sizeof(MPI_Datatype) * P);
  int *Send = must(sizeof(int) * P * Stride),
      *Recv = must(sizeof(int) * P * Stride);
  for (int X = 0; X < P; ++X) {
    SC[X] = Count + (Unequal ? R + X : 0);
    RC[X] = Count + (Unequal ? X + R : 0);
    SD[X] = X * Stride;
    RD[X] = (P - 1 - X) * Stride;
    SB[X] = SD[X] * (int)sizeof(int);
    RB[X] = RD[X] * (int)sizeof(int);
    Types[X] = MPI_INT;
    for (int I = 0; I < SC[X]; ++I)
      Send[SD[X] + I] = value(R, X * Stride + I, Round);
  }
  for (int W = 0; W < 2; ++W) {
    for (int I = 0; I < P * Stride; ++I)
      Recv[I] = GAP;
    if (W) {
      MPI_Alltoallw(Send, SC, SB, Types, Recv, RC, RB, Types, C);
      expect(C, "passed", "MPI_Alltoallw");
    } else {
      MPI_Alltoallv(Send, SC, SD, MPI_INT, Recv, RC, RD, MPI_INT, C);
      expect(C, "passed", "MPI_Alltoallv");
    }
    for (int X = 0; X < P; ++X)
      for (int I = 0; I < Stride; ++I)
        check(Recv[RD[X] + I],
              I < RC[X] ? value(X, R * Stride + I, Round) : GAP,
              W ? "alltoallw" : "alltoallv", RD[X] + I);
  }
  free(SC);
  free(SD);
  free(RC);
  free(RD);
  free(SB);
  free(RB);
  free(Types);
  free(Send);
  free(Recv);
}

/* MPI_Reduce_scatter_block, and MPI_Reduce_scatter with equal and unequal
 * counts: the sum of every rank's vector, rank r's block to rank r. */
static void reduceScatter(MPI_Comm C, int Count, int Round) {
  int P, R = rankOf(C);
  MPI_Comm_size(C, &P);
  int *Counts = must(sizeof(int) * P), *First = must(sizeof(int) * P);
  for (int Unequal = -1; Unequal <= 2; ++Unequal) {
    int Total = 0;
    for (int X = 0; X < P; ++X) {
      Counts[X] = countOf(Count, Unequal < 0 ? 0 : Unequal, X, P);
      First[X] = Total;
      Total += Counts[X];
    }
    int *Send = must(sizeof(int) * Total),
        *Recv = must(sizeof(int) * (Counts[R] + 1));
    for (int I = 0; I < Total; ++I)
      Send[I] = value(R, I, Round);
    Recv[Counts[R]] = GAP;
    if (Unequal < 0) {
      MPI_Reduce_scatter_block(Send, Recv, Count, MPI_INT, MPI_SUM, C);
      expect(C, "served", "reduce_scatter_block");
    } else {
      /* Served as a reduce-scatter of blocks of the largest count when the
       * counts are equal or not too unequal. */
      MPI_Reduce_scatter(Send, Recv, Counts, MPI_INT, MPI_SUM, C);
      const int Served = padded(Counts, P);
      expect(C, Served ? "served" : "passed",
             Served ? "reduce_scatter" : "MPI_Reduce_scatter");
    }
    for (int I = 0; I < Counts[R]; ++I) {
      long Want = 0;
      for (int X = 0; X < P; ++X)
        Want += value(X, First[R] + I, Round);
      check(Recv[I], (int)Want, "reduce_scatter", I);
    }
    check(Recv[Counts[R]], GAP, "reduce_scatter (past the block)", Counts[R]);
    free(Send);
    free(Recv);
  }
  /* In place, non-blocking. */
  int *Buf = must(sizeof(int) * P * (Count + 1));
  for (int I = 0; I < P * Count; ++I)
    Buf[I] = value(R, I, Round);
  MPI_Request Req;
  MPI_Ireduce_scatter_block(MPI_IN_PLACE, Buf, Count, MPI_INT, MPI_SUM, C,
                            &Req);
  MPI_Wait(&Req, MPI_STATUS_IGNORE);
  expect(C, SERVES_NONBLOCKING ? "served" : "passed",
         SERVES_NONBLOCKING ? "ireduce_scatter_block"
                            : "MPI_Ireduce_scatter_block");
  for (int I = 0; I < Count; ++I) {
    long Want = 0;
    for (int X = 0; X < P; ++X)
      Want += value(X, R * Count + I, Round);
    check(Buf[I], (int)Want, "ireduce_scatter_block in place", I);
  }
  free(Buf);
#ifdef HAVE_PERSISTENT
  /* Persistent: built once, started twice on new data. */
  int *PSend = must(sizeof(int) * (P * Count + 1)),
      *PRecv = must(sizeof(int) * (Count + 1));
  INIT(Reduce_scatter_block)
  (PSend, PRecv, Count, MPI_INT, MPI_SUM, C, MPI_INFO_NULL, &Req);
  expect(C, "served", "reduce_scatter_block_init");
  for (int S = 0; S < 2; ++S) {
    for (int I = 0; I < P * Count; ++I)
      PSend[I] = value(R, I, Round + S);
    PRecv[Count] = GAP;
    MPI_Start(&Req);
    MPI_Wait(&Req, MPI_STATUS_IGNORE);
    expect(C, "served", "MPI_Start of reduce_scatter_block_init");
    for (int I = 0; I < Count; ++I) {
      long Want = 0;
      for (int X = 0; X < P; ++X)
        Want += value(X, R * Count + I, Round + S);
      check(PRecv[I], (int)Want, "reduce_scatter_block_init", I);
    }
    check(PRecv[Count], GAP, "reduce_scatter_block_init (past the block)",
          Count);
  }
  MPI_Request_free(&Req);
  free(PSend);
  free(PRecv);
#endif
  free(Counts);
  free(First);
}

#if HAVE_NEIGHBORS
/* The neighborhood collectives on a periodic ring (a 1-D Cartesian
 * topology) of 3 ranks or more: each rank's neighbours are r - 1 and r + 1. */
static void neighbors(MPI_Comm C, int Count, int Round) {
  int P, R;
  MPI_Comm_size(C, &P);
  int Dims[1] = {P}, Periods[1] = {1};
  MPI_Comm Ring;
  MPI_Cart_create(C, 1, Dims, Periods, 0, &Ring);
  MPI_Comm_rank(Ring, &R);
  const int Left = (R + P - 1) % P, Right = (R + 1) % P;
  const int Nb[2] = {Left, Right};
  int *Send = must(sizeof(int) * 2 * Count),
      *Recv = must(sizeof(int) * 2 * Count);
  int Counts[2] = {Count, Count}, Displs[2] = {0, Count};
  MPI_Aint Bytes[2] = {0, (MPI_Aint)(Count * sizeof(int))};
  MPI_Datatype Types[2] = {MPI_INT, MPI_INT};
  /* Block d of the send buffer goes to neighbour d (alltoall forms); the
   * allgather forms send block 0 to both. */
  for (int D = 0; D < 2; ++D)
    for (int I = 0; I < Count; ++I)
      Send[D * Count + I] = value(R, D * Count + I, Round);
  for (int K = 0; K < 6; ++K) {
    for (int I = 0; I < 2 * Count; ++I)
      Recv[I] = GAP;
    MPI_Request Req;
    const int Gather = K == 0 || K == 1 || K == 5;
    switch (K) {
    case 0:
      MPI_Neighbor_allgather(Send, Count, MPI_INT, Recv, Count, MPI_INT, Ring);
      expect(Ring, "passed", "MPI_Neighbor_allgather");
      break;
    case 1:
      MPI_Neighbor_allgatherv(Send, Count, MPI_INT, Recv, Counts, Displs,
                              MPI_INT, Ring);
      expect(Ring, "passed", "MPI_Neighbor_allgatherv");
      break;
    case 2:
      MPI_Neighbor_alltoall(Send, Count, MPI_INT, Recv, Count, MPI_INT, Ring);
      expect(Ring, "passed", "MPI_Neighbor_alltoall");
      break;
    case 3:
      MPI_Neighbor_alltoallv(Send, Counts, Displs, MPI_INT, Recv, Counts,
                             Displs, MPI_INT, Ring);
      expect(Ring, "passed", "MPI_Neighbor_alltoallv");
      break;
    case 4:
      MPI_Neighbor_alltoallw(Send, Counts, Bytes, Types, Recv, Counts, Bytes,
                             Types, Ring);
      expect(Ring, "passed", "MPI_Neighbor_alltoallw");
      break;
    case 5:
      MPI_Ineighbor_allgather(Send, Count, MPI_INT, Recv, Count, MPI_INT, Ring,
                              &Req);
      MPI_Wait(&Req, MPI_STATUS_IGNORE);
      expect(Ring, "passed", "MPI_Ineighbor_allgather");
      break;
    }
    /* From neighbour d: its block 0 (allgather forms), or the block it
     * sends that way: the left one sends its right block, and back. */
    for (int D = 0; D < 2; ++D)
      for (int I = 0; I < Count; ++I)
        check(Recv[D * Count + I],
              value(Nb[D], (Gather ? 0 : 1 - D) * Count + I, Round),
              "neighborhood", D * Count + I);
  }
  free(Send);
  free(Recv);
  MPI_Comm_free(&Ring);
}
#endif

static void round_(MPI_Comm C, int Round) {
  int P;
  MPI_Comm_size(C, &P);
  const int Count = Seed ? (int)draw(Round, 0, 3000) : 1 + Round * 37 % 300;
  /* The gaps between the blocks of the staged calls. */
  int Gap[4] = {3, 5, 1, 2};
  for (int K = 0; Seed && K < 4; ++K)
    Gap[K] = 1 + (int)draw(Round, 1 + K, 9);
  const int Root = Seed ? (int)draw(Round, 5, P) : Round % P;
  const int Unequal = Seed ? (int)draw(Round, 6, 2) : Round % 2;
  /* Equal counts: served, straight and staged, in place and not. */
  allgatherv(C, Count, 0, Count, 0, 0, Blocking, Round);
  allgatherv(C, Count, 0, Count + Gap[0], 1, 0, Blocking, Round);
  allgatherv(C, Count, 0, Count, 0, 1, Blocking, Round);
  allgatherv(C, Count, 0, Count + Gap[1], 1, 1, Blocking, Round);
  allgatherv(C, 0, 0, 4, 1, 0, Blocking, Round);
  allgatherv(C, Count, 0, Count + Gap[2], 1, 0, NonBlocking, Round);
  allgatherv(C, Count, 0, Count, 0, 1, NonBlocking, Round);
  allgatherv(C, Count, 0, Count + Gap[3], 1, 1, Persistent, Round);
  /* Unequal counts: served through the staging copy, padded; all on one
   * rank: passed on from 3 ranks. */
  allgatherv(C, Count, 1, Count, 0, 0, Blocking, Round);
  allgatherv(C, Count, 1, Count, 1, 1, NonBlocking, Round);
  allgatherv(C, Count, 1, Count + Gap[0], 1, 0, Persistent, Round);
  allgatherv(C, Count, 2, Count, 0, 0, Blocking, Round);
  allgatherv(C, Count, 2, Count, 1, 1, NonBlocking, Round);
  rooted(C, Count, Unequal, Root, Round);
  alltoallv(C, Count, Unequal, Round);
  reduceScatter(C, Count, Round);
#if HAVE_NEIGHBORS
  /* With fewer than 3 ranks a rank's two neighbours are one rank, and which
   * of its two messages lands in which block is the MPI library's choice. */
  if (P >= 3)
    neighbors(C, Count, Round);
#endif
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &WorldRank);
  const int Rounds = argc > 1 ? atoi(argv[1]) : 2;
  Seed = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 0;
  MPI_Comm Half;
  MPI_Comm_split(MPI_COMM_WORLD, WorldRank % 2, -WorldRank, &Half);
  for (int Round = 0; Round < Rounds; ++Round) {
    round_(MPI_COMM_WORLD, Round);
    round_(Half, Round);
  }
  MPI_Comm_free(&Half);
  printf("vector: results correct\n");
  MPI_Finalize();
  return 0;
}
