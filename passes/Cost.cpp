#include "passes/Cost.h"
#include "passes/Dependencies.h"
#include "passes/NetworkCost.h"
#include "passes/StepCost.h"

#include <algorithm>
#include <limits>

namespace collc {

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

TransferTime transferTime(const Schedule &S, const Machine &M,
                          const Transfer &T, SendRecvFactor F) {
  TransferTime TT;
  TT.Hold = F.Hold * M.M.tHold(T.Bytes);
  TT.End = F.End * transferEnd(S, M, T);
  if (T.Kind == TransferKind::Combine)
    TT.End += M.M.OpPerByte * static_cast<double>(T.Bytes);
  return TT;
}

bool estimateCost(Schedule &S, const Machine &M, double GiveUpAbove) {
  if (M.Net) {
    if (pricedBySteps(S, M))
      return estimateStepCost(S, M, StepRoutesKept, GiveUpAbove);
    estimateNetworkCost(S, M);
    return true;
  }
  const int32_t P = S.size();
  const unsigned Ports = std::max(1u, M.Ports);
  std::vector<double> SendFree(static_cast<size_t>(P) * Ports, 0.0);
  std::vector<double> LastRecvEnd(static_cast<size_t>(P) * Ports,
                                  -std::numeric_limits<double>::infinity());
  ArrivalIndex Got(P, S.numTransfers(), S.NumChunks);
  double Makespan = 0;
  std::vector<uint8_t> Scratch(P, 0);
  std::vector<SendRecvFactor> Factors;
  std::vector<double> ReadyAt;
  uint32_t Id = 0;
  for (Step &St : S.Steps) {
    sendRecvFactors(St, M, Scratch, Factors);
    Got.latestEnds(St, ReadyAt);
    for (size_t TI = 0; TI < St.Transfers.size(); ++TI) {
      Transfer &T = St.Transfers[TI];
      double Ready = ReadyAt[TI];
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
    Got.addStep(St, Id);
    Id += static_cast<uint32_t>(St.Transfers.size());
  }
  S.Makespan = Makespan;
  return true;
}

} // namespace collc
