/// \file
/// The bundled example machines, loaded for tests.
#ifndef COLLC_TESTS_EXAMPLES_H
#define COLLC_TESTS_EXAMPLES_H

#include "readers/MachineSpec.h"
#include "readers/Spec.h"
#include "tests/Requests.h"
#include "tools/PlatformDraw.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace collc::test {

/// examples/machines/<File>, which must load.
inline Machine exampleMachine(const char *File) {
  auto M =
      loadMachine(std::string(COLLC_SOURCE_DIR) + "/examples/machines/" + File);
  REQUIRE(static_cast<bool>(M));
  return *M;
}

/// The SimGrid platform \p Xml, loaded through a file of its own (removed
/// after), which must load.
inline Machine platformMachine(const std::string &Xml) {
  static int Made = 0;
  const std::string Path = (std::filesystem::temp_directory_path() /
                            ("collc-platform-" + std::to_string(::getpid()) +
                             "-" + std::to_string(Made++) + ".xml"))
                               .string();
  {
    std::ofstream Out(Path);
    Out << Xml;
  }
  auto M = loadMachine(Path);
  std::filesystem::remove(Path);
  REQUIRE_MESSAGE(static_cast<bool>(M), llvm::toString(M.takeError()));
  return *M;
}

/// A cluster of 6 hosts of 4 cores with a thin shared backbone, SMPI's
/// default factors, and loopbacks slower than the links (drawn by
/// collc-platforms, seed 751201558, platform 5 of the random arena).
inline Machine thinCluster() {
  return platformMachine(
      "<?xml version='1.0'?>\n"
      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n"
      "  <cluster id=\"c\" prefix=\"node-\" radical=\"0-5\" suffix=\"\" "
      "speed=\"1Gf\" core=\"4\" bw=\"26122MBps\" lat=\"504ns\" "
      "loopback_bw=\"6175MBps\" loopback_lat=\"309ns\" "
      "bb_bw=\"32748MBps\" bb_lat=\"1475ns\" "
      "bb_sharing_policy=\"SHARED\"/>\n"
      "</platform>\n");
}

/// \p C of \p Bytes from (or to) rank 0 by \p Alg among 24 ranks, 4 on each
/// of \p M's nodes 0..5 (thinCluster()'s hosts).
inline Request fourPerNode(const Machine &M, Collective C, uint64_t Bytes,
                           const char *Alg) {
  RequestFields F = fields(C, 24, 0, Bytes, Alg);
  for (int32_t I = 0; I < 24; ++I)
    (*F.Participants)[size_t(I)] = I / 4;
  return made(M, F);
}

/// Platform \p Index of the random arena's draw in docs/network.md (seed
/// 751201558, 16-32 ranks, up to 8 per host); \p Ranks its rank count.
inline Machine arenaPlatform(uint64_t Index, int32_t &Ranks) {
  PlatformDrawOptions O;
  O.Seed = 751201558;
  O.MinRanks = 16;
  O.MaxRanks = 32;
  O.MaxProcsPerNode = 8;
  DrawnPlatform D = drawPlatform(O, Index);
  auto M = parseMachine(llvm::MemoryBufferRef(D.Xml, D.Name + ".xml"));
  REQUIRE(static_cast<bool>(M));
  Ranks = static_cast<int32_t>(D.ranks());
  return std::move(*M);
}

/// \p C of \p Bytes with \p Alg on \p M's ranks, placed as the machine
/// says (as `collc --machine PLATFORM.xml` places them); reductions sum
/// int32 elements to rank 0, as the arena's do.
inline Request arenaRequest(const Machine &M, Collective C, uint64_t Bytes,
                            const char *Alg) {
  RequestFields F;
  F.Coll = C;
  F.Bytes = Bytes;
  F.Algorithm = Alg;
  if (isReduction(C)) {
    F.Op = "sum";
    F.Datatype = "int32";
  }
  auto R = makeRequest(F, M);
  REQUIRE(static_cast<bool>(R));
  return std::move(*R);
}

} // namespace collc::test

#endif
