/// \file
/// The bundled example machines, loaded for tests.
#ifndef COLLC_TESTS_EXAMPLES_H
#define COLLC_TESTS_EXAMPLES_H

#include "compiler/Driver.h"
#include "ir/Random.h"
#include "ir/ScheduleJson.h"
#include "readers/MachineSpec.h"
#include "readers/Spec.h"
#include "tests/Requests.h"
#include "tools/PlatformDraw.h"

#include <doctest/doctest.h>

#include "llvm/Support/raw_ostream.h"

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <set>
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

/// Platform \p Index of the random draw of \p Seed with \p MinRanks to
/// \p MaxRanks ranks, up to 8 per host (collc-platforms); \p Ranks its rank
/// count.
inline Machine drawnPlatform(uint64_t Seed, int64_t MinRanks, int64_t MaxRanks,
                             uint64_t Index, int32_t &Ranks) {
  PlatformDrawOptions O;
  O.Seed = Seed;
  O.MinRanks = MinRanks;
  O.MaxRanks = MaxRanks;
  O.MaxProcsPerNode = 8;
  DrawnPlatform D = drawPlatform(O, Index);
  auto M = parseMachine(llvm::MemoryBufferRef(D.Xml, D.Name + ".xml"));
  REQUIRE(static_cast<bool>(M));
  Ranks = static_cast<int32_t>(D.ranks());
  return std::move(*M);
}

/// Platform \p Index of the random arena's draw in docs/network.md (seed
/// 751201558, 16-32 ranks, up to 8 per host); \p Ranks its rank count.
inline Machine arenaPlatform(uint64_t Index, int32_t &Ranks) {
  return drawnPlatform(751201558, 16, 32, Index, Ranks);
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

/// \p Fixed and rank counts drawn from 2..70 by \p Seed, \p N in all, in
/// increasing order.
inline std::vector<int32_t> drawnRankCounts(std::set<int32_t> Fixed,
                                            uint64_t Seed, size_t N) {
  Rng G(Seed);
  while (Fixed.size() < N)
    Fixed.insert(static_cast<int32_t>(G.uniform(2, 70)));
  return {Fixed.begin(), Fixed.end()};
}

/// \p R by auto on \p M: it takes \p Expected, faster than each of
/// \p Others (named in \p R's place); returns auto's schedule.
inline Schedule autoTakes(const Machine &M, Request R, const char *Expected,
                          std::initializer_list<const char *> Others) {
  R.Algorithm = "auto";
  auto Auto = compile(M, R);
  REQUIRE(static_cast<bool>(Auto));
  CHECK(Auto->Algorithm == Expected);
  for (const char *Other : Others) {
    R.Algorithm = Other;
    auto S = compile(M, R);
    REQUIRE(static_cast<bool>(S));
    CAPTURE(Other);
    CHECK(Auto->Makespan < S->Makespan);
  }
  return std::move(*Auto);
}

/// \p S written as JSON (into \p Text) and read back, on \p M.
inline Schedule jsonRoundTrip(const Schedule &S, const Machine &M,
                              std::string &Text) {
  Text.clear();
  llvm::raw_string_ostream OS(Text);
  writeScheduleJson(OS, S, &M);
  OS.flush();
  auto Back = readScheduleJson(Text, "s.json", &M);
  REQUIRE(static_cast<bool>(Back));
  return std::move(*Back);
}

} // namespace collc::test

#endif
