#include "tools/PlatformDraw.h"

#include "ir/EnumNames.h"
#include "ir/Random.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace llvm;

namespace collc {

namespace {

/// \p V with \p Digits digits after the point.
std::string fixed(double V, int Digits) {
  char Buf[64];
  std::snprintf(Buf, sizeof Buf, "%.*f", Digits, V);
  return Buf;
}

constexpr int64_t MostRanks = 65536;

/// A shape of a family before its numbers: the topology's extents (a torus's
/// topo_parameters; a fat tree's Down; a cluster's node count) and the
/// processes per host.
struct Shape {
  std::vector<int64_t> Extents;
  unsigned ProcsPerNode = 1;
  int64_t nodes() const {
    int64_t N = 1;
    for (int64_t E : Extents)
      N *= E;
    return N;
  }
};

/// Calls \p F on every vector of \p Dims integers from \p Lo to \p Hi.
template <class Fn> void everyVector(int Dims, int64_t Lo, int64_t Hi, Fn F) {
  std::vector<int64_t> V(static_cast<size_t>(Dims), Lo);
  for (;;) {
    F(V);
    int I = 0;
    while (I < Dims && V[I] == Hi)
      V[I++] = Lo;
    if (I == Dims)
      return;
    ++V[I];
  }
}

/// Every shape of family \p F with ranks in the range of \p O, for \p PerNode
/// processes per host. Bounded: at most 32^2, 12^3 or 8^3 vectors, or one
/// per node count.
std::vector<Shape> shapes(PlatformFamily F, const PlatformDrawOptions &O,
                          unsigned PerNode) {
  std::vector<Shape> Out;
  auto Keep = [&](const std::vector<int64_t> &V) {
    Shape S{V, PerNode};
    const int64_t R = S.nodes() * PerNode;
    if (R >= O.MinRanks && R <= O.MaxRanks)
      Out.push_back(std::move(S));
  };
  auto Unequal = [](const std::vector<int64_t> &V) {
    return llvm::any_of(V, [&](int64_t E) { return E != V[0]; });
  };
  switch (F) {
  case PlatformFamily::Torus2D:
  case PlatformFamily::Torus3D: {
    const int Dims = F == PlatformFamily::Torus2D ? 2 : 3;
    everyVector(Dims, 2, Dims == 2 ? 32 : 12,
                [&](const std::vector<int64_t> &V) {
                  if (Unequal(V))
                    Keep(V);
                });
    break;
  }
  case PlatformFamily::FatTree2:
    everyVector(2, 2, 32, Keep);
    break;
  case PlatformFamily::FatTree3:
    everyVector(3, 2, 8, Keep);
    break;
  case PlatformFamily::ClusterFlat:
  case PlatformFamily::ClusterThin:
  case PlatformFamily::ClusterFat:
    for (int64_t N = 2; N * PerNode <= O.MaxRanks; ++N)
      Keep({N});
    break;
  }
  return Out;
}

/// The processes per host a draw may give (1, 2, 4, 8 up to the option).
std::vector<unsigned> perNodeChoices(const PlatformDrawOptions &O) {
  std::vector<unsigned> C;
  for (unsigned K : {1u, 2u, 4u, 8u})
    if (K <= O.MaxProcsPerNode)
      C.push_back(K);
  return C;
}

double unit(Rng &R) { return static_cast<double>(R.next() >> 11) * 0x1.0p-53; }

double logUniform(Rng &R, double Lo, double Hi) {
  return Lo * std::exp(unit(R) * std::log(Hi / Lo));
}

/// Bandwidth in whole MB/s, as SimGrid reads it ("23456MBps").
std::string mbps(double BytesPerUs) {
  return std::to_string(std::max<int64_t>(1, std::llround(BytesPerUs))) +
         "MBps";
}
/// A time in whole ns ("820ns").
std::string ns(double Us) {
  return std::to_string(std::max<int64_t>(1, std::llround(Us * 1000))) + "ns";
}
std::string gbs(double BytesPerUs) {
  return fixed(BytesPerUs / 1000, 1) + " GB/s";
}
std::string us(double Us) { return fixed(Us, 2) + " us"; }

std::string joined(const std::vector<int64_t> &V, char Sep) {
  std::string S;
  for (size_t I = 0; I < V.size(); ++I)
    S += (I ? std::string(1, Sep) : std::string()) + std::to_string(V[I]);
  return S;
}

/// SMPI 3.32's factor thresholds (smpi/lat-factor, smpi/bw-factor).
constexpr int64_t SmpiThresholds[] = {65472, 15424, 9376, 5776, 3484,
                                      1426,  732,   257,  0};

} // namespace

const char *platformFamilyName(PlatformFamily F) {
  static constexpr const char *Names[] = {
      "torus-2d",     "torus-3d",     "fat-tree-2", "fat-tree-3",
      "cluster-flat", "cluster-thin", "cluster-fat"};
  return enumName<PlatformFamily::Torus2D, PlatformFamily::ClusterFat>(F,
                                                                       Names);
}

const std::vector<PlatformFamily> &allPlatformFamilies() {
  static const std::vector<PlatformFamily> All = {
      PlatformFamily::Torus2D,     PlatformFamily::Torus3D,
      PlatformFamily::FatTree2,    PlatformFamily::FatTree3,
      PlatformFamily::ClusterFlat, PlatformFamily::ClusterThin,
      PlatformFamily::ClusterFat};
  return All;
}

Expected<std::vector<PlatformFamily>> parsePlatformFamilies(StringRef List) {
  if (List.trim() == "all")
    return allPlatformFamilies();
  std::vector<PlatformFamily> Out;
  SmallVector<StringRef, 8> Names;
  List.split(Names, ',');
  for (StringRef N : Names) {
    N = N.trim();
    auto It = llvm::find_if(allPlatformFamilies(), [&](PlatformFamily F) {
      return N == platformFamilyName(F);
    });
    if (It == allPlatformFamilies().end()) {
      std::string Known;
      for (PlatformFamily F : allPlatformFamilies())
        Known += std::string(Known.empty() ? "" : ", ") + platformFamilyName(F);
      return createStringError(inconvertibleErrorCode(),
                               "unknown family '" + N +
                                   "'; expected 'all' "
                                   "or a list of: " +
                                   Known);
    }
    if (!llvm::is_contained(Out, *It))
      Out.push_back(*It);
  }
  return Out;
}

std::string DrawnPlatform::hostfile() const {
  std::string S;
  for (int64_t N = 0; N < Nodes; ++N)
    for (unsigned K = 0; K < ProcsPerNode; ++K)
      S += "node-" + std::to_string(N) + "\n";
  return S;
}

Error checkDrawOptions(const PlatformDrawOptions &O) {
  auto Fail = [](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(), Msg);
  };
  if (O.MinRanks < 2 || O.MaxRanks > MostRanks || O.MinRanks > O.MaxRanks)
    return Fail("expected ranks from 2 to " + Twine(MostRanks) +
                " with the least at most the most, got " + Twine(O.MinRanks) +
                " to " + Twine(O.MaxRanks));
  if (O.MaxProcsPerNode < 1)
    return Fail("expected at least 1 process per node");
  for (PlatformFamily F :
       O.Families.empty() ? allPlatformFamilies() : O.Families) {
    bool Any = false;
    for (unsigned K : perNodeChoices(O))
      Any = Any || !shapes(F, O, K).empty();
    if (!Any)
      return Fail(Twine("no ") + platformFamilyName(F) + " platform has " +
                  Twine(O.MinRanks) + " to " + Twine(O.MaxRanks) + " ranks");
  }
  return Error::success();
}

DrawnPlatform drawPlatform(const PlatformDrawOptions &O, uint64_t Index) {
  const std::vector<PlatformFamily> &Families =
      O.Families.empty() ? allPlatformFamilies() : O.Families;
  DrawnPlatform D;
  D.Seed = O.Seed;
  D.Index = Index;
  D.Family = Families[Index % Families.size()];
  Rng R(splitMix64(O.Seed ^ splitMix64(Index + 0x51ed27)));

  // Processes per host: 1 half of the time, else 2, 4 or 8; only counts for
  // which the family has a shape in the range.
  std::vector<std::pair<unsigned, std::vector<Shape>>> Options;
  for (unsigned K : perNodeChoices(O))
    if (std::vector<Shape> S = shapes(D.Family, O, K); !S.empty())
      Options.push_back({K, std::move(S)});
  assert(!Options.empty() && "checkDrawOptions guarantees a shape");
  size_t Pick = 0;
  if (Options.size() > 1 && !(Options[0].first == 1 && R.chance(0.5)))
    Pick = static_cast<size_t>(
        R.uniform(Options[0].first == 1 ? 1 : 0,
                  static_cast<int64_t>(Options.size()) - 1));
  auto &[PerNode, Shapes] = Options[Pick];
  const Shape S = Shapes[static_cast<size_t>(
      R.uniform(0, static_cast<int64_t>(Shapes.size()) - 1))];
  D.ProcsPerNode = PerNode;
  D.Nodes = S.nodes();

  const double Bw = logUniform(R, 1000, 100000); // 1-100 GB/s
  const double Lat = logUniform(R, 0.1, 5);
  const double LoopBw = logUniform(R, 5000, 100000);
  const double LoopLat = logUniform(R, 0.01, 0.5);
  const bool Shared = R.chance(0.15);

  std::string Attrs, Desc;
  raw_string_ostream A(Attrs), Ds(Desc);
  const bool Flat = D.Family == PlatformFamily::ClusterFlat ||
                    D.Family == PlatformFamily::ClusterThin ||
                    D.Family == PlatformFamily::ClusterFat;
  switch (D.Family) {
  case PlatformFamily::Torus2D:
  case PlatformFamily::Torus3D:
    A << " topology=\"TORUS\" topo_parameters=\"" << joined(S.Extents, ',')
      << "\"";
    Ds << "torus " << joined(S.Extents, 'x');
    break;
  case PlatformFamily::FatTree2:
  case PlatformFamily::FatTree3: {
    const size_t L = S.Extents.size();
    std::vector<int64_t> Up(L), Par(L);
    Up[0] = R.chance(0.15) ? 2 : 1;
    Par[0] = R.chance(0.15) ? 2 : 1;
    for (size_t I = 1; I < L; ++I) {
      // Uplinks of a level-I switch: up to its children (no more than 8,
      // 4 on three levels), each of 1 to 3 parallel links, rarely more
      // than the children carry: oversubscribed most of the time.
      const int64_t Children = S.Extents[I - 1] * Par[I - 1];
      Up[I] = R.uniform(1, std::min<int64_t>(Children, L == 2 ? 8 : 4));
      Par[I] = R.uniform(
          1, std::max<int64_t>(1, std::min<int64_t>(3, Children / Up[I])));
    }
    A << " topology=\"FAT_TREE\" topo_parameters=\"" << L << ";"
      << joined(S.Extents, ',') << ";" << joined(Up, ',') << ";"
      << joined(Par, ',') << "\"";
    Ds << L << "-level fat tree " << L << ";" << joined(S.Extents, ',') << ";"
       << joined(Up, ',') << ";" << joined(Par, ',') << " (";
    for (size_t I = 1; I < L; ++I) {
      const double Ratio = static_cast<double>(S.Extents[I - 1] * Par[I - 1]) /
                           static_cast<double>(Up[I] * Par[I]);
      Ds << (I > 1 ? ", " : "") << "level " << I << " " << fixed(Ratio, 2)
         << ":1";
    }
    Ds << ")";
    break;
  }
  case PlatformFamily::ClusterFlat:
    Ds << "flat cluster of " << D.Nodes << " (no backbone)";
    break;
  case PlatformFamily::ClusterThin: {
    const double BbBw =
        Bw * logUniform(R, 1, std::max(1.0, static_cast<double>(D.Nodes) / 2));
    const double BbLat = logUniform(R, 0.1, 2);
    A << " bb_bw=\"" << mbps(BbBw) << "\" bb_lat=\"" << ns(BbLat)
      << "\" bb_sharing_policy=\"SHARED\"";
    Ds << "cluster of " << D.Nodes << ", thin backbone " << gbs(BbBw) << " "
       << us(BbLat) << " SHARED (" << fixed(BbBw / Bw, 1) << " links' worth)";
    break;
  }
  case PlatformFamily::ClusterFat: {
    const bool FatPipe = R.chance(0.5);
    const double BbBw = FatPipe
                            ? Bw * logUniform(R, 1, 4)
                            : Bw * static_cast<double>(D.Nodes) * (1 + unit(R));
    const double BbLat = logUniform(R, 0.1, 2);
    A << " bb_bw=\"" << mbps(BbBw) << "\" bb_lat=\"" << ns(BbLat)
      << "\" bb_sharing_policy=\"" << (FatPipe ? "FATPIPE" : "SHARED") << "\"";
    Ds << "cluster of " << D.Nodes << ", fat backbone " << gbs(BbBw) << " "
       << us(BbLat) << (FatPipe ? " FATPIPE" : " SHARED");
    break;
  }
  }
  Ds << ", " << D.ProcsPerNode << (D.ProcsPerNode == 1 ? " rank" : " ranks")
     << " per host, links " << gbs(Bw) << " " << us(Lat)
     << (Shared ? " SHARED" : "") << ", loopback " << gbs(LoopBw) << " "
     << us(LoopLat);
  if (Shared)
    A << " sharing_policy=\"SHARED\"";
  const bool Torus = D.Family == PlatformFamily::Torus2D ||
                     D.Family == PlatformFamily::Torus3D;
  if ((Flat || Torus) && R.chance(0.2)) {
    // A node's injection limit: from half a link to all its links.
    const double Links =
        Torus ? 2.0 * static_cast<double>(S.Extents.size()) : 1;
    const double Limiter = Bw * (0.5 + unit(R) * (Links - 0.5));
    A << " limiter_link=\"" << mbps(Limiter) << "\"";
    Ds << ", limiter " << gbs(Limiter);
  }

  // SMPI's factors: its defaults (no <config>), none, or random ones.
  std::string Config;
  const double Factors = unit(R);
  if (Factors >= 0.7) {
    std::string LatF, BwF;
    if (Factors < 0.85) {
      LatF = BwF = "0:1";
      Ds << ", no SMPI factors";
    } else {
      for (int64_t T : SmpiThresholds)
        if (T == 0 || R.chance(0.6)) {
          LatF += (LatF.empty() ? "" : ";") + std::to_string(T) + ":" +
                  fixed(logUniform(R, 1, 12), 4);
          BwF += (BwF.empty() ? "" : ";") + std::to_string(T) + ":" +
                 fixed(0.3 + 0.8 * unit(R), 4);
        }
      Ds << ", random SMPI factors";
    }
    Config = "  <config>\n    <prop id=\"smpi/lat-factor\" value=\"" + LatF +
             "\"/>\n    <prop id=\"smpi/bw-factor\" value=\"" + BwF +
             "\"/>\n  </config>\n";
  } else {
    Ds << ", SMPI's default factors";
  }

  D.Name = "s" + std::to_string(O.Seed) + "-" + std::to_string(Index) + "-" +
           platformFamilyName(D.Family);
  D.Description = Ds.str();
  std::string X;
  raw_string_ostream Xs(X);
  Xs << "<?xml version='1.0'?>\n"
     << "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
     << "<!-- Drawn by collc-platforms, seed " << O.Seed << ", platform "
     << Index << " (ranks " << O.MinRanks << " to " << O.MaxRanks
     << ", at most " << O.MaxProcsPerNode
     << " per host): " << platformFamilyName(D.Family) << ", " << D.ranks()
     << " ranks on " << D.Nodes << " hosts node-0 .. node-" << D.Nodes - 1
     << ".\n     " << D.Description << ". -->\n"
     << "<platform version=\"4.1\">\n"
     << Config << "  <cluster id=\"c\" prefix=\"node-\" radical=\"0-"
     << D.Nodes - 1 << "\" suffix=\"\" speed=\"1Gf\" core=\"" << D.ProcsPerNode
     << "\"\n           bw=\"" << mbps(Bw) << "\" lat=\"" << ns(Lat)
     << "\" loopback_bw=\"" << mbps(LoopBw) << "\" loopback_lat=\""
     << ns(LoopLat) << "\"\n          " << Attrs << "/>\n"
     << "</platform>\n";
  D.Xml = Xs.str();
  return D;
}

} // namespace collc
