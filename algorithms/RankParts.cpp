#include "algorithms/RankParts.h"

#include "algorithms/Personalized.h"

namespace collc {

namespace {

struct RankPartEntry {
  Collective Coll;
  const char *Name;
  RankPartFn Build;
};

const RankPartEntry RankParts[] = {
    {Collective::Alltoall, "pairwise", buildPairwiseAlltoallPart},
    {Collective::Alltoall, "bruck", buildBruckAlltoallPart},
    {Collective::Allgather, "ring", buildRingAllgatherPart},
    {Collective::Allgather, "bruck", buildBruckAllgatherPart},
};

} // namespace

RankPartFn rankPartBuilder(llvm::StringRef Algorithm, Collective C) {
  for (const RankPartEntry &E : RankParts)
    if (E.Coll == C && Algorithm == E.Name)
      return E.Build;
  return nullptr;
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
