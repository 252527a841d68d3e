//===- osu_bcast: OSU-style latency of collc's broadcast and MPI_Bcast -----===//
//
//   mpirun -np P osu_bcast [--iters N] [--which collc|mpi|both] BYTES...
//
// Prints one row per size: bytes, then the average latency in µs of the
// generated broadcast (collc_bcast_bench, from `collc --emit mpi --mpi-name
// bench`) and of the MPI library's MPI_Bcast (OSU's measure: the average
// over ranks of each rank's average time per call, after warm-up, root 0).
//
//===----------------------------------------------------------------------===//

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" int collc_bcast_bench(void *, int, MPI_Datatype, int, MPI_Comm);

namespace {

double measure(bool Collc, std::vector<char> &Buf, int Iters) {
  int N = static_cast<int>(Buf.size());
  auto Call = [&] {
    int Rc = Collc ? collc_bcast_bench(Buf.data(), N, MPI_BYTE, 0, MPI_COMM_WORLD)
                   : MPI_Bcast(Buf.data(), N, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (Rc != MPI_SUCCESS) {
      std::fprintf(stderr, "osu_bcast: the %s broadcast of %d bytes failed (%d)\n",
                   Collc ? "collc" : "MPI", N, Rc);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  };
  for (int I = 0; I < 2; ++I) // warm-up (and collc's communicator cache)
    Call();
  MPI_Barrier(MPI_COMM_WORLD);
  double Start = MPI_Wtime();
  for (int I = 0; I < Iters; ++I)
    Call();
  double Mine = (MPI_Wtime() - Start) / Iters * 1e6, Sum = 0;
  int P = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Reduce(&Mine, &Sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  return Sum / P;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Iters = 100;
  std::string Which = "both";
  std::vector<long> Sizes;
  for (int I = 1; I < argc; ++I) {
    if (!std::strcmp(argv[I], "--iters") && I + 1 < argc)
      Iters = std::atoi(argv[++I]);
    else if (!std::strcmp(argv[I], "--which") && I + 1 < argc)
      Which = argv[++I];
    else
      Sizes.push_back(std::atol(argv[I]));
  }
  int Rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  for (long B : Sizes) {
    std::vector<char> Buf(B, 1);
    double C = Which != "mpi" ? measure(true, Buf, Iters) : 0;
    double M = Which != "collc" ? measure(false, Buf, Iters) : 0;
    if (Rank == 0)
      std::printf("%ld %.3f %.3f\n", B, C, M);
  }
  MPI_Finalize();
  return 0;
}
