//===- bcast_time: completion time of generated broadcasts under MPI ------===//
//
//   mpirun -np P bcast_time BYTES
//
// Times every broadcast linked in (collc_bcast_<name>, listed in BROADCASTS
// at compile time) from root 0: after a barrier, the time from the root's
// start until the last rank holds the message (maximum over ranks of the end
// time minus the root's start; SMPI's clock is global). Checks the data too.
// Prints one line per broadcast: name, bytes, microseconds.
//
//===----------------------------------------------------------------------===//

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define DECLARE(Name)                                                          \
  extern "C" int collc_bcast_##Name(void *, int, MPI_Datatype, int, MPI_Comm);
BROADCASTS(DECLARE)
#undef DECLARE

namespace {

struct Entry {
  const char *Name;
  int (*Fn)(void *, int, MPI_Datatype, int, MPI_Comm);
};

#define ENTRY(Name) {#Name, collc_bcast_##Name},
const Entry Entries[] = {BROADCASTS(ENTRY)};
#undef ENTRY

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  const int N = argc > 1 ? std::atoi(argv[1]) : 0;
  int Failed = 0;
  for (const Entry &E : Entries) {
    std::vector<unsigned char> Buf(N);
    auto Fill = [&] {
      for (int I = 0; I < N; ++I)
        Buf[I] = Rank == 0 ? static_cast<unsigned char>(I * 7 + 1) : 0;
    };
    // Warm-up (collc caches its duplicated communicator on the first call).
    Fill();
    E.Fn(Buf.data(), N, MPI_BYTE, 0, MPI_COMM_WORLD);
    Fill();
    MPI_Barrier(MPI_COMM_WORLD);
    double Start = MPI_Wtime();
    int Rc = E.Fn(Buf.data(), N, MPI_BYTE, 0, MPI_COMM_WORLD);
    double End = MPI_Wtime(), Last = 0, RootStart = Start;
    MPI_Bcast(&RootStart, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Reduce(&End, &Last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int Bad = Rc != MPI_SUCCESS;
    for (int I = 0; I < N && !Bad; ++I)
      Bad = Buf[I] != static_cast<unsigned char>(I * 7 + 1);
    int AnyBad = 0;
    MPI_Allreduce(&Bad, &AnyBad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    Failed |= AnyBad;
    if (Rank == 0)
      std::printf("%s %d %.1f%s\n", E.Name, N, (Last - RootStart) * 1e6,
                  AnyBad ? " WRONG" : "");
  }
  MPI_Finalize();
  return Failed;
}
