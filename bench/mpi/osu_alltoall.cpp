//===- osu_alltoall: OSU-style latency of collc's alltoall and MPI_Alltoall
//===//
//
//   mpirun -np P osu_alltoall [--iters N] [--warmup N]
//                             [--which collc|mpi|both]
//                             [--measure average|makespan] [--prewarm]
//                             BYTES...
//
// BYTES is the size of one block (what each rank sends to each rank). Prints
// one row per size: bytes, then the time in µs of the generated all-to-all
// (collc_alltoall_bench, from `collc --emit mpi --mpi-name bench`) and of
// the MPI library's MPI_Alltoall, by the measure of osu.h (OSU's average by
// default). Every rank sends a pattern naming (source, destination, byte);
// the result is cleared before each checked call and every byte compared
// after it (the expected result is computed, not asked of MPI_Alltoall:
// some of SMPI's algorithms take minutes to simulate at 256 ranks); wrong
// data aborts.
//
//===----------------------------------------------------------------------===//

#include "osu.h"

#include <algorithm>

extern "C" int collc_alltoall_bench(const void *, int, MPI_Datatype, void *,
                                    int, MPI_Datatype, MPI_Comm);

static char pattern(int Src, int Dst, size_t Byte) {
  return static_cast<char>(Src * 131 + Dst * 7 + Byte);
}

int main(int argc, char **argv) {
  return osu::run(
      argc, argv, 1,
      [](const osu::Options &O, long S, bool Collc, int Rank, int P) {
        const size_t B = static_cast<size_t>(S);
        const int Block = static_cast<int>(S);
        std::vector<char> In(static_cast<size_t>(P) * B), Out(In.size());
        for (int D = 0; D < P; ++D)
          for (size_t W = 0; W < B; ++W)
            In[D * B + W] = pattern(Rank, D, W);
        return osu::timed(
            O, [&] { std::fill(Out.begin(), Out.end(), 0); },
            [&] {
              return Collc
                         ? collc_alltoall_bench(In.data(), Block, MPI_BYTE,
                                                Out.data(), Block, MPI_BYTE,
                                                MPI_COMM_WORLD)
                         : MPI_Alltoall(In.data(), Block, MPI_BYTE, Out.data(),
                                        Block, MPI_BYTE, MPI_COMM_WORLD);
            },
            [&] {
              for (int Src = 0; Src < P; ++Src)
                for (size_t W = 0; W < B; ++W)
                  if (Out[Src * B + W] != pattern(Src, Rank, W))
                    return false;
              return true;
            },
            "osu_alltoall", Collc,
            "all-to-all of " + std::to_string(Block) + "-byte blocks");
      });
}
