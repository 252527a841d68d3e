#include "ir/Collective.h"

#include <cstring>

namespace collc {

const char *withArticle(Collective C) {
  return std::strchr("aeiou", collectiveName(C)[0]) ? "an" : "a";
}

std::optional<Collective> parseCollective(const std::string &Name) {
  for (const CollectiveTraits &T : CollectiveTable)
    if (Name == T.Name)
      return T.Coll;
  return std::nullopt;
}

const std::vector<Collective> &allCollectives() {
  static const std::vector<Collective> All = [] {
    std::vector<Collective> V;
    for (const CollectiveTraits &T : CollectiveTable)
      V.push_back(T.Coll);
    return V;
  }();
  return All;
}

} // namespace collc
