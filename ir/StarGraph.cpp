#include "ir/StarGraph.h"

#include "ir/Permutation.h"

#include <cassert>
#include <utility>

namespace collc {

std::string Generator::name() const {
  return std::string(Kind == T ? "T_" : "S_") + std::to_string(Index);
}

StarGraph StarGraph::star(int K) { return macroStar(1, K - 1); }

StarGraph StarGraph::macroStar(int L, int N) {
  assert(L >= 1 && N >= 0 && N * L + 1 <= 20);
  StarGraph G;
  G.L = L;
  G.N = N;
  G.K = N * L + 1;
  G.Nodes = permutationCount(G.K);
  for (int J = 2; J <= N + 1; ++J)
    G.Gens.push_back({Generator::T, J});
  for (int I = 2; I <= L; ++I)
    G.Gens.push_back({Generator::S, I});
  return G;
}

std::optional<StarGraph> StarGraph::of(const Topology &T) {
  if (T.Kind == TopologyKind::Star)
    return star(static_cast<int>(T.StarK));
  if (T.Kind == TopologyKind::MacroStar)
    return macroStar(static_cast<int>(T.MacroL), static_cast<int>(T.MacroN));
  return std::nullopt;
}

namespace {
template <class Seq> void applyTo(int N, Generator G, Seq &P) {
  if (G.Kind == Generator::T) {
    std::swap(P[0], P[G.Index - 1]);
    return;
  }
  // Cluster 1 is positions 1..N (0-based), cluster i starts at (i-1)N + 1.
  int Base = (G.Index - 1) * N + 1;
  for (int X = 0; X < N; ++X)
    std::swap(P[1 + X], P[Base + X]);
}
} // namespace

void StarGraph::apply(Generator G, std::vector<int> &P) const {
  applyTo(N, G, P);
}

void StarGraph::apply(Generator G, Symbols &P) const { applyTo(N, G, P); }

int64_t StarGraph::neighbour(int64_t Node, Generator G) const {
  Symbols P = unrankSymbols(Node, K);
  apply(G, P);
  return rankSymbols(P, K);
}

std::optional<Generator> StarGraph::generatorBetween(int64_t A,
                                                     int64_t B) const {
  if (A == B || A < 0 || B < 0 || A >= Nodes || B >= Nodes)
    return std::nullopt;
  std::vector<int> PA = unrankPermutation(A, K), PB = unrankPermutation(B, K);
  for (Generator G : Gens) {
    std::vector<int> Q = PA;
    apply(G, Q);
    if (Q == PB)
      return G;
  }
  return std::nullopt;
}

std::string StarGraph::name(int64_t Node) const {
  return formatPermutation(unrankPermutation(Node, K));
}

std::string StarGraph::title() const {
  if (isStar())
    return "S_" + std::to_string(K);
  return "MS(" + std::to_string(L) + "," + std::to_string(N) + ")";
}

} // namespace collc
