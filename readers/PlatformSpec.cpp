#include "readers/PlatformSpec.h"

#include "ir/Diagnostic.h"
#include "ir/Format.h"
#include "ir/JsonTree.h"
#include "ir/Request.h"
#include "ir/SmpiFactors.h"
#include "passes/Routes.h"
#include "readers/MachineCheck.h"
#include "readers/NetworkSpec.h"
#include "readers/XmlTree.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <optional>

using namespace llvm;

namespace collc {

namespace {

/// A unit and what one of it is in SimGrid's base unit (s, B/s, flop/s).
using UnitTable = std::vector<std::pair<std::string, double>>;

/// SimGrid's unit tables (xbt/parse_units): \p Unit with the decimal
/// prefixes (k, M, G, ... or kilo, mega, ...) and, for bytes and bits, the
/// binary ones (Ki, Mi, Gi, ...).
void addUnit(UnitTable &T, const std::string &Unit, double Value, bool Binary,
             bool LongPrefixes = false) {
  static const char *Short[] = {"k", "M", "G", "T", "P", "E", "Z", "Y"};
  static const char *Long[] = {"kilo", "mega", "giga",  "tera",
                               "peta", "exa",  "zetta", "yotta"};
  static const char *Bin[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"};
  T.push_back({Unit, Value});
  double Dec = Value, Two = Value;
  for (int I = 0; I < 8; ++I) {
    Dec *= 1000;
    Two *= 1024;
    T.push_back({std::string(LongPrefixes ? Long[I] : Short[I]) + Unit, Dec});
    if (Binary)
      T.push_back({Bin[I] + Unit, Two});
  }
}

const UnitTable &timeUnits() {
  static const UnitTable T = {{"w", 7 * 24 * 3600.0},
                              {"d", 24 * 3600.0},
                              {"h", 3600},
                              {"m", 60},
                              {"s", 1},
                              {"ms", 1e-3},
                              {"us", 1e-6},
                              {"ns", 1e-9},
                              {"ps", 1e-12}};
  return T;
}

const UnitTable &bandwidthUnits() {
  static const UnitTable T = [] {
    UnitTable U;
    addUnit(U, "Bps", 1, /*Binary=*/true);
    addUnit(U, "bps", 0.125, /*Binary=*/true);
    return U;
  }();
  return T;
}

const UnitTable &speedUnits() {
  static const UnitTable T = [] {
    UnitTable U;
    addUnit(U, "f", 1, /*Binary=*/false);
    addUnit(U, "flops", 1, /*Binary=*/false, /*LongPrefixes=*/true);
    return U;
  }();
  return T;
}

/// What an attribute holds, for its messages.
struct Quantity {
  const char *What;    ///< "a time"
  const char *Example; ///< "1us"
  const UnitTable &Units;
  const char *Default; ///< The unit of a bare number.
  double Scale;        ///< Into collc's units: s -> µs, B/s -> B/µs.
  /// The range of a value other than 0, in the base unit (s, B/s): a
  /// machine spec's in collc's units (a latency at most 1e12 µs, a bandwidth
  /// in [1e-300, 1e300] bytes per µs: a byte in at most 1e300 µs).
  double Min, Max;
};

const Quantity Time{"a time", "1us or 0.5ms", timeUnits(), "s", 1e6, 0, 1e6};
const Quantity Bandwidth{
    "a bandwidth", "12.5GBps or 10Gbps", bandwidthUnits(), "Bps", 1e-6, 1e-294,
    1e306};
const Quantity Speed{"a speed", "1Gf", speedUnits(), "f", 1, 0, 1e300};

/// SimGrid's sharing policies of a cluster's links and of its backbone.
enum class Sharing { SplitDuplex, Shared, FatPipe };

/// A decimal number at the start of \p S: [+]digits[.digits][e[+-]digits].
size_t numberLength(StringRef S) {
  size_t I = 0;
  if (I < S.size() && S[I] == '+')
    ++I;
  size_t Digits = 0;
  while (I < S.size() && isDigit(S[I]))
    ++I, ++Digits;
  if (I < S.size() && S[I] == '.') {
    ++I;
    while (I < S.size() && isDigit(S[I]))
      ++I, ++Digits;
  }
  if (Digits == 0)
    return 0;
  if (I < S.size() && (S[I] == 'e' || S[I] == 'E')) {
    size_t J = I + 1;
    if (J < S.size() && (S[J] == '+' || S[J] == '-'))
      ++J;
    size_t Exp = J;
    while (J < S.size() && isDigit(S[J]))
      ++J;
    if (J > Exp)
      I = J;
  }
  return I;
}

class PlatformReader {
public:
  PlatformReader(MemoryBufferRef Buffer)
      : Text(Buffer.getBuffer()), File(Buffer.getBufferIdentifier()) {}

  Expected<Machine> read() {
    XmlElement Root;
    XmlError E;
    if (!parseXmlTree(Text, Root, E))
      return fail(E.Offset, "expected a SimGrid platform (XML): " + E.Message);
    if (!readPlatform(Root))
      return takeError();
    return std::move(M);
  }

private:
  Error takeError() { return make_error<LocatedError>(Message); }
  Error fail(size_t Offset, const Twine &Msg) {
    error(Offset, Msg);
    return takeError();
  }
  bool error(size_t Offset, const Twine &Msg) {
    Message = locatedError(Text, File, Offset, Msg);
    return false;
  }
  bool error(const XmlAttribute &A, const Twine &Msg) {
    return error(A.ValueOffset, Msg);
  }

  /// What collc reads, for the message about what it does not.
  static constexpr const char *Reads =
      "collc reads a platform of one <cluster> (topology FLAT, TORUS or "
      "FAT_TREE), in a <zone> of its own or not, after a <config>";

  bool notRead(const XmlElement &E, const Twine &What) {
    return error(E.Offset, What + " is not read: " + Reads);
  }

  /// Checks that \p E has only attributes from \p Known and every one of
  /// \p Required.
  bool checkAttributes(const XmlElement &E, ArrayRef<StringRef> Known,
                       ArrayRef<StringRef> Required) {
    for (const XmlAttribute &A : E.Attributes)
      if (!is_contained(Known, StringRef(A.Name)))
        return error(A.Offset, "unknown attribute '" + A.Name + "' of <" +
                                   E.Name +
                                   ">; expected one of: " + join(Known, ", "));
    for (StringRef R : Required)
      if (!E.attribute(R))
        return error(E.Offset,
                     "missing attribute '" + R + "' of <" + E.Name + ">");
    return true;
  }

  bool readPlatform(const XmlElement &P) {
    if (P.Name != "platform")
      return error(P.Offset,
                   "expected a SimGrid <platform>, got <" + P.Name + ">");
    if (!checkAttributes(P, {"version"}, {"version"}))
      return false;
    const XmlAttribute &V = *P.attribute("version");
    if (V.Value != "4" && V.Value != "4.0" && V.Value != "4.1")
      return error(V, "expected platform version 4 or 4.1 (SimGrid 3.13 and "
                      "later), got '" +
                          V.Value + "'");
    const XmlElement *Cluster = nullptr;
    for (const XmlElement &C : P.Children) {
      if (C.Name == "config") {
        if (Cluster)
          return error(C.Offset,
                       "expected <config> before the <cluster> (SimGrid reads "
                       "it first)");
        if (!readConfig(C))
          return false;
      } else if (C.Name == "cluster" || C.Name == "zone") {
        if (Cluster)
          return notRead(C, "a second <" + C.Name + ">");
        Cluster = C.Name == "cluster" ? &C : clusterOfZone(C);
        if (!Cluster)
          return false;
      } else {
        return notRead(C, "<" + C.Name + ">");
      }
    }
    if (!Cluster)
      return error(P.Offset,
                   "expected a <cluster> in <platform>; " + Twine(Reads));
    return readCluster(*Cluster);
  }

  /// A zone that holds one cluster and nothing else is that cluster.
  const XmlElement *clusterOfZone(const XmlElement &Z) {
    const XmlElement *Cluster = nullptr;
    for (const XmlElement &C : Z.Children) {
      if (C.Name != "cluster" || Cluster) {
        notRead(C, C.Name == "cluster" ? Twine("a second <cluster>")
                                       : "<" + C.Name + "> in a <zone>");
        return nullptr;
      }
      Cluster = &C;
    }
    if (!Cluster)
      error(Z.Offset, "expected a <cluster> in <zone>; " + Twine(Reads));
    return Cluster;
  }

  bool readConfig(const XmlElement &C) {
    if (!checkAttributes(C, {}, {}))
      return false;
    static constexpr StringRef Ids[] = {"smpi/lat-factor",
                                        "smpi/bw-factor",
                                        "smpi/send-is-detached-thresh",
                                        "network/crosstraffic",
                                        "network/weight-S",
                                        "network/TCP-gamma",
                                        "network/TCP_gamma",
                                        "network/model"};
    for (const XmlElement &P : C.Children) {
      if (P.Name != "prop")
        return notRead(P, "<" + P.Name + "> in <config>");
      if (!checkAttributes(P, {"id", "value"}, {"id", "value"}))
        return false;
      const XmlAttribute &Id = *P.attribute("id");
      const XmlAttribute &V = *P.attribute("value");
      if (!is_contained(Ids, StringRef(Id.Value)))
        return error(Id, "config '" + Id.Value +
                             "' is not read; collc reads: " +
                             join(makeArrayRef(Ids), ", "));
      if (!readConfigValue(Id.Value, V))
        return false;
    }
    return true;
  }

  bool readConfigValue(StringRef Id, const XmlAttribute &V) {
    StringRef Value = StringRef(V.Value).trim();
    if (Id == "smpi/lat-factor" || Id == "smpi/bw-factor") {
      auto Steps = parseSmpiFactor(Value);
      if (!Steps)
        return error(V, Id + ": " + toString(Steps.takeError()));
      (Id == "smpi/lat-factor" ? LatSteps : BwSteps) = std::move(*Steps);
      return true;
    }
    if (Id == "smpi/send-is-detached-thresh") {
      uint64_t Bytes;
      if (Value.getAsInteger(10, Bytes) || Bytes > MaxBytes)
        return error(V, "expected a size in bytes in [0, " + Twine(MaxBytes) +
                            "] for '" + Id + "', got '" + V.Value + "'");
      Net.RendezvousBytes = Bytes;
      return true;
    }
    if (Id == "network/crosstraffic") {
      std::string L = Value.lower();
      bool On = L == "yes" || L == "on" || L == "true" || L == "1";
      if (!On && L != "no" && L != "off" && L != "false" && L != "0")
        return error(V, "expected yes or no for '" + Id + "', got '" + V.Value +
                            "'");
      Net.CrossTraffic = On ? 0.05 : 0;
      return true;
    }
    if (Id == "network/model") {
      if (Value != "SMPI")
        return error(V, "expected network/model SMPI (the model collc "
                        "follows), got '" +
                            V.Value + "'");
      return true;
    }
    double X;
    if (Value.getAsDouble(X) || !(X >= 0 && X <= MaxModelTime))
      return error(V, "expected a number in [0, " + formatBound(MaxModelTime) +
                          "] for '" + Id + "', got '" + V.Value + "'");
    (Id == "network/weight-S" ? Net.WeightS : Net.TcpGamma) = X;
    return true;
  }

  /// A value with SimGrid's units, in collc's.
  bool quantity(const XmlAttribute &A, const Quantity &Q, double &Out) {
    StringRef S = A.Value;
    size_t N = numberLength(S);
    double V;
    if (N == 0 || S.take_front(N).getAsDouble(V) || !std::isfinite(V))
      return error(A, "expected " + Twine(Q.What) + " for '" + A.Name +
                          "', e.g. " + Q.Example + ", got '" + A.Value + "'");
    StringRef Unit = S.drop_front(N);
    if (Unit.empty())
      Unit = Q.Default;
    auto It = find_if(Q.Units, [&](const auto &U) { return U.first == Unit; });
    if (It == Q.Units.end())
      return error(A.ValueOffset + N, "unknown unit '" + Unit + "' for '" +
                                          A.Name + "', e.g. " + Q.Example);
    const double Base = V * It->second;
    if (V > 0 && !(Base >= Q.Min))
      return error(A, "expected " + Twine(Q.What) + " of at least " +
                          formatBound(Q.Min) + Q.Default + " for '" + A.Name +
                          "', got '" + A.Value + "'");
    if (!(Base <= Q.Max))
      return error(A, "expected " + Twine(Q.What) + " of at most " +
                          formatBound(Q.Max) + Q.Default + " for '" + A.Name +
                          "', got '" + A.Value + "'");
    Out = Base * Q.Scale;
    return true;
  }

  /// An optional attribute with units; false after an error.
  bool optionalQuantity(const XmlElement &E, StringRef Name, const Quantity &Q,
                        std::optional<double> &Out) {
    if (const XmlAttribute *A = E.attribute(Name)) {
      double V;
      if (!quantity(*A, Q, V))
        return false;
      Out = V;
    }
    return true;
  }

  bool positive(const XmlElement &E, StringRef Name, std::optional<double> V) {
    if (!V || *V > 0)
      return true;
    return error(*E.attribute(Name), "expected a bandwidth > 0 for '" + Name +
                                         "', got '" + E.attribute(Name)->Value +
                                         "'");
  }

  bool sharing(const XmlElement &E, StringRef Name, bool Backbone,
               Sharing &Out) {
    const XmlAttribute *A = E.attribute(Name);
    if (!A)
      return true;
    static const std::pair<StringRef, Sharing> Policies[] = {
        {"SPLITDUPLEX", Sharing::SplitDuplex},
        {"FULLDUPLEX", Sharing::SplitDuplex},
        {"SHARED", Sharing::Shared},
        {"FATPIPE", Sharing::FatPipe}};
    for (auto [Policy, S] : Policies)
      if (A->Value == Policy && (!Backbone || S != Sharing::SplitDuplex)) {
        Out = S;
        return true;
      }
    return error(*A, "unknown sharing policy '" + A->Value + "' for '" +
                         A->Name + "'; expected one of: " +
                         (Backbone ? "SHARED, FATPIPE"
                                   : "SPLITDUPLEX, SHARED, FATPIPE"));
  }

  /// The hosts of `radical`: "0-255", "1-4,6,9-11".
  bool radical(const XmlAttribute &A, int64_t &Hosts) {
    SmallVector<StringRef, 8> Groups;
    StringRef(A.Value).split(Groups, ',', -1, /*KeepEmpty=*/true);
    Hosts = 0;
    for (StringRef G : Groups) {
      auto [First, Last] = G.split('-');
      uint64_t From, To;
      bool Range = G.contains('-');
      if (First.trim().getAsInteger(10, From) ||
          (Range && Last.trim().getAsInteger(10, To)) || (Range && To < From))
        return error(A, "expected host numbers like 0-255 or 1-4,6 for "
                        "'radical', got '" +
                            A.Value + "'");
      // To - From cannot wrap (To >= From); its + 1 could.
      Hosts += Range
                   ? static_cast<int64_t>(
                         std::min<uint64_t>(To - From, uint64_t(MaxNodes)) + 1)
                   : 1;
      if (Hosts > MaxNodes)
        return error(A, "expected at most " + Twine(MaxNodes) +
                            " hosts in 'radical', got more");
    }
    return true;
  }

  /// "16,16" of a TORUS, "2;4,4;1,2;1,2" of a FAT_TREE: integers in [1, Max]
  /// separated by commas.
  bool integers(const XmlAttribute &A, StringRef List, int64_t Max,
                std::vector<int64_t> &Out, const char *Example) {
    SmallVector<StringRef, 8> Items;
    List.split(Items, ',', -1, /*KeepEmpty=*/true);
    for (StringRef I : Items) {
      uint64_t V;
      if (I.trim().getAsInteger(10, V) || V < 1 || V > uint64_t(Max))
        return error(A, "expected integers in [1, " + Twine(Max) +
                            "] for 'topo_parameters', e.g. \"" + Example +
                            "\", got '" + A.Value + "'");
      Out.push_back(static_cast<int64_t>(V));
    }
    return true;
  }

  bool torus(const XmlAttribute &A, int64_t Hosts) {
    std::vector<int64_t> Dims;
    if (!integers(A, A.Value, MaxNodes, Dims, "16,16"))
      return false;
    int64_t Nodes = 1;
    for (int64_t D : Dims) {
      if (Nodes > MaxNodes / D)
        return error(A, "expected at most " + Twine(MaxNodes) +
                            " nodes in the torus, got more");
      Nodes *= D;
    }
    if (Nodes != Hosts)
      return error(A, "expected a torus of as many nodes as 'radical' has "
                      "hosts (" +
                          Twine(Hosts) + "), got " + Twine(Nodes));
    Topology &T = M.Topo;
    T.Kind = TopologyKind::Torus;
    // SimGrid's dimension 0 (stride 1) is the last written one.
    T.Dims.assign(Dims.rbegin(), Dims.rend());
    T.Nodes = Nodes;
    T.Routing = DimensionRouting::SimGrid;
    return true;
  }

  bool fatTree(const XmlAttribute &A, int64_t Hosts) {
    SmallVector<StringRef, 4> Parts;
    StringRef(A.Value).split(Parts, ';', -1, /*KeepEmpty=*/true);
    Topology &T = M.Topo;
    T.Kind = TopologyKind::FatTree;
    std::vector<int64_t> Levels;
    if (Parts.size() != 4 ||
        !integers(A, Parts[0], 16, Levels, "2;4,4;1,2;1,2") ||
        Levels.size() != 1)
      return error(A, "expected levels;down;up;parallel for a FAT_TREE's "
                      "'topo_parameters', e.g. \"2;4,4;1,2;1,2\", got '" +
                          A.Value + "'");
    T.Levels = Levels[0];
    const std::pair<std::vector<int64_t> *, const char *> Lists[] = {
        {&T.Down, "down"}, {&T.Up, "up"}, {&T.Parallel, "parallel"}};
    for (size_t I = 0; I < 3; ++I) {
      auto [List, Name] = Lists[I];
      if (!integers(A, Parts[I + 1], 1024, *List, "2;4,4;1,2;1,2"))
        return false;
      if (static_cast<int64_t>(List->size()) != T.Levels)
        return error(A, "expected " + Twine(T.Levels) + " " + Name +
                            " counts in 'topo_parameters' (one per level), "
                            "got " +
                            Twine(List->size()));
    }
    if (int64_t L = fatTreeLevelTooLarge(T); L >= 0)
      return error(
          A, "expected at most " + Twine(MaxNodes) +
                 (L == 0 ? Twine(" nodes") : " switches at level " + Twine(L)) +
                 " in the fat tree, got more");
    T.Nodes = 1;
    for (int64_t D : T.Down)
      T.Nodes *= D;
    if (T.Nodes != Hosts)
      return error(A, "expected a fat tree of as many nodes as 'radical' has "
                      "hosts (" +
                          Twine(Hosts) + "), got " + Twine(T.Nodes));
    return true;
  }

  static LinkClass link(const std::string &Name, double Latency, double Bw,
                        Sharing S) {
    LinkClass L{Name, Latency, Bw, S == Sharing::SplitDuplex};
    L.FatPipe = S == Sharing::FatPipe;
    return L;
  }

  bool readCluster(const XmlElement &C) {
    static constexpr StringRef Known[] = {"id",
                                          "prefix",
                                          "suffix",
                                          "radical",
                                          "speed",
                                          "core",
                                          "bw",
                                          "lat",
                                          "sharing_policy",
                                          "bb_bw",
                                          "bb_lat",
                                          "bb_sharing_policy",
                                          "limiter_link",
                                          "loopback_bw",
                                          "loopback_lat",
                                          "topology",
                                          "topo_parameters",
                                          "router_id"};
    if (!checkAttributes(
            C, Known,
            {"id", "prefix", "suffix", "radical", "speed", "bw", "lat"}))
      return false;
    for (const XmlElement &P : C.Children)
      if (P.Name != "prop")
        return notRead(P, "<" + P.Name + "> in <cluster>");
    int64_t Hosts;
    double Lat, Bw, Flops;
    std::optional<double> BbBw, BbLat, Limiter, LoopBw, LoopLat;
    Sharing Policy = Sharing::SplitDuplex, BbPolicy = Sharing::Shared;
    if (!radical(*C.attribute("radical"), Hosts) ||
        !quantity(*C.attribute("speed"), Speed, Flops) ||
        !quantity(*C.attribute("lat"), Time, Lat) ||
        !quantity(*C.attribute("bw"), Bandwidth, Bw) ||
        !positive(C, "bw", Bw) ||
        !optionalQuantity(C, "bb_bw", Bandwidth, BbBw) ||
        !optionalQuantity(C, "bb_lat", Time, BbLat) ||
        !optionalQuantity(C, "limiter_link", Bandwidth, Limiter) ||
        !optionalQuantity(C, "loopback_bw", Bandwidth, LoopBw) ||
        !optionalQuantity(C, "loopback_lat", Time, LoopLat) ||
        !positive(C, "limiter_link", Limiter) ||
        !sharing(C, "sharing_policy", false, Policy) ||
        !sharing(C, "bb_sharing_policy", true, BbPolicy) || !cores(C))
      return false;

    StringRef Kind = "FLAT";
    if (const XmlAttribute *A = C.attribute("topology"))
      Kind = A->Value;
    const XmlAttribute *Params = C.attribute("topo_parameters");
    // SimGrid makes a backbone when either is given (and positive).
    const bool Backbone = (BbBw && *BbBw > 0) || (BbLat && *BbLat > 0);
    if (Kind == "FLAT") {
      if (Params)
        return error(Params->Offset, "'topo_parameters' applies to a TORUS "
                                     "or FAT_TREE cluster, not a FLAT one");
      if (Backbone && !(BbBw && *BbBw > 0))
        return error(BbBw ? *C.attribute("bb_bw") : *C.attribute("bb_lat"),
                     "expected a backbone bandwidth > 0 ('bb_bw') with "
                     "'bb_lat'");
      M.Topo.Kind = TopologyKind::Cluster;
      M.Topo.Nodes = Hosts;
      M.Topo.Backbone = Backbone;
      Net.Links = {link("private", Lat, Bw, Policy)};
      if (Backbone)
        Net.Links.push_back(
            link("backbone", BbLat.value_or(0), *BbBw, BbPolicy));
    } else if (Kind == "TORUS" || Kind == "FAT_TREE") {
      for (StringRef Bb : {"bb_bw", "bb_lat", "bb_sharing_policy"})
        if (const XmlAttribute *A = C.attribute(Bb))
          return error(A->Offset, "'" + Bb +
                                      "' applies to a FLAT cluster, "
                                      "not a " +
                                      Kind + " one (SimGrid ignores it)");
      if (!Params)
        return error(C.Offset, "missing attribute 'topo_parameters' of <" +
                                   C.Name + "> (a " + Kind + " cluster)");
      if (Kind == "TORUS") {
        if (!torus(*Params, Hosts))
          return false;
        Net.Links = {link("link", Lat, Bw, Policy)};
      } else {
        if (Limiter)
          return error(C.attribute("limiter_link")->Offset,
                       "'limiter_link' on a FAT_TREE is not read: SimGrid "
                       "puts limiters on its switches too, which collc does "
                       "not model");
        if (!fatTree(*Params, Hosts))
          return false;
        for (const std::string &Name : linkClassNames(M.Topo))
          Net.Links.push_back(link(Name, Lat, Bw, Policy));
      }
    } else if (Kind == "DRAGONFLY") {
      return error(*C.attribute("topology"),
                   "a DRAGONFLY cluster is not read: collc reads FLAT, TORUS "
                   "and FAT_TREE clusters");
    } else {
      return error(*C.attribute("topology"),
                   "unknown topology '" + Kind +
                       "'; expected one of: FLAT, TORUS, FAT_TREE, DRAGONFLY");
    }
    if (Limiter) {
      Net.InjectionBandwidth = *Limiter;
      Net.SharedLimiter = true;
    }
    if (LoopBw || LoopLat) {
      Net.IntraNode.Latency = LoopLat.value_or(0);
      Net.IntraNode.Bandwidth = LoopBw.value_or(0);
      Net.IntraNode.FatPipe = true;
    }
    Net.Bands = bandsOf(LatSteps, BwSteps);
    M.Name = sys::path::stem(File).str();
    if (M.Name.empty())
      M.Name = C.attribute("id")->Value;
    if (std::string Problem = networkTimesProblem(Net); !Problem.empty())
      return error(C.Offset,
                   "expected a cluster whose messages take finite times: " +
                       Problem);
    M.Net = Net;
    M.M = linearModelOf(Net, M.Topo);
    if (!hasFiniteTimes(M.M))
      return error(C.Offset, "expected a cluster whose messages take finite "
                             "times: its links give a model of " +
                                 linearModelText(M.M));
    return true;
  }

  /// `core`: the processes each host runs (ranks placed block by block:
  /// ranks 0..c-1 on host 0, as a hostfile naming each host c times in
  /// order), as the spec's `nodes: {processes: c}`.
  bool cores(const XmlElement &C) {
    const XmlAttribute *A = C.attribute("core");
    uint64_t N;
    if (!A)
      return true;
    if (!StringRef(A->Value).trim().getAsInteger(10, N) && N >= 1 &&
        N <= MaxProcsPerNode) {
      Net.ProcsPerNode = static_cast<unsigned>(N);
      Net.Placement = RankPlacement::Block;
      return true;
    }
    return error(*A, "expected a core count from 1 to " +
                         Twine(MaxProcsPerNode) + " for 'core', got '" +
                         A->Value + "'");
  }

  /// As many as a spec's `nodes: {processes: ...}` allows.
  static constexpr uint64_t MaxProcsPerNode = 1024;

  StringRef Text;
  StringRef File;
  std::string Message;
  Machine M;
  Network Net;
  FactorSteps LatSteps = cantFail(parseSmpiFactor(SmpiDefaultLatFactor));
  FactorSteps BwSteps = cantFail(parseSmpiFactor(SmpiDefaultBwFactor));
};

} // namespace

bool isPlatformFile(MemoryBufferRef Buffer) {
  return Buffer.getBufferIdentifier().endswith(".xml") ||
         looksLikeXml(Buffer.getBuffer());
}

Expected<Machine> parsePlatform(MemoryBufferRef Buffer) {
  return PlatformReader(Buffer).read();
}

} // namespace collc
