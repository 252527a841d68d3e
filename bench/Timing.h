/// \file
/// What every benchmark times with: a steady clock, seconds between two of
/// its points, and the median of repeated runs.
#ifndef COLLC_BENCH_TIMING_H
#define COLLC_BENCH_TIMING_H

#include <algorithm>
#include <chrono>
#include <ctime>
#include <vector>

namespace collc::bench {

using Clock = std::chrono::steady_clock;

inline double seconds(Clock::time_point A, Clock::time_point B) {
  return std::chrono::duration<double>(B - A).count();
}

/// CPU time of this process so far, in seconds: other work on a shared
/// machine moves it less than the wall clock.
inline double cpuSeconds() {
  timespec T;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &T);
  return static_cast<double>(T.tv_sec) + static_cast<double>(T.tv_nsec) * 1e-9;
}

/// The median of \p V (the mean of the middle two for an even count).
inline double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  if (N == 0)
    return 0;
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

} // namespace collc::bench

#endif
