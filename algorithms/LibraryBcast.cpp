#include "algorithms/LibraryBcast.h"

#include "algorithms/Cheapest.h"
#include "algorithms/Placement.h"
#include "ir/Diagnostic.h"
#include "passes/Cost.h"
#include "passes/StepCost.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <tuple>

namespace collc {

namespace {

/// The radices searched for P ranks: 2..8, then 16, 32, ... below P.
std::vector<int64_t> radicesFor(int64_t P) {
  std::vector<int64_t> Ks;
  for (int64_t K = 2; K <= 8 && K < std::max<int64_t>(P, 3); ++K)
    Ks.push_back(K);
  for (int64_t K = 16; K < P; K *= 2)
    Ks.push_back(K);
  return Ks;
}

/// The chunks of buildKnomialRadix's schedule with \p Segments segments.
int64_t knomialChunks(const Request &R, int64_t P, int64_t Segments) {
  return std::clamp<int64_t>(
      Segments, 1,
      std::min<int64_t>(std::max<int64_t>(1, static_cast<int64_t>(R.Bytes)),
                        maxSegmentsFor(P)));
}

/// The least bytes a transfer of that schedule carries: a chunk's.
uint64_t knomialLeastBytes(const Request &R, int64_t P, int64_t Segments) {
  const uint64_t Unit = elementBytes(R.Datatype);
  return R.Bytes / Unit / uint64_t(knomialChunks(R, P, Segments)) * Unit;
}

/// A time the step pricing cannot give buildKnomialRadix(M, R, K, ...) less
/// than, with \p Order its rank order and \p Hop a chunk's least time
/// between two nodes: each index's chain of transfers from the root, every
/// one from when what it carries is at its sender; and on a mesh, torus or
/// hypercube each index's sends to other nodes, queued on the links they
/// leave its node by (LeastHopTime::linksPerNode), from when it has it.
double knomialRadixBound(const Schedule &S, const std::vector<int32_t> &Order,
                         int64_t K, const LeastHopTime &Hop) {
  const int64_t P = S.size();
  std::vector<double> At(static_cast<size_t>(P), 0.0);
  std::vector<int64_t> Remote(static_cast<size_t>(P), 0);
  double Most = 0;
  for (int64_t I = 1; I < P; ++I) {
    const int64_t Up = knomialParent(I, K);
    const int64_t From = S.Participants[Order[Up]].Node,
                  To = S.Participants[Order[I]].Node;
    At[I] = At[Up] + Hop(From, To);
    Remote[Up] += From != To;
    Most = std::max(Most, At[I]);
  }
  if (const int64_t Links = Hop.linksPerNode()) {
    const double Busy = Hop.leastLinkBusy();
    for (int64_t I = 0; I < P; ++I)
      if (Remote[I] > 0)
        Most = std::max(Most,
                        At[I] + double((Remote[I] + Links - 1) / Links) * Busy);
  }
  // Below the pricing's own arithmetic by a rounding's margin.
  return Most * (1 - 1e-9);
}

} // namespace

int64_t knomialParent(int64_t I, int64_t K) {
  if (I <= 0)
    return -1;
  int64_t Mask = 1;
  while ((I / Mask) % K == 0)
    Mask *= K;
  return I - ((I / Mask) % K) * Mask;
}

std::vector<int64_t> knomialChildren(int64_t I, int64_t K, int64_t P) {
  // The digit positions below I's lowest non-zero digit (all, for 0).
  int64_t Mask = 1;
  while (Mask < P && (I == 0 || (I / Mask) % K == 0))
    Mask *= K;
  std::vector<int64_t> Out;
  for (Mask /= K; Mask >= 1; Mask /= K)
    for (int64_t J = 1; J < K; ++J)
      if (I + J * Mask < P)
        Out.push_back(I + J * Mask);
  return Out;
}

llvm::Expected<Schedule> buildKnomialRadix(const Machine &M, const Request &R,
                                           int64_t K, int64_t Segments) {
  Schedule S = scheduleSkeleton(M, R, "knomial");
  const int32_t P = S.size();
  if (K < 2)
    return notApplicable("knomial",
                         "radix " + llvm::Twine(K) + ": expected at least 2");
  if (P < 2)
    return S;
  S.NumChunks = knomialChunks(R, P, Segments);
  const std::vector<int32_t> Order = nodeOrderFromRoot(S);
  // Time[i]: when index i has a segment, counted in sends (a parent serves
  // its children one after the other); Fan: the most children of any index,
  // the spacing of consecutive segments.
  std::vector<int64_t> Time(P, 0);
  std::vector<int64_t> Parent(P, -1);
  int64_t Fan = 1;
  for (int64_t I = 0; I < P; ++I) {
    std::vector<int64_t> Kids = knomialChildren(I, K, P);
    Fan = std::max<int64_t>(Fan, static_cast<int64_t>(Kids.size()));
    for (size_t J = 0; J < Kids.size(); ++J) {
      Time[Kids[J]] = Time[I] + static_cast<int64_t>(J) + 1;
      Parent[Kids[J]] = I;
    }
  }
  struct Send {
    int64_t Key, Chunk, Child;
  };
  std::vector<Send> Sends;
  Sends.reserve(static_cast<size_t>((P - 1) * S.NumChunks));
  for (int64_t C = 0; C < S.NumChunks; ++C)
    for (int64_t I = 1; I < P; ++I)
      Sends.push_back({Time[I] + C * Fan, C, I});
  std::sort(Sends.begin(), Sends.end(), [](const Send &A, const Send &B) {
    return std::tie(A.Key, A.Child) < std::tie(B.Key, B.Child);
  });
  std::vector<Transfer> Ts;
  Ts.reserve(Sends.size());
  for (const Send &X : Sends)
    Ts.push_back(rootChunksCall(S, Order[Parent[X.Child]], Order[X.Child],
                                {X.Chunk, X.Chunk + 1}));
  S.Steps = orderedRounds(Ts, P);
  return S;
}

llvm::Expected<Schedule> buildKnomial(const Machine &M, const Request &R,
                                      Pipeline &P) {
  const int64_t Ranks = R.size();
  if (Ranks < 2)
    return buildKnomialRadix(M, R, 2, 1);
  // The radix, with the request's segment count (one segment by default:
  // a searched count would change the schedule at every few bytes, and the
  // segmented broadcasts that win from a few KiB on are other builders).
  const int64_t Seg = R.Segments > 0 ? R.Segments : 1;
  const std::vector<int64_t> Ks = radicesFor(Ranks);
  // Where the cost pass prices by steps and a radix may be left unbuilt,
  // the radices are judged by increasing bound (knomialRadixBound), ties
  // in radix order by their keys: a radix whose bound exceeds the best
  // priced so far could not have won, and the choice is the one the radix
  // order makes (the least time, the smallest radix among equal times).
  std::vector<double> Bounds(Ks.size(), 0.0);
  std::vector<size_t> Judged(Ks.size());
  std::iota(Judged.begin(), Judged.end(), size_t(0));
  const bool Bounded = pricedBySteps(Ranks, M) && !P.options().PriceWhole;
  if (Bounded) {
    const Schedule Skeleton = scheduleSkeleton(M, R, "knomial");
    const std::vector<int32_t> Order = nodeOrderFromRoot(Skeleton);
    const LeastHopTime Hop(M, knomialLeastBytes(R, Ranks, Seg));
    for (size_t I = 0; I < Ks.size(); ++I)
      Bounds[I] = knomialRadixBound(Skeleton, Order, Ks[I], Hop);
    std::stable_sort(Judged.begin(), Judged.end(),
                     [&](size_t A, size_t B) { return Bounds[A] < Bounds[B]; });
  }
  Cheapest Radices(M, P, makespanJudge());
  for (size_t I : Judged) {
    CandidateHooks Hooks;
    Hooks.LowerBound = Bounds[I];
    if (Bounded)
      Hooks.TieKey = static_cast<int64_t>(I);
    if (!Radices.consider(
            "radix " + llvm::Twine(Ks[I]),
            [&] { return buildKnomialRadix(M, R, Ks[I], Seg); }, Hooks))
      return Radices.takeLastError();
  }
  return Radices.take();
}

double knomialRadixBound(const Machine &M, const Request &R, int64_t K,
                         int64_t Segments) {
  if (R.size() < 2 || !M.Net)
    return 0;
  const Schedule Skeleton = scheduleSkeleton(M, R, "knomial");
  return knomialRadixBound(
      Skeleton, nodeOrderFromRoot(Skeleton), K,
      LeastHopTime(M, knomialLeastBytes(R, R.size(), Segments)));
}

double knomialBound(const Machine &M, const Request &R) {
  const int64_t P = R.size();
  if (P < 2 || !M.Net)
    return 0;
  // The farthest rank's chain of transfers from the root: their hops add
  // up to at least the distance between the two (LeastHopTime).
  const Schedule S = scheduleSkeleton(M, R, "knomial");
  const LeastHopTime Hop(
      M, knomialLeastBytes(R, P, R.Segments > 0 ? R.Segments : 1));
  const int64_t RootNode = S.Participants[S.Root].Node;
  double Most = 0;
  for (const Participant &Pt : S.Participants)
    if (Pt.Node != RootNode)
      Most = std::max(Most, Hop(RootNode, Pt.Node));
  // Below the pricing's own arithmetic by a rounding's margin.
  return Most * (1 - 1e-9);
}

llvm::Expected<Schedule> buildScatterRdbAllgather(const Machine &M,
                                                  const Request &R) {
  // Index i of the rank order owns the blocks [own(i), own(i + 1)).
  return scatterThenAllgather(
      M, R, "scatter-rdb-allgather", nodeOrderFromRoot,
      [](BlockCopies &C, int64_t P) {
        int64_t Top = 1;
        while (Top < P)
          Top *= 2;
        // Binomial scatter, one mask per round from the largest: index i (a
        // multiple of 2 Mask) sends the blocks of [i + Mask, i + 2 Mask) to
        // i + Mask.
        for (int64_t Mask = Top / 2; Mask >= 1; Mask /= 2)
          for (int64_t I = 0; I + Mask < P; I += 2 * Mask)
            C.copy(I, I + Mask, I + Mask, I + 2 * Mask, -1);
        // Recursive-doubling allgather, a round per mask.
        for (int64_t Mask = 1, Round = 0; Mask < P; Mask *= 2, ++Round) {
          for (int64_t I = 0; I < P; ++I) {
            const int64_t Dst = I ^ Mask;
            // A lower partner aligned to 2 Mask got this group's blocks in
            // the scatter (its subtree holds both groups): MPICH sends them
            // again, collc does not.
            if (Dst < P && !(Dst < I && Dst % (2 * Mask) == 0))
              C.copy(I, Dst, I & ~(Mask - 1), (I & ~(Mask - 1)) + Mask, Round);
          }
          // Groups whose partner group is cut short by P: the first Done
          // indices of the group [G, G + Mask) got the partner group's
          // blocks [G + Mask, P); they pass them on by recursive halving,
          // each subtree's first Done indices holding them.
          for (int64_t G = 0; G < P; G += 2 * Mask) {
            const int64_t Done = P - G - Mask;
            if (Done <= 0 || Done >= Mask)
              continue;
            for (int64_t Half = Mask / 2; Half >= 1; Half /= 2)
              for (int64_t Sub = G; Sub < G + Mask; Sub += 2 * Half)
                for (int64_t I = Sub; I < Sub + Half; ++I) {
                  const int64_t Dst = I + Half;
                  if (I < Sub + Done && Dst >= Sub + Done && Dst < P)
                    C.copy(I, Dst, G + Mask, P, -1);
                }
          }
        }
      });
}

} // namespace collc
