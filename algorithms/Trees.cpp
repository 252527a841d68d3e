#include "algorithms/Trees.h"

#include "algorithms/OptTree.h"
#include "algorithms/Placement.h"

#include <deque>
#include <memory>
#include <optional>

#include "llvm/Support/MathExtras.h"

namespace collc {

ChainSplit optTreeSplit(const Machine &M, const Request &R) {
  auto Table = std::make_shared<const OptTreeTable>(
      optTreeSplits(R.size(), M.M.tHold(R.Bytes), M.M.tEnd(R.Bytes)));
  return [Table](int64_t I, int64_t Offset) -> int64_t {
    int64_t Keep = Table->J[I];
    if (Offset < Keep)
      return Keep; // keep the lower j nodes
    // Keep the upper j nodes if they contain the holder; otherwise (only
    // possible for a source in the middle when j < i/2, i.e. t_hold > t_end)
    // keep the lower i-j nodes.
    return I - Keep;
  };
}

ChainSplit binomialSplit() {
  return [](int64_t I, int64_t) -> int64_t { return I / 2; };
}

std::vector<int32_t> rotatedChain(int32_t Ranks, int32_t Root) {
  std::vector<int32_t> C(Ranks);
  for (int32_t I = 0; I < Ranks; ++I)
    C[I] = static_cast<int32_t>((static_cast<int64_t>(Root) + I) % Ranks);
  return C;
}

namespace {

/// A rank of the chain that holds the message and the range [L, R] of chain
/// indices it still serves.
struct ChainHolder {
  int64_t Self, L, R;
};

/// Holder \p H's sends, in the order it makes them: \p Send(To) for each,
/// To being the holder the receiver becomes. One code for the whole tree
/// (chainSplitTransfers) and for one rank's part (binomialBcastPart).
template <typename SendFn>
void holderSends(ChainHolder H, const ChainSplit &Split, SendFn Send) {
  while (H.L < H.R) {
    int64_t I = H.R - H.L + 1;
    int64_t A = Split(I, H.Self - H.L);
    ChainHolder To;
    if (H.Self < H.L + A) {
      To = {H.L + A, H.L + A, H.R};
      H.R = H.L + A - 1;
    } else {
      To = {H.L + A - 1, H.L, H.L + A - 1};
      H.L = H.L + A;
    }
    Send(To);
  }
}

} // namespace

std::vector<Transfer> chainSplitTransfers(const Schedule &S,
                                          const std::vector<int32_t> &Chain,
                                          int64_t SourceIndex,
                                          const ChainSplit &Split) {
  std::vector<Transfer> Out;
  Out.reserve(Chain.size() ? Chain.size() - 1 : 0);
  std::deque<ChainHolder> Work;
  if (!Chain.empty())
    Work.push_back({SourceIndex, 0, static_cast<int64_t>(Chain.size()) - 1});
  while (!Work.empty()) {
    ChainHolder H = Work.front();
    Work.pop_front();
    holderSends(H, Split, [&](const ChainHolder &To) {
      Out.push_back(wholeMessageCall(S, Chain[H.Self], Chain[To.Self]));
      Work.push_back(To);
    });
  }
  return Out;
}

namespace {

Schedule treeSchedule(const Machine &M, const Request &R, llvm::StringRef Name,
                      const ChainSplit &Split) {
  Schedule S = scheduleSkeleton(M, R, Name);
  auto Chain = rotatedChain(S.size(), S.Root);
  S.Steps = stepsByRounds(chainSplitTransfers(S, Chain, 0, Split), S.size());
  return S;
}

} // namespace

llvm::Expected<Schedule> buildOptTree(const Machine &M, const Request &R) {
  return treeSchedule(M, R, "opt-tree", optTreeSplit(M, R));
}

llvm::Expected<Schedule> buildBinomial(const Machine &M, const Request &R) {
  return treeSchedule(M, R, "binomial", binomialSplit());
}

llvm::Expected<Schedule>
buildBinomialBcastPart(const Machine &M, const Request &R, int32_t Rank) {
  Schedule S = scheduleSkeleton(M, R, "binomial");
  const int32_t P = S.size();
  // A range of n nodes takes ceil(log2 n) steps: its holder sends to the
  // upper ceil(n/2) first.
  S.Steps.resize(int64_t(llvm::Log2_64_Ceil(P)));
  const ChainSplit Split = binomialSplit();
  auto RankOf = [&](int64_t I) { return relRank(I, S.Root, P); };
  const int64_t Me = (static_cast<int64_t>(Rank) - S.Root + P) % P;
  // Down the tree from the root to the holder whose receiver is Me, then
  // Me's own sends; each holder's k-th send in step Got + k.
  ChainHolder H{0, 0, P - 1};
  int64_t Got = -1;
  while (true) {
    std::optional<ChainHolder> Next;
    int64_t K = 0, NextGot = -1;
    holderSends(H, Split, [&](const ChainHolder &To) {
      const int64_t At = Got + ++K;
      if (H.Self == Me || To.Self == Me)
        S.Steps[At].Transfers.push_back(
            wholeMessageCall(S, RankOf(H.Self), RankOf(To.Self)));
      if (!Next && To.L <= Me && Me <= To.R) {
        Next = To;
        NextGot = At;
      }
    });
    if (H.Self == Me || !Next)
      break;
    H = *Next;
    Got = NextGot;
  }
  return S;
}

namespace {

/// Separate addressing (the root sends to every rank in chain order) or a
/// chain (each rank forwards to the next); with \p AllAtOnce, the root's
/// sends share one step where the ports allow it (groupedRounds).
Schedule flatSchedule(const Machine &M, const Request &R, llvm::StringRef Name,
                      bool FromRoot, bool AllAtOnce = false) {
  Schedule S = scheduleSkeleton(M, R, Name);
  auto Chain = rotatedChain(S.size(), S.Root);
  std::vector<Transfer> Ts;
  for (size_t I = 1; I < Chain.size(); ++I) {
    Transfer T;
    T.Src = FromRoot ? Chain[0] : Chain[I - 1];
    T.Dst = Chain[I];
    T.Bytes = S.Bytes;
    T.Pieces.push_back(S.wholeMessage());
    Ts.push_back(std::move(T));
  }
  if (AllAtOnce)
    S.Steps =
        groupedRounds(M, Ts, S.size(), std::vector<int64_t>(Ts.size(), 0));
  else
    S.Steps = stepsByRounds(std::move(Ts), S.size());
  return S;
}

} // namespace

llvm::Expected<Schedule> buildDirectBcast(const Machine &M, const Request &R) {
  return flatSchedule(M, R, "direct", /*FromRoot=*/true, /*AllAtOnce=*/true);
}

llvm::Expected<Schedule> buildSequential(const Machine &M, const Request &R) {
  return flatSchedule(M, R, "sequential", /*FromRoot=*/true);
}

llvm::Expected<Schedule> buildChain(const Machine &M, const Request &R) {
  return flatSchedule(M, R, "chain", /*FromRoot=*/false);
}

} // namespace collc
