/// \file
/// OPT-tree (paper 000, section 2): the optimal multicast tree under the
/// parameterized model, by dynamic programming over the group size.
///
/// t[1] = 0; t[i] = min over 1 <= j < i of max(own(j), t[i-j] + t_end), where
/// own(j) = t[j] + t_hold is when the root's own j-node subtree is done (the
/// root serves it after its first send), and own(1) = 0: a root left alone
/// has nothing more to do. The paper writes t[j] + t_hold for every j; the two
/// agree whenever t_hold <= t_end (the paper's assumption) and only the form
/// above is the multicast time when t_hold > t_end.
#ifndef COLLC_ALGORITHMS_OPTTREE_H
#define COLLC_ALGORITHMS_OPTTREE_H

#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

namespace collc {

/// Allocator for the DP's tables: at k = 10^7 they are 120 MB, and faulting
/// them in 4 KiB pages costs more than the DP itself. Large blocks are
/// 2 MiB-aligned and advised as huge pages where the kernel offers them.
template <typename T> struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U> HugePageAllocator(const HugePageAllocator<U> &) {}
  T *allocate(size_t N);
  void deallocate(T *P, size_t) { std::free(P); }
  bool operator==(const HugePageAllocator &) const { return true; }
};
void *allocateHuge(size_t Bytes);
template <typename T> T *HugePageAllocator<T>::allocate(size_t N) {
  return static_cast<T *>(allocateHuge(N * sizeof(T)));
}
template <typename T> using BigVector = std::vector<T, HugePageAllocator<T>>;

/// T[i]: optimal multicast time of i nodes; J[i]: the size of the subtree the
/// root keeps (the j_i of Algorithm 1). Index 0 unused; J[1] = 0.
struct OptTreeTable {
  BigVector<double> T;
  BigVector<int32_t> J;
};

/// Algorithm 1 of the paper: O(k), using Theorem 2.1 (j_{i+1} is j_i or j_i+1).
OptTreeTable optTreeSplits(int64_t K, double THold, double TEnd);

/// The plain O(k^2) recurrence; the test oracle for optTreeSplits.
OptTreeTable optTreeQuadratic(int64_t K, double THold, double TEnd);

} // namespace collc

#endif
