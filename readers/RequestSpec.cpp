#include "readers/RequestSpec.h"

#include "algorithms/Registry.h"
#include "ir/Format.h"
#include "ir/InputFile.h"
#include "ir/NodeRef.h"
#include "readers/Document.h"
#include "readers/NetworkSpec.h"
#include "readers/Schema.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <array>
#include <cmath>

using namespace llvm;

namespace collc {

namespace {

/// Nodes of a group, each with where it was written (null: implied).
using NodeList = std::vector<std::pair<int64_t, const DocNode *>>;

bool resolved(Document &D, const DocNode &N, Expected<int64_t> Node,
              int64_t &Out) {
  if (!Node)
    return D.error(&N, toString(Node.takeError()));
  Out = *Node;
  return true;
}

/// A node reference: coordinates as a list ([3, 2]) or text (ir/NodeRef.h).
bool readNode(Document &D, const DocNode &N, StringRef Key, const Topology &T,
              int64_t &Out) {
  if (N.Kind == DocNode::Seq) {
    if (!T.hasCoordinates())
      return D.error(&N, "expected a node number for '" + Key +
                             "': coordinates need a mesh, torus or hypercube");
    std::vector<int64_t> Coord;
    for (const DocNode *X : N.Items) {
      int64_t V;
      if (!D.integer(*X, Key, V, 0, MaxNodes))
        return false;
      Coord.push_back(V);
    }
    return resolved(D, N, nodeAtCoordinates(T, Coord, Key), Out);
  }
  if (!D.scalar(N, Key))
    return false;
  return resolved(D, N, parseNodeRef(T, N.Text, Key, N.Quoted), Out);
}

FieldReader nodeField(const Topology &T, std::optional<int64_t> &Out) {
  return [&T, &Out](Document &D, const DocNode &N, StringRef Key) {
    int64_t V;
    if (!readNode(D, N, Key, T, V))
      return false;
    Out = V;
    return true;
  };
}

/// A list of nodes: a sequence in a file, a text on the command line
/// ("3,4,5", "(1,5),(2,1)"). Appends to \p Out.
FieldReader nodeListField(const Topology &T, NodeList &Out) {
  return [&T, &Out](Document &D, const DocNode &N, StringRef Key) {
    if (N.fromCommandLine()) {
      for (const std::string &Item : splitNodeRefs(N.Text)) {
        int64_t V;
        if (!resolved(D, N, parseNodeRef(T, Item, Key), V))
          return false;
        Out.push_back({V, &N});
      }
      return true;
    }
    if (N.Kind != DocNode::Seq)
      return D.error(&N, "expected a list of nodes for '" + Key + "'");
    for (const DocNode *X : N.Items) {
      int64_t V;
      if (!readNode(D, *X, Key, T, V))
        return false;
      Out.push_back({V, X});
    }
    return true;
  };
}

FieldReader collectiveField(Collective &Out) {
  return [&Out](Document &D, const DocNode &N, StringRef Key) {
    std::string Name;
    if (!D.string(N, Key, Name))
      return false;
    auto C = parseCollective(Name);
    if (!C) {
      std::vector<StringRef> Names;
      for (Collective X : allCollectives())
        Names.push_back(collectiveName(X));
      return D.error(&N, "unknown collective '" + Name +
                             "'; expected one of: " + join(Names, ", "));
    }
    Out = *C;
    return true;
  };
}

/// Builds a Request from a program's fields, the command line's and a
/// request file's, in that order of precedence.
class RequestReader {
public:
  RequestReader(Document &D, const RequestFields &T, const RequestOverrides &O,
                const Machine &M)
      : D(D), T(T), O(O), M(M), Fields(D, Schema) {}
  /// The schema's readers store into this object.
  RequestReader(const RequestReader &) = delete;
  RequestReader &operator=(const RequestReader &) = delete;

  Expected<Request> read(const DocNode *Root) {
    this->Root = Root;
    if (Root && !Fields.checkKeys(*Root, "request"))
      return D.takeError();
    // Command-line values take the place of the file's; --ranks that of
    // `participants` too.
    const std::pair<const std::optional<std::string> &, StringRef>
        CommandLine[] = {
            {O.Collective, "collective"}, {O.Root, "root"},
            {O.Ranks, "ranks"},           {O.Destinations, "destinations"},
            {O.Algorithm, "algorithm"},   {O.Op, "op"},
            {O.Datatype, "datatype"},     {O.Commutative, "commutative"},
            {O.Segments, "segments"}};
    for (auto &[Value, Key] : CommandLine)
      if (Value)
        Fields.set(Key, D.commandLine(("--" + Key).str(), *Value));
    if (O.Ranks)
      Fields.set("participants", nullptr);
    // The program's values take the place of both; a group given as ranks
    // that of the participants, and the reverse.
    for (auto &[Key, Given] : typed())
      if (Given)
        Fields.set(Key, nullptr);
    if (T.Ranks || T.Participants) {
      Fields.set("ranks", nullptr);
      Fields.set("participants", nullptr);
    }
    if (T.BytesAt)
      Fields.set("bytes", T.BytesAt);

    if (!readCollective() || !readBytes() || !readParticipants() ||
        !readReduction() || !take("segments") || !checkTimes() ||
        !readAlgorithm())
      return D.takeError();
    return R;
  }

private:
  /// Whether field \p Key was given: by the program, on the command line or
  /// in the file.
  bool has(StringRef Key) const { return given(Key) || Fields.get(Key); }

  /// Where field \p Key was written (null: by the program, or nowhere).
  const DocNode *at(StringRef Key) const { return Fields.get(Key); }

  /// Each field of the schema and whether the program gave it.
  std::array<std::pair<StringRef, bool>, 11> typed() const {
    return {{{"collective", T.Coll.has_value()},
             {"ranks", T.Ranks.has_value()},
             {"participants", T.Participants.has_value()},
             {"destinations", T.Destinations.has_value()},
             {"root", T.Root || T.RootRank},
             {"bytes", T.Bytes.has_value()},
             {"algorithm", T.Algorithm.has_value()},
             {"op", T.Op.has_value()},
             {"datatype", T.Datatype.has_value()},
             {"commutative", T.Commutative.has_value()},
             {"segments", T.Segments.has_value()}}};
  }

  /// Whether the program gave field \p Key.
  bool given(StringRef Key) const {
    for (auto &[Name, Given] : typed())
      if (Name == Key)
        return Given;
    return false;
  }

  /// Reads field \p Key: the program's value, checked as the schema checks
  /// a written one, or else the written one (none: nothing to read).
  bool take(StringRef Key) {
    if (!given(Key))
      return Fields.readField(Key);
    if (Key == "collective")
      R.Coll = *T.Coll;
    else if (Key == "ranks")
      return integer(Key, *T.Ranks, 1, std::min(maxRanks(), MaxRanks), Ranks);
    else if (Key == "bytes" && *T.Bytes > MaxBytes)
      return D.error(at(Key), "expected an integer in [0, " + Twine(MaxBytes) +
                                  "] for 'bytes', got '" + Twine(*T.Bytes) +
                                  "'");
    else if (Key == "bytes")
      R.Bytes = *T.Bytes;
    else if (Key == "segments")
      return integer(Key, *T.Segments, 1, int64_t(1) << 20, R.Segments);
    else if (Key == "root" && T.Root)
      return node(Key, *T.Root) && (RootNode = *T.Root, true);
    else if (Key == "participants" || Key == "destinations") {
      for (int64_t V :
           Key == "participants" ? *T.Participants : *T.Destinations) {
        if (!node(Key, V))
          return false;
        Group.push_back({V, nullptr});
      }
    } else if (Key == "algorithm") {
      if (T.Algorithm->empty())
        return D.error(at(Key), "expected a non-empty string for 'algorithm'");
      R.Algorithm = *T.Algorithm;
    } else if (Key == "op" || Key == "datatype") {
      const std::string &V = Key == "op" ? *T.Op : *T.Datatype;
      ArrayRef<StringRef> Names =
          Key == "op" ? makeArrayRef(Ops) : makeArrayRef(Types);
      if (!is_contained(Names, StringRef(V)))
        return D.error(
            at(Key), "unknown " +
                         Twine(Key == "op" ? StringRef("operator") : Key) +
                         " '" + V + "'; expected one of: " + join(Names, ", "));
      (Key == "op" ? R.Op : R.Datatype) = V;
    } else if (Key == "commutative") {
      R.Commutative = *T.Commutative;
    }
    return true;
  }

  /// A program's integer for \p Key in [Min, Max], into \p Out.
  template <typename IntT>
  bool integer(StringRef Key, int64_t V, int64_t Min, int64_t Max, IntT &Out) {
    if (V < Min || V > Max)
      return D.error(at(Key), "expected an integer in [" + Twine(Min) + ", " +
                                  Twine(Max) + "] for '" + Key + "', got '" +
                                  Twine(V) + "'");
    Out = static_cast<IntT>(V);
    return true;
  }

  /// A program's node for \p Key: one of the machine's.
  bool node(StringRef Key, int64_t V) {
    const int64_t Last = M.Topo.Nodes > 0 ? M.Topo.Nodes - 1 : MaxNodes;
    if (V >= 0 && V <= Last)
      return true;
    return D.error(at(Key), "node " + Twine(V) + " in '" + Key +
                                "' is outside the machine (nodes 0.." +
                                Twine(Last) + ")");
  }

  bool readCollective() {
    if (!has("collective"))
      return D.error(Root, "missing key 'collective' in request");
    return take("collective");
  }

  bool readBytes() {
    const DocNode *BytesN = at("bytes");
    if (!has("bytes") && R.Coll != Collective::Barrier)
      return D.error(Root, "missing key 'bytes' in request");
    if (!take("bytes"))
      return false;
    if (R.Coll == Collective::Barrier && R.Bytes != 0)
      return D.error(
          BytesN, "expected 'bytes' to be 0 for a barrier (it moves no data)");
    return true;
  }

  bool readParticipants() {
    const DocNode *RanksN = at("ranks");
    const DocNode *PartsN = at("participants");
    const DocNode *DestsN = at("destinations");
    const DocNode *RootN = at("root");
    const bool HasRanks = has("ranks"), HasParts = has("participants");
    if (!take("root"))
      return false;
    if (R.Coll == Collective::Multicast) {
      if (T.RootRank)
        return D.error(RootN, "a multicast's root is its source node, not a "
                              "rank");
      if (HasRanks || HasParts)
        return D.error(RanksN ? RanksN : PartsN,
                       "a multicast names its group by 'root' and "
                       "'destinations', not 'ranks' or 'participants'");
      if (!RootNode)
        return D.error(Root,
                       "missing key 'root' in request (the multicast source)");
      if (!has("destinations"))
        return D.error(Root, "missing key 'destinations' in request");
      Group.push_back({*RootNode, RootN});
      if (!take("destinations"))
        return false;
      // With several processes per node a destination may share the
      // root's node (the count below bounds them).
      for (size_t I = 1; I < Group.size() && PerNode == 1; ++I)
        if (Group[I].first == *RootNode)
          return D.error(Group[I].second,
                         "the root (node " + Twine(*RootNode) +
                             ") must not be among the destinations");
    } else {
      if (has("destinations"))
        return D.error(DestsN,
                       "'destinations' applies only to a multicast; use "
                       "'ranks' or 'participants'");
      if (HasRanks && HasParts)
        return D.error(PartsN,
                       "give either 'ranks' or 'participants', not both");
      if (HasRanks) {
        if (!take("ranks"))
          return false;
        placeRanks(Ranks);
      } else if (HasParts) {
        if (!take("participants"))
          return false;
        if (Group.empty())
          return D.error(PartsN, "expected at least one participant");
        if (static_cast<int64_t>(Group.size()) > MaxRanks)
          return D.error(PartsN, "expected at most " + Twine(MaxRanks) +
                                     " participants");
      } else if (M.Topo.Nodes > 0 && maxRanks() <= MaxRanks) {
        // A topology of fixed size: every process takes part, placed as the
        // machine says (rank = node with one process per node).
        placeRanks(maxRanks());
      } else {
        return D.error(Root,
                       "missing key 'ranks' or 'participants' in request");
      }
    }
    // A node holds at most PerNode ranks: the lowest node with more is
    // reported at the first of its ranks beyond them.
    std::vector<std::pair<int64_t, size_t>> Sorted;
    for (size_t I = 0; I < Group.size(); ++I)
      Sorted.push_back({Group[I].first, I});
    std::sort(Sorted.begin(), Sorted.end());
    for (size_t I = PerNode; I < Sorted.size(); ++I)
      if (Sorted[I].first == Sorted[I - PerNode].first) {
        std::string Node = "node " + std::to_string(Sorted[I].first);
        return D.error(Group[Sorted[I].second].second,
                       PerNode == 1
                           ? Node + " appears twice in the group"
                           : Node + " appears more than " + Twine(PerNode) +
                                 " times in the group (the machine runs " +
                                 Twine(PerNode) + " processes per node)");
      }
    for (auto &P : Group)
      R.Nodes.push_back(P.first);
    R.Root = 0;
    if (T.RootRank && R.Coll != Collective::Multicast) {
      if (*T.RootRank < 0 || *T.RootRank >= R.size())
        return D.error(RootN, "root rank " + Twine(*T.RootRank) +
                                  " is not a participant (the group has " +
                                  Twine(R.Nodes.size()) + " ranks)");
      R.Root = *T.RootRank;
    } else if (RootNode && R.Coll != Collective::Multicast) {
      auto It = std::find(R.Nodes.begin(), R.Nodes.end(), *RootNode);
      if (It == R.Nodes.end())
        return D.error(RootN, "root node " + Twine(*RootNode) +
                                  " is not a participant (the group has " +
                                  Twine(R.Nodes.size()) + " ranks)");
      R.Root = static_cast<int32_t>(It - R.Nodes.begin());
    }
    return true;
  }

  bool readReduction() {
    if (!isReduction(R.Coll)) {
      for (StringRef Key : {"op", "datatype", "commutative"})
        if (has(Key))
          return D.error(at(Key),
                         at(Key) && at(Key)->fromCommandLine()
                             ? "applies only to reduce, allreduce, scan, "
                               "exscan and reduce-scatter"
                             : "'op', 'datatype' and 'commutative' apply "
                               "only to reduce, allreduce, scan, exscan "
                               "and reduce-scatter");
      return true;
    }
    R.Op = "sum";
    R.Datatype = "int32";
    if (!take("op") || !take("datatype"))
      return false;
    uint64_t Size = elementBytes(R.Datatype);
    if (R.Bytes % Size)
      return D.error(at("bytes"), "expected 'bytes' to be a multiple of " +
                                      Twine(Size) + " (the size of " +
                                      R.Datatype + "), got " + Twine(R.Bytes));
    // A reduce-scatter's message is the whole vector: a block of the same
    // count for every rank.
    if (R.Coll == Collective::ReduceScatter && R.size() > 0 &&
        (R.Bytes / Size) % static_cast<uint64_t>(R.size()))
      return D.error(at("bytes"),
                     "expected a reduce-scatter's 'bytes' (the whole vector) "
                     "to be a multiple of " +
                         Twine(static_cast<uint64_t>(R.size()) * Size) + " (" +
                         Twine(R.size()) + " ranks x " + Twine(Size) +
                         " bytes of " + R.Datatype + "), got " +
                         Twine(R.Bytes));
    return take("commutative");
  }

  /// A size the model cannot time.
  bool checkTimes() {
    if (Error Err = checkFiniteTimes(M, R, R.Bytes)) {
      const DocNode *BytesN = at("bytes");
      return D.error(BytesN ? BytesN : Root, toString(std::move(Err)));
    }
    return true;
  }

  bool readAlgorithm() {
    if (!take("algorithm"))
      return false;
    if (R.Algorithm == "auto")
      return true;
    if (auto A = lookupAlgorithm(R.Algorithm, M, R); !A)
      return D.error(at("algorithm"), toString(A.takeError()));
    return true;
  }

  /// Ranks 0..K-1 on the nodes the machine's placement gives them (node =
  /// rank without a network).
  void placeRanks(int64_t K) {
    for (int64_t I = 0; I < K; ++I)
      Group.push_back(
          {M.Net ? M.Net->nodeOfRank(I, K, M.Topo.Nodes) : I, nullptr});
  }

  /// The most ranks the machine holds: every process of every node (no
  /// bound on a topology without a fixed size).
  int64_t maxRanks() const {
    return M.Topo.Nodes ? M.Topo.Nodes * PerNode : MaxRanks;
  }

  static constexpr StringRef Ops[] = {"sum", "prod", "min", "max"};
  static constexpr StringRef Types[] = {"int32", "int64", "float", "double"};

  Document &D;
  const RequestFields &T;
  const RequestOverrides &O;
  const Machine &M;
  const DocNode *Root = nullptr;
  /// Processes per node: ranks that may share one.
  const unsigned PerNode = M.Net ? M.Net->ProcsPerNode : 1;
  Request R;
  std::optional<int64_t> RootNode;
  int64_t Ranks = 0;
  /// The participants in rank order; for a multicast the root first.
  NodeList Group;
  const Section Schema{
      "",
      {},
      {
          {"collective", Presence::Optional, collectiveField(R.Coll)},
          {"root", Presence::Optional, nodeField(M.Topo, RootNode)},
          {"ranks", Presence::Optional,
           integerField(Ranks, 1, std::min(maxRanks(), MaxRanks))},
          {"participants", Presence::Optional, nodeListField(M.Topo, Group)},
          {"destinations", Presence::Optional, nodeListField(M.Topo, Group)},
          {"bytes", Presence::Optional,
           integerField(R.Bytes, 0, static_cast<int64_t>(MaxBytes))},
          {"algorithm", Presence::Optional, stringField(R.Algorithm)},
          {"op", Presence::Optional, nameField(R.Op, Ops, "operator")},
          {"datatype", Presence::Optional,
           nameField(R.Datatype, Types, "datatype")},
          {"commutative", Presence::Optional, boolField(R.Commutative)},
          {"segments", Presence::Optional,
           integerField(R.Segments, 1, int64_t(1) << 20)},
      }};
  SectionReader Fields;
};

} // namespace

Error checkFiniteTimes(const Machine &M, const Request &R, uint64_t Bytes) {
  // No transfer carries more than every block of every rank, and no route is
  // longer than the machine has nodes.
  double N = std::max<int32_t>(R.size(), 1);
  double Data =
      static_cast<double>(Bytes) * N * (R.Coll == Collective::Alltoall ? N : 1);
  if (Data > static_cast<double>(MaxTransferBytes))
    return createStringError(
        inconvertibleErrorCode(),
        "a transfer of this request's data may carry up to %.0f bytes (%llu "
        "bytes x %.0f ranks%s); expected at most %llu (2^62), so that every "
        "byte count of the schedule fits in 64 bits",
        Data, static_cast<unsigned long long>(Bytes), N,
        R.Coll == Collective::Alltoall ? " x ranks" : "",
        static_cast<unsigned long long>(MaxTransferBytes));
  const uint64_t B = static_cast<uint64_t>(Data);
  unsigned Hops = M.Topo.Kind == TopologyKind::Full
                      ? 1
                      : static_cast<unsigned>(std::min<int64_t>(
                            std::max<int64_t>(M.Topo.Nodes, 1), UINT32_MAX));
  double T = std::max(M.M.tHold(B), M.M.tEnd(B, Hops)) *
                 std::max(1.0, M.M.SendRecvFactor) +
             M.M.OpPerByte * static_cast<double>(B);
  if (M.Net) {
    // The flow evaluator's times: the slowest message of the network over
    // the longest route, its envelope included, sharing its links with a
    // message of every rank.
    const Model Slowest = slowestModel(*M.Net, Hops);
    T = std::max(T, Slowest.Linear.Ts +
                        Slowest.Linear.PerByte * N *
                            (Data + static_cast<double>(M.Net->EnvelopeBytes)));
  }
  if (T <= MaxTransferTime)
    return Error::success();
  return createStringError(
      inconvertibleErrorCode(),
      "a transfer of this request's data (up to %llu bytes) takes %s time "
      "units under machine '%s'; expected at most %s, so that every time of "
      "the schedule stays finite",
      static_cast<unsigned long long>(B), formatRounded(T).c_str(),
      M.Name.c_str(), formatBound(MaxTransferTime).c_str());
}

RequestDocument::RequestDocument() : D(std::make_unique<Document>()) {}
RequestDocument::~RequestDocument() = default;

Expected<std::unique_ptr<RequestDocument>>
RequestDocument::parse(MemoryBufferRef Buffer) {
  auto Doc = std::make_unique<RequestDocument>();
  Doc->D = std::make_unique<Document>(Buffer);
  if (!(Doc->Root = Doc->D->root("request")))
    return Doc->D->takeError();
  return Doc;
}

Expected<std::unique_ptr<RequestDocument>>
RequestDocument::read(StringRef Path) {
  if (Path.empty())
    return std::make_unique<RequestDocument>();
  auto Buf = readInputFile(Path);
  if (!Buf)
    return Buf.takeError();
  auto Doc = parse((*Buf)->getMemBufferRef());
  if (Doc)
    (*Doc)->Owned = std::move(*Buf);
  return Doc;
}

void RequestDocument::commandLineBytes(StringRef Text, RequestFields &F) {
  F.BytesAt = D->commandLine("--bytes", Text);
  F.Bytes.reset();
  int64_t V;
  // A text that is no size is read again by makeRequest, which says why.
  Document Quiet;
  if (Quiet.integer(*F.BytesAt, "bytes", V, 0, static_cast<int64_t>(MaxBytes)))
    F.Bytes = static_cast<uint64_t>(V);
  else
    consumeError(Quiet.takeError());
}

Expected<Request> makeRequest(const RequestFields &F, const Machine &M,
                              RequestDocument *From,
                              const RequestOverrides &Text) {
  RequestDocument None;
  RequestDocument &Doc = From ? *From : None;
  return RequestReader(*Doc.D, F, Text, M).read(Doc.Root);
}

Expected<Request> parseRequest(const MemoryBufferRef *Buffer,
                               const RequestOverrides &Overrides,
                               const Machine &M, const RequestFields &F) {
  if (!Buffer)
    return makeRequest(F, M, nullptr, Overrides);
  auto Doc = RequestDocument::parse(*Buffer);
  if (!Doc)
    return Doc.takeError();
  return makeRequest(F, M, Doc->get(), Overrides);
}

Expected<Request> loadRequest(StringRef Path, const RequestOverrides &Overrides,
                              const Machine &M, const RequestFields &F) {
  auto Doc = RequestDocument::read(Path);
  if (!Doc)
    return Doc.takeError();
  return makeRequest(F, M, Doc->get(), Overrides);
}

} // namespace collc
