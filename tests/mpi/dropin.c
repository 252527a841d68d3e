/* An MPI program that knows nothing of collc: every collective collc serves,
 * on MPI_COMM_WORLD and on split communicators of odd sizes (ranks in
 * reverse world order in one of them), with every root, counts from 0 to
 * 4 MiB, MPI_IN_PLACE, a non-commutative user operator on a derived
 * datatype (pairs of ints) and a strided datatype on some ranks against
 * contiguous ints on the others. Every result is checked against a reference
 * each rank computes itself; a mismatch exits non-zero.
 *
 * Prints "dropin: <n> calls as rank 0, results correct" on each process: n
 * is the number of collective calls it made as rank 0 of the communicator,
 * which is what collc's COLLC_VERBOSE reports (tests/mpi/dropin.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int Calls, Bad;
static MPI_Datatype Strided, Pair;
static MPI_Op Affine;

#define CHECK(Cond, ...)                                                       \
  do {                                                                         \
    if (!(Cond)) {                                                             \
      if (Bad++ < 10) {                                                        \
        fprintf(stderr, "dropin: mismatch: " __VA_ARGS__);                     \
        fputc('\n', stderr);                                                   \
      }                                                                        \
    }                                                                          \
  } while (0)

/* Counts a call made as rank 0 of Comm and checks its return code. */
static void called(MPI_Comm Comm, int Err, const char *What) {
  int R;
  MPI_Comm_rank(Comm, &R);
  Calls += R == 0;
  CHECK(Err == MPI_SUCCESS, "%s returned %d", What, Err);
}

static int val(int R, int B, long I) {
  return (int)((R * 131 + B * 17 + I * 7) % 100003);
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

static void pairOf(int R, long N, int *Out) {
  for (long I = 0; I < N; ++I) {
    Out[2 * I] = (val(R, 1, I) % 11 - 5) | 1;
    Out[2 * I + 1] = val(R, 2, I) % 13 - 6;
  }
}

/* x_From o ... o x_Upto folded in rank order (Upto >= From). */
static void fold(int From, int Upto, long N, int *Out) {
  int *X = malloc(sizeof(int) * 2 * (N + 1));
  pairOf(Upto, N, Out);
  for (int R = Upto - 1; R >= From; --R) {
    pairOf(R, N, X);
    int Len = (int)N;
    affine(X, Out, &Len, NULL);
  }
  free(X);
}

static void broadcasts(MPI_Comm Comm, int Rank, int Size, long N) {
  int *Buf = malloc(sizeof(int) * 2 * (N + 1));
  for (int Root = 0; Root < Size; ++Root) {
    /* Odd ranks receive into every other int (a strided datatype). */
    int Str = Rank % 2 && Rank != Root;
    for (long I = 0; I < 2 * N; ++I)
      Buf[I] = Rank == Root ? val(Root, 0, I) : -1;
    called(Comm, MPI_Bcast(Buf, (int)N, Str ? Strided : MPI_INT, Root, Comm),
           "MPI_Bcast");
    for (long I = 0; I < N; ++I)
      CHECK(Buf[Str ? 2 * I : I] == val(Root, 0, I),
            "bcast root %d of %d, %ld ints, [%ld]", Root, Size, N, I);
  }
  free(Buf);
}

static void sums(MPI_Comm Comm, int Rank, int Size, long N, int InPlace) {
  int *In = malloc(sizeof(int) * (N + 1)), *Out = malloc(sizeof(int) * (N + 1));
  long *Pre = calloc(Size + 1, sizeof(long));
  const char *Tag = InPlace ? " in place" : "";
  for (int Root = 0; Root < Size; ++Root) {
    for (long I = 0; I < N; ++I)
      In[I] = val(Rank, 0, I), Out[I] = InPlace && Rank == Root ? In[I] : -1;
    called(Comm,
           MPI_Reduce(InPlace && Rank == Root ? MPI_IN_PLACE : In, Out, (int)N,
                      MPI_INT, MPI_SUM, Root, Comm),
           "MPI_Reduce");
    if (Rank == Root)
      for (long I = 0; I < N; ++I) {
        long S = 0;
        for (int R = 0; R < Size; ++R)
          S += val(R, 0, I);
        CHECK(Out[I] == S, "reduce%s root %d of %d, %ld ints, [%ld]", Tag, Root,
              Size, N, I);
      }
  }
  for (long I = 0; I < N; ++I)
    In[I] = val(Rank, 0, I), Out[I] = InPlace ? In[I] : -1;
  called(Comm,
         MPI_Allreduce(InPlace ? MPI_IN_PLACE : In, Out, (int)N, MPI_INT,
                       MPI_SUM, Comm),
         "MPI_Allreduce");
  int *Scan = malloc(sizeof(int) * (N + 1)),
      *Ex = malloc(sizeof(int) * (N + 1));
  for (long I = 0; I < N; ++I)
    Scan[I] = Ex[I] = InPlace ? In[I] : -1;
  called(Comm,
         MPI_Scan(InPlace ? MPI_IN_PLACE : In, Scan, (int)N, MPI_INT, MPI_SUM,
                  Comm),
         "MPI_Scan");
  called(Comm,
         MPI_Exscan(InPlace ? MPI_IN_PLACE : In, Ex, (int)N, MPI_INT, MPI_SUM,
                    Comm),
         "MPI_Exscan");
  for (long I = 0; I < N; ++I) {
    Pre[0] = 0;
    for (int R = 0; R < Size; ++R)
      Pre[R + 1] = Pre[R] + val(R, 0, I);
    CHECK(Out[I] == Pre[Size], "allreduce%s of %d, %ld ints, [%ld]", Tag, Size,
          N, I);
    CHECK(Scan[I] == Pre[Rank + 1], "scan%s of %d, %ld ints, [%ld]", Tag, Size,
          N, I);
    if (Rank > 0)
      CHECK(Ex[I] == Pre[Rank], "exscan%s of %d, %ld ints, [%ld]", Tag, Size, N,
            I);
  }
  free(In), free(Out), free(Pre), free(Scan), free(Ex);
}

static void affines(MPI_Comm Comm, int Rank, int Size, long N) {
  int *In = malloc(sizeof(int) * 2 * (N + 1)),
      *Out = malloc(sizeof(int) * 2 * (N + 1)),
      *Want = malloc(sizeof(int) * 2 * (N + 1));
  pairOf(Rank, N, In);
  for (int Root = 0; Root < Size; ++Root) {
    called(Comm, MPI_Reduce(In, Out, (int)N, Pair, Affine, Root, Comm),
           "MPI_Reduce");
    if (Rank == Root) {
      fold(0, Size - 1, N, Want);
      CHECK(!memcmp(Out, Want, sizeof(int) * 2 * N),
            "non-commutative reduce root %d of %d, %ld pairs", Root, Size, N);
    }
  }
  called(Comm, MPI_Allreduce(In, Out, (int)N, Pair, Affine, Comm),
         "MPI_Allreduce");
  fold(0, Size - 1, N, Want);
  CHECK(!memcmp(Out, Want, sizeof(int) * 2 * N),
        "non-commutative allreduce of %d, %ld pairs", Size, N);
  called(Comm, MPI_Scan(In, Out, (int)N, Pair, Affine, Comm), "MPI_Scan");
  fold(0, Rank, N, Want);
  CHECK(!memcmp(Out, Want, sizeof(int) * 2 * N),
        "non-commutative scan of %d, %ld pairs", Size, N);
  called(Comm, MPI_Exscan(In, Out, (int)N, Pair, Affine, Comm), "MPI_Exscan");
  if (Rank > 0) {
    fold(0, Rank - 1, N, Want);
    CHECK(!memcmp(Out, Want, sizeof(int) * 2 * N),
          "non-commutative exscan of %d, %ld pairs", Size, N);
  }
  free(In), free(Out), free(Want);
}

/* Gather, scatter, allgather and all-to-all of N ints per block. */
static void personalized(MPI_Comm Comm, int Rank, int Size, long N,
                         int InPlace) {
  long All = N * Size;
  int *S = malloc(sizeof(int) * 2 * (All + 1)),
      *R = malloc(sizeof(int) * 2 * (All + 1));
  const char *Tag = InPlace ? " in place" : "";
  for (int Root = 0; Root < Size; ++Root) {
    int Here = Rank == Root, IP = InPlace && Here;
    /* Gather: block b is rank b's; the root receives strided when odd. */
    int Str = !InPlace && Here && Root % 2;
    for (long I = 0; I < N; ++I)
      S[I] = val(Rank, 3, I);
    for (long I = 0; I < 2 * All; ++I)
      R[I] = -1;
    if (IP)
      for (long I = 0; I < N; ++I)
        R[Rank * N + I] = val(Rank, 3, I);
    called(Comm,
           MPI_Gather(IP ? MPI_IN_PLACE : S, (int)N, MPI_INT, R, (int)N,
                      Str ? Strided : MPI_INT, Root, Comm),
           "MPI_Gather");
    if (Here)
      for (int B = 0; B < Size; ++B)
        for (long I = 0; I < N; ++I)
          CHECK(R[Str ? 2 * (B * N + I) : B * N + I] == val(B, 3, I),
                "gather%s root %d of %d, %ld ints, block %d [%ld]", Tag, Root,
                Size, N, B, I);
    /* Scatter: block b goes to rank b; odd non-roots receive strided. */
    Str = !Here && Rank % 2;
    for (long I = 0; I < All; ++I)
      S[I] = Here ? val(Root, 4, I) : -1;
    for (long I = 0; I < 2 * N; ++I)
      R[I] = -1;
    called(Comm,
           MPI_Scatter(S, (int)N, MPI_INT, IP ? MPI_IN_PLACE : R, (int)N,
                       Str ? Strided : MPI_INT, Root, Comm),
           "MPI_Scatter");
    for (long I = 0; I < N; ++I)
      CHECK((IP ? S[Rank * N + I] : R[Str ? 2 * I : I]) ==
                val(Root, 4, Rank * N + I),
            "scatter%s root %d of %d, %ld ints, [%ld]", Tag, Root, Size, N, I);
  }
  /* Allgather: odd ranks send strided. */
  int Str = !InPlace && Rank % 2;
  for (long I = 0; I < 2 * N; ++I)
    S[I] = Str ? (I % 2 ? -7 : val(Rank, 5, I / 2)) : val(Rank, 5, I);
  for (long I = 0; I < All; ++I)
    R[I] = InPlace && I / (N ? N : 1) == Rank ? val(Rank, 5, I % N) : -1;
  called(Comm,
         MPI_Allgather(InPlace ? MPI_IN_PLACE : S, (int)N,
                       Str ? Strided : MPI_INT, R, (int)N, MPI_INT, Comm),
         "MPI_Allgather");
  for (int B = 0; B < Size; ++B)
    for (long I = 0; I < N; ++I)
      CHECK(R[B * N + I] == val(B, 5, I),
            "allgather%s of %d, %ld ints, block %d [%ld]", Tag, Size, N, B, I);
  /* All-to-all: block b of rank r's send buffer holds val(r, 6 + b, i). */
  for (int B = 0; B < Size; ++B)
    for (long I = 0; I < N; ++I)
      (InPlace ? R : S)[B * N + I] = val(Rank, 6 + B, I);
  called(Comm,
         MPI_Alltoall(InPlace ? MPI_IN_PLACE : S, (int)N, MPI_INT, R, (int)N,
                      MPI_INT, Comm),
         "MPI_Alltoall");
  for (int B = 0; B < Size; ++B)
    for (long I = 0; I < N; ++I)
      CHECK(R[B * N + I] == val(B, 6 + Rank, I),
            "alltoall%s of %d, %ld ints, block %d [%ld]", Tag, Size, N, B, I);
  free(S), free(R);
}

static void exercise(MPI_Comm Comm) {
  int Rank, Size;
  MPI_Comm_rank(Comm, &Rank);
  MPI_Comm_size(Comm, &Size);
  /* Ints per call: 0 to 4 MiB (a spread). */
  static const long Counts[] = {0, 1, 3, 250, 16385, 1048576};
  for (int K = 0; K < (int)(sizeof Counts / sizeof Counts[0]); ++K) {
    long N = Counts[K];
    broadcasts(Comm, Rank, Size, N);
    sums(Comm, Rank, Size, N, K % 2);
    affines(Comm, Rank, Size, N / 2);
    /* Blocks of a personalized collective: at most 4 MiB in all. */
    personalized(Comm, Rank, Size, N > 250 ? N / Size : N, K % 2 == 0);
    called(Comm, MPI_Barrier(Comm), "MPI_Barrier");
  }
}

/* Calls that repeat earlier ones but for one argument (the root, the
 * operator, MPI_IN_PLACE, the datatype), and handles that come back for
 * other objects (a communicator of another size, a datatype of another
 * size, each freed and made again): the library keeps the decisions of
 * recent calls and must never serve a call by another's. */
static void reuse(int WorldRank) {
  for (int Round = 0; Round < 3; ++Round) {
    MPI_Comm Comm;
    MPI_Comm_split(MPI_COMM_WORLD, WorldRank % (Round + 1) == 0, WorldRank,
                   &Comm);
    int Rank, Size;
    MPI_Comm_rank(Comm, &Rank);
    MPI_Comm_size(Comm, &Size);
    for (int Rep = 0; Rep < 3; ++Rep) {
      int Buf[4], In[4], Out[4];
      for (int Root = 0; Root < Size && Root < 3; ++Root) {
        for (int I = 0; I < 4; ++I)
          Buf[I] = Rank == Root ? val(Root, Round, I) : -1;
        called(Comm, MPI_Bcast(Buf, 4, MPI_INT, Root, Comm), "MPI_Bcast");
        for (int I = 0; I < 4; ++I)
          CHECK(Buf[I] == val(Root, Round, I),
                "reuse: round %d broadcast from %d, element %d: %d", Round,
                Root, I, Buf[I]);
      }
      MPI_Op Ops[3] = {MPI_SUM, MPI_MAX, MPI_MIN};
      for (int K = 0; K < 4; ++K) {
        const int InPlace = K == 3;
        for (int I = 0; I < 4; ++I)
          (InPlace ? Out : In)[I] = val(Rank, K, I);
        called(Comm,
               MPI_Allreduce(InPlace ? MPI_IN_PLACE : In, Out, 4, MPI_INT,
                             Ops[K % 3], Comm),
               "MPI_Allreduce");
        for (int I = 0; I < 4; ++I) {
          long Want = val(0, K, I);
          for (int R = 1; R < Size; ++R) {
            long V = val(R, K, I);
            Want = K % 3 == 0 ? Want + V
                   : K == 1   ? (V > Want ? V : Want)
                              : (V < Want ? V : Want);
          }
          CHECK(Out[I] == (int)Want,
                "reuse: round %d allreduce %d, element %d: %d, not %ld", Round,
                K, I, Out[I], Want);
        }
      }
    }
    MPI_Datatype T;
    MPI_Type_contiguous(Round + 1, MPI_INT, &T);
    MPI_Type_commit(&T);
    for (int Rep = 0; Rep < 2; ++Rep) {
      int Big[12];
      for (int I = 0; I < 4 * (Round + 1); ++I)
        Big[I] = Rank == 0 ? val(0, 7 + Round, I) : -1;
      called(Comm, MPI_Bcast(Big, 4, T, 0, Comm), "MPI_Bcast");
      for (int I = 0; I < 4 * (Round + 1); ++I)
        CHECK(Big[I] == val(0, 7 + Round, I),
              "reuse: round %d broadcast of %d-int elements, int %d: %d", Round,
              Round + 1, I, Big[I]);
    }
    MPI_Type_free(&T);
    MPI_Comm_free(&Comm);
  }
}

int main(int argc, char **argv) {
  int Rank, Size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &Strided);
  MPI_Type_commit(&Strided);
  MPI_Type_contiguous(2, MPI_INT, &Pair);
  MPI_Type_commit(&Pair);
  MPI_Op_create(affine, 0, &Affine);

  exercise(MPI_COMM_WORLD);
  /* Halves in reverse world order (3 and 3 of 6 ranks), then rank 0 alone
   * and the rest (1 and 5). */
  MPI_Comm Half, Rest;
  MPI_Comm_split(MPI_COMM_WORLD, Rank < Size / 2, -Rank, &Half);
  exercise(Half);
  MPI_Comm_free(&Half);
  MPI_Comm_split(MPI_COMM_WORLD, Rank == 0, Rank, &Rest);
  exercise(Rest);
  MPI_Comm_free(&Rest);
  reuse(Rank);

  MPI_Op_free(&Affine);
  MPI_Type_free(&Pair);
  MPI_Type_free(&Strided);
  if (Bad)
    fprintf(stderr, "dropin: rank %d: %d mismatches\n", Rank, Bad);
  else
    printf("dropin: %d calls as rank 0, results correct\n", Calls);
  MPI_Finalize();
  return Bad ? 1 : 0;
}
