#include "algorithms/Registry.h"

#include "ir/Diagnostic.h"

#include "algorithms/Barriers.h"
#include "algorithms/Bine.h"
#include "algorithms/DoubleBuffered.h"
#include "algorithms/Greedy.h"
#include "algorithms/GridAlltoall.h"
#include "algorithms/GridDirect3.h"
#include "algorithms/LibraryAllgather.h"
#include "algorithms/LibraryBcast.h"
#include "algorithms/MacroStar.h"
#include "algorithms/Mesh.h"
#include "algorithms/NodeLeaders.h"
#include "algorithms/NodeRing.h"
#include "algorithms/NonblockingRing.h"
#include "algorithms/Packing.h"
#include "algorithms/Personalized.h"
#include "algorithms/Posted.h"
#include "algorithms/Reductions.h"
#include "algorithms/SegmentedBcast.h"
#include "algorithms/StarSearch.h"
#include "algorithms/Swing.h"
#include "algorithms/SwitchBcast.h"
#include "algorithms/TopologyBcast.h"
#include "algorithms/TopologyReductions.h"
#include "algorithms/TorusAlltoall.h"
#include "algorithms/Trees.h"
#include "algorithms/TwoLevel.h"

#include "llvm/Support/Format.h"

#include <algorithm>

namespace collc {

bool AlgorithmInfo::supports(Collective C) const {
  return std::find(Collectives.begin(), Collectives.end(), C) !=
         Collectives.end();
}

const std::vector<AlgorithmInfo> &algorithms() {
  static const std::vector<AlgorithmInfo> All = {
      {"opt-tree",
       "optimal one-to-all tree for t_hold/t_end by dynamic programming (paper "
       "000)",
       {Collective::Bcast, Collective::Multicast},
       buildOptTree,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/nullptr,
       /*AutoGain=*/0,
       /*AutoBound=*/optTreeBound},
      {"binomial",
       "binomial tree (recursive doubling, largest subtree first)",
       {Collective::Bcast, Collective::Multicast},
       buildBinomial,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/nullptr,
       /*AutoGain=*/0,
       /*AutoBound=*/binomialBound},
      {"sequential",
       "separate addressing: the root sends to every rank in turn",
       {Collective::Bcast, Collective::Multicast},
       buildSequential,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/nullptr,
       /*AutoGain=*/0,
       /*AutoBound=*/sequentialBound},
      // One-shot algorithms (issue 27): every message of a step posted at
      // once, as MPI libraries' linear algorithms do; auto takes them where
      // the network evaluator prices the messages sharing a rank's links.
      {"direct",
       "flat tree: the root sends to every rank at once (one step on a "
       "machine with a network)",
       {Collective::Bcast},
       buildDirectBcast,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork,
       /*AutoGain=*/0,
       /*AutoBound=*/directBound},
      {"chain",
       "chain: each rank forwards to the next",
       {Collective::Bcast, Collective::Multicast},
       buildChain},
      {"opt-mesh",
       "OPT-tree on the dimension-ordered chain: optimal and contention-free "
       "on "
       "wormhole meshes (paper 000, Algorithm 2)",
       {Collective::Bcast, Collective::Multicast},
       buildOptMesh,
       meshApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/nullptr,
       /*AutoGain=*/0,
       /*AutoBound=*/optMeshBound},
      {"u-mesh",
       "binomial split of the dimension-ordered chain (McKinley's U-mesh)",
       {Collective::Bcast, Collective::Multicast},
       buildUMesh,
       meshApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/nullptr,
       /*AutoGain=*/0,
       /*AutoBound=*/uMeshBound},
      // Paper 002: star and macro-star graphs, unit-call model.
      {"star-search",
       "star graph S_k: randomized maximal matchings searched once from the "
       "identity, relabelled onto the root; ceil(log2 k!) + 1 steps on "
       "S_5..S_9, never more than greedy (paper 002)",
       {Collective::Bcast},
       buildStarSearch,
       starSearchApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/true},
      {"macro-star",
       "macro-star MS(l,n): generator sequences of Lemmas 1 and 2, then "
       "star-search in every base module (paper 002)",
       {Collective::Bcast},
       buildMacroStar,
       macroStarApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/true},
      {"greedy",
       "each step a maximum matching between informed ranks and their "
       "uninformed neighbours (any topology; baseline)",
       {Collective::Bcast},
       buildGreedy,
       greedyApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/true,
       /*AutoApplies=*/greedyInAuto},
      {"dissemination",
       "dissemination barrier: ceil(log2 P) rounds, rank i signals i + 2^k",
       {Collective::Barrier},
       buildDisseminationBarrier,
       barrierApplies},
      {"tree",
       "tree barrier: binomial gather of arrivals to the root, binomial "
       "release",
       {Collective::Barrier},
       buildTreeBarrier,
       barrierApplies},
      {"gather-broadcast",
       "two-phase barrier on a line: gather worm to the root, broadcast worm "
       "back "
       "(paper 003, Figure 1)",
       {Collective::Barrier},
       buildGatherBroadcastBarrier,
       barrierApplies},
      {"sem",
       "complete exchange on a 2D torus: split into 2x2 cells, exchange among "
       "the diagonal masters, merge (paper 004)",
       {Collective::Alltoall},
       buildSem,
       semApplies},
      {"torus-direct",
       "complete exchange on a 2D torus: every pair directly, offset by offset "
       "in channel-disjoint sub-steps",
       {Collective::Alltoall},
       buildTorusDirect,
       torusAlltoallApplies},
      {"torus-row-column",
       "complete exchange on a 2D torus: store-and-forward along rows, then "
       "columns, one hop per step",
       {Collective::Alltoall},
       buildTorusRowColumn,
       torusRowColumnApplies},
      // Paper 001: segmented and pipelined collectives (linear model).
      {"edge-disjoint",
       "log P parts along edge-disjoint spanning binomial trees (paper 001)",
       {Collective::Bcast},
       buildEdgeDisjoint,
       segmentedBcastApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/nullptr,
       /*AutoGain=*/0,
       /*AutoBound=*/edgeDisjointBound},
      {"k-segment",
       "k segments (default P/2) scattered to group leaders, chained down the "
       "groups, circulated in rings (paper 001)",
       {Collective::Bcast},
       buildKSegment,
       segmentedBcastApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/nullptr,
       /*AutoGain=*/0,
       /*AutoBound=*/kSegmentBound},
      {"pipeline",
       "k segments pipelined down a chain, default k = sqrt((P-2)M/(B t_s)) "
       "(paper 001)",
       {Collective::Bcast},
       buildPipeline,
       segmentedBcastApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/nullptr,
       /*AutoGain=*/0,
       /*AutoBound=*/pipelineBound},
      {"two-path-pipeline",
       "two chains of P/2 fed alternately by the root (paper 001)",
       {Collective::Bcast},
       buildTwoPathPipeline,
       segmentedBcastApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/nullptr,
       /*AutoGain=*/0,
       /*AutoBound=*/twoPathPipelineBound},
      {"scatter-allgather",
       "binomial scatter of P segments, then ring allgather",
       {Collective::Bcast},
       buildScatterAllgather,
       scatterAllgatherApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/nullptr,
       /*AutoGain=*/0,
       /*AutoBound=*/scatterAllgatherBound},
      // Broadcasts laid onto the topology (issue 16): neighbour links only,
      // several at once; segments and shapes searched with the cost pass.
      {"ring-pipeline",
       "segments pipelined along a snake of neighbouring nodes, both ways "
       "round from the root on a torus ring",
       {Collective::Bcast},
       buildRingPipeline,
       topologyBcastApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/topologyBcastInAuto},
      {"spanning-trees",
       "2d (torus) or d edge-disjoint spanning trees, each a share of the "
       "segments, pipelined",
       {Collective::Bcast},
       buildSpanningTrees,
       topologyBcastApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/topologyBcastInAuto},
      {"scatter-ring",
       "scatter along each dimension's lines, then bidirectional ring "
       "allgather dimension by dimension",
       {Collective::Bcast},
       buildScatterRing,
       topologyBcastApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/topologyBcastInAuto},
      {"scatter-trees",
       "every node's block straight from the root, then down a "
       "shortest-path spanning tree rooted at that node",
       {Collective::Bcast},
       buildScatterTrees,
       topologyBcastApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/topologyBcastInAuto},
      {"kary-pipeline",
       "pipelined k-ary tree over the ranks in node (leaf switch) order, k "
       "and segments searched",
       {Collective::Bcast},
       buildKaryPipeline,
       switchBcastApplies,
       // Not in auto: timing its candidates on a fat tree takes the
       // evaluator seconds, and it does not beat edge-disjoint there.
       /*InAuto=*/false},
      {"node-tree",
       "pipelined tree of node leaders, each passing every segment on to "
       "its node's ranks (one copy enters a node); fan-outs and segments "
       "searched",
       {Collective::Bcast},
       buildNodeTree,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/nodeTreeInAuto,
       // Where the network, not the node, bounds the time, it ties
       // other trees over node order (bine, knomial) to the last digit.
       /*AutoGain=*/0.05},
      // Spanning-tree packing (issue 27, after ForestColl): trees through
      // the machine's links, switches and all, at rates that fill them.
      {"packing",
       "spanning trees packed into the network's links (switches as "
       "vertices), each a share of the data by its rate, pipelined",
       {Collective::Bcast},
       buildPacking,
       packingApplies,
       // Not in auto: it ties other tree packings (spanning-trees on tori,
       // edge-disjoint and k-segment on fat trees and clusters) to within a
       // chunk's rounding, and the alternation splits --emit select's bands
       // into thousands of stretches (a minute of CPU for a 16-rank
       // broadcast on a 256-node fat tree; docs/network.md).
       /*InAuto=*/false},
      {"packing",
       "a spanning tree per origin through the network's links (switches "
       "as vertices), each grown on the load the others left",
       {Collective::Allgather},
       buildPackingAllgather,
       packingApplies,
       // Not in auto: whole blocks stored and forwarded down the trees take
       // 3-5x direct's time on drawn platforms at 64 KiB.
       /*InAuto=*/false},
      // The MPI libraries' broadcasts for switched networks, searched with
      // the cost pass (algorithms/LibraryBcast.h).
      {"knomial",
       "k-nomial tree over the ranks in node order, largest subtrees first; "
       "radix searched",
       {Collective::Bcast},
       buildKnomial,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork,
       /*AutoGain=*/0,
       /*AutoBound=*/knomialBound},
      // The same trees posted as the MPI libraries post them
      // (algorithms/Posted.h); where the posting is not timed their
      // schedules time as knomial's and scatter-allgather's: taken only
      // when faster by more than rounding.
      {"knomial-fanout",
       "k-nomial tree, each rank sending to the k - 1 children of a digit "
       "at once (MVAPICH2's knomial, SMPI's mvapich2_knomial_intra_node); "
       "radix searched",
       {Collective::Bcast},
       buildKnomialFanout,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/postingTimed,
       /*AutoGain=*/1e-9},
      {"lockstep-scatter-allgather",
       "scatter-allgather as a loop of sendrecv, each rank's step after its "
       "previous one (SMPI's scatter_LR_allgather)",
       {Collective::Bcast},
       buildLockstepScatterAllgather,
       scatterAllgatherApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/postingTimed,
       /*AutoGain=*/1e-9},
      {"scatter-rdb-allgather",
       "binomial scatter of P blocks, then recursive-doubling allgather "
       "(MPICH's long-message broadcast, any P)",
       {Collective::Bcast},
       buildScatterRdbAllgather,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"binomial",
       "binomial tree reduce (allreduce: then a binomial broadcast)",
       {Collective::Reduce, Collective::Allreduce},
       wholeSchedule<buildBinomialReducePart>},
      {"reduce-scatter-allgather",
       "recursive-halving reduce-scatter, then recursive-doubling allgather "
       "(reduce: binomial gather); commutative operators (paper 001)",
       {Collective::Reduce, Collective::Allreduce},
       buildReduceScatterAllgather,
       reduceScatterApplies},
      {"lockstep-reduce-scatter-allgather",
       "reduce-scatter-allgather as a loop of sendrecv, each rank's step "
       "after its previous one (MPICH's Rabenseifner, SMPI's rab_rdb)",
       {Collective::Reduce, Collective::Allreduce},
       buildLockstepReduceScatterAllgather,
       reduceScatterApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       // Where the posting is not timed its schedule is
       // reduce-scatter-allgather's: taken only when faster by more than
       // rounding.
       /*AutoApplies=*/postingTimed,
       /*AutoGain=*/1e-9},
      {"direct",
       "every rank sends its vector to the root at once, the root folds in "
       "rank order (allreduce: then sends the result to all at once)",
       {Collective::Reduce, Collective::Allreduce},
       buildDirectReduce,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork,
       /*AutoGain=*/0,
       /*AutoBound=*/directReduceBound},
      {"reduce-scatter-direct",
       "reduce-scatter by one all-to-all (each owner folds its block in rank "
       "order), then a direct or ring allgather (reduce: a direct gather)",
       {Collective::Reduce, Collective::Allreduce},
       buildReduceScatterDirect,
       reduceScatterDirectApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"pipeline",
       "k segments folded up a chain of the ranks in node order to the root "
       "(Open MPI's pipeline reduce, SMPI's NTSL), k searched with the cost "
       "pass; commutative operators",
       {Collective::Reduce},
       buildPipelineReduce,
       pipelineReduceApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"knomial",
       "k-nomial tree reduce (MVAPICH2's), radix 3, 4 or 8 by the cost pass; "
       "commutative operators",
       {Collective::Reduce},
       buildKnomialReduce,
       knomialReduceApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"pipelined-binary",
       "k segments folded up a binary tree of the ranks in node order (Open "
       "MPI's binary reduce), k searched with the cost pass; commutative "
       "operators",
       {Collective::Reduce},
       buildBinaryPipelineReduce,
       pipelineReduceApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      // Reduce-scatter (MPI_Reduce_scatter_block): the vector's P blocks,
      // rank r ends with block r reduced.
      {"recursive-halving",
       "recursive halving, nearest partner first (any operator), then each "
       "block handed on to its owner",
       {Collective::ReduceScatter},
       buildReduceScatterAllgather,
       reduceScatterApplies},
      {"ring",
       "ring: each rank folds a block and passes it on, P - 1 steps; "
       "commutative operators",
       {Collective::ReduceScatter},
       buildRingReduceScatter,
       ringReduceScatterApplies},
      {"direct",
       "every rank sends each owner its block at once, the owner folds them "
       "in rank order",
       {Collective::ReduceScatter},
       buildReduceScatterDirect,
       reduceScatterDirectApplies},
      // The newest published families (issue 27): partners at negabinary
      // distances 1, -1, 3, -5, 11, ... (algorithms/Butterfly.h).
      {"swing",
       "Swing (NSDI'24): recursive doubling, or reduce-scatter + allgather, "
       "over partners r +- 1, 3, 5, 11, ...; per dimension on tori; "
       "commutative operators",
       {Collective::Allreduce},
       buildSwing,
       swingApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"bine",
       "Bine tree (SC'25): binomial tree at negabinary distances, subtrees "
       "ranges round the root (allreduce: reduce, then broadcast; gather, "
       "scatter: a subtree's blocks together); allgather: butterfly over "
       "partners r +- ..., 11, -5, 3, -1, 1, reduce-scatter the reverse",
       {Collective::Bcast, Collective::Reduce, Collective::Allreduce,
        Collective::Gather, Collective::Scatter, Collective::Allgather,
        Collective::ReduceScatter},
       buildBine,
       bineApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      // Issue 16: allreduce and allgather laid onto the topology.
      {"nearest-halving",
       "recursive halving then doubling, nearest partner first (MPICH's "
       "order), partners on torus neighbours dimension by dimension",
       {Collective::Allreduce},
       buildNearestHalving,
       nearestHalvingApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"nearest-doubling",
       "recursive doubling of the whole vector, nearest partner first "
       "(small messages)",
       {Collective::Allreduce},
       buildNearestDoubling,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"dimension-rings",
       "bucket algorithm on the topology's rings, dimension by dimension, "
       "one or both directions (allreduce: reduce-scatter, then allgather)",
       {Collective::Allreduce, Collective::Allgather},
       buildDimensionRings,
       dimensionRingsApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetworkRings},
      {"ring",
       "one ring of all ranks in node order: ring reduce-scatter, then ring "
       "allgather, one block per rank and step (Open MPI's ring)",
       {Collective::Allreduce},
       buildRingAllreduce,
       ringAllreduceApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetworkFlatRing},
      {"two-level",
       "the ranks of every node fold into its leader, then a k-nomial reduce "
       "over the leaders (allreduce: recursive doubling or one exchange over "
       "them, then each leader to its node's ranks; MVAPICH2's two-level); "
       "commutative operators",
       {Collective::Reduce, Collective::Allreduce},
       buildTwoLevelReduction,
       twoLevelApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork,
       // Listed after the other reductions and taken only when faster by
       // more than rounding: with one rank a node or two ranks it is often
       // another candidate's schedule (recursive doubling, the k-nomial
       // tree, reduce-scatter-direct) to the last bit.
       /*AutoGain=*/1e-9},
      {"double-buffered",
       "binomial tree reduce (any operator), k-nomial or two-level "
       "(commutative), each rank receiving two children's vectors at once "
       "(Open MPI's tree reduce, SMPI's ompi_binomial)",
       {Collective::Reduce},
       buildDoubleBufferedReduce,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/postingTimed,
       // Its trees are the other candidates' and where no rank receives
       // two whole vectors in a row its schedule times as theirs: taken
       // only when faster by more than rounding.
       /*AutoGain=*/1e-9},
      {"linear",
       "linear array: rank r combines what r-1 sends and passes it on",
       {Collective::Scan, Collective::Exscan},
       buildLinearScan},
      {"pipelined",
       "linear array with the message in k segments (paper 001)",
       {Collective::Scan, Collective::Exscan},
       buildPipelinedScan,
       scanApplies},
      {"brent-kung",
       "Brent-Kung up-sweep and down-sweep, 2 log P - 1 steps (paper 001)",
       {Collective::Scan, Collective::Exscan},
       buildBrentKungScan},
      {"rootp",
       "blocks of 1, 2, 3, ... ranks: about 2 sqrt(2P) steps, even work "
       "(paper 001)",
       {Collective::Scan, Collective::Exscan},
       buildRootPScan},
      {"linear",
       "the root exchanges one block with every rank in turn",
       {Collective::Gather, Collective::Scatter},
       buildLinearPersonalized},
      {"binomial",
       "binomial tree: a subtree's blocks travel together",
       {Collective::Gather, Collective::Scatter},
       buildBinomialPersonalized},
      {"direct",
       "the root exchanges its block with every rank at once",
       {Collective::Gather, Collective::Scatter},
       buildDirectPersonalized,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"pairwise",
       "direct exchange: in step s rank r sends its block to r + s",
       {Collective::Alltoall},
       wholeSchedule<buildPairwiseAlltoallPart>},
      {"bruck",
       "Bruck: log P steps, blocks hop by powers of two",
       {Collective::Alltoall},
       wholeSchedule<buildBruckAlltoallPart>},
      {"direct",
       "every rank posts its P - 1 blocks at once (basic linear)",
       {Collective::Alltoall},
       wholeSchedule<buildDirectAlltoallPart>,
       allPairsFit,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"grid-exchange",
       "ranks on a logical 2-D or 3-D grid: blocks move along each dimension "
       "in turn, one message per line peer (2dmesh, 3dmesh)",
       {Collective::Alltoall},
       buildGridExchange,
       allPairsFit,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"ring",
       "ring: P - 1 steps, each rank passes one block to the next",
       {Collective::Allgather},
       wholeSchedule<buildRingAllgatherPart>,
       // P (P - 1) transfers, as direct's: within the same bounds.
       allPairsFit},
      {"nonblocking-ring",
       "the ring, each rank sending every block on as it arrives without "
       "waiting for its previous send to complete (SMPI's SMP_NTS)",
       {Collective::Allgather},
       buildNonblockingRingAllgather,
       allPairsFit,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       // Where the posting is not timed its schedule is the ring's: taken
       // only when faster by more than rounding.
       /*AutoApplies=*/postingTimed,
       /*AutoGain=*/1e-9},
      {"bruck",
       "Bruck: ceil(log2 P) steps, the gathered blocks double each step",
       {Collective::Allgather},
       wholeSchedule<buildBruckAllgatherPart>},
      {"direct",
       "every rank sends its block to every other rank at once",
       {Collective::Allgather},
       wholeSchedule<buildDirectAllgatherPart>,
       allPairsFit,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"grid-direct",
       "groups of about sqrt(P) ranks: direct inside each, then each group's "
       "blocks straight to every rank of the others (2dmesh)",
       {Collective::Allgather},
       buildGridDirectAllgather,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"grid-direct-3d",
       "P = a x b x c: direct along each dimension of a three-dimensional "
       "grid in turn, a rank's row, then column, then plane (3dmesh)",
       {Collective::Allgather},
       buildGrid3DirectAllgather,
       grid3DirectApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/grid3DirectInAuto},
      {"node-direct",
       "direct inside every node, then each node's blocks once to every "
       "other node at once, passed on inside it",
       {Collective::Allgather},
       buildNodeDirectAllgather,
       nullptr,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/sharesNodes},
      {"node-leaders",
       "direct inside every node, then each node's leader sends its node's "
       "blocks to every other leader at once and hands the other nodes' "
       "blocks to its node's ranks in one message (SMPI's smp_simple)",
       {Collective::Allgather},
       buildNodeLeadersAllgather,
       allPairsFit,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/sharesNodes},
      {"neighbor-exchange",
       "even P: pairs exchange their blocks, then each rank its other "
       "neighbour's, alternately, two blocks a step (Open MPI's "
       "neighborexchange)",
       {Collective::Allgather},
       buildNeighborExchangeAllgather,
       neighborExchangeApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"farthest-doubling",
       "P a power of two: recursive doubling from the farthest partner, "
       "P / 2 first (SMPI's rhv without its bit-reversal exchange)",
       {Collective::Allgather},
       buildFarthestDoublingAllgather,
       farthestDoublingApplies,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/onNetwork},
      {"node-ring",
       "a ring across the nodes per local rank, each block passed on inside "
       "the node it enters as it arrives (loosely_lr)",
       {Collective::Allgather},
       buildNodeRingAllgather,
       // One transfer per block and receiver: P (P - 1), as direct's.
       allPairsFit,
       /*InAuto=*/true,
       /*OnStarGraphs=*/false,
       /*AutoApplies=*/sharesNodes},
  };
  return All;
}

namespace {

/// Former names, still accepted wherever an algorithm is named.
struct AlgorithmAlias {
  const char *Old, *New;
};
const AlgorithmAlias Aliases[] = {
    // A randomized search, not a proof of optimality.
    {"star-optimal", "star-search"},
};

} // namespace

const AlgorithmInfo *findAlgorithm(llvm::StringRef Name,
                                   std::optional<Collective> C) {
  for (const AlgorithmAlias &A : Aliases)
    if (Name == A.Old)
      Name = A.New;
  const AlgorithmInfo *First = nullptr;
  for (const AlgorithmInfo &A : algorithms())
    if (Name == A.Name) {
      if (!C || A.supports(*C))
        return &A;
      if (!First)
        First = &A;
    }
  return First;
}

void printAlgorithms(llvm::raw_ostream &OS) {
  // The name column as wide as the longest name, so the columns line up.
  int Width = 0;
  for (const AlgorithmInfo &A : algorithms())
    Width = std::max(Width, static_cast<int>(llvm::StringRef(A.Name).size()));
  for (const AlgorithmInfo &A : algorithms()) {
    std::string Colls;
    for (Collective C : A.Collectives)
      Colls += (Colls.empty() ? "" : ",") + std::string(collectiveName(C));
    OS << llvm::format("%-*s %-28s %s\n", Width, A.Name, Colls.c_str(),
                       A.Summary);
  }
}

llvm::Expected<const AlgorithmInfo *>
lookupAlgorithm(llvm::StringRef Name, const Machine &M, const Request &R) {
  const AlgorithmInfo *A = findAlgorithm(Name, R.Coll);
  if (!A || !A->supports(R.Coll)) {
    std::string Names = "auto";
    for (const AlgorithmInfo &X : algorithms())
      if (X.supports(R.Coll))
        Names += std::string(", ") + X.Name;
    return error("unknown algorithm '%s' for %s; expected one of: %s",
                 Name.str().c_str(), collectiveName(R.Coll), Names.c_str());
  }
  std::string Why;
  if (!A->applies(M, R, Why))
    return error("algorithm '%s' cannot run here: %s", Name.str().c_str(),
                 Why.c_str());
  return A;
}

std::vector<const AlgorithmInfo *> autoCandidates(const Machine &M,
                                                  const Request &R) {
  std::vector<const AlgorithmInfo *> Out;
  for (const AlgorithmInfo &A : algorithms()) {
    std::string Why;
    if (A.InAuto && A.supports(R.Coll) && A.applies(M, R, Why) &&
        (!A.AutoApplies || A.AutoApplies(M, R, Why)))
      Out.push_back(&A);
  }
  return Out;
}

} // namespace collc
