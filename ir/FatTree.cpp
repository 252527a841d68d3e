#include "ir/FatTree.h"

#include <algorithm>
#include <cassert>

namespace collc {

FatTreeNetwork::FatTreeNetwork(const Topology &T)
    : L(static_cast<int32_t>(T.Levels)), Down(T.Down), Up(T.Up),
      Par(T.Parallel) {
  assert(L >= 1 && Down.size() == static_cast<size_t>(L) &&
         Up.size() == static_cast<size_t>(L) &&
         Par.size() == static_cast<size_t>(L));
  Count.assign(static_cast<size_t>(L) + 1, 1);
  for (int32_t Lv = 0; Lv <= L; ++Lv)
    for (int32_t I = 0; I < L; ++I)
      Count[Lv] *= radix(Lv, I);
  First.assign(static_cast<size_t>(L) + 2, 0);
  for (int32_t Lv = 0; Lv <= L; ++Lv)
    First[Lv + 1] = First[Lv] + Count[Lv];
}

FatTreeVertex FatTreeNetwork::vertexOf(int64_t Id) const {
  auto It = std::upper_bound(First.begin(), First.end(), Id) - 1;
  int32_t Lv = static_cast<int32_t>(It - First.begin());
  return {Lv, Id - *It};
}

int64_t FatTreeNetwork::digit(FatTreeVertex V, int32_t I) const {
  int64_t Q = V.Position;
  for (int32_t J = 0; J < I; ++J)
    Q /= radix(V.Level, J);
  return Q % radix(V.Level, I);
}

std::vector<int64_t> FatTreeNetwork::label(FatTreeVertex V) const {
  std::vector<int64_t> Out(static_cast<size_t>(L));
  int64_t Q = V.Position;
  for (int32_t I = 0; I < L; ++I) {
    Out[I] = Q % radix(V.Level, I);
    Q /= radix(V.Level, I);
  }
  return Out;
}

int64_t FatTreeNetwork::position(int32_t Level,
                                 const std::vector<int64_t> &Label) const {
  int64_t Q = 0;
  for (int32_t I = L; I-- > 0;)
    Q = Q * radix(Level, I) + Label[I];
  return Q;
}

FatTreeVertex FatTreeNetwork::parent(FatTreeVertex V, int64_t D) const {
  std::vector<int64_t> Lab = label(V);
  Lab[V.Level] = D % Up[V.Level];
  return {V.Level + 1, position(V.Level + 1, Lab)};
}

FatTreeVertex FatTreeNetwork::child(FatTreeVertex V, int64_t I) const {
  std::vector<int64_t> Lab = label(V);
  Lab[V.Level - 1] = I % Down[V.Level - 1];
  return {V.Level - 1, position(V.Level - 1, Lab)};
}

int32_t FatTreeNetwork::turnLevel(int64_t A, int64_t B) const {
  int32_t H = 0;
  for (int32_t I = 0; I < L; ++I)
    if (digit({0, A}, I) != digit({0, B}, I))
      H = I + 1;
  return H;
}

std::vector<FatTreeHop> FatTreeNetwork::route(int64_t A, int64_t B) const {
  std::vector<FatTreeHop> Out;
  if (A == B)
    return Out;
  const FatTreeVertex Dest{0, B};
  // Whether Cur is a switch above Dest: its digits from its level on are
  // Dest's.
  auto Above = [&](FatTreeVertex Cur) {
    if (Cur.Level == 0)
      return false;
    for (int32_t I = Cur.Level; I < L; ++I)
      if (digit(Cur, I) != digit(Dest, I))
        return false;
    return true;
  };
  FatTreeVertex Cur{0, A};
  while (!Above(Cur)) {
    // SimGrid's d-mod-k divides by the parents per vertex of each level
    // below, not by its parallel links.
    int64_t D = B;
    for (int32_t I = 0; I < Cur.Level; ++I)
      D /= Up[I];
    D %= Up[Cur.Level] * Par[Cur.Level];
    FatTreeVertex P = parent(Cur, D);
    Out.push_back({Cur, P, static_cast<int32_t>(D / Up[Cur.Level]), true});
    Cur = P;
  }
  // Down, as SimGrid's loop does it: the scan over the children goes on
  // from where it stopped once it moved to a child, and only starts afresh
  // (at parallel link A mod Parallel) when it runs off the end.
  while (!(Cur == Dest)) {
    int64_t D = A % Par[Cur.Level - 1];
    for (int64_t I = D * Down[Cur.Level - 1]; I < numChildren(Cur); ++I) {
      // The scan's next I with the destination's digit, found at once (the
      // loop's own steps but the one that moves, skipped).
      const int64_t Dn = Down[Cur.Level - 1];
      I += ((digit(Dest, Cur.Level - 1) - I % Dn) % Dn + Dn) % Dn;
      if (I >= numChildren(Cur))
        break;
      FatTreeVertex C = child(Cur, I);
      Out.push_back({Cur, C, static_cast<int32_t>(I / Dn), false});
      Cur = C;
    }
  }
  return Out;
}

std::string FatTreeNetwork::name(FatTreeVertex V) {
  if (V.Level == 0)
    return "p" + std::to_string(V.Position);
  return "sw(" + std::to_string(V.Level) + "," + std::to_string(V.Position) +
         ")";
}

} // namespace collc
