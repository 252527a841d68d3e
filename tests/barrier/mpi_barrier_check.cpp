// Runs collc's generated software barriers under a real MPI and checks that
// they behave as MPI_Barrier: every call returns MPI_SUCCESS, and no rank
// leaves a barrier before the last rank entered it. One rank (a different
// one each round) enters late; its entry time, shared by an allreduce after
// the barrier, must precede every rank's exit time.
//
//   mpi_barrier_check [--mpi-barrier]
//
// With --mpi-barrier the program calls MPI_Barrier itself: linked with the
// `--emit mpi-preload` object, that is collc's interposed barrier.
// The C API only (the C++ bindings of Open MPI do not build with -Werror).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <sys/time.h>
#include <unistd.h>

extern "C" int collc_barrier_dissemination(MPI_Comm);
extern "C" int collc_barrier_tree(MPI_Comm);
extern "C" int collc_barrier_gather_broadcast(MPI_Comm);

namespace {

double now() {
  // gettimeofday: one clock for all processes of a machine (and SMPI's
  // simulated clock under SimGrid).
  timeval T;
  gettimeofday(&T, nullptr);
  return static_cast<double>(T.tv_sec) + 1e-6 * static_cast<double>(T.tv_usec);
}

int Failures = 0;

void check(const char *Name, int (*Barrier)(MPI_Comm), MPI_Comm Comm) {
  int Rank, P;
  MPI_Comm_rank(Comm, &Rank);
  MPI_Comm_size(Comm, &P);
  const int Rounds = 12;
  int Bad = 0;
  for (int R = 0; R < Rounds; ++R) {
    if (Rank == R % P)
      usleep(3000); // this round's late arrival
    double Entered = now();
    int Rc = Barrier(Comm);
    double Left = now();
    double Latest = 0;
    MPI_Allreduce(&Entered, &Latest, 1, MPI_DOUBLE, MPI_MAX, Comm);
    if (Rc != MPI_SUCCESS || Left < Latest)
      ++Bad;
  }
  int AllBad = 0;
  MPI_Allreduce(&Bad, &AllBad, 1, MPI_INT, MPI_SUM, Comm);
  if (Rank == 0)
    std::printf("%-18s %3d ranks: %s\n", Name, P,
                AllBad ? "a rank left before the last arrived (or an error)" : "ok");
  Failures += AllBad;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm Comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &Comm);
  if (argc > 1 && !std::strcmp(argv[1], "--mpi-barrier")) {
    check("MPI_Barrier", MPI_Barrier, Comm);
  } else {
    check("dissemination", collc_barrier_dissemination, Comm);
    check("tree", collc_barrier_tree, Comm);
    check("gather-broadcast", collc_barrier_gather_broadcast, Comm);
  }
  MPI_Comm_free(&Comm);
  MPI_Finalize();
  return Failures ? 1 : 0;
}
