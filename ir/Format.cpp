#include "ir/Format.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace collc {

std::string formatNumber(double V) {
  if (std::isnan(V))
    return "null";
  if (std::isinf(V))
    return V > 0 ? "1e999" : "-1e999";
  char Buf[64];
  auto R = std::to_chars(Buf, Buf + sizeof(Buf), V);
  return std::string(Buf, R.ptr);
}

std::string formatBound(double V) {
  if (V == std::floor(V) && std::fabs(V) < 1e15)
    return std::to_string(static_cast<long long>(V));
  std::string S = formatNumber(V);
  if (auto E = S.find("e+"); E != std::string::npos)
    S.erase(E + 1, 1);
  return S;
}

std::string formatRounded(double V) {
  if (std::isnan(V))
    return "-";
  char Buf[64];
  snprintf(Buf, sizeof(Buf), "%.10g", V);
  return Buf;
}

} // namespace collc
