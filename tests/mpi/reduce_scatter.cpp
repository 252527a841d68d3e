//===- collc-reduce-scatter-check: generated reduce-scatter code ---------===//
//
// Runs the reduce-scatters collc generated (tests/mpi/reduce_scatter.sh:
// `recursive-halving` and `direct` built for any operator, `ring` for
// commutative ones, each for 1..8 ranks and every size band up to 256 KiB)
// on MPI_COMM_WORLD and on split communicators of every size below it, with
// blocks of 0, 1, 3 and 1000 elements, int sums, double maxima and a
// non-commutative operator (composing affine maps, two ints an element), in
// place and not; compares each result with the MPI library's own
// MPI_Reduce_scatter_block and checks that the receive buffer past the
// block is untouched. The generated code has no fallback: a call no schedule
// serves is an error.
//
//   mpirun -np P collc-reduce-scatter-check
//
// Prints one line per failure and "reduce_scatter: N checks passed" on
// world rank 0; exits 1 on any failure.
//
//===----------------------------------------------------------------------===//

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
int collc_reduce_scatter_block_recursive_halving(const void *, void *, int,
                                                 MPI_Datatype, MPI_Op,
                                                 MPI_Comm);
int collc_reduce_scatter_block_ring(const void *, void *, int, MPI_Datatype,
                                    MPI_Op, MPI_Comm);
int collc_reduce_scatter_block_direct(const void *, void *, int, MPI_Datatype,
                                      MPI_Op, MPI_Comm);
}

namespace {

using Fn = int (*)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);

struct Algorithm {
  const char *Name;
  Fn F;
  bool AnyOperator;
};
const Algorithm Algorithms[] = {
    {"recursive-halving", collc_reduce_scatter_block_recursive_halving, true},
    {"ring", collc_reduce_scatter_block_ring, false},
    {"direct", collc_reduce_scatter_block_direct, true},
};

int WorldRank = 0;
long Checks = 0, Failures = 0;

void expect(bool Ok, const std::string &What) {
  ++Checks;
  if (!Ok) {
    ++Failures;
    std::printf("FAIL (world rank %d): %s\n", WorldRank, What.c_str());
  }
}

/// x -> A x + B, composed left (lower ranks) first: associative, not
/// commutative.
void affine(void *In, void *InOut, int *Len, MPI_Datatype *) {
  const unsigned *L = static_cast<const unsigned *>(In);
  unsigned *R = static_cast<unsigned *>(InOut);
  for (int I = 0; I < *Len; ++I) {
    const unsigned A = R[2 * I] * L[2 * I],
                   B = R[2 * I] * L[2 * I + 1] + R[2 * I + 1];
    R[2 * I] = A;
    R[2 * I + 1] = B;
  }
}

struct Operation {
  const char *Name;
  MPI_Datatype Type;
  MPI_Op Op;
  int Size;
  bool Commutative;
};

/// Element I of rank R's vector, as bytes of \p O's type.
void fill(const Operation &O, int R, int N, std::vector<char> &V) {
  V.assign(static_cast<size_t>(N) * O.Size, 0);
  for (int I = 0; I < N; ++I) {
    char *At = V.data() + static_cast<size_t>(I) * O.Size;
    const unsigned X = static_cast<unsigned>(R * 7919 + I * 31 + 5);
    if (O.Type == MPI_INT) {
      const int Y = static_cast<int>(X % 2001) - 1000;
      std::memcpy(At, &Y, sizeof Y);
    } else if (O.Type == MPI_DOUBLE) {
      const double Y = static_cast<double>(X % 1009) / 7.0;
      std::memcpy(At, &Y, sizeof Y);
    } else {
      const unsigned AB[2] = {2 * (X % 97) + 1, X % 1013};
      std::memcpy(At, AB, sizeof AB);
    }
  }
}

void run(MPI_Comm C, const Operation &O) {
  int P = 0, R = 0;
  MPI_Comm_size(C, &P);
  MPI_Comm_rank(C, &R);
  for (const Algorithm &A : Algorithms) {
    if (!O.Commutative && !A.AnyOperator)
      continue;
    for (int Count : {0, 1, 3, 1000})
      for (bool InPlace : {false, true}) {
        const int N = Count * P;
        std::vector<char> Send, Want(static_cast<size_t>(Count + 1) * O.Size),
            Got;
        fill(O, R, N, Send);
        // The library's result, and a guard element past the block.
        MPI_Reduce_scatter_block(Send.data(), Want.data(), Count, O.Type, O.Op,
                                 C);
        const std::string Tag =
            std::string(A.Name) + " " + O.Name + " P=" + std::to_string(P) +
            " count=" + std::to_string(Count) + (InPlace ? " in place" : "");
        if (InPlace) {
          Got = Send;
          Got.resize(static_cast<size_t>(N + 1) * O.Size, 'g');
        } else {
          Got.assign(static_cast<size_t>(Count + 1) * O.Size, 'g');
        }
        const int Err = A.F(InPlace ? MPI_IN_PLACE : Send.data(), Got.data(),
                            Count, O.Type, O.Op, C);
        expect(Err == MPI_SUCCESS, Tag + ": error " + std::to_string(Err));
        expect(std::memcmp(Got.data(), Want.data(),
                           static_cast<size_t>(Count) * O.Size) == 0,
               Tag + ": a result differs from MPI_Reduce_scatter_block's");
        if (!InPlace) {
          bool Untouched = true;
          for (int I = 0; I < O.Size; ++I)
            Untouched = Untouched &&
                        Got[static_cast<size_t>(Count) * O.Size + I] == 'g';
          expect(Untouched, Tag + ": the receive buffer past the block "
                                  "was written");
        }
      }
  }
}

} // namespace

int main(int Argc, char **Argv) {
  MPI_Init(&Argc, &Argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &WorldRank);
  int WorldSize = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &WorldSize);
  MPI_Datatype Pair;
  MPI_Type_contiguous(2, MPI_UNSIGNED, &Pair);
  MPI_Type_commit(&Pair);
  MPI_Op Affine;
  MPI_Op_create(affine, 0, &Affine);
  const Operation Ops[] = {
      {"int sum", MPI_INT, MPI_SUM, 4, true},
      {"double max", MPI_DOUBLE, MPI_MAX, 8, true},
      {"affine (non-commutative)", Pair, Affine, 8, false},
  };
  // The world, then the first K ranks for every K below it.
  for (int K = WorldSize; K >= 1; --K) {
    MPI_Comm C;
    MPI_Comm_split(MPI_COMM_WORLD, WorldRank < K ? 0 : MPI_UNDEFINED, WorldRank,
                   &C);
    if (C != MPI_COMM_NULL) {
      for (const Operation &O : Ops)
        run(C, O);
      MPI_Comm_free(&C);
    }
  }
  long Total[2] = {0, 0}, Mine[2] = {Checks, Failures};
  MPI_Reduce(Mine, Total, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (WorldRank == 0 && Total[1] == 0)
    std::printf("reduce_scatter: %ld checks passed\n", Total[0]);
  MPI_Op_free(&Affine);
  MPI_Type_free(&Pair);
  long AnyFailed = 0;
  MPI_Allreduce(&Failures, &AnyFailed, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return AnyFailed ? 1 : 0;
}
