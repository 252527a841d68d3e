#include "dropin/Engine.h"

#include "compiler/Driver.h"
#include "compiler/MachineSpec.h"
#include "ir/Collective.h"
#include "ir/InputFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <chrono>
#include <cmath>
#include <cstring>
#include <dlfcn.h>

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

/// FNV-1a, 64 bits: file names and checksums of cache files.
uint64_t fnv(const void *P, size_t N, uint64_t H = 0xcbf29ce484222325ULL) {
  const unsigned char *B = static_cast<const unsigned char *>(P);
  for (size_t I = 0; I < N; ++I)
    H = (H ^ B[I]) * 0x100000001b3ULL;
  return H;
}

/// What identifies a cache file's format: a change of the table structs
/// makes older files unreadable, never misread.
constexpr uint64_t CacheMagic = 0x31706f7264636c63ULL; // "clcdrop1"
constexpr uint64_t CacheLayout = sizeof(rt::Op) << 16 | sizeof(rt::Seg);

/// Appends plain values to a byte string.
struct Writer {
  std::string Bytes;
  template <typename T> void put(const T &V) {
    Bytes.append(reinterpret_cast<const char *>(&V), sizeof V);
  }
  void putString(const std::string &S) {
    put<uint64_t>(S.size());
    Bytes += S;
  }
  template <typename T> void putArray(const std::vector<T> &V) {
    put<uint64_t>(V.size());
    Bytes.append(reinterpret_cast<const char *>(V.data()),
                 V.size() * sizeof(T));
  }
};

/// Reads what Writer wrote; every read is bounds-checked (Ok turns false).
struct Reader {
  StringRef Bytes;
  size_t At = 0;
  bool Ok = true;
  template <typename T> T get() {
    T V{};
    if (!Ok || Bytes.size() - At < sizeof V) {
      Ok = false;
      return V;
    }
    std::memcpy(&V, Bytes.data() + At, sizeof V);
    At += sizeof V;
    return V;
  }
  std::string getString() {
    uint64_t N = get<uint64_t>();
    if (!Ok || Bytes.size() - At < N) {
      Ok = false;
      return {};
    }
    std::string S = Bytes.substr(At, N).str();
    At += N;
    return S;
  }
  template <typename T> std::vector<T> getArray() {
    uint64_t N = get<uint64_t>();
    if (!Ok || (Bytes.size() - At) / sizeof(T) < N) {
      Ok = false;
      return {};
    }
    std::vector<T> V(N);
    std::memcpy(V.data(), Bytes.data() + At, N * sizeof(T));
    At += N * sizeof(T);
    return V;
  }
};

/// The kind a cache file holds, as written first in it.
void putKind(Writer &W, uint64_t MachineDigest, const std::string &Asked,
             const Key &K, const std::vector<int64_t> &Nodes) {
  W.put(CacheMagic);
  W.put(CacheLayout);
  W.put(MachineDigest);
  W.putString(Asked);
  W.put<int32_t>(K.Coll);
  W.put<int32_t>(K.Root);
  W.put<int32_t>(K.Band);
  W.put<uint8_t>(K.Commutative);
  W.putArray(Nodes);
}

/// Whether the tables are ones the runtime can run for \p Ranks ranks.
bool wellFormed(const MpiTables &T, int64_t Ranks) {
  if (static_cast<int64_t>(T.RankOps.size()) != Ranks + 1 ||
      T.RankOps.front() != 0 ||
      T.RankOps.back() != static_cast<int64_t>(T.Ops.size()))
    return false;
  for (size_t I = 1; I < T.RankOps.size(); ++I)
    if (T.RankOps[I] < T.RankOps[I - 1])
      return false;
  for (const rt::Op &O : T.Ops)
    if (O.Peer < 0 || O.Peer >= Ranks || O.Seg < 0 || O.NumSegs < 0 ||
        static_cast<uint64_t>(O.Seg) + static_cast<uint64_t>(O.NumSegs) >
            T.Segs.size())
      return false;
  for (const rt::Seg &G : T.Segs)
    if (G.Buf > rt::ResultBuf || G.Block < 0 || G.NumBlocks < 0 ||
        G.ChunkLo < 0 || G.ChunkHi < G.ChunkLo)
      return false;
  // Every operation's record of staging and waits (runtime/collc/tables.h)
  // lies within Waits and names operations of its own rank.
  const int64_t NW = static_cast<int64_t>(T.Waits.size());
  for (int64_t R = 0; R < Ranks; ++R) {
    const int64_t NumOps = T.RankOps[R + 1] - T.RankOps[R];
    for (int64_t I = T.RankOps[R]; I < T.RankOps[R + 1]; ++I) {
      const int64_t W = T.Ops[I].Wait;
      if (W < 0 || W + 3 > NW || T.Waits[W] < -1 || T.Waits[W + 1] < 0 ||
          T.Waits[W + 2] < 0 ||
          W + 3 + int64_t(T.Waits[W + 1]) + T.Waits[W + 2] > NW)
        return false;
      for (int64_t J = W + 3; J < W + 3 + T.Waits[W + 1] + T.Waits[W + 2]; ++J)
        if (T.Waits[J] < 0 || T.Waits[J] >= NumOps)
          return false;
    }
  }
  return true;
}

/// Mixes into \p Digest what identifies the code that builds schedules: the
/// version and the size and modification time of the file this code was
/// loaded from (the library, or a program linking the engine). Cache files
/// of another build are then never read: two builds may choose different
/// schedules, and the ranks of one run must all run the same.
uint64_t buildDigest(uint64_t Digest) {
  static const char Version[] = COLLC_VERSION;
  Digest = fnv(Version, sizeof Version, Digest);
  Dl_info Self;
  if (dladdr(reinterpret_cast<void *>(&buildDigest), &Self) && Self.dli_fname) {
    sys::fs::file_status St;
    if (!sys::fs::status(Self.dli_fname, St)) {
      uint64_t Size = St.getSize();
      int64_t Time = St.getLastModificationTime().time_since_epoch().count();
      Digest = fnv(&Size, sizeof Size, Digest);
      Digest = fnv(&Time, sizeof Time, Digest);
    }
  }
  return Digest;
}

} // namespace

bool isServedCollective(int Coll) {
  return Coll >= rt::Bcast && Coll <= rt::Barrier && Coll != rt::Multicast;
}

Expected<Config> parseConfig(const char *Machine, const char *Collectives,
                             const char *Algorithm, const char *Verbose,
                             const char *Cache) {
  Config C;
  if (Machine)
    C.MachinePath = Machine;
  if (Cache)
    C.CacheDir = Cache;
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

Engine::Engine(Machine M, Config C, uint64_t MachineDigest)
    : M(std::move(M)), C(std::move(C)), MachineDigest(MachineDigest) {}

Expected<std::unique_ptr<Engine>> Engine::create(Config C) {
  if (C.MachinePath.empty())
    return configError("COLLC_MACHINE is not set; expected the path of a "
                       "machine spec or a SimGrid platform file");
  // Read once: the digest is of the bytes the machine was parsed from. A
  // FIFO or a device there is refused before anything is read.
  Expected<std::unique_ptr<MemoryBuffer>> Text = readInputFile(C.MachinePath);
  if (!Text)
    return configError("COLLC_MACHINE: " + toString(Text.takeError()));
  Expected<Machine> M = parseMachine((*Text)->getMemBufferRef());
  if (!M)
    return configError("COLLC_MACHINE: " + toString(M.takeError()));
  const uint64_t Digest =
      buildDigest(fnv((*Text)->getBufferStart(), (*Text)->getBufferSize()));
  return std::make_unique<Engine>(std::move(*M), std::move(C), Digest);
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
  if (It != Cache.end())
    return *It->second;
  assert(K.Layout >= 0 && static_cast<size_t>(K.Layout) < Layouts.size());
  const std::vector<int64_t> &Nodes = *Layouts[K.Layout];
  std::unique_ptr<Entry> E;
  std::string Path;
  if (!C.CacheDir.empty()) {
    Path = cachePath(K, Nodes);
    E = readCache(Path, K, Nodes);
  }
  if (!E) {
    E = build(K, Nodes);
    if (!Path.empty() && E->Error.empty())
      writeCache(Path, K, Nodes, *E);
  }
  return *Cache.emplace(K, std::move(E)).first->second;
}

std::string Engine::cachePath(const Key &K,
                              const std::vector<int64_t> &Nodes) const {
  Writer W;
  putKind(W, MachineDigest, C.Algorithm[K.Coll], K, Nodes);
  SmallString<256> P(C.CacheDir);
  sys::path::append(
      P, "collc-" + utohexstr(fnv(W.Bytes.data(), W.Bytes.size()), true) +
             ".tables");
  return std::string(P);
}

std::unique_ptr<Entry>
Engine::readCache(const std::string &Path, const Key &K,
                  const std::vector<int64_t> &Nodes) const {
  auto T0 = std::chrono::steady_clock::now();
  ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(Path);
  if (!File)
    return nullptr;
  StringRef Bytes = (*File)->getBuffer();
  Writer Want;
  putKind(Want, MachineDigest, C.Algorithm[K.Coll], K, Nodes);
  if (Bytes.size() < Want.Bytes.size() + sizeof(uint64_t) ||
      !Bytes.startswith(Want.Bytes))
    return nullptr;
  uint64_t Sum = 0;
  std::memcpy(&Sum, Bytes.end() - sizeof Sum, sizeof Sum);
  StringRef Body = Bytes.drop_back(sizeof Sum);
  if (fnv(Body.data(), Body.size()) != Sum)
    return nullptr;
  Reader R{Body, Want.Bytes.size()};
  auto E = std::make_unique<Entry>();
  E->Algorithm = R.getString();
  E->Makespan = R.get<double>();
  rt::Variant &V = E->Variant;
  V.Collective = K.Coll;
  V.Ranks = static_cast<int32_t>(Nodes.size());
  V.Root = K.Root;
  V.MinBytes = R.get<uint64_t>();
  V.MaxBytes = R.get<uint64_t>();
  V.NumChunks = R.get<int64_t>();
  E->Tables.ScratchBlocks = V.ScratchBlocks = R.get<int64_t>();
  E->Tables.NeedsCommutative = V.NeedsCommutative = R.get<uint8_t>() != 0;
  E->Tables.RankOps = R.getArray<int64_t>();
  E->Tables.Ops = R.getArray<rt::Op>();
  E->Tables.Segs = R.getArray<rt::Seg>();
  E->Tables.Waits = R.getArray<int32_t>();
  if (!R.Ok || R.At != Body.size() || V.NumChunks < 1 ||
      !wellFormed(E->Tables, V.Ranks) || (!K.Commutative && V.NeedsCommutative))
    return nullptr;
  V.Algorithm = E->Algorithm.c_str();
  V.RankOps = E->Tables.RankOps.data();
  V.Ops = E->Tables.Ops.data();
  V.Segs = E->Tables.Segs.data();
  V.Waits = E->Tables.Waits.data();
  E->FromFile = true;
  E->BuildSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  return E;
}

void Engine::writeCache(const std::string &Path, const Key &K,
                        const std::vector<int64_t> &Nodes,
                        const Entry &E) const {
  Writer W;
  putKind(W, MachineDigest, C.Algorithm[K.Coll], K, Nodes);
  const rt::Variant &V = E.Variant;
  W.putString(E.Algorithm);
  W.put(E.Makespan);
  W.put(V.MinBytes);
  W.put(V.MaxBytes);
  W.put<int64_t>(V.NumChunks);
  W.put<int64_t>(V.ScratchBlocks);
  W.put<uint8_t>(V.NeedsCommutative);
  W.putArray(E.Tables.RankOps);
  W.putArray(E.Tables.Ops);
  W.putArray(E.Tables.Segs);
  W.putArray(E.Tables.Waits);
  W.put(fnv(W.Bytes.data(), W.Bytes.size()));
  // A cache that cannot be written is no cache: the schedule still serves.
  int FD = -1;
  SmallString<256> Tmp;
  if (sys::fs::createUniqueFile(Path + ".%%%%%%%%.tmp", FD, Tmp))
    return;
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << W.Bytes;
    OS.close();
    if (OS.has_error()) {
      OS.clear_error();
      sys::fs::remove(Tmp);
      return;
    }
  }
  if (sys::fs::rename(Tmp, Path))
    sys::fs::remove(Tmp);
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
         T.Segs.capacity() * sizeof(rt::Seg) +
         T.Waits.capacity() * sizeof(int32_t);
  }
  return N;
}

} // namespace dropin
} // namespace collc
