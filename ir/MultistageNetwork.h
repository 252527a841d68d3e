/// \file
/// The multistage interconnection network (MIN) of `topology: {kind: min}`:
/// a bidirectional k-ary n-fly with turnaround routing (a k-ary n-tree, the
/// "bidirectional MIN" of the IBM SP family), built from k x k switches.
///
/// Structure, for N = k^n nodes:
///  - n stages (levels) 0..n-1 of N/k switches each; level 0 is next to the
///    processors. A switch has k down ports (towards the processors) and k up
///    ports (towards level l+1; unused at the top level): a "k x k switch" of
///    the unidirectional butterfly whose links carry traffic both ways, hence
///    2k ports and the 2k-bit port mask of the multi-drop packet (paper 003,
///    "an (8x8) switch takes 16 bits").
///  - Switch (l, s) writes s in base k with n-1 digits s_{n-2}..s_0.
///    Processor p = (p_{n-1}..p_0) sits on down port p_0 of switch (0, p / k).
///    Up port j of switch (l, s) leads to switch (l+1, s with digit l set to
///    j), arriving on its down port s_l.
/// The paper's machine, 64 nodes of 8 x 8 switches, is n = 2: eight level-0
/// switches with eight processors each, and eight level-1 switches, each
/// joined to every level-0 switch: 16 switches, the 4-bit switch address of
/// the paper's packet.
///
/// Routing (turnaround, destination-tag): from p to q climb to level h, the
/// highest digit in which p and q differ, choosing at level l < h the up port
/// q_{l+1}; then descend choosing down port q_l at level l. Every switch on
/// the way up already carries q's digits in the positions it has fixed, so
/// all routes towards one destination form a tree rooted at it: the
/// combining tree of the hardware barrier. A route crosses 2(h+1) channels.
#ifndef COLLC_IR_MULTISTAGENETWORK_H
#define COLLC_IR_MULTISTAGENETWORK_H

#include "ir/Machine.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// One directed channel of the MIN. A physical link is named by its lower
/// end: Level 0 joins processor Lower to its level-0 switch; Level l >= 1
/// joins up port Port of switch (l-1, Lower) to level l. Upward says which
/// way the channel carries traffic.
struct MinChannel {
  int32_t Level = 0;
  int64_t Lower = 0;
  int32_t Port = 0;
  bool Upward = true;
  bool operator==(const MinChannel &O) const = default;
};

/// A switch of the MIN: (Level, Index).
struct MinSwitch {
  int32_t Level = 0;
  int64_t Index = 0;
  bool operator==(const MinSwitch &O) const = default;
};

class MinNetwork {
public:
  /// \p Nodes must be a power of \p Radix (the front end checks it).
  MinNetwork(int64_t Nodes, int64_t Radix);
  explicit MinNetwork(const Topology &T) : MinNetwork(T.Nodes, T.SwitchRadix) {}

  int64_t nodes() const { return N; }
  int64_t radix() const { return K; }
  /// Number of stages n = log_k N (at least 1).
  int32_t stages() const { return Stages; }
  int64_t switchesPerStage() const { return N / K; }
  int64_t numSwitches() const { return switchesPerStage() * Stages; }
  /// Dense id of a switch: Level * (N/k) + Index.
  int64_t switchId(MinSwitch S) const {
    return S.Level * switchesPerStage() + S.Index;
  }
  MinSwitch switchOf(int64_t Id) const {
    return {static_cast<int32_t>(Id / switchesPerStage()),
            Id % switchesPerStage()};
  }

  /// Digit \p I (base k) of \p X.
  int64_t digit(int64_t X, int32_t I) const;
  /// The level at which a route from \p A to \p B turns around: the highest
  /// digit in which A and B differ (A != B).
  int32_t turnLevel(int64_t A, int64_t B) const;
  /// Channels crossed from \p A to \p B: 2(h+1), 0 when A == B.
  unsigned distance(int64_t A, int64_t B) const;
  /// The directed channels of the route from \p A to \p B, in order.
  std::vector<MinChannel> route(int64_t A, int64_t B) const;
  /// The switches the route from \p A to \p B visits, in order.
  std::vector<MinSwitch> switchesOnRoute(int64_t A, int64_t B) const;

  /// Switch reached through up port \p Port of \p S.
  MinSwitch up(MinSwitch S, int64_t Port) const;
  /// Switch (or, at level 0, processor index) reached through down port
  /// \p Port of \p S.
  MinSwitch down(MinSwitch S, int64_t Port) const;

  /// "sw(l,s)", "p12": names for diagnostics and plots.
  static std::string name(MinSwitch S);
  static std::string name(const MinChannel &C);

private:
  int64_t N, K;
  int32_t Stages;
  std::vector<int64_t> Pow; ///< K^i.
};

} // namespace collc

#endif
