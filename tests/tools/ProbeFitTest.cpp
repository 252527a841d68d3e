// collc-probe's fits without MPI (tools/probe/Fit.h): band splitting and
// bisection on a synthetic machine with SMPI's factors, the base link
// conventions, the intra-node link, injection limits, duplex, placement.
#include "tools/probe/Fit.h"

#include <doctest/doctest.h>

#include <cmath>

using collc::ProtocolBand;
using namespace collc::probe;

namespace {

/// The synthetic machine: 1 µs and 12500 bytes/µs links, SMPI's default
/// factors from their thresholds on, no send overhead.
const LinkFit Links{1, 12500};

double smpiTime(uint64_t Bytes, unsigned Hops, LinkFit L = Links) {
  NetworkFit Net;
  Net.Link = L;
  Net.Bands = smpiDefaultFactors();
  return Net.predict(Bytes, Hops);
}

std::vector<Sample> smpiSamples(const std::vector<unsigned> &Hops) {
  std::vector<Sample> S;
  for (uint64_t Bytes : probeSizes(uint64_t(16) << 20, 4))
    for (unsigned H : Hops) {
      Sample X;
      X.Bytes = Bytes;
      X.Hops = H;
      X.Time = smpiTime(Bytes, H);
      S.push_back(X);
    }
  return S;
}

double worstError(const NetworkFit &Net, const std::vector<Sample> &S) {
  double W = 0;
  for (const Sample &X : S)
    W = std::max(W, std::fabs(Net.predict(X.Bytes, X.Hops) - X.Time) / X.Time);
  return W;
}

} // namespace

TEST_CASE("probe sizes: 0, 1, then log-spaced with every power of two, up "
          "to the largest") {
  std::vector<uint64_t> S = probeSizes(1024, 4);
  CHECK(S.front() == 0);
  CHECK(S[1] == 1);
  CHECK(S.back() == 1024);
  CHECK(std::is_sorted(S.begin(), S.end()));
  CHECK(std::adjacent_find(S.begin(), S.end()) == S.end());
  for (uint64_t P = 1; P <= 1024; P *= 2)
    CHECK(std::find(S.begin(), S.end(), P) != S.end());
  CHECK(probeSizes(1000, 2).back() == 1000);
  // Four per doubling puts at least two sizes in every SMPI band.
  std::vector<uint64_t> Big = probeSizes(uint64_t(16) << 20, 4);
  const auto &F = smpiDefaultFactors();
  for (size_t I = 0; I + 1 < F.size(); ++I) {
    auto In = std::count_if(Big.begin(), Big.end(), [&](uint64_t B) {
      return B >= F[I].MinBytes && B < F[I + 1].MinBytes;
    });
    CHECK(In >= 2);
  }
}

TEST_CASE("median and spread of repetitions") {
  std::vector<double> V = {5, 1, 3};
  CHECK(median(V) == 3);
  V = {4, 1, 3, 2};
  CHECK(median(V) == 2.5);
  V = {10, 10, 10, 10};
  CHECK(relativeSpread(V) == 0);
  V = {8, 9, 10, 11, 12};
  CHECK(relativeSpread(V) == doctest::Approx(0.1)); // (11 - 9) / 2 / 10
}

TEST_CASE("band fit: SMPI's factors recovered from ping-pongs over 1, 2 and "
          "4 links, thresholds exact after bisection") {
  std::vector<Sample> S = smpiSamples({1, 2, 4});
  std::vector<BandFit> Bands = fitBands(S, 0);
  // SMPI's bands from 257 and 732 differ by less than 1.2% in either factor
  // and may merge; every other boundary is found.
  CHECK(Bands.size() >= 8);
  CHECK(Bands.size() <= 9);

  // Bisect every boundary against the machine.
  std::vector<uint64_t> Sizes = probeSizes(uint64_t(16) << 20, 4);
  std::vector<uint64_t> Froms = {0};
  std::vector<Sample> Extra;
  for (size_t B = 1; B < Bands.size(); ++B) {
    auto Below = std::lower_bound(Sizes.begin(), Sizes.end(), Bands[B].From);
    Froms.push_back(refineBoundary(
        Bands[B - 1], Bands[B], *(Below - 1), Bands[B].From, 0,
        [](uint64_t Bytes) {
          Sample X;
          X.Bytes = Bytes;
          X.Time = smpiTime(Bytes, 1);
          return X;
        },
        24, Extra));
  }
  CHECK(!Extra.empty());
  for (uint64_t F : Froms) {
    bool IsSmpi = false;
    for (const ProtocolBand &P : smpiDefaultFactors())
      IsSmpi = IsSmpi || P.MinBytes == F;
    CHECK_MESSAGE(IsSmpi, "boundary " << F);
  }

  S.insert(S.end(), Extra.begin(), Extra.end());
  NetworkFit Net = fitNetwork(S, {}, 0, Froms, Base{}, 0, uint64_t(16) << 20);
  CHECK(Net.Link.Latency == doctest::Approx(1).epsilon(1e-9));
  CHECK(Net.Link.Bandwidth == doctest::Approx(12500).epsilon(1e-9));
  for (const ProtocolBand &F : Net.Bands) {
    const ProtocolBand *Smpi = nullptr;
    for (const ProtocolBand &P : smpiDefaultFactors())
      if (P.MinBytes == F.MinBytes)
        Smpi = &P;
    REQUIRE(Smpi);
    // Exact where the band is SMPI's; within the merged band's spread where
    // two merged.
    CHECK(F.LatencyFactor ==
          doctest::Approx(Smpi->LatencyFactor).epsilon(0.01));
    CHECK(F.BandwidthFactor ==
          doctest::Approx(Smpi->BandwidthFactor).epsilon(0.02));
  }
  CHECK(worstError(Net, S) < 0.002);
}

TEST_CASE("band fit: one regime is one band; the fewest bands within the "
          "tolerance win") {
  std::vector<Sample> S;
  for (uint64_t Bytes : probeSizes(1 << 20, 4)) {
    Sample X;
    X.Bytes = Bytes;
    X.Time = 0.5 + 3 + static_cast<double>(Bytes) / 1000;
    S.push_back(X);
  }
  std::vector<BandFit> Bands = fitBands(S, 0.5);
  REQUIRE(Bands.size() == 1);
  CHECK(Bands[0].From == 0);
  CHECK(Bands[0].PerLink == doctest::Approx(3));
  CHECK(Bands[0].PerByte == doctest::Approx(0.001));

  // A jump in the per-byte cost at 64 KiB: two bands, split where it jumps.
  for (Sample &X : S)
    if (X.Bytes >= 65536)
      X.Time = 0.5 + 9 + static_cast<double>(X.Bytes) / 1500;
  Bands = fitBands(S, 0.5);
  REQUIRE(Bands.size() == 2);
  CHECK(Bands[1].From == 65536);
  CHECK(Bands[1].PerLink == doctest::Approx(9));
}

TEST_CASE("band fit: negative least-squares terms are clamped at 0, never "
          "below") {
  // A noisy band whose per-byte slope comes out negative.
  std::vector<Sample> S;
  for (uint64_t Bytes : {0, 1, 2, 4, 8, 16, 32, 64}) {
    Sample X;
    X.Bytes = Bytes;
    X.Time = Bytes < 16 ? 2.0 : 1.9;
    S.push_back(X);
  }
  std::vector<BandFit> Bands = fitFixedBands(S, 0, {0});
  CHECK(Bands[0].PerLink > 0);
  CHECK(Bands[0].PerByte == 0);
  // makeNetworkFit gives the zero term the least positive of the others.
  Bands.push_back({1024, 3, 0.002});
  NetworkFit Net = makeNetworkFit(Bands, 0, {Base::Measured, {}}, 0, 2048);
  CHECK(std::isfinite(Net.Bands[0].BandwidthFactor));
  CHECK(Net.Bands[0].BandwidthFactor == doctest::Approx(1));
}

TEST_CASE("fixed bands: a band without samples takes its neighbour's fit") {
  std::vector<Sample> S = {{0, 1, 2, 0}, {100, 1, 3, 0}};
  std::vector<BandFit> Bands = fitFixedBands(S, 0, {0, 1000});
  REQUIRE(Bands.size() == 2);
  CHECK(Bands[1].From == 1000);
  CHECK(Bands[1].PerLink == Bands[0].PerLink);
  CHECK(Bands[1].PerByte == Bands[0].PerByte);
}

TEST_CASE("base link: smpi, measured and given splits predict alike") {
  std::vector<BandFit> Bands = {{0, 2, 0.0001}, {65536, 10, 0.00008}};
  NetworkFit Smpi = makeNetworkFit(Bands, 0.1, {Base::Smpi, {}}, 0, 1 << 24);
  NetworkFit Measured =
      makeNetworkFit(Bands, 0.1, {Base::Measured, {}}, 0, 1 << 24);
  NetworkFit Given =
      makeNetworkFit(Bands, 0.1, {Base::Given, {0.5, 20000}}, 0, 1 << 24);
  CHECK(Smpi.Link.Latency == doctest::Approx(2 / 2.01467));
  CHECK(Smpi.Bands[0].LatencyFactor == doctest::Approx(2.01467));
  CHECK(Smpi.Bands[1].BandwidthFactor == doctest::Approx(0.940694));
  CHECK(Measured.Link.Latency == doctest::Approx(2));
  CHECK(Measured.Link.Bandwidth == doctest::Approx(12500));
  CHECK(Measured.Bands[0].LatencyFactor == doctest::Approx(1));
  CHECK(Measured.Bands[1].BandwidthFactor == doctest::Approx(1));
  CHECK(Given.Link.Latency == 0.5);
  CHECK(Given.Bands[0].LatencyFactor == doctest::Approx(4));
  for (uint64_t Bytes : {0, 100, 65535, 65536, 1 << 20})
    for (unsigned H : {1, 3}) {
      double T =
          0.1 + H * (Bytes < 65536 ? 2 : 10) +
          static_cast<double>(Bytes) * (Bytes < 65536 ? 0.0001 : 0.00008);
      CHECK(Smpi.predict(Bytes, H) == doctest::Approx(T));
      CHECK(Measured.predict(Bytes, H) == doctest::Approx(T));
      CHECK(Given.predict(Bytes, H) == doctest::Approx(T));
    }
}

TEST_CASE("intra-node link: fitted under the bands' factors, and with the "
          "links' samples in the bands") {
  const LinkFit Intra{0.25, 40000};
  std::vector<Sample> Inter = smpiSamples({1, 3}), Local;
  for (uint64_t Bytes : probeSizes(uint64_t(16) << 20, 4)) {
    Sample X;
    X.Bytes = Bytes;
    X.Time = smpiTime(Bytes, 1, Intra);
    Local.push_back(X);
  }
  std::vector<uint64_t> Froms;
  for (const ProtocolBand &F : smpiDefaultFactors())
    Froms.push_back(F.MinBytes);
  NetworkFit Net =
      fitNetwork(Inter, Local, 0, Froms, Base{}, 0, uint64_t(16) << 20);
  REQUIRE(Net.HasIntra);
  CHECK(Net.Intra.Latency == doctest::Approx(0.25));
  CHECK(Net.Intra.Bandwidth == doctest::Approx(40000));
  for (const Sample &X : Local)
    CHECK(Net.predictIntra(X.Bytes) == doctest::Approx(X.Time));

  // Everything on one node: the links are the intra-node fit.
  NetworkFit One = fitNetwork({}, Local, 0, Froms, Base{Base::Measured, {}}, 0,
                              uint64_t(16) << 20);
  CHECK(One.HasIntra);
  CHECK(One.Intra.Latency == One.Link.Latency);
  CHECK(One.predict(4096, 1) == doctest::Approx(smpiTime(4096, 1, Intra)));
}

TEST_CASE("injection: no limit when the links explain the rates; a link "
          "count or a bandwidth otherwise") {
  auto Fit = [](const std::vector<FanSample> &Fans) {
    NetworkFit Net;
    Net.InjectionLinks = 7; // overwritten
    fitInjection(Fans, Net);
    return Net;
  };
  // Four neighbours on four links of a torus.
  CHECK(Fit({{1, 1, 100}, {2, 1, 200}, {3, 1, 300}, {4, 1, 395}})
            .InjectionLinks == 0);
  // Flows sharing the first link: half the rate is what the links allow.
  NetworkFit Shared = Fit({{1, 1, 100}, {2, 1, 200}, {3, 2, 160}, {4, 2, 205}});
  CHECK(Shared.InjectionLinks == 0);
  CHECK(Shared.InjectionBandwidth == 0);
  // A crossbar read as one: every flow its link, yet one flow's rate in all.
  NetworkFit One = Fit({{1, 1, 100}, {2, 1, 100}, {3, 1, 101}, {4, 1, 99}});
  CHECK(One.InjectionLinks == 1);
  CHECK(One.InjectionBandwidth == 0);
  // A plateau between link multiples: a bandwidth.
  NetworkFit Bw = Fit({{1, 1, 100}, {2, 1, 150}, {3, 1, 150}, {4, 1, 148}});
  CHECK(Bw.InjectionLinks == 0);
  CHECK(Bw.InjectionBandwidth == 150);
}

TEST_CASE("duplex: an exchange within 1.5 one-way times is full duplex") {
  CHECK(isFullDuplex(105, 100));
  CHECK_FALSE(isFullDuplex(195, 100));
}

TEST_CASE("placement from processor names: block, cyclic, list") {
  Placement One = detectPlacement({"a", "b", "c"});
  CHECK(One.K == Placement::Block);
  CHECK(One.ProcsPerNode == 1);
  CHECK(One.NodeNames == std::vector<std::string>{"a", "b", "c"});

  Placement Block = detectPlacement({"a", "a", "b", "b", "c"});
  CHECK(Block.K == Placement::Block);
  CHECK(Block.ProcsPerNode == 2);
  CHECK(Block.RankNodes == std::vector<int64_t>{0, 0, 1, 1, 2});

  Placement Cyclic = detectPlacement({"x", "y", "x", "y"});
  CHECK(Cyclic.K == Placement::Cyclic);
  CHECK(Cyclic.ProcsPerNode == 2);

  Placement List = detectPlacement({"x", "y", "y", "x", "x"});
  CHECK(List.K == Placement::List);
  CHECK(List.ProcsPerNode == 3);
  CHECK(List.RankNodes == std::vector<int64_t>{0, 1, 1, 0, 0});
}
