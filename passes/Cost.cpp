#include "passes/Cost.h"

#include <algorithm>
#include <limits>

namespace collc {

namespace {

bool meets(const Transfer &Sent, const Transfer &Got) {
  if (Sent.Kind == TransferKind::Signal || Got.Kind == TransferKind::Signal)
    return true;
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
  for (Step &St : S.Steps) {
    for (Transfer &T : St.Transfers) {
      double Ready = 0;
      for (int64_t I = Head[T.Src]; I >= 0; I = Received[I].second)
        if (meets(T, *Received[I].first))
          Ready = std::max(Ready, Received[I].first->End);
      double Hold = M.M.tHold(T.Bytes);
      double End = transferEnd(S, M, T);
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
