/// \file
/// Star graphs S_k and macro-star graphs MS(l, n) (paper 002) as Cayley
/// graphs acting on node numbers.
///
/// A node is a permutation u_1 u_2 ... u_k of k symbols; its node number is
/// the permutation's lexicographic rank (ir/Permutation.h). Positions are
/// 1-based in the paper and in generator names, 0-based in the code.
///
/// Generators (each is an involution, so every edge is undirected):
///  - T_j (2 <= j <= k for S_k, 2 <= j <= n+1 for MS(l, n)): swap u_1 and u_j;
///  - S_i (2 <= i <= l, MS(l, n) only): swap cluster 1 (positions 2..n+1) with
///    cluster i (positions (i-1)n+2 .. in+1).
/// Example (MS(2,2)): T_2(14523) = 41523, T_3(14523) = 54123,
/// S_2(41523) = 42315.
#ifndef COLLC_IR_STARGRAPH_H
#define COLLC_IR_STARGRAPH_H

#include "ir/Machine.h"
#include "ir/Permutation.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collc {

/// One edge generator of a star or macro-star graph.
struct Generator {
  enum KindT : uint8_t { T, S } Kind = T;
  /// j of T_j or i of S_i (1-based, as in the paper).
  int Index = 2;
  bool operator==(const Generator &O) const = default;
  std::string name() const;
};

/// A star graph S_k or a macro-star graph MS(l, n). S_k is MS(1, k-1).
class StarGraph {
public:
  /// S_k.
  static StarGraph star(int K);
  /// MS(l, n), k = n*l + 1 symbols.
  static StarGraph macroStar(int L, int N);
  /// The graph of a star or macro-star topology (nullopt for other kinds).
  static std::optional<StarGraph> of(const Topology &T);

  int symbols() const { return K; }
  int clusters() const { return L; }
  int clusterSize() const { return N; }
  bool isStar() const { return L == 1; }
  int64_t nodes() const { return Nodes; }
  /// T_2..T_{n+1}, then S_2..S_l: the degree is n + l - 1.
  const std::vector<Generator> &generators() const { return Gens; }

  /// Applies \p G to the permutation \p P in place.
  void apply(Generator G, std::vector<int> &P) const;
  void apply(Generator G, Symbols &P) const;
  /// The neighbour of node \p Node along \p G.
  int64_t neighbour(int64_t Node, Generator G) const;
  /// The generator joining \p A and \p B, or nullopt when they are not
  /// adjacent.
  std::optional<Generator> generatorBetween(int64_t A, int64_t B) const;
  /// "14523".
  std::string name(int64_t Node) const;
  /// "S_5" or "MS(2,2)".
  std::string title() const;

private:
  int K = 1, L = 1, N = 0;
  int64_t Nodes = 1;
  std::vector<Generator> Gens;
};

} // namespace collc

#endif
