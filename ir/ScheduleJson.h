/// \file
/// JSON form of the Schedule IR (the `--emit json` contract, docs/ir.md) and
/// its reader, so that any stage can be dumped and read back.
#ifndef COLLC_IR_SCHEDULEJSON_H
#define COLLC_IR_SCHEDULEJSON_H

#include "ir/Machine.h"
#include "ir/Schedule.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace collc {

/// Writes \p S as one JSON object. With \p M, participants on a mesh, torus
/// or hypercube also carry their `coord`. Pieces equal to the whole message
/// are omitted (the reader restores them).
void writeScheduleJson(llvm::raw_ostream &OS, const Schedule &S,
                       const Machine *M = nullptr);

/// Reads what writeScheduleJson wrote. Errors carry `File:line:col`. With
/// \p M, every participant's node must be one of its nodes.
llvm::Expected<Schedule> readScheduleJson(llvm::StringRef Text,
                                          llvm::StringRef File,
                                          const Machine *M = nullptr);

} // namespace collc

#endif
