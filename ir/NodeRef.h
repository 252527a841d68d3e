/// \file
/// Node references as people write them, in requests and on the command line:
/// a node number ("14"), coordinates on a mesh, torus or hypercube, written
/// highest dimension first ("(3,2)" or "[3,2]"), or a permutation on a star or
/// macro-star graph ("14523", see ir/Permutation.h); and lists of them
/// ("3,4,5", "(1,5),(2,1)", "1,5;2,1"). The readers check the reference
/// against the topology and say what is wrong with it; the caller adds where
/// it was written.
#ifndef COLLC_IR_NODEREF_H
#define COLLC_IR_NODEREF_H

#include "ir/Machine.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// The node at coordinates \p Coord of \p T. Errors name \p Key, the field
/// the coordinates were given for: "node (6, 2) in 'root' is outside the
/// (6, 4) mesh". \p T must have coordinates (Topology::hasCoordinates).
llvm::Expected<int64_t> nodeAtCoordinates(const Topology &T,
                                          llvm::ArrayRef<int64_t> Coord,
                                          llvm::StringRef Key);

/// The node \p Text refers to on \p T: a number in 0..Nodes-1 (0..MaxNodes-1
/// on a topology without a fixed size), coordinates "(3,2)" or "[3,2]", or
/// on a star or macro-star graph a permutation. A number of S_k has fewer
/// than k digits (k! - 1 < 10^(k-1)), so a text of k symbols is read as a
/// permutation, and so is a \p Quoted one (a string in a document). Errors
/// name \p Key.
llvm::Expected<int64_t> parseNodeRef(const Topology &T, llvm::StringRef Text,
                                     llvm::StringRef Key, bool Quoted = false);

/// The references of a list written in one text: "3,4,5" (numbers or
/// permutations), "(1,5),(2,1)" or "[1,5],[2,1]", or "1,5;2,1" (coordinates
/// separated by semicolons). Each item reads with parseNodeRef.
std::vector<std::string> splitNodeRefs(llvm::StringRef Text);

/// Coordinates as written in references and reports, "(3,2)"; \p Separator
/// goes between them.
std::string formatCoordinates(llvm::ArrayRef<int64_t> Coord,
                              llvm::StringRef Separator = ",");

} // namespace collc

#endif
