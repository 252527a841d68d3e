//===- osu_bcast: OSU-style latency of collc's broadcast and MPI_Bcast
//-----===//
//
//   mpirun -np P osu_bcast [--iters N] [--warmup N] [--which collc|mpi|both]
//                          [--measure average|median|makespan] [--prewarm]
//                          BYTES...
//
// Prints one row per size: bytes, then the time in µs of the generated
// broadcast (collc_bcast_bench, from `collc --emit mpi --mpi-name bench`) and
// of the MPI library's MPI_Bcast, root 0, by the measure of osu.h (OSU's
// average by default). The root sends a pattern and every other rank's
// buffer is cleared before each checked call and compared with the pattern
// after it; wrong data aborts.
//
//===----------------------------------------------------------------------===//

#include "osu.h"

extern "C" int collc_bcast_bench(void *, int, MPI_Datatype, int, MPI_Comm);

static char pattern(size_t Byte) { return static_cast<char>(Byte * 7 + 3); }

int main(int argc, char **argv) {
  return osu::run(argc, argv, 1, [](const osu::Case &C) {
    std::vector<char> Buf(C.size());
    return osu::timed(
        C,
        [&] {
          for (size_t I = 0; I < Buf.size(); ++I)
            Buf[I] = C.Rank == 0 ? pattern(I) : 0;
        },
        [&] {
          return C.Collc ? collc_bcast_bench(Buf.data(), C.count(), MPI_BYTE, 0,
                                             MPI_COMM_WORLD)
                         : MPI_Bcast(Buf.data(), C.count(), MPI_BYTE, 0,
                                     MPI_COMM_WORLD);
        },
        [&] {
          for (size_t I = 0; I < Buf.size(); ++I)
            if (Buf[I] != pattern(I))
              return false;
          return true;
        },
        "osu_bcast", "broadcast of " + std::to_string(C.Bytes) + " bytes");
  });
}
