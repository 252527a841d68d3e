//===- collc-platforms: random SimGrid platforms of each family -----------===//
//
//   collc-platforms [--seed S] [--count N] [--first I] [--families LIST]
//                   [--min-ranks A] [--max-ranks B] [--max-procs-per-node K]
//                   [--out DIR]
//
// Draws platforms I .. I+N-1 of seed S (tools/PlatformDraw.h: tori, fat
// trees and clusters of random shapes and numbers) and prints the seed, the
// command that draws them again, and one line per platform: name, family,
// ranks, hosts, ranks per host, description. With --out, writes DIR/NAME.xml
// (the platform, read by `collc --machine` and `smpirun -platform`) and
// DIR/NAME.hosts (the SMPI hostfile that places the ranks as collc does).
// Without --seed the seed comes from the system's entropy and is printed.
//
// Exit status: 0 success, 1 bad usage or a file that cannot be written
// (nothing is left half written: each file is written aside and renamed).
//
//===----------------------------------------------------------------------===//

#include "tools/PlatformDraw.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <random>

using namespace llvm;
using namespace collc;

namespace {

cl::OptionCategory Cat("collc-platforms options");
cl::opt<std::string> SeedOpt("seed", cl::cat(Cat),
                             cl::desc("Seed (default: drawn and printed)"),
                             cl::value_desc("n"));
cl::opt<int64_t> Count("count", cl::init(1), cl::cat(Cat),
                       cl::desc("Platforms to draw (default 1)"));
cl::opt<int64_t> First("first", cl::init(0), cl::cat(Cat),
                       cl::desc("Index of the first (default 0)"));
cl::opt<std::string>
    FamiliesOpt("families", cl::init("all"), cl::cat(Cat),
                cl::desc("Families taken in turn: all, or a list of torus-2d, "
                         "torus-3d, fat-tree-2, fat-tree-3, cluster-flat, "
                         "cluster-thin, cluster-fat"));
cl::opt<int64_t> MinRanks("min-ranks", cl::init(16), cl::cat(Cat),
                          cl::desc("Fewest ranks (default 16)"));
cl::opt<int64_t> MaxRanks("max-ranks", cl::init(256), cl::cat(Cat),
                          cl::desc("Most ranks (default 256)"));
cl::opt<unsigned>
    MaxPerNode("max-procs-per-node", cl::init(8), cl::cat(Cat),
               cl::desc("Most ranks per host: 1, 2, 4 or 8 are drawn up to "
                        "it (default 8)"));
cl::opt<std::string> OutDir("out", cl::cat(Cat),
                            cl::desc("Write NAME.xml and NAME.hosts here"),
                            cl::value_desc("dir"));

int fail(const Twine &Msg) {
  WithColor::error(errs(), "collc-platforms") << Msg << "\n";
  return 1;
}

/// Writes \p Text to \p Path through a file beside it, renamed at the end.
Error writeFile(const std::string &Path, StringRef Text) {
  const std::string Tmp = Path + ".tmp";
  {
    std::error_code EC;
    raw_fd_ostream Os(Tmp, EC);
    if (EC)
      return createStringError(EC,
                               "cannot write '" + Tmp + "': " + EC.message());
    Os << Text;
    Os.close();
    if (Os.has_error()) {
      Os.clear_error();
      sys::fs::remove(Tmp);
      return createStringError(inconvertibleErrorCode(),
                               "cannot write '" + Tmp + "'");
    }
  }
  if (std::error_code EC = sys::fs::rename(Tmp, Path)) {
    sys::fs::remove(Tmp);
    return createStringError(EC,
                             "cannot write '" + Path + "': " + EC.message());
  }
  return Error::success();
}

} // namespace

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(Cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "collc-platforms: random SimGrid platforms of each family (tori, fat "
      "trees, clusters), deterministic from a seed\n");
  PlatformDrawOptions O;
  if (SeedOpt.getNumOccurrences()) {
    if (StringRef(SeedOpt).trim().getAsInteger(10, O.Seed))
      return fail("--seed: expected an unsigned integer, got '" + SeedOpt +
                  "'");
  } else {
    std::random_device Dev;
    O.Seed = (static_cast<uint64_t>(Dev()) << 32 | Dev()) % 1000000000;
  }
  if (Count < 1 || Count > 100000)
    return fail("--count: expected 1 to 100000, got " + Twine(Count));
  if (First < 0 || First > (int64_t(1) << 40))
    return fail("--first: expected 0 to 2^40, got " + Twine(First));
  auto Families = parsePlatformFamilies(FamiliesOpt);
  if (!Families)
    return fail("--families: " + toString(Families.takeError()));
  O.Families = *Families;
  O.MinRanks = MinRanks;
  O.MaxRanks = MaxRanks;
  O.MaxProcsPerNode = MaxPerNode;
  if (Error E = checkDrawOptions(O))
    return fail(toString(std::move(E)));
  if (!OutDir.empty())
    if (std::error_code EC = sys::fs::create_directories(OutDir))
      return fail("--out: cannot make '" + OutDir + "': " + EC.message());

  outs() << "# seed " << O.Seed << "\n# collc-platforms --seed " << O.Seed
         << " --count " << Count << " --first " << First << " --families "
         << FamiliesOpt << " --min-ranks " << O.MinRanks << " --max-ranks "
         << O.MaxRanks << " --max-procs-per-node " << O.MaxProcsPerNode
         << "\n# name\tfamily\tranks\thosts\tper-host\tdescription\n";
  for (int64_t I = First; I < First + Count; ++I) {
    DrawnPlatform D = drawPlatform(O, static_cast<uint64_t>(I));
    if (!OutDir.empty()) {
      SmallString<256> Base(OutDir);
      sys::path::append(Base, D.Name);
      for (auto [Ext, Text] :
           {std::pair<const char *, std::string>{".xml", D.Xml},
            {".hosts", D.hostfile()}})
        if (Error E = writeFile((Base + Ext).str(), Text))
          return fail(toString(std::move(E)));
    }
    outs() << D.Name << "\t" << platformFamilyName(D.Family) << "\t"
           << D.ranks() << "\t" << D.Nodes << "\t" << D.ProcsPerNode << "\t"
           << D.Description << "\n";
  }
  return 0;
}
