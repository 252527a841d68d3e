/// \file
/// Algorithm selection by message size: the auto policy (AutoPolicy.h)
/// applied across a range of sizes, as bands in which one algorithm wins.
/// `--emit select` and `--emit ompi-rules` (backends/SelectTable.h) write the
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

/// The auto policy's choice per size band over [Lo, Hi] for \p Base (its
/// collective, ranks, root, operator; its bytes are ignored), judged by
/// \p Judge among the candidates \p Opts lets through. Reductions take whole
/// elements, so their sizes are multiples of the element size.
///
/// Without a network, sizes are sampled at Lo, Hi and every power of two
/// between, and each change of winner is located exactly by bisection.
///
/// With a network (M.Net), a candidate's time jumps wherever its shape
/// changes: its segment count, its transfers, or the set of protocol bands
/// and eager/rendezvous modes its messages use. So the winner can change
/// several times between two powers of two. Then the sizes where an
/// unsegmented message changes band or mode are sampled too; between two
/// sampled sizes where the shape of a candidate within 1.5x of the winner's
/// time at either size differs, the sizes where it changes are found by
/// bisection (building that candidate alone) and the policy is asked on both
/// sides of each; between sizes of equal shapes whose winners differ, the
/// change is bisected; and every stretch between two asked sizes is checked
/// at its middle, refining again where a check finds another winner (at most
/// 8 rounds, then a last refinement). One candidate's shape changes are
/// located at most 16 times (a builder searching many forms can change shape
/// every few kilobytes); past that its stretches are settled by the winners
/// at their ends and the checks at their middles, so a winner alternating in
/// a stretch of a byte or two can be missed. Each band's ends are sizes the
/// policy was asked at, so its winner, segments and times there are auto's;
/// bands are contiguous. Where the evaluator's times are chaotic in the size (a
/// many-segment schedule whose messages share links), the bands are as
/// narrow as auto's choice is.
///
/// Every size asked runs the policy as one run of \p P ("select: <bytes>
/// bytes"), and every candidate built alone for its shape one more ("select:
/// shape of <name> at <bytes> bytes"), so that `--time-passes` shows where
/// the selection's time goes; without \p P, in a pipeline of its own that
/// prints nothing.
llvm::Expected<Selection> selectBands(const Machine &M, const Request &Base,
                                      uint64_t Lo, uint64_t Hi,
                                      const CostJudge &Judge,
                                      const ChooseOptions &Opts = {},
                                      Pipeline *P = nullptr);

/// The sizes in [Lo, Hi] that are whole elements of \p Datatype, counted in
/// elements; an error (for `--bytes-range`) when there is none.
llvm::Expected<std::pair<uint64_t, uint64_t>>
elementRange(uint64_t Lo, uint64_t Hi, const std::string &Datatype);

} // namespace collc

#endif
