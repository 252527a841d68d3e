// The drop-in library's later calls: what a call of a kind already cached
// costs over the table path (the runtime running a frozen variant, as
// `--emit mpi-preload` code does). One MPI process, on MPI_COMM_SELF: the
// schedule has no transfer, so the difference is the library's own work
// (configuration, the call's shape, the communicator's cached node list, the
// cache lookup). Run under the library:
//
//   COLLC_MACHINE=examples/machines/pc-cluster.yaml
//     LD_PRELOAD=build/lib/libcollc-mpi.so build/bin/bench-dropin-overhead
//   (one command line)
//
// It builds the same variant with its own engine for the table path.
#include "runtime/collc/runtime.h"

#include "dropin/Engine.h"

#include "bench/Timing.h"

#include "llvm/Support/Error.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>

using namespace collc;

namespace {

/// Nanoseconds per call of \p F: the median of 5 rounds of \p N calls.
double nsPerCall(int N, const std::function<void()> &F) {
  std::vector<double> Rounds;
  for (int R = 0; R < 5; ++R) {
    auto T0 = bench::Clock::now();
    for (int I = 0; I < N; ++I)
      F();
    Rounds.push_back(bench::seconds(T0, bench::Clock::now()) / N * 1e9);
  }
  return bench::median(Rounds);
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const char *Path = std::getenv("COLLC_MACHINE");
  llvm::Expected<dropin::Config> C =
      dropin::parseConfig(Path, nullptr, nullptr, nullptr);
  llvm::Expected<std::unique_ptr<dropin::Engine>> E =
      C ? dropin::Engine::create(*C)
        : llvm::Expected<std::unique_ptr<dropin::Engine>>(C.takeError());
  if (!E) {
    std::fprintf(stderr, "bench-dropin-overhead: %s\n",
                 llvm::toString(E.takeError()).c_str());
    MPI_Finalize();
    return 1;
  }
  // The drop-in figure means something only under the library.
  Dl_info Where;
  void *Sym = dlsym(RTLD_DEFAULT, "MPI_Bcast");
  if (!Sym || !dladdr(Sym, &Where) || !Where.dli_fname ||
      !std::strstr(Where.dli_fname, "libcollc-mpi")) {
    std::fprintf(stderr, "bench-dropin-overhead: MPI_Bcast is not the "
                         "drop-in library's: run with "
                         "LD_PRELOAD=<prefix>/lib/libcollc-mpi.so\n");
    MPI_Finalize();
    return 1;
  }
  int32_t Layout = (*E)->layout({0});
  const int N = 200000;
  int Buf[2] = {1, 2}, Out[2] = {0, 0};
  std::printf(
      "later calls on MPI_COMM_SELF (ns per call, median of 5 x %d)\n\n", N);
  std::printf("%-10s %12s %12s %12s %12s\n", "collective", "PMPI", "table",
              "drop-in", "overhead");
  struct Case {
    int Coll;
    rt::Call Call;
    std::function<int()> Library, Interposed;
  };
  Case Cases[] = {
      {rt::Bcast,
       {rt::Bcast, Buf, 2, MPI_INT, Buf, 2, MPI_INT, MPI_OP_NULL, 0,
        MPI_COMM_SELF},
       [&] { return PMPI_Bcast(Buf, 2, MPI_INT, 0, MPI_COMM_SELF); },
       [&] { return MPI_Bcast(Buf, 2, MPI_INT, 0, MPI_COMM_SELF); }},
      {rt::Allreduce,
       {rt::Allreduce, Buf, 2, MPI_INT, Out, 2, MPI_INT, MPI_SUM, 0,
        MPI_COMM_SELF},
       [&] {
         return PMPI_Allreduce(Buf, Out, 2, MPI_INT, MPI_SUM, MPI_COMM_SELF);
       },
       [&] {
         return MPI_Allreduce(Buf, Out, 2, MPI_INT, MPI_SUM, MPI_COMM_SELF);
       }},
      {rt::Alltoall,
       {rt::Alltoall, Buf, 2, MPI_INT, Out, 2, MPI_INT, MPI_OP_NULL, 0,
        MPI_COMM_SELF},
       [&] {
         return PMPI_Alltoall(Buf, 2, MPI_INT, Out, 2, MPI_INT, MPI_COMM_SELF);
       },
       [&] {
         return MPI_Alltoall(Buf, 2, MPI_INT, Out, 2, MPI_INT, MPI_COMM_SELF);
       }},
  };
  int Failed = 0;
  for (Case &K : Cases) {
    dropin::Key Key;
    Key.Coll = K.Coll;
    Key.Layout = Layout;
    Key.Band = powerOfTwoBand(2 * sizeof(int));
    const dropin::Entry &En = (*E)->get(Key);
    if (!En.Error.empty()) {
      std::fprintf(stderr, "bench-dropin-overhead: %s\n", En.Error.c_str());
      Failed = 1;
      continue;
    }
    int Code = MPI_SUCCESS;
    double Lib = nsPerCall(N, [&] { Failed |= K.Library() != MPI_SUCCESS; });
    double Table = nsPerCall(N, [&] {
      Failed |= !rt::serve(&En.Variant, 1, K.Call, false, Code) ||
                Code != MPI_SUCCESS;
    });
    double Drop =
        nsPerCall(N, [&] { Failed |= K.Interposed() != MPI_SUCCESS; });
    std::printf("%-10s %12.1f %12.1f %12.1f %12.1f\n", rt::collName(K.Coll),
                Lib, Table, Drop, Drop - Table);
  }
  MPI_Finalize();
  return Failed;
}
