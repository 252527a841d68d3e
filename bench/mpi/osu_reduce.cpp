//===- osu_reduce: OSU-style latency of collc's reduce and MPI_Reduce -===//
//
//   mpirun -np P osu_reduce [--iters N] [--warmup N] [--which collc|mpi|both]
//                           [--measure average|makespan] [--prewarm] BYTES...
//
// Prints one row per size: bytes, then the time in µs of the generated
// reduce (collc_reduce_bench: a sum of int32 to root 0, from `collc --emit
// mpi --mpi-name bench`) and of the MPI library's MPI_Reduce, by the measure
// of osu.h (OSU's average by default). Rank r contributes (r + 1) * (i % 7 +
// 1) at element i; the root's result is cleared before each checked call and
// compared with the sum, (i % 7 + 1) * P (P + 1) / 2, after it; wrong data
// aborts.
//
//===----------------------------------------------------------------------===//

#include "osu.h"

extern "C" int collc_reduce_bench(const void *, void *, int, MPI_Datatype,
                                  MPI_Op, int, MPI_Comm);

int main(int argc, char **argv) {
  return osu::run(
      argc, argv, 4,
      [](const osu::Options &O, long B, bool Collc, int Rank, int P) {
        return osu::timedSum(
            O, Collc, Rank, P, B, true, "osu_reduce", "reduce",
            [&](int *In, int *Out, int N) {
              return Collc ? collc_reduce_bench(In, Out, N, MPI_INT, MPI_SUM, 0,
                                                MPI_COMM_WORLD)
                           : MPI_Reduce(In, Out, N, MPI_INT, MPI_SUM, 0,
                                        MPI_COMM_WORLD);
            });
      });
}
