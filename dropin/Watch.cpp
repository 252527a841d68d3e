//===- Watch.cpp - served calls against the model and the library ---------===//
//
// See Watch.h. Plain C++, without MPI: the library (Interpose.cpp) times the
// calls and does the one agreement the trial needs.
//
//===----------------------------------------------------------------------===//

#include "dropin/Watch.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cmath>

namespace collc {
namespace dropin {

namespace {

/// Whether \p Text is one of the spellings of "on" (1) or "off" (0); -1
/// otherwise.
int onOff(llvm::StringRef Text) {
  const std::string T = Text.trim().lower();
  if (T == "1" || T == "on" || T == "yes" || T == "true")
    return 1;
  if (T.empty() || T == "0" || T == "off" || T == "no" || T == "false")
    return 0;
  return -1;
}

} // namespace

WatchConfig parseWatch(const char *Watch, const char *Adapt,
                       std::vector<std::string> &Notes) {
  WatchConfig C;
  if (Watch) {
    llvm::StringRef Text = llvm::StringRef(Watch).trim();
    double Factor = 0;
    if (onOff(Text) == 0)
      C.Factor = 0;
    else if (!Text.getAsDouble(Factor) && Factor >= 1.1 && Factor <= 1000)
      C.Factor = Factor;
    else
      Notes.push_back("COLLC_WATCH='" + Text.str() +
                      "' is not 'off' or a factor from 1.1 to 1000: served "
                      "calls are compared with the model at the default "
                      "factor 4");
  }
  if (Adapt) {
    int On = onOff(Adapt);
    if (On < 0)
      Notes.push_back("COLLC_ADAPT='" + llvm::StringRef(Adapt).trim().str() +
                      "' is not 1 or 0: collc's calls are not compared with "
                      "the MPI library's");
    C.Adapt = On == 1;
  }
  return C;
}

std::array<double, 2> predictedRange(double Makespan, uint64_t BuiltBytes,
                                     uint64_t Bytes) {
  double Scaled = Makespan;
  if (BuiltBytes > 0)
    Scaled =
        Makespan * static_cast<double>(Bytes) / static_cast<double>(BuiltBytes);
  return {std::min(Makespan, Scaled), std::max(Makespan, Scaled)};
}

double median(std::vector<double> V) {
  if (V.empty())
    return 0;
  const size_t Mid = V.size() / 2;
  std::nth_element(V.begin(), V.begin() + Mid, V.end());
  if (V.size() % 2)
    return V[Mid];
  const double Upper = V[Mid];
  const double Lower = *std::max_element(V.begin(), V.begin() + Mid);
  return (Lower + Upper) / 2;
}

Watch::Side Watch::next() const {
  if (!C.Adapt)
    return Collc;
  if (Agreed)
    return Kept;
  // Call 0: collc's warm-up; 1: the library's; then alternating, collc on
  // the even calls.
  return Calls % 2 == 0 ? Collc : Library;
}

bool Watch::sampling() const {
  const uint64_t Sides = C.Adapt ? 2 : 1;
  return !Agreed && (C.Adapt || C.Factor > 0) &&
         Calls < warmups() + Sides * static_cast<uint64_t>(C.Samples);
}

void Watch::record(double Micros, std::array<double, 2> Range) {
  if (!sampling())
    return;
  const Side S = next();
  if (Calls++ < warmups())
    return;
  Times[S].push_back(Micros);
  if (S == Collc)
    Predicted.push_back(Range);
}

bool Watch::needsAgreement() const {
  const size_t N = static_cast<size_t>(C.Samples);
  return !Agreed && (C.Adapt || C.Factor > 0) && Times[Collc].size() >= N &&
         (!C.Adapt || Times[Library].size() >= N);
}

std::vector<double> Watch::samples() const {
  std::vector<double> All(2 * static_cast<size_t>(C.Samples), 0.0);
  for (int S : {Collc, Library})
    for (size_t I = 0; I < Times[S].size() && I < All.size() / 2; ++I)
      All[S * All.size() / 2 + I] = Times[S][I];
  return All;
}

void Watch::agree(const std::vector<double> &Slowest) {
  Agreed = true;
  const size_t N = Slowest.size() / 2;
  Times[Collc].assign(Slowest.begin(), Slowest.begin() + N);
  if (C.Adapt) {
    Times[Library].assign(Slowest.begin() + N, Slowest.end());
    const std::array<double, 2> M = medians();
    Kept = M[Library] < M[Collc] ? Library : Collc;
  }
}

std::array<double, 2> Watch::medians() const {
  return {median(Times[Collc]), median(Times[Library])};
}

std::optional<double> Watch::departure() {
  if (C.Factor <= 0 || !Agreed || Departed)
    return std::nullopt;
  Departed = true;
  std::vector<double> Ratios;
  for (size_t I = 0; I < Times[Collc].size() && I < Predicted.size(); ++I) {
    const double T = Times[Collc][I];
    const auto [Lo, Hi] = Predicted[I];
    Ratios.push_back(T > Hi && Hi > 0  ? T / Hi
                     : T < Lo && T > 0 ? T / Lo
                                       : 1.0);
  }
  const double M = median(Ratios);
  if (M > C.Factor || M * C.Factor < 1)
    return M;
  return std::nullopt;
}

} // namespace dropin
} // namespace collc
