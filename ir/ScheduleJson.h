/// \file
/// JSON form of the Schedule IR (the `--emit json` contract of DESIGN.md) and
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

/// Shortest decimal text that reads back as \p V ("135", "0.02"); "null" for NaN.
std::string formatNumber(double V);
/// \p V rounded to 10 significant digits for people ("587.68" where the sum
/// of the model's terms is 587.6800000000001).
std::string formatRounded(double V);

} // namespace collc

#endif
