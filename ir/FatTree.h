/// \file
/// The fat tree of `topology: {kind: fat-tree}`: SimGrid's FAT_TREE cluster
/// (src/kernel/routing/FatTreeZone.cpp), with the same structure, the same
/// labels and the same up/down routing, so that a SimGrid platform read as
/// a machine routes every message over the links SimGrid picks.
///
/// Structure, for L levels with Down, Up and Parallel per level (see
/// Topology): level 0 holds the N = prod Down processing nodes, level l
/// (1..L) prod_{i<l} Up_i x prod_{i>=l} Down_i switches. A vertex at level l
/// and position q has a label of L digits, q written in mixed radix with
/// digit 0 least significant: digit i counts up to Up_i for i < l and to
/// Down_i for i >= l. A level-l vertex and a level-(l+1) switch are joined
/// when their labels agree on every digit but digit l, by Parallel_l links.
/// A vertex's parents are numbered d = (the parent's digit l) + j x Up_l for
/// its j-th parallel link; a switch's children i = (the child's digit l-1) +
/// j x Down_{l-1}.
///
/// Routing, from node a to node b: up while the current vertex is not an
/// ancestor of b (a level-l switch is one when its digits l..L-1 are b's),
/// taking parent d = (b / prod_{i<l} Up_i) mod (Up_l x Parallel_l) at
/// level l (SimGrid's d-mod-k, which divides by the parents of the levels
/// below, not by their parallel links); then down, taking the child
/// whose digit is b's, on the parallel link that SimGrid's loop picks (it
/// starts at link a mod Parallel and carries its index on to the next level
/// down; route() mirrors it). A route climbs to level h, one above the
/// highest digit in which a and b differ, and crosses 2h links.
///
/// Vertex numbers (as in passes/Routes.h): node p is p; switch (l, q) is
/// Nodes + (switches of the levels below l) + q.
#ifndef COLLC_IR_FATTREE_H
#define COLLC_IR_FATTREE_H

#include "ir/Machine.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// A vertex of the fat tree: a processing node (Level 0) or a switch.
struct FatTreeVertex {
  int32_t Level = 0;
  int64_t Position = 0;
  bool operator==(const FatTreeVertex &O) const = default;
};

/// One link crossed by a route: From -> To over the Lane-th of the parallel
/// links between them; To is a parent of From on the way up.
struct FatTreeHop {
  FatTreeVertex From, To;
  int32_t Lane = 0;
  bool Upward = true;
};

class FatTreeNetwork {
public:
  /// \p T must be a valid fat tree (the front end checks it: Levels >= 1,
  /// three vectors of Levels positive entries).
  explicit FatTreeNetwork(const Topology &T);

  int32_t levels() const { return L; }
  /// Processing nodes.
  int64_t nodes() const { return Count[0]; }
  /// Vertices at level \p Level (0: the nodes).
  int64_t verticesAt(int32_t Level) const { return Count[Level]; }
  int64_t numSwitches() const { return First.back() - Count[0]; }
  /// The vertex number of \p V, and back.
  int64_t vertexId(FatTreeVertex V) const {
    return First[V.Level] + V.Position;
  }
  FatTreeVertex vertexOf(int64_t Id) const;

  /// Digit \p I of \p V's label.
  int64_t digit(FatTreeVertex V, int32_t I) const;
  /// The level a route from \p A to \p B climbs to (0 when A == B).
  int32_t turnLevel(int64_t A, int64_t B) const;
  /// Links crossed from \p A to \p B: 2 x turnLevel.
  unsigned distance(int64_t A, int64_t B) const {
    return 2 * static_cast<unsigned>(turnLevel(A, B));
  }
  /// The links of the route from node \p A to node \p B, in order.
  std::vector<FatTreeHop> route(int64_t A, int64_t B) const;

  /// "sw(l,q)" for a switch, "p12" for a node.
  static std::string name(FatTreeVertex V);

private:
  /// Radix of digit \p I at level \p Level.
  int64_t radix(int32_t Level, int32_t I) const {
    return I < Level ? Up[I] : Down[I];
  }
  int64_t position(int32_t Level, const std::vector<int64_t> &Label) const;
  std::vector<int64_t> label(FatTreeVertex V) const;
  /// Parent \p D (0 <= D < Up x Parallel at V's level) and child \p I.
  FatTreeVertex parent(FatTreeVertex V, int64_t D) const;
  FatTreeVertex child(FatTreeVertex V, int64_t I) const;
  int64_t numChildren(FatTreeVertex V) const {
    return V.Level == 0 ? 0 : Down[V.Level - 1] * Par[V.Level - 1];
  }

  int32_t L;
  std::vector<int64_t> Down, Up, Par;
  std::vector<int64_t> Count; ///< Vertices per level, 0..L.
  std::vector<int64_t>
      First; ///< Vertex number of each level's first, then the total.
};

} // namespace collc

#endif
