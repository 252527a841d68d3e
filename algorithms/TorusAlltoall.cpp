#include "algorithms/TorusAlltoall.h"

#include "algorithms/Builder.h"
#include "passes/BlockFlow.h"
#include "passes/Verify.h"

#include <algorithm>
#include <numeric>

namespace collc {

namespace {

int64_t wrap(int64_t A, int64_t M) { return ((A % M) + M) % M; }

/// The blocks origins x dests, as pieces (one chunk: a block is atomic).
PieceList product(const IntervalSet &Origins, const IntervalSet &Dests) {
  PieceList Out;
  Out.reserve(Origins.numIntervals() * Dests.numIntervals());
  for (const Interval &O : Origins)
    for (const Interval &D : Dests)
      Out.push_back({O, D, {0, 1}});
  return Out;
}

/// [Lo, Hi) minus the single rank \p X.
void addExcept(std::vector<Interval> &V, Interval I, int64_t X) {
  if (!I.contains(X)) {
    V.push_back(I);
    return;
  }
  V.push_back({I.Lo, X});
  V.push_back({X + 1, I.Hi});
}

Transfer makeTransfer(int64_t Src, int64_t Dst, PieceList Pieces,
                      uint64_t BlockBytes) {
  Transfer T;
  T.Src = static_cast<int32_t>(Src);
  T.Dst = static_cast<int32_t>(Dst);
  uint64_t Blocks = 0;
  for (const Piece &P : Pieces)
    Blocks += P.atoms();
  T.Bytes = Blocks * BlockBytes;
  T.Kind = TransferKind::Copy;
  T.Pieces = std::move(Pieces);
  return T;
}

int64_t torusSide(const Machine &M) { return M.Topo.Dims[0]; }

// ---- SEM ------------------------------------------------------------------

/// The shape of SEM's stage 2 on an N x N torus: the masters of one parity
/// form an M x M torus (M = N/2) split into aligned G x G groups (G = 4 when
/// M is a multiple of 4, the paper's case; 2 when M is only even; 1 for
/// M = 1); L = M/G groups per dimension. Phases 1-2 move blocks whole groups
/// (L-1 steps each); phases 3-4 finish inside a group (a hypercube exchange
/// on the group's position bits: bit 1 in phase 3, bit 0 in phase 4).
struct SemShape {
  int64_t N = 0, M = 0, G = 1, L = 1;
  /// Direction classes: 4 when G = 4 ((p+q) mod 4: 0 H+, 1 V+, 2 H-, 3 V-
  /// first), 2 when G = 2 ((p+q) mod 2: 0 H+, 1 V+ first).
  int64_t Classes = 1;

  explicit SemShape(int64_t N) : N(N), M(N / 2) {
    G = M % 4 == 0 ? 4 : M % 2 == 0 ? 2 : 1;
    L = M / G;
    Classes = G == 4 ? 4 : G == 2 ? 2 : 1;
  }
  int64_t cls(int64_t P, int64_t Q) const { return (P + Q) % Classes; }
  bool firstH(int64_t C) const { return C % 2 == 0; }
  int64_t sign(int64_t C) const { return Classes == 4 && C >= 2 ? -1 : 1; }
};

class SemBuilder {
public:
  SemBuilder(const Machine &Mach, const Request &R)
      : Sh(torusSide(Mach)), N(Sh.N), M(Sh.M), G(Sh.G), L(Sh.L),
        Block(R.Bytes) {}

  std::vector<Step> build() {
    stage1();
    if (M > 1)
      stage2();
    stage3();
    return std::move(Steps);
  }

  std::vector<SemStepInfo> Plan;
  /// Only record the step plan (no transfers).
  bool PlanOnly = false;

private:
  int64_t rank(int64_t Row, int64_t Col) const {
    return wrap(Row, N) * N + wrap(Col, N);
  }
  /// Real node of virtual node (P, Q) of subnetwork S.
  int64_t master(int S, int64_t P, int64_t Q) const {
    return rank(2 * wrap(P, M) + S, 2 * wrap(Q, M) + S);
  }
  /// The four ranks of basic cell (P, Q): two intervals of two.
  void addCell(std::vector<Interval> &V, int64_t P, int64_t Q) const {
    P = wrap(P, M);
    Q = wrap(Q, M);
    for (int64_t Row = 2 * P; Row < 2 * P + 2; ++Row)
      V.push_back({Row * N + 2 * Q, Row * N + 2 * Q + 2});
  }
  /// The two ranks virtual node (P, Q) of subnetwork S delivers to: its
  /// master and the slave beside it in the same row.
  void addDest(std::vector<Interval> &V, int S, int64_t P, int64_t Q) const {
    P = wrap(P, M);
    Q = wrap(Q, M);
    int64_t Lo = (2 * P + S) * N + 2 * Q;
    V.push_back({Lo, Lo + 2});
  }

  Step &newStep(int Stage, int Phase) {
    Steps.emplace_back();
    Plan.push_back({Stage, Phase});
    return Steps.back();
  }
  /// \p TieDown: Transfer::TieDown, for a move of exactly half the ring.
  void send(Step &St, int64_t Src, int64_t Dst, std::vector<Interval> Origins,
            std::vector<Interval> Dests, uint8_t TieDown = 0) {
    auto Pieces = product(IntervalSet::of(std::move(Origins)),
                          IntervalSet::of(std::move(Dests)));
    if (Pieces.empty())
      return;
    St.Transfers.push_back(makeTransfer(Src, Dst, std::move(Pieces), Block));
    St.Transfers.back().TieDown = TieDown;
  }

  /// Every rank of the rows of parity \p Parity, optionally minus rank \p X.
  std::vector<Interval> rowsOfParity(int Parity, int64_t X = -1) const {
    std::vector<Interval> V;
    for (int64_t Row = Parity; Row < N; Row += 2)
      addExcept(V, {Row * N, Row * N + N}, X);
    return V;
  }

  void stage1() {
    // Step 1 (dimension 0, horizontal pairs): (2p,2q) <-> (2p,2q+1) and
    // (2p+1,2q) <-> (2p+1,2q+1). Each node hands its partner the blocks of
    // the row parity the partner's column leads to: (2p,2q+1) gives its
    // even-row blocks to master (2p,2q) and takes that master's odd-row
    // blocks; (2p+1,2q) gives its odd-row blocks to master (2p+1,2q+1) and
    // takes its even-row blocks. A slave keeps its own block M[a][a].
    newStep(1, 0);
    newStep(1, 0);
    if (PlanOnly)
      return;
    Step &S1 = Steps[Steps.size() - 2], &S2 = Steps.back();
    for (int64_t P = 0; P < M; ++P)
      for (int64_t Q = 0; Q < M; ++Q) {
        int64_t M0 = rank(2 * P, 2 * Q), S0 = rank(2 * P, 2 * Q + 1);
        int64_t S1r = rank(2 * P + 1, 2 * Q), M1 = rank(2 * P + 1, 2 * Q + 1);
        send(S1, M0, S0, {{M0, M0 + 1}}, rowsOfParity(1));
        send(S1, S0, M0, {{S0, S0 + 1}}, rowsOfParity(0, S0));
        send(S1, M1, S1r, {{M1, M1 + 1}}, rowsOfParity(0));
        send(S1, S1r, M1, {{S1r, S1r + 1}}, rowsOfParity(1, S1r));
      }
    // Step 2 (dimension 1, vertical): each slave passes what it now holds
    // for the other row parity to the master of that parity below/above it.
    for (int64_t P = 0; P < M; ++P)
      for (int64_t Q = 0; Q < M; ++Q) {
        int64_t M0 = rank(2 * P, 2 * Q), S0 = rank(2 * P, 2 * Q + 1);
        int64_t S1r = rank(2 * P + 1, 2 * Q), M1 = rank(2 * P + 1, 2 * Q + 1);
        send(S2, S0, M1, {{M0, S0 + 1}}, rowsOfParity(1));
        send(S2, S1r, M0, {{S1r, M1 + 1}}, rowsOfParity(0));
      }
  }

  /// Virtual rows (or columns) of groups Group0 + Sign*k, k in [K0, L).
  std::vector<std::pair<int64_t, int64_t>>
  groupRuns(int64_t Group0, int64_t Sign, int64_t K0) const {
    std::vector<std::pair<int64_t, int64_t>> Runs; // [Lo, Hi) virtual coords
    for (int64_t K = K0; K < L; ++K) {
      int64_t Gr = wrap(Group0 + Sign * K, L);
      Runs.push_back({Gr * G, Gr * G + G});
    }
    return Runs;
  }

  /// Adds the destinations of subnetwork S in virtual rows RowRuns x columns
  /// ColRuns.
  void
  addDestRect(std::vector<Interval> &V, int S,
              const std::vector<std::pair<int64_t, int64_t>> &RowRuns,
              const std::vector<std::pair<int64_t, int64_t>> &ColRuns) const {
    for (auto [RLo, RHi] : RowRuns)
      for (int64_t P = RLo; P < RHi; ++P)
        for (auto [CLo, CHi] : ColRuns) {
          int64_t Lo = (2 * P + S) * N + 2 * CLo;
          V.push_back({Lo, Lo + 2 * (CHi - CLo)});
        }
  }

  /// Phases 1-2: whole-group moves along the class's first (phase 1) or
  /// second (phase 2) dimension, pipelined: at step T a master forwards what
  /// arrived from T-1 groups back and still has groups to go.
  void groupPhase(int Phase, Step &St, int64_t T) {
    if (PlanOnly)
      return;
    std::vector<std::pair<int64_t, int64_t>> All = {{0, M}};
    for (int S = 0; S < 2; ++S)
      for (int64_t P = 0; P < M; ++P)
        for (int64_t Q = 0; Q < M; ++Q) {
          int64_t C = Sh.cls(P, Q);
          int64_t Sg = Sh.sign(C);
          bool H = Sh.firstH(C) == (Phase == 1);
          std::vector<Interval> Origins, Dests;
          int64_t Back = Sg * G * (T - 1);
          if (Phase == 1) {
            // The blocks of the master T-1 groups back, for groups >= T on.
            int64_t OP = H ? P : P - Back, OQ = H ? Q - Back : Q;
            addCell(Origins, OP, OQ);
            auto Runs = groupRuns(wrap(H ? OQ : OP, M) / G, Sg, T);
            if (H)
              addDestRect(Dests, S, All, Runs);
            else
              addDestRect(Dests, S, Runs, All);
          } else {
            // What the master T-1 groups back held after phase 1: the
            // blocks of the L masters on its phase-1 line that are bound for
            // its group column (row); forward those with >= T groups to go.
            int64_t ZP = H ? P : P - Back, ZQ = H ? Q - Back : Q;
            for (int64_t K = 0; K < L; ++K)
              addCell(Origins, H ? ZP - Sg * G * K : ZP,
                      H ? ZQ : ZQ - Sg * G * K);
            auto Runs = groupRuns(wrap(H ? ZQ : ZP, M) / G, Sg, T);
            int64_t Own = wrap(H ? P : Q, M) / G;
            std::vector<std::pair<int64_t, int64_t>> Mine = {
                {Own * G, Own * G + G}};
            if (H)
              addDestRect(Dests, S, Mine, Runs);
            else
              addDestRect(Dests, S, Runs, Mine);
          }
          int64_t NP = H ? P : P + Sg * G, NQ = H ? Q + Sg * G : Q;
          // The decreasing classes move the decreasing way round, also when
          // the move is half the ring (N = 16: 2G = 8 hops of 16), where the
          // default route would send them the increasing way onto the
          // increasing classes' channels. Written dimension 0 is the row
          // coordinate, 1 the column: an H move changes the column.
          uint8_t TieDown = Sg < 0 ? (H ? 2 : 1) : 0;
          send(St, master(S, P, Q), master(S, NP, NQ), std::move(Origins),
               std::move(Dests), TieDown);
        }
  }

  /// Phases 3-4: a hypercube exchange inside each G x G group on the bits of
  /// the in-group position. Dims: 0 = row bit 0, 1 = column bit 0, 2 = row
  /// bit 1, 3 = column bit 1. Before a node has flipped dims F, it holds the
  /// blocks of origins agreeing with it on the bits outside F (any group)
  /// for destinations in its group agreeing with it on the bits in F.
  void bitStep(Step &St, int Which) {
    if (PlanOnly)
      return;
    for (int S = 0; S < 2; ++S)
      for (int64_t P = 0; P < M; ++P)
        for (int64_t Q = 0; Q < M; ++Q) {
          std::vector<int> Order = bitOrder(P, Q);
          int Dim = Order[Which];
          unsigned Flipped = 0;
          for (int I = 0; I < Which; ++I)
            Flipped |= 1u << Order[I];
          int64_t U = P % G, V = Q % G; // in-group position
          auto Bit = [](int64_t X, int D) { return (X >> (D / 2)) & 1; };
          auto Coord = [&](int D, int64_t Row, int64_t Col) {
            return D % 2 == 0 ? Bit(Row, D) : Bit(Col, D);
          };
          std::vector<Interval> Origins, Dests;
          for (int64_t A = 0; A < G; ++A)
            for (int64_t B = 0; B < G; ++B) {
              bool OriginOk = true, DestOk = true;
              for (int D = 0; D < 4; ++D) {
                bool Same = Coord(D, A, B) == Coord(D, U, V);
                if (D == Dim) {
                  OriginOk &= Same;
                  DestOk &= !Same;
                } else if (Flipped >> D & 1) {
                  DestOk &= Same;
                } else {
                  OriginOk &= Same;
                }
              }
              if (OriginOk)
                for (int64_t GP = 0; GP < L; ++GP)
                  for (int64_t GQ = 0; GQ < L; ++GQ)
                    addCell(Origins, GP * G + A, GQ * G + B);
              if (DestOk)
                addDest(Dests, S, P - U + A, Q - V + B);
            }
          int64_t Mask = int64_t(1) << (Dim / 2);
          int64_t NP = Dim % 2 == 0 ? P - U + (U ^ Mask) : P;
          int64_t NQ = Dim % 2 == 1 ? Q - V + (V ^ Mask) : Q;
          send(St, master(S, P, Q), master(S, NP, NQ), std::move(Origins),
               std::move(Dests));
        }
  }

  /// The order a master flips its in-group bits: phase 3 (bit 1) column
  /// first when p+q is even, row first when odd; phase 4 (bit 0) column then
  /// row for everyone.
  std::vector<int> bitOrder(int64_t P, int64_t Q) const {
    std::vector<int> O;
    if (G == 4) {
      if ((P + Q) % 2 == 0)
        O = {3, 2};
      else
        O = {2, 3};
    }
    if (G >= 2) {
      O.push_back(1);
      O.push_back(0);
    }
    return O;
  }

  void stage2() {
    for (int Phase = 1; Phase <= 2; ++Phase)
      for (int64_t T = 1; T < L; ++T)
        groupPhase(Phase, newStep(2, Phase), T);
    int Bits = G == 4 ? 4 : G == 2 ? 2 : 0;
    for (int I = 0; I < Bits; ++I)
      bitStep(newStep(2, Bits - I > 2 ? 3 : 4), I);
  }

  void stage3() {
    // Master (2p,2q) delivers to (2p,2q+1), master (2p+1,2q+1) to (2p+1,2q):
    // every block for the slave, from every origin but the slave itself.
    Step &St = newStep(3, 0);
    if (PlanOnly)
      return;
    for (int64_t P = 0; P < M; ++P)
      for (int64_t Q = 0; Q < M; ++Q) {
        int64_t M0 = rank(2 * P, 2 * Q), S0 = rank(2 * P, 2 * Q + 1);
        int64_t S1r = rank(2 * P + 1, 2 * Q), M1 = rank(2 * P + 1, 2 * Q + 1);
        std::vector<Interval> O0, O1;
        addExcept(O0, {0, N * N}, S0);
        addExcept(O1, {0, N * N}, S1r);
        send(St, M0, S0, O0, {{S0, S0 + 1}});
        send(St, M1, S1r, O1, {{S1r, S1r + 1}});
      }
  }

  SemShape Sh;
  const int64_t N, M, G, L;
  const uint64_t Block;
  std::vector<Step> Steps;
};

bool squareTorus(const Machine &M, std::string &Why) {
  if (M.Topo.Kind != TopologyKind::Torus || M.Topo.Dims.size() != 2) {
    Why = "needs a 2D torus";
    return false;
  }
  if (M.Topo.Dims[0] != M.Topo.Dims[1]) {
    Why = "needs a square N x N torus";
    return false;
  }
  return true;
}

} // namespace

bool torusAlltoallApplies(const Machine &M, const Request &R,
                          std::string &Why) {
  if (!squareTorus(M, Why))
    return false;
  int64_t N = M.Topo.Dims[0];
  if (R.size() != N * N) {
    Why = "needs all " + std::to_string(N * N) + " nodes of the torus";
    return false;
  }
  for (int32_t I = 0; I < R.size(); ++I)
    if (R.Nodes[I] != I) {
      Why = "needs rank = node number (rank " + std::to_string(I) +
            " runs on node " + std::to_string(R.Nodes[I]) + ")";
      return false;
    }
  return true;
}

bool semApplies(const Machine &M, const Request &R, std::string &Why) {
  if (!torusAlltoallApplies(M, R, Why))
    return false;
  int64_t N = M.Topo.Dims[0];
  if (N != 2 && N % 4 != 0) {
    Why = "needs N = 2 or a multiple of 4 (2x2 basic cells whose masters form "
          "an even torus); the torus is " +
          std::to_string(N) + "x" + std::to_string(N);
    return false;
  }
  return true;
}

bool torusRowColumnApplies(const Machine &M, const Request &R,
                           std::string &Why) {
  if (!torusAlltoallApplies(M, R, Why))
    return false;
  // Each phase's step t moves N - t blocks of each of N rows (columns) from
  // every node: N^4 (N - 1) / 2 a phase.
  // From 1,024 ranks on the verifier follows an all-to-all's blocks densely
  // (passes/BlockFlow.h), within MaxDenseMoved.
  const uint64_t N = uint64_t(M.Topo.Dims[0]);
  const uint64_t Moved = N * N * N * N * (N - 1);
  const uint64_t Max = N * N >= 1024 && BlockFlow::fits(int32_t(N * N), 1)
                           ? VerifyLimits::MaxDenseMoved
                           : VerifyLimits::MaxMoved;
  if (Moved > Max) {
    Why = "its blocks make " + std::to_string(Moved) +
          " hops in all, more than the " + std::to_string(Max) +
          " the verifier follows (torus-direct or sem move each once)";
    return false;
  }
  return true;
}

std::vector<SemStepInfo> semStepPlan(int64_t N) {
  Machine M;
  M.Topo.Kind = TopologyKind::Torus;
  M.Topo.Dims = {N, N};
  M.Topo.Nodes = N * N;
  Request R;
  SemBuilder B(M, R);
  B.PlanOnly = true;
  B.build();
  return B.Plan;
}

llvm::Expected<Schedule> buildSem(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "sem");
  S.Steps = SemBuilder(M, R).build();
  return S;
}

llvm::Expected<Schedule> buildTorusDirect(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "torus-direct");
  const int64_t N = torusSide(M);
  // Offsets (dr, dc) in order of route length; an offset whose worms cross
  // H = max(|dr|, |dc|) channels per dimension runs in K sub-steps, K the
  // smallest divisor of N that is >= H: in sub-step k only nodes with
  // (row + col) mod K == k send, so worms sharing a column (or the row they
  // turn into) start at least K >= H apart and never share a channel.
  std::vector<std::pair<int64_t, int64_t>> Offsets;
  for (int64_t DR = 0; DR < N; ++DR)
    for (int64_t DC = 0; DC < N; ++DC)
      if (DR || DC)
        Offsets.push_back({DR, DC});
  auto Hops = [&](int64_t D) { return std::min(D, N - D); };
  auto Len = [&](std::pair<int64_t, int64_t> O) {
    return std::max(Hops(O.first), Hops(O.second));
  };
  std::stable_sort(Offsets.begin(), Offsets.end(),
                   [&](auto A, auto B) { return Len(A) < Len(B); });
  for (auto [DR, DC] : Offsets) {
    int64_t H = Len({DR, DC}), K = H;
    while (N % K)
      ++K;
    for (int64_t Sub = 0; Sub < K; ++Sub) {
      Step St;
      for (int64_t Row = 0; Row < N; ++Row)
        for (int64_t Col = 0; Col < N; ++Col) {
          if ((Row + Col) % K != Sub)
            continue;
          int64_t A = Row * N + Col;
          int64_t B = wrap(Row + DR, N) * N + wrap(Col + DC, N);
          St.Transfers.push_back(
              makeTransfer(A, B, {{{A, A + 1}, {B, B + 1}, {0, 1}}}, R.Bytes));
        }
      S.Steps.push_back(std::move(St));
    }
  }
  return S;
}

llvm::Expected<Schedule> buildTorusRowColumn(const Machine &M,
                                             const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "torus-row-column");
  const int64_t N = torusSide(M);
  // Phase A: along each row, one hop in the increasing direction per step.
  // At step t node (r,c) forwards the blocks of origin (r, c-t+1) bound for
  // columns c-t+1+k, k >= t (every row).
  for (int64_t T = 1; T < N; ++T) {
    Step St;
    for (int64_t Row = 0; Row < N; ++Row)
      for (int64_t Col = 0; Col < N; ++Col) {
        int64_t Origin = Row * N + wrap(Col - T + 1, N);
        std::vector<Interval> Dests;
        for (int64_t DR = 0; DR < N; ++DR)
          for (int64_t K = T; K < N; ++K) {
            int64_t D = DR * N + wrap(Col - T + 1 + K, N);
            Dests.push_back({D, D + 1});
          }
        St.Transfers.push_back(makeTransfer(
            Row * N + Col, Row * N + wrap(Col + 1, N),
            product(IntervalSet({Origin, Origin + 1}), IntervalSet::of(Dests)),
            R.Bytes));
      }
    S.Steps.push_back(std::move(St));
  }
  // Phase B: along each column. After phase A node (r,c) holds the blocks
  // of its whole row bound for column c; at step t it forwards those of row
  // r-t+1 bound for rows r-t+1+k, k >= t.
  for (int64_t T = 1; T < N; ++T) {
    Step St;
    for (int64_t Row = 0; Row < N; ++Row)
      for (int64_t Col = 0; Col < N; ++Col) {
        int64_t OR = wrap(Row - T + 1, N);
        std::vector<Interval> Dests;
        for (int64_t K = T; K < N; ++K) {
          int64_t D = wrap(OR + K, N) * N + Col;
          Dests.push_back({D, D + 1});
        }
        St.Transfers.push_back(makeTransfer(
            Row * N + Col, wrap(Row + 1, N) * N + Col,
            product(IntervalSet({OR * N, OR * N + N}), IntervalSet::of(Dests)),
            R.Bytes));
      }
    S.Steps.push_back(std::move(St));
  }
  return S;
}

} // namespace collc
