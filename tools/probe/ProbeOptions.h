/// \file
/// collc-probe's command line. Read by hand, not with llvm::cl: under SMPI
/// every rank is a copy of the program loaded into one process, and each
/// copy would register llvm::cl's global options again.
#ifndef COLLC_TOOLS_PROBE_PROBEOPTIONS_H
#define COLLC_TOOLS_PROBE_PROBEOPTIONS_H

#include "tools/probe/Fit.h"
#include "tools/probe/ProbeTopology.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc::probe {

struct ProbeOptions {
  /// Where the spec goes; empty for standard output.
  std::string Output;
  std::string Name = "probed";
  ProbeTopology Topology;
  /// `--topology discover`: find which nodes share a leaf switch.
  bool Discover = false;
  Base BaseLink;
  uint64_t MaxBytes = uint64_t(16) << 20;
  bool Quick = false;
  /// Largest relative error of a prediction the run accepts; negative: no
  /// limit.
  double MaxError = -1;
  bool Help = false;
  bool Version = false;
};

/// Reads the options \p Args (argv without the program name). Errors say
/// what was wrong: "unknown option '--frob'", "--max-bytes: expected ...".
llvm::Expected<ProbeOptions>
parseProbeOptions(const std::vector<std::string> &Args);

/// `collc-probe --help`.
extern const char *const ProbeHelp;

} // namespace collc::probe

#endif
