#include "ir/NodeRef.h"

#include "ir/Permutation.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

using namespace llvm;

namespace collc {

namespace {

Error fail(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

bool isPermutationTopology(const Topology &T) {
  return T.Kind == TopologyKind::Star || T.Kind == TopologyKind::MacroStar;
}

} // namespace

Expected<int64_t> nodeAtCoordinates(const Topology &T, ArrayRef<int64_t> Coord,
                                    StringRef Key) {
  const std::vector<int64_t> &D = T.Dims;
  if (Coord.size() != D.size())
    return fail("expected " + Twine(D.size()) + " coordinates for '" + Key +
                "', got " + Twine(Coord.size()));
  for (size_t I = 0; I < Coord.size(); ++I)
    if (Coord[I] < 0 || Coord[I] >= D[I])
      return fail("node " + formatCoordinates(Coord, ", ") + " in '" + Key +
                  "' is outside the " + formatCoordinates(D, ", ") + " " +
                  topologyKindName(T.Kind));
  return T.nodeOf(Coord.vec());
}

Expected<int64_t> parseNodeRef(const Topology &T, StringRef Text, StringRef Key,
                               bool Quoted) {
  StringRef S = Text.trim();
  bool Bracketed = S.startswith("(") || S.startswith("[");
  int64_t AsNumber = 0;
  bool Number = !Quoted && !S.getAsInteger(10, AsNumber);
  if (isPermutationTopology(T) && !S.empty() && !Bracketed &&
      (Quoted || !Number || static_cast<int64_t>(S.size()) == T.StarK)) {
    std::string Why;
    if (auto P = parsePermutation(S, T.StarK, Why))
      return rankPermutation(*P);
    if (Number && AsNumber >= 0 && AsNumber < T.Nodes)
      return AsNumber; // S_1: "0" is its only node
    return fail("expected a permutation of " + Twine(T.StarK) +
                " symbols for '" + Key + "', got '" + Text + "': " + Why);
  }
  if (Bracketed) {
    if (!T.hasCoordinates())
      return fail("expected a node number for '" + Key +
                  "': coordinates need a mesh, torus or hypercube");
    SmallVector<StringRef, 4> Parts;
    S.drop_front().drop_back().split(Parts, ',');
    std::vector<int64_t> Coord;
    for (StringRef P : Parts) {
      int64_t V;
      if (P.trim().getAsInteger(10, V))
        return fail("expected integer coordinates for '" + Key + "', got '" +
                    Text + "'");
      Coord.push_back(V);
    }
    return nodeAtCoordinates(T, Coord, Key);
  }
  int64_t V;
  std::string Shown = S.str();
  if (Number) {
    V = AsNumber;
    Shown = std::to_string(V);
  } else {
    StringRef Digits = S.startswith("-") ? S.drop_front() : S;
    bool Overflow = !Quoted && !Digits.empty() &&
                    Digits.find_first_not_of("0123456789") == StringRef::npos;
    if (!Overflow)
      return fail("expected a node number" +
                  Twine(T.hasCoordinates() ? " or coordinates" : "") +
                  " for '" + Key + "', got '" + Text + "'");
    V = -1; // beyond 64 bits: outside the machine below
  }
  int64_t Limit = T.Nodes ? T.Nodes : MaxNodes;
  if (V < 0 || V >= Limit)
    return fail("node " + Shown + " in '" + Key +
                "' is outside the machine (nodes 0.." + Twine(Limit - 1) + ")");
  return V;
}

std::vector<std::string> splitNodeRefs(StringRef Text) {
  std::vector<std::string> Items;
  if (Text.find_first_of("([") != StringRef::npos) {
    // Only what stands inside the outermost brackets counts.
    std::string Cur;
    int Depth = 0;
    for (char Ch : Text) {
      if (Ch == '(' || Ch == '[')
        ++Depth;
      if (Depth > 0)
        Cur += Ch;
      if ((Ch == ')' || Ch == ']') && --Depth == 0) {
        Items.push_back(Cur);
        Cur.clear();
      }
    }
    return Items;
  }
  SmallVector<StringRef, 8> Parts;
  bool Coordinates = Text.contains(';');
  Text.split(Parts, Coordinates ? ';' : ',', -1, false);
  for (StringRef P : Parts)
    Items.push_back(Coordinates ? "(" + P.trim().str() + ")" : P.trim().str());
  return Items;
}

std::string formatCoordinates(ArrayRef<int64_t> Coord, StringRef Separator) {
  std::string S = "(";
  for (size_t I = 0; I < Coord.size(); ++I) {
    if (I)
      S += Separator;
    S += std::to_string(Coord[I]);
  }
  return S + ")";
}

} // namespace collc
