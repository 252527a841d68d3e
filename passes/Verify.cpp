#include "passes/Verify.h"

#include "passes/BlockFlow.h"
#include "passes/CallModel.h"
#include "passes/Cost.h"
#include "passes/Diagnostics.h"
#include "passes/HeldFlow.h"
#include "passes/ReductionFlow.h"

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <queue>
#include <unordered_map>

namespace collc {

namespace {

/// A reduction step of more transfers than this is followed in batches of
/// as many when no transfer of it reads what another delivers into.
constexpr size_t FlowBatch = size_t(1) << 16;

/// The chunks \p T's pieces span.
Interval chunkHull(const Transfer &T) {
  Interval H = T.Pieces.front().Chunks;
  for (const Piece &Pc : T.Pieces) {
    H.Lo = std::min(H.Lo, Pc.Chunks.Lo);
    H.Hi = std::max(H.Hi, Pc.Chunks.Hi);
  }
  return H;
}

/// Whether no transfer of \p Ts reads chunks of a value that a transfer of
/// \p Ts delivers into (compared as the chunk hulls each rank's values
/// receive), so that following them one batch after another reads what
/// the whole step would: the values before the step. \p Ts are well formed
/// (Verifier::structure), of \p P ranks.
bool readsNoDelivery(llvm::ArrayRef<const Transfer *> Ts, int32_t P) {
  std::vector<Interval> Into(2 * static_cast<size_t>(P));
  for (const Transfer *T : Ts) {
    const Interval H = chunkHull(*T);
    for (int V = 0; V < 2; ++V) {
      if (!(T->Into >> V & 1))
        continue;
      Interval &I = Into[2 * static_cast<size_t>(T->Dst) + V];
      I = I.empty() ? H : Interval{std::min(I.Lo, H.Lo), std::max(I.Hi, H.Hi)};
    }
  }
  for (const Transfer *T : Ts)
    if (Into[2 * static_cast<size_t>(T->Src) + T->From].intersects(
            chunkHull(*T)))
      return false;
  return true;
}

class Verifier {
public:
  Verifier(const Schedule &S, const Machine &M, const VerifyOptions &O)
      : S(S), M(M), O(O), P(S.size()), K(S.NumChunks), Traits(traits(S.Coll)),
        Kind(Traits.Data) {}

  std::vector<std::string> run() {
    if (P < 1) {
      problem("the schedule has no participants");
      return Problems;
    }
    if (S.Root < 0 || S.Root >= P)
      problem("root " + std::to_string(S.Root) + " is not a rank");
    if (K < 1)
      problem("the message has " + std::to_string(K) + " chunks");
    else if (S.Coll == Collective::ReduceScatter && K != P)
      problem("a reduce-scatter's message is in one chunk per rank (" +
              std::to_string(P) + "), not " + std::to_string(K));
    if (!Problems.empty())
      return Problems;
    if (!affordable())
      return Problems;
    init();
    for (size_t SI = 0; SI < S.Steps.size() && !full(); ++SI)
      step(SI, S.Steps[SI]);
    if (!full())
      post();
    release();
    // Under a network the evaluator's times follow no affine rule: only
    // causality (checked as the data flows) applies.
    if (O.Timing && !full() && !M.Net)
      timing();
    // Star and macro-star graphs: every call joins adjacent nodes, one call
    // per node per step (paper 002's call model).
    if (!full())
      for (std::string &Pb :
           checkCallModel(S, M, O.MaxProblems - Problems.size()))
        problem(std::move(Pb));
    return Problems;
  }

private:
  /// Chooses how the data flow is followed (VerifyOptions::Tracking), and
  /// whether atom by atom the data space and the atoms the transfers move
  /// stay within the verifier's limits (VerifyLimits); says which limit is
  /// exceeded if not. Without these bounds a schedule of a few bytes that
  /// claims 2^40 chunks would never finish atom by atom; runs grow with the
  /// pieces, which the schedule already holds.
  bool affordable() {
    // Everything in doubles: the products may exceed 64 bits.
    const double DP = P, DK = K;
    bool Square = blockPerPair(S.Coll);
    double Space = DP * DK * (Square ? DP : 1);
    bool DenseAlltoall =
        S.Coll == Collective::Alltoall &&
        O.AlltoallBlocks != VerifyOptions::BlockState::PerRank &&
        BlockFlow::fits(P, K);
    double Moved = 0, Pieces = 0;
    for (const Step &St : S.Steps)
      for (const Transfer &T : St.Transfers)
        for (const Piece &Pc : T.Pieces) {
          double N = std::max<double>(Pc.Chunks.size(), 1);
          if (Kind == DataKind::Replicated || Kind == DataKind::Personalized)
            N *= std::max<double>(Pc.Origins.size(), 1);
          if (Kind == DataKind::Personalized)
            N *= std::max<double>(Pc.Dests.size(), 1);
          Moved += N;
          ++Pieces;
        }
    const bool CanRun =
        Kind == DataKind::Replicated || Kind == DataKind::Reduction;
    // The dense tracker (as init() chooses it) follows more.
    const bool DenseTracker =
        DenseAlltoall &&
        (O.AlltoallBlocks == VerifyOptions::BlockState::Dense || P >= 1024);
    const double MaxMoved = double(DenseTracker ? VerifyLimits::MaxDenseMoved
                                                : VerifyLimits::MaxMoved);
    const bool WithinAtoms =
        (DenseAlltoall || Space <= double(VerifyLimits::MaxAtoms)) &&
        Moved <= MaxMoved;
    switch (O.Flow) {
    case VerifyOptions::Tracking::Runs:
      Runs = CanRun;
      break;
    case VerifyOptions::Tracking::Atoms:
      Runs = false;
      break;
    case VerifyOptions::Tracking::Auto:
      // Atoms cost O(1) each and runs O(log runs) per piece: data whose
      // pieces carry a few atoms each goes faster atom by atom
      // (bench/verify_bench.cpp).
      Runs = CanRun && (!WithinAtoms || Moved > RunsAbove * Pieces);
      break;
    }
    // Runs lift the limit on ranks x chunks, not on the chunks alone: the
    // passes after the verifier go chunk by chunk.
    if (Runs && DK <= double(VerifyLimits::MaxAtoms))
      return true;
    if (!DenseAlltoall && Space > double(VerifyLimits::MaxAtoms)) {
      problem("the data space of " + std::to_string(P) + " ranks" +
              (Square ? " x " + std::to_string(P) + " blocks" : "") + " x " +
              std::to_string(K) +
              " chunks is larger than the verifier tracks (" +
              std::to_string(VerifyLimits::MaxAtoms) + " atoms)");
      return false;
    }
    if (Moved > MaxMoved) {
      problem("the transfers move " + formatShort(Moved) +
              " atoms (rank, block, chunk), more than the verifier follows (" +
              std::to_string(static_cast<uint64_t>(MaxMoved)) + ")");
      return false;
    }
    return true;
  }

  bool full() const { return Problems.size() >= O.MaxProblems; }
  void problem(std::string Msg) {
    if (!full())
      Problems.push_back(std::move(Msg));
  }

  // ---- state ---------------------------------------------------------------
  // Replicated: arrival time of chunk c of origin o at rank r, keyed r.
  // Personalized: atoms received (beyond the initial ones), keyed per rank.
  // When the atoms a rank can hold are few (a broadcast's chunks), a flat
  // array rank x atom (NaN = not held); otherwise a hash map per rank.
  std::vector<std::unordered_map<uint64_t, double>> Held;
  // Large all-to-alls: dense block-exact tracking instead of Held.
  std::unique_ptr<BlockFlow> Dense;
  std::vector<double> HeldFlat;
  uint64_t FlatAtoms = 0;
  std::vector<unsigned> Sends, Recvs;
  // Reductions: the contributors each value holds (passes/ReductionFlow.h),
  // and since when: AccTime[v][r * K + c], value v of rank r's chunk c.
  // Followed as runs of chunks (Tracking::Runs) or chunk by chunk.
  std::unique_ptr<ReductionFlow> Flow;
  std::unique_ptr<ChunkReductionFlow> ChunkFlow;
  std::vector<double> AccTime[2];
  std::vector<RunMap<double>> AccRuns[2];
  // Replicated data under Tracking::Runs, instead of Held and HeldFlat.
  std::unique_ptr<HeldFlow> HeldRuns;
  // Signals: who knows of whose arrival (bitsets), and since when.
  std::vector<std::vector<uint64_t>> Knows;
  std::vector<double> KnowTime;

  uint64_t atomKey(int64_t Origin, int64_t Dest, int64_t Chunk) const {
    if (Kind == DataKind::Replicated)
      return static_cast<uint64_t>(Origin) * K + Chunk;
    return (static_cast<uint64_t>(Origin) * P + Dest) * K + Chunk;
  }

  /// Whether the atom exists in this collective's data space: its origin
  /// is one of the collective's origins, and a personalized block is meant
  /// for one of the ranks that hold results.
  bool atomExists(int64_t Origin, int64_t Dest) const {
    return (Traits.Origins == RankScope::All || Origin == S.Root) &&
           (Kind != DataKind::Personalized ||
            Traits.Results == RankScope::All || Dest == S.Root);
  }

  /// Whether rank \p R holds the atom from the start: its own data.
  bool initiallyHeld(int32_t R, int64_t Origin, int64_t Dest) const {
    return (Kind == DataKind::Replicated || Kind == DataKind::Personalized) &&
           Origin == R && atomExists(Origin, Dest);
  }

  void init() {
    Sends.assign(P, 0);
    Recvs.assign(P, 0);
    if (Kind == DataKind::Replicated || Kind == DataKind::Personalized) {
      bool OneOrigin =
          Kind == DataKind::Replicated && Traits.Origins == RankScope::Root;
      using BS = VerifyOptions::BlockState;
      bool UseDense =
          S.Coll == Collective::Alltoall && O.AlltoallBlocks != BS::PerRank &&
          BlockFlow::fits(P, K) && (O.AlltoallBlocks == BS::Dense || P >= 1024);
      if (Runs) {
        HeldRuns = std::make_unique<HeldFlow>(
            P, K, OneOrigin ? Interval{S.Root, S.Root + 1} : Interval{0, P});
      } else if (OneOrigin &&
                 static_cast<uint64_t>(P) * K <= (uint64_t(1) << 28)) {
        FlatAtoms = static_cast<uint64_t>(K);
        HeldFlat.assign(static_cast<uint64_t>(P) * K, NAN);
      } else if (UseDense) {
        Dense = std::make_unique<BlockFlow>(P, K);
      } else {
        Held.resize(P);
      }
    }
    if (Kind == DataKind::Reduction && Runs) {
      Flow = std::make_unique<ReductionFlow>(S);
      for (int V = 0; V < 2; ++V)
        AccRuns[V].assign(P, RunMap<double>(K, 0.0));
    } else if (Kind == DataKind::Reduction) {
      ChunkFlow = std::make_unique<ChunkReductionFlow>(S);
      // Value 1's times once a transfer updates it (accTime).
      AccTime[0].assign(static_cast<size_t>(P) * K, 0.0);
    }
    if (Kind == DataKind::Signal) {
      size_t Words = (static_cast<size_t>(P) + 63) / 64;
      Knows.assign(P, std::vector<uint64_t>(Words, 0));
      KnowTime.assign(P, 0.0);
      for (int32_t R = 0; R < P; ++R)
        Knows[R][R / 64] |= uint64_t(1) << (R % 64);
    }
  }

  /// Frees the data flow's state once the end state is checked: the timing
  /// check below builds its own (24 bytes a transfer), and the flow of a
  /// reduction of P chunks on P ranks holds P^2 sets and times.
  void release() {
    Held = {};
    Dense.reset();
    HeldFlat = {};
    Flow.reset();
    ChunkFlow.reset();
    for (int V = 0; V < 2; ++V) {
      AccTime[V] = {};
      AccRuns[V] = {};
    }
    HeldRuns.reset();
    Knows = {};
    KnowTime = {};
  }

  /// Bytes a transfer must carry for its pieces.
  uint64_t expectedBytes(const Transfer &T) const {
    uint64_t B = 0;
    if (Kind == DataKind::Reduction) {
      // Pieces of one chunk (a contributor set of several ranges) travel as
      // one value: count each chunk once.
      std::vector<Interval> Chunks;
      for (const Piece &Pc : T.Pieces)
        Chunks.push_back(Pc.Chunks);
      for (const Interval &C : IntervalSet::of(std::move(Chunks)))
        B += S.chunkBytes(C);
      return B;
    }
    for (const Piece &Pc : T.Pieces) {
      uint64_t N = S.chunkBytes(Pc.Chunks);
      if (Kind == DataKind::Replicated || Kind == DataKind::Personalized)
        N *= static_cast<uint64_t>(Pc.Origins.size());
      if (Kind == DataKind::Personalized)
        N *= static_cast<uint64_t>(Pc.Dests.size());
      B += N;
    }
    return B;
  }

  bool structure(size_t SI, const Transfer &T) {
    struct Lazy {
      size_t SI;
      const Transfer &T;
      operator std::string() const { return transferWhere(SI, T); }
      std::string operator+(const std::string &Rest) const {
        return transferWhere(SI, T) + Rest;
      }
      std::string operator+(const char *Rest) const {
        return transferWhere(SI, T) + Rest;
      }
    } W{SI, T};
    if (T.Src < 0 || T.Src >= P || T.Dst < 0 || T.Dst >= P) {
      problem(W + "rank outside 0.." + std::to_string(P - 1));
      return false;
    }
    if (T.Src == T.Dst) {
      problem(W + "a rank sends to itself");
      return false;
    }
    if (Kind == DataKind::Signal) {
      if (T.Kind != TransferKind::Signal || !T.Pieces.empty() || T.Bytes)
        problem(W + "a barrier moves only signals without data");
      return true;
    }
    if (T.Kind == TransferKind::Signal) {
      problem(W + "a signal in a collective that moves data");
      return false;
    }
    if (T.Kind == TransferKind::Combine && Kind != DataKind::Reduction) {
      problem(W + "combine transfer in a collective without reduction");
      return false;
    }
    if ((T.From != 0 || T.Into != 1) &&
        (Kind != DataKind::Reduction || T.From > 1 || T.Into < 1 ||
         T.Into > 3)) {
      problem(
          W + "reads value " + std::to_string(T.From) + " into values " +
          std::to_string(T.Into) +
          ": only reductions keep two values (from 0 or 1, into 1, 2 or 3)");
      return false;
    }
    if (T.Pieces.empty()) {
      problem(W + "carries no data");
      return false;
    }
    for (const Piece &Pc : T.Pieces) {
      if (Pc.Origins.empty() || Pc.Dests.empty() || Pc.Chunks.empty() ||
          Pc.Origins.Lo < 0 || Pc.Origins.Hi > P || Pc.Dests.Lo < 0 ||
          Pc.Dests.Hi > P || Pc.Chunks.Lo < 0 || Pc.Chunks.Hi > K) {
        problem(W + "piece outside the data space (origins, dests in 0.." +
                std::to_string(P - 1) + ", chunks in 0.." +
                std::to_string(K - 1) + ")");
        return false;
      }
    }
    uint64_t Want = expectedBytes(T);
    if (T.Bytes != Want) {
      problem(W + "carries " + std::to_string(T.Bytes) +
              " bytes but its pieces make " + std::to_string(Want));
      return false;
    }
    return true;
  }

  struct Delivery {
    const Transfer *T;
    size_t Step;
  };

  void step(size_t SI, const Step &St) {
    // Ports (the counters are zero between steps).
    const unsigned Ports = portsPerStep(M);
    std::vector<const Transfer *> Valid;
    for (const Transfer &T : St.Transfers) {
      if (!structure(SI, T))
        continue;
      Valid.push_back(&T);
      if (++Sends[T.Src] == uint64_t(Ports) + 1)
        problem("step " + std::to_string(SI) + ": rank " +
                std::to_string(T.Src) + " sends more than " +
                std::to_string(Ports) + " message(s)");
      if (++Recvs[T.Dst] == uint64_t(Ports) + 1)
        problem("step " + std::to_string(SI) + ": rank " +
                std::to_string(T.Dst) + " receives more than " +
                std::to_string(Ports) + " message(s)");
    }
    for (const Transfer *T : Valid)
      Sends[T->Src] = Recvs[T->Dst] = 0;
    if (Kind == DataKind::Reduction) {
      // Sends read the values before the step, then the step's receives
      // update them. A large step none of whose sends reads what it
      // delivers (reduce-scatter-direct's one all-to-all of P (P - 1)
      // folds) is followed in batches, so that its flows, a few hundred
      // bytes a transfer, are not all held at once.
      const size_t Batch = Valid.size() > FlowBatch && readsNoDelivery(Valid, P)
                               ? FlowBatch
                               : Valid.size();
      for (size_t B = 0; B < Valid.size(); B += Batch) {
        const llvm::ArrayRef<const Transfer *> Part =
            llvm::ArrayRef<const Transfer *>(Valid).slice(
                B, std::min(Batch, Valid.size() - B));
        std::vector<TransferFlow> Flows =
            Flow ? Flow->step(Part) : ChunkFlow->step(Part);
        for (size_t I = 0; I < Part.size(); ++I)
          checkReductionSend(SI, *Part[I], Flows[I]);
        for (size_t I = 0; I < Part.size(); ++I)
          deliverReduction(SI, *Part[I], Flows[I]);
      }
      return;
    }
    // Sends use the state before the step.
    for (const Transfer *T : Valid)
      checkSend(SI, *T);
    // Then the step's deliveries.
    if (Kind == DataKind::Signal) {
      std::vector<std::vector<uint64_t>> Snap;
      for (const Transfer *T : Valid)
        Snap.push_back(Knows[T->Src]);
      for (size_t I = 0; I < Valid.size(); ++I) {
        auto &D = Knows[Valid[I]->Dst];
        for (size_t Wd = 0; Wd < D.size(); ++Wd)
          D[Wd] |= Snap[I][Wd];
        KnowTime[Valid[I]->Dst] =
            std::max(KnowTime[Valid[I]->Dst], Valid[I]->End);
      }
    } else {
      for (const Transfer *T : Valid)
        deliverData(SI, *T);
    }
  }

  /// Arrival time of an atom at rank \p R, or NaN when not held.
  double heldSince(int32_t R, int64_t Origin, int64_t Dest,
                   int64_t Chunk) const {
    if (initiallyHeld(R, Origin, Dest))
      return 0;
    if (FlatAtoms)
      return HeldFlat[static_cast<uint64_t>(R) * FlatAtoms + Chunk];
    auto It = Held[R].find(atomKey(Origin, Dest, Chunk));
    return It == Held[R].end() ? NAN : It->second;
  }

  void checkSend(size_t SI, const Transfer &T) {
    if (Kind == DataKind::Signal) {
      if (O.Timing && !std::isnan(T.Start) &&
          T.Start + 1e-9 < KnowTime[T.Src] - 1e-9 * std::fabs(KnowTime[T.Src]))
        problem(transferWhere(SI, T) + "starts at " + formatShort(T.Start) +
                " before the signals it forwards arrived (" +
                formatShort(KnowTime[T.Src]) + ")");
      return;
    }
    if (Dense) {
      if (!full())
        Dense->checkSend(SI, T, O.Timing, Problems);
      return;
    }
    if (HeldRuns) {
      checkSendRuns(SI, T);
      return;
    }
    forEachBlock(T, [&](const Piece &Pc, int64_t Or, int64_t De) {
      if (!atomExists(Or, De)) {
        problem(transferWhere(SI, T) + "sends data that does not exist in a " +
                collectiveName(S.Coll) + " (origin " + std::to_string(Or) +
                ")");
        return false;
      }
      for (int64_t C = Pc.Chunks.Lo; C < Pc.Chunks.Hi; ++C) {
        double Since = heldSince(T.Src, Or, De, C);
        if (std::isnan(Since)) {
          problem(transferWhere(SI, T) + "rank " + std::to_string(T.Src) +
                  " sends " + atomName(Or, De, C) + " before it holds it");
          return false;
        }
        if (O.Timing && !std::isnan(T.Start) &&
            startsBeforeReady(Since, T.Start)) {
          problem(transferWhere(SI, T) + "starts at " + formatShort(T.Start) +
                  " before " + atomName(Or, De, C) + " arrived (" +
                  formatShort(Since) + ")");
          return false;
        }
      }
      return true;
    });
  }

  /// Calls \p Fn(piece, origin, dest) for each block of \p T's pieces,
  /// origin-major; a replicated piece's once per origin (the dest axis does
  /// not split replicated data). Stops where \p Fn returns false.
  template <typename BlockFn>
  void forEachBlock(const Transfer &T, BlockFn Fn) const {
    for (const Piece &Pc : T.Pieces) {
      const int64_t DestHi = Kind == DataKind::Replicated
                                 ? std::min(Pc.Dests.Hi, Pc.Dests.Lo + 1)
                                 : Pc.Dests.Hi;
      for (int64_t Or = Pc.Origins.Lo; Or < Pc.Origins.Hi; ++Or)
        for (int64_t De = Pc.Dests.Lo; De < DestHi; ++De)
          if (!Fn(Pc, Or, De))
            return;
    }
  }

  /// checkSend on runs: the first atom, origin-major, that does not exist,
  /// is not held or is not there yet, as the atom loop would find it.
  void checkSendRuns(size_t SI, const Transfer &T) {
    const bool Timed = O.Timing && !std::isnan(T.Start);
    // Origins that exist: all, or the root alone.
    const bool OneOrigin = Traits.Origins != RankScope::All;
    for (const Piece &Pc : T.Pieces) {
      auto Missing = [&](int64_t Or) {
        problem(transferWhere(SI, T) + "sends data that does not exist in a " +
                collectiveName(S.Coll) + " (origin " + std::to_string(Or) +
                ")");
      };
      if (OneOrigin && Pc.Origins.Lo != S.Root) {
        Missing(Pc.Origins.Lo);
        return;
      }
      const Interval Os =
          OneOrigin
              ? Interval{S.Root, std::min<int64_t>(Pc.Origins.Hi, S.Root + 1)}
              : Pc.Origins;
      // Held whole and no later than the send: nothing to find atom by
      // atom (HeldFlow::holdsAll; startsBeforeReady grows with the time).
      double Latest = 0;
      bool Ok = (HeldRuns->holdsAll(T.Src, Os, Pc.Chunks, Latest) &&
                 (!Timed || !startsBeforeReady(Latest, T.Start))) ||
                HeldRuns->visit(
                    T.Src, Os, Pc.Chunks,
                    [&](Interval Or, Interval Cs, const Arrival &A) {
                      if (!A.Held) {
                        problem(transferWhere(SI, T) + "rank " +
                                std::to_string(T.Src) + " sends " +
                                atomName(Or.Lo, Pc.Dests.Lo, Cs.Lo) +
                                " before it holds it");
                        return false;
                      }
                      if (Timed && startsBeforeReady(A.Since, T.Start)) {
                        problem(transferWhere(SI, T) + "starts at " +
                                formatShort(T.Start) + " before " +
                                atomName(Or.Lo, Pc.Dests.Lo, Cs.Lo) +
                                " arrived (" + formatShort(A.Since) + ")");
                        return false;
                      }
                      return true;
                    });
      if (!Ok)
        return;
      // Past the root: origins that do not exist.
      if (OneOrigin && Pc.Origins.Hi > S.Root + 1) {
        Missing(S.Root + 1);
        return;
      }
    }
  }

  /// A reduction transfer sends what its sender's value holds, once ready.
  void checkReductionSend(size_t SI, const Transfer &T, const TransferFlow &F) {
    const bool Timed = O.Timing && !std::isnan(T.Start);
    auto NotReady = [&](int64_t C, double Ready) {
      problem(transferWhere(SI, T) + "starts at " + formatShort(T.Start) +
              " before chunk " + std::to_string(C) + " is ready (" +
              formatShort(Ready) + ")");
    };
    auto Stale = [&](int64_t C) {
      problem(transferWhere(SI, T) + "sends chunk " + std::to_string(C) +
              (T.From ? " of value 1" : "") + " combined over ranks " +
              F.Sent.Carried.str() + " but rank " + std::to_string(T.Src) +
              " holds it combined over " + F.Sent.Held.str());
    };
    for (const ChunkRun &Run : F.Runs) {
      if (Flow) {
        // The chunks before the stale one, if the run holds it, are checked
        // for time first, as chunk by chunk.
        const bool StaleHere = F.Sent && Run.Chunks.contains(F.Sent.Chunk);
        Interval Before{Run.Chunks.Lo,
                        StaleHere ? F.Sent.Chunk : Run.Chunks.Hi};
        bool Ok = !Timed || AccRuns[T.From][T.Src].visit(
                                Before, [&](Interval Cs, const double &Ready) {
                                  if (!startsBeforeReady(Ready, T.Start))
                                    return true;
                                  NotReady(Cs.Lo, Ready);
                                  return false;
                                });
        if (!Ok)
          return;
        if (StaleHere) {
          Stale(F.Sent.Chunk);
          return;
        }
        continue;
      }
      for (int64_t C = Run.Chunks.Lo; C < Run.Chunks.Hi; ++C) {
        if (F.Sent && F.Sent.Chunk == C) {
          Stale(C);
          return;
        }
        if (!Timed)
          continue;
        double Ready =
            AccTime[T.From].empty()
                ? 0.0
                : AccTime[T.From][static_cast<size_t>(T.Src) * K + C];
        if (startsBeforeReady(Ready, T.Start)) {
          NotReady(C, Ready);
          return;
        }
      }
    }
  }

  std::string atomName(int64_t Or, int64_t De, int64_t C) const {
    std::string N;
    if (Kind == DataKind::Personalized)
      N = "block M[" + std::to_string(Or) + "][" + std::to_string(De) + "]";
    else if (Traits.Origins == RankScope::All)
      N = "the block of rank " + std::to_string(Or);
    else
      N = "the message";
    if (K > 1)
      N += " chunk " + std::to_string(C);
    return N;
  }

  void deliverData(size_t SI, const Transfer &T) {
    if (Dense) {
      Dense->deliver(SI, T);
      return;
    }
    if (HeldRuns) {
      deliverRuns(SI, T);
      return;
    }
    forEachBlock(T, [&](const Piece &Pc, int64_t Or, int64_t De) {
      if (!atomExists(Or, De))
        return true; // checkSend reported it; it does not arrive
      for (int64_t C = Pc.Chunks.Lo; C < Pc.Chunks.Hi; ++C) {
        if (!std::isnan(heldSince(T.Dst, Or, De, C))) {
          problem(transferWhere(SI, T) + "rank " + std::to_string(T.Dst) +
                  " receives " + atomName(Or, De, C) + " a second time");
          return false;
        }
        double When = std::isnan(T.End) ? 0 : T.End;
        if (FlatAtoms)
          HeldFlat[static_cast<uint64_t>(T.Dst) * FlatAtoms + C] = When;
        else
          Held[T.Dst][atomKey(Or, De, C)] = When;
      }
      return true;
    });
  }

  /// deliverData on runs: the atoms a piece brings join the receiver's;
  /// one held already is a problem, and the atoms before it (origin-major)
  /// are delivered, as the atom loop delivers them.
  void deliverRuns(size_t SI, const Transfer &T) {
    const double When = std::isnan(T.End) ? 0 : T.End;
    for (const Piece &Pc : T.Pieces) {
      // Only data that exists arrives (checkSend reported the rest).
      Interval Os = Pc.Origins;
      if (Traits.Origins != RankScope::All)
        Os = {std::max<int64_t>(Os.Lo, S.Root),
              std::min<int64_t>(Os.Hi, S.Root + 1)};
      int64_t DupOr = -1, DupC = -1;
      HeldRuns->visit(T.Dst, Os, Pc.Chunks,
                      [&](Interval Or, Interval Cs, const Arrival &A) {
                        if (!A.Held)
                          return true;
                        DupOr = Or.Lo;
                        DupC = Cs.Lo;
                        return false;
                      });
      if (DupOr < 0) {
        HeldRuns->deliver(T.Dst, Os, Pc.Chunks, When);
        continue;
      }
      HeldRuns->deliver(T.Dst, {Os.Lo, DupOr}, Pc.Chunks, When);
      HeldRuns->deliver(T.Dst, {DupOr, DupOr + 1}, {Pc.Chunks.Lo, DupC}, When);
      problem(transferWhere(SI, T) + "rank " + std::to_string(T.Dst) +
              " receives " + atomName(DupOr, Pc.Dests.Lo, DupC) +
              " a second time");
      return;
    }
  }

  /// The receiver's values take the times of what the flow stored or
  /// folded into them; refused updates are problems.
  void deliverReduction(size_t SI, const Transfer &T, const TransferFlow &F) {
    const double When = std::isnan(T.End) ? 0 : T.End;
    for (int V = 0; V < 2; ++V) {
      if (!(T.Into >> V & 1))
        continue;
      for (const ChunkRun &Run : F.Runs) {
        const Fold How = Run.Into[V];
        if (Flow && How == Fold::Store)
          AccRuns[V][T.Dst].assign(Run.Chunks, When);
        else if (Flow && (How == Fold::Left || How == Fold::Right))
          AccRuns[V][T.Dst].update(Run.Chunks, [&](Interval, double &Time) {
            Time = std::max(Time, When);
          });
        for (int64_t C = Run.Chunks.Lo; !Flow && C < Run.Chunks.Hi; ++C) {
          if (AccTime[V].empty())
            AccTime[V].assign(static_cast<size_t>(P) * K, 0.0);
          double &Time = AccTime[V][static_cast<size_t>(T.Dst) * K + C];
          if (How == Fold::Store)
            Time = When;
          else if (How == Fold::Left || How == Fold::Right)
            Time = std::max(Time, When);
        }
        const FlowConflict &R = F.Refused[V];
        if (How == Fold::Twice) {
          problem(transferWhere(SI, T) + "combines ranks " + R.Carried.str() +
                  " into chunk " + std::to_string(R.Chunk) + " of rank " +
                  std::to_string(T.Dst) + " which already holds " +
                  R.Held.str() + ": a contribution would count twice");
          break;
        }
        if (How == Fold::Unordered) {
          problem(transferWhere(SI, T) + "combines ranks " + R.Carried.str() +
                  " with " + R.Held.str() +
                  ": a non-commutative operator needs adjacent ranges");
          break;
        }
      }
    }
  }

  void post() {
    switch (Kind) {
    case DataKind::Replicated:
    case DataKind::Personalized: {
      if (Dense) {
        Dense->finish(O.MaxProblems, Problems);
        return;
      }
      // Only origins whose data exists: one for bcast, multicast and scatter.
      bool OneOrigin = Traits.Origins == RankScope::Root;
      int64_t OLo = OneOrigin ? S.Root : 0, OHi = OneOrigin ? S.Root + 1 : P;
      if (HeldRuns) {
        postRuns(OLo, OHi);
        return;
      }
      for (int32_t R = 0; R < P && !full(); ++R) {
        int64_t DLo = Kind == DataKind::Personalized ? R : 0;
        if (Traits.Results == RankScope::Root && R != S.Root)
          continue; // gather
        for (int64_t Or = OLo; Or < OHi && !full(); ++Or)
          for (int64_t C = 0; C < K; ++C)
            if (std::isnan(heldSince(R, Or, DLo, C))) {
              problem("at the end rank " + std::to_string(R) + " lacks " +
                      atomName(Or, DLo, C));
              break;
            }
      }
      return;
    }
    case DataKind::Reduction:
      for (int32_t R = 0; R < P && !full(); ++R) {
        IntervalSet Want;
        const int V = Traits.ResultApart ? 1 : 0;
        // The chunks rank R must hold the result of.
        int64_t Lo = 0, Hi = K;
        switch (S.Coll) {
        case Collective::Reduce:
          if (R != S.Root)
            continue;
          Want = IntervalSet({0, P});
          break;
        case Collective::Allreduce:
          Want = IntervalSet({0, P});
          break;
        case Collective::ReduceScatter:
          // Rank r's block (chunk r) reduced over all ranks; the others'
          // blocks are its scratch.
          Want = IntervalSet({0, P});
          Lo = R;
          Hi = R + 1;
          break;
        case Collective::Scan:
          Want = IntervalSet({0, R + 1});
          break;
        case Collective::Exscan:
          // Rank 0's result is undefined (as in MPI); rank r > 0 holds the
          // combination of ranks 0..r-1 as its result, value 1.
          if (R == 0)
            continue;
          Want = IntervalSet({0, R});
          break;
        default:
          problem(std::string("verification of ") + collectiveName(S.Coll) +
                  " is not supported");
          return;
        }
        auto Wrong = [&](int64_t C, const IntervalSet &Got) {
          problem("at the end rank " + std::to_string(R) + " holds chunk " +
                  std::to_string(C) + (V ? " of its result" : "") +
                  " combined over " + Got.str() + ", expected " + Want.str());
        };
        if (Flow) {
          Flow->runs(V, R).visit({Lo, Hi},
                                 [&](Interval Cs, const IntervalSet &Got) {
                                   if (Got == Want)
                                     return true;
                                   Wrong(Cs.Lo, Got);
                                   return false;
                                 });
          continue;
        }
        for (int64_t C = Lo; C < Hi; ++C)
          if (ChunkFlow->value(V, R, C) != Want) {
            Wrong(C, ChunkFlow->value(V, R, C));
            break;
          }
      }
      return;
    case DataKind::Signal:
      for (int32_t R = 0; R < P && !full(); ++R)
        for (int32_t X = 0; X < P; ++X)
          if (!(Knows[R][X / 64] >> (X % 64) & 1)) {
            problem("rank " + std::to_string(R) +
                    " may leave the barrier before rank " + std::to_string(X) +
                    " arrived");
            break;
          }
      return;
    }
  }

  /// post for replicated data on runs: per rank, the first chunk it lacks of
  /// each origin, as the atom loop reports them.
  void postRuns(int64_t OLo, int64_t OHi) {
    for (int32_t R = 0; R < P && !full(); ++R) {
      if (Traits.Results == RankScope::Root && R != S.Root)
        continue;
      // Origin -> its first chunk missing; origins in one run lack alike.
      int64_t Reported = OLo;
      HeldRuns->visit(R, {OLo, OHi}, {0, K},
                      [&](Interval Or, Interval Cs, const Arrival &A) {
                        if (A.Held || Or.Hi <= Reported)
                          return true;
                        for (int64_t X = std::max(Or.Lo, Reported);
                             X < Or.Hi && !full(); ++X)
                          problem("at the end rank " + std::to_string(R) +
                                  " lacks " + atomName(X, 0, Cs.Lo));
                        Reported = Or.Hi;
                        return !full();
                      });
    }
  }

  void timing() {
    const unsigned Ports = std::max(1u, M.Ports);
    // (rank, time, t_hold of that transfer), sorted by rank then time.
    struct Event {
      int32_t Rank;
      double Time, Hold;
      bool operator<(const Event &O) const {
        return Rank != O.Rank ? Rank < O.Rank : Time < O.Time;
      }
    };
    std::vector<uint8_t> Scratch(P, 0);
    std::vector<SendRecvFactor> Factors;
    // Calls Fn(T, TransferTime) for every timed transfer, in order.
    auto forEachTimed = [&](auto &&Fn) {
      for (size_t SI = 0; SI < S.Steps.size(); ++SI) {
        sendRecvFactors(S.Steps[SI], M, Scratch, Factors);
        for (size_t TI = 0; TI < S.Steps[SI].Transfers.size(); ++TI) {
          const Transfer &T = S.Steps[SI].Transfers[TI];
          if (std::isnan(T.Start) || std::isnan(T.End))
            continue;
          if (!Fn(SI, T, transferTime(S, M, T, Factors[TI])))
            return;
        }
      }
    };
    forEachTimed([&](size_t SI, const Transfer &T, const TransferTime &TT) {
      double Want = TT.End;
      // Times far larger than a duration carry it with an error of their
      // own ulp: tolerate that (1e-12 of the time) on top of 1e-9.
      if (std::fabs(T.End - T.Start - Want) >
          1e-9 * std::max(1.0, Want) + 1e-12 * std::fabs(T.End)) {
        problem(transferWhere(SI, T) + "ends at " + formatShort(T.End) +
                ", expected start " + formatShort(T.Start) + " + t_end " +
                formatShort(Want));
        if (full())
          return false;
      }
      return true;
    });
    if (full())
      return;
    // One side's events (sends by sender, receives by receiver, at the start
    // of their port intervals), grouped by rank in schedule order in O(n + P)
    // (a counting sort: schedules of millions of transfers; one side at a
    // time, so that the events take 24 bytes a transfer), then each rank's
    // by time.
    auto events = [&](bool Receives) {
      auto rankOf = [&](const Transfer &T) { return Receives ? T.Dst : T.Src; };
      auto eventOf = [&](const Transfer &T, const TransferTime &TT) {
        return Receives ? Event{T.Dst, T.End - TT.Hold, TT.Hold}
                        : Event{T.Src, T.Start, TT.Hold};
      };
      std::vector<size_t> First(static_cast<size_t>(P) + 1, 0);
      bool InRange = true;
      forEachTimed([&](size_t, const Transfer &T, const TransferTime &) {
        const int32_t R = rankOf(T);
        InRange = R >= 0 && R < P;
        if (InRange)
          ++First[R + 1];
        return InRange;
      });
      std::vector<Event> V;
      if (!InRange) {
        forEachTimed([&](size_t, const Transfer &T, const TransferTime &TT) {
          V.push_back(eventOf(T, TT));
          return true;
        });
        std::sort(V.begin(), V.end());
        return V;
      }
      for (int32_t R = 0; R < P; ++R)
        First[R + 1] += First[R];
      V.resize(First[P]);
      std::vector<size_t> Next(First.begin(), First.end() - 1);
      forEachTimed([&](size_t, const Transfer &T, const TransferTime &TT) {
        V[Next[rankOf(T)]++] = eventOf(T, TT);
        return true;
      });
      for (int32_t R = 0; R < P; ++R)
        if (First[R + 1] - First[R] > 1)
          std::sort(V.begin() + First[R], V.begin() + First[R + 1]);
      return V;
    };
    // A send occupies a port for [start, start + t_hold), a receive for
    // (end - t_hold, end] (the cost pass spaces sends by the earlier send's
    // t_hold, receives by the later receive's). The ports can carry them
    // all iff at no time more than `ports` of a rank's intervals overlap
    // (interval graphs are coloured by their largest clique): a sweep by
    // interval start with the open intervals' ends in a min-heap.
    auto Overlaps = [&](const char *What, bool Receives) {
      const std::vector<Event> V = events(Receives);
      using Open = std::pair<double, size_t>; // (tolerant end, index in V)
      std::priority_queue<Open, std::vector<Open>, std::greater<Open>> Heap;
      for (size_t I = 0; I < V.size() && !full(); ++I) {
        const Event &B = V[I];
        if (I > 0 && V[I - 1].Rank != B.Rank)
          Heap = {};
        while (!Heap.empty() && Heap.top().first <= B.Time)
          Heap.pop();
        if (Heap.size() >= Ports) {
          const Event &A = V[Heap.top().second];
          // Times as the events happened: send starts, receive ends.
          double TA = A.Time + (Receives ? A.Hold : 0),
                 TB = B.Time + (Receives ? B.Hold : 0);
          const Event &Later = TB >= TA ? B : A;
          double Hold = Receives ? Later.Hold : A.Hold;
          std::string Msg = "rank " + std::to_string(B.Rank) + " " + What +
                            " at " + formatShort(std::min(TA, TB)) + " and " +
                            formatShort(std::max(TA, TB)) +
                            ", less than t_hold = " + formatShort(Hold) +
                            " apart";
          if (Ports > 1)
            Msg += " (and all " + std::to_string(Ports) + " ports busy)";
          problem(Msg);
          // One report per rank.
          while (I + 1 < V.size() && V[I + 1].Rank == B.Rank)
            ++I;
          continue;
        }
        Heap.push({B.Time + B.Hold - 1e-9 * std::max(1.0, B.Hold) -
                       1e-12 * std::fabs(B.Time),
                   I});
      }
    };
    Overlaps("starts sends", false);
    Overlaps("completes receives", true);
  }

  const Schedule &S;
  const Machine &M;
  const VerifyOptions &O;
  const int32_t P;
  const int64_t K;
  const CollectiveTraits &Traits;
  const DataKind Kind;
  /// Replicated data and reductions followed as runs (chosen by
  /// affordable()).
  bool Runs = false;
  /// Under Tracking::Auto, replicated data and reductions are followed as
  /// runs when their pieces carry more than this many atoms each on average.
  static constexpr double RunsAbove = 4;
  std::vector<std::string> Problems;
};

} // namespace

unsigned portsPerStep(const Machine &M) {
  return M.Net ? std::numeric_limits<unsigned>::max() : M.Ports;
}

std::vector<std::string> verifySchedule(const Schedule &S, const Machine &M,
                                        const VerifyOptions &Opts) {
  return Verifier(S, M, Opts).run();
}

llvm::Error verify(const Schedule &S, const Machine &M,
                   const VerifyOptions &Opts) {
  auto Problems = verifySchedule(S, M, Opts);
  if (Problems.empty())
    return llvm::Error::success();
  std::string Msg = "the " + S.Algorithm + " " + collectiveName(S.Coll) +
                    " schedule fails verification:";
  for (const std::string &P : Problems)
    Msg += "\n  " + P;
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

} // namespace collc
