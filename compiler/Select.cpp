#include "compiler/Select.h"

#include "ir/Diagnostic.h"

#include "llvm/ADT/Hashing.h"

#include <algorithm>

#include <map>
#include <set>

namespace collc {

namespace {

struct Pick {
  std::string Algorithm;
  int64_t Segments = 1;
  double Time = 0;
};

/// What makes a candidate's time jump as the size grows, under a network:
/// its segment count, its transfers (who sends to whom) and the protocol
/// band and eager/rendezvous mode each message falls in. Between two sizes
/// of one shape a candidate's time moves smoothly.
using Shape = uint64_t;
/// A candidate that is not one at that size (it does not apply, or its
/// builder failed).
constexpr Shape NoShape = 0;

Shape shapeOf(const Schedule &S, const Network &N) {
  llvm::hash_code H = llvm::hash_combine(S.NumChunks, S.Steps.size());
  // Which bands and modes the messages use, not which message uses which:
  // the segments of a message differ by one element, so as the size grows
  // they cross a band edge one by one; each such step moves the time by one
  // segment's share only, and the stretch is bounded by the sizes where the
  // first and the last segment cross.
  uint64_t Used = 0;
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers) {
      const ProtocolBand *Band = &N.band(T.Bytes + N.EnvelopeBytes);
      const ptrdiff_t BandIndex = N.Bands.empty() ? 0 : Band - N.Bands.data();
      Used |= uint64_t(1) << (2 * std::min<ptrdiff_t>(BandIndex, 30) +
                              N.rendezvous(T.Bytes));
      H = llvm::hash_combine(H, T.Src, T.Dst, T.Bytes == 0);
    }
  const Shape Sh = static_cast<Shape>(llvm::hash_combine(H, Used));
  return Sh == NoShape ? 1 : Sh;
}

/// The auto policy at one size (in units of one element), each size asked
/// once. On a machine with a network it also keeps every candidate's shape.
class Selector {
public:
  Selector(const Machine &M, const Request &Base, const CostJudge &Judge,
           const ChooseOptions &Opts, uint64_t Unit, Pipeline *P)
      : M(M), Base(Base), Judge(Judge), Opts(Opts), Unit(Unit),
        Pl(P ? *P : Quiet) {}

  llvm::Expected<Pick> at(uint64_t U) {
    if (auto It = Picks.find(U); It != Picks.end())
      return It->second;
    Request R = request(U);
    ChooseOptions O = Opts;
    std::map<const AlgorithmInfo *, Shape> *Sh = nullptr;
    if (M.Net) {
      Sh = &Shapes[U];
      for (const AlgorithmInfo *A : candidates(R))
        (*Sh)[A] = NoShape;
      O.OnCandidate = [&](const AlgorithmInfo &A, const Schedule &S, Score Sc) {
        (*Sh)[&A] = shapeOf(S, *M.Net);
        Times[U][&A] = Sc.Time;
        if (Opts.OnCandidate)
          Opts.OnCandidate(A, S, Sc);
      };
    }
    auto S = Pl.run("select: " + llvm::Twine(R.Bytes) + " bytes",
                    [&] { return chooseSchedule(M, R, Judge, Pl, O); });
    if (!S)
      return S.takeError();
    Pick Result{S->Algorithm, S->NumChunks, S->Makespan};
    Picks.emplace(U, Result);
    return Result;
  }

  /// Candidate \p A's shape at \p U, built alone (not costed).
  Shape shape(const AlgorithmInfo *A, uint64_t U) {
    if (auto It = Shapes.find(U); It != Shapes.end())
      if (auto Jt = It->second.find(A); Jt != It->second.end())
        return Jt->second;
    if (auto It = Alone.find({A, U}); It != Alone.end())
      return It->second;
    Request R = request(U);
    Shape Sh = NoShape;
    for (const AlgorithmInfo *C : candidates(R))
      if (C == A) {
        auto S = Pl.run("select: shape of " + llvm::Twine(A->Name) + " at " +
                            llvm::Twine(R.Bytes) + " bytes",
                        [&] { return A->Build(M, R, Pl); });
        if (S)
          Sh = shapeOf(*S, *M.Net);
        else
          llvm::consumeError(S.takeError());
      }
    Alone[{A, U}] = Sh;
    return Sh;
  }

  /// The candidates at sizes \p A and \p B (asked with at()) whose shapes
  /// differ and that come within Reach of the winner's time at either size,
  /// the winners at A and B last. None when one candidate wins at both and
  /// no other comes within Reach of it at either: then the winner's own
  /// shape changes inside do not matter either (a rival would have to gain
  /// more than Reach on it, as a candidate beyond Reach would have to).
  std::vector<const AlgorithmInfo *> reshaped(uint64_t A, uint64_t B) {
    if (!contested(A, B))
      return {};
    const std::string &WA = Picks.at(A).Algorithm, &WB = Picks.at(B).Algorithm;
    std::vector<const AlgorithmInfo *> Out;
    const auto &SA = Shapes[A], &SB = Shapes[B];
    std::set<const AlgorithmInfo *> All;
    for (const auto &KV : SA)
      All.insert(KV.first);
    for (const auto &KV : SB)
      All.insert(KV.first);
    for (const AlgorithmInfo *C : All) {
      auto IA = SA.find(C), IB = SB.find(C);
      if ((IA == SA.end() ? NoShape : IA->second) !=
              (IB == SB.end() ? NoShape : IB->second) &&
          (near(C, A) || near(C, B)) && Located[C] < MaxShapeChanges)
        Out.push_back(C);
    }
    // A rival's changes first: in the stretches between them the rivals
    // may fall out of Reach, and the winner's changes need no search there.
    std::stable_partition(Out.begin(), Out.end(), [&](const AlgorithmInfo *C) {
      return C->Name != WA && C->Name != WB;
    });
    return Out;
  }

  /// Whether the stretch between the asked sizes \p A and \p B may hold
  /// another winner than its ends': they differ, or a rival comes within
  /// Reach of the winner at either end.
  bool contested(uint64_t A, uint64_t B) {
    return Picks.at(A).Algorithm != Picks.at(B).Algorithm || rivalled(A) ||
           rivalled(B);
  }

  /// Counts \p N more changes of \p C's shape located.
  void located(const AlgorithmInfo *C, size_t N) { Located[C] += N; }

  const std::map<uint64_t, Pick> &picks() const { return Picks; }
  /// The sizes asked so far, in increasing order.
  std::vector<uint64_t> asked() const {
    std::vector<uint64_t> Out;
    for (const auto &KV : Picks)
      Out.push_back(KV.first);
    return Out;
  }

private:
  /// A candidate slower than the winner by more than this factor at both
  /// ends of a stretch is taken not to win inside it, whatever its shape
  /// does there: a change of band moves one message's time by at most about
  /// a fifth downwards under SMPI's factors (the latency factor falls from
  /// 1.95 to 1.61 at 1426 bytes, where the bandwidth factor rises from 0.34
  /// to 0.61).
  static constexpr double Reach = 1.5;
  /// Changes of one candidate's shape located at most: a candidate that
  /// searches many forms and segment counts can change shape every few
  /// kilobytes, each change costing a bisection of builds and two asks of
  /// the policy; past this many its changes are no longer located, and the
  /// stretches it makes are settled by the winners at their ends and the
  /// checks at their middles (refineAll), as any stretch of one shape.
  static constexpr size_t MaxShapeChanges = 16;
  std::map<const AlgorithmInfo *, size_t> Located;

  /// Whether a candidate other than the winner at \p U comes within Reach
  /// of its time there.
  bool rivalled(uint64_t U) {
    const Pick &W = Picks.at(U);
    for (const auto &[C, Time] : Times[U])
      if (C->Name != W.Algorithm && Time <= Reach * W.Time)
        return true;
    return false;
  }

  bool near(const AlgorithmInfo *C, uint64_t U) {
    auto It = Times[U].find(C);
    return It != Times[U].end() && It->second <= Reach * Picks.at(U).Time;
  }

  Request request(uint64_t U) const {
    Request R = Base;
    R.Bytes = U * Unit;
    R.Algorithm = "auto";
    return R;
  }

  std::vector<const AlgorithmInfo *> candidates(const Request &R) const {
    std::vector<const AlgorithmInfo *> Out;
    for (const AlgorithmInfo *A : autoCandidates(M, R))
      if (!Opts.Filter || Opts.Filter(*A))
        Out.push_back(A);
    return Out;
  }

  const Machine &M;
  const Request &Base;
  const CostJudge &Judge;
  const ChooseOptions &Opts;
  const uint64_t Unit;
  std::map<uint64_t, Pick> Picks;
  std::map<uint64_t, std::map<const AlgorithmInfo *, Shape>> Shapes;
  std::map<uint64_t, std::map<const AlgorithmInfo *, double>> Times;
  std::map<std::pair<const AlgorithmInfo *, uint64_t>, Shape> Alone;
  PipelineOptions QuietOptions;
  Pipeline Quiet{QuietOptions};
  Pipeline &Pl;
};

/// The winners at sizes \p A and \p B (both asked, A first).
llvm::Expected<std::pair<std::string, std::string>>
winners(Selector &Sel, uint64_t A, uint64_t B) {
  auto PA = Sel.at(A), PB = Sel.at(B);
  if (!PA)
    return PA.takeError();
  if (!PB)
    return PB.takeError();
  return std::make_pair(PA->Algorithm, PB->Algorithm);
}

/// Bisects (A, B), whose ends differ in winner, for the first size where
/// the winner changes; asks only sizes in between.
llvm::Error bisectWinner(Selector &Sel, uint64_t A, uint64_t B) {
  auto Ends = winners(Sel, A, B);
  if (!Ends)
    return Ends.takeError();
  auto [WA, WB] = *Ends;
  while (WA != WB && B - A > 1) {
    uint64_t Mid = A + (B - A) / 2;
    auto PM = Sel.at(Mid);
    if (!PM)
      return PM.takeError();
    if (PM->Algorithm == WA)
      A = Mid;
    else {
      B = Mid;
      WB = PM->Algorithm;
    }
  }
  return llvm::Error::success();
}

/// Adds to \p Out every size in (A, B] at which candidate \p C's shape
/// differs from the size before, by bisection on C built alone (assuming a
/// shape, once left, does not come back between two sizes that share it).
void shapeChanges(Selector &Sel, const AlgorithmInfo *C, uint64_t A, uint64_t B,
                  std::set<uint64_t> &Out) {
  if (Sel.shape(C, A) == Sel.shape(C, B))
    return;
  if (B - A == 1) {
    Out.insert(B);
    return;
  }
  uint64_t Mid = A + (B - A) / 2;
  shapeChanges(Sel, C, A, Mid, Out);
  shapeChanges(Sel, C, Mid, B, Out);
}

/// Under a network: makes every pair of neighbouring sizes asked in
/// [A, B] either share every candidate's shape and the winner, or be
/// adjacent sizes. Where a candidate's shape changes, both sides of the
/// change are asked; between sizes where all shapes agree and the winners
/// differ, the winner's change is bisected.
llvm::Error refine(Selector &Sel, uint64_t A, uint64_t B) {
  // Both ends are asked, adjacent ones too: a shape change's sizes are the
  // ends of the stretches it makes, and a size never asked would be in no
  // band.
  auto Ends = winners(Sel, A, B);
  if (!Ends)
    return Ends.takeError();
  if (B - A <= 1)
    return llvm::Error::success();
  std::vector<const AlgorithmInfo *> Changed = Sel.reshaped(A, B);
  if (Changed.empty())
    return Ends->first == Ends->second ? llvm::Error::success()
                                       : bisectWinner(Sel, A, B);
  std::set<uint64_t> Edges;
  shapeChanges(Sel, Changed.front(), A, B, Edges);
  Sel.located(Changed.front(), Edges.size());
  if (Edges.empty()) // C's shape is NoShape at one end only in at(): split.
    Edges.insert(A + (B - A) / 2);
  std::vector<uint64_t> Points{A};
  for (uint64_t E : Edges) {
    if (E - 1 > Points.back())
      Points.push_back(E - 1);
    if (E > Points.back() && E < B)
      Points.push_back(E);
  }
  Points.push_back(B);
  for (size_t I = 0; I + 1 < Points.size(); ++I)
    if (llvm::Error E = refine(Sel, Points[I], Points[I + 1]))
      return E;
  return llvm::Error::success();
}

/// refine() between every two neighbouring sizes asked so far.
llvm::Error refineAll(Selector &Sel) {
  const std::vector<uint64_t> Asked = Sel.asked();
  for (size_t I = 0; I + 1 < Asked.size(); ++I)
    if (llvm::Error E = refine(Sel, Asked[I], Asked[I + 1]))
      return E;
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::pair<uint64_t, uint64_t>>
elementRange(uint64_t Lo, uint64_t Hi, const std::string &Datatype) {
  const uint64_t Unit = elementBytes(Datatype);
  const uint64_t ULo = Lo / Unit + (Lo % Unit != 0), UHi = Hi / Unit;
  if (ULo > UHi)
    return error("--bytes-range: no multiple of %llu (the size of %s) in "
                 "[%llu, %llu]",
                 static_cast<unsigned long long>(Unit), Datatype.c_str(),
                 static_cast<unsigned long long>(Lo),
                 static_cast<unsigned long long>(Hi));
  return std::make_pair(ULo, UHi);
}

llvm::Expected<Selection> selectBands(const Machine &M, const Request &Base,
                                      uint64_t Lo, uint64_t Hi,
                                      const CostJudge &Judge,
                                      const ChooseOptions &Opts, Pipeline *P) {
  // Reductions take whole elements: work in units of one element.
  const uint64_t Unit = elementBytes(Base.Datatype);
  auto Units = elementRange(Lo, Hi, Base.Datatype);
  if (!Units)
    return Units.takeError();
  const uint64_t ULo = Units->first, UHi = Units->second;
  Selector Sel(M, Base, Judge, Opts, Unit, P);
  std::vector<AlgorithmBand> Bands;
  auto Add = [&](uint64_t U, const Pick &P) {
    if (Bands.empty() || Bands.back().Algorithm != P.Algorithm) {
      Bands.push_back({{U * Unit, U * Unit},
                       P.Algorithm,
                       P.Segments,
                       P.Segments,
                       P.Time,
                       P.Time});
    } else {
      Bands.back().Hi = U * Unit;
      Bands.back().SegmentsAtHi = P.Segments;
      Bands.back().TimeAtHi = P.Time;
    }
  };
  std::set<uint64_t> Samples{ULo, UHi};
  for (uint64_t X = 1; X <= UHi && X < (uint64_t(1) << 62); X *= 2)
    if (X > ULo)
      Samples.insert(X);
  if (!M.Net) {
    // The model's times are smooth between powers of two: one change of
    // winner per pair of samples, located by bisection.
    auto First = Sel.at(ULo);
    if (!First)
      return First.takeError();
    Pick Prev = *First;
    Add(ULo, Prev);
    uint64_t PrevU = ULo;
    for (uint64_t U : Samples) {
      if (U == ULo)
        continue;
      auto Cur = Sel.at(U);
      if (!Cur)
        return Cur.takeError();
      uint64_t A = PrevU, B = U;
      Pick PA = Prev, PB = *Cur;
      while (PA.Algorithm != PB.Algorithm && B - A > 1) {
        uint64_t Mid = A + (B - A) / 2;
        auto PM = Sel.at(Mid);
        if (!PM)
          return PM.takeError();
        if (PM->Algorithm == PA.Algorithm) {
          A = Mid;
          PA = *PM;
        } else {
          B = Mid;
          PB = *PM;
        }
      }
      Add(A, PA);
      Add(B, PB);
      if (B != U)
        Add(U, *Cur);
      Prev = *Cur;
      PrevU = U;
    }
    return Selection{Base, Judge.Description, std::move(Bands)};
  }

  // Under a network a candidate's time jumps where one of its messages
  // changes protocol band or mode, or its segment count changes, so the
  // winner may change anywhere. Ask the sizes where an unsegmented message
  // changes band or mode too, then refine between every two sizes asked,
  // then check inside each stretch between them (a winner may change and
  // change back between two sizes of one shape), until nothing new turns
  // up.
  auto Edge = [&](uint64_t Bytes) {
    for (uint64_t U : {Bytes / Unit, (Bytes + Unit - 1) / Unit})
      if (U > ULo && U < UHi)
        Samples.insert(U);
  };
  for (const ProtocolBand &B : M.Net->Bands)
    if (B.MinBytes > M.Net->EnvelopeBytes) {
      Edge(B.MinBytes - M.Net->EnvelopeBytes - 1);
      Edge(B.MinBytes - M.Net->EnvelopeBytes);
    }
  Edge(M.Net->RendezvousBytes - 1);
  Edge(M.Net->RendezvousBytes);
  for (uint64_t U : Samples)
    if (auto P = Sel.at(U); !P)
      return P.takeError();
  std::set<std::pair<uint64_t, uint64_t>> Checked;
  for (int Round = 0; Round < 8; ++Round) {
    const size_t Before = Sel.picks().size();
    if (llvm::Error E = refineAll(Sel))
      return E;
    const std::vector<uint64_t> Asked = Sel.asked();
    for (size_t I = 0; I + 1 < Asked.size(); ++I) {
      const uint64_t A = Asked[I], B = Asked[I + 1];
      if (B - A <= 2 || !Checked.insert({A, B}).second || !Sel.contested(A, B))
        continue;
      const uint64_t Mid = A + (B - A) / 2;
      if (auto P = Sel.at(Mid); !P)
        return P.takeError();
      Checked.insert({A, Mid});
      Checked.insert({Mid, B});
    }
    if (Sel.picks().size() == Before)
      break;
  }
  // The last round's checks may have found a winner the refinement has not
  // followed yet: refine once more, without checks, so that neighbouring
  // sizes of different winners are adjacent and the bands cover the range.
  if (llvm::Error E = refineAll(Sel))
    return E;
  for (const auto &[U, P] : Sel.picks())
    Add(U, P);
  return Selection{Base, Judge.Description, std::move(Bands)};
}

} // namespace collc
