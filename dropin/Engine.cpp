#include "dropin/Engine.h"

#include "compiler/Driver.h"
#include "compiler/MachineSpec.h"
#include "ir/Collective.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <chrono>
#include <cmath>

using namespace llvm;

namespace collc {
namespace dropin {

namespace {

Error configError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

/// The served collective named \p Name, or an error naming \p Var.
Expected<int> collectiveNamed(StringRef Name, StringRef Var) {
  std::optional<Collective> C = parseCollective(Name.trim().str());
  if (!C || !isServedCollective(static_cast<int>(*C)))
    return configError(Var + ": unknown collective '" + Name.trim() +
                       "'; expected bcast, reduce, allreduce, scan, exscan, "
                       "gather, scatter, allgather, alltoall or barrier");
  return static_cast<int>(*C);
}

} // namespace

bool isServedCollective(int Coll) {
  return Coll >= rt::Bcast && Coll <= rt::Barrier && Coll != rt::Multicast;
}

Expected<Config> parseConfig(const char *Machine, const char *Collectives,
                             const char *Algorithm, const char *Verbose) {
  Config C;
  if (Machine)
    C.MachinePath = Machine;
  StringRef Colls = Collectives ? StringRef(Collectives).trim() : "all";
  if (Colls == "all" || Colls.empty()) {
    for (int I = 0; I <= rt::Barrier; ++I)
      C.TakeOver[I] = isServedCollective(I);
  } else {
    SmallVector<StringRef, 12> Names;
    Colls.split(Names, ',', -1, false);
    for (StringRef N : Names) {
      Expected<int> I = collectiveNamed(N, "COLLC_COLLECTIVES");
      if (!I)
        return I.takeError();
      C.TakeOver[*I] = true;
    }
  }
  if (Algorithm) {
    SmallVector<StringRef, 12> Pairs;
    StringRef(Algorithm).split(Pairs, ',', -1, false);
    for (StringRef P : Pairs) {
      auto [Name, Algo] = P.split('=');
      if (Algo.trim().empty())
        return configError("COLLC_ALGORITHM: expected collective=algorithm "
                           "(e.g. bcast=binomial,allreduce=ring), got '" +
                           P.trim() + "'");
      Expected<int> I = collectiveNamed(Name, "COLLC_ALGORITHM");
      if (!I)
        return I.takeError();
      C.Algorithm[*I] = Algo.trim().str();
    }
  }
  if (Verbose) {
    StringRef V = StringRef(Verbose).trim();
    C.Verbose = V.equals_insensitive("all") ? 2
                : (V.empty() || V == "0")   ? 0
                                            : 1;
  }
  return C;
}

int sizeBand(uint64_t Bytes) {
  return Bytes == 0 ? 0 : 64 - __builtin_clzll(Bytes);
}

std::pair<uint64_t, uint64_t> bandRange(int Band) {
  if (Band == 0)
    return {0, 0};
  uint64_t Lo = uint64_t(1) << (Band - 1);
  return {Lo, Band == 64 ? UINT64_MAX : (Lo << 1) - 1};
}

uint64_t bandBytes(int Band, uint64_t Multiple) {
  auto [Lo, Hi] = bandRange(Band);
  if (Band == 0)
    return 0;
  // sqrt(Lo * (Hi + 1)) = Lo * sqrt(2), rounded down to a multiple.
  uint64_t Mid = static_cast<uint64_t>(static_cast<double>(Lo) * M_SQRT2);
  Mid -= Mid % Multiple;
  if (Mid >= Lo && Mid <= Hi)
    return Mid;
  uint64_t Up = (Lo + Multiple - 1) / Multiple * Multiple;
  return Up <= Hi ? Up : Lo;
}

Engine::Engine(Machine M, Config C) : M(std::move(M)), C(std::move(C)) {}

Expected<std::unique_ptr<Engine>> Engine::create(Config C) {
  if (C.MachinePath.empty())
    return configError("COLLC_MACHINE is not set; expected the path of a "
                       "machine spec or a SimGrid platform file");
  Expected<Machine> M = loadMachine(C.MachinePath);
  if (!M)
    return configError("COLLC_MACHINE: " + toString(M.takeError()));
  return std::make_unique<Engine>(std::move(*M), std::move(C));
}

Expected<int64_t> Engine::nodeOfWorldRank(int64_t WorldRank,
                                          int64_t WorldSize) const {
  const unsigned PerNode = M.Net ? std::max(1u, M.Net->ProcsPerNode) : 1;
  if (M.Topo.Nodes > 0 &&
      WorldSize > M.Topo.Nodes * static_cast<int64_t>(PerNode))
    return configError("machine '" + M.Name + "' holds " +
                       Twine(M.Topo.Nodes * PerNode) +
                       " ranks; the program "
                       "runs " +
                       Twine(WorldSize));
  if (M.Net && M.Net->Placement == RankPlacement::List &&
      WorldSize > static_cast<int64_t>(M.Net->RankNodes.size()))
    return configError("machine '" + M.Name + "' places " +
                       Twine(M.Net->RankNodes.size()) +
                       " ranks; the program runs " + Twine(WorldSize));
  return M.Net ? M.Net->nodeOfRank(WorldRank, WorldSize, M.Topo.Nodes)
               : WorldRank;
}

int32_t Engine::layout(const std::vector<int64_t> &Nodes) {
  std::lock_guard<std::mutex> G(Lock);
  auto [It, New] =
      LayoutIds.try_emplace(Nodes, static_cast<int32_t>(Layouts.size()));
  if (New)
    Layouts.push_back(&It->first);
  return It->second;
}

const Entry &Engine::get(const Key &K) {
  std::lock_guard<std::mutex> G(Lock);
  auto It = Cache.find(K);
  if (It == Cache.end())
    It = Cache.emplace(K, build(K, *Layouts[K.Layout])).first;
  return *It->second;
}

std::unique_ptr<Entry> Engine::build(const Key &K,
                                     const std::vector<int64_t> &Nodes) const {
  auto T0 = std::chrono::steady_clock::now();
  auto E = std::make_unique<Entry>();
  const Collective Coll = static_cast<Collective>(K.Coll);
  Request R;
  R.Coll = Coll;
  R.Nodes = Nodes;
  R.Root = K.Root;
  R.Algorithm = C.Algorithm[K.Coll].empty() ? "auto" : C.Algorithm[K.Coll];
  R.Commutative = K.Commutative;
  if (isReduction(Coll)) {
    // The request's operator and datatype only inform the cost model: the
    // runtime folds with the call's own, in element units.
    R.Op = "sum";
    R.Datatype = "int32";
  }
  R.Bytes = Coll == Collective::Barrier
                ? 0
                : bandBytes(K.Band, isReduction(Coll) ? 4 : 1);
  auto [Lo, Hi] = Coll == Collective::Barrier
                      ? std::pair<uint64_t, uint64_t>(0, UINT64_MAX)
                      : bandRange(K.Band);
  Expected<Schedule> S = compile(M, R);
  if (!S) {
    E->Error = toString(S.takeError());
    return E;
  }
  Expected<MpiTables> T = lowerToTables(*S);
  if (!T) {
    E->Error = toString(T.takeError());
    return E;
  }
  if (!K.Commutative && T->NeedsCommutative) {
    E->Error = "the " + std::string(collectiveName(Coll)) + " schedule '" +
               S->Algorithm +
               "' folds out of rank order, and the operator is not "
               "commutative";
    return E;
  }
  E->Tables = std::move(*T);
  E->Algorithm = S->Algorithm;
  E->Makespan = S->Makespan;
  E->Variant = E->Tables.variant(*S, Lo, Hi);
  E->Variant.Algorithm = E->Algorithm.c_str();
  E->BuildSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  return E;
}

size_t Engine::size() const {
  std::lock_guard<std::mutex> G(Lock);
  return Cache.size();
}

uint64_t Engine::memoryBytes() const {
  std::lock_guard<std::mutex> G(Lock);
  uint64_t N = 0;
  for (const auto &[Nodes, Id] : LayoutIds)
    N += sizeof(Nodes) + sizeof(Id) + Nodes.capacity() * sizeof(int64_t) +
         sizeof(void *);
  for (const auto &[K, E] : Cache) {
    const MpiTables &T = E->Tables;
    N += sizeof(K) + sizeof(*E) + E->Error.capacity() +
         E->Algorithm.capacity() + T.RankOps.capacity() * sizeof(int64_t) +
         T.Ops.capacity() * sizeof(rt::Op) +
         T.Segs.capacity() * sizeof(rt::Seg);
  }
  return N;
}

} // namespace dropin
} // namespace collc
