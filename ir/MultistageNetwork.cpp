#include "ir/MultistageNetwork.h"

#include <cassert>

namespace collc {

MinNetwork::MinNetwork(int64_t Nodes, int64_t Radix)
    : N(Nodes), K(Radix), Stages(0) {
  assert(Radix >= 2 && Nodes >= Radix);
  int64_t P = 1;
  Pow.push_back(1);
  while (P < N) {
    P *= K;
    Pow.push_back(P);
    ++Stages;
  }
  assert(P == N && "nodes must be a power of the switch radix");
  if (Stages == 0)
    Stages = 1;
}

int64_t MinNetwork::digit(int64_t X, int32_t I) const { return X / Pow[I] % K; }

int32_t MinNetwork::turnLevel(int64_t A, int64_t B) const {
  assert(A != B);
  for (int32_t I = Stages - 1; I >= 0; --I)
    if (digit(A, I) != digit(B, I))
      return I;
  return 0;
}

unsigned MinNetwork::distance(int64_t A, int64_t B) const {
  if (A == B)
    return 0;
  return 2 * static_cast<unsigned>(turnLevel(A, B) + 1);
}

MinSwitch MinNetwork::up(MinSwitch S, int64_t Port) const {
  // Replace digit S.Level of the switch index with Port.
  int64_t D = digit(S.Index, S.Level);
  return {S.Level + 1, S.Index + (Port - D) * Pow[S.Level]};
}

MinSwitch MinNetwork::down(MinSwitch S, int64_t Port) const {
  if (S.Level == 0)
    return {-1, S.Index * K + Port};
  int32_t L = S.Level - 1;
  int64_t D = digit(S.Index, L);
  return {L, S.Index + (Port - D) * Pow[L]};
}

std::vector<MinSwitch> MinNetwork::switchesOnRoute(int64_t A, int64_t B) const {
  std::vector<MinSwitch> Out;
  if (A == B)
    return Out;
  int32_t H = turnLevel(A, B);
  MinSwitch S{0, A / K};
  Out.push_back(S);
  for (int32_t L = 0; L < H; ++L) {
    S = up(S, digit(B, L + 1));
    Out.push_back(S);
  }
  for (int32_t L = H; L > 0; --L) {
    S = down(S, digit(B, L));
    Out.push_back(S);
  }
  assert(S.Level == 0 && S.Index == B / K);
  return Out;
}

std::vector<MinChannel> MinNetwork::route(int64_t A, int64_t B) const {
  std::vector<MinChannel> Out;
  if (A == B)
    return Out;
  int32_t H = turnLevel(A, B);
  Out.push_back({0, A, 0, true});
  MinSwitch S{0, A / K};
  for (int32_t L = 0; L < H; ++L) {
    int64_t Port = digit(B, L + 1);
    Out.push_back({L + 1, S.Index, static_cast<int32_t>(Port), true});
    S = up(S, Port);
  }
  for (int32_t L = H; L > 0; --L) {
    MinSwitch Below = down(S, digit(B, L));
    // The link is named by its lower end: the up port of Below that leads
    // to S is S's digit L-1.
    Out.push_back(
        {L, Below.Index, static_cast<int32_t>(digit(S.Index, L - 1)), false});
    S = Below;
  }
  Out.push_back({0, B, 0, false});
  return Out;
}

std::string MinNetwork::name(MinSwitch S) {
  if (S.Level < 0)
    return "p" + std::to_string(S.Index);
  return "sw(" + std::to_string(S.Level) + "," + std::to_string(S.Index) + ")";
}

std::string MinNetwork::name(const MinChannel &C) {
  std::string Lo = C.Level == 0 ? "p" + std::to_string(C.Lower)
                                : name(MinSwitch{C.Level - 1, C.Lower}) +
                                      ".up" + std::to_string(C.Port);
  std::string Hi = "level " + std::to_string(C.Level);
  return C.Upward ? Lo + " -> " + Hi : Hi + " -> " + Lo;
}

} // namespace collc
