/* Reductions on MPI's pair types with MPI_MINLOC and MPI_MAXLOC: each of
 * MPI_DOUBLE_INT, MPI_FLOAT_INT, MPI_LONG_INT, MPI_SHORT_INT,
 * MPI_LONG_DOUBLE_INT and MPI_2INT (all but the last padded) through
 * MPI_Reduce (root P - 1), MPI_Allreduce, MPI_Scan, MPI_Exscan and
 * MPI_Reduce_scatter_block, with values drawn from a few so that ties are
 * frequent (MPI's rule: the smaller index wins), 0, 1 and 100 elements a
 * rank. Each result is compared, value and index, with the MPI library's own
 * (the PMPI_ entry points, which a preloaded library does not interpose).
 *
 *   pairs
 *
 * Prints "pairs: N calls" on rank 0 (the calls a library serving them all
 * would report under COLLC_VERBOSE=1), then "pairs: results correct" on
 * every rank; exits with 1 after printing the first wrong result. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int Rank, Size, Calls;

static void *must(size_t N) {
  void *P = calloc(N ? N : 1, 1);
  if (!P) {
    fprintf(stderr, "pairs: out of memory\n");
    exit(1);
  }
  return P;
}

/* Which collective, and whether rank \p R's result is defined. */
enum Kind { Reduce, Allreduce, Scan, Exscan, ReduceScatter };
static const char *KindNames[] = {"MPI_Reduce", "MPI_Allreduce", "MPI_Scan",
                                  "MPI_Exscan", "MPI_Reduce_scatter_block"};

static int call(enum Kind K, int Lib, const void *In, void *Out, int N,
                MPI_Datatype T, MPI_Op Op) {
  switch (K) {
  case Reduce:
    return Lib ? PMPI_Reduce(In, Out, N, T, Op, Size - 1, MPI_COMM_WORLD)
               : MPI_Reduce(In, Out, N, T, Op, Size - 1, MPI_COMM_WORLD);
  case Allreduce:
    return Lib ? PMPI_Allreduce(In, Out, N, T, Op, MPI_COMM_WORLD)
               : MPI_Allreduce(In, Out, N, T, Op, MPI_COMM_WORLD);
  case Scan:
    return Lib ? PMPI_Scan(In, Out, N, T, Op, MPI_COMM_WORLD)
               : MPI_Scan(In, Out, N, T, Op, MPI_COMM_WORLD);
  case Exscan:
    return Lib ? PMPI_Exscan(In, Out, N, T, Op, MPI_COMM_WORLD)
               : MPI_Exscan(In, Out, N, T, Op, MPI_COMM_WORLD);
  case ReduceScatter:
    return Lib ? PMPI_Reduce_scatter_block(In, Out, N, T, Op, MPI_COMM_WORLD)
               : MPI_Reduce_scatter_block(In, Out, N, T, Op, MPI_COMM_WORLD);
  }
  return MPI_ERR_OTHER;
}

/* The value and index of a pair type's element, as doubles and ints. */
#define PAIR_TEST(Name, VType, MpiType)                                        \
  static void test_##Name(void) {                                              \
    typedef struct {                                                           \
      VType V;                                                                 \
      int I;                                                                   \
    } Pair;                                                                    \
    const MPI_Op Ops[2] = {MPI_MINLOC, MPI_MAXLOC};                            \
    const int Counts[3] = {0, 1, 100};                                         \
    for (int K = Reduce; K <= ReduceScatter; ++K)                              \
      for (int O = 0; O < 2; ++O)                                              \
        for (int C = 0; C < 3; ++C) {                                          \
          const int N = Counts[C], In = K == ReduceScatter ? N * Size : N;     \
          Pair *Send = must(sizeof(Pair) * In),                                \
               *Got = must(sizeof(Pair) * In),                                 \
               *Want = must(sizeof(Pair) * In);                                \
          for (int E = 0; E < In; ++E) {                                       \
            /* Three values: ties between many ranks. */                       \
            Send[E].V = (VType)((Rank * 7 + E * 3) % 3);                       \
            Send[E].I = (Rank * 5 + E) % (Size + 2);                           \
          }                                                                    \
          int Err = call(K, 0, Send, Got, N, MpiType, Ops[O]);                 \
          if (Rank == 0)                                                       \
            ++Calls;                                                           \
          if (Err == MPI_SUCCESS)                                              \
            Err = call(K, 1, Send, Want, N, MpiType, Ops[O]);                  \
          if (Err != MPI_SUCCESS) {                                            \
            fprintf(stderr, "pairs: rank %d: %s on " #MpiType " failed\n",     \
                    Rank, KindNames[K]);                                       \
            exit(1);                                                           \
          }                                                                    \
          const int Defined =                                                  \
              (K != Reduce || Rank == Size - 1) && (K != Exscan || Rank > 0);  \
          for (int E = 0; Defined && E < N; ++E)                               \
            if (Got[E].V != Want[E].V || Got[E].I != Want[E].I) {              \
              fprintf(stderr,                                                  \
                      "pairs: rank %d: %s %s on " #MpiType                     \
                      " of %d: element %d is (%g, %d), the library's "         \
                      "(%g, %d)\n",                                            \
                      Rank, KindNames[K], O ? "MPI_MAXLOC" : "MPI_MINLOC", N,  \
                      E, (double)Got[E].V, Got[E].I, (double)Want[E].V,        \
                      Want[E].I);                                              \
              exit(1);                                                         \
            }                                                                  \
          free(Send);                                                          \
          free(Got);                                                           \
          free(Want);                                                          \
        }                                                                      \
  }

PAIR_TEST(double_int, double, MPI_DOUBLE_INT)
PAIR_TEST(float_int, float, MPI_FLOAT_INT)
PAIR_TEST(long_int, long, MPI_LONG_INT)
PAIR_TEST(short_int, short, MPI_SHORT_INT)
PAIR_TEST(long_double_int, long double, MPI_LONG_DOUBLE_INT)
PAIR_TEST(two_int, int, MPI_2INT)

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  test_double_int();
  test_float_int();
  test_long_int();
  test_short_int();
  test_long_double_int();
  test_two_int();
  if (Rank == 0)
    printf("pairs: %d calls\n", Calls);
  printf("pairs: results correct\n");
  MPI_Finalize();
  return 0;
}
