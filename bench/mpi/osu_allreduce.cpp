//===- osu_allreduce: OSU-style latency of collc's allreduce and MPI_Allreduce
//
//   mpirun -np P osu_allreduce [--iters N] [--which collc|mpi|both] BYTES...
//
// Prints one row per size: bytes, then the average latency in µs of the
// generated allreduce (collc_allreduce_bench: a sum of int32, from `collc
// --emit mpi --mpi-name bench`) and of the MPI library's MPI_Allreduce (OSU's
// measure, see osu.h). Both results are checked against each other once per
// size; a mismatch aborts.
//
//===----------------------------------------------------------------------===//

#include "osu.h"

#include <cstdio>

extern "C" int collc_allreduce_bench(const void *, void *, int, MPI_Datatype,
                                     MPI_Op, MPI_Comm);

namespace {

void fail(const char *What, long Bytes) {
  std::fprintf(stderr, "osu_allreduce: %s at %ld bytes\n", What, Bytes);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

double measure(bool Collc, const std::vector<int> &In, std::vector<int> &Out,
               int Iters) {
  int N = static_cast<int>(In.size());
  return osu::latency(
      [&] {
        int Rc = Collc ? collc_allreduce_bench(In.data(), Out.data(), N,
                                               MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                       : MPI_Allreduce(In.data(), Out.data(), N, MPI_INT,
                                       MPI_SUM, MPI_COMM_WORLD);
        osu::check(
            Rc, "osu_allreduce", Collc,
            ("allreduce of " + std::to_string(4L * N) + " bytes").c_str());
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
    std::vector<int> In(B / 4, Rank + 1), Out(B / 4), Ref(B / 4);
    if (O.collc() && O.mpi()) {
      collc_allreduce_bench(In.data(), Out.data(), int(In.size()), MPI_INT,
                            MPI_SUM, MPI_COMM_WORLD);
      MPI_Allreduce(In.data(), Ref.data(), int(In.size()), MPI_INT, MPI_SUM,
                    MPI_COMM_WORLD);
      if (Out != Ref)
        fail("collc's result differs from MPI_Allreduce's", B);
    }
    double C = O.collc() ? measure(true, In, Out, O.Iters) : 0;
    double M = O.mpi() ? measure(false, In, Ref, O.Iters) : 0;
    if (Rank == 0)
      std::printf("%ld %.3f %.3f\n", B, C, M);
  }
  MPI_Finalize();
  return 0;
}
