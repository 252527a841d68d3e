//===- osu_allgather: OSU-style latency of collc's allgather and MPI_Allgather
//
//   mpirun -np P osu_allgather [--iters N] [--warmup N]
//                              [--which collc|mpi|both]
//                              [--measure average|makespan] [--prewarm]
//                              BYTES...
//
// BYTES is the size of one rank's block. Prints one row per size: bytes,
// then the time in µs of the generated allgather (collc_allgather_bench, from
// `collc --emit mpi --mpi-name bench`) and of the MPI library's
// MPI_Allgather, by the measure of osu.h (OSU's average by default). Rank r
// sends a pattern naming (r, byte); the result is cleared before each
// checked call and every byte compared after it; wrong data aborts.
//
//===----------------------------------------------------------------------===//

#include "osu.h"

#include <algorithm>

extern "C" int collc_allgather_bench(const void *, int, MPI_Datatype, void *,
                                     int, MPI_Datatype, MPI_Comm);

int main(int argc, char **argv) {
  return osu::run(
      argc, argv, 1,
      [](const osu::Options &O, long B, bool Collc, int Rank, int P) {
        const int N = static_cast<int>(B);
        std::vector<char> In(B), Out(static_cast<size_t>(P) * B);
        for (size_t I = 0; I < In.size(); ++I)
          In[I] = osu::blockPattern(Rank, I);
        return osu::timed(
            O, [&] { std::fill(Out.begin(), Out.end(), 0); },
            [&] {
              return Collc ? collc_allgather_bench(In.data(), N, MPI_BYTE,
                                                   Out.data(), N, MPI_BYTE,
                                                   MPI_COMM_WORLD)
                           : MPI_Allgather(In.data(), N, MPI_BYTE, Out.data(),
                                           N, MPI_BYTE, MPI_COMM_WORLD);
            },
            [&] {
              for (int S = 0; S < P; ++S)
                for (size_t I = 0; I < In.size(); ++I)
                  if (Out[S * In.size() + I] != osu::blockPattern(S, I))
                    return false;
              return true;
            },
            "osu_allgather", Collc,
            "allgather of " + std::to_string(N) + "-byte blocks");
      });
}
