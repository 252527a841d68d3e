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
#ifndef COLLC_COMPILER_ALGORITHMS_OPTTREE_H
#define COLLC_COMPILER_ALGORITHMS_OPTTREE_H

#include <cstdint>
#include <vector>

namespace collc {

/// T[i]: optimal multicast time of i nodes; J[i]: the size of the subtree the
/// root keeps (the j_i of Algorithm 1). Index 0 unused; J[1] = 0.
struct OptTreeTable {
  std::vector<double> T;
  std::vector<int32_t> J;
};

/// Algorithm 1 of the paper: O(k), using Theorem 2.1 (j_{i+1} is j_i or j_i+1).
OptTreeTable optTreeSplits(int64_t K, double THold, double TEnd);

/// The plain O(k^2) recurrence; the test oracle for optTreeSplits.
OptTreeTable optTreeQuadratic(int64_t K, double THold, double TEnd);

} // namespace collc

#endif
