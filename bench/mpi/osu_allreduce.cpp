//===- osu_allreduce: OSU-style latency of collc's allreduce and MPI_Allreduce
//
//   mpirun -np P osu_allreduce [--iters N] [--warmup N]
//                              [--which collc|mpi|both]
//                              [--measure average|median|makespan] [--prewarm]
//                              BYTES...
//
// Prints one row per size: bytes, then the time in µs of the generated
// allreduce (collc_allreduce_bench: a sum of int32, from `collc --emit mpi
// --mpi-name bench`) and of the MPI library's MPI_Allreduce, by the measure
// of osu.h (OSU's average by default). Rank r contributes (r + 1) * (i % 7 +
// 1) at element i; the result is cleared before each checked call and
// compared with the sum, (i % 7 + 1) * P (P + 1) / 2, after it; wrong data
// aborts. Built with -DOSU_SECOND (osu_reduce.cpp) it times the reduce to
// root 0, collc_reduce_bench against MPI_Reduce, instead, and checks the
// root's result.
//
//===----------------------------------------------------------------------===//

#include "osu.h"

extern "C" int collc_allreduce_bench(const void *, void *, int, MPI_Datatype,
                                     MPI_Op, MPI_Comm);
extern "C" int collc_reduce_bench(const void *, void *, int, MPI_Datatype,
                                  MPI_Op, int, MPI_Comm);

static const bool Reduce = OSU_PICK(false, true);

int main(int argc, char **argv) {
  return osu::run(argc, argv, 4, [](const osu::Case &C) {
    return osu::timedSum(
        C, /*AtRootOnly=*/Reduce, Reduce ? "osu_reduce" : "osu_allreduce",
        Reduce ? "reduce" : "allreduce", [&](int *In, int *Out, int N) {
          if (C.Collc)
            return OSU_PICK(collc_allreduce_bench(In, Out, N, MPI_INT, MPI_SUM,
                                                  MPI_COMM_WORLD),
                            collc_reduce_bench(In, Out, N, MPI_INT, MPI_SUM, 0,
                                               MPI_COMM_WORLD));
          return Reduce ? MPI_Reduce(In, Out, N, MPI_INT, MPI_SUM, 0,
                                     MPI_COMM_WORLD)
                        : MPI_Allreduce(In, Out, N, MPI_INT, MPI_SUM,
                                        MPI_COMM_WORLD);
        });
  });
}
