#include "ir/SmpiFactors.h"

#include "ir/Diagnostic.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>

namespace collc {

namespace {

/// A factor as written: a finite number > 0.
llvm::Expected<double> factorValue(llvm::StringRef Text,
                                   llvm::StringRef Chunk) {
  double V;
  if (Text.getAsDouble(V) || !std::isfinite(V) || !(V > 0))
    return error("expected a factor > 0 in '%s', got '%s'", Chunk.str().c_str(),
                 Text.str().c_str());
  return V;
}

/// The factor of \p Steps at \p Bytes.
double at(const FactorSteps &Steps, uint64_t Bytes) {
  double F = 1;
  for (auto [From, Factor] : Steps)
    if (From <= Bytes)
      F = Factor;
  return F;
}

} // namespace

llvm::Expected<FactorSteps> parseSmpiFactor(llvm::StringRef Text) {
  Text = Text.trim();
  if (!Text.contains(':') && !Text.contains(';')) {
    auto V = factorValue(Text, Text);
    if (!V)
      return V.takeError();
    return FactorSteps{{0, *V}};
  }
  llvm::SmallVector<llvm::StringRef, 16> Chunks;
  Text.split(Chunks, ';', -1, /*KeepEmpty=*/false);
  std::vector<std::pair<uint64_t, double>> Thresholds;
  for (llvm::StringRef Chunk : Chunks) {
    Chunk = Chunk.trim();
    auto [T, F] = Chunk.split(':');
    uint64_t Threshold;
    if (!Chunk.contains(':') || F.contains(':') || T.trim().empty() ||
        T.trim().getAsInteger(10, Threshold) ||
        Threshold >= (uint64_t(1) << 62))
      return error("expected threshold:factor, the threshold a size in bytes, "
                   "got '%s'",
                   Chunk.str().c_str());
    auto V = factorValue(F.trim(), Chunk);
    if (!V)
      return V.takeError();
    for (auto &[Seen, Unused] : Thresholds)
      if (Seen == Threshold)
        return error("threshold %llu given twice",
                     static_cast<unsigned long long>(Threshold));
    Thresholds.push_back({Threshold, *V});
  }
  if (Thresholds.empty())
    return error("expected threshold:factor pairs, got '%s'",
                 Text.str().c_str());
  std::sort(Thresholds.begin(), Thresholds.end());
  // A factor applies above its threshold; up to the first, SimGrid's 1.
  FactorSteps Steps{{0, 1}};
  for (auto [Threshold, Factor] : Thresholds)
    Steps.push_back({Threshold + 1, Factor});
  return Steps;
}

std::vector<ProtocolBand> bandsOf(const FactorSteps &Latency,
                                  const FactorSteps &Bandwidth) {
  std::vector<uint64_t> Starts;
  for (const FactorSteps *S : {&Latency, &Bandwidth})
    for (auto [From, Factor] : *S)
      Starts.push_back(From);
  Starts.push_back(0);
  std::sort(Starts.begin(), Starts.end());
  Starts.erase(std::unique(Starts.begin(), Starts.end()), Starts.end());
  std::vector<ProtocolBand> Bands;
  for (uint64_t From : Starts) {
    ProtocolBand B{From, at(Latency, From), at(Bandwidth, From)};
    if (!Bands.empty() && Bands.back().LatencyFactor == B.LatencyFactor &&
        Bands.back().BandwidthFactor == B.BandwidthFactor)
      continue;
    Bands.push_back(B);
  }
  return Bands;
}

FactorSteps factorSteps(const std::vector<ProtocolBand> &Bands,
                        bool Bandwidth) {
  FactorSteps Steps;
  if (Bands.empty() || Bands.front().MinBytes != 0)
    Steps.push_back({0, 1});
  for (const ProtocolBand &B : Bands)
    Steps.push_back(
        {B.MinBytes, Bandwidth ? B.BandwidthFactor : B.LatencyFactor});
  return Steps;
}

const std::vector<ProtocolBand> &smpiDefaultBands() {
  static const std::vector<ProtocolBand> Bands =
      bandsOf(llvm::cantFail(parseSmpiFactor(SmpiDefaultLatFactor)),
              llvm::cantFail(parseSmpiFactor(SmpiDefaultBwFactor)));
  return Bands;
}

bool isSmpiDefault(const std::vector<ProtocolBand> &Bands) {
  const std::vector<ProtocolBand> &D = smpiDefaultBands();
  return Bands.size() == D.size() &&
         std::equal(Bands.begin(), Bands.end(), D.begin(),
                    [](const ProtocolBand &A, const ProtocolBand &B) {
                      return A.MinBytes == B.MinBytes &&
                             A.LatencyFactor == B.LatencyFactor &&
                             A.BandwidthFactor == B.BandwidthFactor;
                    });
}

} // namespace collc
