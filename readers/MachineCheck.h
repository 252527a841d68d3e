/// \file
/// Checks of a machine's topology and network that the machine spec reader
/// (readers/MachineSpec.h) and the SimGrid platform reader
/// (readers/PlatformSpec.h) share: neither reader includes the other's
/// header for them.
#ifndef COLLC_READERS_MACHINECHECK_H
#define COLLC_READERS_MACHINECHECK_H

#include "ir/Machine.h"

#include "llvm/Support/Error.h"

#include <cstdint>

namespace collc {

/// The first level of the fat tree \p T (0: its nodes) that holds more than
/// MaxNodes vertices, or -1 when every level fits. T's Down, Up and Parallel
/// have Levels entries each, all positive.
int64_t fatTreeLevelTooLarge(const Topology &T);

/// Whether \p M's network can time schedules: the topology has routes, the
/// network has one link class per class of the topology (linkClassNames()
/// in passes/Routes.h) with a positive bandwidth, bands sorted and starting
/// at 0, positive factors, and a node per rank for the List placement.
/// For a machine built in code; the readers check the same while reading,
/// with the location of what is wrong.
llvm::Error checkNetwork(const Machine &M);

} // namespace collc

#endif
