/// \file
/// The builder kit: what a builder needs, without the registry
/// (algorithms/Registry.h). The signatures of a builder and of its
/// applicability test, the one way a builder refuses (notApplicable), the
/// pieces every builder's schedule starts from, and the helpers two
/// families share (rank orders, ceilLog2, copies of the root's chunks). A
/// builder that searches its parameters takes the Pipeline and searches
/// through algorithms/Cheapest.h, so `--time-passes` shows each candidate.
///
/// Applicability is decided once, by the registry's Applies where the
/// candidates are listed; a builder asserts what it relies on instead of
/// checking it again.
#ifndef COLLC_ALGORITHMS_BUILDER_H
#define COLLC_ALGORITHMS_BUILDER_H

#include "ir/Machine.h"
#include "ir/Request.h"
#include "ir/Schedule.h"
#include "passes/Pipeline.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace collc {

/// A builder: a function from (machine, request) to a schedule. Builders
/// fill steps, transfers and pieces; times are the cost pass's business.
/// The family headers declare theirs by these types (`PlainBuilder
/// buildBinomial;`), so a builder's signature is written once, here.
using PlainBuilder = llvm::Expected<Schedule>(const Machine &M,
                                              const Request &R);
/// A builder that searches its parameters: it builds and costs candidates
/// through \p P (algorithms/Cheapest.h), each timed under its name.
using SearchingBuilder = llvm::Expected<Schedule>(const Machine &M,
                                                  const Request &R,
                                                  Pipeline &P);
/// Whether an algorithm can serve this machine and request; sets \p Why if not.
using AppliesTest = bool(const Machine &M, const Request &R, std::string &Why);
/// A time no schedule an algorithm builds for \p R on \p M beats under the
/// step pricing (passes/StepCost.h), known before building it
/// (AlgorithmInfo::AutoBound).
using BoundTest = double(const Machine &M, const Request &R);
/// Builds rank \p Rank's part of an algorithm's schedule for \p R on \p M
/// (algorithms/RankParts.h), or with \p Rank -1 the whole schedule.
using RankPartBuilder = llvm::Expected<Schedule>(const Machine &M,
                                                 const Request &R,
                                                 int32_t Rank);
/// The same as the registry holds them.
using BuildFn = PlainBuilder *;
using SearchFn = SearchingBuilder *;
using AppliesFn = AppliesTest *;
using BoundFn = BoundTest *;
using RankPartFn = RankPartBuilder *;

/// The builder of the whole schedule of a family whose step code builds any
/// rank's part: \p Part for every rank at once.
template <RankPartFn Part>
llvm::Expected<Schedule> wholeSchedule(const Machine &M, const Request &R) {
  return Part(M, R, -1);
}

/// A builder as the registry holds it: plain, or one that searches. Called
/// with a pipeline, a searching builder times its candidates there; called
/// without, in a pipeline of its own that prints nothing.
class BuilderRef {
public:
  BuilderRef(BuildFn F) : Plain(F) {}
  BuilderRef(SearchFn F) : Searching(F) {}
  llvm::Expected<Schedule> operator()(const Machine &M, const Request &R,
                                      Pipeline &P) const;
  llvm::Expected<Schedule> operator()(const Machine &M, const Request &R) const;

private:
  BuildFn Plain = nullptr;
  SearchFn Searching = nullptr;
};

/// The one way a builder refuses a request it cannot serve:
/// "<Algorithm>: <Why>".
llvm::Error notApplicable(llvm::StringRef Algorithm, const llvm::Twine &Why);

/// Fills what every builder's schedule shares from the request: collective,
/// algorithm name, machine name, bytes, root, participants, reduction fields.
Schedule scheduleSkeleton(const Machine &M, const Request &R,
                          llvm::StringRef Algorithm);

/// A copy of the whole message of \p S from rank \p From to rank \p To.
Transfer wholeMessageCall(const Schedule &S, int64_t From, int64_t To);

/// A copy of the root's chunks [\p Chunks.Lo, \p Chunks.Hi) of a broadcast
/// (every rank's destination) from rank \p From to rank \p To.
Transfer rootChunksCall(const Schedule &S, int64_t From, int64_t To,
                        Interval Chunks);
/// The same for several disjoint ranges of chunks, one piece each.
Transfer rootChunksCall(const Schedule &S, int64_t From, int64_t To,
                        llvm::ArrayRef<Interval> Chunks);

/// ceil(log2 N) for N >= 1: the rounds of a binomial tree or of recursive
/// doubling over N ranks.
int ceilLog2(int64_t N);

/// The divisors of \p P (2 .. P - 1) nearest sqrt(P) from below and from
/// above, within a factor 2 of it; 0 where there is none (a prime P has
/// neither): the group counts and grid sides of the few-round algorithms.
std::pair<int64_t, int64_t> divisorsNearSqrt(int64_t P);

/// Relative index -> rank: the ranks of \p S in node order, the root first
/// and then the ranks after it (wrapping round), ties by rank.
std::vector<int32_t> nodeOrderFromRoot(const Schedule &S);

/// For an applicability test: whether \p M's topology is one of \p Kinds;
/// if not, \p Why is "<Needs>, not '<its kind>'".
bool topologyIsOneOf(const Machine &M, llvm::ArrayRef<TopologyKind> Kinds,
                     llvm::StringRef Needs, std::string &Why);

/// For `--algorithm auto`: node-aware builders (node-direct, node-tree),
/// which auto considers on a machine with a network where some node holds
/// several of the ranks (else they are their flat forms).
bool sharesNodes(const Machine &M, const Request &R, std::string &Why);

/// For an applicability test: whether \p R's operator is commutative (or
/// \p R no reduction); if not, \p Why is \p Reason, what the algorithm
/// does that needs it.
bool commutativeOperator(const Request &R, llvm::StringRef Reason,
                         std::string &Why);

/// For `--algorithm auto`: builders laid onto a network, which auto
/// considers only on a machine with one (where the flow-level evaluator
/// judges them); an explicit request takes them anywhere.
bool onNetwork(const Machine &M, const Request &R, std::string &Why);

/// For `--algorithm auto`: onNetwork, and the cost pass prices \p R's rank
/// count by the flow-level evaluator (not by steps, passes/StepCost.h);
/// else \p Why is \p Reason.
bool onFlowPricedNetwork(const Machine &M, const Request &R,
                         llvm::StringRef Reason, std::string &Why);

/// For `--algorithm auto`: builders that differ from another only in when
/// ranks post (Schedule::StagingDepth, SendsAhead), which auto considers on
/// a machine with a network whose cost pass times the posting plan at
/// \p R's rank count (the flow-level evaluator; the step pricing takes
/// every receive as posted with its send, passes/StepCost.h).
bool postingTimed(const Machine &M, const Request &R, std::string &Why);

} // namespace collc

#endif
