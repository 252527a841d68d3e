#include "readers/RequestSet.h"

#include "ir/Diagnostic.h"
#include "ir/NodeRef.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace llvm;

namespace collc {

namespace {

/// A list's items, or none when the option was not given (the request
/// file's value, or the default, then applies: one "item" of no text).
using Items = std::vector<std::optional<std::string>>;

/// The items of an optional list option, each at most once.
Expected<Items> listItems(const std::optional<std::string> &Text,
                          StringRef Option) {
  if (!Text)
    return Items{std::nullopt};
  auto Split = splitListOption(*Text, Option);
  if (!Split)
    return Split.takeError();
  // One value goes to the request reader as written, as it always did.
  if (Split->size() == 1)
    return Items{*Text};
  std::set<std::string> Seen;
  Items Out;
  for (std::string &Item : *Split) {
    if (!Seen.insert(Item).second)
      return error("%s: '%s' appears twice in '%s'", Option.str().c_str(),
                   Item.c_str(), Text->c_str());
    Out.push_back(std::move(Item));
  }
  return Out;
}

/// What `--root` asks for.
struct Roots {
  bool All = false;
  Items List; ///< Without All: the nodes as written (or one empty item).
};

/// The words of a combination: "bcast on 5 ranks, root 3, 1024 bytes".
std::string label(const std::optional<std::string> &Coll,
                  const std::optional<std::string> &Ranks,
                  const std::optional<std::string> &Root,
                  const std::optional<std::string> &Bytes,
                  const std::optional<ByteBand> &Range) {
  std::string L = Coll ? *Coll : std::string("the request");
  if (Ranks)
    L += " on " + *Ranks + " ranks";
  if (Root)
    L += ", root " + *Root;
  if (Range)
    L += ", bytes " + std::to_string(Range->Lo) + ":" +
         std::to_string(Range->Hi);
  else if (Bytes)
    L += ", " + *Bytes + " bytes";
  return L;
}

/// Expands the options into requests, combination by combination.
class Expander {
public:
  Expander(StringRef Path, const RequestSetOptions &O, const Machine &M)
      : Path(Path), O(O), M(M) {}

  Expected<RequestSet> run() {
    auto C = listItems(O.Fields.Collective, "--collective");
    if (!C)
      return C.takeError();
    Colls = std::move(*C);
    if (O.Fields.Ranks &&
        StringRef(*O.Fields.Ranks).find_first_of(",:") == StringRef::npos) {
      Ranks.push_back(O.Fields.Ranks); // one size, read as it always was
    } else if (O.Fields.Ranks) {
      auto K = parseRankList(*O.Fields.Ranks, MaxRanks);
      if (!K)
        return K.takeError();
      for (int64_t V : *K)
        Ranks.push_back(std::to_string(V));
    } else {
      Ranks.push_back(std::nullopt);
    }
    if (O.Fields.Root && StringRef(*O.Fields.Root).trim() == "all") {
      RootList.All = true;
    } else {
      auto R = listItems(O.Fields.Root, "--root");
      if (!R)
        return R.takeError();
      RootList.List = std::move(*R);
    }
    if (O.Range && O.Bytes)
      return error("--bytes and --bytes-range do not go together: give "
                   "sizes or a range");
    auto B = listItems(O.Bytes, "--bytes");
    if (!B)
      return B.takeError();
    Sizes = std::move(*B);
    // Each size is read once, here; a band's requests are read at size 0.
    for (const auto &Size : Sizes)
      if (Size)
        CommandLine.commandLineBytes(*Size, SizeFields[*Size]);
    if (O.Range)
      CommandLine.commandLineBytes("0", RangeFields);
    Out.Range = O.Range;

    for (const auto &Coll : Colls)
      if (RootList.All && Coll &&
          parseCollective(*Coll) == Collective::Multicast)
        return error("--root all: a multicast's group is its source and "
                     "destinations; give the source with --root");
    // The largest group first: more ranks than the machine holds is said
    // before the count of combinations.
    if (Ranks.size() > 1)
      if (auto Probe = probe(Colls[0], largestGroup()); !Probe)
        return Probe.takeError();
    uint64_t Count = count();
    if (Count > O.MaxRequests)
      return error("the options ask for %llu requests (every combination of "
                   "--collective, --ranks, --root and --bytes); at most %llu "
                   "are allowed: give fewer values, or raise the cap with "
                   "--max-requests N",
                   static_cast<unsigned long long>(Count),
                   static_cast<unsigned long long>(O.MaxRequests));
    for (const auto &Coll : Colls)
      if (Error E = expandCollective(Coll))
        return E;
    return std::move(Out);
  }

private:
  /// Whether the command names more than one combination (then errors say
  /// which one failed).
  bool several() const {
    return Colls.size() > 1 || Ranks.size() > 1 || Sizes.size() > 1 ||
           RootList.All || RootList.List.size() > 1;
  }

  /// The group size of --ranks with the most ranks.
  std::optional<std::string> largestGroup() const {
    return *std::max_element(Ranks.begin(), Ranks.end(), [](auto &A, auto &B) {
      return groupSize(A) < groupSize(B);
    });
  }

  /// The number a group size's text holds (0 for none or no number).
  static uint64_t groupSize(const std::optional<std::string> &K) {
    uint64_t V = 0;
    if (!K || StringRef(*K).trim().getAsInteger(10, V))
      return 0;
    return V;
  }

  /// The request of a group without a root from the command line: its
  /// collective and its nodes. A multicast cannot be read without its
  /// source: it is read with the first root.
  Expected<Request> probe(const std::optional<std::string> &Coll,
                          const std::optional<std::string> &K) {
    auto P = load(Coll, K, std::nullopt, sizesOf(Coll)[0]);
    if (P || RootList.All || !RootList.List[0])
      return P;
    consumeError(P.takeError());
    return load(Coll, K, RootList.List[0], sizesOf(Coll)[0]);
  }

  /// The sizes of \p Coll: a barrier moves no data, and in a list of
  /// collectives it takes none.
  const Items &sizesOf(const std::optional<std::string> &Coll) const {
    static const Items NoSize{std::nullopt};
    return Colls.size() > 1 && Coll &&
                   parseCollective(*Coll) == Collective::Barrier
               ? NoSize
               : Sizes;
  }

  /// The request file, read the first time a request needs it.
  Expected<RequestDocument *> file() {
    if (!File) {
      auto D = RequestDocument::read(Path);
      if (!D)
        return D.takeError();
      File = std::move(*D);
    }
    return File.get();
  }

  /// The combination's request, made and checked.
  Expected<Request> load(const std::optional<std::string> &Coll,
                         const std::optional<std::string> &K,
                         const std::optional<std::string> &Root,
                         const std::optional<std::string> &Bytes) {
    RequestOverrides F = O.Fields;
    F.Collective = Coll;
    F.Ranks = K;
    F.Root = Root;
    const RequestFields &Typed = O.Range ? RangeFields
                                 : Bytes ? SizeFields.at(*Bytes)
                                         : NoFields;
    auto Doc = file();
    auto R = Doc ? makeRequest(Typed, M, *Doc, F)
                 : Expected<Request>(Doc.takeError());
    if (R && O.Range)
      if (Error E = checkFiniteTimes(M, *R, O.Range->Hi))
        R = error("--bytes-range: " + toString(std::move(E)));
    if (R && O.Check)
      if (Error E = O.Check(*R))
        R = std::move(E);
    if (!R && several())
      return inCombination(R.takeError(), label(Coll, K, Root, Bytes, O.Range));
    return R;
  }

  /// Upper bound of the combinations, before any is read: a collective
  /// whose name is not known yet counts as rooted.
  uint64_t count() const {
    uint64_t N = 0;
    for (const auto &Coll : Colls) {
      std::optional<Collective> C =
          Coll ? parseCollective(*Coll) : std::nullopt;
      const bool Rooted = !C || isRooted(*C);
      const uint64_t PerSize = sizesOf(Coll).size();
      for (const auto &K : Ranks) {
        uint64_t Roots = Rooted ? RootList.List.size() : 1;
        if (RootList.All && Rooted)
          Roots = std::max<uint64_t>(groupSize(K), 1);
        N += Roots * PerSize;
      }
    }
    return N;
  }

  Error expandCollective(const std::optional<std::string> &Coll) {
    // Roots (as written) that are a node of some group, and the groups
    // each other one is not a node of.
    std::set<std::string> Placed;
    std::map<std::string, std::vector<std::string>> Skipped;
    for (const auto &K : Ranks) {
      auto Probe = probe(Coll, K);
      if (!Probe)
        return Probe.takeError();
      const Request &P = *Probe;
      const bool Rooted = isRooted(P.Coll);
      Items Roots;
      if (!Rooted)
        Roots = RootList.List.size() == 1 && !RootList.All ? RootList.List
                                                           : Items{{}};
      else if (RootList.All)
        for (int64_t Node : P.Nodes)
          Roots.push_back(std::to_string(Node));
      else
        for (const auto &Root : RootList.List) {
          if (Root && P.Coll != Collective::Multicast && !isNodeOf(*Root, P)) {
            Skipped[*Root].push_back(K ? *K : "");
            continue;
          }
          if (Root)
            Placed.insert(*Root);
          Roots.push_back(Root);
        }
      for (const auto &Root : Roots)
        for (const auto &Bytes : sizesOf(Coll)) {
          auto R = load(Coll, K, Root, Bytes);
          if (!R)
            return R.takeError();
          Out.Requests.push_back(
              {std::move(*R),
               label(Coll ? Coll
                          : std::optional<std::string>(collectiveName(R->Coll)),
                     K, Root, Bytes, Out.Range)});
        }
    }
    return noteSkipped(Coll, Placed, Skipped);
  }

  /// Whether the node \p Root names is one of \p P's; a text that names no
  /// node counts as one (reading it then says what is wrong).
  bool isNodeOf(const std::string &Root, const Request &P) const {
    auto Node = parseNodeRef(M.Topo, Root, "root");
    if (!Node) {
      consumeError(Node.takeError());
      return true;
    }
    return std::find(P.Nodes.begin(), P.Nodes.end(), *Node) != P.Nodes.end();
  }

  /// One note per root left out of some groups; a root left out of every
  /// group is the error reading it with the largest group gives.
  Error
  noteSkipped(const std::optional<std::string> &Coll,
              const std::set<std::string> &Placed,
              const std::map<std::string, std::vector<std::string>> &Skipped) {
    for (const auto &[Root, Groups] : Skipped) {
      if (Placed.count(Root))
        continue;
      auto R = load(Coll, largestGroup(), Root, sizesOf(Coll)[0]);
      if (!R)
        return R.takeError();
      return error("--root %s is among the nodes of no group", Root.c_str());
    }
    for (const auto &Root : RootList.List)
      if (auto It = Root ? Skipped.find(*Root) : Skipped.end();
          It != Skipped.end())
        Out.Notes.push_back((Coll ? *Coll : std::string("the request")) +
                            ": root " + *Root +
                            " is not a node of the groups of " +
                            join(It->second, ", ") + " ranks: skipped there");
    return Error::success();
  }

  StringRef Path;
  const RequestSetOptions &O;
  const Machine &M;
  std::unique_ptr<RequestDocument> File;
  /// Holds the --bytes values as read.
  RequestDocument CommandLine;
  /// Each --bytes item's byte count (by its text), that of --bytes-range's
  /// requests, and none.
  std::map<std::string, RequestFields> SizeFields;
  RequestFields RangeFields, NoFields;
  Items Colls, Ranks, Sizes;
  Roots RootList;
  RequestSet Out;
};

} // namespace

Expected<std::vector<std::string>> splitListOption(StringRef Text,
                                                   StringRef Option) {
  std::vector<std::string> Out;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I <= Text.size(); ++I) {
    char C = I < Text.size() ? Text[I] : ',';
    if (C == '(' || C == '[')
      ++Depth;
    else if ((C == ')' || C == ']') && Depth > 0)
      --Depth;
    if (C != ',' || (Depth > 0 && I < Text.size()))
      continue;
    StringRef Item = Text.slice(Start, I).trim();
    if (Item.empty())
      return error("%s: expected a list of values separated by commas, got "
                   "'%s'",
                   Option.str().c_str(), Text.str().c_str());
    Out.push_back(Item.str());
    Start = I + 1;
  }
  return Out;
}

Expected<std::vector<int64_t>> parseRankList(StringRef Text, uint64_t Limit) {
  auto Split = splitListOption(Text, "--ranks");
  if (!Split)
    return Split.takeError();
  std::vector<int64_t> Out;
  std::set<int64_t> Seen;
  for (const std::string &Item : *Split) {
    auto [L, H] = StringRef(Item).split(':');
    uint64_t Lo = 0, Hi = 0;
    const bool Range = StringRef(Item).contains(':');
    if (L.trim().getAsInteger(10, Lo) ||
        (Range ? H.trim().getAsInteger(10, Hi) : (Hi = Lo, false)) || Lo < 1 ||
        Lo > Hi || Hi > Limit)
      return error("--ranks: expected a group size in [1, %llu] or a range "
                   "LO:HI of them with LO <= HI, got '%s'",
                   static_cast<unsigned long long>(Limit), Item.c_str());
    for (uint64_t K = Lo; K <= Hi; ++K) {
      if (!Seen.insert(static_cast<int64_t>(K)).second)
        return error("--ranks: %llu appears twice in '%s'",
                     static_cast<unsigned long long>(K), Text.str().c_str());
      Out.push_back(static_cast<int64_t>(K));
    }
  }
  return Out;
}

Expected<RequestSet> expandRequests(StringRef Path, const RequestSetOptions &O,
                                    const Machine &M) {
  return Expander(Path, O, M).run();
}

Error inCombination(Error E, StringRef Label) {
  const std::string Pre = Label.str() + ": ";
  return handleErrors(
      std::move(E),
      [&](const LocatedError &L) -> Error {
        return make_error<LocatedError>(
            L.message() + "\ncollc: note: in the request for " + Label.str());
      },
      [&](const CheckFailure &C) -> Error {
        return make_error<CheckFailure>(Pre + C.message());
      },
      [&](const InternalError &I) -> Error {
        return make_error<InternalError>(Pre + I.message());
      },
      [&](const ErrorInfoBase &B) -> Error {
        return error(Pre + B.message());
      });
}

llvm::Expected<ByteBand> parseBytesRange(llvm::StringRef Text) {
  auto [L, H] = Text.split(':');
  uint64_t Lo = 0, Hi = 0;
  if (!Text.contains(':') || L.trim().getAsInteger(10, Lo) ||
      H.trim().getAsInteger(10, Hi) || Lo > Hi || Hi > MaxBytes)
    return error("--bytes-range: expected LO:HI with 0 <= LO <= HI <= %llu, "
                 "got '%s'",
                 static_cast<unsigned long long>(MaxBytes), Text.str().c_str());
  return ByteBand{Lo, Hi};
}

} // namespace collc
