//===- collc-mpi-check: generated MPI code against the MPI library
//---------===//
//
// One MPI program that runs every generated collective at several sizes and
// roots on random data and compares the result with the MPI library's own
// collective, so a whole matrix costs one launch per communicator size.
//
//   mpirun -np P collc-mpi-check [--cap BYTES] [--no-timing] [--bcast-only]
//
// --cap skips messages above BYTES per rank buffer (for hundreds of simulated
// ranks in one process); --no-timing skips the wall-clock barrier check
// (simulated time does not follow sleeping); --bcast-only runs only the
// broadcasts of the builders (the hand-built schedules are generated for up
// to 64 ranks).
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
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern "C" {
// Broadcast schedules of the builders, one size each (--mpi-sizes exact).
int collc_bcast_opt_tree(void *, int, MPI_Datatype, int, MPI_Comm);
int collc_bcast_binomial(void *, int, MPI_Datatype, int, MPI_Comm);
int collc_bcast_sequential(void *, int, MPI_Datatype, int, MPI_Comm);
int collc_bcast_chain(void *, int, MPI_Datatype, int, MPI_Comm);
// Hand-built schedules of every collective (--mpi-sizes any).
int collc_bcast_hand(void *, int, MPI_Datatype, int, MPI_Comm);
int collc_reduce_hand(const void *, void *, int, MPI_Datatype, MPI_Op, int,
                      MPI_Comm);
int collc_allreduce_hand(const void *, void *, int, MPI_Datatype, MPI_Op,
                         MPI_Comm);
int collc_scan_hand(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
int collc_gather_hand(const void *, int, MPI_Datatype, void *, int,
                      MPI_Datatype, int, MPI_Comm);
int collc_scatter_hand(const void *, int, MPI_Datatype, void *, int,
                       MPI_Datatype, int, MPI_Comm);
int collc_allgather_hand(const void *, int, MPI_Datatype, void *, int,
                         MPI_Datatype, MPI_Comm);
int collc_alltoall_hand(const void *, int, MPI_Datatype, void *, int,
                        MPI_Datatype, MPI_Comm);
int collc_alltoall_relay(const void *, int, MPI_Datatype, void *, int,
                         MPI_Datatype, MPI_Comm);
int collc_barrier_hand(MPI_Comm);
}

namespace {

int Rank = 0, P = 1;
long Checks = 0, Failures = 0;
uint64_t Cap = UINT64_MAX;
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
  // A non-contiguous datatype is refused.
  MPI_Datatype Strided;
  MPI_Type_vector(2, 1, 2, MPI_INT, &Strided);
  MPI_Type_commit(&Strided);
  int Buf[4] = {0, 0, 0, 0};
  int Rc = F(Buf, 1, Strided, 0, Comm);
  expect(Rc == MPI_ERR_TYPE, tag(Name, 8) + " strided: expected MPI_ERR_TYPE");
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
  bool Timing = true, BcastOnly = false;
  for (int I = 1; I < argc; ++I) {
    if (!std::strcmp(argv[I], "--cap") && I + 1 < argc)
      Cap = std::strtoull(argv[++I], nullptr, 10);
    else if (!std::strcmp(argv[I], "--no-timing"))
      Timing = false;
    else if (!std::strcmp(argv[I], "--bcast-only"))
      BcastOnly = true;
  }
  // A communicator of its own, freed at the end: collc caches a duplicate on
  // it and must release it then.
  MPI_Comm_dup(MPI_COMM_WORLD, &Comm);
  MPI_Comm_rank(Comm, &Rank);
  MPI_Comm_size(Comm, &P);
  checkBcast("opt-tree", collc_bcast_opt_tree, true);
  checkBcast("binomial", collc_bcast_binomial, true);
  checkBcast("sequential", collc_bcast_sequential, true);
  checkBcast("chain", collc_bcast_chain, true);
  if (!BcastOnly) {
    checkBcast("hand-pipeline", collc_bcast_hand, false);
    checkReductions();
    checkPersonalized();
    checkBarrier(Timing);
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
