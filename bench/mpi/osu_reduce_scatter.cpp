//===- osu_reduce_scatter: OSU-style latency of collc's reduce-scatter and
//    MPI_Reduce_scatter_block
//
//   mpirun -np P osu_reduce_scatter [--iters N] [--warmup N]
//                                   [--which collc|mpi|both]
//                                   [--measure average|median|makespan]
//                                   [--prewarm] BYTES...
//
// BYTES is the whole vector (a multiple of 4 P: P blocks of int32). Prints
// one row per size: bytes, then the time in µs of the generated
// reduce-scatter (collc_reduce_scatter_block_bench, a sum of int32, from
// `collc --emit mpi --mpi-name bench`) and of the MPI library's
// MPI_Reduce_scatter_block, by the measure of osu.h (OSU's average by
// default). Rank r contributes (r + 1) x (i % 7 + 1) at element i of the
// vector; rank r's block (elements r N .. r N + N - 1) is cleared before
// each checked call and compared with the sum, (i % 7 + 1) P (P + 1) / 2,
// after it; wrong data aborts.
//
//===----------------------------------------------------------------------===//

#include "osu.h"

#include <algorithm>

extern "C" int collc_reduce_scatter_block_bench(const void *, void *, int,
                                                MPI_Datatype, MPI_Op, MPI_Comm);

int main(int argc, char **argv) {
  return osu::run(argc, argv, 0, [](const osu::Case &C) {
    const size_t Count = static_cast<size_t>(C.Bytes / 4);
    const int N = static_cast<int>(Count / static_cast<size_t>(C.P));
    std::vector<int> In(Count), Out(static_cast<size_t>(N));
    for (size_t I = 0; I < In.size(); ++I)
      In[I] = (C.Rank + 1) * static_cast<int>(I % 7 + 1);
    return osu::timed(
        C, [&] { std::fill(Out.begin(), Out.end(), -1); },
        [&] {
          return C.Collc
                     ? collc_reduce_scatter_block_bench(In.data(), Out.data(),
                                                        N, MPI_INT, MPI_SUM,
                                                        MPI_COMM_WORLD)
                     : MPI_Reduce_scatter_block(In.data(), Out.data(), N,
                                                MPI_INT, MPI_SUM,
                                                MPI_COMM_WORLD);
        },
        [&] {
          const int Sum = C.P * (C.P + 1) / 2;
          for (size_t I = 0; I < Out.size(); ++I) {
            const size_t G = static_cast<size_t>(C.Rank) * Out.size() + I;
            if (Out[I] != static_cast<int>(G % 7 + 1) * Sum)
              return false;
          }
          return true;
        },
        "osu_reduce_scatter",
        "reduce-scatter of " + std::to_string(C.Bytes) + " bytes");
  });
}
