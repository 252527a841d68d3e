#include "algorithms/RankParts.h"

#include "algorithms/Personalized.h"
#include "algorithms/Reductions.h"
#include "algorithms/Registry.h"
#include "algorithms/TopologyReductions.h"
#include "algorithms/Trees.h"

#include <algorithm>
#include <cmath>

#include "llvm/Support/MathExtras.h"

namespace collc {

namespace {

/// The closed-form price of a family (rankPartPrice).
using PriceFn = double (*)(const Machine &M, const Request &R);

/// Where a family's part is derived (null: wherever the algorithm applies).
using PartAppliesFn = bool (*)(const Machine &M, const Request &R);

struct RankPartEntry {
  Collective Coll;
  const char *Name;
  RankPartFn Build;
  /// Null: no closed-form price (not among choosePricedPart's candidates).
  PriceFn Price;
  PartAppliesFn Applies = nullptr;
};

/// A step in which one message of \p Bytes moves along a tree: its t_end.
double treeStep(const Machine &M, double Bytes) {
  return M.M.tEnd(static_cast<uint64_t>(std::llround(Bytes)));
}

/// A step in which every rank sends and receives \p Bytes: t_end, times
/// the linear model's send/receive factor.
double exchangeStep(const Machine &M, double Bytes) {
  const double Factor =
      M.M.Kind == ModelKind::Linear ? M.M.SendRecvFactor : 1.0;
  return Factor * treeStep(M, Bytes);
}

/// The reduction work of folding \p Bytes.
double fold(const Machine &M, double Bytes) { return M.M.OpPerByte * Bytes; }

/// binomial broadcast: ceil(log2 P) steps of the whole message.
double binomialBcastPrice(const Machine &M, const Request &R) {
  return double(llvm::Log2_64_Ceil(R.size())) * treeStep(M, double(R.Bytes));
}

/// binomial reduce (and the allreduce's broadcast back): ceil(log2 P)
/// combines of the whole vector, then as many copies, or one copy to the
/// root for a non-commutative reduce whose root is not rank 0.
double binomialReducePrice(const Machine &M, const Request &R) {
  const double L = double(llvm::Log2_64_Ceil(R.size())), N = double(R.Bytes);
  double T = L * (treeStep(M, N) + fold(M, N));
  if (R.Coll == Collective::Allreduce && R.size() > 1)
    T += L * treeStep(M, N);
  else if (R.Coll == Collective::Reduce && !R.Commutative && R.Root != 0)
    T += treeStep(M, N);
  return T;
}

/// The largest power of two 2^d <= \p P: the core of the recursive
/// halving and doubling algorithms.
int64_t powerCore(int64_t P) {
  int64_t Core = 1;
  while (Core * 2 <= P)
    Core *= 2;
  return Core;
}

/// The extra ranks' fold of the whole vector into the core and the copy of
/// the result back (none when P is a power of two).
double extraFoldAndCopy(const Machine &M, const Request &R) {
  const double N = double(R.Bytes);
  return R.size() > powerCore(R.size())
             ? treeStep(M, N) + fold(M, N) + treeStep(M, N)
             : 0;
}

/// reduce-scatter + allgather: the extra ranks' fold and copy of the whole
/// vector, and log2 2^d exchanges each way of N/2, N/4, ... bytes.
double reduceScatterAllgatherPrice(const Machine &M, const Request &R) {
  const int64_t Core = powerCore(R.size());
  const double N = double(R.Bytes);
  double T = extraFoldAndCopy(M, R);
  for (int64_t Part = 2; Part <= Core; Part *= 2)
    T += 2 * exchangeStep(M, N / double(Part)) + fold(M, N / double(Part));
  return T;
}

/// Ring allgather: P - 1 exchanges of one block, each waiting for the one
/// before.
double ringPrice(const Machine &M, const Request &R) {
  return double(R.size() - 1) * exchangeStep(M, double(R.Bytes));
}

/// Pairwise all-to-all: P - 1 exchanges of one block. A rank's blocks are
/// its own from the start, so on a network its sends leave one after the
/// other, each after the send overhead, their data sharing its link, and
/// only the last one's latency shows; under the model a sender is busy for
/// the whole transfer (t_end = t_hold), as for the ring.
double pairwisePrice(const Machine &M, const Request &R) {
  if (!M.Net || R.size() < 2)
    return ringPrice(M, R);
  const double Overhead = M.Net->SendOverhead;
  const double Latency = std::max(0.0, treeStep(M, 0) - Overhead);
  const double Data = treeStep(M, double(R.Bytes)) - treeStep(M, 0);
  return double(R.size() - 1) * (Overhead + Data) + Latency;
}

/// Bruck's allgather: at distance 2^k, min(2^k, P - 2^k) blocks.
double bruckAllgatherPrice(const Machine &M, const Request &R) {
  const int64_t P = R.size();
  double T = 0;
  for (int64_t Bit = 1; Bit < P; Bit <<= 1)
    T += exchangeStep(M, double(std::min(Bit, P - Bit)) * double(R.Bytes));
  return T;
}

/// Bruck's all-to-all: at distance 2^k, the blocks whose distance below P
/// has bit k set.
double bruckAlltoallPrice(const Machine &M, const Request &R) {
  const int64_t P = R.size();
  double T = 0;
  for (int64_t Bit = 1; Bit < P; Bit <<= 1) {
    // Distances in [0, P) with bit k set: whole periods of 2 Bit, each with
    // Bit of them, and the remainder's part above Bit.
    const int64_t Blocks =
        P / (2 * Bit) * Bit + std::max<int64_t>(0, P % (2 * Bit) - Bit);
    T += exchangeStep(M, double(Blocks) * double(R.Bytes));
  }
  return T;
}

const RankPartEntry RankParts[] = {
    {Collective::Bcast, "binomial", buildBinomialBcastPart, binomialBcastPrice},
    {Collective::Reduce, "binomial", buildBinomialReducePart,
     binomialReducePrice},
    {Collective::Allreduce, "binomial", buildBinomialReducePart,
     binomialReducePrice},
    {Collective::Allreduce, "reduce-scatter-allgather",
     buildReduceScatterAllgatherPart, reduceScatterAllgatherPrice},
    // Not priced: a step-by-step price of its whole-vector exchanges made
    // auto's choice on the drawn network platforms the cost pass's in 120
    // of 140 cases rather than 125 (tests/algorithms/RankPartsTest.cpp);
    // its part serves where it is named or chosen from whole candidates.
    {Collective::Allreduce, "nearest-doubling", buildNearestDoublingPart,
     nullptr},
    {Collective::Alltoall, "pairwise", buildPairwiseAlltoallPart,
     pairwisePrice},
    {Collective::Alltoall, "bruck", buildBruckAlltoallPart, bruckAlltoallPrice},
    {Collective::Allgather, "ring", buildRingAllgatherPart, ringPrice},
    {Collective::Allgather, "bruck", buildBruckAllgatherPart,
     bruckAllgatherPrice},
    // The direct exchanges: parts where the whole is one step; not priced
    // (a rank's P - 1 messages at once share its links, which a step-by-step
    // price does not see), so auto's choice by price leaves them out.
    {Collective::Alltoall, "direct", buildDirectAlltoallPart, nullptr,
     directPartApplies},
    {Collective::Allgather, "direct", buildDirectAllgatherPart, nullptr,
     directPartApplies},
};

/// The entry of \p Algorithm for \p C, or null.
const RankPartEntry *findEntry(llvm::StringRef Algorithm, Collective C) {
  for (const RankPartEntry &E : RankParts)
    if (E.Coll == C && Algorithm == E.Name)
      return &E;
  return nullptr;
}

} // namespace

RankPartFn rankPartBuilder(llvm::StringRef Algorithm, Collective C) {
  const RankPartEntry *E = findEntry(Algorithm, C);
  return E ? E->Build : nullptr;
}

RankPartFn rankPartBuilder(llvm::StringRef Algorithm, const Machine &M,
                           const Request &R) {
  const RankPartEntry *E = findEntry(Algorithm, R.Coll);
  return E && (!E->Applies || E->Applies(M, R)) ? E->Build : nullptr;
}

std::optional<double> rankPartPrice(llvm::StringRef Algorithm, const Machine &M,
                                    const Request &R) {
  const RankPartEntry *E = findEntry(Algorithm, R.Coll);
  if (!E || !E->Price || (E->Applies && !E->Applies(M, R)))
    return std::nullopt;
  return E->Price(M, R);
}

PricedChoice choosePricedPart(const Machine &M, const Request &R) {
  PricedChoice Best;
  for (const AlgorithmInfo *A : autoCandidates(M, R)) {
    std::optional<double> Price = rankPartPrice(A->Name, M, R);
    if (Price && std::isfinite(*Price) &&
        (!Best.Algorithm || *Price < Best.Price))
      Best = {A->Name, *Price};
  }
  return Best;
}

std::vector<std::pair<Collective, const char *>> rankPartAlgorithms() {
  std::vector<std::pair<Collective, const char *>> V;
  for (const RankPartEntry &E : RankParts)
    V.push_back({E.Coll, E.Name});
  return V;
}

Schedule rankPartOf(const Schedule &S, int32_t Rank) {
  Schedule Part = S;
  for (Step &St : Part.Steps) {
    std::vector<Transfer> Mine;
    for (Transfer &T : St.Transfers)
      if (T.Src == Rank || T.Dst == Rank)
        Mine.push_back(std::move(T));
    St.Transfers = std::move(Mine);
  }
  return Part;
}

} // namespace collc
