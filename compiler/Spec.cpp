#include "compiler/Spec.h"

#include "compiler/Algorithms.h"
#include "ir/Escape.h"
#include "ir/Format.h"
#include "ir/JsonTree.h"
#include "ir/Permutation.h"
#include "ir/ScheduleJson.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

#include <cmath>
#include <set>

using namespace llvm;

namespace collc {

namespace {

std::string joined(ArrayRef<StringRef> Words) {
  std::string S;
  for (size_t I = 0; I < Words.size(); ++I) {
    if (I)
      S += ", ";
    S += Words[I].str();
  }
  return S;
}

/// A node of a spec document, converted once from LLVM's single-pass YAML
/// nodes so that the schema walk can look at it as often as it likes.
struct SNode {
  enum KindT { Scalar, Map, Seq, Null } Kind = Null;
  SMLoc Loc;
  std::string Text; ///< Scalars: the value.
  bool Quoted = false;
  std::vector<std::pair<SNode *, SNode *>> Entries; ///< Maps.
  std::vector<SNode *> Items;                       ///< Sequences.
};

/// One spec file being read: the YAML node tree (JSON is read as YAML flow
/// style, after a strict JSON syntax check) and the first problem found.
class SpecFile {
public:
  explicit SpecFile(MemoryBufferRef Buf) : Name(Buf.getBufferIdentifier()) {
    SM.AddNewSourceBuffer(MemoryBuffer::getMemBuffer(Buf, false), SMLoc());
    SM.setDiagHandler(
        [](const SMDiagnostic &D, void *Ctx) {
          auto *Self = static_cast<SpecFile *>(Ctx);
          if (Self->Failed)
            return;
          Self->Failed = true;
          Self->Message = Self->render(D.getLoc(), "expected YAML or JSON: " +
                                                       D.getMessage().str());
        },
        this);
    Text = Buf.getBuffer();
  }

  /// Parses the document; returns its root mapping or null after an error.
  SNode *root(StringRef What) {
    // Names reach every output, JSON included, which must read back: the
    // text must be UTF-8 (the YAML scanner would misread other bytes).
    size_t Bad = 0;
    if (!isValidUtf8(Text, &Bad)) {
      error(SMLoc::getFromPointer(Text.begin() + Bad),
            "expected UTF-8 text; this byte is not");
      return nullptr;
    }
    if (StringRef(Name).endswith(".json") && !checkJson())
      return nullptr;
    Stream = std::make_unique<yaml::Stream>(
        SM.getMemoryBuffer(SM.getMainFileID())->getMemBufferRef(), SM, false);
    auto It = Stream->begin();
    if (It == Stream->end() || Failed) {
      if (!Failed)
        error(SMLoc::getFromPointer(Text.begin()),
              "expected a " + What.str() + " mapping, got an empty file");
      return nullptr;
    }
    yaml::Node *N = It->getRoot();
    if (Failed)
      return nullptr;
    // Convert the whole document once, so that syntax errors surface before
    // schema errors.
    SNode *Top = convert(N);
    if (Failed)
      return nullptr;
    if (Top && Top->Kind == SNode::Null) {
      error(Top->Loc,
            "expected a " + What.str() + " mapping, got an empty document");
      return nullptr;
    }
    if (!Top || Top->Kind != SNode::Map) {
      error(Top ? Top->Loc : SMLoc::getFromPointer(Text.begin()),
            "expected a " + What.str() + " mapping");
      return nullptr;
    }
    ++It;
    if (It != Stream->end()) {
      error(nextDocument(), "expected a single document");
      return nullptr;
    }
    return Top;
  }

  /// Where the document after the first begins: its `---`, past the first
  /// document's last scalar, closing brackets, blanks, comments and `...`.
  SMLoc nextDocument() {
    const char *P = LastEnd ? LastEnd : Text.begin();
    while (P < Text.end()) {
      StringRef Rest(P, Text.end() - P);
      if (isSpace(*P) || *P == ']' || *P == '}' || *P == ',')
        ++P;
      else if (*P == '#')
        P = Rest.find('\n') == StringRef::npos ? Text.end()
                                               : P + Rest.find('\n');
      else if (Rest.startswith("..."))
        P += 3;
      else
        break;
    }
    return SMLoc::getFromPointer(std::min(P, Text.end()));
  }

  bool error(SMLoc Loc, const Twine &Msg) {
    if (!Failed) {
      Failed = true;
      Message = render(Loc, Msg.str());
    }
    return false;
  }
  bool error(SNode *N, const Twine &Msg) { return error(N->Loc, Msg); }

  bool failed() const { return Failed; }
  Error takeError() {
    return createStringError(inconvertibleErrorCode(), Message);
  }

  /// Key/value pairs of \p Map; reports duplicates and keys not in \p Allowed.
  bool entries(SNode *Map, StringRef Where, ArrayRef<StringRef> Allowed,
               std::vector<std::pair<std::string, SNode *>> &Out) {
    StringSet<> Seen;
    for (auto [K, V] : Map->Entries) {
      if (!K || K->Kind != SNode::Scalar)
        return error(K ? K : Map, "expected a plain key in " + Where);
      std::string Key = K->Text;
      if (!is_contained(Allowed, StringRef(Key)))
        return error(K, "unknown key '" + Key + "' in " + Where +
                            "; expected one of: " + joined(Allowed));
      if (!Seen.insert(Key).second)
        return error(K, "duplicate key '" + Key + "' in " + Where);
      if (!V || V->Kind == SNode::Null)
        return error(V ? V : K, "expected a value for '" + Key + "'");
      Out.push_back({Key, V});
    }
    return true;
  }

  static SNode *find(std::vector<std::pair<std::string, SNode *>> &E,
                     StringRef Key) {
    for (auto &[K, V] : E)
      if (K == Key)
        return V;
    return nullptr;
  }

  bool requireKey(SNode *Where, SNode *V, StringRef Key, StringRef In) {
    if (V)
      return true;
    return error(Where, "missing key '" + Key + "' in " + In);
  }

  /// A scalar's text, or an error if \p N is not a scalar.
  bool scalar(SNode *N, StringRef Key, std::string &Out, bool &Quoted) {
    if (N->Kind != SNode::Scalar)
      return error(N, "expected a scalar for '" + Key + "'");
    Out = N->Text;
    Quoted = N->Quoted;
    return true;
  }

  bool string(SNode *N, StringRef Key, std::string &Out) {
    bool Quoted = false;
    if (!scalar(N, Key, Out, Quoted))
      return false;
    if (Out.empty())
      return error(N, "expected a non-empty string for '" + Key + "'");
    return true;
  }

  /// A finite number in [Min, Max].
  bool number(SNode *N, StringRef Key, double &Out, double Min = 0,
              double Max = 1e300) {
    std::string Text;
    bool Quoted = false;
    if (!scalar(N, Key, Text, Quoted))
      return false;
    double V;
    StringRef T = StringRef(Text).trim();
    if (!Quoted &&
        (T.equals_insensitive(".nan") || T.equals_insensitive(".inf") ||
         T.equals_insensitive("-.inf") || T.equals_insensitive("+.inf")))
      return error(N, "expected a finite number for '" + Key + "', got '" +
                          Text + "'");
    if (Quoted || T.getAsDouble(V))
      return error(N,
                   "expected a number for '" + Key + "', got '" + Text + "'");
    if (!std::isfinite(V))
      return error(N, "expected a finite number for '" + Key + "', got '" +
                          Text + "'");
    if (V < Min)
      return error(N, "expected a number >= " + fmt(Min) + " for '" + Key +
                          "', got '" + Text + "'");
    if (V > Max)
      return error(N, "expected a number <= " + fmt(Max) + " for '" + Key +
                          "', got '" + Text + "'");
    Out = V;
    return true;
  }

  /// An integer in [Min, Max].
  bool integer(SNode *N, StringRef Key, int64_t &Out, int64_t Min,
               int64_t Max) {
    std::string Text;
    bool Quoted = false;
    if (!scalar(N, Key, Text, Quoted))
      return false;
    StringRef T = StringRef(Text).trim();
    bool Negative = T.startswith("-");
    uint64_t Abs;
    StringRef Digits = Negative ? T.drop_front() : T;
    if (!Quoted && !Digits.empty() &&
        Digits.find_first_not_of("0123456789") == StringRef::npos &&
        Digits.getAsInteger(10, Abs))
      Abs = UINT64_MAX; // too many digits: out of range below
    else if (Quoted || Digits.getAsInteger(10, Abs))
      return error(N,
                   "expected an integer for '" + Key + "', got '" + Text + "'");
    if (Negative ? Abs > uint64_t(-(Min < 0 ? Min : 0)) : Abs > uint64_t(Max))
      return error(N, "expected an integer in [" + std::to_string(Min) + ", " +
                          std::to_string(Max) + "] for '" + Key + "', got '" +
                          Text + "'");
    int64_t V = Negative ? -int64_t(Abs) : int64_t(Abs);
    if (V < Min || V > Max)
      return error(N, "expected an integer in [" + std::to_string(Min) + ", " +
                          std::to_string(Max) + "] for '" + Key + "', got '" +
                          Text + "'");
    Out = V;
    return true;
  }

  /// A bound as people write it: "0", "1e300", "0.5".
  static std::string fmt(double V) {
    if (V == std::floor(V) && std::fabs(V) < 1e15)
      return std::to_string(static_cast<long long>(V));
    std::string S = formatNumber(V);
    if (auto E = S.find("e+"); E != std::string::npos)
      S.erase(E + 1, 1);
    return S;
  }

  std::string Name;

private:
  std::string render(SMLoc Loc, const std::string &Msg) {
    if (Loc.isValid())
      return locatedError(SM, Loc, Msg);
    return Name + ": error: " + Msg;
  }

  /// \p Depth counts the collections around \p N; deeper than
  /// MaxNestingDepth is an error rather than a stack overflow.
  SNode *convert(yaml::Node *N, unsigned Depth = 0) {
    if (!N || Failed)
      return nullptr;
    Pool.push_back(std::make_unique<SNode>());
    SNode *Out = Pool.back().get();
    Out->Loc = N->getSourceRange().Start;
    if (Out->Loc.getPointer() > LastEnd)
      LastEnd = Out->Loc.getPointer();
    if ((isa<yaml::MappingNode>(N) || isa<yaml::SequenceNode>(N)) &&
        Depth >= MaxNestingDepth) {
      error(Out->Loc, "expected at most " + Twine(MaxNestingDepth) +
                          " levels of nesting");
      return nullptr;
    }
    if (auto *M = dyn_cast<yaml::MappingNode>(N)) {
      Out->Kind = SNode::Map;
      for (yaml::KeyValueNode &KV : *M) {
        SNode *K = convert(KV.getKey(), Depth + 1);
        SNode *V = convert(KV.getValue(), Depth + 1);
        if (Failed)
          return nullptr;
        Out->Entries.push_back({K, V});
      }
    } else if (auto *S = dyn_cast<yaml::SequenceNode>(N)) {
      Out->Kind = SNode::Seq;
      for (yaml::Node &E : *S) {
        SNode *X = convert(&E, Depth + 1);
        if (Failed)
          return nullptr;
        Out->Items.push_back(X);
      }
    } else if (auto *Sc = dyn_cast<yaml::ScalarNode>(N)) {
      Out->Kind = SNode::Scalar;
      LastEnd = std::max(LastEnd, Sc->getRawValue().end());
      SmallString<32> Storage;
      Out->Text = Sc->getValue(Storage).str();
      StringRef Raw = Sc->getRawValue();
      Out->Quoted = Raw.startswith("\"") || Raw.startswith("'");
    } else if (auto *B = dyn_cast<yaml::BlockScalarNode>(N)) {
      Out->Kind = SNode::Scalar;
      LastEnd = std::max(LastEnd, B->getSourceRange().End.getPointer());
      Out->Text = B->getValue().str();
      Out->Quoted = true;
    } else if (isa<yaml::AliasNode>(N)) {
      error(N->getSourceRange().Start,
            "expected plain YAML: anchors and aliases are not supported");
      return nullptr;
    } else {
      Out->Kind = SNode::Null;
    }
    return Out;
  }

  /// JSON files must be strict JSON: YAML accepts things JSON does not.
  /// Duplicate keys are left to the schema walk, which names the mapping.
  bool checkJson() {
    JsonNode Tree;
    JsonError E;
    if (!parseJsonTree(Text, Tree, E, /*RejectDuplicateKeys=*/false))
      return error(SMLoc::getFromPointer(Text.begin() + E.Offset),
                   "expected JSON: " + E.Message);
    return true;
  }

  SourceMgr SM;
  std::unique_ptr<yaml::Stream> Stream;
  std::vector<std::unique_ptr<SNode>> Pool;
  StringRef Text;
  /// The end of the last scalar converted (or start of the last node).
  const char *LastEnd = nullptr;
  bool Failed = false;
  std::string Message;
};

using Entries = std::vector<std::pair<std::string, SNode *>>;

bool parseAffine(SpecFile &F, SNode *N, StringRef Key, Affine &Out) {
  SNode *Map = N;
  if (Map->Kind != SNode::Map)
    return F.error(N, "expected a mapping {base, per_byte} for '" + Key + "'");
  Entries E;
  if (!F.entries(Map, "'" + Key.str() + "'", {"base", "per_byte"}, E))
    return false;
  SNode *Base = SpecFile::find(E, "base");
  SNode *PerByte = SpecFile::find(E, "per_byte");
  if (!F.requireKey(Map, Base, "base", "'" + Key.str() + "'") ||
      !F.requireKey(Map, PerByte, "per_byte", "'" + Key.str() + "'"))
    return false;
  return F.number(Base, "base", Out.Base) &&
         F.number(PerByte, "per_byte", Out.PerByte);
}

bool parseModel(SpecFile &F, SNode *N, Model &M) {
  SNode *Map = N;
  if (Map->Kind != SNode::Map)
    return F.error(N, "expected a mapping for 'model'");
  Entries E;
  if (!F.entries(Map, "'model'",
                 {"kind", "t_hold", "t_end", "t_s", "per_byte",
                  "send_recv_factor", "op_per_byte", "s_s", "s_d", "c_d", "r_s",
                  "r_d", "flit_bytes"},
                 E))
    return false;
  SNode *Kind = SpecFile::find(E, "kind");
  if (!F.requireKey(Map, Kind, "kind", "'model'"))
    return false;
  std::string K;
  if (!F.string(Kind, "kind", K))
    return false;
  auto Allow = [&](ArrayRef<StringRef> Keys) {
    for (auto &[Key, V] : E)
      if (Key != "kind" && Key != "op_per_byte" &&
          !is_contained(Keys, StringRef(Key)))
        return F.error(V,
                       "'" + Key + "' does not apply to a " + K + " model; " +
                           (Keys.empty() ? std::string("it takes no parameters")
                                         : "expected: " + joined(Keys)));
    return true;
  };
  auto Need = [&](StringRef Key) -> SNode * {
    SNode *V = SpecFile::find(E, Key);
    if (!V)
      F.error(Map, "missing key '" + Key + "' in a " + K + " model");
    return V;
  };
  if (SNode *Op = SpecFile::find(E, "op_per_byte"))
    if (!F.number(Op, "op_per_byte", M.OpPerByte))
      return false;
  if (K == "parameterized") {
    M.Kind = ModelKind::Parameterized;
    if (!Allow({"t_hold", "t_end"}))
      return false;
    SNode *H = Need("t_hold"), *End = H ? Need("t_end") : nullptr;
    if (!H || !End || !parseAffine(F, H, "t_hold", M.Parameterized.THold) ||
        !parseAffine(F, End, "t_end", M.Parameterized.TEnd))
      return false;
    return true;
  }
  if (K == "linear") {
    M.Kind = ModelKind::Linear;
    if (!Allow({"t_s", "per_byte", "send_recv_factor"}))
      return false;
    SNode *Ts = Need("t_s"), *PB = Ts ? Need("per_byte") : nullptr;
    if (!Ts || !PB || !F.number(Ts, "t_s", M.Linear.Ts) ||
        !F.number(PB, "per_byte", M.Linear.PerByte))
      return false;
    if (SNode *SR = SpecFile::find(E, "send_recv_factor"))
      if (!F.number(SR, "send_recv_factor", M.SendRecvFactor, 1, 2))
        return false;
    return true;
  }
  if (K == "unit-call") {
    M.Kind = ModelKind::UnitCall;
    if (!Allow({}))
      return false;
    return true;
  }
  if (K == "wormhole") {
    M.Kind = ModelKind::Wormhole;
    if (!Allow({"s_s", "s_d", "c_d", "r_s", "r_d", "flit_bytes"}))
      return false;
    struct {
      const char *Key;
      double *Out;
    } Fields[] = {{"s_s", &M.Worm.Ss},
                  {"s_d", &M.Worm.Sd},
                  {"c_d", &M.Worm.Cd},
                  {"r_s", &M.Worm.Rs},
                  {"r_d", &M.Worm.Rd}};
    // Times far beyond any network (1e12 units) would swallow the others in
    // the sums that make a start or an end: keep every time exact enough.
    for (auto &Fd : Fields) {
      SNode *V = Need(Fd.Key);
      if (!V || !F.number(V, Fd.Key, *Fd.Out))
        return false;
      if (*Fd.Out > 1e12) {
        char Got[32];
        snprintf(Got, sizeof(Got), "%g", *Fd.Out);
        return F.error(V, std::string("expected a number <= 1e12 for '") +
                              Fd.Key +
                              "' (larger times absorb the others), got " + Got);
      }
    }
    if (SNode *FB = SpecFile::find(E, "flit_bytes")) {
      int64_t V;
      if (!F.integer(FB, "flit_bytes", V, 1, 1 << 20))
        return false;
      M.Worm.FlitBytes = static_cast<uint64_t>(V);
    }
    return true;
  }
  return F.error(Kind, "unknown model kind '" + K +
                           "'; expected one of: parameterized, linear, "
                           "unit-call, wormhole");
}

/// Largest node count any topology may have (a star graph S_10 has 3.6M).
constexpr int64_t MaxNodes = MaxRanks;

bool parseTopology(SpecFile &F, SNode *N, Topology &T) {
  SNode *Map = N;
  if (Map->Kind != SNode::Map)
    return F.error(N, "expected a mapping for 'topology'");
  Entries E;
  if (!F.entries(
          Map, "'topology'",
          {"kind", "nodes", "dims", "dimension", "k", "l", "n", "switch_radix"},
          E))
    return false;
  SNode *Kind = SpecFile::find(E, "kind");
  if (!F.requireKey(Map, Kind, "kind", "'topology'"))
    return false;
  std::string K;
  if (!F.string(Kind, "kind", K))
    return false;
  auto Allow = [&](ArrayRef<StringRef> Keys) {
    for (auto &[Key, V] : E)
      if (Key != "kind" && !is_contained(Keys, StringRef(Key)))
        return F.error(V, "'" + Key + "' does not apply to a " + K +
                              " topology; expected: " + joined(Keys));
    return true;
  };
  auto Need = [&](StringRef Key) -> SNode * {
    SNode *V = SpecFile::find(E, Key);
    if (!V)
      F.error(Map, "missing key '" + Key + "' in a " + K + " topology");
    return V;
  };
  if (K == "full") {
    T.Kind = TopologyKind::Full;
    if (!Allow({"nodes"}))
      return false;
    if (SNode *Nodes = SpecFile::find(E, "nodes"))
      return F.integer(Nodes, "nodes", T.Nodes, 1, MaxNodes);
    return true;
  }
  if (K == "mesh" || K == "torus") {
    T.Kind = K == "mesh" ? TopologyKind::Mesh : TopologyKind::Torus;
    if (!Allow({"dims"}))
      return false;
    SNode *Dims = Need("dims");
    if (!Dims)
      return false;
    if (Dims->Kind != SNode::Seq)
      return F.error(Dims,
                     "expected a list of extents for 'dims', e.g. [16, 16]");
    int64_t Nodes = 1;
    for (SNode *D : Dims->Items) {
      int64_t V;
      if (!F.integer(D, "dims", V, 1, MaxNodes))
        return false;
      if (Nodes > MaxNodes / V)
        return F.error(Dims, "expected at most " + std::to_string(MaxNodes) +
                                 " nodes in all, got more");
      Nodes *= V;
      T.Dims.push_back(V);
    }
    if (T.Dims.empty())
      return F.error(Dims, "expected at least one dimension in 'dims'");
    T.Nodes = Nodes;
    return true;
  }
  if (K == "hypercube") {
    T.Kind = TopologyKind::Hypercube;
    if (!Allow({"dimension"}))
      return false;
    SNode *D = Need("dimension");
    int64_t V;
    if (!D || !F.integer(D, "dimension", V, 0, 24))
      return false;
    T.Dims.assign(static_cast<size_t>(V), 2);
    T.Nodes = int64_t(1) << V;
    return true;
  }
  if (K == "star") {
    T.Kind = TopologyKind::Star;
    if (!Allow({"k"}))
      return false;
    SNode *KN = Need("k");
    if (!KN || !F.integer(KN, "k", T.StarK, 1, 10))
      return false;
    T.Nodes = permutationCount(T.StarK);
    return true;
  }
  if (K == "macro-star") {
    T.Kind = TopologyKind::MacroStar;
    if (!Allow({"l", "n"}))
      return false;
    SNode *L = Need("l"), *NN = L ? Need("n") : nullptr;
    if (!L || !NN || !F.integer(L, "l", T.MacroL, 1, 9) ||
        !F.integer(NN, "n", T.MacroN, 1, 9))
      return false;
    if (T.MacroL * T.MacroN + 1 > 10)
      return F.error(Map, "expected n*l + 1 <= 10 symbols (at most 10! = "
                          "3628800 nodes), got " +
                              std::to_string(T.MacroL * T.MacroN + 1));
    T.StarK = T.MacroL * T.MacroN + 1;
    T.Nodes = permutationCount(T.StarK);
    return true;
  }
  if (K == "min") {
    T.Kind = TopologyKind::Min;
    if (!Allow({"nodes", "switch_radix"}))
      return false;
    SNode *Nodes = Need("nodes"), *R = Nodes ? Need("switch_radix") : nullptr;
    if (!Nodes || !R || !F.integer(Nodes, "nodes", T.Nodes, 2, 1 << 16) ||
        !F.integer(R, "switch_radix", T.SwitchRadix, 2, 64))
      return false;
    int64_t P = 1;
    while (P < T.Nodes)
      P *= T.SwitchRadix;
    if (P != T.Nodes)
      return F.error(Nodes, "expected a power of switch_radix (" +
                                std::to_string(T.SwitchRadix) +
                                ") for 'nodes', got " +
                                std::to_string(T.Nodes));
    return true;
  }
  return F.error(Kind, "unknown topology kind '" + K +
                           "'; expected one of: full, mesh, torus, hypercube, "
                           "star, macro-star, min");
}

Expected<std::unique_ptr<MemoryBuffer>> readFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return createStringError(
        inconvertibleErrorCode(), "%s: error: cannot read file: %s",
        Path.str().c_str(), Buf.getError().message().c_str());
  return std::move(*Buf);
}

/// Where a node reference came from, for messages.
struct NodeRef {
  SNode *Node = nullptr; ///< In the file, or null for the command line.
  std::string Text;      ///< As written.
};

} // namespace

Expected<Machine> parseMachine(MemoryBufferRef Buffer) {
  SpecFile F(Buffer);
  Machine M;
  SNode *Root = F.root("machine spec");
  if (!Root)
    return F.takeError();
  Entries E;
  if (!F.entries(Root, "machine spec", {"name", "model", "ports", "topology"},
                 E))
    return F.takeError();
  SNode *Name = SpecFile::find(E, "name");
  SNode *Mod = SpecFile::find(E, "model");
  if (!F.requireKey(Root, Name, "name", "machine spec") ||
      !F.string(Name, "name", M.Name) ||
      !F.requireKey(Root, Mod, "model", "machine spec") ||
      !parseModel(F, Mod, M.M))
    return F.takeError();
  if (SNode *Ports = SpecFile::find(E, "ports")) {
    int64_t P;
    if (!F.integer(Ports, "ports", P, 1, 64))
      return F.takeError();
    M.Ports = static_cast<unsigned>(P);
  }
  if (SNode *Topo = SpecFile::find(E, "topology"))
    if (!parseTopology(F, Topo, M.Topo))
      return F.takeError();
  return M;
}

Expected<Machine> loadMachine(StringRef Path) {
  auto Buf = readFile(Path);
  if (!Buf)
    return Buf.takeError();
  return parseMachine((*Buf)->getMemBufferRef());
}

namespace {

/// Builds a Request from a request file's entries and the command line.
class RequestReader {
public:
  RequestReader(SpecFile *F, const RequestOverrides &O, const Machine &M)
      : F(F), O(O), M(M) {}

  Expected<Request> read(SNode *Root) {
    Entries E;
    if (F && Root &&
        !F->entries(Root, "request",
                    {"collective", "root", "ranks", "participants",
                     "destinations", "bytes", "algorithm", "op", "datatype",
                     "commutative", "segments"},
                    E))
      return F->takeError();
    Request R;
    // collective
    std::string Coll;
    SNode *CollN = SpecFile::find(E, "collective");
    if (O.Collective) {
      Coll = *O.Collective;
      CollN = nullptr;
    } else if (!CollN) {
      return fail(Root, "missing key 'collective' in request");
    } else if (!F->string(CollN, "collective", Coll)) {
      return F->takeError();
    }
    auto C = parseCollective(Coll);
    if (!C) {
      std::vector<StringRef> Names;
      for (Collective X : allCollectives())
        Names.push_back(collectiveName(X));
      return failAt(CollN, "--collective",
                    "unknown collective '" + Coll +
                        "'; expected one of: " + joined(Names));
    }
    R.Coll = *C;

    // bytes
    SNode *BytesN = SpecFile::find(E, "bytes");
    if (O.Bytes) {
      uint64_t V;
      if (StringRef(*O.Bytes).getAsInteger(10, V) || V > MaxBytes)
        return failAt(nullptr, "--bytes",
                      "expected an integer in [0, " + std::to_string(MaxBytes) +
                          "] for 'bytes', got '" + *O.Bytes + "'");
      R.Bytes = V;
    } else if (BytesN) {
      int64_t V;
      if (!F->integer(BytesN, "bytes", V, 0, int64_t(MaxBytes)))
        return F->takeError();
      R.Bytes = static_cast<uint64_t>(V);
    } else if (R.Coll != Collective::Barrier) {
      return fail(Root, "missing key 'bytes' in request");
    }
    if (R.Coll == Collective::Barrier && R.Bytes != 0)
      return failAt(
          O.Bytes ? nullptr : BytesN, "--bytes",
          "expected 'bytes' to be 0 for a barrier (it moves no data)");

    // participants
    if (Error Err = readParticipants(Root, E, R))
      return Err;

    // reductions
    bool IsReduction =
        R.Coll == Collective::Reduce || R.Coll == Collective::Allreduce ||
        R.Coll == Collective::Scan || R.Coll == Collective::Exscan;
    SNode *OpN = SpecFile::find(E, "op"),
          *TypeN = SpecFile::find(E, "datatype");
    SNode *CommN = SpecFile::find(E, "commutative");
    if (!IsReduction) {
      for (SNode *N : {OpN, TypeN, CommN})
        if (N)
          return failAt(N, "",
                        "'op', 'datatype' and 'commutative' apply only "
                        "to reduce, allreduce, scan and exscan");
      if (O.Op || O.Datatype || O.Commutative)
        return failAt(nullptr,
                      O.Op         ? "--op"
                      : O.Datatype ? "--datatype"
                                   : "--commutative",
                      "applies only to reduce, allreduce, scan and exscan");
    } else {
      R.Op = "sum";
      R.Datatype = "int32";
      if (O.Op)
        R.Op = *O.Op;
      else if (OpN && !F->string(OpN, "op", R.Op))
        return F->takeError();
      if (O.Datatype)
        R.Datatype = *O.Datatype;
      else if (TypeN && !F->string(TypeN, "datatype", R.Datatype))
        return F->takeError();
      static const StringRef Ops[] = {"sum", "prod", "min", "max"};
      static const StringRef Types[] = {"int32", "int64", "float", "double"};
      if (!is_contained(Ops, StringRef(R.Op)))
        return failAt(O.Op ? nullptr : OpN, "--op",
                      "unknown operator '" + R.Op +
                          "'; expected one of: " + joined(Ops));
      if (!is_contained(Types, StringRef(R.Datatype)))
        return failAt(O.Datatype ? nullptr : TypeN, "--datatype",
                      "unknown datatype '" + R.Datatype +
                          "'; expected one of: " + joined(Types));
      uint64_t Size = (R.Datatype == "int32" || R.Datatype == "float") ? 4 : 8;
      if (R.Bytes % Size)
        return failAt(O.Bytes ? nullptr : BytesN, "--bytes",
                      "expected 'bytes' to be a multiple of " +
                          std::to_string(Size) + " (the size of " + R.Datatype +
                          "), got " + std::to_string(R.Bytes));
      if (O.Commutative) {
        if (*O.Commutative != "true" && *O.Commutative != "false")
          return failAt(nullptr, "--commutative",
                        "expected true or false, got '" + *O.Commutative + "'");
        R.Commutative = *O.Commutative == "true";
      } else if (CommN) {
        std::string V;
        bool Quoted = false;
        if (!F->scalar(CommN, "commutative", V, Quoted))
          return F->takeError();
        if (V != "true" && V != "false")
          return failAt(CommN, "",
                        "expected true or false for 'commutative', got '" + V +
                            "'");
        R.Commutative = V == "true";
      }
    }

    // segments
    if (O.Segments) {
      if (Error Err = optionInteger(*O.Segments, "--segments", "segments", 1,
                                    int64_t(1) << 20, R.Segments))
        return Err;
    } else if (SNode *S = SpecFile::find(E, "segments")) {
      if (!F->integer(S, "segments", R.Segments, 1, int64_t(1) << 20))
        return F->takeError();
    }

    // A size the model cannot time.
    if (Error Err = checkFiniteTimes(M, R, R.Bytes)) {
      std::string Msg = toString(std::move(Err));
      if (O.Bytes)
        return failAt(nullptr, "--bytes", Msg);
      return fail(BytesN ? BytesN : Root, Msg);
    }

    // algorithm
    SNode *AlgN = SpecFile::find(E, "algorithm");
    if (O.Algorithm) {
      R.Algorithm = *O.Algorithm;
      AlgN = nullptr;
    } else if (AlgN && !F->string(AlgN, "algorithm", R.Algorithm)) {
      return F->takeError();
    }
    if (R.Algorithm != "auto") {
      const AlgorithmInfo *A = findAlgorithm(R.Algorithm, R.Coll);
      if (!A || !A->supports(R.Coll)) {
        std::vector<StringRef> Names{"auto"};
        for (const AlgorithmInfo &X : algorithms())
          if (X.supports(R.Coll))
            Names.push_back(X.Name);
        return failAt(AlgN, "--algorithm",
                      "unknown algorithm '" + R.Algorithm + "' for " +
                          collectiveName(R.Coll) +
                          "; expected one of: " + joined(Names));
      }
      std::string Why;
      if (!A->applies(M, R, Why))
        return failAt(AlgN, "--algorithm",
                      "algorithm '" + R.Algorithm +
                          "' cannot run here: " + Why);
    }
    return R;
  }

private:
  Error fail(SNode *N, const Twine &Msg) {
    if (F && N) {
      F->error(N, Msg);
      return F->takeError();
    }
    return createStringError(inconvertibleErrorCode(), "collc: error: %s",
                             Msg.str().c_str());
  }
  /// An error at \p N in the file, or about command-line option \p Opt.
  Error failAt(SNode *N, StringRef Opt, const Twine &Msg) {
    if (F && N)
      return fail(N, Msg);
    if (Opt.empty())
      return fail(nullptr, Msg);
    return createStringError(inconvertibleErrorCode(), "collc: error: %s: %s",
                             Opt.str().c_str(), Msg.str().c_str());
  }

  /// A command-line integer in [Min, Max]; any other text, a sign or a
  /// number beyond 64 bits among them, gets the same message.
  Error optionInteger(StringRef Text, StringRef Opt, StringRef Key, int64_t Min,
                      int64_t Max, int64_t &Out) {
    if (Text.trim().getAsInteger(10, Out) || Out < Min || Out > Max)
      return failAt(nullptr, Opt,
                    "expected an integer in [" + std::to_string(Min) + ", " +
                        std::to_string(Max) + "] for '" + Key + "', got '" +
                        Text + "'");
    return Error::success();
  }

  /// Parses one node reference: a number, a coordinate list or a permutation.
  Error parseNode(SNode *N, StringRef Text, StringRef Opt, StringRef Key,
                  int64_t &Out) {
    // Coordinates in a file.
    if (N) {
      if (N->Kind == SNode::Seq) {
        if (!M.Topo.hasCoordinates())
          return failAt(N, Opt,
                        "expected a node number for '" + Key +
                            "': coordinates need a mesh, torus or hypercube");
        std::vector<int64_t> C;
        for (SNode *X : N->Items) {
          int64_t V;
          if (!F->integer(X, Key, V, 0, MaxNodes))
            return F->takeError();
          C.push_back(V);
        }
        return coordsToNode(N, Opt, Key, C, Out);
      }
      std::string S;
      bool Quoted = false;
      if (!F->scalar(N, Key, S, Quoted))
        return F->takeError();
      return textToNode(N, Opt, Key, S, Quoted, Out);
    }
    return textToNode(nullptr, Opt, Key, Text.str(), false, Out);
  }

  Error coordsToNode(SNode *N, StringRef Opt, StringRef Key,
                     const std::vector<int64_t> &C, int64_t &Out) {
    const auto &D = M.Topo.Dims;
    auto Shape = [&] {
      std::string S = "(";
      for (size_t I = 0; I < D.size(); ++I)
        S += (I ? ", " : "") + std::to_string(D[I]);
      return S + ")";
    };
    auto Written = [&] {
      std::string S = "(";
      for (size_t I = 0; I < C.size(); ++I)
        S += (I ? ", " : "") + std::to_string(C[I]);
      return S + ")";
    };
    if (C.size() != D.size())
      return failAt(N, Opt,
                    "expected " + std::to_string(D.size()) +
                        " coordinates for '" + Key + "', got " +
                        std::to_string(C.size()));
    for (size_t I = 0; I < C.size(); ++I)
      if (C[I] < 0 || C[I] >= D[I])
        return failAt(N, Opt,
                      "node " + Written() + " in '" + Key +
                          "' is outside the " + Shape() + " " +
                          topologyKindName(M.Topo.Kind));
    Out = M.Topo.nodeOf(C);
    return Error::success();
  }

  Error textToNode(SNode *N, StringRef Opt, StringRef Key, std::string S,
                   bool Quoted, int64_t &Out) {
    StringRef T = StringRef(S).trim();
    bool Perm = M.Topo.Kind == TopologyKind::Star ||
                M.Topo.Kind == TopologyKind::MacroStar;
    // On a star graph a node is a permutation ("14523") or a node number. A
    // number of S_k has fewer than k digits (k! - 1 < 10^(k-1)), so a text of
    // k symbols, a quoted one or one with letters is a permutation.
    int64_t AsNumber = 0;
    bool Number = !Quoted && !T.getAsInteger(10, AsNumber);
    if (Perm && !T.empty() && !(T.startswith("(") || T.startswith("[")) &&
        (Quoted || !Number || static_cast<int64_t>(T.size()) == M.Topo.StarK)) {
      std::string Why;
      auto Node = permutationToNode(M.Topo, T, Why);
      if (!Node && Number && AsNumber >= 0 && AsNumber < M.Topo.Nodes) {
        Out = AsNumber; // S_1: "0" is its only node
        return Error::success();
      }
      if (!Node)
        return failAt(N, Opt,
                      "expected a permutation of " +
                          std::to_string(M.Topo.StarK) + " symbols for '" +
                          Key + "', got '" + S + "': " + Why);
      Out = *Node;
      return Error::success();
    }
    if (T.startswith("(") || T.startswith("[")) {
      // Coordinates on the command line: "(3,2)" or "[3,2]".
      if (!M.Topo.hasCoordinates())
        return failAt(N, Opt,
                      "expected a node number for '" + Key +
                          "': coordinates need a mesh, torus or hypercube");
      SmallVector<StringRef, 4> Parts;
      T.drop_front().drop_back().split(Parts, ',');
      std::vector<int64_t> C;
      for (StringRef P : Parts) {
        int64_t V;
        if (P.trim().getAsInteger(10, V))
          return failAt(N, Opt,
                        "expected integer coordinates for '" + Key +
                            "', got '" + S + "'");
        C.push_back(V);
      }
      return coordsToNode(N, Opt, Key, C, Out);
    }
    int64_t V;
    StringRef Digits = T.startswith("-") ? T.drop_front() : T;
    bool Overflow = !Quoted && !Digits.empty() &&
                    Digits.find_first_not_of("0123456789") == StringRef::npos;
    std::string Shown = T.str();
    if (!Quoted && !T.getAsInteger(10, V)) {
      Shown = std::to_string(V);
    } else {
      if (!Overflow)
        return failAt(
            N, Opt,
            "expected a node number" +
                std::string(M.Topo.hasCoordinates() ? " or coordinates" : "") +
                " for '" + Key + "', got '" + S + "'");
      V = -1; // beyond 64 bits: outside the machine below
    }
    int64_t Limit = M.Topo.Nodes ? M.Topo.Nodes : MaxNodes;
    if (V < 0 || V >= Limit)
      return failAt(N, Opt,
                    "node " + Shown + " in '" + Key +
                        "' is outside the machine (nodes 0.." +
                        std::to_string(Limit - 1) + ")");
    Out = V;
    return Error::success();
  }

  /// A list of nodes from the file (sequence) or the command line.
  Error parseNodeList(SNode *N, const std::optional<std::string> &Text,
                      StringRef Opt, StringRef Key,
                      std::vector<std::pair<int64_t, SNode *>> &Out) {
    if (Text) {
      // "1,5;2,1" or "(1,5),(2,1)" for coordinates, "3,4,5" for numbers.
      std::string S = *Text;
      std::vector<std::string> Items;
      if (S.find('(') != std::string::npos ||
          S.find('[') != std::string::npos) {
        std::string Cur;
        int Depth = 0;
        for (char Ch : S) {
          if (Ch == '(' || Ch == '[')
            ++Depth;
          if (Depth > 0)
            Cur += Ch;
          if (Ch == ')' || Ch == ']') {
            --Depth;
            if (Depth == 0) {
              Items.push_back(Cur);
              Cur.clear();
            }
          }
        }
      } else if (S.find(';') != std::string::npos) {
        SmallVector<StringRef, 8> Parts;
        StringRef(S).split(Parts, ';', -1, false);
        for (StringRef P : Parts)
          Items.push_back("(" + P.trim().str() + ")");
      } else {
        SmallVector<StringRef, 8> Parts;
        StringRef(S).split(Parts, ',', -1, false);
        for (StringRef P : Parts)
          Items.push_back(P.trim().str());
      }
      for (const std::string &I : Items) {
        int64_t V;
        if (Error E = parseNode(nullptr, I, Opt, Key, V))
          return E;
        Out.push_back({V, nullptr});
      }
      return Error::success();
    }
    if (N->Kind != SNode::Seq)
      return failAt(N, Opt, "expected a list of nodes for '" + Key + "'");
    for (SNode *X : N->Items) {
      int64_t V;
      if (Error E = parseNode(X, "", Opt, Key, V))
        return E;
      Out.push_back({V, X});
    }
    return Error::success();
  }

  Error readParticipants(SNode *Root, Entries &E, Request &R) {
    SNode *RanksN = SpecFile::find(E, "ranks");
    SNode *PartsN = SpecFile::find(E, "participants");
    SNode *DestsN = SpecFile::find(E, "destinations");
    SNode *RootN = SpecFile::find(E, "root");
    bool HasRanks = O.Ranks || RanksN;
    bool HasDests = O.Destinations || DestsN;
    int64_t Limit = M.Topo.Nodes ? M.Topo.Nodes : MaxRanks;

    std::optional<int64_t> RootNode;
    if (O.Root) {
      int64_t V;
      if (Error Err = parseNode(nullptr, *O.Root, "--root", "root", V))
        return Err;
      RootNode = V;
      RootN = nullptr;
    } else if (RootN) {
      int64_t V;
      if (Error Err = parseNode(RootN, "", "--root", "root", V))
        return Err;
      RootNode = V;
    }

    std::vector<std::pair<int64_t, SNode *>> List;
    if (R.Coll == Collective::Multicast) {
      if (HasRanks || PartsN)
        return failAt(O.Ranks ? nullptr : (RanksN ? RanksN : PartsN), "--ranks",
                      "a multicast names its group by 'root' and "
                      "'destinations', not 'ranks' or 'participants'");
      if (!RootNode)
        return fail(Root,
                    "missing key 'root' in request (the multicast source)");
      if (!HasDests)
        return fail(Root, "missing key 'destinations' in request");
      List.push_back({*RootNode, RootN});
      if (Error Err = parseNodeList(DestsN, O.Destinations, "--destinations",
                                    "destinations", List))
        return Err;
      for (size_t I = 1; I < List.size(); ++I)
        if (List[I].first == *RootNode)
          return failAt(List[I].second, "--destinations",
                        "the root (node " + std::to_string(*RootNode) +
                            ") must not be among the destinations");
    } else {
      if (HasDests)
        return failAt(
            O.Destinations ? nullptr : DestsN, "--destinations",
            "'destinations' applies only to a multicast; use 'ranks' or "
            "'participants'");
      if (HasRanks && PartsN && !O.Ranks)
        return failAt(PartsN, "",
                      "give either 'ranks' or 'participants', not both");
      if (O.Ranks) {
        int64_t K;
        if (Error Err =
                optionInteger(*O.Ranks, "--ranks", "ranks", 1, Limit, K))
          return Err;
        for (int64_t I = 0; I < K; ++I)
          List.push_back({I, nullptr});
      } else if (RanksN) {
        int64_t K;
        if (!F->integer(RanksN, "ranks", K, 1, Limit))
          return F->takeError();
        for (int64_t I = 0; I < K; ++I)
          List.push_back({I, nullptr});
      } else if (PartsN) {
        if (Error Err =
                parseNodeList(PartsN, std::nullopt, "", "participants", List))
          return Err;
        if (List.empty())
          return failAt(PartsN, "", "expected at least one participant");
        if (static_cast<int64_t>(List.size()) > MaxRanks)
          return failAt(PartsN, "",
                        "expected at most " + std::to_string(MaxRanks) +
                            " participants");
      } else if (M.Topo.Nodes > 0 && M.Topo.Nodes <= MaxRanks) {
        // A topology of fixed size: every node takes part, rank = node.
        for (int64_t I = 0; I < M.Topo.Nodes; ++I)
          List.push_back({I, nullptr});
      } else {
        return fail(Root, "missing key 'ranks' or 'participants' in request");
      }
    }
    // Duplicates.
    {
      std::vector<std::pair<int64_t, size_t>> Sorted;
      for (size_t I = 0; I < List.size(); ++I)
        Sorted.push_back({List[I].first, I});
      std::sort(Sorted.begin(), Sorted.end());
      for (size_t I = 1; I < Sorted.size(); ++I)
        if (Sorted[I].first == Sorted[I - 1].first) {
          size_t Later = std::max(Sorted[I].second, Sorted[I - 1].second);
          return failAt(List[Later].second,
                        R.Coll == Collective::Multicast ? "--destinations" : "",
                        "node " + std::to_string(Sorted[I].first) +
                            " appears twice in the group");
        }
    }
    for (auto &P : List)
      R.Nodes.push_back(P.first);
    R.Root = 0;
    if (RootNode && R.Coll != Collective::Multicast) {
      auto It = std::find(R.Nodes.begin(), R.Nodes.end(), *RootNode);
      if (It == R.Nodes.end())
        return failAt(RootN, "--root",
                      "root node " + std::to_string(*RootNode) +
                          " is not a participant (the group has " +
                          std::to_string(R.Nodes.size()) + " ranks)");
      R.Root = static_cast<int32_t>(It - R.Nodes.begin());
    }
    return Error::success();
  }

  SpecFile *F;
  const RequestOverrides &O;
  const Machine &M;
};

} // namespace

Error checkFiniteTimes(const Machine &M, const Request &R, uint64_t Bytes) {
  // No transfer carries more than every block of every rank, and no route is
  // longer than the machine has nodes.
  double N = std::max<int32_t>(R.size(), 1);
  double Data =
      static_cast<double>(Bytes) * N * (R.Coll == Collective::Alltoall ? N : 1);
  uint64_t Cap = uint64_t(1) << 62;
  uint64_t B = Data < double(Cap) ? static_cast<uint64_t>(Data) : Cap;
  unsigned Hops = M.Topo.Kind == TopologyKind::Full
                      ? 1
                      : static_cast<unsigned>(std::min<int64_t>(
                            std::max<int64_t>(M.Topo.Nodes, 1), UINT32_MAX));
  double T = std::max(M.M.tHold(B), M.M.tEnd(B, Hops)) *
                 std::max(1.0, M.M.SendRecvFactor) +
             M.M.OpPerByte * static_cast<double>(B);
  if (T <= MaxTransferTime)
    return Error::success();
  return createStringError(
      inconvertibleErrorCode(),
      "a transfer of this request's data (up to %llu bytes) takes %s time "
      "units under machine '%s'; expected at most %s, so that every time of "
      "the schedule stays finite",
      static_cast<unsigned long long>(B), formatRounded(T).c_str(),
      M.Name.c_str(), SpecFile::fmt(MaxTransferTime).c_str());
}

Expected<Request> parseRequest(const MemoryBufferRef *Buffer,
                               const RequestOverrides &Overrides,
                               const Machine &M) {
  if (!Buffer) {
    RequestReader R(nullptr, Overrides, M);
    return R.read(nullptr);
  }
  SpecFile F(*Buffer);
  SNode *Root = F.root("request");
  if (!Root)
    return F.takeError();
  RequestReader R(&F, Overrides, M);
  return R.read(Root);
}

Expected<Request> loadRequest(StringRef Path, const RequestOverrides &Overrides,
                              const Machine &M) {
  if (Path.empty())
    return parseRequest(nullptr, Overrides, M);
  auto Buf = readFile(Path);
  if (!Buf)
    return Buf.takeError();
  MemoryBufferRef Ref = (*Buf)->getMemBufferRef();
  return parseRequest(&Ref, Overrides, M);
}

} // namespace collc
