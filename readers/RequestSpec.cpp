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

/// Builds a Request from a request file's fields and the command line's.
class RequestReader {
public:
  RequestReader(Document &D, const RequestOverrides &O, const Machine &M)
      : D(D), O(O), M(M), Fields(D, Schema) {}
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
        CommandLine[] = {{O.Collective, "collective"},
                         {O.Root, "root"},
                         {O.Ranks, "ranks"},
                         {O.Destinations, "destinations"},
                         {O.Bytes, "bytes"},
                         {O.Algorithm, "algorithm"},
                         {O.Op, "op"},
                         {O.Datatype, "datatype"},
                         {O.Commutative, "commutative"},
                         {O.Segments, "segments"}};
    for (auto &[Value, Key] : CommandLine)
      if (Value)
        Fields.set(Key, D.commandLine(("--" + Key).str(), *Value));
    if (O.Ranks)
      Fields.set("participants", nullptr);

    if (!readCollective() || !readBytes() || !readParticipants() ||
        !readReduction() || !Fields.readField("segments") || !checkTimes() ||
        !readAlgorithm())
      return D.takeError();
    return R;
  }

private:
  bool readCollective() {
    if (!Fields.get("collective"))
      return D.error(Root, "missing key 'collective' in request");
    return Fields.readField("collective");
  }

  bool readBytes() {
    const DocNode *BytesN = Fields.get("bytes");
    if (!BytesN && R.Coll != Collective::Barrier)
      return D.error(Root, "missing key 'bytes' in request");
    if (!Fields.readField("bytes"))
      return false;
    if (R.Coll == Collective::Barrier && R.Bytes != 0)
      return D.error(
          BytesN, "expected 'bytes' to be 0 for a barrier (it moves no data)");
    return true;
  }

  bool readParticipants() {
    const DocNode *RanksN = Fields.get("ranks");
    const DocNode *PartsN = Fields.get("participants");
    const DocNode *DestsN = Fields.get("destinations");
    const DocNode *RootN = Fields.get("root");
    if (!Fields.readField("root"))
      return false;
    if (R.Coll == Collective::Multicast) {
      if (RanksN || PartsN)
        return D.error(RanksN ? RanksN : PartsN,
                       "a multicast names its group by 'root' and "
                       "'destinations', not 'ranks' or 'participants'");
      if (!RootNode)
        return D.error(Root,
                       "missing key 'root' in request (the multicast source)");
      if (!DestsN)
        return D.error(Root, "missing key 'destinations' in request");
      Group.push_back({*RootNode, RootN});
      if (!Fields.readField("destinations"))
        return false;
      // With several processes per node a destination may share the
      // root's node (the count below bounds them).
      for (size_t I = 1; I < Group.size() && PerNode == 1; ++I)
        if (Group[I].first == *RootNode)
          return D.error(Group[I].second,
                         "the root (node " + Twine(*RootNode) +
                             ") must not be among the destinations");
    } else {
      if (DestsN)
        return D.error(DestsN,
                       "'destinations' applies only to a multicast; use "
                       "'ranks' or 'participants'");
      if (RanksN && PartsN)
        return D.error(PartsN,
                       "give either 'ranks' or 'participants', not both");
      if (RanksN) {
        if (!Fields.readField("ranks"))
          return false;
        placeRanks(Ranks);
      } else if (PartsN) {
        if (!Fields.readField("participants"))
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
    if (RootNode && R.Coll != Collective::Multicast) {
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
        if (const DocNode *N = Fields.get(Key))
          return D.error(N, N->fromCommandLine()
                                ? "applies only to reduce, allreduce, scan "
                                  "and exscan"
                                : "'op', 'datatype' and 'commutative' apply "
                                  "only to reduce, allreduce, scan and "
                                  "exscan");
      return true;
    }
    R.Op = "sum";
    R.Datatype = "int32";
    if (!Fields.readField("op") || !Fields.readField("datatype"))
      return false;
    uint64_t Size = elementBytes(R.Datatype);
    if (R.Bytes % Size)
      return D.error(Fields.get("bytes"),
                     "expected 'bytes' to be a multiple of " + Twine(Size) +
                         " (the size of " + R.Datatype + "), got " +
                         Twine(R.Bytes));
    return Fields.readField("commutative");
  }

  /// A size the model cannot time.
  bool checkTimes() {
    if (Error Err = checkFiniteTimes(M, R, R.Bytes)) {
      const DocNode *BytesN = Fields.get("bytes");
      return D.error(BytesN ? BytesN : Root, toString(std::move(Err)));
    }
    return true;
  }

  bool readAlgorithm() {
    if (!Fields.readField("algorithm"))
      return false;
    if (R.Algorithm == "auto")
      return true;
    if (auto A = lookupAlgorithm(R.Algorithm, M, R); !A)
      return D.error(Fields.get("algorithm"), toString(A.takeError()));
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

Expected<Request> parseRequest(const MemoryBufferRef *Buffer,
                               const RequestOverrides &Overrides,
                               const Machine &M) {
  auto D = Buffer ? std::make_unique<Document>(*Buffer)
                  : std::make_unique<Document>();
  const DocNode *Root = nullptr;
  if (Buffer && !(Root = D->root("request")))
    return D->takeError();
  return RequestReader(*D, Overrides, M).read(Root);
}

Expected<Request> loadRequest(StringRef Path, const RequestOverrides &Overrides,
                              const Machine &M) {
  if (Path.empty())
    return parseRequest(nullptr, Overrides, M);
  auto Buf = readInputFile(Path);
  if (!Buf)
    return Buf.takeError();
  MemoryBufferRef Ref = (*Buf)->getMemBufferRef();
  return parseRequest(&Ref, Overrides, M);
}

} // namespace collc
