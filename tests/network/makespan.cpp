//===- makespan: the time SMPI simulates for one generated collective -----===//
//
//   smpirun -np 256 ... makespan BYTES
//
// Calls the generated collc_<COLL>_bench (COLL: a -D macro, bcast,
// allreduce, allgather or alltoall; BYTES per block as collc counts them)
// once to warm up (the communicator cache), then starts every rank at the
// same simulated moment and prints the makespan: the last rank's end minus
// that moment, in µs. Run with --cfg=smpi/simulate-computation:no.
//
//===----------------------------------------------------------------------===//

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

extern "C" {
int collc_bcast_bench(void *, int, MPI_Datatype, int, MPI_Comm);
int collc_allreduce_bench(const void *, void *, int, MPI_Datatype, MPI_Op,
                          MPI_Comm);
int collc_allgather_bench(const void *, int, MPI_Datatype, void *, int,
                          MPI_Datatype, MPI_Comm);
int collc_alltoall_bench(const void *, int, MPI_Datatype, void *, int,
                         MPI_Datatype, MPI_Comm);
}

namespace {

int call(long Bytes, char *Send, char *Recv) {
  const int N = static_cast<int>(Bytes);
#if defined(COLL_bcast)
  (void)Send;
  return collc_bcast_bench(Recv, N, MPI_BYTE, 0, MPI_COMM_WORLD);
#elif defined(COLL_allreduce)
  return collc_allreduce_bench(Send, Recv, N / 4, MPI_INT, MPI_SUM,
                               MPI_COMM_WORLD);
#elif defined(COLL_allgather)
  return collc_allgather_bench(Send, N, MPI_BYTE, Recv, N, MPI_BYTE,
                               MPI_COMM_WORLD);
#elif defined(COLL_alltoall)
  return collc_alltoall_bench(Send, N, MPI_BYTE, Recv, N, MPI_BYTE,
                              MPI_COMM_WORLD);
#else
#error "define COLL_bcast, COLL_allreduce, COLL_allgather or COLL_alltoall"
#endif
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int P = 1, Rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  long Bytes = argc > 1 ? std::atol(argv[1]) : 1;
  size_t Blocks = 1;
#if defined(COLL_allgather) || defined(COLL_alltoall)
  Blocks = static_cast<size_t>(P);
#endif
  // Every rank's buffers in one shared allocation under SMPI: only the times
  // matter, and 256 ranks' all-to-all buffers would not fit.
  const size_t Size = Bytes * Blocks + 1;
#ifdef SMPI_SHARED_MALLOC
  char *S = static_cast<char *>(SMPI_SHARED_MALLOC(Size)),
       *R = static_cast<char *>(SMPI_SHARED_MALLOC(Size));
#else
  char *S = static_cast<char *>(std::calloc(Size, 1)),
       *R = static_cast<char *>(std::calloc(Size, 1));
#endif
  if (call(Bytes, S, R) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  // One moment for all: well after every rank is through an allreduce.
  double Now = MPI_Wtime(), Latest = 0;
  MPI_Allreduce(&Now, &Latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double Start = Latest + 0.01;
  double Wait = Start - MPI_Wtime();
  timespec Ts;
  Ts.tv_sec = static_cast<time_t>(Wait);
  Ts.tv_nsec = static_cast<long>((Wait - Ts.tv_sec) * 1e9 + 0.5);
  nanosleep(&Ts, nullptr);
  if (call(Bytes, S, R) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  double End = MPI_Wtime(), Last = 0;
  MPI_Reduce(&End, &Last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    std::printf("makespan %.4f\n", (Last - Start) * 1e6);
  MPI_Finalize();
  return 0;
}
