/// \file
/// How collc writes numbers: exactly for machines (JSON, traces, generated
/// code), rounded for people (reports, charts).
#ifndef COLLC_IR_FORMAT_H
#define COLLC_IR_FORMAT_H

#include <string>

namespace collc {

/// Shortest decimal text that reads back as \p V ("135", "0.02"); "null" for
/// NaN.
std::string formatNumber(double V);
/// A bound in a message, as people write it: "0", "0.5", "1e300".
std::string formatBound(double V);
/// \p V rounded to 10 significant digits for people ("587.68" where the sum
/// of the model's terms is 587.6800000000001).
std::string formatRounded(double V);

} // namespace collc

#endif
