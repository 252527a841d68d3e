#include "algorithms/OptTree.h"

#include <algorithm>
#include <limits>
#include <sys/mman.h>

namespace collc {

void *allocateHuge(size_t Bytes) {
  constexpr size_t Huge = size_t(2) << 20;
  void *P = nullptr;
  if (Bytes >= 2 * Huge) {
    size_t Rounded = (Bytes + Huge - 1) / Huge * Huge;
    P = std::aligned_alloc(Huge, Rounded);
    if (P)
      madvise(P, Rounded, MADV_HUGEPAGE);
  } else {
    P = std::malloc(Bytes ? Bytes : 1);
  }
  if (!P)
    throw std::bad_alloc();
  return P;
}

OptTreeTable optTreeSplits(int64_t K, double THold, double TEnd) {
  OptTreeTable R;
  size_t N = static_cast<size_t>(std::max<int64_t>(K, 1) + 1);
  // Filled in order with push_back: no separate zeroing pass over what can be
  // hundreds of MiB at k = 10^7.
  R.T.reserve(N);
  R.J.reserve(N);
  R.T.push_back(0); // unused
  R.J.push_back(0);
  R.T.push_back(0); // t[1]
  R.J.push_back(0);
  if (K < 2)
    return R;
  R.T.push_back(TEnd);
  R.J.push_back(1);
  const double *T = R.T.data(); // stable: capacity reserved
  auto Own = [&](int64_t J) { return J == 1 ? 0.0 : T[J] + THold; };
  int64_t J = 1;
  for (int64_t I = 3; I <= K; ++I) {
    double A = std::max(Own(J), T[I - J] + TEnd);
    double B = J + 1 < I ? std::max(Own(J + 1), T[I - 1 - J] + TEnd)
                         : std::numeric_limits<double>::infinity();
    if (A < B) {
      R.T.push_back(A);
    } else {
      R.T.push_back(B);
      ++J;
    }
    R.J.push_back(static_cast<int32_t>(J));
  }
  return R;
}

OptTreeTable optTreeQuadratic(int64_t K, double THold, double TEnd) {
  OptTreeTable R;
  R.T.assign(static_cast<size_t>(std::max<int64_t>(K, 1) + 1), 0);
  R.J.assign(R.T.size(), 0);
  for (int64_t I = 2; I <= K; ++I) {
    double Best = std::numeric_limits<double>::infinity();
    int64_t BestJ = 0;
    for (int64_t J = 1; J < I; ++J) {
      double Own = J == 1 ? 0.0 : R.T[J] + THold;
      double V = std::max(Own, R.T[I - J] + TEnd);
      if (V < Best) {
        Best = V;
        BestJ = J;
      }
    }
    R.T[I] = Best;
    R.J[I] = static_cast<int32_t>(BestJ);
  }
  return R;
}

} // namespace collc
