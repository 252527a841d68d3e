/// \file
/// `--emit select` and `--emit ompi-rules`: the auto policy's choice per band
/// of message sizes (ir/Selection.h, computed by compiler/Select), as a
/// table and as an Open MPI coll/tuned dynamic rules file.
#ifndef COLLC_BACKENDS_SELECTTABLE_H
#define COLLC_BACKENDS_SELECTTABLE_H

#include "ir/Machine.h"
#include "ir/Selection.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace collc {

/// Open MPI 4.1 coll/tuned: the collective's id in a rules file (-1 when
/// Open MPI has no such collective) and the algorithm number matching a
/// collc algorithm (0 when it has none).
int ompiCollectiveId(Collective C);
int ompiAlgorithm(Collective C, llvm::StringRef Algorithm);

/// A table: one line per band.
void emitSelect(llvm::raw_ostream &OS, const Machine &M, const Selection &Sel);
/// A coll/tuned dynamic rules file (format version 1, read by Open MPI 4.x
/// and 5.x) with one rule per band; comments name collc's choice.
llvm::Error emitOmpiRules(llvm::raw_ostream &OS, const Machine &M,
                          const Selection &Sel);

} // namespace collc

#endif
