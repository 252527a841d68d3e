/// \file
/// Algorithm selection by message size, as data: for one request (its
/// collective, ranks, root and operator; not its size) the algorithm the
/// auto policy picks in each band of message sizes. compiler/Select computes
/// it; `--emit select` and `--emit ompi-rules` write it.
#ifndef COLLC_IR_SELECTION_H
#define COLLC_IR_SELECTION_H

#include "ir/Request.h"
#include "ir/SizeBand.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// Sizes [Lo, Hi] (bytes, inclusive) in which one algorithm wins.
struct AlgorithmBand : ByteBand {
  std::string Algorithm;
  int64_t SegmentsAtLo = 1, SegmentsAtHi = 1;
  double TimeAtLo = 0, TimeAtHi = 0;
};

struct Selection {
  /// The request the bands were chosen for; its Bytes is not used.
  Request Base;
  /// What the policy's judge calls best, in words.
  std::string Policy;
  /// Consecutive bands covering the range asked for, in increasing sizes.
  std::vector<AlgorithmBand> Bands;
};

} // namespace collc

#endif
