/// \file
/// The environment settings that both the generated code's runtime
/// (collc/runtime.h) and the drop-in library read, parsed in one place so
/// that they mean the same everywhere. Plain C++17, no MPI.
#ifndef COLLC_RUNTIME_SETTINGS_H
#define COLLC_RUNTIME_SETTINGS_H

#include <cctype>
#include <cstdint>

namespace collc {
namespace rt {

/// How much COLLC_VERBOSE asks to be told: 0 nothing (unset, empty, `0`,
/// `off`, `no`, `false`, in any case), 2 every rank (`all`), 1 otherwise
/// (`1`, `yes`, ...: rank 0 of each communicator).
inline int verbosityOf(const char *Value) {
  if (!Value)
    return 0;
  // Trimmed and lower-cased into a small buffer; longer values are "on".
  while (*Value == ' ' || *Value == '\t')
    ++Value;
  char W[8];
  int N = 0;
  for (; Value[N] && N < 7; ++N)
    W[N] =
        static_cast<char>(std::tolower(static_cast<unsigned char>(Value[N])));
  if (Value[N])
    return 1;
  while (N > 0 && (W[N - 1] == ' ' || W[N - 1] == '\t'))
    --N;
  W[N] = 0;
  auto Is = [&](const char *S) {
    int I = 0;
    for (; S[I] && W[I] == S[I]; ++I)
      ;
    return !S[I] && !W[I];
  };
  if (N == 0 || Is("0") || Is("off") || Is("no") || Is("false"))
    return 0;
  return Is("all") ? 2 : 1;
}

/// The largest piece of a message given to one MPI call: 1 GiB by
/// default, or what COLLC_MAX_PIECE gives, a decimal byte count from 1 to
/// 2^30. Any other value is not used (the default holds) and \p Valid,
/// when given, is set false, so that the drop-in can say so.
inline uint64_t maxPieceOf(const char *Value, bool *Valid = nullptr) {
  const uint64_t Most = uint64_t(1) << 30;
  if (Valid)
    *Valid = true;
  if (!Value)
    return Most;
  uint64_t V = 0;
  const char *C = Value;
  for (; *C >= '0' && *C <= '9' && V <= Most; ++C)
    V = V * 10 + static_cast<uint64_t>(*C - '0');
  if (C == Value || *C || V < 1 || V > Most) {
    if (Valid)
      *Valid = false;
    return Most;
  }
  return V;
}

} // namespace rt
} // namespace collc

#endif
