// Broadcasts 64 KiB with collc's schedule, checks it against MPI_Bcast, and
// times both.
#include "bcast8.h"

#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank = 0, Size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  const int N = 65536, Iters = 20;
  std::vector<unsigned char> Mine(N), Ref(N);
  for (int I = 0; I < N; ++I)
    Mine[I] = Ref[I] = Rank == 0 ? static_cast<unsigned char>(I * 31 + 7) : 0;
  int Rc = collc_bcast_bcast8(Mine.data(), N, MPI_BYTE, 0, MPI_COMM_WORLD);
  MPI_Bcast(Ref.data(), N, MPI_BYTE, 0, MPI_COMM_WORLD);
  int Bad = Rc != MPI_SUCCESS || Mine != Ref, AnyBad = 0;
  MPI_Reduce(&Bad, &AnyBad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);

  double T[2];
  for (int Which = 0; Which < 2; ++Which) {
    MPI_Barrier(MPI_COMM_WORLD);
    double Start = MPI_Wtime();
    for (int I = 0; I < Iters; ++I)
      Which ? MPI_Bcast(Mine.data(), N, MPI_BYTE, 0, MPI_COMM_WORLD)
            : collc_bcast_bcast8(Mine.data(), N, MPI_BYTE, 0, MPI_COMM_WORLD);
    T[Which] = (MPI_Wtime() - Start) / Iters * 1e6;
  }
  if (Rank == 0)
    std::printf("embed: %d ranks, %d bytes: %s; collc %.1f us, MPI_Bcast %.1f us\n", Size, N,
                AnyBad ? "WRONG" : "correct", T[0], T[1]);
  MPI_Finalize();
  return AnyBad;
}
