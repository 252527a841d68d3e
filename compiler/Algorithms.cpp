#include "compiler/Algorithms.h"

#include "compiler/algorithms/Barriers.h"
#include "compiler/algorithms/Mesh.h"
#include "compiler/algorithms/Trees.h"

#include <algorithm>

namespace collc {

bool AlgorithmInfo::supports(Collective C) const {
  return std::find(Collectives.begin(), Collectives.end(), C) != Collectives.end();
}

const std::vector<AlgorithmInfo> &algorithms() {
  static const std::vector<AlgorithmInfo> All = {
      {"opt-tree",
       "optimal one-to-all tree for t_hold/t_end by dynamic programming (paper 000)",
       {Collective::Bcast, Collective::Multicast},
       buildOptTree},
      {"binomial",
       "binomial tree (recursive doubling, largest subtree first)",
       {Collective::Bcast, Collective::Multicast},
       buildBinomial},
      {"sequential",
       "separate addressing: the root sends to every rank in turn",
       {Collective::Bcast, Collective::Multicast},
       buildSequential},
      {"chain",
       "chain: each rank forwards to the next",
       {Collective::Bcast, Collective::Multicast},
       buildChain},
      {"opt-mesh",
       "OPT-tree on the dimension-ordered chain: optimal and contention-free on "
       "wormhole meshes (paper 000, Algorithm 2)",
       {Collective::Bcast, Collective::Multicast},
       buildOptMesh,
       meshApplies},
      {"u-mesh",
       "binomial split of the dimension-ordered chain (McKinley's U-mesh)",
       {Collective::Bcast, Collective::Multicast},
       buildUMesh,
       meshApplies},
      {"dissemination",
       "dissemination barrier: ceil(log2 P) rounds, rank i signals i + 2^k",
       {Collective::Barrier},
       buildDisseminationBarrier,
       barrierApplies},
      {"tree",
       "tree barrier: binomial gather of arrivals to the root, binomial release",
       {Collective::Barrier},
       buildTreeBarrier,
       barrierApplies},
      {"gather-broadcast",
       "two-phase barrier on a line: gather worm to the root, broadcast worm back "
       "(paper 003, Figure 1)",
       {Collective::Barrier},
       buildGatherBroadcastBarrier,
       barrierApplies},
  };
  return All;
}

const AlgorithmInfo *findAlgorithm(llvm::StringRef Name) {
  for (const AlgorithmInfo &A : algorithms())
    if (Name == A.Name)
      return &A;
  return nullptr;
}

Schedule scheduleSkeleton(const Machine &M, const Request &R,
                          llvm::StringRef Algorithm) {
  Schedule S;
  S.Coll = R.Coll;
  S.Algorithm = Algorithm.str();
  S.MachineName = M.Name;
  S.Bytes = R.Bytes;
  S.Root = R.Root;
  S.NumChunks = 1;
  S.Op = R.Op;
  S.Datatype = R.Datatype;
  S.Commutative = R.Commutative;
  S.Participants.reserve(R.Nodes.size());
  for (int64_t N : R.Nodes)
    S.Participants.push_back({N});
  return S;
}

} // namespace collc
