#include "ir/Permutation.h"

#include <cassert>

namespace collc {

namespace {
const char SymbolChars[] = "123456789abcdefghijk";
}

int64_t permutationCount(int64_t K) {
  int64_t F = 1;
  for (int64_t I = 2; I <= K; ++I)
    F *= I;
  return F;
}

std::optional<std::vector<int>> parsePermutation(llvm::StringRef Text,
                                                 int64_t K, std::string &Why) {
  if (static_cast<int64_t>(Text.size()) != K) {
    Why = "expected " + std::to_string(K) + " symbols, got " +
          std::to_string(Text.size());
    return std::nullopt;
  }
  std::vector<int> P;
  std::vector<bool> Seen(K, false);
  for (char C : Text) {
    const char *Pos = std::char_traits<char>::find(SymbolChars, K, C);
    if (!Pos) {
      Why = std::string("symbol '") + C + "' is not one of " +
            std::string(SymbolChars, SymbolChars + K);
      return std::nullopt;
    }
    int V = static_cast<int>(Pos - SymbolChars);
    if (Seen[V]) {
      Why = std::string("symbol '") + C + "' appears twice";
      return std::nullopt;
    }
    Seen[V] = true;
    P.push_back(V);
  }
  return P;
}

int64_t rankSymbols(const Symbols &S, int K) {
  // The Lehmer digit of position I is the number of smaller symbols not used
  // before I.
  int64_t Rank = 0;
  uint32_t Used = 0;
  for (int I = 0; I < K; ++I) {
    Rank = Rank * (K - I) + symbolCount(((1u << S[I]) - 1) & ~Used);
    Used |= 1u << S[I];
  }
  return Rank;
}

Symbols unrankSymbols(int64_t Rank, int K) {
  int Digits[20];
  int I = K;
  // 32-bit divisions once the rank fits (all of S_10's 3628800 nodes do).
  for (; I-- > 0 && Rank > UINT32_MAX;) {
    int64_t Base = K - I;
    Digits[I] = static_cast<int>(Rank % Base);
    Rank /= Base;
  }
  for (uint32_t R = static_cast<uint32_t>(Rank); I >= 0; --I) {
    uint32_t Base = static_cast<uint32_t>(K - I);
    Digits[I] = static_cast<int>(R % Base);
    R /= Base;
  }
  Symbols P{};
  if (K <= 16) {
    // The symbols not yet placed, one per nibble in increasing order:
    // taking the d-th out is a shift of the nibbles above it.
    uint64_t Left = 0xFEDCBA9876543210ull;
    for (int I = 0; I < K; ++I) {
      unsigned Sh = 4u * static_cast<unsigned>(Digits[I]);
      P[I] = static_cast<int8_t>((Left >> Sh) & 0xF);
      uint64_t Low = Sh ? Left & ((uint64_t(1) << Sh) - 1) : 0;
      uint64_t High = Sh + 4 < 64 ? (Left >> (Sh + 4)) << Sh : 0;
      Left = Low | High;
    }
    return P;
  }
  int8_t Left[20];
  for (int V = 0; V < K; ++V)
    Left[V] = static_cast<int8_t>(V);
  int N = K;
  for (int I = 0; I < K; ++I) {
    P[I] = Left[Digits[I]];
    for (int J = Digits[I]; J + 1 < N; ++J)
      Left[J] = Left[J + 1];
    --N;
  }
  return P;
}

int64_t rankPermutation(const std::vector<int> &P) {
  assert(P.size() <= 20);
  Symbols S{};
  for (size_t I = 0; I < P.size(); ++I)
    S[I] = static_cast<int8_t>(P[I]);
  return rankSymbols(S, static_cast<int>(P.size()));
}

std::vector<int> unrankPermutation(int64_t Rank, int64_t K) {
  assert(K >= 0 && K <= 20);
  Symbols S = unrankSymbols(Rank, static_cast<int>(K));
  return std::vector<int>(S.begin(), S.begin() + K);
}

std::string formatPermutation(const std::vector<int> &P) {
  std::string S;
  for (int V : P)
    S += SymbolChars[V];
  return S;
}

} // namespace collc
