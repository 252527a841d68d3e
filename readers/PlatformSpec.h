/// \file
/// SimGrid 3.32 platform files read as machines (docs/network.md, "Machines
/// with a network"). collc reads a platform of one `<cluster>` (optionally
/// in a `<zone>` of its own, after a `<config>`):
///
///  - topology FLAT (the default): a `cluster` topology, one private link
///    per host ("private") and, when bb_bw or bb_lat is given, the backbone
///    ("backbone");
///  - topology TORUS, topo_parameters "d0,d1,...": a `torus` with dims
///    written [..., d1, d0] (SimGrid's dimension 0 has stride 1) that routes
///    as SimGrid's TorusZone (DimensionRouting::SimGrid); one class "link";
///  - topology FAT_TREE, topo_parameters "L;down;up;parallel": a `fat-tree`,
///    one class per level, "level-1".."level-L";
///
/// with SimGrid's units ("12.5GBps", "10Gbps", "1us", "1Gf"; times become
/// µs, bandwidths bytes per µs), sharing policies (SPLITDUPLEX: full duplex,
/// SHARED: half duplex, FATPIPE: unshared), the loopback as the intra-node
/// link, limiter_link as the injection bandwidth (FLAT and TORUS), SMPI
/// 3.32's default protocol factors, rendezvous threshold, envelope and flow
/// constants, and the `<config>` properties that change them
/// (smpi/lat-factor, smpi/bw-factor, smpi/send-is-detached-thresh,
/// network/crosstraffic, network/weight-S, network/TCP-gamma; network/model
/// must be SMPI). Host i of the radical is node i; a host runs `core`
/// processes (1 by default), placed block by block.
/// The machine is named after the file (its stem) and gets the linear
/// model of linearModelOf() (readers/NetworkSpec.h).
///
/// What collc does not model is a located error that names the element or
/// attribute and says what collc reads: zones with routes, several
/// clusters, `<host>`, `<link>`, `<route>`, DRAGONFLY clusters, a backbone
/// on a TORUS or FAT_TREE, a limiter on a FAT_TREE.
#ifndef COLLC_READERS_PLATFORMSPEC_H
#define COLLC_READERS_PLATFORMSPEC_H

#include "ir/Machine.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

namespace collc {

/// Whether \p Buffer holds a SimGrid platform: a name ending in .xml, or
/// text that starts (after blanks) with `<?xml`, `<!DOCTYPE` or `<platform`.
bool isPlatformFile(llvm::MemoryBufferRef Buffer);

/// Reads the SimGrid platform in \p Buffer (its identifier names the file).
llvm::Expected<Machine> parsePlatform(llvm::MemoryBufferRef Buffer);

} // namespace collc

#endif
