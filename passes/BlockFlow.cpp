#include "passes/BlockFlow.h"

#include "passes/Diagnostics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>

namespace collc {

namespace {

/// A received piece as a rectangle origins x (dest * K + chunk).
struct Rect {
  int64_t OLo, OHi, LLo, LHi;
  int64_t Rec; ///< Index into the rank's log; -1: the rank's own blocks.
};

} // namespace

BlockFlow::BlockFlow(int32_t Ranks, int64_t Chunks)
    : P(Ranks), K(Chunks),
      Last(static_cast<uint64_t>(Ranks) * Ranks * Chunks, None), Log(Ranks) {}

bool BlockFlow::fits(int32_t Ranks, int64_t Chunks) {
  if (Ranks < 1 || Chunks < 1)
    return false;
  return static_cast<uint64_t>(Ranks) * Ranks <= (uint64_t(1) << 26) &&
         static_cast<uint64_t>(Ranks) * Ranks * Chunks <= (uint64_t(1) << 26);
}

std::string BlockFlow::atomName(int64_t Or, int64_t De, int64_t C) const {
  std::string N =
      "block M[" + std::to_string(Or) + "][" + std::to_string(De) + "]";
  if (K > 1)
    N += " chunk " + std::to_string(C);
  return N;
}

double BlockFlow::heldSince(int32_t R, int64_t Origin, int64_t Dest,
                            int64_t Chunk) const {
  if (Origin == R)
    return 0;
  uint32_t D = Last[atom(Origin, Dest, Chunk)];
  if (D != None && Deliveries[D].Dst == R)
    return Deliveries[D].End;
  // Not the chain's last holder: what R received earlier, if anything.
  for (const Received &Rc : Log[R])
    if (Rc.Pc->Origins.contains(Origin) && Rc.Pc->Dests.contains(Dest) &&
        Rc.Pc->Chunks.contains(Chunk))
      return Deliveries[Rc.RxIdx].End;
  return NAN;
}

void BlockFlow::checkSend(size_t StepIdx, const Transfer &T, bool Timing,
                          std::vector<std::string> &Problems) const {
  const bool Timed = Timing && !std::isnan(T.Start);
  // The delivery the previous atom came with, once its sender and time
  // passed: runs of atoms from one delivery are checked once.
  uint32_t Checked = None;
  for (const Piece &Pc : T.Pieces)
    for (int64_t Or = Pc.Origins.Lo; Or < Pc.Origins.Hi; ++Or) {
      if (Or == T.Src)
        continue; // a rank always holds its own blocks, from time 0
      for (int64_t De = Pc.Dests.Lo; De < Pc.Dests.Hi; ++De)
        for (int64_t C = Pc.Chunks.Lo; C < Pc.Chunks.Hi; ++C) {
          uint32_t D = Last[atom(Or, De, C)];
          if (D != None && D == Checked)
            continue; // same delivery as the atom before: already checked
          double At = D != None && Deliveries[D].Dst == T.Src
                          ? Deliveries[D].End
                          : heldSince(T.Src, Or, De, C);
          if (std::isnan(At)) {
            Problems.push_back(transferWhere(StepIdx, T) + "rank " +
                               std::to_string(T.Src) + " sends " +
                               atomName(Or, De, C) + " before it holds it");
            return;
          }
          if (Timed && startsBeforeReady(At, T.Start)) {
            Problems.push_back(transferWhere(StepIdx, T) + "starts at " +
                               formatShort(T.Start) + " before " +
                               atomName(Or, De, C) + " arrived (" +
                               formatShort(At) + ")");
            return;
          }
          if (D != None && Deliveries[D].Dst == T.Src)
            Checked = D;
        }
    }
}

void BlockFlow::deliver(size_t StepIdx, const Transfer &T) {
  const uint32_t D = static_cast<uint32_t>(Deliveries.size());
  Deliveries.push_back({&T, T.Dst, static_cast<uint32_t>(StepIdx),
                        std::isnan(T.End) ? 0 : T.End});
  for (const Piece &Pc : T.Pieces) {
    Log[T.Dst].push_back({D, &Pc});
    for (int64_t Or = Pc.Origins.Lo; Or < Pc.Origins.Hi; ++Or)
      for (int64_t De = Pc.Dests.Lo; De < Pc.Dests.Hi; ++De) {
        uint64_t A = atom(Or, De, Pc.Chunks.Lo);
        std::fill_n(Last.begin() + A, Pc.Chunks.size(), D);
      }
  }
}

void BlockFlow::finish(size_t MaxProblems, std::vector<std::string> &Problems) {
  auto Full = [&] { return Problems.size() >= MaxProblems; };
  // Duplicates: per rank, its own blocks and the pieces it received must be
  // pairwise disjoint rectangles of origins x (dest, chunk).
  struct Dup {
    uint32_t Step;
    std::string Msg;
  };
  std::vector<Dup> Dups;
  std::vector<Rect> Rs;
  for (int32_t R = 0; R < P; ++R) {
    const auto &L = Log[R];
    Rs.clear();
    Rs.push_back({R, R + 1, 0, static_cast<int64_t>(P) * K, -1});
    for (size_t I = 0; I < L.size(); ++I) {
      const Piece &Pc = *L[I].Pc;
      if (Pc.Chunks.Lo == 0 && Pc.Chunks.Hi == K) {
        Rs.push_back({Pc.Origins.Lo, Pc.Origins.Hi, Pc.Dests.Lo * K,
                      Pc.Dests.Hi * K, static_cast<int64_t>(I)});
      } else {
        for (int64_t De = Pc.Dests.Lo; De < Pc.Dests.Hi; ++De)
          Rs.push_back({Pc.Origins.Lo, Pc.Origins.Hi, De * K + Pc.Chunks.Lo,
                        De * K + Pc.Chunks.Hi, static_cast<int64_t>(I)});
      }
    }
    std::sort(Rs.begin(), Rs.end(), [](const Rect &A, const Rect &B) {
      return A.OLo != B.OLo ? A.OLo < B.OLo : A.LLo < B.LLo;
    });
    // Sweep along the origin axis; the active rectangles (those spanning
    // the current origin) are disjoint along the (dest, chunk) axis until a
    // duplicate is found, so checking an inserted rectangle against its two
    // neighbours finds an overlap whenever there is one.
    std::map<int64_t, size_t> Active;         // LLo -> index in Rs
    using Ends = std::pair<int64_t, int64_t>; // (OHi, LLo)
    std::priority_queue<Ends, std::vector<Ends>, std::greater<Ends>> Expire;
    const Rect *A = nullptr, *B = nullptr;
    for (size_t I = 0; I < Rs.size() && !A; ++I) {
      const Rect &X = Rs[I];
      while (!Expire.empty() && Expire.top().first <= X.OLo) {
        auto It = Active.find(Expire.top().second);
        if (It != Active.end() && Rs[It->second].OHi <= X.OLo)
          Active.erase(It);
        Expire.pop();
      }
      auto Next = Active.lower_bound(X.LLo);
      if (Next != Active.end() && Rs[Next->second].LLo < X.LHi) {
        A = &Rs[Next->second];
        B = &X;
      } else if (Next != Active.begin() &&
                 Rs[std::prev(Next)->second].LHi > X.LLo) {
        A = &Rs[std::prev(Next)->second];
        B = &X;
      }
      Active[X.LLo] = I;
      Expire.push({X.OHi, X.LLo});
    }
    if (!A)
      continue;
    // Report against the later receive, at the first atom both hold.
    const Rect *Later =
        A->Rec < 0   ? B
        : B->Rec < 0 ? A
        : Deliveries[L[A->Rec].RxIdx].Step > Deliveries[L[B->Rec].RxIdx].Step
            ? A
            : B;
    const Rx &Rc = Deliveries[L[Later->Rec].RxIdx];
    int64_t Or = std::max(A->OLo, B->OLo), Lin = std::max(A->LLo, B->LLo);
    Dups.push_back({Rc.Step, transferWhere(Rc.Step, *Rc.T) + "rank " +
                                 std::to_string(R) + " receives " +
                                 atomName(Or, Lin / K, Lin % K) +
                                 " a second time"});
  }
  std::stable_sort(Dups.begin(), Dups.end(),
                   [](const Dup &X, const Dup &Y) { return X.Step < Y.Step; });
  for (Dup &D : Dups) {
    if (Full())
      return;
    Problems.push_back(std::move(D.Msg));
  }
  // Every block M[a][b] at rank b.
  for (int32_t R = 0; R < P && !Full(); ++R)
    for (int64_t Or = 0; Or < P && !Full(); ++Or)
      for (int64_t C = 0; C < K; ++C)
        if (std::isnan(heldSince(R, Or, R, C))) {
          Problems.push_back("at the end rank " + std::to_string(R) +
                             " lacks " + atomName(Or, R, C));
          break;
        }
}

} // namespace collc
