#include "passes/Diagnostics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace collc {

std::string transferWhere(size_t StepIdx, const Transfer &T) {
  return "step " + std::to_string(StepIdx) + ", transfer " +
         std::to_string(T.Src) + " -> " + std::to_string(T.Dst) + ": ";
}

std::string formatShort(double V) {
  char Buf[64];
  snprintf(Buf, sizeof(Buf), "%.6g", V);
  return Buf;
}

bool startsBeforeReady(double Ready, double Start) {
  return Start < Ready - 1e-9 * std::max(1.0, std::fabs(Ready));
}

} // namespace collc
