#include "algorithms/Placement.h"

#include "algorithms/Cheapest.h"

#include "passes/Cost.h"
#include "passes/Verify.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace collc {

void BlockCopies::copy(int64_t From, int64_t To, int64_t A, int64_t E,
                       int64_t Round) {
  if (own(A) >= own(E))
    return;
  Ts.push_back(rootChunksCall(S, Order[From], Order[To], {own(A), own(E)}));
  Rounds.push_back(Round);
}

std::vector<Step> BlockCopies::steps() {
  return orderedRounds(std::move(Ts), static_cast<int32_t>(Order.size()),
                       &Rounds);
}

std::vector<Step>
placeInSteps(std::vector<std::pair<int64_t, Transfer>> Tagged) {
  std::stable_sort(
      Tagged.begin(), Tagged.end(),
      [](const auto &A, const auto &B) { return A.first < B.first; });
  std::vector<Step> Steps;
  int64_t Last = -1;
  for (auto &[StepNo, T] : Tagged) {
    if (Steps.empty() || StepNo != Last)
      Steps.emplace_back();
    Last = StepNo;
    Steps.back().Transfers.push_back(std::move(T));
  }
  return Steps;
}

namespace {

/// placeInSteps of \p Transfers tagged \p Tags (steps 0 to the largest tag),
/// by counting: each step's transfers are reserved at once and moved in
/// the order listed, so that millions of transfers take their own memory
/// and 8 bytes each besides, not a tagged copy and a sort's buffer.
std::vector<Step> placeByTags(std::vector<Transfer> Transfers,
                              const std::vector<int64_t> &Tags) {
  int64_t Max = -1;
  for (int64_t T : Tags)
    Max = std::max(Max, T);
  std::vector<size_t> Count(size_t(Max + 1), 0);
  for (int64_t T : Tags)
    ++Count[size_t(T)];
  std::vector<Step> Steps;
  // All in one step (the direct exchanges): the list is that step.
  if (std::count_if(Count.begin(), Count.end(), [](size_t N) { return N; }) ==
      1) {
    Steps.emplace_back().Transfers = std::move(Transfers);
    return Steps;
  }
  // Where each tag's step is (gaps dropped).
  std::vector<size_t> At(Count.size(), 0);
  for (size_t T = 0; T < Count.size(); ++T)
    if (Count[T]) {
      At[T] = Steps.size();
      Steps.emplace_back().Transfers.reserve(Count[T]);
    }
  for (size_t I = 0; I < Transfers.size(); ++I)
    Steps[At[size_t(Tags[I])]].Transfers.push_back(std::move(Transfers[I]));
  return Steps;
}

} // namespace

std::vector<Step> orderedRounds(std::vector<Transfer> Transfers, int32_t Ranks,
                                const std::vector<int64_t> *Groups) {
  std::vector<int64_t> LastRecv(Ranks, -1), LastSend(Ranks, -1);
  std::vector<int64_t> Tags;
  Tags.reserve(Transfers.size());
  for (size_t I = 0; I < Transfers.size();) {
    size_t E = I + 1;
    if (Groups && (*Groups)[I] >= 0)
      while (E < Transfers.size() && (*Groups)[E] == (*Groups)[I])
        ++E;
    int64_t S = 0;
    for (size_t X = I; X < E; ++X) {
      const Transfer &T = Transfers[X];
      S = std::max({S, LastRecv[T.Src] + 1, LastSend[T.Src] + 1,
                    LastRecv[T.Dst] + 1, LastSend[T.Dst]});
    }
    for (size_t X = I; X < E; ++X) {
      const Transfer &T = Transfers[X];
      LastSend[T.Src] = S;
      LastRecv[T.Dst] = S;
      Tags.push_back(S);
    }
    I = E;
  }
  return placeByTags(std::move(Transfers), Tags);
}

std::vector<Step> groupedRounds(const Machine &M,
                                std::vector<Transfer> Transfers, int32_t Ranks,
                                std::vector<int64_t> Groups) {
  const uint64_t Ports = portsPerStep(M);
  std::vector<uint64_t> Sends(Ranks, 0), Recvs(Ranks, 0);
  for (size_t I = 0; I < Transfers.size();) {
    size_t E = I + 1;
    if (Groups[I] >= 0)
      while (E < Transfers.size() && Groups[E] == Groups[I])
        ++E;
    bool Fits = true;
    for (size_t X = I; X < E; ++X)
      Fits &= ++Sends[Transfers[X].Src] <= Ports &&
              ++Recvs[Transfers[X].Dst] <= Ports;
    for (size_t X = I; X < E; ++X) {
      Sends[Transfers[X].Src] = Recvs[Transfers[X].Dst] = 0;
      if (!Fits)
        Groups[X] = -1;
    }
    I = E;
  }
  return orderedRounds(std::move(Transfers), Ranks, &Groups);
}

namespace {

bool fitsWithin(double Transfers, int64_t Max, std::string &Why) {
  if (Transfers <= double(Max))
    return true;
  Why = "it would list " + std::to_string(static_cast<long long>(Transfers)) +
        " transfers, more than the " + std::to_string(Max) +
        " a schedule may hold";
  return false;
}

} // namespace

bool transfersFit(double Transfers, std::string &Why) {
  return fitsWithin(Transfers, MaxTransfers, Why);
}

bool copyTransfersFit(const Request &R, double Transfers, std::string &Why) {
  return fitsWithin(
      Transfers, R.Algorithm == "auto" ? MaxTransfers : MaxCopyTransfers, Why);
}

std::vector<Interval> relIntervals(int64_t Lo, int64_t Hi, int32_t Root,
                                   int32_t P) {
  std::vector<Interval> Out;
  if (Hi <= Lo)
    return Out;
  int64_t A = (Lo + Root) % P, Len = Hi - Lo;
  if (A + Len <= P) {
    Out.push_back({A, A + Len});
  } else {
    Out.push_back({A, P});
    Out.push_back({0, A + Len - P});
  }
  return Out;
}

int64_t pickSegments(const Request &R, double Optimum, int64_t Max) {
  Max = std::max<int64_t>(1, std::min(Max, maxSegmentsFor(R.size())));
  if (R.Segments > 0)
    return std::min(R.Segments, Max);
  if (!(Optimum >= 1))
    return 1;
  // A derived optimum is capped: beyond MaxDerivedSegments the start-up
  // costs dominate on every machine collc models.
  return std::min<int64_t>(
      {Max, MaxDerivedSegments, std::llround(std::min(Optimum, 1e9))});
}

namespace {

/// The least k for which \p Bytes cut in Ways x k chunks fits, with the
/// envelope, below band \p I's lower edge (fills band I - 1 up to its top); 0
/// when that top is within the envelope.
int64_t bandTopCount(const Network &N, size_t I, uint64_t Bytes, int64_t Ways) {
  const uint64_t Top = N.Bands[I].MinBytes - 1;
  if (Top <= N.EnvelopeBytes)
    return 0;
  const uint64_t Payload = Top - N.EnvelopeBytes;
  const uint64_t Per = static_cast<uint64_t>(std::max<int64_t>(1, Ways));
  return static_cast<int64_t>(
      std::max<uint64_t>(1, (Bytes + Per * Payload - 1) / (Per * Payload)));
}

} // namespace

std::vector<int64_t> bandEdgeCounts(const Machine &M, uint64_t Bytes,
                                    int64_t Ways) {
  std::vector<int64_t> Out;
  if (!M.Net || Bytes == 0)
    return Out;
  for (size_t I = 1; I < M.Net->Bands.size(); ++I)
    if (int64_t K = bandTopCount(*M.Net, I, Bytes, Ways))
      Out.push_back(K);
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

int64_t fastestBandCount(const Machine &M, uint64_t Bytes, int64_t Ways) {
  if (!M.Net || Bytes == 0)
    return 0;
  const std::vector<ProtocolBand> &Bands = M.Net->Bands;
  // Band I - 1 has a top (band I's edge); the last band has none.
  size_t Best = 0;
  for (size_t I = 1; I < Bands.size(); ++I)
    if (Bands[I - 1].BandwidthFactor > Bands.back().BandwidthFactor &&
        (Best == 0 ||
         Bands[I - 1].BandwidthFactor > Bands[Best - 1].BandwidthFactor))
      Best = I;
  if (Best == 0)
    return 0;
  // The least count of the form 2^j or 3 x 2^j whose segments fit below the
  // band's top: a count that stays the same over a factor 1.33-1.5 of sizes,
  // not one that moves at every few kilobytes (each move is a change of
  // shape that --emit select locates).
  const int64_t Least = bandTopCount(*M.Net, Best, Bytes, Ways);
  if (Least == 0)
    return 0;
  // 1, 2, 3, 4, 6, 8, 12, 16, ...
  auto Next = [](int64_t K) {
    return K < 2 ? 2 : (K & (K - 1)) == 0 ? K / 2 * 3 : K / 3 * 4;
  };
  int64_t K = 1;
  while (K < Least)
    K = Next(K);
  // In the band when its bottom is at most 2/3 of its top (SMPI's: 5,776
  // and 9,375); else none.
  const uint64_t Per = static_cast<uint64_t>(std::max<int64_t>(1, Ways));
  const uint64_t Longest =
      (Bytes + Per * uint64_t(K) - 1) / (Per * uint64_t(K)) +
      M.Net->EnvelopeBytes;
  return &M.Net->band(Longest) == &Bands[Best - 1] ? K : 0;
}

llvm::Expected<Schedule>
searchSegments(const Machine &M, const Request &R, Pipeline &P, double Hint,
               int64_t Max,
               llvm::function_ref<llvm::Expected<Schedule>(int64_t)> Build,
               int64_t Ways, SegmentCounts Counts) {
  Max = std::max<int64_t>(1, std::min(Max, maxSegmentsFor(R.size())));
  if (R.Segments > 0)
    return Build(std::min(R.Segments, Max));
  Cheapest Search(M, P, makespanJudge());
  std::vector<int64_t> Tried;
  auto BestK = [&] { return Search.bestKey().value_or(0); };
  auto Try = [&](int64_t K) {
    K = std::clamp<int64_t>(K, 1, Max);
    if (std::find(Tried.begin(), Tried.end(), K) != Tried.end())
      return;
    Tried.push_back(K);
    CandidateHooks Hooks;
    Hooks.TieKey = K;
    Search.consider(
        "k=" + llvm::Twine(K), [&] { return Build(K); }, Hooks);
  };
  for (int64_t K = 1, SinceBest = 0; SinceBest < 2; K *= 2) {
    int64_t Before = BestK();
    Try(K);
    SinceBest = BestK() == Before ? SinceBest + 1 : 0;
    if (K >= Max)
      break;
  }
  int64_t Power = BestK();
  const bool Fine = Counts == SegmentCounts::Fine;
  if (Fine && Hint >= 1)
    Try(std::llround(std::min(Hint, 1e9)));
  Try(Power * 3 / 4);
  Try(Power * 3 / 2);
  // Band edges near the best power only (the makespan falls and then rises
  // with k; one far from the best power does not win, and each costs a
  // schedule).
  if (Fine)
    for (int64_t K : bandEdgeCounts(M, R.Bytes, Ways))
      if (K <= Max && K >= Power / 2 && K <= Power * 2)
        Try(K);
  // And the segments that move fastest, wherever they are: a pipeline of
  // many of them can beat every count near the best power.
  if (int64_t K = fastestBandCount(M, R.Bytes, Ways); K > 0 && K <= Max)
    Try(K);
  return Search.take();
}

void openWindow(Schedule &S) {
  S.RecvWindow = std::min(S.NumChunks, OpenWindow);
}

llvm::Expected<Schedule>
searchWindows(const Machine &M, Pipeline &P,
              llvm::function_ref<llvm::Expected<Schedule>(bool Open)> Search) {
  Cheapest Windows(M, P, makespanJudge());
  for (bool Open : {false, true})
    Windows.consider(Open ? "window=open" : "window=rule",
                     [&] { return Search(Open); });
  return Windows.take();
}

void completeBroadcast(Schedule &S, std::vector<std::vector<bool>> Held) {
  const int32_t P = S.size();
  const int64_t K = S.NumChunks;
  struct Need {
    int32_t Rank;
    int64_t Chunk;
  };
  std::vector<Need> Missing;
  for (int32_t R = 0; R < P; ++R)
    for (int64_t C = 0; C < K; ++C)
      if (!Held[R][C])
        Missing.push_back({R, C});
  while (!Missing.empty()) {
    Step St;
    std::vector<bool> Sending(P, false), Receiving(P, false);
    std::vector<Need> Later;
    std::vector<std::pair<int32_t, int64_t>> Got;
    for (const Need &N : Missing) {
      int32_t From = -1;
      if (!Receiving[N.Rank])
        for (int32_t D = 1; D < P && From < 0; ++D) {
          int32_t X = (N.Rank + P - D) % P;
          if (Held[X][N.Chunk] && !Sending[X])
            From = X;
        }
      if (From < 0) {
        Later.push_back(N);
        continue;
      }
      Sending[From] = Receiving[N.Rank] = true;
      Transfer T;
      T.Src = From;
      T.Dst = N.Rank;
      T.Bytes = S.chunkBytes({N.Chunk, N.Chunk + 1});
      T.Pieces.push_back(
          {{S.Root, S.Root + 1}, {0, P}, {N.Chunk, N.Chunk + 1}});
      St.Transfers.push_back(std::move(T));
      Got.push_back({N.Rank, N.Chunk});
    }
    for (auto &[R, C] : Got)
      Held[R][C] = true;
    S.Steps.push_back(std::move(St));
    Missing = std::move(Later);
  }
}

} // namespace collc
