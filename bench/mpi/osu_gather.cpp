//===- osu_gather: OSU-style latency of collc's gather or scatter and MPI's
//
//   mpirun -np P osu_gather [--iters N] [--warmup N]
//                           [--which collc|mpi|both]
//                           [--measure average|median|makespan] [--prewarm]
//                           BYTES...
//
// BYTES is the size of one rank's block; the root is rank 0. Prints one row
// per size: bytes, then the time in µs of the generated gather
// (collc_gather_bench, from `collc --emit mpi --mpi-name bench`) and of the
// MPI library's MPI_Gather, by the measure of osu.h (OSU's average by
// default). Block r holds a pattern naming (r, byte); the receiving buffers
// are cleared before each checked call and every byte compared after it
// (the root's whole buffer for the gather, each rank's block for the
// scatter); wrong data aborts. Built with -DOSU_SECOND (osu_scatter.cpp) it
// times the scatter, collc_scatter_bench against MPI_Scatter, instead.
//
//===----------------------------------------------------------------------===//

#include "osu.h"

#include <algorithm>

using RootedFn = int (*)(const void *, int, MPI_Datatype, void *, int,
                         MPI_Datatype, int, MPI_Comm);
extern "C" int collc_gather_bench(const void *, int, MPI_Datatype, void *, int,
                                  MPI_Datatype, int, MPI_Comm);
extern "C" int collc_scatter_bench(const void *, int, MPI_Datatype, void *, int,
                                   MPI_Datatype, int, MPI_Comm);

static const bool Scatter = OSU_PICK(false, true);
static const char *const Name = OSU_PICK("osu_gather", "osu_scatter");
static RootedFn collcFn() {
  return OSU_PICK(collc_gather_bench, collc_scatter_bench);
}

int main(int argc, char **argv) {
  return osu::run(argc, argv, 1, [](const osu::Case &C) {
    const size_t Block = C.size();
    // The gather: every rank's block in, all at the root; the scatter: all
    // at the root, each rank's block out. Only the root holds all.
    std::vector<char> One(Block),
        All(C.Rank == 0 ? static_cast<size_t>(C.P) * Block : 0);
    std::vector<char> &Src = Scatter ? All : One;
    std::vector<char> &Dst = Scatter ? One : All;
    auto Fill = [&](std::vector<char> &V, int First) {
      for (size_t I = 0; I < V.size(); ++I)
        V[I] =
            osu::blockPattern(First + static_cast<int>(I / Block), I % Block);
    };
    if (Block > 0)
      Fill(Src, Scatter ? 0 : C.Rank);
    RootedFn F = C.Collc ? collcFn() : Scatter ? MPI_Scatter : MPI_Gather;
    return osu::timed(
        C, [&] { std::fill(Dst.begin(), Dst.end(), 0); },
        [&] {
          return F(Src.data(), C.count(), MPI_BYTE, Dst.data(), C.count(),
                   MPI_BYTE, 0, MPI_COMM_WORLD);
        },
        [&] {
          if (!Scatter && C.Rank != 0)
            return true;
          std::vector<char> Want(Dst.size());
          if (Block > 0)
            Fill(Want, Scatter ? C.Rank : 0);
          return Want == Dst;
        },
        Name,
        std::string(Scatter ? "scatter" : "gather") + " of " +
            std::to_string(C.Bytes) + "-byte blocks");
  });
}
