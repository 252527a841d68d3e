//===- osu_allgather: OSU-style latency of collc's allgather and MPI_Allgather
//
//   mpirun -np P osu_allgather [--iters N] [--warmup N]
//                              [--which collc|mpi|both]
//                              [--measure average|median|makespan] [--prewarm]
//                              BYTES...
//
// BYTES is the size of one rank's block. Prints one row per size: bytes,
// then the time in µs of the generated allgather (collc_allgather_bench, from
// `collc --emit mpi --mpi-name bench`) and of the MPI library's
// MPI_Allgather, by the measure of osu.h (OSU's average by default). Rank r
// sends a pattern naming (r, byte); the result is cleared before each
// checked call and every byte compared after it; wrong data aborts. Built
// with -DOSU_SECOND (osu_alltoall.cpp) it times the all-to-all,
// collc_alltoall_bench against MPI_Alltoall, instead: BYTES is then the size
// of what each rank sends to each rank, a pattern naming (source,
// destination, byte), and the expected result is computed, not asked of
// MPI_Alltoall (some of SMPI's algorithms take minutes to simulate at 256
// ranks).
//
//===----------------------------------------------------------------------===//

#include "osu.h"

#include <algorithm>

using ExchangeFn = int (*)(const void *, int, MPI_Datatype, void *, int,
                           MPI_Datatype, MPI_Comm);
extern "C" int collc_allgather_bench(const void *, int, MPI_Datatype, void *,
                                     int, MPI_Datatype, MPI_Comm);
extern "C" int collc_alltoall_bench(const void *, int, MPI_Datatype, void *,
                                    int, MPI_Datatype, MPI_Comm);

static const bool Alltoall = OSU_PICK(false, true);
static const char *const Name = OSU_PICK("osu_allgather", "osu_alltoall");
static ExchangeFn collcFn() {
  return OSU_PICK(collc_allgather_bench, collc_alltoall_bench);
}

/// Byte \p Byte of the block rank \p Src sends rank \p Dst (the allgather
/// sends every rank the same block).
static char pattern(int Src, int Dst, size_t Byte) {
  return Alltoall ? static_cast<char>(Src * 131 + Dst * 7 + Byte)
                  : osu::blockPattern(Src, Byte);
}

int main(int argc, char **argv) {
  return osu::run(argc, argv, 1, [](const osu::Case &C) {
    const size_t B = C.size();
    // The all-to-all sends every rank a block of its own.
    const int Blocks = Alltoall ? C.P : 1;
    std::vector<char> In(static_cast<size_t>(Blocks) * B),
        Out(static_cast<size_t>(C.P) * B);
    for (int D = 0; D < Blocks; ++D)
      for (size_t W = 0; W < B; ++W)
        In[D * B + W] = pattern(C.Rank, D, W);
    ExchangeFn F = C.Collc    ? collcFn()
                   : Alltoall ? MPI_Alltoall
                              : MPI_Allgather;
    return osu::timed(
        C, [&] { std::fill(Out.begin(), Out.end(), 0); },
        [&] {
          return F(In.data(), C.count(), MPI_BYTE, Out.data(), C.count(),
                   MPI_BYTE, MPI_COMM_WORLD);
        },
        [&] {
          for (int Src = 0; Src < C.P; ++Src)
            for (size_t W = 0; W < B; ++W)
              if (Out[Src * B + W] != pattern(Src, C.Rank, W))
                return false;
          return true;
        },
        Name,
        std::string(Alltoall ? "all-to-all" : "allgather") + " of " +
            std::to_string(C.Bytes) + "-byte blocks");
  });
}
