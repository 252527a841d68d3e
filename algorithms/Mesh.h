/// \file
/// Multicast on wormhole meshes (paper 000 section 3): OPT-mesh and U-mesh.
///
/// Both sort the participants into the dimension-ordered chain (node number
/// order, i.e. lexicographic order <_d on coordinates written highest
/// dimension first) and run the chain recursion of Algorithm 2 from the
/// root's position: a holder of the chain range [l, r] splits it, keeps the
/// part that contains it and sends the other part to that part's node
/// nearest to it, which then does the same with its part.
///  - opt-mesh splits with OPT-tree's j_i (the holder keeps j_i nodes), so its
///    makespan equals OPT-tree's optimum t[k];
///  - u-mesh splits binomially (McKinley et al.'s U-mesh).
/// By Theorem 3.1, with routing that resolves the first written coordinate
/// first, the routes of different holders never share a channel, and two
/// sends of one holder are t_hold apart (Theorem 3.2): both schedules are
/// contention-free on meshes. The naive placement, for comparison, is
/// opt-tree or binomial with the participants in request order.
#ifndef COLLC_ALGORITHMS_MESH_H
#define COLLC_ALGORITHMS_MESH_H

#include "algorithms/Builder.h"

#include <vector>

namespace collc {

/// Ranks of \p S sorted by the node they sit on (the order <_d).
std::vector<int32_t> dimensionOrderedChain(const Schedule &S);

PlainBuilder buildOptMesh;
PlainBuilder buildUMesh;
/// The AutoBounds (algorithms/Registry.h) of OPT-mesh and U-mesh:
/// chainSplitBound (algorithms/Trees.h) of their trees.
BoundTest optMeshBound;
BoundTest uMeshBound;

/// Whether the machine has a dimension-ordered topology (mesh, torus,
/// hypercube) for the mesh builders.
AppliesTest meshApplies;

} // namespace collc

#endif
