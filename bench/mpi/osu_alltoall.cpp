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

namespace {

char pattern(int Src, int Dst, size_t Byte) {
  return static_cast<char>(Src * 131 + Dst * 7 + Byte);
}

double measure(const osu::Options &O, bool Collc, const std::vector<char> &In,
               std::vector<char> &Out, int Block, int Rank, int P) {
  const std::string What =
      "all-to-all of " + std::to_string(Block) + "-byte blocks";
  return osu::timed(
      O, [&] { std::fill(Out.begin(), Out.end(), 0); },
      [&] {
        int Rc =
            Collc ? collc_alltoall_bench(In.data(), Block, MPI_BYTE, Out.data(),
                                         Block, MPI_BYTE, MPI_COMM_WORLD)
                  : MPI_Alltoall(In.data(), Block, MPI_BYTE, Out.data(), Block,
                                 MPI_BYTE, MPI_COMM_WORLD);
        osu::check(Rc, "osu_alltoall", Collc, What.c_str());
      },
      [&] {
        const size_t B = static_cast<size_t>(Block);
        for (int S = 0; S < P; ++S)
          for (size_t W = 0; W < B; ++W)
            if (Out[S * B + W] != pattern(S, Rank, W))
              return false;
        return true;
      },
      "osu_alltoall", Collc, What);
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  osu::sizes(argc, argv, 1, [&](const osu::Options &O, long S, bool Collc) {
    const size_t B = static_cast<size_t>(S);
    std::vector<char> In(static_cast<size_t>(P) * B), Out(In.size());
    for (int D = 0; D < P; ++D)
      for (size_t W = 0; W < B; ++W)
        In[D * B + W] = pattern(Rank, D, W);
    return measure(O, Collc, In, Out, static_cast<int>(S), Rank, P);
  });
  MPI_Finalize();
  return 0;
}
