/// \file
/// The drop-in library watching its own calls: what a served call takes
/// against what the machine's model predicted for its schedule, and, on
/// request, against the MPI library's own call of the same kind.
///
/// A schedule is chosen by the model of the machine file (COLLC_MACHINE). A
/// file written for another machine, or a model the machine departs from
/// (a network stack slower than its links, a shared-memory transport with
/// costs the model has not), makes `auto` choose for a machine that is not
/// there, and nothing else would say so. So each rank times the blocking
/// calls collc serves (one Watch per kind of call and communicator):
///
///  - **Notice** (COLLC_WATCH=FACTOR, default 4; `off` turns it off): after
///    the first call of a kind (its warm-up: the MPI library makes its
///    connections then), the next Samples calls are compared with the
///    model's time for the schedule, scaled to each call's size within its
///    band (bounds: the time at the build size times the size ratio, and
///    the time at the build size). When the median of the calls departs from
///    the model by more than FACTOR, either way, the library says so once
///    per collective and size band, on rank 0 of the communicator.
///  - **Adapt** (COLLC_ADAPT=1): the first calls of a kind on a communicator
///    are a trial: one warm-up each, then Samples calls of collc's schedule
///    and Samples of the MPI library's own collective, alternating. The
///    ranks then agree (one small reduction over the communicator, the
///    slowest rank's median of each side) and every later call of the kind
///    runs on the faster side. Every rank counts the calls of a kind on a
///    communicator alike (MPI has them called in the same order with equal
///    shapes), so every rank takes the same side at the same call.
///
/// Times are wall-clock (MPI_Wtime: the simulated clock under SMPI) of this
/// rank's part of the call, in microseconds, the unit of the bundled machine
/// files and of collc-probe's.
#ifndef COLLC_DROPIN_WATCH_H
#define COLLC_DROPIN_WATCH_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collc {
namespace dropin {

/// COLLC_WATCH and COLLC_ADAPT.
struct WatchConfig {
  /// How far (a factor) calls may depart from the model before the library
  /// says so; 0: not watched.
  double Factor = 4;
  /// Whether the first calls of a kind compare collc with the MPI library.
  bool Adapt = false;
  /// Calls compared per side (after the warm-up).
  int Samples = 5;
};

/// Reads COLLC_WATCH (`off`, `0`, or a factor from 1.1 to 1000) and
/// COLLC_ADAPT (`1`, `on`, `yes`, `true`; `0`, `off`, `no`, `false` or
/// unset). A value it cannot use keeps the default and adds a sentence to
/// \p Notes.
WatchConfig parseWatch(const char *Watch, const char *Adapt,
                       std::vector<std::string> &Notes);

/// The time the model gives a call of \p Bytes (per block) whose schedule
/// was built at \p BuiltBytes and takes \p Makespan there: [Lo, Hi], the
/// time at the build size and that time scaled by the size ratio, in order.
std::array<double, 2> predictedRange(double Makespan, uint64_t BuiltBytes,
                                     uint64_t Bytes);

/// The calls of one kind on one communicator, seen by one rank. A rank's
/// own part of a call is not the call's time (a broadcast's root may be
/// done when its sends are posted), so once the samples are in, the ranks
/// agree on the slowest rank's time of each sampled call (agree(): one
/// reduction of a few numbers, at the same call on every rank) and judge
/// from that.
class Watch {
public:
  enum Side { Collc, Library };

  explicit Watch(const WatchConfig &C) : C(C) {}

  /// The side that runs the next call.
  Side next() const;
  /// Whether record() still keeps calls (the warm-ups, the samples).
  bool sampling() const;
  /// Records the call next() chose, taking \p Micros; \p Predicted is the
  /// model's range for it (predictedRange()).
  void record(double Micros, std::array<double, 2> Predicted);

  /// Whether the samples are all in and the ranks must agree now (then
  /// agree() before the next call).
  bool needsAgreement() const;
  /// This rank's times of the sampled calls: collc's, then the library's
  /// (2 x Samples; the library's are 0 without a trial).
  std::vector<double> samples() const;
  /// Takes the slowest rank's times of each sampled call (samples()' layout,
  /// the maximum over the ranks). With a trial, the side whose median is
  /// smaller serves from now on (collc on a tie).
  void agree(const std::vector<double> &Slowest);
  /// Whether the ranks agreed.
  bool agreed() const { return Agreed; }
  /// The agreed medians, collc's and the library's.
  std::array<double, 2> medians() const;
  /// Once agreed, how far collc's calls departed from the model: the median
  /// of each call's time over the nearest end of its predicted range (above
  /// 1: slower than the model; below: faster), only when that departs by
  /// more than the factor. Given once.
  std::optional<double> departure();

  /// How many calls were recorded.
  uint64_t calls() const { return Calls; }

private:
  uint64_t warmups() const { return C.Adapt ? 2 : 1; }

  WatchConfig C;
  uint64_t Calls = 0;
  /// Samples per side, microseconds.
  std::array<std::vector<double>, 2> Times;
  /// The model's range for each of collc's samples.
  std::vector<std::array<double, 2>> Predicted;
  bool Agreed = false;
  bool Departed = false;
  Side Kept = Collc;
};

/// The median of \p V (the mean of the middle two for an even count; 0
/// when empty).
double median(std::vector<double> V);

} // namespace dropin
} // namespace collc

#endif
