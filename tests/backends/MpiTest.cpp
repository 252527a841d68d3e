// The MPI backend's tables and entry points (the generated code runs under
// real MPI in tests/mpi/).
#include "backends/Mpi.h"
#include "backends/Backend.h"
#include "compiler/Driver.h"
#include "passes/Verify.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <numeric>

using namespace collc;

namespace {

/// A transfer of \p Bytes and \p Pieces (the other fields their defaults).
Transfer transfer(int32_t Src, int32_t Dst, uint64_t Bytes, TransferKind Kind,
                  PieceList Pieces) {
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  T.Bytes = Bytes;
  T.Kind = Kind;
  T.Pieces = std::move(Pieces);
  return T;
}

std::string emit(const std::vector<Schedule> &Ss,
                 MpiSizes Sizes = MpiSizes::Exact, bool Preload = false) {
  auto V = mpiSizeBands(Ss, Sizes);
  REQUIRE(static_cast<bool>(V));
  MpiOptions O;
  O.Name = "t";
  O.Preload = Preload;
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  llvm::Error E = emitMpi(OS, *V, O);
  REQUIRE(!E);
  return OS.str();
}

Schedule skeleton(Collective C, int32_t P) {
  Schedule S;
  S.Coll = C;
  S.Algorithm = "hand";
  S.Bytes = 8;
  for (int32_t R = 0; R < P; ++R)
    S.Participants.push_back({R});
  return S;
}

size_t count(const std::string &Text, const std::string &What) {
  size_t N = 0;
  for (size_t At = Text.find(What); At != std::string::npos;
       At = Text.find(What, At + 1))
    ++N;
  return N;
}

} // namespace

TEST_CASE(
    "mpi: a 4096-rank broadcast stays a table of a few hundred kilobytes") {
  Machine M = test::parameterized(2, 3);
  auto S = compile(M, test::bcast(4096, 0, 1000, "binomial"));
  REQUIRE(static_cast<bool>(S));
  std::string Text = emit({*S});
  // 4095 transfers: one send and one receive each, and one shared segment.
  CHECK(Text.find("8190 operations") != std::string::npos);
  CHECK(count(Text, "{0,1,0,1,1,0}") == 1);
  CHECK(Text.size() < 200 * 1024);
  CHECK(Text.find("int collc_bcast_t(void *buf, int count, MPI_Datatype type, "
                  "int root, "
                  "MPI_Comm comm)") != std::string::npos);
}

TEST_CASE("mpi: size bands split at the geometric mean and cover every size") {
  Machine M = test::parameterized(2, 3);
  std::vector<Schedule> Ss;
  for (uint64_t B : {uint64_t(1000), uint64_t(0), uint64_t(1048576)}) {
    auto S = compile(M, test::bcast(8, 0, B, "binomial"));
    REQUIRE(static_cast<bool>(S));
    Ss.push_back(*S);
  }
  auto Exact = mpiSizeBands(Ss, MpiSizes::Exact);
  REQUIRE(static_cast<bool>(Exact));
  for (const MpiVariant &V : *Exact)
    CHECK((V.MinBytes == V.S->Bytes && V.MaxBytes == V.S->Bytes));
  auto Any = mpiSizeBands(Ss, MpiSizes::Any);
  REQUIRE(static_cast<bool>(Any));
  REQUIRE(Any->size() == 3);
  CHECK((*Any)[0].MinBytes == 0);
  // sqrt(1 * 1001) - 1 = 30.6: 31 bytes and up go to the 1000-byte schedule.
  CHECK((*Any)[0].MaxBytes == 30);
  CHECK((*Any)[1].MinBytes == 31);
  // sqrt(1001 * 1048577) - 1 = 32396.3.
  CHECK((*Any)[1].MaxBytes == 32396);
  CHECK((*Any)[2].MinBytes == 32397);
  CHECK((*Any)[2].MaxBytes == UINT64_MAX);
  for (const MpiVariant &V : *Any)
    CHECK((V.MinBytes <= V.S->Bytes && V.S->Bytes <= V.MaxBytes));
}

TEST_CASE("mpi: two schedules for the same call are refused") {
  Machine M = test::parameterized(2, 3);
  auto A = compile(M, test::bcast(8, 0, 1000, "binomial"));
  auto B = compile(M, test::bcast(8, 0, 1000, "chain"));
  REQUIRE((A && B));
  std::vector<Schedule> Ss = {*A, *B};
  auto V = mpiSizeBands(Ss, MpiSizes::Exact);
  REQUIRE(!V);
  CHECK(llvm::toString(V.takeError()) ==
        "two bcast schedules for 8 ranks, root 0 and 1000 bytes ('binomial' "
        "and 'chain'): a "
        "call could not choose between them");
}

TEST_CASE("mpi: reductions record operand order and whether they need "
          "commutativity") {
  // Linear scan: rank r folds ranks 0..r-1 from the left, in order.
  Schedule Scan = skeleton(Collective::Scan, 4);
  for (int32_t R = 0; R + 1 < 4; ++R) {
    Transfer T;
    T.Src = R;
    T.Dst = R + 1;
    T.Kind = TransferKind::Combine;
    T.Bytes = 8;
    T.Pieces = {{{0, R + 1}, {0, 4}, {0, 1}}};
    Scan.Steps.push_back({{T}});
  }
  std::string Text = emit({Scan});
  CHECK(Text.find("collc::rt::Scan, 4, 0, 8u, 8u, 1, false,") !=
        std::string::npos);
  // Receives are combines (flags 3) whose incoming value is the left operand,
  // staged (wait record 3: staging unit 0, nothing to wait for).
  CHECK(count(Text, ",3,0,1,3}") == 3);
  CHECK(Text.find("_waits[] = {\n    -1, 0, 0, 0, 0, 0, -1, 1, 0, 0,};") !=
        std::string::npos);
  CHECK(Text.find("{0,1,0,1,3,0}") != std::string::npos);

  // Rank 0 folds rank 2, then rank 1: out of order, needs commutativity; and
  // rank 1's value comes from the right of {0}.
  Schedule Red = skeleton(Collective::Reduce, 3);
  Transfer T1 =
      transfer(2, 0, 8, TransferKind::Combine, {{{2, 3}, {0, 3}, {0, 1}}});
  Transfer T2 =
      transfer(1, 0, 8, TransferKind::Combine, {{{1, 2}, {0, 3}, {0, 1}}});
  Red.Steps = {{{T1}}, {{T2}}};
  Text = emit({Red});
  CHECK(Text.find("collc::rt::Reduce, 3, 0, 8u, 8u, 1, true,") !=
        std::string::npos);
  CHECK(Text.find("{0,1,0,1,3,1}") != std::string::npos); // right operand
}

TEST_CASE("mpi: a reduction that needs commutativity and one in rank order "
          "serve one call") {
  Machine M = test::parameterized(2, 3);
  auto Reduce = [&](int32_t Root, bool Commutative) {
    Request R = test::bcast(4, Root, 1000, "binomial");
    R.Coll = Collective::Reduce;
    R.Op = "sum";
    R.Datatype = "int64";
    R.Commutative = Commutative;
    auto S = compile(M, R);
    REQUIRE(static_cast<bool>(S));
    return *S;
  };
  // Root 1: the binomial tree folds out of rank order; the one built for a
  // non-commutative operator keeps it. Both are emitted, each marked.
  std::vector<Schedule> Ss = {Reduce(1, true), Reduce(1, false)};
  auto V = mpiSizeBands(Ss, MpiSizes::Any);
  REQUIRE(static_cast<bool>(V));
  REQUIRE(V->size() == 2);
  CHECK((*V)[0].NeedsCommutative != (*V)[1].NeedsCommutative);
  for (const MpiVariant &X : *V) // each covers every size for its operators
    CHECK((X.MinBytes == 0 && X.MaxBytes == UINT64_MAX));
  std::string Text = emit(Ss);
  CHECK(Text.find("collc::rt::Reduce, 4, 1, 1000u, 1000u, 1, true,") !=
        std::string::npos);
  CHECK(Text.find("collc::rt::Reduce, 4, 1, 1000u, 1000u, 1, false,") !=
        std::string::npos);
  // Root 0: both fold in rank order; the one for commutative operators
  // serves every operator, the other is left out.
  Ss = {Reduce(0, false), Reduce(0, true)};
  V = mpiSizeBands(Ss, MpiSizes::Exact);
  REQUIRE(static_cast<bool>(V));
  REQUIRE(V->size() == 1);
  CHECK((*V)[0].S->Commutative);
  CHECK(!(*V)[0].NeedsCommutative);
}

TEST_CASE("mpi: failures go through the communicator's error handler") {
  Schedule S = skeleton(Collective::Bcast, 2);
  std::string Direct = emit({S});
  CHECK(Direct.find("  collc::rt::serve(collc_t_bcast_variants, N, Call, "
                    "false, Code);\n"
                    "  return collc::rt::reportError(comm, Code);\n") !=
        std::string::npos);
  std::string Preload = emit({S}, MpiSizes::Exact, /*Preload=*/true);
  CHECK(Preload.find("  if (collc::rt::serve(collc_t_bcast_variants, N, Call, "
                     "true, Code))\n"
                     "    return collc::rt::reportError(comm, Code);\n"
                     "  return PMPI_Bcast(buf, count, type, root, comm);\n") !=
        std::string::npos);
}

TEST_CASE("mpi: exscan keeps its result apart in the receive buffer") {
  Machine M = test::parameterized(2, 3);
  auto Exscan = [](const char *Alg) {
    Request R = test::bcast(4, 0, 64, Alg);
    R.Coll = Collective::Exscan;
    R.Op = "sum";
    R.Datatype = "int32";
    return R;
  };
  // The linear exscan: what rank r passes on is combined into its partial
  // (accumulator, buffer 3) and stored in the result (SegAlso | SegAlsoStore).
  auto Lin = compile(M, Exscan("linear"));
  REQUIRE(static_cast<bool>(Lin));
  std::string Text = emit({*Lin});
  CHECK(Text.find("collc::rt::Exscan, 4, 0, 64u, 64u, 1, false,") !=
        std::string::npos);
  CHECK(Text.find("{0,1,0,1,3,0}") != std::string::npos); // sends the partial
  CHECK(Text.find("{0,1,0,1,3,20}") != std::string::npos);
  // Brent-Kung ends with the shift r -> r+1 into the result alone (buffer 4,
  // stored: a copy).
  auto Bk = compile(M, Exscan("brent-kung"));
  REQUIRE(static_cast<bool>(Bk));
  Text = emit({*Bk});
  CHECK(Text.find("{0,1,0,1,4,0}") != std::string::npos);
  // A scan that keeps a value apart has nowhere to keep it.
  std::vector<Schedule> Scan = {*Lin};
  Scan[0].Coll = Collective::Scan;
  auto V = mpiSizeBands(Scan, MpiSizes::Exact);
  REQUIRE(static_cast<bool>(V));
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  MpiOptions O;
  O.Name = "t";
  llvm::Error E = emitMpi(OS, *V, O);
  REQUIRE(static_cast<bool>(E));
  CHECK(llvm::toString(std::move(E)).find("exscan only") != std::string::npos);
}

TEST_CASE("mpi: combines into one value in one step apply in schedule "
          "order") {
  // Exscan on 3 ranks, one step: rank 0's contribution goes to ranks 1 and
  // 2, rank 1's to rank 2, all into the results (value 1). Rank 2 receives
  // two combines into its empty result: the runtime applies them in order,
  // so the first is stored (mode 2) and the second folded from the right
  // (mode 1), not both stored.
  Schedule S = skeleton(Collective::Exscan, 3);
  auto Into1 = [](int32_t Src, int32_t Dst) {
    Transfer T = transfer(Src, Dst, 8, TransferKind::Combine,
                          {{{Src, Src + 1}, {0, 3}, {0, 1}}});
    T.Into = 2;
    return T;
  };
  S.Steps = {{{Into1(0, 1), Into1(0, 2), Into1(1, 2)}}};
  Machine M = test::parameterized(2, 3);
  M.Ports = 2;
  VerifyOptions VO;
  VO.Timing = false;
  CHECK(verifySchedule(S, M, VO).empty());
  std::string Text = emit({S});
  // Rank 2's operations, the last two: receive from 0 (segment 1, stored
  // into the result), then from 1 (segment 2, folded from the right), each
  // in its own staging area (wait records 3 and 6).
  CHECK(Text.find("{0,0,3,1,1,3}, {0,1,3,2,1,6},};") != std::string::npos);
  CHECK(Text.find("{0,1,0,1,4,2}, {0,1,0,1,4,1},};") != std::string::npos);
}

TEST_CASE(
    "mpi: personalized data goes to MPI's buffer layouts, relays use scratch") {
  // Alltoall on 3 ranks: M[0][2] travels 0 -> 1 -> 2 with M[0][1].
  Schedule S = skeleton(Collective::Alltoall, 3);
  auto Block = [](int64_t O, int64_t D) {
    return Piece{{O, O + 1}, {D, D + 1}, {0, 1}};
  };
  std::vector<Transfer> Step0 = {
      transfer(0, 1, 16, TransferKind::Copy, {Block(0, 1), Block(0, 2)}),
      transfer(1, 2, 8, TransferKind::Copy, {Block(1, 2)}),
      transfer(2, 0, 16, TransferKind::Copy, {Block(2, 0), Block(2, 1)}),
  };
  std::vector<Transfer> Step1 = {
      transfer(1, 2, 8, TransferKind::Copy, {Block(0, 2)}),
      transfer(0, 1, 8, TransferKind::Copy, {Block(2, 1)}),
      transfer(2, 0, 8, TransferKind::Copy, {Block(1, 0)}),
  };
  // M[1][0] must reach rank 2 first: put it in the first step's message.
  Step0[1].Pieces = {Block(1, 0), Block(1, 2)};
  Step0[1].Bytes = 16;
  S.Steps = {{Step0}, {Step1}};
  std::string Text = emit({S});
  // Rank 0 sends send-buffer blocks 1 and 2 as one run {1,2,...,buffer 0}.
  CHECK(Text.find("{1,2,0,1,0,0}") != std::string::npos);
  // Rank 1 receives M[0][1] into receive block 0 and M[0][2] into scratch 0.
  CHECK(Text.find("{0,1,0,1,1,0},") != std::string::npos);
  CHECK(Text.find("{0,1,0,1,2,0},") != std::string::npos);
  // One scratch block per rank at most.
  CHECK(Text.find("collc::rt::Alltoall, 3, 0, 8u, 8u, 1, false, 1,") !=
        std::string::npos);
}

TEST_CASE("mpi: every collective has an entry point with MPI's signature") {
  struct Case {
    Collective C;
    const char *Decl;
  } Cases[] = {
      {Collective::Reduce,
       "int collc_reduce_t(const void *sendbuf, void *recvbuf, int count, "
       "MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)"},
      {Collective::Allreduce,
       "int collc_allreduce_t(const void *sendbuf, void *recvbuf, int "
       "count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)"},
      {Collective::Exscan,
       "int collc_exscan_t(const void *sendbuf, void *recvbuf, int count, "
       "MPI_Datatype type, MPI_Op op, MPI_Comm comm)"},
      {Collective::Gather, "int collc_gather_t(const void *sendbuf, int "
                           "sendcount, MPI_Datatype sendtype, void "
                           "*recvbuf, int recvcount, MPI_Datatype recvtype, "
                           "int root, MPI_Comm comm)"},
      {Collective::Alltoall,
       "int collc_alltoall_t(const void *sendbuf, int sendcount, MPI_Datatype "
       "sendtype, void "
       "*recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)"},
      {Collective::Barrier, "int collc_barrier_t(MPI_Comm comm)"},
      {Collective::Multicast,
       "int collc_bcast_t(void *buf, int count, MPI_Datatype type, int "
       "root, MPI_Comm comm)"},
  };
  for (const Case &K : Cases) {
    Schedule S = skeleton(K.C, 1);
    std::string Text = emit({S}, MpiSizes::Exact, /*Preload=*/true);
    INFO(collectiveName(K.C));
    CHECK(Text.find(std::string("extern \"C\" ") + K.Decl) !=
          std::string::npos);
    CHECK(Text.find("return PMPI_") != std::string::npos);
  }
}

TEST_CASE("mpi: the machine's max_piece is set by every entry point") {
  // A machine whose network says messages go in pieces (collc-probe writes
  // `protocol: {max_piece}` where whole messages that cross share a
  // connection): the generated code sends such pieces, as the drop-in does.
  Machine M = test::parameterized(2, 3);
  Schedule B = skeleton(Collective::Bcast, 2);
  Schedule A = skeleton(Collective::Allreduce, 2);
  const std::vector<Schedule> Ss = {B, A};
  const Backend *Mpi = findBackend("mpi");
  REQUIRE(Mpi != nullptr);
  auto emitFor = [&](const Machine &On) {
    BackendOptions O;
    O.OutputPath = "t.cpp";
    O.MpiName = "t";
    auto Files = Mpi->Emit(*Mpi, BackendInput{On, Ss, nullptr, {}}, O);
    REQUIRE(static_cast<bool>(Files));
    REQUIRE(Files->size() == 1);
    return (*Files)[0].Text;
  };
  // No network, or one without max_piece: the runtime's default.
  CHECK(count(emitFor(M), "machinePiece") == 0);
  M.Net.emplace();
  CHECK(count(emitFor(M), "machinePiece") == 0);
  M.Net->MaxPiece = 4099;
  const std::string Text = emitFor(M);
  // Once in each of the two entry points, before the schedule runs.
  CHECK(count(Text, "  collc::rt::machinePiece() = 4099;\n") == 2);
  const size_t Set = Text.find("machinePiece() = 4099");
  const size_t Serve = Text.find("collc::rt::serve(collc_t_bcast_variants");
  REQUIRE(Serve != std::string::npos);
  CHECK(Set < Serve);
}
