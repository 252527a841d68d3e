#include "passes/MergeSteps.h"

#include "passes/Routes.h"

#include <unordered_set>

namespace collc {

namespace {

uint64_t channelKey(const Channel &C) {
  // Channels join nodes (or switches) below 2^31 in any network collc
  // builds; the pair packs into one word for hashing.
  return (static_cast<uint64_t>(C.From) << 32) ^ static_cast<uint64_t>(C.To);
}

} // namespace

MergeStats mergeSteps(Schedule &S, const Machine &M) {
  MergeStats Stats;
  Stats.StepsBefore = Stats.StepsAfter = S.Steps.size();
  if (!isRouted(M.Topo) || S.Steps.empty())
    return Stats;

  std::vector<Step> Out;
  // Ranks and channels of the group being built (Out.back()).
  std::vector<uint32_t> RankGroup(S.size(), UINT32_MAX);
  std::unordered_set<uint64_t> GroupChannels;
  std::vector<Channel> Route;
  std::vector<uint64_t> StepChannels;
  uint32_t Group = 0;

  for (Step &St : S.Steps) {
    StepChannels.clear();
    for (const Transfer &T : St.Transfers) {
      Route.clear();
      llvm::cantFail(appendRoute(M.Topo, S.Participants[T.Src].Node,
                                 S.Participants[T.Dst].Node, Route, T.TieDown));
      for (const Channel &C : Route)
        StepChannels.push_back(channelKey(C));
    }
    bool Fits = !Out.empty();
    for (const Transfer &T : St.Transfers) {
      if (!Fits)
        break;
      Fits = RankGroup[T.Src] != Group && RankGroup[T.Dst] != Group;
    }
    for (uint64_t K : StepChannels) {
      if (!Fits)
        break;
      Fits = !GroupChannels.count(K);
    }
    if (!Fits) {
      Out.emplace_back();
      ++Group;
      GroupChannels.clear();
    }
    for (Transfer &T : St.Transfers) {
      RankGroup[T.Src] = RankGroup[T.Dst] = Group;
      Out.back().Transfers.push_back(std::move(T));
    }
    GroupChannels.insert(StepChannels.begin(), StepChannels.end());
  }
  S.Steps = std::move(Out);
  Stats.StepsAfter = S.Steps.size();
  return Stats;
}

} // namespace collc
