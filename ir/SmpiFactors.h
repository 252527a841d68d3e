/// \file
/// SMPI's protocol factors as collc's protocol bands (ir/Network.h).
///
/// SMPI scales a message's latency and bandwidth by piecewise-constant
/// factors of its size, configured as `smpi/lat-factor` and `smpi/bw-factor`
/// in the syntax "threshold:factor;threshold:factor;..." (a single number:
/// that factor at every size). SimGrid (kernel/resource/FactorSet) applies
/// the factor of the largest threshold strictly below the size, and 1 up to
/// the smallest threshold: a size of exactly 65472 takes the factor of the
/// threshold below 65472. As bands, threshold T starts a band at T + 1, and
/// the sizes up to the smallest threshold form a band of factor 1 from 0:
/// the conversion is exact at every size.
///
/// A network's bands carry both factors; SMPI gives each its own thresholds.
/// bandsOf() merges two step functions into bands (a band starts wherever
/// either factor changes) and factorSteps() takes one back out, so that a
/// command line may replace one of the two.
#ifndef COLLC_IR_SMPIFACTORS_H
#define COLLC_IR_SMPIFACTORS_H

#include "ir/Network.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace collc {

/// SimGrid 3.32's default smpi/lat-factor and smpi/bw-factor.
constexpr const char *SmpiDefaultLatFactor =
    "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;"
    "1426:1.61075;732:1.9503;257:1.95341;0:2.01467";
constexpr const char *SmpiDefaultBwFactor =
    "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;"
    "1426:0.608902;732:0.341987;257:0.338112;0:0.812084";

/// A factor as a function of the message size: (first size, factor) pairs,
/// the first at 0, sizes rising strictly.
using FactorSteps = std::vector<std::pair<uint64_t, double>>;

/// Reads SMPI's "threshold:factor;..." syntax (or one number). Thresholds
/// are integers, factors finite numbers > 0. The error says what is wrong
/// with which chunk, without naming the option.
llvm::Expected<FactorSteps> parseSmpiFactor(llvm::StringRef Text);

/// Bands that carry \p Latency and \p Bandwidth at every size; adjacent
/// bands with equal factors are one band.
std::vector<ProtocolBand> bandsOf(const FactorSteps &Latency,
                                  const FactorSteps &Bandwidth);

/// The latency (or, with \p Bandwidth, the bandwidth) factor of \p Bands as
/// steps; no bands: factor 1.
FactorSteps factorSteps(const std::vector<ProtocolBand> &Bands, bool Bandwidth);

/// SMPI 3.32's default bands (the two default strings above).
const std::vector<ProtocolBand> &smpiDefaultBands();

/// Whether \p Bands are SMPI 3.32's defaults.
bool isSmpiDefault(const std::vector<ProtocolBand> &Bands);

} // namespace collc

#endif
