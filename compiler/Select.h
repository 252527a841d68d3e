/// \file
/// Algorithm selection by message size: the auto policy (AutoPolicy.h)
/// applied across a range of sizes, as bands in which one algorithm wins.
/// `--emit select` and `--emit ompi-rules` (backends/Select.h) write the
/// result.
#ifndef COLLC_COMPILER_SELECT_H
#define COLLC_COMPILER_SELECT_H

#include "compiler/AutoPolicy.h"
#include "ir/Machine.h"
#include "ir/Request.h"
#include "ir/Selection.h"

#include "llvm/Support/Error.h"

#include <utility>

namespace collc {

/// Parses `--bytes-range LO:HI` (0 <= LO <= HI <= MaxBytes).
llvm::Expected<std::pair<uint64_t, uint64_t>>
parseBytesRange(llvm::StringRef Text);

/// The auto policy's choice per size band over [Lo, Hi] for \p Base (its
/// collective, ranks, root, operator; its bytes are ignored), judged by
/// \p Judge among the candidates \p Opts lets through. Sizes are sampled at
/// Lo, Hi and every power of two between, and each change of winner is
/// located exactly by bisection. Reductions take whole elements, so their
/// sizes are multiples of the element size.
llvm::Expected<Selection> selectBands(const Machine &M, const Request &Base,
                                      uint64_t Lo, uint64_t Hi,
                                      const CostJudge &Judge,
                                      const ChooseOptions &Opts = {});

} // namespace collc

#endif
