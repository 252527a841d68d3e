/// \file
/// The machine spec schema (docs/spec.md): a name, a communication model, ports
/// and a topology, read from YAML or JSON into a Machine (ir/Machine.h).
#ifndef COLLC_COMPILER_MACHINESPEC_H
#define COLLC_COMPILER_MACHINESPEC_H

#include "ir/Machine.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

namespace collc {

/// Reads a machine spec from \p Buffer (its identifier names the file).
llvm::Expected<Machine> parseMachine(llvm::MemoryBufferRef Buffer);
/// Reads a machine spec file.
llvm::Expected<Machine> loadMachine(llvm::StringRef Path);

} // namespace collc

#endif
