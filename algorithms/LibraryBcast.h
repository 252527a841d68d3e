/// \file
/// The MPI libraries' broadcasts for switched networks, searched with the
/// machine's cost pass: a k-nomial tree (MVAPICH2's and Open MPI's small
/// message broadcast, the radix searched) and MPICH's scatter followed by a
/// recursive-doubling allgather (its broadcast for long messages).
///
/// Both serve `bcast`, any machine, any root, any process count P >= 1 (not
/// only powers of two), 0 bytes and sizes not divisible by P, several ranks
/// per node. Ranks are taken in node order from the root (ties by rank):
/// relative index i is the i-th rank of that order, so that on a fat tree or
/// cluster the finest levels of a tree, and the first rounds of an
/// allgather, stay under one node or leaf switch. With one rank per node
/// numbered as the nodes, that is MPI's relative rank (rank - root) mod P.
///
/// Steps are an order, not simultaneity: every schedule is one-port per step
/// (the verifier's rule on a platform machine). A node's sends to several
/// children are consecutive steps, and under the evaluator's AsDataArrives
/// posting rule (passes/NetworkCost.h) an eager send does not hold back the
/// next, so they are in flight together, as the libraries' isend + waitall.
#ifndef COLLC_ALGORITHMS_LIBRARYBCAST_H
#define COLLC_ALGORITHMS_LIBRARYBCAST_H

#include "algorithms/Builder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// Parent of relative index \p I in the k-nomial tree of radix \p K over
/// relative indices 0..P-1 (-1 for 0): \p I with its lowest non-zero base-K
/// digit cleared.
int64_t knomialParent(int64_t I, int64_t K);

/// Children of relative index \p I in the k-nomial tree of radix \p K over P
/// indices, in the order it serves them: the largest subtrees first (digit
/// positions from the one below \p I's lowest non-zero digit down to the
/// units), and within a position the nearest first (I + m, I + 2m, ...,
/// I + (K-1)m), as MVAPICH2's k-nomial broadcast posts them.
std::vector<int64_t> knomialChildren(int64_t I, int64_t K, int64_t P);

/// A k-nomial tree broadcast over the ranks in node order from the root:
/// every rank forwards the message to its children as soon as it has it,
/// the largest subtrees first. The radix K (2..8, 16, 32, ... below P) is
/// searched with the machine's cost pass. One message by default; a
/// request's `segments` sends that many segments down the same tree, a rank
/// sending segment c to all its children before segment c + 1.
SearchingBuilder buildKnomial;
/// A time the step pricing cannot give buildKnomialRadix(M, R, K, Segments)
/// less than, known before building it: every rank's chain of transfers
/// down the tree, each at least a chunk's least time between the two ranks'
/// nodes (LeastHopTime). buildKnomial judges the radices by increasing
/// bound where the cost pass prices by steps, and leaves unbuilt one whose
/// bound exceeds the best priced so far.
double knomialRadixBound(const Machine &M, const Request &R, int64_t K,
                         int64_t Segments);
/// knomial's AutoBound (algorithms/Registry.h): the farthest rank from the
/// root gets a chunk through a chain of transfers whose hops add up to at
/// least its distance (LeastHopTime), whatever the radix.
BoundTest knomialBound;

/// The k-nomial broadcast of radix \p K with \p Segments segments (what
/// buildKnomial searches over).
llvm::Expected<Schedule> buildKnomialRadix(const Machine &M, const Request &R,
                                           int64_t K, int64_t Segments);

/// MPICH's long-message broadcast: the message in P blocks (fewer when it
/// has fewer bytes: relative index i owns blocks [iB/P, (i+1)B/P)), a
/// binomial scatter (index i receives the blocks of indices [i, i + lowbit
/// i) from i - lowbit i, the largest subtrees first), then a
/// recursive-doubling allgather: in round j index i exchanges all the
/// blocks of its aligned group of 2^j indices with index i xor 2^j. When P
/// is not a power of two and the partner group is cut short, the indices of
/// the group that had a partner pass the partner group's blocks on to
/// those that had none, by recursive halving inside the group (MPICH's
/// scatter_doubling_allgather, and SMPI's scatter_rdb_allgather). One
/// departure: MPICH's exchange also sends a group's blocks back to a lower
/// partner aligned to twice the group, whose scatter subtree already held
/// them; those messages are left out, so every rank receives every block
/// once (P log2 P messages in all when P is a power of two).
PlainBuilder buildScatterRdbAllgather;

} // namespace collc

#endif
