/// \file
/// The drop-in library's engine: schedules built where the program runs.
///
/// libcollc-mpi.so (dropin/Interpose.cpp) interposes MPI's collectives; for
/// each call it asks this engine for a schedule of the call's *kind*:
///
///   (collective, the nodes of the communicator's ranks, root, size band,
///    commutativity of the operator)
///
/// and runs what it gets with the table runtime (runtime/collc/runtime.h).
/// The engine builds a kind's schedule on its first call with the compiler
/// library `collc` uses (compile(): build or choose with `auto`, cost,
/// verify), lowers it to tables (lowerToTables) and caches them for the
/// life of the process. Plain C++, without MPI, so that it is tested and
/// measured on its own.
///
/// Determinism: every rank of a communicator builds the same schedule for a
/// call without exchanging a message, because a kind's schedule is a pure
/// function of the machine file (the same file on every rank) and the kind,
/// whose parts are equal on every rank of a valid MPI program (the runtime's
/// choose() measures the call from arguments MPI requires to match; the
/// nodes come from world ranks and the machine's placement). Nothing of a
/// rank's own state (its rank, its earlier calls, timings, what its cache
/// already holds) enters a build: `auto` breaks ties by registry order.
///
/// The cache file (COLLC_CACHE=dir): a built kind is also written to a file
/// of that directory, named by a digest of the machine file's text, the
/// build of collc (its version, and the size and time of the file the engine
/// was loaded from), the algorithm asked for and the kind, and a later process
/// (another run, or another rank of the same run) reads it instead of building.
/// A file holds the whole kind and a checksum, and is used only when both
/// match: a file that does not is ignored and replaced. Files are written whole
/// under a temporary name and renamed, so concurrent writers of one kind (every
/// rank of a node) leave one complete file.
///
/// Size bands: band 0 is the empty message; band b >= 1 holds the sizes
/// [2^(b-1), 2^b - 1] bytes per block. A band's schedule is built for a size
/// inside it (bandBytes()) and serves every size of the band, scaling its
/// chunks, as `--mpi-sizes any` does.
#ifndef COLLC_DROPIN_ENGINE_H
#define COLLC_DROPIN_ENGINE_H

#include "backends/MpiTables.h"
#include "ir/Machine.h"
#include "runtime/collc/tables.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace collc {
namespace dropin {

/// The collectives the library takes over (the MPI entry points; multicast
/// is served through MPI_Bcast by no one here).
bool isServedCollective(int Coll);

/// What the environment asks for.
struct Config {
  /// COLLC_MACHINE: a machine spec or a SimGrid platform file.
  std::string MachinePath;
  /// COLLC_COLLECTIVES: which collectives to take over (index rt::Coll).
  std::array<bool, rt::Barrier + 1> TakeOver{};
  /// COLLC_ALGORITHM: an algorithm per collective instead of `auto`.
  std::array<std::string, rt::Barrier + 1> Algorithm;
  /// COLLC_CACHE: the directory of cache files (empty: none).
  std::string CacheDir;
  /// COLLC_VERBOSE: 0 silent, 1 rank 0 of each communicator reports each
  /// call, 2 (COLLC_VERBOSE=all) every rank does.
  int Verbose = 0;
};

/// Reads the configuration from the environment's values (null: unset).
/// COLLC_COLLECTIVES is `all` (the default) or a comma-separated list of
/// collective names (`bcast,allreduce`); COLLC_ALGORITHM a comma-separated
/// list of `collective=algorithm`. An error names the variable and says
/// what was expected.
llvm::Expected<Config> parseConfig(const char *Machine, const char *Collectives,
                                   const char *Algorithm, const char *Verbose,
                                   const char *Cache = nullptr);

/// The band of a message of \p Bytes per block.
int sizeBand(uint64_t Bytes);
/// The sizes band \p Band serves: [first, last].
std::pair<uint64_t, uint64_t> bandRange(int Band);
/// The size a band's schedule is built for: near the band's geometric
/// middle, a multiple of \p Multiple (4 for reductions, whose requests count
/// int32 elements) within the band when the band has one, else its first
/// size.
uint64_t bandBytes(int Band, uint64_t Multiple);

/// A kind of call: what its schedule depends on.
struct Key {
  int Coll = rt::Bcast;
  /// An interned node list (Engine::layout()).
  int32_t Layout = 0;
  int32_t Root = 0;
  int Band = 0;
  bool Commutative = true;

  bool operator<(const Key &O) const {
    return std::tie(Coll, Layout, Root, Band, Commutative) <
           std::tie(O.Coll, O.Layout, O.Root, O.Band, O.Commutative);
  }
};

/// A kind's schedule as the runtime runs it, or why there is none.
struct Entry {
  /// Empty when the schedule serves; else why not (the call goes to the MPI
  /// library).
  std::string Error;
  std::string Algorithm;
  MpiTables Tables;
  /// Points into Tables and Algorithm.
  rt::Variant Variant{};
  /// Wall time of build, verify and lower, in seconds.
  double BuildSeconds = 0;
  /// The schedule's time under the machine's model.
  double Makespan = 0;
  /// Read from a cache file (BuildSeconds is then the time of reading it).
  bool FromFile = false;
};

/// The machine and the cache. Thread-safe: SimGrid's SMPI runs the ranks of
/// a program in one process and shares the library between them.
class Engine {
public:
  /// \p MachineDigest identifies the machine in cache file names (a digest
  /// of its file's text).
  Engine(Machine M, Config C, uint64_t MachineDigest = 0);

  /// Reads the machine COLLC_MACHINE names (same reader as `--machine`).
  static llvm::Expected<std::unique_ptr<Engine>> create(Config C);

  const Machine &machine() const { return M; }
  const Config &config() const { return C; }

  /// The node of world rank \p WorldRank of \p WorldSize: the machine's
  /// placement (its network's; rank = node without one). Fails when the
  /// machine holds fewer ranks.
  llvm::Expected<int64_t> nodeOfWorldRank(int64_t WorldRank,
                                          int64_t WorldSize) const;
  /// Interns the node list of a communicator (index = its rank).
  int32_t layout(const std::vector<int64_t> &Nodes);

  /// The cached entry of \p K, built on first use. Never null.
  const Entry &get(const Key &K);

  /// Entries cached, and the bytes they and the node lists hold.
  size_t size() const;
  uint64_t memoryBytes() const;

private:
  std::unique_ptr<Entry> build(const Key &K,
                               const std::vector<int64_t> &Nodes) const;
  /// The cache file of \p K on \p Nodes.
  std::string cachePath(const Key &K, const std::vector<int64_t> &Nodes) const;
  std::unique_ptr<Entry> readCache(const std::string &Path, const Key &K,
                                   const std::vector<int64_t> &Nodes) const;
  void writeCache(const std::string &Path, const Key &K,
                  const std::vector<int64_t> &Nodes, const Entry &E) const;

  Machine M;
  Config C;
  uint64_t MachineDigest;
  mutable std::mutex Lock;
  std::map<std::vector<int64_t>, int32_t> LayoutIds;
  std::vector<const std::vector<int64_t> *> Layouts;
  std::map<Key, std::unique_ptr<Entry>> Cache;
};

} // namespace dropin
} // namespace collc

#endif
