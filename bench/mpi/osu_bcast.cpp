//===- osu_bcast: OSU-style latency of collc's broadcast and MPI_Bcast
//-----===//
//
//   mpirun -np P osu_bcast [--iters N] [--which collc|mpi|both] BYTES...
//
// Prints one row per size: bytes, then the average latency in µs of the
// generated broadcast (collc_bcast_bench, from `collc --emit mpi --mpi-name
// bench`) and of the MPI library's MPI_Bcast (OSU's measure: the average
// over ranks of each rank's average time per call, after warm-up, root 0).
//
//===----------------------------------------------------------------------===//

#include "osu.h"

#include <cstdio>

extern "C" int collc_bcast_bench(void *, int, MPI_Datatype, int, MPI_Comm);

namespace {

double measure(bool Collc, std::vector<char> &Buf, int Iters) {
  int N = static_cast<int>(Buf.size());
  return osu::latency(
      [&] {
        int Rc = Collc ? collc_bcast_bench(Buf.data(), N, MPI_BYTE, 0,
                                           MPI_COMM_WORLD)
                       : MPI_Bcast(Buf.data(), N, MPI_BYTE, 0, MPI_COMM_WORLD);
        osu::check(Rc, "osu_bcast", Collc,
                   ("broadcast of " + std::to_string(N) + " bytes").c_str());
      },
      Iters);
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  osu::Options O = osu::parse(argc, argv);
  int Rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  for (long B : O.Sizes) {
    std::vector<char> Buf(B, 1);
    double C = O.collc() ? measure(true, Buf, O.Iters) : 0;
    double M = O.mpi() ? measure(false, Buf, O.Iters) : 0;
    if (Rank == 0)
      std::printf("%ld %.3f %.3f\n", B, C, M);
  }
  MPI_Finalize();
  return 0;
}
