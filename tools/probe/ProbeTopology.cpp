#include "tools/probe/ProbeTopology.h"

#include "passes/Routes.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <map>

namespace collc::probe {

namespace {

llvm::Error bad(llvm::StringRef Text, const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "--topology: " + Why + " in '" + Text + "'");
}

/// "4,4" -> {4, 4}: positive integers up to \p Max each.
llvm::Expected<std::vector<int64_t>> readList(llvm::StringRef Whole,
                                              llvm::StringRef List, int64_t Min,
                                              int64_t Max) {
  std::vector<int64_t> Out;
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  List.split(Parts, ',');
  for (llvm::StringRef P : Parts) {
    int64_t V = 0;
    if (P.trim().getAsInteger(10, V) || V < Min || V > Max)
      return bad(Whole, "expected integers in [" + llvm::Twine(Min) + ", " +
                            llvm::Twine(Max) + "], got '" + P + "'");
    Out.push_back(V);
  }
  return Out;
}

const int64_t MaxNodes = int64_t(1) << 24;

llvm::Error checkProduct(llvm::StringRef Whole, const std::vector<int64_t> &V) {
  int64_t P = 1;
  for (int64_t X : V) {
    if (P > MaxNodes / X)
      return bad(Whole, "more than 2^24 nodes");
    P *= X;
  }
  return llvm::Error::success();
}

std::string join(const std::vector<int64_t> &V, const char *Sep) {
  std::string S;
  for (size_t I = 0; I < V.size(); ++I)
    S += (I ? Sep : "") + std::to_string(V[I]);
  return S;
}

} // namespace

llvm::Expected<ProbeTopology> parseProbeTopology(llvm::StringRef Text) {
  auto [Name, Params] = Text.split(':');
  bool HasParams = Text.contains(':');
  ProbeTopology T;
  if (Name == "full" || Name == "cluster") {
    T.K = Name == "full" ? ProbeTopology::Full : ProbeTopology::Cluster;
    if (HasParams) {
      auto N = readList(Text, Params, 1, MaxNodes);
      if (!N)
        return N.takeError();
      if (N->size() != 1)
        return bad(Text, "expected one node count");
      T.Nodes = N->front();
    }
    if (T.K == ProbeTopology::Full) {
      T.Collc.Kind = TopologyKind::Full;
      T.Collc.Nodes = T.Nodes;
    }
    return T;
  }
  if (Name == "mesh" || Name == "torus") {
    if (!HasParams)
      return bad(Text, "expected the extents, e.g. " + Name + ":4,4");
    auto Dims = readList(Text, Params, 1, MaxNodes);
    if (!Dims)
      return Dims.takeError();
    if (auto E = checkProduct(Text, *Dims))
      return E;
    T.K = Name == "mesh" ? ProbeTopology::Mesh : ProbeTopology::Torus;
    T.Collc.Kind = Name == "mesh" ? TopologyKind::Mesh : TopologyKind::Torus;
    T.Collc.Dims = *Dims;
    T.Collc.Nodes = 1;
    for (int64_t D : *Dims)
      T.Collc.Nodes *= D;
    return T;
  }
  if (Name == "hypercube") {
    auto D = readList(Text, Params, 0, 24);
    if (!HasParams || !D || D->size() != 1) {
      if (!D)
        llvm::consumeError(D.takeError());
      return bad(Text, "expected the dimension in [0, 24], e.g. hypercube:4");
    }
    T.K = ProbeTopology::Hypercube;
    T.Collc.Kind = TopologyKind::Hypercube;
    T.Collc.Dims.assign(static_cast<size_t>(D->front()), 2);
    T.Collc.Nodes = int64_t(1) << D->front();
    return T;
  }
  if (Name == "fat-tree") {
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    Params.split(Parts, ';');
    int64_t Levels = 0;
    if (!HasParams || Parts.size() != 4 || Parts[0].getAsInteger(10, Levels) ||
        Levels < 1 || Levels > 16)
      return bad(Text, "expected 'levels;down1,..;up1,..;parallel1,..' with "
                       "1..16 levels, e.g. fat-tree:2;4,4;1,2;1,2");
    std::vector<int64_t> *Into[] = {&T.Down, &T.Up, &T.Parallel};
    for (size_t I = 0; I < 3; ++I) {
      auto L = readList(Text, Parts[I + 1], 1, MaxNodes);
      if (!L)
        return L.takeError();
      if (static_cast<int64_t>(L->size()) != Levels)
        return bad(Text,
                   "expected " + llvm::Twine(Levels) + " values per list");
      *Into[I] = *L;
    }
    if (auto E = checkProduct(Text, T.Down))
      return E;
    T.K = ProbeTopology::FatTree;
    return T;
  }
  return bad(Text, "expected full, cluster, mesh:..., torus:..., "
                   "hypercube:D, fat-tree:... or discover");
}

int64_t ProbeTopology::nodeCount(int64_t Found) const {
  switch (K) {
  case Full:
  case Cluster:
    return Nodes ? Nodes : Found;
  case Mesh:
  case Torus:
  case Hypercube:
    return Collc.Nodes;
  case FatTree: {
    int64_t P = 1;
    for (int64_t D : Down)
      P *= D;
    return P;
  }
  }
  return Found;
}

unsigned ProbeTopology::hops(int64_t A, int64_t B) const {
  if (A == B)
    return 0;
  switch (K) {
  case Full:
    return 1;
  case Cluster:
    return 2;
  case Mesh:
  case Torus:
  case Hypercube:
    return Collc.distance(A, B);
  case FatTree: {
    int64_t Group = 1;
    for (size_t L = 0; L < Down.size(); ++L) {
      Group *= Down[L];
      if (A / Group == B / Group)
        return static_cast<unsigned>(2 * (L + 1));
    }
    return static_cast<unsigned>(2 * Down.size());
  }
  }
  return 1;
}

unsigned
ProbeTopology::sharedFirstLink(int64_t Src,
                               const std::vector<int64_t> &Dsts) const {
  // Routes per first link, a link named by the vertex it leads to.
  std::map<int64_t, unsigned> PerLink;
  unsigned Routes = 0;
  std::vector<Channel> Route;
  for (int64_t D : Dsts) {
    if (D == Src)
      continue;
    ++Routes;
    switch (K) {
    case Full:
      ++PerLink[D];
      break;
    case Cluster:
      ++PerLink[0];
      break;
    case Mesh:
    case Torus:
    case Hypercube:
      Route.clear();
      if (llvm::Error E = appendRoute(Collc, Src, D, Route))
        llvm::consumeError(std::move(E)); // every kind here is routed
      ++PerLink[Route.empty() ? D : Route.front().To];
      break;
    case FatTree:
      break;
    }
  }
  if (K == FatTree) {
    // The first level spreads routes over up1 * parallel1 links.
    unsigned Links = static_cast<unsigned>(Up.front() * Parallel.front());
    return (Routes + Links - 1) / Links;
  }
  unsigned Most = 0;
  for (const auto &[Link, N] : PerLink)
    Most = std::max(Most, N);
  return Most;
}

std::vector<std::string> ProbeTopology::linkClasses() const {
  switch (K) {
  case Cluster:
    return {"private"};
  case FatTree: {
    std::vector<std::string> C;
    for (size_t L = 1; L <= Down.size(); ++L)
      C.push_back("level-" + std::to_string(L));
    return C;
  }
  default:
    return {"link"};
  }
}

std::string ProbeTopology::yaml(int64_t N) const {
  switch (K) {
  case Full:
    return "{kind: full, nodes: " + std::to_string(N) + "}";
  case Cluster:
    return "{kind: cluster, nodes: " + std::to_string(N) + ", backbone: false}";
  case Mesh:
  case Torus:
    return std::string("{kind: ") + (K == Mesh ? "mesh" : "torus") +
           ", dims: [" + join(Collc.Dims, ", ") + "]}";
  case Hypercube:
    return "{kind: hypercube, dimension: " + std::to_string(Collc.Dims.size()) +
           "}";
  case FatTree:
    return "{kind: fat-tree, levels: " + std::to_string(Down.size()) +
           ", down: [" + join(Down, ", ") + "], up: [" + join(Up, ", ") +
           "], parallel: [" + join(Parallel, ", ") + "]}";
  }
  return "{kind: full}";
}

std::string ProbeTopology::text() const {
  switch (K) {
  case Full:
  case Cluster: {
    std::string S = K == Full ? "full" : "cluster";
    return Nodes ? S + ":" + std::to_string(Nodes) : S;
  }
  case Mesh:
  case Torus:
    return std::string(K == Mesh ? "mesh:" : "torus:") + join(Collc.Dims, ",");
  case Hypercube:
    return "hypercube:" + std::to_string(Collc.Dims.size());
  case FatTree:
    return "fat-tree:" + std::to_string(Down.size()) + ";" + join(Down, ",") +
           ";" + join(Up, ",") + ";" + join(Parallel, ",");
  }
  return "full";
}

std::vector<Partner> choosePartners(const std::vector<int64_t> &RankNodes,
                                    const ProbeTopology &T) {
  std::vector<Partner> Inter, Intra;
  const int64_t Home = RankNodes.empty() ? 0 : RankNodes.front();
  for (size_t R = 1; R < RankNodes.size(); ++R) {
    int Rank = static_cast<int>(R);
    if (RankNodes[R] == Home)
      Intra.push_back({Rank, 1, true});
    else
      Inter.push_back({Rank, T.hops(Home, RankNodes[R]), false});
  }
  std::stable_sort(
      Inter.begin(), Inter.end(),
      [](const Partner &A, const Partner &B) { return A.Hops < B.Hops; });
  std::vector<Partner> Chosen;
  auto Add = [&](const Partner &P) {
    for (const Partner &C : Chosen)
      if (C.Rank == P.Rank)
        return;
    Chosen.push_back(P);
  };
  const std::vector<Partner> &Spread = Inter.empty() ? Intra : Inter;
  if (!Spread.empty()) {
    Add(Spread.front());
    Add(Spread[Spread.size() / 2]);
    Add(Spread.back());
  }
  if (!Inter.empty() && !Intra.empty())
    Add(Intra.front());
  return Chosen;
}

std::vector<int> chooseFanPeers(const std::vector<int64_t> &RankNodes,
                                const ProbeTopology &T, unsigned Max) {
  if (RankNodes.empty())
    return {};
  const int64_t Home = RankNodes.front();
  // Every rank but 0, nearest first.
  std::vector<Partner> Candidates;
  for (size_t R = 1; R < RankNodes.size(); ++R)
    Candidates.push_back({static_cast<int>(R), T.hops(Home, RankNodes[R]),
                          RankNodes[R] == Home});
  std::stable_sort(
      Candidates.begin(), Candidates.end(),
      [](const Partner &A, const Partner &B) { return A.Hops < B.Hops; });
  bool AnyInter = std::any_of(Candidates.begin(), Candidates.end(),
                              [](const Partner &P) { return !P.Intra; });
  if (AnyInter)
    Candidates.erase(std::remove_if(Candidates.begin(), Candidates.end(),
                                    [](const Partner &P) { return P.Intra; }),
                     Candidates.end());

  std::vector<int> Peers;
  std::vector<int64_t> Nodes;
  std::vector<bool> Taken(Candidates.size(), false);
  auto Take = [&](size_t I) {
    Taken[I] = true;
    Peers.push_back(Candidates[I].Rank);
    Nodes.push_back(RankNodes[Candidates[I].Rank]);
  };
  // Pass 0: a link not used yet; pass 1: a node not used yet; pass 2: any.
  for (int Pass = 0; Pass < 3; ++Pass)
    for (size_t I = 0; I < Candidates.size() && Peers.size() < Max; ++I) {
      if (Taken[I])
        continue;
      int64_t Node = RankNodes[Candidates[I].Rank];
      bool NewNode = std::find(Nodes.begin(), Nodes.end(), Node) == Nodes.end();
      if (Pass == 0) {
        if (!AnyInter || !NewNode)
          continue;
        std::vector<int64_t> With = Nodes;
        With.push_back(Node);
        if (T.sharedFirstLink(Home, With) > 1)
          continue;
      } else if (Pass == 1 && !NewNode) {
        continue;
      }
      Take(I);
    }
  return Peers;
}

} // namespace collc::probe
