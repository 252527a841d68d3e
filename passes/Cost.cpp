#include "passes/Cost.h"

#include <algorithm>
#include <limits>

namespace collc {

namespace {

/// Whether the pieces are sorted by origin interval, the intervals of
/// different pieces equal or disjoint (what builders that emit origins x
/// dests products produce).
bool sortedByOrigin(const std::vector<Piece> &V) {
  for (size_t I = 1; I < V.size(); ++I)
    if (!(V[I].Origins == V[I - 1].Origins) &&
        V[I - 1].Origins.Hi > V[I].Origins.Lo)
      return false;
  return true;
}

bool meets(const Transfer &Sent, const Transfer &Got) {
  if (Sent.Kind == TransferKind::Signal || Got.Kind == TransferKind::Signal)
    return true;
  // Many pieces on both sides (large personalized exchanges): look up each
  // piece of the shorter list among the longer list's pieces with an
  // overlapping origin interval, found by binary search.
  const std::vector<Piece> &Big = Sent.Pieces.size() >= Got.Pieces.size()
                                      ? Sent.Pieces
                                      : Got.Pieces;
  const std::vector<Piece> &Small =
      &Big == &Sent.Pieces ? Got.Pieces : Sent.Pieces;
  if (Small.size() * Big.size() > 64 && sortedByOrigin(Big)) {
    for (const Piece &X : Small) {
      auto It = std::partition_point(Big.begin(), Big.end(), [&](const Piece &Y) {
        return Y.Origins.Hi <= X.Origins.Lo;
      });
      for (; It != Big.end() && It->Origins.Lo < X.Origins.Hi; ++It)
        if (It->intersects(X))
          return true;
    }
    return false;
  }
  for (const Piece &A : Sent.Pieces)
    for (const Piece &B : Got.Pieces)
      if (A.intersects(B))
        return true;
  return false;
}

} // namespace

double transferEnd(const Schedule &S, const Machine &M, const Transfer &T) {
  unsigned Hops =
      M.Topo.distance(S.Participants[T.Src].Node, S.Participants[T.Dst].Node);
  return M.M.tEnd(T.Bytes, Hops);
}

void sendRecvFactors(const Step &St, const Machine &M,
                     std::vector<uint8_t> &Scratch,
                     std::vector<SendRecvFactor> &Factors) {
  Factors.assign(St.Transfers.size(), SendRecvFactor{});
  if (M.M.Kind != ModelKind::Linear || M.M.SendRecvFactor == 1)
    return;
  enum : uint8_t { Sends = 1, Receives = 2 };
  for (const Transfer &T : St.Transfers) {
    Scratch[T.Src] |= Sends;
    Scratch[T.Dst] |= Receives;
  }
  for (size_t I = 0; I < St.Transfers.size(); ++I) {
    const Transfer &T = St.Transfers[I];
    bool SrcBoth = Scratch[T.Src] & Receives, DstBoth = Scratch[T.Dst] & Sends;
    if (SrcBoth)
      Factors[I].Hold = M.M.SendRecvFactor;
    if (SrcBoth || DstBoth)
      Factors[I].End = M.M.SendRecvFactor;
  }
  for (const Transfer &T : St.Transfers)
    Scratch[T.Src] = Scratch[T.Dst] = 0;
}

TransferTime transferTime(const Schedule &S, const Machine &M, const Transfer &T,
                          SendRecvFactor F) {
  TransferTime TT;
  TT.Hold = F.Hold * M.M.tHold(T.Bytes);
  TT.End = F.End * transferEnd(S, M, T);
  if (T.Kind == TransferKind::Combine)
    TT.End += M.M.OpPerByte * static_cast<double>(T.Bytes);
  return TT;
}

void estimateCost(Schedule &S, const Machine &M) {
  const int32_t P = S.size();
  const unsigned Ports = std::max(1u, M.Ports);
  std::vector<double> SendFree(static_cast<size_t>(P) * Ports, 0.0);
  std::vector<double> LastRecvEnd(static_cast<size_t>(P) * Ports,
                                  -std::numeric_limits<double>::infinity());
  // Transfers received so far, per rank: a singly linked list through
  // Received (Head[r] = newest, -1 = none).
  std::vector<int64_t> Head(P, -1);
  std::vector<std::pair<const Transfer *, int64_t>> Received;
  Received.reserve(S.numTransfers());
  double Makespan = 0;
  std::vector<uint8_t> Scratch(P, 0);
  std::vector<SendRecvFactor> Factors;
  for (Step &St : S.Steps) {
    sendRecvFactors(St, M, Scratch, Factors);
    for (size_t TI = 0; TI < St.Transfers.size(); ++TI) {
      Transfer &T = St.Transfers[TI];
      double Ready = 0;
      for (int64_t I = Head[T.Src]; I >= 0; I = Received[I].second)
        if (meets(T, *Received[I].first))
          Ready = std::max(Ready, Received[I].first->End);
      TransferTime TT = transferTime(S, M, T, Factors[TI]);
      double Hold = TT.Hold;
      double End = TT.End;
      double *Send = &SendFree[static_cast<size_t>(T.Src) * Ports];
      double *Recv = &LastRecvEnd[static_cast<size_t>(T.Dst) * Ports];
      unsigned SP =
          static_cast<unsigned>(std::min_element(Send, Send + Ports) - Send);
      unsigned RP =
          static_cast<unsigned>(std::min_element(Recv, Recv + Ports) - Recv);
      double Start = std::max({Ready, Send[SP], Recv[RP] + Hold - End});
      T.Start = Start;
      T.End = Start + End;
      Send[SP] = Start + Hold;
      Recv[RP] = T.End;
      Makespan = std::max(Makespan, T.End);
    }
    for (Transfer &T : St.Transfers) {
      Received.push_back({&T, Head[T.Dst]});
      Head[T.Dst] = static_cast<int64_t>(Received.size()) - 1;
    }
  }
  S.Makespan = Makespan;
}

} // namespace collc
