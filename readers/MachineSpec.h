/// \file
/// The machine spec schema (docs/spec.md): a name, a communication model,
/// ports, a topology and a network (readers/NetworkSpec.h), read from YAML or
/// JSON into a Machine (ir/Machine.h); SimGrid platforms are read as machines
/// too (readers/PlatformSpec.h).
#ifndef COLLC_READERS_MACHINESPEC_H
#define COLLC_READERS_MACHINESPEC_H

#include "ir/Machine.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <optional>
#include <string>

namespace collc {

/// Values of the command line that change the machine read, as written.
struct MachineOverrides {
  /// The network's protocol factors in SMPI's syntax (smpi/lat-factor,
  /// smpi/bw-factor: "threshold:factor;..."), each replacing one factor of
  /// every band (ir/SmpiFactors.h). The machine must have a network.
  std::optional<std::string> SmpiLatFactor, SmpiBwFactor;
};

/// Reads a machine from \p Buffer (its identifier names the file): a machine
/// spec, or a SimGrid platform (readers/PlatformSpec.h) when the name ends
/// in .xml or the text starts like XML. Then applies \p Overrides; a model
/// derived from the network is derived again.
llvm::Expected<Machine> parseMachine(llvm::MemoryBufferRef Buffer,
                                     const MachineOverrides &Overrides = {});
/// Reads a machine file.
llvm::Expected<Machine> loadMachine(llvm::StringRef Path,
                                    const MachineOverrides &Overrides = {});

} // namespace collc

#endif
