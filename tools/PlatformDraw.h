/// \file
/// Random SimGrid platforms of the families collc reads (docs/network.md,
/// "SimGrid platforms"), drawn from a seed, for judging schedules on
/// machines nobody picked (the random arena, bench/mpi/random-arena.sh).
///
/// A draw is a seed and an index: platform I of seed S depends on nothing
/// else (not on the platforms before it, not on the compiler or the standard
/// library: collc's SplitMix64, ir/Random.h), so one platform of a large
/// draw can be made again alone. The families, taken in turn (platform I is
/// of family I mod the number of families asked for):
///
///  - torus-2d, torus-3d: a TORUS cluster of unequal extents (2 to 32 per
///    dimension in 2-D, 2 to 12 in 3-D);
///  - fat-tree-2, fat-tree-3: a FAT_TREE of 2 or 3 levels, random arity per
///    level, often oversubscribed (fewer uplinks x parallel links than
///    children), sometimes two uplinks per node or parallel node links;
///  - cluster-flat: a FLAT cluster without a backbone (a crossbar);
///  - cluster-thin: a FLAT cluster whose backbone carries from 1 to
///    nodes / 2 links' worth (SHARED: both directions together);
///  - cluster-fat: a FLAT cluster whose backbone carries at least every
///    node's link at once (SHARED and that wide, or FATPIPE).
///
/// Every platform gets link bandwidths from 1 to 100 GB/s and latencies from
/// 0.1 to 5 µs (log-uniform), a loopback (shared memory: 5 to 100 GB/s,
/// 0.01 to 0.5 µs), sometimes half-duplex links (SHARED) and, on FLAT and
/// TORUS clusters, an injection limiter; SMPI 3.32's default protocol
/// factors mostly, sometimes none (factor 1) or random ones in a `<config>`.
/// A host runs 1, 2, 4 or 8 ranks (the cluster's `core`, which collc reads
/// as processes per node); the ranks (nodes x core) fall in the asked range.
#ifndef COLLC_TOOLS_PLATFORMDRAW_H
#define COLLC_TOOLS_PLATFORMDRAW_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

enum class PlatformFamily {
  Torus2D,
  Torus3D,
  FatTree2,
  FatTree3,
  ClusterFlat,
  ClusterThin,
  ClusterFat,
};

/// "torus-2d", "torus-3d", "fat-tree-2", "fat-tree-3", "cluster-flat",
/// "cluster-thin", "cluster-fat".
const char *platformFamilyName(PlatformFamily F);
/// Every family, in the order of the enum.
const std::vector<PlatformFamily> &allPlatformFamilies();
/// The families named in \p List ("torus-2d,cluster-fat", or "all"), or an
/// error that lists the names.
llvm::Expected<std::vector<PlatformFamily>>
parsePlatformFamilies(llvm::StringRef List);

/// What to draw.
struct PlatformDrawOptions {
  uint64_t Seed = 1;
  /// Ranks (nodes x processes per node), inclusive.
  int64_t MinRanks = 16, MaxRanks = 256;
  /// The most processes a host runs (1, 2, 4 or 8 are drawn, up to this).
  unsigned MaxProcsPerNode = 8;
  /// Families taken in turn; empty means all.
  std::vector<PlatformFamily> Families;
};

/// One drawn platform.
struct DrawnPlatform {
  /// "s<seed>-<index>-<family>", the file's stem and so the machine's name.
  std::string Name;
  PlatformFamily Family = PlatformFamily::Torus2D;
  uint64_t Seed = 0, Index = 0;
  int64_t Nodes = 0;
  unsigned ProcsPerNode = 1;
  /// The shape and the numbers drawn, in one line ("torus 5x7, 23.1 GB/s,
  /// 0.82 us, ...").
  std::string Description;
  /// The SimGrid 3.32 platform file (hosts node-0 .. node-(Nodes-1)).
  std::string Xml;

  int64_t ranks() const { return Nodes * ProcsPerNode; }
  /// An SMPI hostfile: every host ProcsPerNode times, in order, so that SMPI
  /// places the ranks as collc does (block by block).
  std::string hostfile() const;
};

/// Checks \p O: 2 <= MinRanks <= MaxRanks <= 65536, MaxProcsPerNode >= 1,
/// and that every family asked for has a platform in the range.
llvm::Error checkDrawOptions(const PlatformDrawOptions &O);

/// Platform \p Index of the draw \p O (checked by checkDrawOptions).
DrawnPlatform drawPlatform(const PlatformDrawOptions &O, uint64_t Index);

} // namespace collc

#endif
