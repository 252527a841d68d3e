/// \file
/// A collective request: what the user asks collc to schedule.
#ifndef COLLC_IR_REQUEST_H
#define COLLC_IR_REQUEST_H

#include "ir/Schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

struct Request {
  Collective Coll = Collective::Bcast;
  /// Physical nodes of the participants, index = rank. With `ranks: K` these
  /// are nodes 0..K-1; with `participants:` the list as written; for a
  /// multicast the source first, then the destinations in request order.
  std::vector<int64_t> Nodes;
  /// Rank of the root (the source of a broadcast or multicast, the target of
  /// a reduce or gather); 0 for rootless collectives.
  int32_t Root = 0;
  uint64_t Bytes = 0;
  /// Builder name, or "auto" to let collc pick the cheapest under the model.
  std::string Algorithm = "auto";
  /// Reductions: operator (sum, prod, min, max) and element type (int32,
  /// int64, float, double).
  std::string Op, Datatype;
  bool Commutative = true;
  /// Segments to split the message into; 0 lets the algorithm choose.
  int64_t Segments = 0;

  int32_t size() const { return static_cast<int32_t>(Nodes.size()); }
};

/// Upper bound on participants in one request. A schedule costs a few hundred
/// bytes per transfer and `auto` builds, costs and verifies every candidate:
/// with 2^20 ranks a broadcast takes a few seconds and half a GiB (2^24 took
/// minutes and 7 GiB).
constexpr int64_t MaxRanks = int64_t(1) << 20;
/// Upper bound on a message size (1 PiB): larger counts are almost certainly
/// a typo, and every time stays exact in a double.
constexpr uint64_t MaxBytes = uint64_t(1) << 50;
/// Upper bound on the bytes one transfer may carry (every block of every
/// rank; of every pair for an all-to-all): byte counts are 64-bit, and the
/// sums a schedule makes of a few of them must not wrap either.
constexpr uint64_t MaxTransferBytes = uint64_t(1) << 62;

} // namespace collc

#endif
