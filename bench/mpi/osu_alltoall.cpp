//===- osu_alltoall: OSU-style latency of collc's alltoall and MPI_Alltoall
//===//
//
//   mpirun -np P osu_alltoall [--iters N] [--which collc|mpi|both] BYTES...
//
// BYTES is the size of one block (what each rank sends to each rank). Prints
// one row per size: bytes, then the average latency in µs of the generated
// all-to-all (collc_alltoall_bench, from `collc --emit mpi --mpi-name bench`)
// and of the MPI library's MPI_Alltoall (OSU's measure: the average over
// ranks of each rank's average time per call, after warm-up). The first
// call of collc's is checked byte by byte.
//
//===----------------------------------------------------------------------===//

#include "osu.h"

#include <cstdio>

extern "C" int collc_alltoall_bench(const void *, int, MPI_Datatype, void *,
                                    int, MPI_Datatype, MPI_Comm);

namespace {

struct Buffers {
  std::vector<char> Send, Recv;
  int Block = 0;
};

void call(bool Collc, Buffers &B) {
  int Rc = Collc ? collc_alltoall_bench(B.Send.data(), B.Block, MPI_BYTE,
                                        B.Recv.data(), B.Block, MPI_BYTE,
                                        MPI_COMM_WORLD)
                 : MPI_Alltoall(B.Send.data(), B.Block, MPI_BYTE, B.Recv.data(),
                                B.Block, MPI_BYTE, MPI_COMM_WORLD);
  osu::check(
      Rc, "osu_alltoall", Collc,
      ("all-to-all of " + std::to_string(B.Block) + "-byte blocks").c_str());
}

char pattern(int Src, int Dst, size_t Byte) {
  return static_cast<char>(Src * 131 + Dst * 7 + Byte);
}

// Runs collc's all-to-all once on a pattern naming (source, destination,
// byte) and checks every received byte; aborts on a mismatch. (The
// expected result is computed, not asked of MPI_Alltoall: some of SMPI's
// algorithms take minutes to simulate at 256 ranks.)
void verify(Buffers &B, int Rank, int P) {
  size_t Block = static_cast<size_t>(B.Block);
  for (int D = 0; D < P; ++D)
    for (size_t W = 0; W < Block; ++W)
      B.Send[D * Block + W] = pattern(Rank, D, W);
  call(true, B);
  int Wrong = 0, Any = 0;
  for (int S = 0; S < P; ++S)
    for (size_t W = 0; W < Block; ++W)
      Wrong |= B.Recv[S * Block + W] != pattern(S, Rank, W);
  MPI_Allreduce(&Wrong, &Any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (Any) {
    if (Rank == 0)
      std::fprintf(stderr,
                   "osu_alltoall: collc's all-to-all of %d-byte blocks "
                   "delivered wrong data\n",
                   B.Block);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  osu::Options O = osu::parse(argc, argv);
  int Rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  for (long S : O.Sizes) {
    Buffers B;
    B.Block = static_cast<int>(S);
    B.Send.assign(static_cast<size_t>(P) * S, 1);
    B.Recv.assign(B.Send.size(), 0);
    if (O.collc())
      verify(B, Rank, P);
    double C = O.collc() ? osu::latency([&] { call(true, B); }, O.Iters) : 0;
    double M = O.mpi() ? osu::latency([&] { call(false, B); }, O.Iters) : 0;
    if (Rank == 0)
      std::printf("%ld %.3f %.3f\n", S, C, M);
  }
  MPI_Finalize();
  return 0;
}
