#include "readers/Schema.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;

namespace collc {

std::string quoted(StringRef Key) { return "'" + Key.str() + "'"; }

bool SectionReader::checkKeys(const DocNode &Map, StringRef Where) {
  std::vector<StringRef> Keys;
  if (!S.KindNames.empty())
    Keys.push_back("kind");
  for (const Field &F : S.Fields)
    if (!is_contained(Keys, F.Name))
      Keys.push_back(F.Name);
  if (Map.Kind != DocNode::Map)
    return D.error(&Map,
                   "expected a mapping" +
                       (S.ShowKeysWhenNotAMap ? " {" + join(Keys, ", ") + "}"
                                              : std::string()) +
                       " for " + Where);
  StringSet<> Seen;
  for (auto [K, V] : Map.Entries) {
    if (!K || K->Kind != DocNode::Scalar)
      return D.error(K ? K : &Map, "expected a plain key in " + Where);
    const std::string &Key = K->Text;
    if (!is_contained(Keys, StringRef(Key)))
      return D.error(K, "unknown key '" + Key + "' in " + Where +
                            "; expected one of: " + join(Keys, ", "));
    if (!Seen.insert(Key).second)
      return D.error(K, "duplicate key '" + Key + "' in " + Where);
    if (!V || V->Kind == DocNode::Null)
      return D.error(V ? V : K, "expected a value for '" + Key + "'");
    Values.push_back({Key, V});
  }
  return true;
}

bool SectionReader::read(const DocNode &Map, StringRef Where) {
  if (!checkKeys(Map, Where))
    return false;
  if (S.KindNames.empty())
    return readFields(Map, /*OfKind=*/false, Where);
  const DocNode *KindNode = get("kind");
  if (!KindNode)
    return D.error(&Map, "missing key 'kind' in " + Where);
  std::string KindName;
  if (!D.string(*KindNode, "kind", KindName))
    return false;
  // The fields of every kind, then the kind's own.
  if (!readFields(Map, /*OfKind=*/false, Where))
    return false;
  auto It = find(S.KindNames, KindName);
  if (It == S.KindNames.end())
    return D.error(KindNode,
                   "unknown " + S.Noun + " kind '" + KindName +
                       "'; expected one of: " + join(S.KindNames, ", "));
  Kind = static_cast<unsigned>(It - S.KindNames.begin());
  std::vector<StringRef> Own;
  for (const Field &F : S.Fields)
    if (ofKind(F))
      Own.push_back(F.Name);
  std::string InKind = "a " + KindName + " " + S.Noun.str();
  for (auto &[Key, V] : Values)
    if (!ofEveryKind(Key) && !is_contained(Own, Key))
      return D.error(V, "'" + Key + "' does not apply to " + InKind + "; " +
                            (Own.empty() ? std::string("it takes no parameters")
                                         : "expected: " + join(Own, ", ")));
  return readFields(Map, /*OfKind=*/true, InKind);
}

bool SectionReader::readFields(const DocNode &Map, bool OfKind, StringRef In) {
  auto Picked = [&](const Field &F) {
    return OfKind ? ofKind(F) : F.Kinds == AllKinds;
  };
  for (const Field &F : S.Fields)
    if (Picked(F) && F.Need == Presence::Required && !get(F.Name))
      return D.error(&Map, "missing key '" + F.Name + "' in " + In);
  for (const Field &F : S.Fields)
    if (Picked(F) && !readField(F))
      return false;
  return true;
}

const DocNode *SectionReader::get(StringRef Key) const {
  for (auto &[K, V] : Values)
    if (K == Key)
      return V;
  return nullptr;
}

void SectionReader::set(StringRef Key, const DocNode *V) {
  auto It = find_if(Values, [&](auto &KV) { return KV.first == Key; });
  if (It == Values.end()) {
    if (V)
      Values.push_back({Key, V});
  } else if (V) {
    It->second = V;
  } else {
    Values.erase(It);
  }
}

bool SectionReader::readField(StringRef Key) {
  for (const Field &F : S.Fields)
    if (F.Name == Key && appliesToKind(F))
      return readField(F);
  llvm_unreachable("a key the section does not have");
}

bool SectionReader::readField(const Field &F) {
  const DocNode *V = get(F.Name);
  return !V || F.Read(D, *V, F.Name);
}

bool SectionReader::appliesToKind(const Field &F) const {
  return F.Kinds & (KindSet(1) << Kind);
}

bool SectionReader::ofEveryKind(StringRef Key) const {
  return Key == "kind" || any_of(S.Fields, [&](const Field &F) {
           return F.Kinds == AllKinds && F.Name == Key;
         });
}

bool SectionReader::ofKind(const Field &F) const {
  return F.Kinds != AllKinds && appliesToKind(F);
}

FieldReader numberField(double &Out, double Min, double Max) {
  return [&Out, Min, Max](Document &D, const DocNode &N, StringRef Key) {
    return D.number(N, Key, Out, Min, Max);
  };
}

FieldReader stringField(std::string &Out) {
  return [&Out](Document &D, const DocNode &N, StringRef Key) {
    return D.string(N, Key, Out);
  };
}

FieldReader nameField(std::string &Out, ArrayRef<StringRef> Names,
                      StringRef What) {
  return [&Out, Names, What](Document &D, const DocNode &N, StringRef Key) {
    std::string V;
    if (!D.string(N, Key, V))
      return false;
    if (!is_contained(Names, StringRef(V)))
      return D.error(&N, "unknown " + What + " '" + V +
                             "'; expected one of: " + join(Names, ", "));
    Out = V;
    return true;
  };
}

FieldReader boolField(bool &Out) {
  return [&Out](Document &D, const DocNode &N, StringRef Key) {
    if (!D.scalar(N, Key))
      return false;
    if (N.Text != "true" && N.Text != "false")
      return D.error(&N, "expected true or false for '" + Key + "', got '" +
                             N.Text + "'");
    Out = N.Text == "true";
    return true;
  };
}

} // namespace collc
