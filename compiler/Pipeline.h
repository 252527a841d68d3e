/// \file
/// The pass runner the driver and the `auto` policy share: runs a pass,
/// records its wall time under a name, and dumps the IR after it when asked
/// (`--time-passes`, `--print-after-all`). No pass manager: callers run
/// passes in plain order, as Halide's Lower.cpp does.
#ifndef COLLC_COMPILER_PIPELINE_H
#define COLLC_COMPILER_PIPELINE_H

#include "ir/Machine.h"
#include "ir/Schedule.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace collc {

struct PipelineOptions {
  /// Dump the IR (JSON) to Log after every pass.
  bool PrintAfterAll = false;
  /// Print the wall time of every pass to Log when the pipeline ends, and
  /// notes such as why `auto` left out a candidate.
  bool TimePasses = false;
  llvm::raw_ostream *Log = nullptr;
};

class Pipeline {
public:
  explicit Pipeline(const PipelineOptions &O) : O(O) {}
  Pipeline(const Pipeline &) = delete;
  Pipeline &operator=(const Pipeline &) = delete;
  /// Prints the timing table (with TimePasses).
  ~Pipeline();

  /// Runs \p Pass and records its time under \p Name.
  template <typename F> auto run(const llvm::Twine &Name, F &&Pass) {
    auto T0 = std::chrono::steady_clock::now();
    auto Result = Pass();
    auto T1 = std::chrono::steady_clock::now();
    Times.push_back(
        {Name.str(), std::chrono::duration<double>(T1 - T0).count()});
    return Result;
  }
  /// With PrintAfterAll, dumps \p S as it stands after the pass \p Name.
  void after(const llvm::Twine &Name, const Schedule &S, const Machine &M);
  /// With TimePasses, prints "collc: note: <Text>" on the log.
  void note(const llvm::Twine &Text);

private:
  const PipelineOptions &O;
  std::vector<std::pair<std::string, double>> Times;
};

} // namespace collc

#endif
