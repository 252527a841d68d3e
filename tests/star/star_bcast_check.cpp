// Runs collc's generated star/macro-star broadcasts (rank = node number) and
// checks that every rank ends with the root's bytes.
//
//   star_bcast_check ROOT...   (one generated schedule per root, see
//                               run_star_mpi.sh)
// The C API only (Open MPI's C++ bindings do not build with -Wextra -Werror).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" int collc_bcast_star(void *, int, MPI_Datatype, int, MPI_Comm);

namespace {
constexpr int Bytes = 1024;

unsigned char pattern(int Root, int I) {
  return static_cast<unsigned char>((Root * 131 + I * 7 + 1) & 0xff);
}
} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank = 0, Size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  int Failures = 0;
  for (int A = 1; A < argc; ++A) {
    int Root = std::atoi(argv[A]);
    std::vector<unsigned char> Buf(Bytes, 0);
    if (Rank == Root)
      for (int I = 0; I < Bytes; ++I)
        Buf[I] = pattern(Root, I);
    int Rc =
        collc_bcast_star(Buf.data(), Bytes, MPI_BYTE, Root, MPI_COMM_WORLD);
    int Bad = Rc != MPI_SUCCESS;
    for (int I = 0; I < Bytes && !Bad; ++I)
      Bad = Buf[I] != pattern(Root, I);
    int AllBad = 0;
    MPI_Allreduce(&Bad, &AllBad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (Rank == 0)
      std::printf("root %d on %d ranks: %s (%d ranks wrong)\n", Root, Size,
                  AllBad ? "FAIL" : "ok", AllBad);
    Failures += AllBad;
  }
  MPI_Finalize();
  return Failures ? 1 : 0;
}
