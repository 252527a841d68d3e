#include "ir/Machine.h"

#include "ir/EnumNames.h"
#include "ir/FatTree.h"
#include "ir/MultistageNetwork.h"

#include "llvm/Support/ErrorHandling.h"

#include <cassert>

namespace collc {

Affine Model::holdAffine() const {
  switch (Kind) {
  case ModelKind::Parameterized:
    return Parameterized.THold;
  case ModelKind::Linear:
    return {Linear.Ts, Linear.PerByte};
  case ModelKind::UnitCall:
    return {1, 0};
  case ModelKind::Wormhole:
    return {Worm.Ss,
            Worm.Sd / static_cast<double>(Worm.FlitBytes ? Worm.FlitBytes : 1)};
  }
  llvm_unreachable("unknown model kind");
}

double Model::tHold(uint64_t Bytes) const {
  switch (Kind) {
  case ModelKind::Wormhole: {
    double Flits = static_cast<double>(Worm.flits(Bytes));
    return Worm.Ss + Flits * Worm.Sd;
  }
  default:
    return holdAffine().at(Bytes);
  }
}

double Model::tEnd(uint64_t Bytes, unsigned Hops) const {
  switch (Kind) {
  case ModelKind::Parameterized:
    return Parameterized.TEnd.at(Bytes);
  case ModelKind::Linear:
  case ModelKind::UnitCall:
    // A sender is busy for the whole transfer: t_end = t_hold.
    return holdAffine().at(Bytes);
  case ModelKind::Wormhole: {
    double Flits = static_cast<double>(Worm.flits(Bytes));
    double K = Hops == 0 ? 1 : Hops;
    return Worm.Ss + Worm.Rs + (K - 1) * Worm.Cd +
           Flits * (Worm.Sd + Worm.Cd + Worm.Rd);
  }
  }
  llvm_unreachable("unknown model kind");
}

std::vector<int64_t> Topology::coordOf(int64_t Node) const {
  std::vector<int64_t> C(Dims.size());
  for (size_t I = Dims.size(); I-- > 0;) {
    C[I] = Node % Dims[I];
    Node /= Dims[I];
  }
  return C;
}

int64_t Topology::nodeOf(const std::vector<int64_t> &Coord) const {
  assert(Coord.size() == Dims.size());
  int64_t N = 0;
  for (size_t I = 0; I < Dims.size(); ++I)
    N = N * Dims[I] + Coord[I];
  return N;
}

unsigned Topology::distance(int64_t A, int64_t B) const {
  if (A == B)
    return 0;
  switch (Kind) {
  case TopologyKind::Mesh:
  case TopologyKind::Torus:
  case TopologyKind::Hypercube: {
    unsigned D = 0;
    for (size_t I = Dims.size(); I-- > 0;) {
      int64_t X = A % Dims[I], Y = B % Dims[I];
      A /= Dims[I];
      B /= Dims[I];
      int64_t Delta = X > Y ? X - Y : Y - X;
      if (Kind == TopologyKind::Torus && Dims[I] - Delta < Delta)
        Delta = Dims[I] - Delta;
      D += static_cast<unsigned>(Delta);
    }
    return D;
  }
  case TopologyKind::Min:
    return MinNetwork(*this).distance(A, B);
  case TopologyKind::FatTree:
    return FatTreeNetwork(*this).distance(A, B);
  case TopologyKind::Cluster:
    // Up the private link, across the backbone, down the private link.
    return Backbone ? 3 : 2;
  default:
    return 1;
  }
}

const char *modelKindName(ModelKind K) {
  static constexpr const char *Names[] = {"parameterized", "linear",
                                          "unit-call", "wormhole"};
  return enumName<ModelKind::Parameterized, ModelKind::Wormhole>(K, Names);
}

const char *topologyKindName(TopologyKind K) {
  static constexpr const char *Names[] = {"full",      "mesh",     "torus",
                                          "hypercube", "star",     "macro-star",
                                          "min",       "fat-tree", "cluster"};
  return enumName<TopologyKind::Full, TopologyKind::Cluster>(K, Names);
}

} // namespace collc
