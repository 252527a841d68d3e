/// \file
/// A rank's part of a schedule, built for that rank alone.
///
/// The drop-in library (dropin/Engine.h) runs in every process of a program
/// and needs only its own rank's operations. For the algorithms whose every
/// rank's partners and blocks have a closed form, a *rank-part builder*
/// states the transfers one rank sends and receives without building the
/// others': a Schedule with every step of the whole one, each holding only
/// the transfers the rank takes part in, in the order the whole schedule
/// lists them. Lowered with lowerRankTables (backends/MpiTables.h), it gives
/// the rank the tables the whole schedule gives it, in time and memory that
/// grow with that rank's part (and P for the participants list), not with
/// the whole schedule (tests/algorithms/RankPartsTest.cpp checks both, for
/// every family, on random rank counts).
///
/// Algorithms without a rank-part builder are built whole, as `collc`
/// builds them.
#ifndef COLLC_ALGORITHMS_RANKPARTS_H
#define COLLC_ALGORITHMS_RANKPARTS_H

#include "algorithms/Builder.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace collc {

/// The rank-part builder of algorithm \p Algorithm of collective \p C, or
/// null when it has none (its schedule is built whole).
RankPartFn rankPartBuilder(llvm::StringRef Algorithm, Collective C);
/// The same for request \p R on machine \p M: null also where the family
/// derives no part (the direct exchanges with fewer ports than P - 1:
/// directPartApplies).
RankPartFn rankPartBuilder(llvm::StringRef Algorithm, const Machine &M,
                           const Request &R);

/// Every algorithm with a rank-part builder: "collective algorithm" names,
/// for documentation and tests.
std::vector<std::pair<Collective, const char *>> rankPartAlgorithms();

/// The closed-form price of algorithm \p Algorithm of \p R's collective on
/// \p M: the time of its steps one after the other, each a message of the
/// step's size under the machine's model (Model::tEnd, doubled by the
/// linear model's send/receive factor where every rank sends and receives
/// in the step, plus the reduction work of a combine), O(log P) or O(P)
/// arithmetic and no schedule. It depends on the machine and the request
/// alone, never on a rank, so every process prices alike. Links shared by
/// the messages of a step are not seen: the price ranks the families by
/// their step counts and volumes; tests/algorithms/RankPartsTest.cpp
/// measures how far its choice lies from the cost pass's on random
/// machines. Empty for an algorithm without a rank-part builder on \p M,
/// and for the direct exchanges (their P - 1 messages at once share the
/// rank's links, which this price does not see).
std::optional<double> rankPartPrice(llvm::StringRef Algorithm, const Machine &M,
                                    const Request &R);

/// `auto`'s choice by price for a request too large to build every
/// candidate whole: of the algorithms autoCandidates() offers that have a
/// rank-part builder and apply, the one of least rankPartPrice (the first
/// in registry order on a tie); null when none has. The same in every
/// process.
struct PricedChoice {
  const char *Algorithm = nullptr;
  double Price = 0;
};
PricedChoice choosePricedPart(const Machine &M, const Request &R);

/// Rank \p Rank's part of the whole schedule \p S: every step, with only the
/// transfers \p Rank sends or receives, in order. The reference a rank-part
/// builder's output equals (times aside: a part is not costed).
Schedule rankPartOf(const Schedule &S, int32_t Rank);

} // namespace collc

#endif
