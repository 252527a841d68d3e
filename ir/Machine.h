/// \file
/// The machine a schedule is built for: its communication model, its ports,
/// its topology and, when it has one, its network (ir/Network.h). Plain value
/// types filled in by the front end (readers/MachineSpec) and read by
/// builders, passes and backends.
///
/// Units: times are in the unit the machine spec uses (µs for the bundled
/// machines, units of 10 ns for the wormhole simulator parameters); sizes are
/// bytes.
#ifndef COLLC_IR_MACHINE_H
#define COLLC_IR_MACHINE_H

#include "ir/Network.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collc {

/// Base + PerByte * m: the shape of every size-dependent cost in the papers.
struct Affine {
  double Base = 0;
  double PerByte = 0;
  double at(uint64_t Bytes) const {
    return Base + PerByte * static_cast<double>(Bytes);
  }
};

enum class ModelKind {
  /// Paper 000: t_hold (minimum gap between two sends or two receives of a
  /// node) and t_end (send start to receive end), both affine in the size.
  Parameterized,
  /// Paper 001: T_send(m) = t_s + m * per_byte measured by ping-pong. collc
  /// reads it as t_hold = t_end = T_send(m): a node's sends occupy it for the
  /// whole transfer (blocking point-to-point, as the report measures).
  Linear,
  /// Paper 002: a call between neighbours takes one time unit; t_hold = t_end
  /// = 1.
  UnitCall,
  /// Paper 000 section 4.2: the flit-level wormhole parameters. t_hold =
  /// s_s + m*s_d, t_end = s_s + r_s + (k-1)*c_d + m*(s_d + c_d + r_d) for a
  /// message of m flits travelling k channels.
  Wormhole,
};

/// Paper 000's parameters: t_hold and t_end as measured.
struct ParameterizedParams {
  Affine THold;
  Affine TEnd;
};

/// Paper 001's ping-pong fit T_send(m) = t_s + m * per_byte.
struct LinearParams {
  double Ts = 0;
  double PerByte = 0;
};

/// Wormhole timing parameters of paper 000 section 4.2 (units of the spec).
struct WormholeParams {
  double Ss = 0, Sd = 0, Cd = 0, Rs = 0, Rd = 0;
  uint64_t FlitBytes = 1;
  /// Flits of a message of \p Bytes: ceil(Bytes / FlitBytes).
  uint64_t flits(uint64_t Bytes) const {
    const uint64_t F = FlitBytes ? FlitBytes : 1;
    return (Bytes + F - 1) / F;
  }
};

/// The communication model. Each kind keeps only its own parameters (the
/// unit-call model has none); every time is derived from them by the methods
/// below, which are defined for every kind so that builders and the cost pass
/// never switch on the kind, nor read parameters of another kind.
struct Model {
  ModelKind Kind = ModelKind::Parameterized;
  ParameterizedParams Parameterized; ///< Parameterized only.
  LinearParams Linear;               ///< Linear only.
  WormholeParams Worm;               ///< Wormhole only.
  /// Linear model: cost factor of a step in which a node both sends and
  /// receives (the report's T_send/recv = 2 T_send on the SP2 is factor 2).
  double SendRecvFactor = 2;
  /// Reduction work per byte (the report's t_op); 0 when unmeasured.
  double OpPerByte = 0;

  /// t_hold as start-up + per-byte cost, for builders that plan with those
  /// two numbers (a pipeline's segment count): T_send for the linear model,
  /// 1 + 0 m for unit calls, s_s + m s_d / flit_bytes for wormhole (tHold
  /// counts whole flits instead).
  Affine holdAffine() const;
  /// Minimum interval between two sends (or two receives) of one node.
  double tHold(uint64_t Bytes) const;
  /// Time from the start of a send to the end of its receive, for a message
  /// crossing \p Hops channels (only the wormhole model looks at hops).
  double tEnd(uint64_t Bytes, unsigned Hops = 1) const;
};

/// Largest node count of a topology given by its extents (full, mesh, torus),
/// and the node numbers a topology without a fixed size accepts: 0..2^20-1.
constexpr int64_t MaxNodes = int64_t(1) << 20;

enum class TopologyKind {
  Full,
  Mesh,
  Torus,
  Hypercube,
  Star,
  MacroStar,
  Min,
  /// SimGrid's FAT_TREE cluster (ir/FatTree.h).
  FatTree,
  /// SimGrid's flat <cluster>: a private link per node to one switch, and
  /// optionally a backbone every route between two nodes crosses.
  Cluster,
};

/// How a torus (or mesh, or hypercube) orders the dimensions of a route and
/// breaks ties; passes/Routes.h gives the rules.
enum class DimensionRouting {
  /// collc's: the first written dimension first; a tie goes the increasing
  /// way unless the transfer asks for the other (Transfer::TieDown).
  FirstWritten,
  /// SimGrid's TorusZone: the last written dimension (SimGrid's dimension 0,
  /// stride 1) first; a tie goes the increasing way except from the middle
  /// coordinate. A SimGrid platform read as a machine routes so.
  SimGrid,
};

/// Physical nodes and how they are joined. Node numbers are 0..Nodes-1. For
/// meshes and tori, node = sum_i coord_i * prod_{j>i} dims_j with coordinates
/// written highest dimension first (coord[0] is sigma_{n-1}), i.e. row-major
/// order on the written tuple.
struct Topology {
  TopologyKind Kind = TopologyKind::Full;
  /// Extent per written dimension (mesh, torus; hypercube: all 2).
  std::vector<int64_t> Dims;
  /// Number of nodes; 0 for a `full` topology without a fixed size.
  int64_t Nodes = 0;
  /// Star graph S_k: number of symbols. Macro-star MS(l, n): l and n.
  int64_t StarK = 0, MacroL = 0, MacroN = 0;
  /// Multistage network: switch radix (k for k x k switches).
  int64_t SwitchRadix = 0;
  /// Fat tree, as SimGrid's topo_parameters "L;d1,..,dL;u1,..,uL;p1,..,pL":
  /// Levels L; per level l (index l-1), the children of a level-l switch
  /// (Down), the parents of a level-(l-1) vertex (Up) and the parallel
  /// links between a vertex and each of its parents (Parallel). Nodes =
  /// product of Down.
  int64_t Levels = 0;
  std::vector<int64_t> Down, Up, Parallel;
  /// Cluster: whether routes cross a shared backbone.
  bool Backbone = false;
  /// Torus, mesh, hypercube: the order of the dimensions a route resolves.
  DimensionRouting Routing = DimensionRouting::FirstWritten;

  bool hasCoordinates() const {
    return Kind == TopologyKind::Mesh || Kind == TopologyKind::Torus ||
           Kind == TopologyKind::Hypercube;
  }
  /// Coordinates of \p Node, highest dimension first.
  std::vector<int64_t> coordOf(int64_t Node) const;
  /// Node number of \p Coord (must be in range).
  int64_t nodeOf(const std::vector<int64_t> &Coord) const;
  /// Channels a message crosses from \p A to \p B under the topology's
  /// minimal routing (1 on a crossbar; 0 when A == B; on a fat tree twice
  /// the level of the lowest common switch; on a cluster 2, 3 with a
  /// backbone).
  unsigned distance(int64_t A, int64_t B) const;
};

struct Machine {
  std::string Name;
  Model M;
  unsigned Ports = 1;
  Topology Topo;
  /// The network below the model, when the spec describes one (or the
  /// machine comes from a SimGrid platform): the cost pass then runs the
  /// flow-level evaluator (passes/NetworkCost.h).
  std::optional<Network> Net;
};

const char *modelKindName(ModelKind K);
const char *topologyKindName(TopologyKind K);

} // namespace collc

#endif
