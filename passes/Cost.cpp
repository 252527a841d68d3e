#include "passes/Cost.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>

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
  const std::vector<Piece> &Big =
      Sent.Pieces.size() >= Got.Pieces.size() ? Sent.Pieces : Got.Pieces;
  const std::vector<Piece> &Small =
      &Big == &Sent.Pieces ? Got.Pieces : Sent.Pieces;
  if (Small.size() * Big.size() > 64 && sortedByOrigin(Big)) {
    for (const Piece &X : Small) {
      auto It =
          std::partition_point(Big.begin(), Big.end(), [&](const Piece &Y) {
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

TransferTime transferTime(const Schedule &S, const Machine &M,
                          const Transfer &T, SendRecvFactor F) {
  TransferTime TT;
  TT.Hold = F.Hold * M.M.tHold(T.Bytes);
  TT.End = F.End * transferEnd(S, M, T);
  if (T.Kind == TransferKind::Combine)
    TT.End += M.M.OpPerByte * static_cast<double>(T.Bytes);
  return TT;
}

namespace {

/// The transfers each rank received in earlier steps, for "when has what this
/// send forwards arrived". A rank with few receives keeps a list that is
/// scanned whole; past a threshold its receives are also indexed by the start
/// of their chunk hull, so that a send of chunk c looks only at receives whose
/// chunks can reach c (a pipeline of k segments costs O(k log k), not k^2).
class Arrivals {
public:
  explicit Arrivals(int32_t P, size_t Expected)
      : Head(static_cast<size_t>(P), -1), Count(static_cast<size_t>(P), 0),
        AllEnd(static_cast<size_t>(P), 0.0),
        SignalEnd(static_cast<size_t>(P), 0.0) {
    Received.reserve(Expected);
  }

  void add(const Transfer &T) {
    AllEnd[T.Dst] = std::max(AllEnd[T.Dst], T.End);
    // A signal meets every send (see meets).
    if (T.Kind == TransferKind::Signal) {
      SignalEnd[T.Dst] = std::max(SignalEnd[T.Dst], T.End);
      return;
    }
    Received.push_back({&T, Head[T.Dst]});
    Head[T.Dst] = static_cast<int64_t>(Received.size()) - 1;
    if (++Count[T.Dst] <= ListLimit)
      return;
    auto &Ix = Index[T.Dst];
    if (Ix) {
      Ix->insert(T);
      return;
    }
    Ix = std::make_unique<ChunkIndex>();
    for (int64_t I = Head[T.Dst]; I >= 0; I = Received[I].second)
      Ix->insert(*Received[I].first);
  }

  /// The latest end among the receives of \p T's sender that \p T forwards.
  double ready(const Transfer &T) const {
    if (T.Kind == TransferKind::Signal)
      return AllEnd[T.Src];
    double Ready = SignalEnd[T.Src];
    if (Count[T.Src] > ListLimit) {
      Index.at(T.Src)->visit(T, [&](const Transfer &Got) {
        if (meets(T, Got))
          Ready = std::max(Ready, Got.End);
      });
      return Ready;
    }
    for (int64_t I = Head[T.Src]; I >= 0; I = Received[I].second)
      if (meets(T, *Received[I].first))
        Ready = std::max(Ready, Received[I].first->End);
    return Ready;
  }

private:
  static constexpr uint32_t ListLimit = 32;

  /// The chunks a transfer's pieces span, from the first to the last.
  static Interval chunkHull(const Transfer &T) {
    Interval H = T.Pieces.empty() ? Interval{} : T.Pieces.front().Chunks;
    for (const Piece &Pc : T.Pieces) {
      H.Lo = std::min(H.Lo, Pc.Chunks.Lo);
      H.Hi = std::max(H.Hi, Pc.Chunks.Hi);
    }
    return H;
  }

  struct ChunkIndex {
    std::multimap<int64_t, const Transfer *> ByLo;
    int64_t MaxLen = 0;
    void insert(const Transfer &T) {
      Interval H = chunkHull(T);
      MaxLen = std::max(MaxLen, H.size());
      ByLo.emplace(H.Lo, &T);
    }
    template <typename F> void visit(const Transfer &T, F &&Fn) const {
      Interval H = chunkHull(T);
      // A hull that starts at or before H.Lo - MaxLen ends before H.Lo.
      for (auto It = ByLo.upper_bound(H.Lo - MaxLen);
           It != ByLo.end() && It->first < H.Hi; ++It)
        Fn(*It->second);
    }
  };

  std::vector<int64_t> Head;
  std::vector<std::pair<const Transfer *, int64_t>> Received;
  std::vector<uint32_t> Count;
  std::vector<double> AllEnd, SignalEnd;
  std::unordered_map<int32_t, std::unique_ptr<ChunkIndex>> Index;
};

} // namespace

void estimateCost(Schedule &S, const Machine &M) {
  const int32_t P = S.size();
  const unsigned Ports = std::max(1u, M.Ports);
  std::vector<double> SendFree(static_cast<size_t>(P) * Ports, 0.0);
  std::vector<double> LastRecvEnd(static_cast<size_t>(P) * Ports,
                                  -std::numeric_limits<double>::infinity());
  Arrivals Got(P, S.numTransfers());
  double Makespan = 0;
  std::vector<uint8_t> Scratch(P, 0);
  std::vector<SendRecvFactor> Factors;
  for (Step &St : S.Steps) {
    sendRecvFactors(St, M, Scratch, Factors);
    for (size_t TI = 0; TI < St.Transfers.size(); ++TI) {
      Transfer &T = St.Transfers[TI];
      double Ready = Got.ready(T);
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
    for (Transfer &T : St.Transfers)
      Got.add(T);
  }
  S.Makespan = Makespan;
}

} // namespace collc
