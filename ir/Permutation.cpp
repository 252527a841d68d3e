#include "ir/Permutation.h"

namespace collc {

namespace {
const char Symbols[] = "123456789abcdefghijk";
}

int64_t permutationCount(int64_t K) {
  int64_t F = 1;
  for (int64_t I = 2; I <= K; ++I)
    F *= I;
  return F;
}

std::optional<std::vector<int>> parsePermutation(llvm::StringRef Text, int64_t K,
                                                 std::string &Why) {
  if (static_cast<int64_t>(Text.size()) != K) {
    Why = "expected " + std::to_string(K) + " symbols, got " +
          std::to_string(Text.size());
    return std::nullopt;
  }
  std::vector<int> P;
  std::vector<bool> Seen(K, false);
  for (char C : Text) {
    const char *Pos = std::char_traits<char>::find(Symbols, K, C);
    if (!Pos) {
      Why = std::string("symbol '") + C + "' is not one of " +
            std::string(Symbols, Symbols + K);
      return std::nullopt;
    }
    int V = static_cast<int>(Pos - Symbols);
    if (Seen[V]) {
      Why = std::string("symbol '") + C + "' appears twice";
      return std::nullopt;
    }
    Seen[V] = true;
    P.push_back(V);
  }
  return P;
}

int64_t rankPermutation(const std::vector<int> &P) {
  int64_t K = static_cast<int64_t>(P.size());
  int64_t Rank = 0;
  // Lehmer code: count of smaller symbols to the right, O(k^2) is fine for k <= 20.
  for (int64_t I = 0; I < K; ++I) {
    int64_t Smaller = 0;
    for (int64_t J = I + 1; J < K; ++J)
      Smaller += P[J] < P[I];
    Rank = Rank * (K - I) + Smaller;
  }
  return Rank;
}

std::vector<int> unrankPermutation(int64_t Rank, int64_t K) {
  std::vector<int> Digits(K);
  for (int64_t I = K; I-- > 0;) {
    int64_t Base = K - I;
    Digits[I] = static_cast<int>(Rank % Base);
    Rank /= Base;
  }
  std::vector<int> Left;
  for (int V = 0; V < K; ++V)
    Left.push_back(V);
  std::vector<int> P;
  for (int64_t I = 0; I < K; ++I) {
    P.push_back(Left[Digits[I]]);
    Left.erase(Left.begin() + Digits[I]);
  }
  return P;
}

std::string formatPermutation(const std::vector<int> &P) {
  std::string S;
  for (int V : P)
    S += Symbols[V];
  return S;
}

std::optional<int64_t> permutationToNode(const Topology &T, llvm::StringRef Text,
                                         std::string &Why) {
  auto P = parsePermutation(Text, T.StarK, Why);
  if (!P)
    return std::nullopt;
  return rankPermutation(*P);
}

} // namespace collc
