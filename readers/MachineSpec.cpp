#include "readers/MachineSpec.h"

#include "ir/Diagnostic.h"
#include "ir/InputFile.h"
#include "ir/Permutation.h"
#include "ir/SmpiFactors.h"
#include "readers/Document.h"
#include "readers/MachineCheck.h"
#include "readers/NetworkSpec.h"
#include "readers/PlatformSpec.h"
#include "readers/Schema.h"

#include <cassert>
#include <cstdio>

using namespace llvm;

namespace collc {

namespace {

/// The kinds in their enumerators' order, named as the spec writes them.
template <typename KindT, size_t N>
std::vector<StringRef> kindNames(const KindT (&All)[N],
                                 const char *(*Name)(KindT)) {
  std::vector<StringRef> Names;
  for (size_t I = 0; I < N; ++I) {
    assert(static_cast<size_t>(All[I]) == I && "kinds out of order");
    Names.push_back(Name(All[I]));
  }
  return Names;
}

bool readAffine(Document &D, const DocNode &N, StringRef Key, Affine &Out) {
  Section S{"",
            {},
            {{"base", Presence::Required, numberField(Out.Base)},
             {"per_byte", Presence::Required, numberField(Out.PerByte)}},
            /*ShowKeysWhenNotAMap=*/true};
  return SectionReader(D, S).read(N, quoted(Key));
}

/// A wormhole time: times far beyond any network (1e12 units) would swallow
/// the others in the sums that make a start or an end.
FieldReader wormholeTimeField(double &Out) {
  return [&Out](Document &D, const DocNode &N, StringRef Key) {
    if (!D.number(N, Key, Out))
      return false;
    if (Out <= 1e12)
      return true;
    char Got[32];
    snprintf(Got, sizeof(Got), "%g", Out);
    return D.error(&N, "expected a number <= 1e12 for '" + Key +
                           "' (larger times absorb the others), got " + Got);
  };
}

bool readModel(Document &D, const DocNode &N, StringRef Key, Model &M) {
  using enum ModelKind;
  static const ModelKind All[] = {Parameterized, Linear, UnitCall, Wormhole};
  Section S{
      "model",
      kindNames(All, modelKindName),
      {
          {"t_hold", Presence::Required,
           sectionField(readAffine, M.Parameterized.THold),
           kinds(Parameterized)},
          {"t_end", Presence::Required,
           sectionField(readAffine, M.Parameterized.TEnd),
           kinds(Parameterized)},
          {"t_s", Presence::Required, numberField(M.Linear.Ts), kinds(Linear)},
          {"per_byte", Presence::Required, numberField(M.Linear.PerByte),
           kinds(Linear)},
          {"send_recv_factor", Presence::Optional,
           numberField(M.SendRecvFactor, 1, 2), kinds(Linear)},
          {"op_per_byte", Presence::Optional, numberField(M.OpPerByte)},
          {"s_s", Presence::Required, wormholeTimeField(M.Worm.Ss),
           kinds(Wormhole)},
          {"s_d", Presence::Required, wormholeTimeField(M.Worm.Sd),
           kinds(Wormhole)},
          {"c_d", Presence::Required, wormholeTimeField(M.Worm.Cd),
           kinds(Wormhole)},
          {"r_s", Presence::Required, wormholeTimeField(M.Worm.Rs),
           kinds(Wormhole)},
          {"r_d", Presence::Required, wormholeTimeField(M.Worm.Rd),
           kinds(Wormhole)},
          {"flit_bytes", Presence::Optional,
           integerField(M.Worm.FlitBytes, 1, 1 << 20), kinds(Wormhole)},
      }};
  SectionReader R(D, S);
  if (!R.read(N, quoted(Key)))
    return false;
  M.Kind = static_cast<ModelKind>(R.kind());
  return true;
}

/// Extents of a mesh or torus, highest dimension first.
FieldReader dimsField(Topology &T) {
  return [&T](Document &D, const DocNode &N, StringRef Key) {
    if (N.Kind != DocNode::Seq)
      return D.error(&N, "expected a list of extents for '" + Key +
                             "', e.g. [16, 16]");
    int64_t Nodes = 1;
    for (const DocNode *X : N.Items) {
      int64_t V;
      if (!D.integer(*X, Key, V, 1, MaxNodes))
        return false;
      if (Nodes > MaxNodes / V)
        return D.error(&N, "expected at most " + Twine(MaxNodes) +
                               " nodes in all, got more");
      Nodes *= V;
      T.Dims.push_back(V);
    }
    if (T.Dims.empty())
      return D.error(&N, "expected at least one dimension in '" + Key + "'");
    T.Nodes = Nodes;
    return true;
  };
}

/// A list of integers in [Min, Max]: a fat tree's down, up or parallel.
FieldReader integerListField(std::vector<int64_t> &Out, int64_t Min,
                             int64_t Max) {
  return [&Out, Min, Max](Document &D, const DocNode &N, StringRef Key) {
    if (N.Kind != DocNode::Seq)
      return D.error(&N, "expected a list of integers for '" + Key +
                             "', e.g. [4, 4]");
    for (const DocNode *X : N.Items) {
      int64_t V;
      if (!D.integer(*X, Key, V, Min, Max))
        return false;
      Out.push_back(V);
    }
    return true;
  };
}

/// The fat tree's three lists have one entry per level, and its levels fit
/// in MaxNodes vertices each.
bool checkFatTree(Document &D, const SectionReader &R, Topology &T) {
  for (auto [Key, List] :
       {std::pair<StringRef, std::vector<int64_t> *>{"down", &T.Down},
        {"up", &T.Up},
        {"parallel", &T.Parallel}})
    if (static_cast<int64_t>(List->size()) != T.Levels)
      return D.error(R.get(Key),
                     "expected " + Twine(T.Levels) + " entries in '" + Key +
                         "' (one per level), got " + Twine(List->size()));
  if (int64_t L = fatTreeLevelTooLarge(T); L >= 0)
    return D.error(
        R.get(L == 0 ? "down" : "up"),
        "expected at most " + Twine(MaxNodes) +
            (L == 0 ? Twine(" nodes") : " switches at level " + Twine(L)) +
            ", got more");
  T.Nodes = 1;
  for (int64_t X : T.Down)
    T.Nodes *= X;
  return true;
}

bool readTopology(Document &D, const DocNode &N, StringRef Key, Topology &T) {
  using enum TopologyKind;
  static const TopologyKind All[] = {Full,      Mesh, Torus,   Hypercube, Star,
                                     MacroStar, Min,  FatTree, Cluster};
  int64_t Dimension = 0;
  Section S{
      "topology",
      kindNames(All, topologyKindName),
      {
          {"nodes", Presence::Optional, integerField(T.Nodes, 1, MaxNodes),
           kinds(Full)},
          {"dims", Presence::Required, dimsField(T), kinds(Mesh, Torus)},
          {"dimension", Presence::Required, integerField(Dimension, 0, 24),
           kinds(Hypercube)},
          {"k", Presence::Required, integerField(T.StarK, 1, 10), kinds(Star)},
          {"l", Presence::Required, integerField(T.MacroL, 1, 9),
           kinds(MacroStar)},
          {"n", Presence::Required, integerField(T.MacroN, 1, 9),
           kinds(MacroStar)},
          {"nodes", Presence::Required, integerField(T.Nodes, 2, 1 << 16),
           kinds(Min)},
          {"switch_radix", Presence::Required,
           integerField(T.SwitchRadix, 2, 64), kinds(Min)},
          {"levels", Presence::Required, integerField(T.Levels, 1, 16),
           kinds(FatTree)},
          {"down", Presence::Required, integerListField(T.Down, 1, 1024),
           kinds(FatTree)},
          {"up", Presence::Required, integerListField(T.Up, 1, 1024),
           kinds(FatTree)},
          {"parallel", Presence::Required,
           integerListField(T.Parallel, 1, 1024), kinds(FatTree)},
          {"nodes", Presence::Required, integerField(T.Nodes, 1, MaxNodes),
           kinds(Cluster)},
          {"backbone", Presence::Optional, boolField(T.Backbone),
           kinds(Cluster)},
          // The order a route resolves the dimensions in (passes/Routes.h).
          {"routing", Presence::Optional,
           choiceField(T.Routing,
                       {{"first-written", DimensionRouting::FirstWritten},
                        {"simgrid", DimensionRouting::SimGrid}},
                       "routing"),
           kinds(Mesh, Torus, Hypercube)},
      }};
  SectionReader R(D, S);
  if (!R.read(N, quoted(Key)))
    return false;
  T.Kind = static_cast<TopologyKind>(R.kind());
  switch (T.Kind) {
  case Full:
  case Mesh:
  case Torus:
  case Cluster:
    return true;
  case FatTree:
    return checkFatTree(D, R, T);
  case Hypercube:
    T.Dims.assign(static_cast<size_t>(Dimension), 2);
    T.Nodes = int64_t(1) << Dimension;
    return true;
  case Star:
    T.Nodes = permutationCount(T.StarK);
    return true;
  case MacroStar:
    if (T.MacroL * T.MacroN + 1 > 10)
      return D.error(&N, "expected n*l + 1 <= 10 symbols (at most 10! = "
                         "3628800 nodes), got " +
                             Twine(T.MacroL * T.MacroN + 1));
    T.StarK = T.MacroL * T.MacroN + 1;
    T.Nodes = permutationCount(T.StarK);
    return true;
  case Min: {
    int64_t P = 1;
    while (P < T.Nodes)
      P *= T.SwitchRadix;
    if (P != T.Nodes)
      return D.error(R.get("nodes"), "expected a power of switch_radix (" +
                                         Twine(T.SwitchRadix) +
                                         ") for 'nodes', got " +
                                         Twine(T.Nodes));
    return true;
  }
  }
  llvm_unreachable("unknown topology kind");
}

/// A machine spec; \p Derived says whether its model comes from its network.
Expected<Machine> readSpec(MemoryBufferRef Buffer, bool &Derived) {
  Document D(Buffer);
  const DocNode *Root = D.root("machine spec");
  if (!Root)
    return D.takeError();
  Machine M;
  // The topology comes before the network, which names its link classes.
  Section S{
      "",
      {},
      {
          {"name", Presence::Required, stringField(M.Name)},
          {"model", Presence::Optional, sectionField(readModel, M.M)},
          {"ports", Presence::Optional, integerField(M.Ports, 1, 64)},
          {"topology", Presence::Optional, sectionField(readTopology, M.Topo)},
          {"network", Presence::Optional,
           [&M](Document &D, const DocNode &N, StringRef Key) {
             return readNetwork(D, N, Key, M.Topo, M.Net.emplace());
           }},
      }};
  SectionReader R(D, S);
  if (!R.checkKeys(*Root, "machine spec"))
    return D.takeError();
  // A network stands in for a missing model.
  for (StringRef Key : {"name", "model"})
    if (!R.get(Key) && !(Key == "model" && R.get("network"))) {
      D.error(Root, "missing key '" + Key + "' in machine spec");
      return D.takeError();
    }
  for (const Field &F : S.Fields)
    if (!R.readField(F.Name))
      return D.takeError();
  if (M.Net)
    if (std::string Problem = networkTimesProblem(*M.Net); !Problem.empty()) {
      D.error(R.get("network"),
              "expected a network whose messages take finite times: " +
                  Problem);
      return D.takeError();
    }
  Derived = M.Net && !R.get("model");
  if (Derived) {
    M.M = linearModelOf(*M.Net, M.Topo);
    if (!hasFiniteTimes(M.M)) {
      D.error(R.get("network"),
              "expected a network whose messages take finite times: its "
              "links and first band give a model of " +
                  linearModelText(M.M));
      return D.takeError();
    }
  }
  return M;
}

/// The SMPI factors of the command line replace the bands' factors.
Error applyOverrides(Machine &M, const MachineOverrides &O, bool Derived) {
  const std::pair<const std::optional<std::string> &, const char *> Options[] =
      {{O.SmpiLatFactor, "--smpi-lat-factor"},
       {O.SmpiBwFactor, "--smpi-bw-factor"}};
  const char *Last = nullptr;
  for (auto [Value, Option] : Options) {
    if (!Value)
      continue;
    if (!M.Net)
      return error("%s: machine '%s' has no network (a network: section or a "
                   "SimGrid platform gives it one)",
                   Option, M.Name.c_str());
    auto Steps = parseSmpiFactor(*Value);
    if (!Steps)
      return error("%s: %s", Option, toString(Steps.takeError()).c_str());
    const bool Bandwidth = Option == Options[1].second;
    M.Net->Bands =
        bandsOf(Bandwidth ? factorSteps(M.Net->Bands, false) : *Steps,
                Bandwidth ? *Steps : factorSteps(M.Net->Bands, true));
    Last = Option;
  }
  if (!Last)
    return Error::success();
  if (std::string Problem = networkTimesProblem(*M.Net); !Problem.empty())
    return error("%s: the factors give machine '%s' a network whose messages "
                 "do not take finite times: %s",
                 Last, M.Name.c_str(), Problem.c_str());
  if (!Derived)
    return Error::success();
  M.M = linearModelOf(*M.Net, M.Topo);
  if (!hasFiniteTimes(M.M))
    return error("%s: the factors give machine '%s' a model of %s; expected "
                 "finite times",
                 Last, M.Name.c_str(), linearModelText(M.M).c_str());
  return Error::success();
}

} // namespace

Expected<Machine> parseMachine(MemoryBufferRef Buffer,
                               const MachineOverrides &Overrides) {
  bool Derived = true;
  Expected<Machine> M = isPlatformFile(Buffer) ? parsePlatform(Buffer)
                                               : readSpec(Buffer, Derived);
  if (!M)
    return M.takeError();
  if (Error E = applyOverrides(*M, Overrides, Derived))
    return E;
  return M;
}

Expected<Machine> loadMachine(StringRef Path,
                              const MachineOverrides &Overrides) {
  auto Buf = readInputFile(Path);
  if (!Buf)
    return Buf.takeError();
  return parseMachine((*Buf)->getMemBufferRef(), Overrides);
}

} // namespace collc
