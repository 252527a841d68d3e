#include "tools/probe/Fit.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>

namespace collc::probe {

namespace {

/// Weighted sums of a least-squares problem y ~ A x1 + C x2 with weights w:
/// enough to solve it and to evaluate its squared error, and additive, so
/// that prefix sums give any range of sizes at once.
struct Sums {
  double X11 = 0, X12 = 0, X22 = 0, Y1 = 0, Y2 = 0, YY = 0;
  size_t N = 0;

  void add(double X1, double X2, double Y, double W) {
    X11 += W * X1 * X1;
    X12 += W * X1 * X2;
    X22 += W * X2 * X2;
    Y1 += W * X1 * Y;
    Y2 += W * X2 * Y;
    YY += W * Y * Y;
    ++N;
  }
  Sums operator-(const Sums &O) const {
    Sums R;
    R.X11 = X11 - O.X11;
    R.X12 = X12 - O.X12;
    R.X22 = X22 - O.X22;
    R.Y1 = Y1 - O.Y1;
    R.Y2 = Y2 - O.Y2;
    R.YY = YY - O.YY;
    R.N = N - O.N;
    return R;
  }
  Sums &operator+=(const Sums &O) {
    X11 += O.X11;
    X12 += O.X12;
    X22 += O.X22;
    Y1 += O.Y1;
    Y2 += O.Y2;
    YY += O.YY;
    N += O.N;
    return *this;
  }
  double error(double A, double C) const {
    double E = A * A * X11 + 2 * A * C * X12 + C * C * X22 - 2 * A * Y1 -
               2 * C * Y2 + YY;
    return std::max(E, 0.0);
  }
};

struct Solution {
  double A = 0, C = 0, Error = 0;
};

/// Non-negative least squares in two unknowns: the unconstrained optimum when
/// it is non-negative, else the best with one unknown at 0.
Solution solve(const Sums &S) {
  std::vector<Solution> Candidates;
  double Det = S.X11 * S.X22 - S.X12 * S.X12;
  if (Det > 1e-12 * S.X11 * S.X22 && Det > 0) {
    double A = (S.Y1 * S.X22 - S.Y2 * S.X12) / Det;
    double C = (S.X11 * S.Y2 - S.X12 * S.Y1) / Det;
    if (A >= 0 && C >= 0)
      return {A, C, S.error(A, C)};
  }
  Candidates.push_back({0, 0, S.error(0, 0)});
  if (S.X11 > 0) {
    double A = std::max(S.Y1 / S.X11, 0.0);
    Candidates.push_back({A, 0, S.error(A, 0)});
  }
  if (S.X22 > 0) {
    double C = std::max(S.Y2 / S.X22, 0.0);
    Candidates.push_back({0, C, S.error(0, C)});
  }
  return *std::min_element(
      Candidates.begin(), Candidates.end(),
      [](const Solution &X, const Solution &Y) { return X.Error < Y.Error; });
}

/// Relative-error weight of a measured time (guarded against 0).
double weight(double Time) {
  double T = std::max(Time, 1e-9);
  return 1 / (T * T);
}

void addSample(Sums &S, const Sample &X, double Overhead) {
  S.add(X.Hops * X.LatencyScale, static_cast<double>(X.Bytes) * X.ByteScale,
        X.Time - Overhead, weight(X.Time));
}

double relativeError(const BandFit &B, const Sample &X, double Overhead) {
  double P = Overhead + X.Hops * X.LatencyScale * B.PerLink +
             static_cast<double>(X.Bytes) * X.ByteScale * B.PerByte;
  return std::fabs(P - X.Time) / std::max(X.Time, 1e-9);
}

const BandFit &bandOf(const std::vector<BandFit> &Bands, uint64_t Bytes) {
  assert(!Bands.empty());
  auto It =
      std::upper_bound(Bands.begin(), Bands.end(), Bytes,
                       [](uint64_t V, const BandFit &B) { return V < B.From; });
  return It == Bands.begin() ? Bands.front() : *(It - 1);
}

double maxError(const std::vector<BandFit> &Bands,
                const std::vector<Sample> &Samples, double Overhead) {
  double M = 0;
  for (const Sample &X : Samples)
    M = std::max(M, relativeError(bandOf(Bands, X.Bytes), X, Overhead));
  return M;
}

} // namespace

double median(std::vector<double> &V) {
  assert(!V.empty());
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

double relativeSpread(std::vector<double> &V) {
  double M = median(V); // sorts
  if (M == 0 || V.size() < 2)
    return 0;
  auto Quantile = [&](double Q) {
    double Pos = Q * static_cast<double>(V.size() - 1);
    size_t I = static_cast<size_t>(Pos);
    double F = Pos - static_cast<double>(I);
    return I + 1 < V.size() ? V[I] * (1 - F) + V[I + 1] * F : V[I];
  };
  return (Quantile(0.75) - Quantile(0.25)) / 2 / std::fabs(M);
}

double fitTolerance(const std::vector<Sample> &Samples) {
  if (Samples.empty())
    return 0.002;
  std::vector<double> Spreads;
  for (const Sample &S : Samples)
    Spreads.push_back(S.Spread);
  return std::clamp(3 * median(Spreads), 0.002, 0.05);
}

std::vector<BandFit> fitBands(const std::vector<Sample> &Samples,
                              double Overhead, const FitOptions &Options) {
  if (Samples.empty())
    return {};
  // Per probed size, the sums of its samples; prefix sums over sizes.
  std::map<uint64_t, Sums> BySize;
  for (const Sample &X : Samples)
    addSample(BySize[X.Bytes], X, Overhead);
  std::vector<uint64_t> Sizes;
  std::vector<Sums> Prefix(1);
  for (const auto &[Bytes, S] : BySize) {
    Sizes.push_back(Bytes);
    Sums P = Prefix.back();
    P += S;
    Prefix.push_back(P);
  }
  const size_t N = Sizes.size();
  if (N < 4)
    return fitFixedBands(Samples, Overhead, {Sizes.front()});
  const size_t MinSizes = 2;
  const size_t MaxBands =
      std::max<size_t>(1, std::min<size_t>(Options.MaxBands, N / MinSizes));
  auto Cost = [&](size_t I, size_t J) { // sizes I..J-1
    return solve(Prefix[J] - Prefix[I]).Error;
  };

  // Best[K][J]: least error of sizes 0..J-1 in K bands; From[K][J]: where the
  // last of them starts.
  const double Inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> Best(MaxBands + 1,
                                        std::vector<double>(N + 1, Inf));
  std::vector<std::vector<size_t>> From(MaxBands + 1,
                                        std::vector<size_t>(N + 1, 0));
  Best[0][0] = 0;
  for (size_t K = 1; K <= MaxBands; ++K)
    for (size_t J = K * MinSizes; J <= N; ++J)
      for (size_t I = (K - 1) * MinSizes; I + MinSizes <= J; ++I) {
        if (Best[K - 1][I] == Inf)
          continue;
        double E = Best[K - 1][I] + Cost(I, J);
        if (E < Best[K][J]) {
          Best[K][J] = E;
          From[K][J] = I;
        }
      }

  std::vector<BandFit> Chosen;
  double ChosenScore = Inf;
  const double LogN = std::log(static_cast<double>(Samples.size()));
  for (size_t K = 1; K <= MaxBands; ++K) {
    if (Best[K][N] == Inf)
      continue;
    std::vector<uint64_t> Froms;
    for (size_t J = N, L = K; L > 0; J = From[L][J], --L)
      Froms.push_back(Sizes[From[L][J]]);
    std::reverse(Froms.begin(), Froms.end());
    std::vector<BandFit> Bands = fitFixedBands(Samples, Overhead, Froms);
    if (maxError(Bands, Samples, Overhead) <= Options.Tolerance)
      return Bands;
    double Mean = Best[K][N] / static_cast<double>(Samples.size());
    double Score =
        static_cast<double>(Samples.size()) * std::log(std::max(Mean, 1e-300)) +
        3 * static_cast<double>(K) * LogN;
    if (Score < ChosenScore) {
      ChosenScore = Score;
      Chosen = std::move(Bands);
    }
  }
  return Chosen;
}

std::vector<BandFit> fitFixedBands(const std::vector<Sample> &Samples,
                                   double Overhead,
                                   const std::vector<uint64_t> &Froms) {
  assert(!Froms.empty() && std::is_sorted(Froms.begin(), Froms.end()));
  std::vector<BandFit> Bands;
  for (uint64_t F : Froms)
    Bands.push_back({F, 0, 0});
  std::vector<Sums> PerBand(Bands.size());
  for (const Sample &X : Samples) {
    size_t I = static_cast<size_t>(&bandOf(Bands, X.Bytes) - Bands.data());
    addSample(PerBand[I], X, Overhead);
  }
  std::vector<bool> Fitted(Bands.size(), false);
  for (size_t I = 0; I < Bands.size(); ++I)
    if (PerBand[I].N > 0) {
      Solution S = solve(PerBand[I]);
      Bands[I].PerLink = S.A;
      Bands[I].PerByte = S.C;
      Fitted[I] = true;
    }
  // Bands nobody measured take the fit of the band below (or above).
  for (size_t I = 1; I < Bands.size(); ++I)
    if (!Fitted[I] && Fitted[I - 1]) {
      Bands[I].PerLink = Bands[I - 1].PerLink;
      Bands[I].PerByte = Bands[I - 1].PerByte;
      Fitted[I] = true;
    }
  for (size_t I = Bands.size() - 1; I-- > 0;)
    if (!Fitted[I] && Fitted[I + 1]) {
      Bands[I].PerLink = Bands[I + 1].PerLink;
      Bands[I].PerByte = Bands[I + 1].PerByte;
      Fitted[I] = true;
    }
  return Bands;
}

uint64_t refineBoundary(const BandFit &Below, const BandFit &Above, uint64_t Lo,
                        uint64_t Hi, double Overhead, const MeasureFn &Measure,
                        unsigned MaxSteps, std::vector<Sample> &Measured) {
  for (unsigned Step = 0; Step < MaxSteps && Hi - Lo > 1; ++Step) {
    uint64_t Mid = Lo + (Hi - Lo) / 2;
    Sample S = Measure(Mid);
    Measured.push_back(S);
    if (relativeError(Below, S, Overhead) <= relativeError(Above, S, Overhead))
      Lo = Mid;
    else
      Hi = Mid;
  }
  return Hi;
}

const std::vector<ProtocolBand> &smpiDefaultFactors() {
  // smpi/lat-factor and smpi/bw-factor of SimGrid 3.32 (network model SMPI).
  static const std::vector<ProtocolBand> Factors = {
      {0, 2.01467, 0.812084},     {257, 1.95341, 0.338112},
      {732, 1.9503, 0.341987},    {1426, 1.61075, 0.608902},
      {3484, 1.88101, 0.77493},   {5776, 2.18796, 1.08739},
      {9376, 2.59299, 0.58729},   {15424, 3.48845, 0.697866},
      {65472, 11.6436, 0.940694},
  };
  return Factors;
}

namespace {

const ProtocolBand &factorsAt(const std::vector<ProtocolBand> &Bands,
                              uint64_t Bytes) {
  assert(!Bands.empty());
  auto It = std::upper_bound(
      Bands.begin(), Bands.end(), Bytes,
      [](uint64_t V, const ProtocolBand &B) { return V < B.MinBytes; });
  return It == Bands.begin() ? Bands.front() : *(It - 1);
}

/// Replaces the zeros of one term by the smallest positive value of the
/// others (all zeros stay).
void fillZeros(std::vector<BandFit> &Bands, double BandFit::*Term) {
  double Least = std::numeric_limits<double>::infinity();
  for (const BandFit &B : Bands)
    if (B.*Term > 0)
      Least = std::min(Least, B.*Term);
  if (Least == std::numeric_limits<double>::infinity())
    return;
  for (BandFit &B : Bands)
    if (!(B.*Term > 0))
      B.*Term = Least;
}

} // namespace

const ProtocolBand &NetworkFit::band(uint64_t Bytes) const {
  return factorsAt(Bands, Bytes);
}

double NetworkFit::predict(uint64_t Bytes, unsigned Hops) const {
  const ProtocolBand &F = band(Bytes);
  return SendOverhead + Hops * Link.Latency * F.LatencyFactor +
         static_cast<double>(Bytes) / (F.BandwidthFactor * Link.Bandwidth);
}

double NetworkFit::predictIntra(uint64_t Bytes) const {
  const ProtocolBand &F = band(Bytes);
  return SendOverhead + Intra.Latency * F.LatencyFactor +
         static_cast<double>(Bytes) / (F.BandwidthFactor * Intra.Bandwidth);
}

NetworkFit makeNetworkFit(std::vector<BandFit> Bands, double Overhead,
                          const Base &B, uint64_t SmallestBytes,
                          uint64_t LargestBytes) {
  assert(!Bands.empty());
  fillZeros(Bands, &BandFit::PerLink);
  fillZeros(Bands, &BandFit::PerByte);
  for (BandFit &X : Bands) // no per-byte cost seen at all: 1 TB/s
    if (!(X.PerByte > 0))
      X.PerByte = 1e-6;
  const BandFit &Small = bandOf(Bands, SmallestBytes);
  const BandFit &Large = bandOf(Bands, LargestBytes);
  NetworkFit Net;
  Net.SendOverhead = Overhead;
  switch (B.K) {
  case Base::Smpi:
    Net.Link.Latency =
        Small.PerLink /
        factorsAt(smpiDefaultFactors(), SmallestBytes).LatencyFactor;
    Net.Link.Bandwidth =
        1 / (Large.PerByte *
             factorsAt(smpiDefaultFactors(), LargestBytes).BandwidthFactor);
    break;
  case Base::Measured:
    Net.Link.Latency = Small.PerLink;
    Net.Link.Bandwidth = 1 / Large.PerByte;
    break;
  case Base::Given:
    Net.Link = B.Link;
    break;
  }
  for (const BandFit &X : Bands)
    Net.Bands.push_back(
        {X.From, Net.Link.Latency > 0 ? X.PerLink / Net.Link.Latency : 1,
         1 / (X.PerByte * Net.Link.Bandwidth)});
  // The first band starts at 0 whatever the smallest probed size was.
  Net.Bands.front().MinBytes = 0;
  return Net;
}

LinkFit fitIntraLink(const std::vector<Sample> &Samples,
                     const NetworkFit &Net) {
  Sums S;
  for (const Sample &X : Samples) {
    const ProtocolBand &F = Net.band(X.Bytes);
    S.add(F.LatencyFactor, static_cast<double>(X.Bytes) / F.BandwidthFactor,
          X.Time - Net.SendOverhead, weight(X.Time));
  }
  Solution Sol = solve(S);
  return {Sol.A, Sol.C > 0 ? 1 / Sol.C : 1e6};
}

NetworkFit fitNetwork(const std::vector<Sample> &Inter,
                      const std::vector<Sample> &Intra, double Overhead,
                      const std::vector<uint64_t> &Froms, const Base &B,
                      uint64_t SmallestBytes, uint64_t LargestBytes) {
  if (Inter.empty()) {
    NetworkFit Net = makeNetworkFit(fitFixedBands(Intra, Overhead, Froms),
                                    Overhead, B, SmallestBytes, LargestBytes);
    Net.HasIntra = !Intra.empty();
    Net.Intra = Net.Link;
    return Net;
  }
  NetworkFit Net = makeNetworkFit(fitFixedBands(Inter, Overhead, Froms),
                                  Overhead, B, SmallestBytes, LargestBytes);
  if (Intra.empty())
    return Net;
  for (int Round = 0; Round < 4; ++Round) {
    LinkFit Link = fitIntraLink(Intra, Net);
    std::vector<Sample> Both = Inter;
    for (Sample X : Intra) {
      X.Hops = 1;
      X.LatencyScale =
          Net.Link.Latency > 0 ? Link.Latency / Net.Link.Latency : 0;
      X.ByteScale = Net.Link.Bandwidth / Link.Bandwidth;
      Both.push_back(X);
    }
    Net = makeNetworkFit(fitFixedBands(Both, Overhead, Froms), Overhead, B,
                         SmallestBytes, LargestBytes);
  }
  Net.HasIntra = true;
  Net.Intra = fitIntraLink(Intra, Net);
  return Net;
}

void fitInjection(const std::vector<FanSample> &Fans, NetworkFit &Net,
                  double Slack) {
  Net.InjectionLinks = 0;
  Net.InjectionBandwidth = 0;
  if (Fans.empty() || !(Fans.front().Rate > 0))
    return;
  const double One = Fans.front().Rate / Fans.front().Flows;
  bool Limited = false;
  double Plateau = 0;
  for (const FanSample &F : Fans) {
    double Free = One * F.Flows / std::max(F.Shared, 1u);
    if (F.Rate < (1 - Slack) * Free)
      Limited = true;
    Plateau = std::max(Plateau, F.Rate);
  }
  if (!Limited)
    return;
  double Links = std::round(Plateau / One);
  if (Links >= 1 && std::fabs(Plateau - Links * One) <= Slack * Links * One)
    Net.InjectionLinks = static_cast<unsigned>(Links);
  else
    Net.InjectionBandwidth = Plateau;
}

bool isFullDuplex(double ExchangeTime, double OneWayTime) {
  return ExchangeTime < 1.5 * OneWayTime;
}

Placement detectPlacement(const std::vector<std::string> &ProcessorNames) {
  Placement P;
  std::map<std::string, int64_t> Ids;
  std::vector<unsigned> Count;
  for (const std::string &Name : ProcessorNames) {
    auto [It, New] = Ids.try_emplace(Name, static_cast<int64_t>(Ids.size()));
    if (New) {
      P.NodeNames.push_back(Name);
      Count.push_back(0);
    }
    P.RankNodes.push_back(It->second);
    ++Count[It->second];
  }
  P.ProcsPerNode =
      Count.empty() ? 1 : *std::max_element(Count.begin(), Count.end());
  const int64_t Nodes = static_cast<int64_t>(P.NodeNames.size());
  const int64_t K = P.ProcsPerNode;
  bool Block = true, Cyclic = true;
  for (size_t R = 0; R < P.RankNodes.size(); ++R) {
    int64_t Rank = static_cast<int64_t>(R);
    Block = Block && P.RankNodes[R] == Rank / K;
    Cyclic = Cyclic && P.RankNodes[R] == Rank % Nodes;
  }
  P.K = Block ? Placement::Block : Cyclic ? Placement::Cyclic : Placement::List;
  return P;
}

std::vector<uint64_t> probeSizes(uint64_t MaxBytes, unsigned PerOctave) {
  std::vector<uint64_t> Sizes = {0};
  if (MaxBytes == 0)
    return Sizes;
  for (unsigned I = 0;; ++I) {
    double V = std::round(std::exp2(static_cast<double>(I) / PerOctave));
    if (V > static_cast<double>(MaxBytes))
      break;
    uint64_t S = static_cast<uint64_t>(V);
    if (S != Sizes.back())
      Sizes.push_back(S);
  }
  if (Sizes.back() != MaxBytes)
    Sizes.push_back(MaxBytes);
  return Sizes;
}

} // namespace collc::probe
