/* A program that knows nothing of collc and mixes the three forms of MPI's
 * collectives: blocking, non-blocking (ten in flight at once on one
 * communicator, with the program's own point-to-point messages among them,
 * completed out of order with MPI_Wait, MPI_Testall, MPI_Waitany,
 * MPI_Testsome and MPI_Waitall) and persistent (MPI-4's MPI_*_init, or Open
 * MPI 4's MPIX_*_init; started with MPI_Start and MPI_Startall many times),
 * on MPI_COMM_WORLD and on split communicators at the same time, and a
 * broadcast that must move on while ranks wait in MPI_Recv. Every result is
 * checked; a derived datatype is freed while the call that uses it is in
 * flight.
 *
 *   nonblocking [rounds [seed [multiple]]]
 *
 * A seed draws each round's count (0 to 100000 ints) and roots; without
 * one they cycle through 0, 1, 7, 1000 and 70000 ints.
 *
 * Prints, per rank, the calls it made as rank 0 of their communicator (what
 * COLLC_VERBOSE=1 reports, one line per call):
 *   nonblocking: B blocking, N non-blocking, I persistent, S starts, U with
 *   a user operator as rank 0, results correct
 * (U: non-blocking calls with a user-defined operator, not counted in N).
 * and exits with 1 after printing the first wrong value. */
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
#define HAVE_PERSISTENT 1
#elif defined(MPICH_VERSION) && MPI_VERSION >= 4
#define INIT(Coll) MPI_##Coll##_init
#define HAVE_PERSISTENT 1
#endif

static int WorldRank;
static long Blocking, NonBlocking, Inits, Starts, UserOp;

static void check(int Ok, const char *What, int Round, long At, long Got,
                  long Want) {
  if (Ok)
    return;
  fprintf(stderr,
          "nonblocking: rank %d, round %d: %s at %ld is %ld, expected %ld\n",
          WorldRank, Round, What, At, Got, Want);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Counts a call made as rank 0 of its communicator. */
static void count(MPI_Comm Comm, long *Counter) {
  int R;
  MPI_Comm_rank(Comm, &R);
  if (R == 0)
    ++*Counter;
}

static int *ints(long N) { return malloc(sizeof(int) * (size_t)(N ? N : 1)); }

/* The contribution of rank K to element I of round R's reductions. */
static long value(int K, long I, int R) { return 3L * K + I % 1000 + R; }

enum { NumColl = 10 };

static void maxOf(void *In, void *InOut, int *Len, MPI_Datatype *Type) {
  (void)Type;
  for (int I = 0; I < *Len; ++I)
    if (((int *)In)[I] > ((int *)InOut)[I])
      ((int *)InOut)[I] = ((int *)In)[I];
}

/* One round of ten non-blocking collectives on Comm, all in flight with a
 * ring exchange of the program's own, then a blocking allreduce, all
 * completed out of order. */
static void nonBlockingRound(MPI_Comm Comm, int Round) {
  static const long Counts[] = {0, 1, 7, 1000, 70000};
  int Me, P;
  MPI_Comm_rank(Comm, &Me);
  MPI_Comm_size(Comm, &P);
  const long N = Seed ? draw(Round, 0, 100001) : Counts[Round % 5];
  const int Shift = Seed ? (int)draw(Round, 1, P) : 0;
  const long A = N > 1000 ? 1000 : N; /* per-rank blocks of the all-to-alls */
  const int BRoot = (Round + 1 + Shift) % P, RRoot = (Round + Shift) % P,
            GRoot = (Round + 2 + Shift * 3) % P,
            SRoot = (Round + 3 + Shift * 5) % P;
  int *RedIn = ints(N), *AllOut = ints(N), *RedOut = ints(N),
      *ScanOut = ints(N), *ExOut = ints(N), *Bc = ints(2 * N), *GIn = ints(A),
      *GOut = ints(A * P), *SIn = ints(A * P), *SOut = ints(A),
      *AgOut = ints(A * P), *AaIn = ints(A * P), *AaOut = ints(A * P);
  for (long I = 0; I < N; ++I)
    RedIn[I] = (int)value(Me, I, Round);
  /* The broadcast sends every other int (a vector datatype, freed while the
   * call is in flight). */
  for (long I = 0; I < 2 * N; ++I)
    Bc[I] = Me == BRoot ? (int)(7 * Round + I) : -1;
  for (long I = 0; I < A; ++I)
    GIn[I] = Me * 1000 + (int)I + Round;
  for (long I = 0; I < A * P; ++I) {
    SIn[I] = (int)(I * 3 + Round);
    AaIn[I] = Me * 10000 + (int)(I / A) * 100 + (int)(I % A % 100) + Round;
  }
  ExOut[0] = -5;
  MPI_Datatype Every2;
  MPI_Type_vector((int)N, 1, 2, MPI_INT, &Every2);
  MPI_Type_commit(&Every2);

  MPI_Request Req[NumColl + 2];
  /* Statuses filled (MPICH's MPI_STATUSES_IGNORE trips GCC's
   * -Wstringop-overflow). */
  MPI_Status Sts[NumColl + 2];
  MPI_Iallreduce(RedIn, AllOut, (int)N, MPI_INT, MPI_SUM, Comm, &Req[0]);
  MPI_Ibcast(Bc, N ? 1 : 0, Every2, BRoot, Comm, &Req[1]);
  MPI_Type_free(&Every2);
  MPI_Ireduce(RedIn, RedOut, (int)N, MPI_INT, MPI_SUM, RRoot, Comm, &Req[2]);
  /* The program's own ring exchange, among the collectives. */
  int RingOut = Me * 31 + Round, RingIn = -1;
  MPI_Irecv(&RingIn, 1, MPI_INT, (Me + P - 1) % P, 5, Comm, &Req[10]);
  MPI_Isend(&RingOut, 1, MPI_INT, (Me + 1) % P, 5, Comm, &Req[11]);
  MPI_Iscan(RedIn, ScanOut, (int)N, MPI_INT, MPI_SUM, Comm, &Req[3]);
  MPI_Iexscan(RedIn, ExOut, (int)N, MPI_INT, MPI_SUM, Comm, &Req[4]);
  MPI_Igather(GIn, (int)A, MPI_INT, GOut, (int)A, MPI_INT, GRoot, Comm,
              &Req[5]);
  MPI_Iscatter(SIn, (int)A, MPI_INT, SOut, (int)A, MPI_INT, SRoot, Comm,
               &Req[6]);
  MPI_Iallgather(GIn, (int)A, MPI_INT, AgOut, (int)A, MPI_INT, Comm, &Req[7]);
  MPI_Ialltoall(AaIn, (int)A, MPI_INT, AaOut, (int)A, MPI_INT, Comm, &Req[8]);
  MPI_Ibarrier(Comm, &Req[9]);
  for (int I = 0; I < NumColl; ++I)
    count(Comm, &NonBlocking);
  /* A blocking collective while they are in flight. */
  int Sum = 0, One = 1;
  MPI_Allreduce(&One, &Sum, 1, MPI_INT, MPI_SUM, Comm);
  count(Comm, &Blocking);
  check(Sum == P, "blocking allreduce", Round, 0, Sum, P);

  /* Out of order: the last one first, then the ring and the all-to-all
   * tested until done, then any of the rest, some by MPI_Testsome. */
  MPI_Wait(&Req[9], MPI_STATUS_IGNORE);
  int Flag = 0;
  MPI_Request Some[3] = {Req[10], Req[11], Req[8]};
  while (!Flag)
    MPI_Testall(3, Some, &Flag, Sts);
  Req[10] = Some[0];
  Req[11] = Some[1];
  Req[8] = Some[2];
  check(RingIn == ((Me + P - 1) % P) * 31 + Round, "ring message", Round, 0,
        RingIn, ((Me + P - 1) % P) * 31 + Round);
  int Done = 0, Left = 8;
  while (Left > 4) {
    int Index;
    MPI_Waitany(NumColl, Req, &Index, MPI_STATUS_IGNORE);
    check(Index >= 0 && Index < 9, "MPI_Waitany's index", Round, Done, Index,
          0);
    ++Done;
    --Left;
  }
  while (Left > 0) {
    int Out = 0, Idx[NumColl];
    MPI_Testsome(NumColl, Req, &Out, Idx, Sts);
    check(Out != MPI_UNDEFINED, "MPI_Testsome's count", Round, Left, Out, 1);
    Left -= Out;
  }
  MPI_Waitall(NumColl + 2, Req, Sts);
  for (int I = 0; I < NumColl + 2; ++I)
    check(Req[I] == MPI_REQUEST_NULL, "a completed request", Round, I, 1, 0);

  const long Base = 3L * P * (P - 1) / 2;
  for (long I = 0; I < N; ++I) {
    const long All = Base + (long)P * (I % 1000 + Round);
    check(AllOut[I] == All, "iallreduce", Round, I, AllOut[I], All);
    if (Me == RRoot)
      check(RedOut[I] == All, "ireduce", Round, I, RedOut[I], All);
    long Scan = 0;
    for (int K = 0; K <= Me; ++K)
      Scan += value(K, I, Round);
    check(ScanOut[I] == Scan, "iscan", Round, I, ScanOut[I], Scan);
    if (Me > 0) {
      long Ex = Scan - value(Me, I, Round);
      check(ExOut[I] == Ex, "iexscan", Round, I, ExOut[I], Ex);
    }
    check(Bc[2 * I] == 7 * Round + 2 * I, "ibcast", Round, 2 * I, Bc[2 * I],
          7 * Round + 2 * I);
    if (Me != BRoot)
      check(Bc[2 * I + 1] == -1, "ibcast's gap", Round, 2 * I + 1,
            Bc[2 * I + 1], -1);
  }
  for (int K = 0; K < P; ++K)
    for (long I = 0; I < A; ++I) {
      const long Got = K * 1000 + I + Round;
      if (Me == GRoot)
        check(GOut[K * A + I] == Got, "igather", Round, K * A + I,
              GOut[K * A + I], Got);
      check(AgOut[K * A + I] == Got, "iallgather", Round, K * A + I,
            AgOut[K * A + I], Got);
      const long Aa = K * 10000L + Me * 100 + I % 100 + Round;
      check(AaOut[K * A + I] == Aa, "ialltoall", Round, K * A + I,
            AaOut[K * A + I], Aa);
    }
  for (long I = 0; I < A; ++I)
    check(SOut[I] == (Me * A + I) * 3 + Round, "iscatter", Round, I, SOut[I],
          (Me * A + I) * 3 + Round);
  /* A user-defined operator, freed while the call is in flight (MPI allows
   * it): collc passes such calls to the MPI library, which holds it. */
  MPI_Op Max;
  MPI_Op_create(maxOf, 1, &Max);
  int Mine = Me * 7 % 5 + Round, Top = -1, Want = -1;
  MPI_Request U;
  MPI_Iallreduce(&Mine, &Top, 1, MPI_INT, Max, Comm, &U);
  count(Comm, &UserOp);
  MPI_Op_free(&Max);
  MPI_Wait(&U, MPI_STATUS_IGNORE);
  for (int K = 0; K < P; ++K)
    Want = K * 7 % 5 + Round > Want ? K * 7 % 5 + Round : Want;
  check(Top == Want, "iallreduce with a user operator", Round, 0, Top, Want);
  free(RedIn), free(AllOut), free(RedOut), free(ScanOut), free(ExOut);
  free(Bc), free(GIn), free(GOut), free(SIn), free(SOut), free(AgOut);
  free(AaIn), free(AaOut);
}

/* A broadcast in flight while every rank waits in a blocking receive for
 * the next rank, which sends only once its broadcast completed: the ranks
 * blocked in MPI_Recv must still forward the broadcast (MPI's progress
 * rule), or the last rank never gets it and the chain never unwinds. */
static void chainRound(MPI_Comm Comm, int Round) {
  int Me, P;
  MPI_Comm_rank(Comm, &Me);
  MPI_Comm_size(Comm, &P);
  enum { N = 50000 };
  static int Buf[N];
  for (int I = 0; I < N; ++I)
    Buf[I] = Me == 0 ? Round + I : -1;
  MPI_Request R;
  MPI_Ibcast(Buf, N, MPI_INT, 0, Comm, &R);
  count(Comm, &NonBlocking);
  int Token = 0;
  if (Me + 1 < P)
    MPI_Recv(&Token, 1, MPI_INT, Me + 1, 9, Comm, MPI_STATUS_IGNORE);
  MPI_Wait(&R, MPI_STATUS_IGNORE);
  if (Me > 0)
    MPI_Send(&Token, 1, MPI_INT, Me - 1, 9, Comm);
  for (int I = 0; I < N; ++I)
    check(Buf[I] == Round + I, "ibcast with a chain of receives", Round, I,
          Buf[I], Round + I);
}

#ifdef HAVE_PERSISTENT
/* Persistent calls made once on Comm and started every round, mixed with a
 * non-blocking broadcast. */
typedef struct {
  MPI_Comm Comm;
  int Me, P;
  int In[1000], Out[1000], Bc[64], AaIn[3 * 64], AaOut[3 * 64];
  MPI_Request Req[4];
} Persist;

static void persistentInit(Persist *S, MPI_Comm Comm) {
  S->Comm = Comm;
  MPI_Comm_rank(Comm, &S->Me);
  MPI_Comm_size(Comm, &S->P);
  INIT(Allreduce)
  (S->In, S->Out, 1000, MPI_INT, MPI_SUM, Comm, MPI_INFO_NULL, &S->Req[0]);
  INIT(Bcast)(S->Bc, 64, MPI_INT, S->P - 1, Comm, MPI_INFO_NULL, &S->Req[1]);
  INIT(Alltoall)
  (S->AaIn, 3, MPI_INT, S->AaOut, 3, MPI_INT, Comm, MPI_INFO_NULL, &S->Req[2]);
  INIT(Barrier)(Comm, MPI_INFO_NULL, &S->Req[3]);
  for (int I = 0; I < 4; ++I)
    count(Comm, &Inits);
}

static void persistentRound(Persist *S, int Round) {
  const int Me = S->Me, P = S->P;
  for (int I = 0; I < 1000; ++I)
    S->In[I] = (int)value(Me, I, Round);
  for (int I = 0; I < 64; ++I)
    S->Bc[I] = Me == P - 1 ? Round * 5 + I : -1;
  for (int I = 0; I < 3 * P; ++I)
    S->AaIn[I] = Me * 100 + (I / 3) * 10 + I % 3 + Round;
  int Extra[8], ExtraRoot = Round % P;
  for (int I = 0; I < 8; ++I)
    Extra[I] = Me == ExtraRoot ? Round + I : 0;
  MPI_Request Mixed[5];
  MPI_Status Sts[5];
  if (Round % 2) {
    MPI_Startall(4, S->Req);
    for (int I = 0; I < 4; ++I)
      count(S->Comm, &Starts);
  } else {
    for (int I = 3; I >= 0; --I) { /* any order: the same on every rank */
      MPI_Start(&S->Req[I]);
      count(S->Comm, &Starts);
    }
  }
  MPI_Ibcast(Extra, 8, MPI_INT, ExtraRoot, S->Comm, &Mixed[4]);
  count(S->Comm, &NonBlocking);
  memcpy(Mixed, S->Req, sizeof S->Req);
  if (Round % 3 == 0) {
    /* Tested until done: a persistent request is not done before its run. */
    int Flag = 0;
    while (!Flag)
      MPI_Test(&Mixed[0], &Flag, MPI_STATUS_IGNORE);
  }
  MPI_Waitall(5, Mixed, Sts);
  for (int I = 0; I < 4; ++I)
    check(Mixed[I] == S->Req[I], "a persistent request's handle", Round, I, 0,
          0);
  const long Base = 3L * P * (P - 1) / 2;
  for (int I = 0; I < 1000; ++I) {
    const long All = Base + (long)P * (I % 1000 + Round);
    check(S->Out[I] == All, "persistent allreduce", Round, I, S->Out[I], All);
  }
  for (int I = 0; I < 64; ++I)
    check(S->Bc[I] == Round * 5 + I, "persistent bcast", Round, I, S->Bc[I],
          Round * 5 + I);
  for (int K = 0; K < P; ++K)
    for (int I = 0; I < 3; ++I) {
      const long Want = K * 100 + Me * 10 + I + Round;
      check(S->AaOut[K * 3 + I] == Want, "persistent alltoall", Round,
            K * 3 + I, S->AaOut[K * 3 + I], Want);
    }
  for (int I = 0; I < 8; ++I)
    check(Extra[I] == Round + I, "ibcast among persistent calls", Round, I,
          Extra[I], Round + I);
}

static void persistentFree(Persist *S) {
  for (int I = 0; I < 4; ++I)
    MPI_Request_free(&S->Req[I]);
}
#endif

int main(int argc, char **argv) {
  /* "multiple" after the seed: MPI_THREAD_MULTIPLE is asked for (collc then
   * passes its non-blocking and persistent calls on). */
  int Provided = MPI_THREAD_SINGLE;
  if (argc > 3 && !strcmp(argv[3], "multiple"))
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &Provided);
  else
    MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &WorldRank);
  int Size;
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  const int Rounds = argc > 1 ? atoi(argv[1]) : 10;
  Seed = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 0;
  /* Halves (odd and even world ranks, of unequal sizes when the world is
   * odd) and the world. */
  MPI_Comm Half;
  MPI_Comm_split(MPI_COMM_WORLD, WorldRank % 2, Size - WorldRank, &Half);
  /* A blocking call on each first (under SMPI, which has no MPI_Comm_idup,
   * collc's non-blocking calls use the duplicate it makes). */
  MPI_Barrier(MPI_COMM_WORLD);
  count(MPI_COMM_WORLD, &Blocking);
  MPI_Barrier(Half);
  count(Half, &Blocking);
#ifdef HAVE_PERSISTENT
  Persist World, Split;
  persistentInit(&World, MPI_COMM_WORLD);
  persistentInit(&Split, Half);
#endif
  for (int R = 0; R < Rounds; ++R) {
    /* A non-blocking call on the half in flight while the world's round
     * runs. */
    int Token = WorldRank % 2 == 0 ? R : -1, Check = 0;
    MPI_Request T;
    MPI_Ibcast(&Token, 1, MPI_INT, 0, Half, &T);
    count(Half, &NonBlocking);
    nonBlockingRound(MPI_COMM_WORLD, R);
    MPI_Wait(&T, MPI_STATUS_IGNORE);
    Check = WorldRank % 2 == 0 ? R : -1;
    check(Token == Check, "ibcast on the half", R, 0, Token, Check);
    nonBlockingRound(Half, R);
    chainRound(MPI_COMM_WORLD, R);
#ifdef HAVE_PERSISTENT
    persistentRound(&World, R);
    persistentRound(&Split, R + 1);
#endif
    MPI_Barrier(Half);
    count(Half, &Blocking);
  }
#ifdef HAVE_PERSISTENT
  persistentFree(&World);
  persistentFree(&Split);
#endif
  MPI_Comm_free(&Half);
  if (Provided == MPI_THREAD_MULTIPLE)
    printf("nonblocking: with MPI_THREAD_MULTIPLE\n");
  printf("nonblocking: %ld blocking, %ld non-blocking, %ld persistent, %ld "
         "starts, %ld with a user operator as rank 0, results correct\n",
         Blocking, NonBlocking, Inits, Starts, UserOp);
  MPI_Finalize();
  return 0;
}
