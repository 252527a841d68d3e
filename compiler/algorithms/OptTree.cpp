#include "compiler/algorithms/OptTree.h"

#include <algorithm>
#include <limits>

namespace collc {

OptTreeTable optTreeSplits(int64_t K, double THold, double TEnd) {
  OptTreeTable R;
  R.T.assign(static_cast<size_t>(std::max<int64_t>(K, 1) + 1), 0);
  R.J.assign(R.T.size(), 0);
  if (K < 2)
    return R;
  double *T = R.T.data();
  auto Own = [&](int64_t J) { return J == 1 ? 0.0 : T[J] + THold; };
  T[2] = TEnd;
  R.J[2] = 1;
  int64_t J = 1;
  for (int64_t I = 3; I <= K; ++I) {
    double A = std::max(Own(J), T[I - J] + TEnd);
    double B = J + 1 < I ? std::max(Own(J + 1), T[I - 1 - J] + TEnd)
                         : std::numeric_limits<double>::infinity();
    if (A < B) {
      T[I] = A;
    } else {
      T[I] = B;
      ++J;
    }
    R.J[I] = static_cast<int32_t>(J);
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
