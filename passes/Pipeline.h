/// \file
/// The pass runner the driver, the `auto` policy and the builders' searches
/// share: runs a pass, records its wall time under a name, and dumps the IR
/// after it when asked (`--time-passes`, `--print-after-all`). No pass
/// manager: callers run passes in plain order, as Halide's Lower.cpp does.
///
/// Runs nest: a pass that runs passes (auto building a candidate whose
/// builder searches its segment count through algorithms/Cheapest.h) records
/// them under it, indented in the table; the total counts the outermost only.
#ifndef COLLC_PASSES_PIPELINE_H
#define COLLC_PASSES_PIPELINE_H

#include "ir/Machine.h"
#include "ir/Schedule.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <string>
#include <vector>

namespace collc {

struct PipelineOptions {
  /// Dump the IR (JSON) to Log after every pass.
  bool PrintAfterAll = false;
  /// Print the wall time of every pass to Log when the pipeline ends, and
  /// notes such as why `auto` left out a candidate.
  bool TimePasses = false;
  llvm::raw_ostream *Log = nullptr;
  /// Price every candidate of a search whole, even one that cannot win
  /// (algorithms/Cheapest.h stops pricing those): for the tests that check
  /// that stopping never changes a choice.
  bool PriceWhole = false;
};

class Pipeline {
public:
  explicit Pipeline(const PipelineOptions &O) : O(O) {}
  Pipeline(const Pipeline &) = delete;
  Pipeline &operator=(const Pipeline &) = delete;
  /// Prints the timing table (with TimePasses).
  ~Pipeline();

  /// Runs \p Pass and records its time under \p Name (below the run it is
  /// part of, if any).
  template <typename F> auto run(const llvm::Twine &Name, F &&Pass) {
    const size_t At = Times.size();
    Times.push_back({Name.str(), 0.0, Depth});
    ++Depth;
    auto T0 = std::chrono::steady_clock::now();
    auto Result = Pass();
    auto T1 = std::chrono::steady_clock::now();
    --Depth;
    Times[At].Seconds = std::chrono::duration<double>(T1 - T0).count();
    return Result;
  }
  /// With PrintAfterAll, dumps \p S as it stands after the pass \p Name.
  void after(const llvm::Twine &Name, const Schedule &S, const Machine &M);
  /// With TimePasses, prints "collc: note: <Text>" on the log.
  void note(const llvm::Twine &Text);
  const PipelineOptions &options() const { return O; }

private:
  struct Timed {
    std::string Name;
    double Seconds;
    /// How many runs it is part of.
    unsigned Depth;
  };
  const PipelineOptions &O;
  std::vector<Timed> Times;
  unsigned Depth = 0;
};

} // namespace collc

#endif
