// Checks collc's generated all-to-all entry points against MPI_Alltoall:
// every rank fills its send buffer with a pattern naming (source, dest,
// word), runs the generated schedule and MPI_Alltoall, and compares the
// receive buffers word for word. The entry points come from the generated
// files this is linked with (collc --emit mpi --mpi-name NAME).
//
//   alltoall_check COUNT     (COUNT ints per block; the schedules were built
//                             for 4 * COUNT bytes)
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" int collc_alltoall_sem(const void *, int, MPI_Datatype, void *, int,
                                  MPI_Datatype, MPI_Comm);
extern "C" int collc_alltoall_torus_row_column(const void *, int, MPI_Datatype,
                                               void *, int, MPI_Datatype,
                                               MPI_Comm);
extern "C" int collc_alltoall_torus_direct(const void *, int, MPI_Datatype,
                                           void *, int, MPI_Datatype, MPI_Comm);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank = 0, P = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const int Count = argc > 1 ? atoi(argv[1]) : 2;
  const bool WithDirect = argc > 2 ? atoi(argv[2]) != 0 : true;
  std::vector<int> Send(static_cast<size_t>(P) * Count), Want(Send.size());
  for (int D = 0; D < P; ++D)
    for (int W = 0; W < Count; ++W)
      Send[static_cast<size_t>(D) * Count + W] = (Rank * P + D) * Count + W;
  MPI_Alltoall(Send.data(), Count, MPI_INT, Want.data(), Count, MPI_INT,
               MPI_COMM_WORLD);
  struct Entry {
    const char *Name;
    int (*Fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
              MPI_Comm);
  } Entries[] = {{"sem", collc_alltoall_sem},
                 {"torus-row-column", collc_alltoall_torus_row_column},
                 {"torus-direct", collc_alltoall_torus_direct}};
  int Bad = 0;
  for (const Entry &E : Entries) {
    if (!WithDirect && E.Fn == collc_alltoall_torus_direct)
      continue;
    std::vector<int> Got(Send.size(), -1);
    int Code = E.Fn(Send.data(), Count, MPI_INT, Got.data(), Count, MPI_INT,
                    MPI_COMM_WORLD);
    int Wrong = Code != MPI_SUCCESS || Got != Want, Any = 0;
    MPI_Allreduce(&Wrong, &Any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (Rank == 0)
      printf("%-18s %d ranks, %d ints per block: %s\n", E.Name, P, Count,
             Any ? "MISMATCH" : "matches MPI_Alltoall");
    Bad |= Any;
  }
  MPI_Finalize();
  return Bad;
}
