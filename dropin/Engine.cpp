#include "dropin/Engine.h"

#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "dropin/CacheFile.h"
#include "ir/Collective.h"
#include "ir/Diagnostic.h"
#include "ir/InputFile.h"
#include "readers/MachineSpec.h"
#include "readers/RequestSpec.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cassert>
#include <chrono>
#include <cmath>
#include <dlfcn.h>

using namespace llvm;

namespace collc {
namespace dropin {

namespace {

/// The version of the cache's keys: a change of what a key covers, or of
/// what the tables a schedule lowers to mean, makes older files another
/// key, never misread.
constexpr uint64_t CacheKeyVersion = 2;

/// Plain values appended to a byte string, for digests.
struct Digest {
  std::string Bytes;
  template <typename T> void put(const T &V) {
    Bytes.append(reinterpret_cast<const char *>(&V), sizeof V);
  }
  void putString(const std::string &S) {
    put<uint64_t>(S.size());
    Bytes += S;
  }
};

/// Mixes into \p D what identifies the code that builds schedules: the
/// version and the size and modification time of the file this code was
/// loaded from (the library, or a program linking the engine). Cache files
/// of another build are then never read: two builds may choose different
/// schedules, and the ranks of one run must all run the same.
uint64_t buildDigest(uint64_t D) {
  static const char Version[] = COLLC_VERSION;
  D = fnv1a(Version, sizeof Version, D);
  Dl_info Self;
  if (dladdr(reinterpret_cast<void *>(&buildDigest), &Self) && Self.dli_fname) {
    sys::fs::file_status St;
    if (!sys::fs::status(Self.dli_fname, St)) {
      uint64_t Size = St.getSize();
      int64_t Time = St.getLastModificationTime().time_since_epoch().count();
      D = fnv1a(&Size, sizeof Size, D);
      D = fnv1a(&Time, sizeof Time, D);
    }
  }
  return D;
}

double secondsSince(std::chrono::steady_clock::time_point T0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
      .count();
}

/// Why schedule \p S, read from a file, is not the one \p R asks for (empty
/// when it is): every field a build of \p R fixes.
std::string kindMismatch(const Schedule &S, const Request &R) {
  const std::string Coll = collectiveName(R.Coll);
  if (S.Coll != R.Coll)
    return "it holds " + std::string(collectiveName(S.Coll)) + ", not the " +
           Coll + " asked for";
  if (S.size() != R.size())
    return "it has " + std::to_string(S.size()) + " ranks, not " +
           std::to_string(R.size());
  for (int32_t I = 0; I < R.size(); ++I)
    if (S.Participants[I].Node != R.Nodes[I])
      return "its rank " + std::to_string(I) + " is on node " +
             std::to_string(S.Participants[I].Node) + ", not " +
             std::to_string(R.Nodes[I]);
  if (S.Root != R.Root)
    return "its root is " + std::to_string(S.Root) + ", not " +
           std::to_string(R.Root);
  if (S.Bytes != R.Bytes)
    return "it was built for " + std::to_string(S.Bytes) + " bytes, not " +
           std::to_string(R.Bytes);
  if (S.Commutative != R.Commutative || S.Op != R.Op ||
      S.Datatype != R.Datatype)
    return "its operator is not the one asked for";
  if (R.Algorithm != "auto" ? S.Algorithm != R.Algorithm
                            : !findAlgorithm(S.Algorithm, R.Coll))
    return "its algorithm '" + S.Algorithm + "' is not " +
           (R.Algorithm != "auto" ? "'" + R.Algorithm + "'"
                                  : "one of collc's " + Coll + " algorithms");
  return {};
}

} // namespace

Engine::Engine(Machine M, Config C, uint64_t MachineDigest)
    : M(std::move(M)), C(std::move(C)), MachineDigest(MachineDigest) {}

Expected<std::unique_ptr<Engine>> Engine::create(Config C) {
  if (C.MachinePath.empty())
    return error("COLLC_MACHINE is not set; expected the path of a "
                 "machine spec or a SimGrid platform file");
  // One read: the text parsed is the text the cache's keys digest.
  Expected<std::unique_ptr<MemoryBuffer>> Text = readInputFile(C.MachinePath);
  if (!Text)
    return error("COLLC_MACHINE: " + toString(Text.takeError()));
  Expected<Machine> M = parseMachine((*Text)->getMemBufferRef());
  if (!M)
    return error("COLLC_MACHINE: " + toString(M.takeError()));
  const uint64_t Digest =
      buildDigest(fnv1a((*Text)->getBufferStart(), (*Text)->getBufferSize()));
  if (!C.CacheDir.empty()) {
    if (Error E = checkPrivateDirectory(C.CacheDir)) {
      // "<dir>: error: <why>" as a note: "<dir>: <why>".
      std::string Why = toString(std::move(E));
      size_t At = Why.find(": error: ");
      if (At != std::string::npos)
        Why.erase(At, 7);
      C.Notes.push_back("COLLC_CACHE: " + Why +
                        "; schedules are built in each process, not cached");
      C.CacheDir.clear();
    }
  }
  return std::make_unique<Engine>(std::move(*M), std::move(C), Digest);
}

Error Engine::checkWorld(int64_t WorldSize) const {
  if (WorldSize < 1)
    return error("a program of " + Twine(WorldSize) + " ranks");
  Expected<int64_t> Last = nodeOfWorldRank(WorldSize - 1, WorldSize);
  return Last ? Error::success() : Last.takeError();
}

Expected<int64_t> Engine::nodeOfWorldRank(int64_t WorldRank,
                                          int64_t WorldSize) const {
  const unsigned PerNode = M.Net ? std::max(1u, M.Net->ProcsPerNode) : 1;
  if (M.Topo.Nodes > 0 &&
      WorldSize > M.Topo.Nodes * static_cast<int64_t>(PerNode))
    return error("machine '" + M.Name + "' holds " +
                 Twine(M.Topo.Nodes * PerNode) +
                 " ranks; the program "
                 "runs " +
                 Twine(WorldSize));
  if (M.Net && M.Net->Placement == RankPlacement::List &&
      WorldSize > static_cast<int64_t>(M.Net->RankNodes.size()))
    return error("machine '" + M.Name + "' places " +
                 Twine(M.Net->RankNodes.size()) + " ranks; the program runs " +
                 Twine(WorldSize));
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
  return getWhole(K);
}

const Entry &Engine::getWhole(const Key &K) {
  auto It = Cache.find(K);
  if (It != Cache.end())
    return *It->second;
  assert(K.Layout >= 0 && static_cast<size_t>(K.Layout) < Layouts.size());
  const std::vector<int64_t> &Nodes = *Layouts[K.Layout];
  Expected<Request> R = requestOf(K, Nodes);
  if (!R) {
    // A kind collc's request checks refuse: the MPI library serves it.
    auto Refused = std::make_unique<Entry>();
    Refused->Error = toString(R.takeError());
    return *Cache.emplace(K, std::move(Refused)).first->second;
  }
  std::unique_ptr<Entry> E;
  std::string Path, Why;
  uint64_t CK = 0;
  if (!C.CacheDir.empty()) {
    CK = cacheKey(K, Nodes);
    Path = cacheFilePath(C.CacheDir, CK);
    E = readCache(Path, CK, K, *R, Why);
  }
  if (!E) {
    E = build(K, *R, Path, CK);
    E->CacheNote = std::move(Why);
  }
  E->Auto = R->Algorithm == "auto";
  return *Cache.emplace(K, std::move(E)).first->second;
}

const Entry &Engine::get(const Key &K, int32_t Rank) {
  std::lock_guard<std::mutex> G(Lock);
  auto PIt = Parts.find({K, Rank});
  if (PIt != Parts.end())
    return *PIt->second;
  auto WIt = Cache.find(K);
  if (WIt != Cache.end() || Rank < 0)
    return getWhole(K);
  assert(K.Layout >= 0 && static_cast<size_t>(K.Layout) < Layouts.size());
  Expected<Request> Made = requestOf(K, *Layouts[K.Layout]);
  if (!Made) {
    // getWhole() makes it again and keeps the refusal for the kind.
    consumeError(Made.takeError());
    return getWhole(K);
  }
  const Request &R = *Made;
  if (Rank >= R.size())
    return getWhole(K);
  // A non-commutative operator: only the whole schedule says whether its
  // folds keep rank order.
  const bool PartsServe = !isReduction(R.Coll) || K.Commutative;
  std::string Algo = R.Algorithm;
  if (Algo == "auto") {
    auto CIt = Choices.find(K);
    if (CIt == Choices.end() && PartsServe && R.size() >= PricedChoiceRanks) {
      // Too many ranks to build every candidate whole: the choice by the
      // closed-form prices of the families with rank parts, the same in
      // every process.
      PricedChoice PC = choosePricedPart(M, R);
      if (PC.Algorithm)
        CIt = Choices.emplace(K, Choice{PC.Algorithm, PC.Price, true}).first;
    }
    if (CIt == Choices.end()) {
      if (!PartsServe || !C.CacheDir.empty())
        return getWhole(K);
      // The choice, from the cost model of the whole candidates: the same
      // in every process.
      auto T0 = std::chrono::steady_clock::now();
      Expected<Schedule> S = compile(M, R);
      if (!S || !rankPartBuilder(S->Algorithm, M, R)) {
        std::unique_ptr<Entry> W = wholeEntry(std::move(S), K, "", 0, T0);
        W->Auto = true;
        return *Cache.emplace(K, std::move(W)).first->second;
      }
      CIt = Choices.emplace(K, Choice{S->Algorithm, S->Makespan}).first;
    }
    Algo = CIt->second.Algorithm;
  }
  RankPartFn Build = PartsServe ? rankPartBuilder(Algo, M, R) : nullptr;
  if (!Build)
    return getWhole(K);
  std::unique_ptr<Entry> Part = buildPart(K, R, Algo, Build, Rank);
  // A part has no time of its own; `auto`'s choice priced the whole.
  if (auto CIt = Choices.find(K); CIt != Choices.end()) {
    Part->Makespan = CIt->second.Makespan;
    Part->Priced = CIt->second.Priced;
    Part->Auto = true;
  }
  return *Parts.emplace(std::make_pair(K, Rank), std::move(Part)).first->second;
}

std::unique_ptr<Entry> Engine::buildPart(const Key &K, const Request &R,
                                         const std::string &Algo,
                                         RankPartFn Build, int32_t Rank) const {
  auto T0 = std::chrono::steady_clock::now();
  auto E = std::make_unique<Entry>();
  E->Rank = Rank;
  // The checks compile() makes of a named algorithm: it applies here.
  Expected<const AlgorithmInfo *> A = lookupAlgorithm(Algo, M, R);
  if (!A) {
    E->Error = toString(A.takeError());
    return E;
  }
  Expected<Schedule> S = Build(M, R, Rank);
  if (!S) {
    E->Error = toString(S.takeError());
    return E;
  }
  Expected<MpiTables> T = lowerRankTables(*S, Rank);
  if (!T) {
    E->Error = toString(T.takeError());
    return E;
  }
  const ByteBand Band = R.Coll == Collective::Barrier
                            ? ByteBand{0, UINT64_MAX}
                            : powerOfTwoBandRange(K.Band);
  E->Tables = std::move(*T);
  // The runtime reads the tables alone; the plan holds a record per rank.
  E->Tables.Plan = PostingPlan();
  E->Algorithm = S->Algorithm;
  E->Bytes = R.Bytes;
  E->Makespan = std::nan("");
  E->Variant = E->Tables.variant(*S, Band.Lo, Band.Hi);
  E->Variant.Algorithm = E->Algorithm.c_str();
  E->BuildSeconds = secondsSince(T0);
  return E;
}

Expected<Request> Engine::requestOf(const Key &K,
                                    const std::vector<int64_t> &Nodes) const {
  const Collective Coll = static_cast<Collective>(K.Coll);
  RequestFields F;
  F.Coll = Coll;
  F.Participants = Nodes;
  if (rt::isRooted(K.Coll))
    F.RootRank = K.Root;
  F.Algorithm = C.Algorithm[K.Coll].empty() ? "auto" : C.Algorithm[K.Coll];
  if (isReduction(Coll)) {
    // The request's operator and datatype only inform the cost model: the
    // runtime folds with the call's own, in element units.
    F.Op = "sum";
    F.Datatype = "int32";
    F.Commutative = K.Commutative;
  }
  F.Bytes = Coll == Collective::Barrier
                ? 0
                : powerOfTwoBandRange(K.Band).buildBytes(messageUnit(
                      Coll, F.Datatype ? *F.Datatype : std::string(),
                      static_cast<int32_t>(Nodes.size())));
  return makeRequest(F, M);
}

uint64_t Engine::cacheKey(const Key &K,
                          const std::vector<int64_t> &Nodes) const {
  Digest D;
  D.put(CacheKeyVersion);
  D.put(MachineDigest);
  D.putString(C.Algorithm[K.Coll]);
  D.put<int32_t>(K.Coll);
  D.put<int32_t>(K.Root);
  D.put<int32_t>(K.Band);
  D.put<uint8_t>(K.Commutative);
  D.put<uint64_t>(Nodes.size());
  for (int64_t N : Nodes)
    D.put(N);
  return fnv1a(D.Bytes.data(), D.Bytes.size());
}

std::unique_ptr<Entry> Engine::readCache(const std::string &Path,
                                         uint64_t CacheKey, const Key &K,
                                         const Request &R,
                                         std::string &Why) const {
  if (!sys::fs::exists(Path))
    return nullptr;
  auto T0 = std::chrono::steady_clock::now();
  Expected<std::unique_ptr<MemoryBuffer>> Text = readCacheFile(Path);
  if (!Text) {
    Why = "the cache file " + Path + " is not used (" +
          toString(Text.takeError()) + "); the schedule is built again";
    return nullptr;
  }
  std::unique_ptr<Entry> E =
      fromCacheText((*Text)->getBuffer(), Path, CacheKey, K, R, Why);
  if (E)
    E->BuildSeconds = secondsSince(T0);
  return E;
}

std::unique_ptr<Entry> Engine::fromCacheText(StringRef Text, StringRef Path,
                                             uint64_t CacheKey, const Key &K,
                                             const Request &R,
                                             std::string &Why) const {
  auto Refuse = [&](const std::string &Reason) -> std::unique_ptr<Entry> {
    Why = "the cache file " + Path.str() + " is not used (" + Reason +
          "); the schedule is built again";
    return nullptr;
  };
  Expected<Schedule> S = parseCacheText(Text, Path, CacheKey, M);
  if (!S)
    return Refuse(toString(S.takeError()));
  std::string Mismatch = kindMismatch(*S, R);
  if (!Mismatch.empty())
    return Refuse(Mismatch);
  // The road of every schedule read from a file: costed and verified here.
  Expected<Schedule> Ok = prepareSchedule(std::move(*S), Path, &M);
  if (!Ok)
    return Refuse(toString(Ok.takeError()));
  auto E = std::make_unique<Entry>();
  if (Error Err = lower(*Ok, K, *E))
    return Refuse(toString(std::move(Err)));
  E->FromFile = true;
  return E;
}

Error Engine::lower(const Schedule &S, const Key &K, Entry &E) const {
  if (!std::isfinite(S.Makespan))
    return error("the schedule's time on machine '" + M.Name +
                 "' is not finite");
  Expected<MpiTables> T = lowerToTables(S);
  if (!T)
    return T.takeError();
  if (!K.Commutative && T->NeedsCommutative)
    return error("the " + std::string(collectiveName(S.Coll)) + " schedule '" +
                 S.Algorithm +
                 "' folds out of rank order, and the operator is not "
                 "commutative");
  if (Error Err = checkTables(*T, S.Coll, S.size(), S.Root, S.NumChunks))
    return Err;
  const ByteBand Band = S.Coll == Collective::Barrier
                            ? ByteBand{0, UINT64_MAX}
                            : powerOfTwoBandRange(K.Band);
  E.Tables = std::move(*T);
  E.Algorithm = S.Algorithm;
  E.Bytes = S.Bytes;
  E.Makespan = S.Makespan;
  E.Variant = E.Tables.variant(S, Band.Lo, Band.Hi);
  E.Variant.Algorithm = E.Algorithm.c_str();
  return Error::success();
}

std::unique_ptr<Entry> Engine::build(const Key &K, const Request &R,
                                     const std::string &CachePath,
                                     uint64_t CacheKey) const {
  auto T0 = std::chrono::steady_clock::now();
  return wholeEntry(compile(M, R), K, CachePath, CacheKey, T0);
}

std::unique_ptr<Entry>
Engine::wholeEntry(Expected<Schedule> S, const Key &K,
                   const std::string &CachePath, uint64_t CacheKey,
                   std::chrono::steady_clock::time_point T0) const {
  auto E = std::make_unique<Entry>();
  if (!S) {
    E->Error = toString(S.takeError());
    return E;
  }
  if (Error Err = lower(*S, K, *E)) {
    E->Error = toString(std::move(Err));
    return E;
  }
  E->BuildSeconds = secondsSince(T0);
  // A cache that cannot be written is no cache: the schedule still serves.
  if (!CachePath.empty())
    consumeError(writeCacheFile(CachePath, CacheKey, *S, M));
  return E;
}

size_t Engine::size() const {
  std::lock_guard<std::mutex> G(Lock);
  return Cache.size() + Parts.size();
}

uint64_t Engine::memoryBytes() const {
  std::lock_guard<std::mutex> G(Lock);
  uint64_t N = 0;
  for (const auto &[Nodes, Id] : LayoutIds)
    N += sizeof(Nodes) + sizeof(Id) + Nodes.capacity() * sizeof(int64_t) +
         sizeof(void *);
  auto Add = [&](const Entry &E) {
    const MpiTables &T = E.Tables;
    N += sizeof(Key) + sizeof(E) + E.Error.capacity() + E.Algorithm.capacity() +
         T.RankOps.capacity() * sizeof(int64_t) +
         T.Ops.capacity() * sizeof(rt::Op) +
         T.Segs.capacity() * sizeof(rt::Seg) +
         T.Waits.capacity() * sizeof(int32_t) +
         T.Plan.Ranks.capacity() * sizeof(RankPlan);
  };
  for (const auto &KE : Cache)
    Add(*KE.second);
  for (const auto &KE : Parts)
    Add(*KE.second);
  for (const auto &KA : Choices)
    N += sizeof(KA) + KA.second.Algorithm.capacity();
  return N;
}

} // namespace dropin
} // namespace collc
