/* MPI semantics a drop-in collective library must keep, checked on any
 * number of ranks and every root: a non-commutative operator (reduce,
 * allreduce, scan), gather/scatter/broadcast/allgather/alltoall with a
 * strided vector datatype on some ranks against contiguous ints on others,
 * MPI_DOUBLE_INT, an intercommunicator (broadcast and barrier between a 1+N
 * split), invalid roots (-1, MPI_PROC_NULL, the size) and a 4 GiB datatype.
 *
 * It knows nothing of collc: tests/mpi/conformance.sh runs it under a library
 * from `collc --emit mpi-preload` (every call served correctly or passed to
 * the MPI library), and compiled with -DCOLLC_DIRECT against `--emit mpi`
 * entry points without fallback (every call served correctly or refused with
 * the expected error through the communicator's error handler).
 *
 * Every error a call returns must have reached the error handler, once, with
 * that code (collc's errors; under the preload library the MPI library's
 * own may not: SMPI's do not); no buffer of an erroneous call changes. Prints
 * "conformance: N calls, results correct" on rank 0, where N counts the
 * collective calls rank 0 made (each one COLLC_VERBOSE reports). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef COLLC_DIRECT
#define CONF_DECL(coll, ...) int collc_##coll##_conf(__VA_ARGS__);
CONF_DECL(bcast, void *, int, MPI_Datatype, int, MPI_Comm)
CONF_DECL(reduce, const void *, void *, int, MPI_Datatype, MPI_Op, int,
          MPI_Comm)
CONF_DECL(allreduce, const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm)
CONF_DECL(scan, const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm)
CONF_DECL(gather, const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
          int, MPI_Comm)
CONF_DECL(scatter, const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
          int, MPI_Comm)
CONF_DECL(allgather, const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
          MPI_Comm)
CONF_DECL(alltoall, const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
          MPI_Comm)
CONF_DECL(barrier, MPI_Comm)
#define BCAST collc_bcast_conf
#define REDUCE collc_reduce_conf
#define ALLREDUCE collc_allreduce_conf
#define SCAN collc_scan_conf
#define GATHER collc_gather_conf
#define SCATTER collc_scatter_conf
#define ALLGATHER collc_allgather_conf
#define ALLTOALL collc_alltoall_conf
#define BARRIER collc_barrier_conf
#define DIRECT 1
#else
#define BCAST MPI_Bcast
#define REDUCE MPI_Reduce
#define ALLREDUCE MPI_Allreduce
#define SCAN MPI_Scan
#define GATHER MPI_Gather
#define SCATTER MPI_Scatter
#define ALLGATHER MPI_Allgather
#define ALLTOALL MPI_Alltoall
#define BARRIER MPI_Barrier
#define DIRECT 0
#endif

static int Rank, P, Bad, Calls, Handled, LastHandled;
static MPI_Errhandler Handler;

/* Every collective call goes through CALL: it counts the call and checks
 * that an error came through the error handler with the same code. */
static int checked(int Rc, int Line) {
  int Expected = Rc != MPI_SUCCESS;
  /* (The MPI library's own errors: not every library calls the handler.) */
  int Lenient = !DIRECT && Handled == 0;
  if ((Handled != Expected && !Lenient) || Handled > 1 ||
      (Handled && LastHandled != Rc)) {
    printf("FAIL (rank %d of %d) line %d: returned %d, error handler called "
           "%d times (last code %d)\n",
           Rank, P, Line, Rc, Handled, LastHandled);
    Bad = 1;
  }
  Handled = 0;
  return Rc;
}
#define CALL(x) (++Calls, Handled = 0, checked((x), __LINE__))

static void expect(int Ok, const char *What, int Root) {
  if (!Ok) {
    printf("FAIL (rank %d of %d): %s, root %d\n", Rank, P, What, Root);
    Bad = 1;
  }
}

/* An error class that a call refused: the code's class. */
static int errClass(int Rc) {
  int C = Rc;
  MPI_Error_class(Rc, &C);
  return C;
}

static void onError(MPI_Comm *Comm, int *Code, ...) {
  (void)Comm;
  ++Handled;
  LastHandled = *Code;
}

/* Affine maps x -> a x + b on pairs of ints, composed: associative, not
 * commutative. inout = in o inout (apply inout first). */
static void affine(void *In, void *InOut, int *Len, MPI_Datatype *T) {
  int *A = In, *B = InOut;
  (void)T;
  for (int I = 0; I < *Len; ++I) {
    unsigned a1 = A[2 * I], b1 = A[2 * I + 1], a2 = B[2 * I], b2 = B[2 * I + 1];
    B[2 * I] = (int)(a1 * a2);
    B[2 * I + 1] = (int)(a1 * b2 + b1);
  }
}

static int operand(int R, int I, int K) { return (R * 7 + I * 3 + K) % 11 - 5; }

/* Rank R's contribution of N pairs. */
static void contribution(int R, int N, int *Out) {
  for (int I = 0; I < N; ++I) {
    Out[2 * I] = operand(R, I, 1) | 1;
    Out[2 * I + 1] = operand(R, I, 2);
  }
}

/* x_0 o x_1 o ... o x_Upto, folded in rank order. */
static void prefix(int Upto, int N, int *Out) {
  int *X = malloc(sizeof(int) * 2 * N);
  contribution(Upto, N, Out);
  for (int R = Upto - 1; R >= 0; --R) {
    contribution(R, N, X);
    affine(X, Out, &N, NULL);
  }
  free(X);
}

/* Non-commutative reduce (every root), allreduce and scan at N pairs: the
 * result folded in rank order, or (direct entry points only, when no
 * schedule folds in rank order) MPI_ERR_OP. */
static void nonCommutative(MPI_Comm Comm, MPI_Op Op, MPI_Datatype Pair, int N) {
  int *In = malloc(sizeof(int) * 2 * N), *Out = malloc(sizeof(int) * 2 * N),
      *Want = malloc(sizeof(int) * 2 * N);
  contribution(Rank, N, In);
  prefix(P - 1, N, Want);
  for (int Root = 0; Root < P; ++Root) {
    memset(Out, 0, sizeof(int) * 2 * N);
    int Rc = CALL(REDUCE(In, Out, N, Pair, Op, Root, Comm));
    expect(Rc == MPI_SUCCESS
               ? Rank != Root || !memcmp(Out, Want, sizeof(int) * 2 * N)
               : DIRECT && errClass(Rc) == MPI_ERR_OP,
           "non-commutative reduce", Root);
  }
  int Rc = CALL(ALLREDUCE(In, Out, N, Pair, Op, Comm));
  expect(Rc == MPI_SUCCESS ? !memcmp(Out, Want, sizeof(int) * 2 * N)
                           : DIRECT && errClass(Rc) == MPI_ERR_OP,
         "non-commutative allreduce", -1);
  prefix(Rank, N, Want);
  Rc = CALL(SCAN(In, Out, N, Pair, Op, Comm));
  expect(Rc == MPI_SUCCESS ? !memcmp(Out, Want, sizeof(int) * 2 * N)
                           : DIRECT && errClass(Rc) == MPI_ERR_OP,
         "non-commutative scan", -1);
  free(In);
  free(Out);
  free(Want);
}

/* Two ints per rank: non-root ranks (and the root's own block) travel as one
 * element of Strided (ints 0 and 2 of three), the root's side as 2 MPI_INT. */
static void strided(MPI_Comm Comm, MPI_Datatype Strided) {
  int Mine[3] = {Rank * 10 + 1, -1, Rank * 10 + 2};
  int *All = malloc(sizeof(int) * 3 * P), *Want = malloc(sizeof(int) * 3 * P);
  for (int Root = 0; Root < P; ++Root) {
    /* Gather: vector on the send side, contiguous ints at the root. */
    for (int I = 0; I < 2 * P; ++I)
      All[I] = -7;
    int Rc = CALL(GATHER(Mine, 1, Strided, All, 2, MPI_INT, Root, Comm));
    int Ok = Rc == MPI_SUCCESS;
    for (int R = 0; Ok && Rank == Root && R < P; ++R)
      Ok = All[2 * R] == R * 10 + 1 && All[2 * R + 1] == R * 10 + 2;
    expect(Ok, "gather of a strided vector into contiguous ints", Root);
    /* Scatter: contiguous ints at the root, a vector on the receive side. */
    for (int R = 0; R < P; ++R) {
      All[2 * R] = R * 100 + Root;
      All[2 * R + 1] = R * 100 + Root + 1;
    }
    int Got[3] = {-7, -7, -7};
    Rc = CALL(SCATTER(All, 2, MPI_INT, Got, 1, Strided, Root, Comm));
    expect(Rc == MPI_SUCCESS && Got[0] == Rank * 100 + Root && Got[1] == -7 &&
               Got[2] == Rank * 100 + Root + 1,
           "scatter of contiguous ints into a strided vector", Root);
    /* Broadcast: the root sends a vector, the others receive 2 ints. */
    int B[3] = {-7, -7, -7};
    if (Rank == Root) {
      B[0] = Root + 5;
      B[2] = Root + 6;
    }
    Rc = Rank == Root ? CALL(BCAST(B, 1, Strided, Root, Comm))
                      : CALL(BCAST(B, 2, MPI_INT, Root, Comm));
    expect(Rc == MPI_SUCCESS &&
               (Rank == Root ? B[1] == -7 && B[2] == Root + 6
                             : B[1] == Root + 6 && B[2] == -7) &&
               B[0] == Root + 5,
           "broadcast of a strided vector into contiguous ints", Root);
  }
  /* Allgather and alltoall: vectors out, contiguous ints in. */
  for (int I = 0; I < 2 * P; ++I)
    All[I] = -7;
  int Rc = CALL(ALLGATHER(Mine, 1, Strided, All, 2, MPI_INT, Comm));
  int Ok = Rc == MPI_SUCCESS;
  for (int R = 0; Ok && R < P; ++R)
    Ok = All[2 * R] == R * 10 + 1 && All[2 * R + 1] == R * 10 + 2;
  expect(Ok, "allgather of a strided vector into contiguous ints", -1);
  /* Block d of the send buffer: one Strided at 3 d ints. */
  for (int D = 0; D < P; ++D) {
    All[3 * D] = Rank * 100 + D;
    All[3 * D + 1] = -1;
    All[3 * D + 2] = Rank * 100 + D + 50;
  }
  for (int I = 0; I < 2 * P; ++I)
    Want[I] = -7;
  Rc = CALL(ALLTOALL(All, 1, Strided, Want, 2, MPI_INT, Comm));
  Ok = Rc == MPI_SUCCESS;
  for (int R = 0; Ok && R < P; ++R)
    Ok =
        Want[2 * R] == R * 100 + Rank && Want[2 * R + 1] == R * 100 + Rank + 50;
  expect(Ok, "alltoall of strided vectors into contiguous ints", -1);
  free(All);
  free(Want);
}

/* MPI_DOUBLE_INT: a broadcast (moved packed) and a MAXLOC allreduce (the
 * pair type folds as whole extents of 16 bytes, a size no schedule has:
 * passed to the MPI library, or MPI_ERR_COUNT from the direct entry
 * points). */
static void doubleInt(MPI_Comm Comm) {
  struct {
    double V;
    int I;
  } X = {Rank == 0 ? 2.5 : 0, Rank == 0 ? 42 : -1}, Y = {0, 0};
  int Rc = CALL(BCAST(&X, 1, MPI_DOUBLE_INT, 0, Comm));
  expect(Rc == MPI_SUCCESS && X.V == 2.5 && X.I == 42,
         "broadcast of MPI_DOUBLE_INT", 0);
  X.V = Rank;
  X.I = Rank * 3;
  /* (SMPI lays MPI_DOUBLE_INT out as 16 contiguous bytes, the others pad
   * 12 bytes to an extent of 16: no schedule has that size.) */
  int Refusal = MPI_ERR_COUNT;
  Rc = CALL(ALLREDUCE(&X, &Y, 1, MPI_DOUBLE_INT, MPI_MAXLOC, Comm));
  expect(Rc == MPI_SUCCESS ? Y.V == P - 1 && Y.I == (P - 1) * 3
                           : DIRECT && errClass(Rc) == Refusal,
         "MAXLOC allreduce of MPI_DOUBLE_INT", -1);
}

/* Roots that are not ranks of an intracommunicator: an error, and no
 * buffer changes. */
static void badRoots(MPI_Comm Comm) {
  const int Roots[] = {-1, MPI_PROC_NULL, MPI_ROOT, P};
  for (int K = 0; K < 4; ++K) {
    int Root = Roots[K];
    if (Root >= 0 && Root < P)
      continue; /* (SMPI's MPI_ROOT is 0) */
    int B[2] = {Rank, Rank + 1}, R2[2] = {-3, -3};
    int *All = malloc(sizeof(int) * 2 * P);
    for (int I = 0; I < 2 * P; ++I)
      All[I] = -3;
    int Rc = CALL(BCAST(B, 2, MPI_INT, Root, Comm));
    expect(Rc != MPI_SUCCESS && (!DIRECT || errClass(Rc) == MPI_ERR_ROOT) &&
               B[0] == Rank && B[1] == Rank + 1,
           "broadcast with an invalid root: an error, the buffer unchanged",
           Root);
    Rc = CALL(REDUCE(B, R2, 2, MPI_INT, MPI_SUM, Root, Comm));
    expect(Rc != MPI_SUCCESS && (!DIRECT || errClass(Rc) == MPI_ERR_ROOT) &&
               R2[0] == -3 && R2[1] == -3,
           "reduce with an invalid root: an error, the buffer unchanged", Root);
    Rc = CALL(GATHER(B, 2, MPI_INT, All, 2, MPI_INT, Root, Comm));
    int Same = 1;
    for (int I = 0; I < 2 * P; ++I)
      Same &= All[I] == -3;
    expect(Rc != MPI_SUCCESS && (!DIRECT || errClass(Rc) == MPI_ERR_ROOT) &&
               Same,
           "gather with an invalid root: an error, the buffer unchanged", Root);
    free(All);
  }
}

/* A 1 + (P-1) split joined by an intercommunicator: rank 0 broadcasts to
 * the other group, and both groups pass a barrier. */
static void intercomm(MPI_Comm Comm) {
  if (P < 2)
    return;
  MPI_Comm Local, Inter;
  MPI_Comm_split(Comm, Rank == 0, Rank, &Local);
  MPI_Intercomm_create(Local, 0, Comm, Rank == 0 ? 1 : 0, 77, &Inter);
  MPI_Comm_set_errhandler(Inter, Handler);
  int B[2] = {Rank == 0 ? 1234 : -1, Rank == 0 ? 5678 : -1};
  int Rc = CALL(BCAST(B, 2, MPI_INT, Rank == 0 ? MPI_ROOT : 0, Inter));
  expect(DIRECT ? errClass(Rc) == MPI_ERR_COMM
                : Rc == MPI_SUCCESS && B[0] == 1234 && B[1] == 5678,
         "intercommunicator broadcast", 0);
  Rc = CALL(BARRIER(Inter));
  expect(DIRECT ? errClass(Rc) == MPI_ERR_COMM : Rc == MPI_SUCCESS,
         "intercommunicator barrier", -1);
  MPI_Comm_free(&Inter);
  MPI_Comm_free(&Local);
}

/* A datatype of 4 GiB (without a buffer that large): count 0 is a call of
 * 0 bytes; count 1 (direct entry points only: the MPI library would move
 * 4 GiB) is 4 GiB, which no schedule serves: MPI_ERR_COUNT. */
static void hugeType(MPI_Comm Comm) {
  MPI_Datatype Mib4, Gib4;
  MPI_Type_contiguous(1 << 20, MPI_INT, &Mib4);
  MPI_Type_contiguous(1024, Mib4, &Gib4);
  MPI_Type_commit(&Gib4);
  char B[8] = {0};
  int Rc = CALL(BCAST(B, 0, Gib4, 0, Comm));
  expect(Rc == MPI_SUCCESS, "broadcast of 0 elements of a 4 GiB datatype", 0);
  MPI_Count Size = 0;
  MPI_Type_size_x(Gib4, &Size);
  /* (SMPI's sizes wrap at 4 GiB: its Gib4 has 0 bytes.) */
  if (DIRECT && Size == (MPI_Count)1 << 32) {
    Rc = CALL(BCAST(B, 1, Gib4, 0, Comm));
    expect(errClass(Rc) == MPI_ERR_COUNT,
           "broadcast of one 4 GiB element: MPI_ERR_COUNT", 0);
  }
  MPI_Type_free(&Gib4);
  MPI_Type_free(&Mib4);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm Comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &Comm);
  MPI_Comm_rank(Comm, &Rank);
  MPI_Comm_size(Comm, &P);
  MPI_Comm_create_errhandler(onError, &Handler);
  MPI_Comm_set_errhandler(Comm, Handler);

  MPI_Op Affine;
  MPI_Op_create(affine, 0, &Affine);
  MPI_Datatype Pair, Strided;
  MPI_Type_contiguous(2, MPI_INT, &Pair);
  MPI_Type_commit(&Pair);
  MPI_Type_vector(2, 1, 2, MPI_INT, &Strided);
  MPI_Type_commit(&Strided);

  /* 512 ints (2048 bytes) summed: a commutative operator. */
  int *In = malloc(sizeof(int) * 512), *Out = malloc(sizeof(int) * 512);
  for (int I = 0; I < 512; ++I)
    In[I] = Rank * 1000 + I;
  int Rc = CALL(ALLREDUCE(In, Out, 512, MPI_INT, MPI_SUM, Comm));
  int Ok = Rc == MPI_SUCCESS;
  for (int I = 0; Ok && I < 512; ++I)
    Ok = Out[I] == 1000 * P * (P - 1) / 2 + P * I;
  expect(Ok, "allreduce sum", -1);
  free(In);
  free(Out);
  /* 125 pairs (1000 bytes) and 256 pairs (2048 bytes). */
  nonCommutative(Comm, Affine, Pair, 125);
  nonCommutative(Comm, Affine, Pair, 256);
  strided(Comm, Strided);
  doubleInt(Comm);
  badRoots(Comm);
  /* (SMPI has no intercommunicators.) */
  if (!(argc > 1 && !strcmp(argv[1], "--no-intercomm")))
    intercomm(Comm);
  hugeType(Comm);

  MPI_Type_free(&Strided);
  MPI_Type_free(&Pair);
  MPI_Op_free(&Affine);
  int Total = 0;
  MPI_Allreduce(&Bad, &Total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("conformance: %d calls, %s\n", Calls,
           Total ? "WRONG RESULTS" : "results correct");
  MPI_Comm_free(&Comm);
  MPI_Errhandler_free(&Handler);
  MPI_Finalize();
  return Total ? 1 : 0;
}
