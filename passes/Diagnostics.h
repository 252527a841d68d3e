/// \file
/// How the verifier's checks (passes/Verify.h and the checks it runs:
/// passes/BlockFlow.h, passes/CallModel.h) word their problems and judge
/// times, so that every problem reads alike.
#ifndef COLLC_PASSES_DIAGNOSTICS_H
#define COLLC_PASSES_DIAGNOSTICS_H

#include "ir/Schedule.h"

#include <cstddef>
#include <string>

namespace collc {

/// What a problem with transfer \p T of step \p StepIdx starts with:
/// "step 3, transfer 1 -> 2: ".
std::string transferWhere(size_t StepIdx, const Transfer &T);

/// \p V to 6 significant digits ("%.6g"), as problems quote times and counts.
std::string formatShort(double V);

/// Whether something that starts at \p Start starts before \p Ready, beyond
/// rounding (a relative 1e-9).
bool startsBeforeReady(double Ready, double Start);

} // namespace collc

#endif
