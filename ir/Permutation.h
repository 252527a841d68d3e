/// \file
/// Nodes of permutation topologies (star graphs, macro-star graphs) are the
/// permutations of k symbols. Symbols are written 1..9 then a for the tenth,
/// so "14523" is a node of S_5. A permutation's node number is its rank in
/// lexicographic order (its Lehmer code read as a factorial-base number):
/// "12345" is node 0, "54321" is node 119.
#ifndef COLLC_IR_PERMUTATION_H
#define COLLC_IR_PERMUTATION_H

#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collc {

/// k! (k <= 20).
int64_t permutationCount(int64_t K);
/// Symbol values 0..k-1 of \p Text, or nullopt with \p Why set.
std::optional<std::vector<int>> parsePermutation(llvm::StringRef Text,
                                                 int64_t K, std::string &Why);
/// The number of symbols in a set of symbols (bit s for symbol s). SWAR:
/// std::popcount becomes a library call without -mpopcnt.
inline int symbolCount(uint32_t X) {
  X = X - (X >> 1 & 0x55555555u);
  X = (X & 0x33333333u) + (X >> 2 & 0x33333333u);
  return static_cast<int>(((X + (X >> 4)) & 0x0f0f0f0fu) * 0x01010101u >> 24);
}
/// A permutation of k <= 20 symbols held without allocation, for the loops
/// that visit every node of a star graph; positions k..19 are unused.
using Symbols = std::array<int8_t, 20>;
/// Lexicographic rank of the permutation S_0..S_{k-1} of 0..k-1.
int64_t rankSymbols(const Symbols &S, int K);
/// Inverse of rankSymbols.
Symbols unrankSymbols(int64_t Rank, int K);
/// Lexicographic rank of a permutation of 0..k-1 (rankSymbols).
int64_t rankPermutation(const std::vector<int> &P);
/// Inverse of rankPermutation.
std::vector<int> unrankPermutation(int64_t Rank, int64_t K);
/// Text form of a permutation of 0..k-1 ("14523").
std::string formatPermutation(const std::vector<int> &P);

} // namespace collc

#endif
