//===- collc-mpi-check: generated MPI code against the MPI library
//---------===//
//
// One MPI program that runs every generated collective at several sizes and
// roots on random data and compares the result with the MPI library's own
// collective, so a whole matrix costs one launch per communicator size.
//
//   mpirun -np P collc-mpi-check [--cap BYTES] [--no-timing] [--bcast-only]
//                                [--quick] [--times]
//
// --cap skips messages above BYTES per rank buffer (for hundreds of simulated
// ranks in one process); --no-timing skips the wall-clock barrier check
// (simulated time does not follow sleeping); --bcast-only runs only the
// broadcasts of the builders; --quick runs the builders' reductions with int32
// sum, int64 max and double sum only (not every operator on every type);
// --times prints the wall time of each part.
//
// What runs is what tests/mpi/run_matrix.sh generates: the builders' schedules
// for exactly the sizes and roots called here, and hand-built schedules of
// every collective (tests/mpi/handbuilt.cpp, any size).
//
// Prints one line per failure and "collc-mpi-check: N checks passed" on rank
// 0; exits 1 on any failure (every rank).
//
//===----------------------------------------------------------------------===//

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#define COLLC_BCAST(N)                                                         \
  int collc_bcast_##N(void *, int, MPI_Datatype, int, MPI_Comm);
#define COLLC_REDUCE(N)                                                        \
  int collc_reduce_##N(const void *, void *, int, MPI_Datatype, MPI_Op, int,   \
                       MPI_Comm);                                              \
  int collc_allreduce_##N(const void *, void *, int, MPI_Datatype, MPI_Op,     \
                          MPI_Comm);
#define COLLC_SCAN(N)                                                          \
  int collc_scan_##N(const void *, void *, int, MPI_Datatype, MPI_Op,          \
                     MPI_Comm);                                                \
  int collc_exscan_##N(const void *, void *, int, MPI_Datatype, MPI_Op,        \
                       MPI_Comm);
#define COLLC_ROOTED_PERS(N)                                                   \
  int collc_gather_##N(const void *, int, MPI_Datatype, void *, int,           \
                       MPI_Datatype, int, MPI_Comm);                           \
  int collc_scatter_##N(const void *, int, MPI_Datatype, void *, int,          \
                        MPI_Datatype, int, MPI_Comm);
#define COLLC_ALLTOALL(N)                                                      \
  int collc_alltoall_##N(const void *, int, MPI_Datatype, void *, int,         \
                         MPI_Datatype, MPI_Comm);

extern "C" {
// The builders' schedules, one size each (--mpi-sizes exact).
COLLC_BCAST(opt_tree)
COLLC_BCAST(binomial)
COLLC_BCAST(sequential)
COLLC_BCAST(chain)
COLLC_BCAST(greedy)
COLLC_BCAST(edge_disjoint)
COLLC_BCAST(k_segment)
COLLC_BCAST(pipeline)
COLLC_BCAST(two_path_pipeline)
COLLC_BCAST(scatter_allgather)
COLLC_BCAST(ring_pipeline)
COLLC_BCAST(spanning_trees)
COLLC_BCAST(scatter_ring)
COLLC_BCAST(scatter_trees)
COLLC_BCAST(kary_pipeline)
COLLC_BCAST(knomial)
COLLC_BCAST(scatter_rdb_allgather)
COLLC_BCAST(knomial_fanout)
COLLC_BCAST(lockstep_scatter_allgather)
COLLC_REDUCE(binomial)
COLLC_REDUCE(reduce_scatter_allgather)
COLLC_REDUCE(lockstep_reduce_scatter_allgather)
COLLC_REDUCE(binomial_nc)
// The newest published families (issue 27): Bine trees and Swing.
COLLC_BCAST(bine)
COLLC_REDUCE(bine)
COLLC_ROOTED_PERS(bine)
int collc_allgather_bine(const void *, int, MPI_Datatype, void *, int,
                         MPI_Datatype, MPI_Comm);
int collc_allreduce_swing(const void *, void *, int, MPI_Datatype, MPI_Op,
                          MPI_Comm);
// The one-shot algorithms, built on a torus of P nodes (a network).
COLLC_BCAST(direct)
COLLC_REDUCE(direct)
COLLC_REDUCE(reduce_scatter_direct)
COLLC_REDUCE(direct_nc)
COLLC_REDUCE(reduce_scatter_direct_nc)
COLLC_ROOTED_PERS(direct)
COLLC_ALLTOALL(direct)
int collc_allgather_direct(const void *, int, MPI_Datatype, void *, int,
                           MPI_Datatype, MPI_Comm);
int collc_allgather_node_direct(const void *, int, MPI_Datatype, void *, int,
                                MPI_Datatype, MPI_Comm);
int collc_allgather_node_leaders(const void *, int, MPI_Datatype, void *, int,
                                 MPI_Datatype, MPI_Comm);
int collc_allgather_grid_direct(const void *, int, MPI_Datatype, void *, int,
                                MPI_Datatype, MPI_Comm);
// Posting options: two staging areas a parent (double-buffered), sends
// that do not wait for the rank's earlier ones (nonblocking-ring), a step
// posted once the previous one ended (neighbor-exchange); and two-level.
COLLC_REDUCE(two_level)
int collc_reduce_double_buffered(const void *, void *, int, MPI_Datatype,
                                 MPI_Op, int, MPI_Comm);
int collc_allgather_grid_direct_3d(const void *, int, MPI_Datatype, void *, int,
                                   MPI_Datatype, MPI_Comm);
int collc_allgather_nonblocking_ring(const void *, int, MPI_Datatype, void *,
                                     int, MPI_Datatype, MPI_Comm);
int collc_allgather_neighbor_exchange(const void *, int, MPI_Datatype, void *,
                                      int, MPI_Datatype, MPI_Comm);
COLLC_SCAN(linear)
COLLC_SCAN(pipelined)
COLLC_SCAN(brent_kung)
COLLC_SCAN(rootp)
COLLC_ROOTED_PERS(linear)
COLLC_ROOTED_PERS(binomial)
COLLC_ALLTOALL(pairwise)
COLLC_ALLTOALL(bruck)
int collc_allgather_ring(const void *, int, MPI_Datatype, void *, int,
                         MPI_Datatype, MPI_Comm);
int collc_allgather_bruck(const void *, int, MPI_Datatype, void *, int,
                          MPI_Datatype, MPI_Comm);
// Allreduce and allgather laid onto the topology (allreduce only: no reduce).
int collc_allreduce_nearest_halving(const void *, void *, int, MPI_Datatype,
                                    MPI_Op, MPI_Comm);
int collc_allreduce_nearest_doubling(const void *, void *, int, MPI_Datatype,
                                     MPI_Op, MPI_Comm);
int collc_allreduce_dimension_rings(const void *, void *, int, MPI_Datatype,
                                    MPI_Op, MPI_Comm);
int collc_allgather_dimension_rings(const void *, int, MPI_Datatype, void *,
                                    int, MPI_Datatype, MPI_Comm);
// Hand-built schedules of every collective (--mpi-sizes any).
COLLC_BCAST(hand)
COLLC_REDUCE(hand)
COLLC_SCAN(hand)
COLLC_ROOTED_PERS(hand)
COLLC_ALLTOALL(hand)
COLLC_ALLTOALL(relay)
int collc_allgather_hand(const void *, int, MPI_Datatype, void *, int,
                         MPI_Datatype, MPI_Comm);
int collc_barrier_hand(MPI_Comm);
}

namespace {

int Rank = 0, P = 1;
long Checks = 0, Failures = 0;
uint64_t Cap = UINT64_MAX;
/// Communicator sizes up to which the torus broadcasts are checked (the
/// matrix builds them up to there).
constexpr int MaxTopologyRanks = 64;
bool Quick = false;
MPI_Comm Comm = MPI_COMM_WORLD;

/// Counts a check; reports a failure from the rank that saw it (the counts
/// meet once, at the end, so the checks add no synchronization).
void expect(bool Ok, const std::string &What) {
  ++Checks;
  if (!Ok) {
    ++Failures;
    std::printf("FAIL (rank %d of %d): %s\n", Rank, P, What.c_str());
  }
}

std::vector<unsigned char> randomBytes(size_t N, unsigned Seed) {
  std::mt19937 G(Seed);
  std::vector<unsigned char> V(N);
  for (auto &B : V)
    B = static_cast<unsigned char>(G());
  return V;
}

std::vector<int> randomInts(size_t N, unsigned Seed) {
  std::mt19937 G(Seed);
  std::vector<int> V(N);
  for (auto &X : V)
    X = static_cast<int>(G() % 2001) - 1000;
  return V;
}

std::vector<int> roots() {
  std::vector<int> R = {0, 1, P - 1};
  std::sort(R.begin(), R.end());
  R.erase(std::unique(R.begin(), R.end()), R.end());
  R.erase(
      std::remove_if(R.begin(), R.end(), [](int X) { return X < 0 || X >= P; }),
      R.end());
  return R;
}

std::string tag(const char *Name, uint64_t Bytes, int Root = -1) {
  std::string S = std::string(Name) + " bytes=" + std::to_string(Bytes);
  if (Root >= 0)
    S += " root=" + std::to_string(Root);
  return S;
}

using BcastFn = int (*)(void *, int, MPI_Datatype, int, MPI_Comm);

void checkBcast(const char *Name, BcastFn F, bool ExactSizes) {
  const uint64_t Sizes[] = {0, 1, 1000, (1u << 20) + 3};
  unsigned Seed = 1;
  for (int Root : roots())
    for (uint64_t N : Sizes) {
      if (N > Cap)
        continue;
      std::vector<unsigned char> Data = randomBytes(N, ++Seed), Mine(N, 0xEE),
                                 Ref(N, 0xEE);
      if (Rank == Root)
        Mine = Ref = Data;
      int Rc = F(Mine.data(), static_cast<int>(N), MPI_BYTE, Root, Comm);
      MPI_Bcast(Ref.data(), static_cast<int>(N), MPI_BYTE, Root, Comm);
      expect(Rc == MPI_SUCCESS,
             tag(Name, N, Root) + ": returned " + std::to_string(Rc));
      expect(Mine == Ref, tag(Name, N, Root) + ": differs from MPI_Bcast");
    }
  // A typed call: 250 ints are 1000 bytes.
  if (1000 <= Cap) {
    std::vector<int> Data = randomInts(250, 99), Mine(250, -1);
    if (Rank == 0)
      Mine = Data;
    int Rc = F(Mine.data(), 250, MPI_INT, 0, Comm);
    expect(Rc == MPI_SUCCESS && Mine == Data,
           tag(Name, 1000, 0) + " as 250 MPI_INT");
  }
  if (ExactSizes) {
    // A size no schedule was built for, and a root none was built for.
    unsigned char B[7] = {0};
    int Rc = F(B, 7, MPI_BYTE, 0, Comm);
    expect(Rc == MPI_ERR_COUNT, tag(Name, 7) +
                                    ": expected MPI_ERR_COUNT, got " +
                                    std::to_string(Rc));
    if (P >= 4) {
      Rc = F(B, 1, MPI_BYTE, 2, Comm);
      expect(Rc == MPI_ERR_ROOT, tag(Name, 1, 2) +
                                     ": expected MPI_ERR_ROOT, got " +
                                     std::to_string(Rc));
    }
  }
  // A non-contiguous datatype travels packed: the root sends ints 0 and 2
  // of three (8 bytes), the others receive 2 contiguous ints. The sizes
  // match, so every rank decides alike (no 8-byte schedule among the exact
  // sizes: MPI_ERR_COUNT everywhere).
  MPI_Datatype Strided;
  MPI_Type_vector(2, 1, 2, MPI_INT, &Strided);
  MPI_Type_commit(&Strided);
  int Buf[3] = {-1, -1, -1};
  if (Rank == 0) {
    Buf[0] = 11;
    Buf[2] = 22;
  }
  int Rc =
      Rank == 0 ? F(Buf, 1, Strided, 0, Comm) : F(Buf, 2, MPI_INT, 0, Comm);
  if (ExactSizes)
    expect(Rc == MPI_ERR_COUNT, tag(Name, 8) +
                                    " strided: expected MPI_ERR_COUNT, got " +
                                    std::to_string(Rc));
  else
    expect(Rc == MPI_SUCCESS && Buf[0] == 11 &&
               (Rank == 0 ? Buf[1] == -1 && Buf[2] == 22
                          : Buf[1] == 22 && Buf[2] == -1),
           tag(Name, 8) + " strided root, contiguous others");
  MPI_Type_free(&Strided);
}

// A non-commutative, associative operator on pairs (a, b), the affine maps
// x -> a x + b: (f o g)(x) = f(g(x)), MPI order in o out.
void affine(void *In, void *InOut, int *Len, MPI_Datatype *) {
  int *A = static_cast<int *>(In), *B = static_cast<int *>(InOut);
  for (int I = 0; I < *Len; ++I) {
    unsigned a1 = A[2 * I], b1 = A[2 * I + 1], a2 = B[2 * I], b2 = B[2 * I + 1];
    // inout = in o inout: apply inout first, then in.
    B[2 * I] = static_cast<int>(a1 * a2);
    B[2 * I + 1] = static_cast<int>(a1 * b2 + b1);
  }
}

void checkReductions() {
  const int Counts[] = {0, 1, 250, 262145};
  unsigned Seed = 1000;
  for (int Count : Counts) {
    if (uint64_t(Count) * 4 > Cap)
      continue;
    std::vector<int> In = randomInts(Count, ++Seed + Rank), Out(Count, 7),
                     Ref(Count, 7);
    for (int Root : roots()) {
      std::fill(Out.begin(), Out.end(), 7);
      int Rc = collc_reduce_hand(In.data(), Out.data(), Count, MPI_INT, MPI_SUM,
                                 Root, Comm);
      MPI_Reduce(In.data(), Ref.data(), Count, MPI_INT, MPI_SUM, Root, Comm);
      expect(Rc == MPI_SUCCESS && (Rank != Root || Out == Ref),
             tag("reduce sum", Count * 4, Root));
    }
    int Rc = collc_allreduce_hand(In.data(), Out.data(), Count, MPI_INT,
                                  MPI_SUM, Comm);
    MPI_Allreduce(In.data(), Ref.data(), Count, MPI_INT, MPI_SUM, Comm);
    expect(Rc == MPI_SUCCESS && Out == Ref, tag("allreduce sum", Count * 4));
    Out = In;
    Rc = collc_allreduce_hand(MPI_IN_PLACE, Out.data(), Count, MPI_INT, MPI_SUM,
                              Comm);
    expect(Rc == MPI_SUCCESS && Out == Ref,
           tag("allreduce sum in place", Count * 4));
    Rc = collc_scan_hand(In.data(), Out.data(), Count, MPI_INT, MPI_SUM, Comm);
    MPI_Scan(In.data(), Ref.data(), Count, MPI_INT, MPI_SUM, Comm);
    expect(Rc == MPI_SUCCESS && Out == Ref, tag("scan sum", Count * 4));
  }
  // Non-commutative: operands must meet in rank order.
  MPI_Op Affine;
  MPI_Op_create(affine, 0, &Affine);
  MPI_Datatype Pair;
  MPI_Type_contiguous(2, MPI_INT, &Pair);
  MPI_Type_commit(&Pair);
  const int N = 100;
  std::vector<int> In = randomInts(2 * N, 77 + Rank), Out(2 * N, 0);
  // The reference is computed here, in rank order, from everyone's inputs
  // (not every MPI library keeps the order of non-commutative operators).
  std::vector<int> All(2 * N * P);
  MPI_Allgather(In.data(), 2 * N, MPI_INT, All.data(), 2 * N, MPI_INT, Comm);
  auto Prefix = [&](int Upto) { // x_0 op x_1 op ... op x_Upto
    std::vector<int> Acc(All.begin() + 2 * N * Upto,
                         All.begin() + 2 * N * (Upto + 1));
    int Len = N;
    for (int I = Upto - 1; I >= 0; --I)
      affine(All.data() + 2 * N * I, Acc.data(), &Len, nullptr);
    return Acc;
  };
  std::vector<int> Total = Prefix(P - 1), Mine = Prefix(Rank);
  for (int Root : roots()) {
    int Rc =
        collc_reduce_hand(In.data(), Out.data(), N, Pair, Affine, Root, Comm);
    expect(Rc == MPI_SUCCESS && (Rank != Root || Out == Total),
           tag("reduce non-commutative", N * 8, Root));
  }
  int Rc = collc_scan_hand(In.data(), Out.data(), N, Pair, Affine, Comm);
  expect(Rc == MPI_SUCCESS && Out == Mine, tag("scan non-commutative", N * 8));
  // The ring allreduce folds contributions out of order: refused.
  Rc = collc_allreduce_hand(In.data(), Out.data(), N, Pair, Affine, Comm);
  expect(P < 3 || Rc == MPI_ERR_OP, tag("allreduce non-commutative", N * 8) +
                                        ": expected MPI_ERR_OP, got " +
                                        std::to_string(Rc));
  MPI_Type_free(&Pair);
  MPI_Op_free(&Affine);
}

using PersFn = int (*)(const void *, int, MPI_Datatype, void *, int,
                       MPI_Datatype, MPI_Comm);
using RootedPersFn = int (*)(const void *, int, MPI_Datatype, void *, int,
                             MPI_Datatype, int, MPI_Comm);

void checkPersonalized() {
  const uint64_t Blocks[] = {0, 1, 1000, 65539};
  unsigned Seed = 5000;
  for (uint64_t B : Blocks) {
    if (B * P > Cap)
      continue;
    int Cnt = static_cast<int>(B);
    std::vector<unsigned char> All = randomBytes(B * P, ++Seed + Rank),
                               One = randomBytes(B, Seed + 77 * Rank);
    std::vector<unsigned char> Out(B * P, 0xEE), Ref(B * P, 0xEE);
    for (int Root : roots()) {
      std::fill(Out.begin(), Out.end(), 0xEE);
      std::fill(Ref.begin(), Ref.end(), 0xEE);
      int Rc = collc_gather_hand(One.data(), Cnt, MPI_BYTE, Out.data(), Cnt,
                                 MPI_BYTE, Root, Comm);
      if (B) // (some libraries refuse null buffers even for nothing)
        MPI_Gather(One.data(), Cnt, MPI_BYTE, Ref.data(), Cnt, MPI_BYTE, Root,
                   Comm);
      expect(Rc == MPI_SUCCESS && (Rank != Root || Out == Ref),
             tag("gather", B, Root));
      // In place at the root: its block is already in place.
      std::fill(Out.begin(), Out.end(), 0xEE);
      if (Rank == Root)
        std::memcpy(Out.data() + B * Root, One.data(), B);
      Rc = collc_gather_hand(Rank == Root ? MPI_IN_PLACE : One.data(), Cnt,
                             MPI_BYTE, Out.data(), Cnt, MPI_BYTE, Root, Comm);
      expect(Rc == MPI_SUCCESS && (Rank != Root || Out == Ref),
             tag("gather in place", B, Root));

      std::vector<unsigned char> Got(B, 0xEE), Want(B, 0xEE);
      Rc = collc_scatter_hand(All.data(), Cnt, MPI_BYTE, Got.data(), Cnt,
                              MPI_BYTE, Root, Comm);
      if (B) // (some libraries refuse null buffers even for nothing)
        MPI_Scatter(All.data(), Cnt, MPI_BYTE, Want.data(), Cnt, MPI_BYTE, Root,
                    Comm);
      expect(Rc == MPI_SUCCESS && Got == Want, tag("scatter", B, Root));
      std::fill(Got.begin(), Got.end(), 0xEE);
      Rc = collc_scatter_hand(All.data(), Cnt, MPI_BYTE,
                              Rank == Root ? MPI_IN_PLACE : Got.data(), Cnt,
                              MPI_BYTE, Root, Comm);
      expect(Rc == MPI_SUCCESS && (Rank == Root || Got == Want),
             tag("scatter in place", B, Root));
    }
    int Rc = collc_allgather_hand(One.data(), Cnt, MPI_BYTE, Out.data(), Cnt,
                                  MPI_BYTE, Comm);
    if (B)
      MPI_Allgather(One.data(), Cnt, MPI_BYTE, Ref.data(), Cnt, MPI_BYTE, Comm);
    expect(Rc == MPI_SUCCESS && Out == Ref, tag("allgather", B));
    std::fill(Out.begin(), Out.end(), 0xEE);
    std::memcpy(Out.data() + B * Rank, One.data(), B);
    Rc = collc_allgather_hand(MPI_IN_PLACE, 0, MPI_BYTE, Out.data(), Cnt,
                              MPI_BYTE, Comm);
    expect(Rc == MPI_SUCCESS && Out == Ref, tag("allgather in place", B));

    if (B)
      MPI_Alltoall(All.data(), Cnt, MPI_BYTE, Ref.data(), Cnt, MPI_BYTE, Comm);
    for (PersFn F : {collc_alltoall_hand, collc_alltoall_relay}) {
      const char *Name =
          F == collc_alltoall_hand ? "alltoall direct" : "alltoall relay";
      std::fill(Out.begin(), Out.end(), 0xEE);
      Rc = F(All.data(), Cnt, MPI_BYTE, Out.data(), Cnt, MPI_BYTE, Comm);
      expect(Rc == MPI_SUCCESS && Out == Ref, tag(Name, B));
      Out = All;
      Rc = F(MPI_IN_PLACE, 0, MPI_BYTE, Out.data(), Cnt, MPI_BYTE, Comm);
      expect(Rc == MPI_SUCCESS && Out == Ref, tag(Name, B) + " in place");
    }
  }
}

// ---- the builders' reductions -----------------------------------------------

using ReduceFn = int (*)(const void *, void *, int, MPI_Datatype, MPI_Op, int,
                         MPI_Comm);
using AllFn = int (*)(const void *, void *, int, MPI_Datatype, MPI_Op,
                      MPI_Comm);

/// The counts run_matrix.sh builds an algorithm for: any, or 0 and those
/// that give every piece an element (Core: the largest power of two <= P
/// pieces; Ranks: P pieces).
enum class Pieces { Any, Core, Ranks };

struct ReduceAlg {
  const char *Name;
  ReduceFn Reduce; ///< nullptr: allreduce only.
  AllFn Allreduce; ///< nullptr: reduce only.
  Pieces Needs;
};
const ReduceAlg ReduceAlgs[] = {
    {"binomial", collc_reduce_binomial, collc_allreduce_binomial, Pieces::Any},
    {"reduce-scatter-allgather", collc_reduce_reduce_scatter_allgather,
     collc_allreduce_reduce_scatter_allgather, Pieces::Core},
    {"lockstep-reduce-scatter-allgather",
     collc_reduce_lockstep_reduce_scatter_allgather,
     collc_allreduce_lockstep_reduce_scatter_allgather, Pieces::Core},
    {"nearest-halving", nullptr, collc_allreduce_nearest_halving, Pieces::Core},
    {"nearest-doubling", nullptr, collc_allreduce_nearest_doubling,
     Pieces::Any},
    {"dimension-rings", nullptr, collc_allreduce_dimension_rings,
     Pieces::Ranks},
    {"direct", collc_reduce_direct, collc_allreduce_direct, Pieces::Any},
    {"reduce-scatter-direct", collc_reduce_reduce_scatter_direct,
     collc_allreduce_reduce_scatter_direct, Pieces::Any},
    {"swing", nullptr, collc_allreduce_swing, Pieces::Any},
    {"bine", collc_reduce_bine, collc_allreduce_bine, Pieces::Any},
    {"two-level", collc_reduce_two_level, collc_allreduce_two_level,
     Pieces::Any},
    {"double-buffered", collc_reduce_double_buffered, nullptr, Pieces::Any},
};

struct ScanAlg {
  const char *Name;
  AllFn Scan, Exscan;
};
const ScanAlg ScanAlgs[] = {
    {"linear", collc_scan_linear, collc_exscan_linear},
    {"pipelined", collc_scan_pipelined, collc_exscan_pipelined},
    {"brent-kung", collc_scan_brent_kung, collc_exscan_brent_kung},
    {"rootp", collc_scan_rootp, collc_exscan_rootp},
};

/// Element counts the reduction schedules are built for (run_matrix.sh), of
/// 4-byte and of 8-byte elements.
const int BaseCounts[] = {0, 1, 250, 262145};

/// Whether run_matrix.sh built \p A for \p Count elements (Pieces).
bool builtFor(const ReduceAlg &A, int Count) {
  int Core = 1;
  while (Core * 2 <= P)
    Core *= 2;
  const int Need = A.Needs == Pieces::Core    ? Core
                   : A.Needs == Pieces::Ranks ? P
                                              : 0;
  return Count == 0 || Count >= Need;
}

/// builtFor, for a reduce: the algorithm must have one.
bool builtReduceFor(const ReduceAlg &A, int Count) {
  return A.Reduce && builtFor(A, Count);
}

/// builtFor, for an allreduce: the algorithm must have one.
bool builtAllreduceFor(const ReduceAlg &A, int Count) {
  return A.Allreduce && builtFor(A, Count);
}

template <typename T> MPI_Datatype mpiType();
template <> MPI_Datatype mpiType<int>() { return MPI_INT; }
template <> MPI_Datatype mpiType<long long>() { return MPI_LONG_LONG; }
template <> MPI_Datatype mpiType<float>() { return MPI_FLOAT; }
template <> MPI_Datatype mpiType<double>() { return MPI_DOUBLE; }

/// Random operands: integers in a range whose sums over 256 ranks cannot
/// overflow, products of 1, -1 and (on ranks below 16) 2, floating point in
/// [-1, 1).
template <typename T>
std::vector<T> operands(size_t N, unsigned Seed, MPI_Op Op) {
  std::mt19937_64 G(Seed);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<T> V(N);
  for (T &X : V) {
    if constexpr (std::is_floating_point_v<T>)
      X = static_cast<T>(U(G));
    else if (Op == MPI_PROD)
      X = Rank < 16 && G() % 4 == 0 ? 2 : (G() % 2 ? 1 : -1);
    else if constexpr (sizeof(T) == 8)
      X = static_cast<T>(static_cast<int64_t>(G()) / 4096);
    else
      X = static_cast<T>(static_cast<int64_t>(G() % 2000001) - 1000000);
  }
  return V;
}

/// Integers exactly; floating point within twice the worst-case rounding
/// error of a sum of \p Terms operands in [-1, 1) in any order,
/// 2 Terms^2 epsilon.
template <typename T>
bool same(const std::vector<T> &A, const std::vector<T> &B, int Terms) {
  if constexpr (std::is_floating_point_v<T>) {
    if (A.size() != B.size())
      return false;
    double Tol = 2.0 * Terms * Terms * std::numeric_limits<T>::epsilon();
    for (size_t I = 0; I < A.size(); ++I)
      if (!(std::fabs(double(A[I]) - double(B[I])) <= Tol))
        return false;
    return true;
  } else {
    return A == B;
  }
}

template <typename T>
void checkReductionsOf(const char *TypeName, MPI_Op Op, const char *OpName,
                       unsigned Seed, bool Large) {
  const MPI_Datatype Type = mpiType<T>();
  const std::vector<int> Counts(std::begin(BaseCounts), std::end(BaseCounts));
  auto What = [&](const char *Coll, const char *Alg, int Count, int Root,
                  int Rc) {
    return std::string(Coll) + " " + Alg + " " + OpName + " " + TypeName +
           " count=" + std::to_string(Count) +
           (Root >= 0 ? " root=" + std::to_string(Root) : "") +
           (Rc != MPI_SUCCESS ? ": returned " + std::to_string(Rc)
                              : ": differs from the MPI library");
  };
  for (int Count : Counts) {
    if (uint64_t(Count) * sizeof(T) > Cap || (Count > 1000 && !Large) ||
        (Quick && !Large))
      continue;
    std::vector<T> In = operands<T>(Count, ++Seed * 1000 + Rank, Op),
                   Out(Count), Ref(Count);
    for (int Root : roots()) {
      MPI_Reduce(In.data(), Ref.data(), Count, Type, Op, Root, Comm);
      for (const ReduceAlg &A : ReduceAlgs) {
        if (!builtReduceFor(A, Count))
          continue;
        std::fill(Out.begin(), Out.end(), T(7));
        int Rc = A.Reduce(In.data(), Out.data(), Count, Type, Op, Root, Comm);
        expect(Rc == MPI_SUCCESS && (Rank != Root || same(Out, Ref, P)),
               What("reduce", A.Name, Count, Root, Rc));
      }
    }
    MPI_Allreduce(In.data(), Ref.data(), Count, Type, Op, Comm);
    for (const ReduceAlg &A : ReduceAlgs) {
      if (!builtAllreduceFor(A, Count))
        continue;
      std::fill(Out.begin(), Out.end(), T(7));
      int Rc = A.Allreduce(In.data(), Out.data(), Count, Type, Op, Comm);
      expect(Rc == MPI_SUCCESS && same(Out, Ref, P),
             What("allreduce", A.Name, Count, -1, Rc));
    }
    bool Base = std::find(std::begin(BaseCounts), std::end(BaseCounts),
                          Count) != std::end(BaseCounts);
    if (!Base)
      continue;
    MPI_Scan(In.data(), Ref.data(), Count, Type, Op, Comm);
    for (const ScanAlg &A : ScanAlgs) {
      std::fill(Out.begin(), Out.end(), T(7));
      int Rc = A.Scan(In.data(), Out.data(), Count, Type, Op, Comm);
      expect(Rc == MPI_SUCCESS && same(Out, Ref, Rank + 1),
             What("scan", A.Name, Count, -1, Rc));
    }
    // MPI_Exscan leaves rank 0's receive buffer undefined.
    MPI_Exscan(In.data(), Ref.data(), Count, Type, Op, Comm);
    for (const ScanAlg &A : ScanAlgs) {
      std::fill(Out.begin(), Out.end(), T(7));
      int Rc = A.Exscan(In.data(), Out.data(), Count, Type, Op, Comm);
      expect(Rc == MPI_SUCCESS && (Rank == 0 || same(Out, Ref, Rank)),
             What("exscan", A.Name, Count, -1, Rc));
    }
    if (Count != 250 || Op != MPI_SUM)
      continue;
    // MPI_IN_PLACE: the input is in the receive buffer (reduce: at the root).
    for (const ScanAlg &A : ScanAlgs) {
      Out = In;
      int Rc = A.Exscan(MPI_IN_PLACE, Out.data(), Count, Type, Op, Comm);
      expect(Rc == MPI_SUCCESS && (Rank == 0 || same(Out, Ref, Rank)),
             What("exscan in place", A.Name, Count, -1, Rc));
    }
    MPI_Scan(In.data(), Ref.data(), Count, Type, Op, Comm);
    for (const ScanAlg &A : ScanAlgs) {
      Out = In;
      int Rc = A.Scan(MPI_IN_PLACE, Out.data(), Count, Type, Op, Comm);
      expect(Rc == MPI_SUCCESS && same(Out, Ref, Rank + 1),
             What("scan in place", A.Name, Count, -1, Rc));
    }
    MPI_Allreduce(In.data(), Ref.data(), Count, Type, Op, Comm);
    for (const ReduceAlg &A : ReduceAlgs) {
      if (!builtAllreduceFor(A, Count))
        continue;
      Out = In;
      int Rc = A.Allreduce(MPI_IN_PLACE, Out.data(), Count, Type, Op, Comm);
      expect(Rc == MPI_SUCCESS && same(Out, Ref, P),
             What("allreduce in place", A.Name, Count, -1, Rc));
    }
    for (int Root : roots()) {
      MPI_Reduce(In.data(), Ref.data(), Count, Type, Op, Root, Comm);
      for (const ReduceAlg &A : ReduceAlgs) {
        if (!builtReduceFor(A, Count))
          continue;
        Out = In;
        int Rc = A.Reduce(Rank == Root ? MPI_IN_PLACE : In.data(), Out.data(),
                          Count, Type, Op, Root, Comm);
        expect(Rc == MPI_SUCCESS && (Rank != Root || same(Out, Ref, P)),
               What("reduce in place", A.Name, Count, Root, Rc));
      }
    }
  }
}

/// The builders' reductions, scans and exscans: sum, prod, min and max on
/// 32- and 64-bit integers (exact), sum on float and double (within the
/// rounding error), against the MPI library; the largest counts (1 and 2 MiB)
/// with int32 sum, int64 max and double sum only, to keep the run short. Then
/// a non-commutative operator against a reference folded in rank order.
void checkBuilderReductions() {
  const std::pair<MPI_Op, const char *> IntOps[] = {
      {MPI_SUM, "sum"}, {MPI_PROD, "prod"}, {MPI_MIN, "min"}, {MPI_MAX, "max"}};
  unsigned Seed = 20000;
  for (auto [Op, Name] : IntOps) {
    checkReductionsOf<int>("int32", Op, Name, Seed += 100, Op == MPI_SUM);
    checkReductionsOf<long long>("int64", Op, Name, Seed += 100, Op == MPI_MAX);
  }
  checkReductionsOf<float>("float", MPI_SUM, "sum", Seed += 100, false);
  checkReductionsOf<double>("double", MPI_SUM, "sum", Seed += 100, true);

  // Affine maps (pairs of ints, 8 bytes) in rank order.
  MPI_Op Affine;
  MPI_Op_create(affine, 0, &Affine);
  MPI_Datatype Pair;
  MPI_Type_contiguous(2, MPI_INT, &Pair);
  MPI_Type_commit(&Pair);
  // 125 pairs (1000 bytes, the 250-int schedules); reduce-scatter-allgather
  // at its 250 8-byte elements.
  const int NRsa = 250;
  const int Max = std::max(125, NRsa);
  if (uint64_t(Max) * 8 <= Cap) {
    std::vector<int> In = randomInts(2 * Max, 88 + Rank), Out(2 * Max, 0);
    std::vector<int> All(2 * Max * P);
    MPI_Allgather(In.data(), 2 * Max, MPI_INT, All.data(), 2 * Max, MPI_INT,
                  Comm);
    // x_0 op x_1 op ... op x_Upto on the first N pairs.
    auto Prefix = [&](int Upto, int N) {
      std::vector<int> Acc(All.begin() + 2 * Max * Upto,
                           All.begin() + 2 * Max * Upto + 2 * N);
      for (int I = Upto - 1; I >= 0; --I)
        affine(All.data() + 2 * Max * I, Acc.data(), &N, nullptr);
      return Acc;
    };
    const int N = 125;
    std::vector<int> Total = Prefix(P - 1, N), Mine = Prefix(Rank, N);
    Out.resize(2 * N);
    auto Tag = [](const char *Coll, const char *Alg, int Rc) {
      return std::string(Coll) + " " + Alg + " non-commutative count=125: " +
             (Rc == MPI_SUCCESS ? "differs from the rank-order reference"
                                : "returned " + std::to_string(Rc));
    };
    for (int Root : roots()) {
      int Rc = collc_reduce_binomial_nc(In.data(), Out.data(), N, Pair, Affine,
                                        Root, Comm);
      expect(Rc == MPI_SUCCESS && (Rank != Root || Out == Total),
             Tag("reduce", "binomial (commutative: false)", Rc) +
                 " root=" + std::to_string(Root));
      // The commutative binomial tree: refused or in order.
      Rc = collc_reduce_binomial(In.data(), Out.data(), N, Pair, Affine, Root,
                                 Comm);
      expect(Rc == MPI_ERR_OP ||
                 (Rc == MPI_SUCCESS && (Rank != Root || Out == Total)),
             Tag("reduce", "binomial", Rc) + " root=" + std::to_string(Root));
    }
    int Rc = collc_allreduce_binomial_nc(In.data(), Out.data(), N, Pair, Affine,
                                         Comm);
    expect(Rc == MPI_SUCCESS && Out == Total,
           Tag("allreduce", "binomial (commutative: false)", Rc));
    // The one-shot reductions fold in rank order (up to 64 ranks).
    if (P <= MaxTopologyRanks) {
      const std::pair<const char *, ReduceAlg> InOrder[] = {
          {"direct",
           {"direct", collc_reduce_direct_nc, collc_allreduce_direct_nc,
            Pieces::Any}},
          {"reduce-scatter-direct",
           {"reduce-scatter-direct", collc_reduce_reduce_scatter_direct_nc,
            collc_allreduce_reduce_scatter_direct_nc, Pieces::Any}},
      };
      for (const auto &[Name, A] : InOrder) {
        for (int Root : roots()) {
          std::fill(Out.begin(), Out.end(), 0);
          Rc = A.Reduce(In.data(), Out.data(), N, Pair, Affine, Root, Comm);
          expect(Rc == MPI_SUCCESS && (Rank != Root || Out == Total),
                 Tag("reduce", Name, Rc) + " root=" + std::to_string(Root));
        }
        std::fill(Out.begin(), Out.end(), 0);
        Rc = A.Allreduce(In.data(), Out.data(), N, Pair, Affine, Comm);
        expect(Rc == MPI_SUCCESS && Out == Total, Tag("allreduce", Name, Rc));
      }
    }
    for (const ScanAlg &A : ScanAlgs) {
      Rc = A.Scan(In.data(), Out.data(), N, Pair, Affine, Comm);
      expect(Rc == MPI_SUCCESS && Out == Mine, Tag("scan", A.Name, Rc));
      Rc = A.Exscan(In.data(), Out.data(), N, Pair, Affine, Comm);
      expect(Rc == MPI_SUCCESS && (Rank == 0 || Out == Prefix(Rank - 1, N)),
             Tag("exscan", A.Name, Rc));
    }
    // reduce-scatter-allgather folds out of rank order: refused (MPI_ERR_OP)
    // unless the schedule happens to keep it (a few ranks), never wrong.
    Out.resize(2 * NRsa);
    std::vector<int> TotalRsa = Prefix(P - 1, NRsa);
    Rc = collc_allreduce_reduce_scatter_allgather(In.data(), Out.data(), NRsa,
                                                  Pair, Affine, Comm);
    expect(Rc == MPI_ERR_OP || (Rc == MPI_SUCCESS && Out == TotalRsa),
           Tag("allreduce", "reduce-scatter-allgather", Rc));
  }
  MPI_Type_free(&Pair);
  MPI_Op_free(&Affine);
}

// ---- the builders' gather, scatter and all-to-all ---------------------------

struct RootedPersAlg {
  const char *Name;
  RootedPersFn Gather, Scatter;
};
const RootedPersAlg RootedPersAlgs[] = {
    {"linear", collc_gather_linear, collc_scatter_linear},
    {"binomial", collc_gather_binomial, collc_scatter_binomial},
    {"direct", collc_gather_direct, collc_scatter_direct},
    {"bine", collc_gather_bine, collc_scatter_bine},
};
const std::pair<const char *, PersFn> AlltoallAlgs[] = {
    {"pairwise", collc_alltoall_pairwise},
    {"bruck", collc_alltoall_bruck},
    {"direct", collc_alltoall_direct},
};
const std::pair<const char *, PersFn> AllgatherAlgs[] = {
    {"ring", collc_allgather_ring},
    {"bruck", collc_allgather_bruck},
    {"dimension-rings", collc_allgather_dimension_rings},
    {"direct", collc_allgather_direct},
    {"node-direct", collc_allgather_node_direct},
    {"node-leaders", collc_allgather_node_leaders},
    {"grid-direct", collc_allgather_grid_direct},
    {"grid-direct-3d", collc_allgather_grid_direct_3d},
    {"nonblocking-ring", collc_allgather_nonblocking_ring},
    {"neighbor-exchange", collc_allgather_neighbor_exchange},
    {"bine", collc_allgather_bine},
};

/// Whether \p N is a product of three factors of at least 2.
bool threeFactors(int N) {
  for (int A = 2; A * A * A <= N; ++A)
    for (int B = A; N % A == 0 && A * B * B <= N; ++B)
      if ((N / A) % B == 0)
        return true;
  return false;
}

void checkBuilderPersonalized() {
  const uint64_t Blocks[] = {0, 1, 1000, (1u << 20) + 3};
  unsigned Seed = 30000;
  for (uint64_t B : Blocks) {
    if (B * P > Cap)
      continue;
    int Cnt = static_cast<int>(B);
    std::vector<unsigned char> All = randomBytes(B * P, ++Seed + Rank),
                               One = randomBytes(B, Seed + 77 * Rank);
    std::vector<unsigned char> Out(B * P), Ref(B * P, 0xEE), Got(B),
        Want(B, 0xEE);
    for (int Root : roots()) {
      if (B) // (some libraries refuse null buffers even for nothing)
        MPI_Gather(One.data(), Cnt, MPI_BYTE, Ref.data(), Cnt, MPI_BYTE, Root,
                   Comm);
      if (B)
        MPI_Scatter(All.data(), Cnt, MPI_BYTE, Want.data(), Cnt, MPI_BYTE, Root,
                    Comm);
      for (const RootedPersAlg &A : RootedPersAlgs) {
        std::fill(Out.begin(), Out.end(), 0xEE);
        int Rc = A.Gather(One.data(), Cnt, MPI_BYTE, Out.data(), Cnt, MPI_BYTE,
                          Root, Comm);
        expect(Rc == MPI_SUCCESS && (Rank != Root || Out == Ref),
               tag((std::string("gather ") + A.Name).c_str(), B, Root));
        std::fill(Out.begin(), Out.end(), 0xEE);
        if (Rank == Root)
          std::memcpy(Out.data() + B * Root, One.data(), B);
        Rc = A.Gather(Rank == Root ? MPI_IN_PLACE : One.data(), Cnt, MPI_BYTE,
                      Out.data(), Cnt, MPI_BYTE, Root, Comm);
        expect(
            Rc == MPI_SUCCESS && (Rank != Root || Out == Ref),
            tag((std::string("gather in place ") + A.Name).c_str(), B, Root));
        std::fill(Got.begin(), Got.end(), 0xEE);
        Rc = A.Scatter(All.data(), Cnt, MPI_BYTE, Got.data(), Cnt, MPI_BYTE,
                       Root, Comm);
        expect(Rc == MPI_SUCCESS && Got == Want,
               tag((std::string("scatter ") + A.Name).c_str(), B, Root));
        std::fill(Got.begin(), Got.end(), 0xEE);
        Rc = A.Scatter(All.data(), Cnt, MPI_BYTE,
                       Rank == Root ? MPI_IN_PLACE : Got.data(), Cnt, MPI_BYTE,
                       Root, Comm);
        expect(
            Rc == MPI_SUCCESS && (Rank == Root || Got == Want),
            tag((std::string("scatter in place ") + A.Name).c_str(), B, Root));
      }
    }
    if (B)
      MPI_Alltoall(All.data(), Cnt, MPI_BYTE, Ref.data(), Cnt, MPI_BYTE, Comm);
    for (auto [Name, F] : AlltoallAlgs) {
      std::fill(Out.begin(), Out.end(), 0xEE);
      int Rc = F(All.data(), Cnt, MPI_BYTE, Out.data(), Cnt, MPI_BYTE, Comm);
      expect(Rc == MPI_SUCCESS && Out == Ref,
             tag((std::string("alltoall ") + Name).c_str(), B));
      Out = All;
      Rc = F(MPI_IN_PLACE, 0, MPI_BYTE, Out.data(), Cnt, MPI_BYTE, Comm);
      expect(Rc == MPI_SUCCESS && Out == Ref,
             tag((std::string("alltoall in place ") + Name).c_str(), B));
    }
    if (B)
      MPI_Allgather(One.data(), Cnt, MPI_BYTE, Ref.data(), Cnt, MPI_BYTE, Comm);
    for (auto [Name, F] : AllgatherAlgs) {
      // neighbor-exchange pairs ranks off: built for even P alone.
      if (P % 2 && !std::strcmp(Name, "neighbor-exchange"))
        continue;
      // grid-direct-3d: built where P = a x b x c, every factor >= 2.
      if (!threeFactors(P) && !std::strcmp(Name, "grid-direct-3d"))
        continue;
      std::fill(Out.begin(), Out.end(), 0xEE);
      int Rc = F(One.data(), Cnt, MPI_BYTE, Out.data(), Cnt, MPI_BYTE, Comm);
      expect(Rc == MPI_SUCCESS && Out == Ref,
             tag((std::string("allgather ") + Name).c_str(), B));
      std::fill(Out.begin(), Out.end(), 0xEE);
      std::memcpy(Out.data() + B * Rank, One.data(), B);
      Rc = F(MPI_IN_PLACE, 0, MPI_BYTE, Out.data(), Cnt, MPI_BYTE, Comm);
      expect(Rc == MPI_SUCCESS && Out == Ref,
             tag((std::string("allgather in place ") + Name).c_str(), B));
    }
  }
}

void checkBarrier(bool Timing) {
  for (int I = 0; I < 5; ++I)
    expect(collc_barrier_hand(Comm) == MPI_SUCCESS,
           "barrier returned an error");
  if (!Timing)
    return;
  // The last rank arrives 20 ms late: nobody may leave before it arrived.
  // (The system clock, shared by the processes of one machine.)
  auto Now = [] {
    return std::chrono::duration<double>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  MPI_Barrier(Comm);
  if (Rank == P - 1)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  double Entered = Now(), Latest = 0;
  int Rc = collc_barrier_hand(Comm);
  double Left = Now();
  MPI_Allreduce(&Entered, &Latest, 1, MPI_DOUBLE, MPI_MAX, Comm);
  expect(Rc == MPI_SUCCESS && Left >= Latest,
         "a rank left the barrier before the last arrived");
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  bool Timing = true, BcastOnly = false, Times = false;
  for (int I = 1; I < argc; ++I) {
    if (!std::strcmp(argv[I], "--cap") && I + 1 < argc)
      Cap = std::strtoull(argv[++I], nullptr, 10);
    else if (!std::strcmp(argv[I], "--no-timing"))
      Timing = false;
    else if (!std::strcmp(argv[I], "--quick"))
      Quick = true;
    else if (!std::strcmp(argv[I], "--times"))
      Times = true;
    else if (!std::strcmp(argv[I], "--bcast-only"))
      BcastOnly = true;
  }
  // A communicator of its own, freed at the end: collc caches a duplicate on
  // it and must release it then.
  MPI_Comm_dup(MPI_COMM_WORLD, &Comm);
  // The refusals checked below come back as codes (collc raises them through
  // the communicator's error handler, as MPI's own collectives do).
  MPI_Comm_set_errhandler(Comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(Comm, &Rank);
  MPI_Comm_size(Comm, &P);
  const std::pair<const char *, BcastFn> Bcasts[] = {
      {"opt-tree", collc_bcast_opt_tree},
      {"binomial", collc_bcast_binomial},
      {"sequential", collc_bcast_sequential},
      {"chain", collc_bcast_chain},
      {"greedy", collc_bcast_greedy},
      {"edge-disjoint", collc_bcast_edge_disjoint},
      {"k-segment", collc_bcast_k_segment},
      {"pipeline", collc_bcast_pipeline},
      {"two-path-pipeline", collc_bcast_two_path_pipeline},
      {"scatter-allgather", collc_bcast_scatter_allgather},
      {"kary-pipeline", collc_bcast_kary_pipeline},
      {"knomial", collc_bcast_knomial},
      {"scatter-rdb-allgather", collc_bcast_scatter_rdb_allgather},
      {"bine", collc_bcast_bine},
      {"knomial-fanout", collc_bcast_knomial_fanout},
      {"lockstep-scatter-allgather", collc_bcast_lockstep_scatter_allgather},
  };
  // The broadcasts laid onto a torus (built on a torus of P nodes) up to
  // MaxTopologyRanks: their thousands of small messages per call make SMPI's
  // simulation of 256 ranks take minutes.
  const std::pair<const char *, BcastFn> TopologyBcasts[] = {
      {"ring-pipeline", collc_bcast_ring_pipeline},
      {"spanning-trees", collc_bcast_spanning_trees},
      {"scatter-ring", collc_bcast_scatter_ring},
      {"scatter-trees", collc_bcast_scatter_trees},
      {"direct", collc_bcast_direct},
  };
  // --times: rank 0 prints the wall time of each part.
  auto Timed = [&](const char *Part, auto &&Run) {
    // (Wall-clock time: under SMPI, MPI_Wtime is the simulated time.)
    auto T0 = std::chrono::steady_clock::now();
    Run();
    if (Times && Rank == 0)
      std::printf(
          "  %-28s %8.2f s\n", Part,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
              .count());
  };
  Timed("broadcasts (builders)", [&] {
    for (auto [Name, F] : Bcasts)
      checkBcast(Name, F, true);
    if (P <= MaxTopologyRanks)
      for (auto [Name, F] : TopologyBcasts)
        checkBcast(Name, F, true);
  });
  if (!BcastOnly) {
    Timed("reductions (builders)", checkBuilderReductions);
    Timed("personalized (builders)", checkBuilderPersonalized);
    Timed("hand-built", [&] {
      checkBcast("hand-pipeline", collc_bcast_hand, false);
      checkReductions();
      checkPersonalized();
      checkBarrier(Timing);
    });
  }
  MPI_Comm_free(&Comm);
  Comm = MPI_COMM_WORLD;
  // MPI_COMM_WORLD itself (its cached state lives until MPI_Finalize).
  if (1000 <= Cap) {
    std::vector<unsigned char> Data = randomBytes(1000, 4242), Mine(1000, 0);
    if (Rank == 0)
      Mine = Data;
    int Rc =
        collc_bcast_binomial(Mine.data(), 1000, MPI_BYTE, 0, MPI_COMM_WORLD);
    expect(Rc == MPI_SUCCESS && Mine == Data,
           "binomial bytes=1000 on MPI_COMM_WORLD");
  }
  long Failed = 0;
  MPI_Allreduce(&Failures, &Failed, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0) {
    if (Failed)
      std::printf("collc-mpi-check: %ld failures (over all ranks) in %ld "
                  "checks on %d ranks\n",
                  Failed, Checks, P);
    else
      std::printf("collc-mpi-check: %ld checks passed on each of %d ranks\n",
                  Checks, P);
  }
  MPI_Finalize();
  return Failed ? 1 : 0;
}
