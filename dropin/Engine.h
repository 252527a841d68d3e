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
/// The cache (COLLC_CACHE=dir, dropin/CacheFile.h): a built kind's schedule
/// is also written to a file of that directory, and a later process (another
/// run, or another rank of the same run) reads it instead of building. What
/// it reads it trusts no more than a `--schedule` file: the schedule must be
/// the kind asked for, is costed and verified on the machine, lowered to
/// tables here, and the tables checked (checkTables) before first use. A file
/// that fails any of it is rebuilt and replaced, and the entry says why
/// (Entry::CacheNote), for the library to say once.
///
/// A rank's part (algorithms/RankParts.h): get(Key, Rank) builds only the
/// calling rank's tables when the kind's algorithm has a rank-part builder
/// (rankPartAlgorithms()), derived
/// without building the other ranks' operations, and equal to what lowering
/// the whole schedule gives that rank (tests/algorithms/RankPartsTest.cpp).
/// Which algorithm is the kind's does not depend on the rank: the one
/// COLLC_ALGORITHM names, or `auto`'s choice. Below PricedChoiceRanks ranks
/// compile() makes it from the cost model of the whole candidates (so
/// `auto` builds them, once per kind and process, and chooses as `collc`
/// does); from PricedChoiceRanks on, choosePricedPart() makes it from the
/// closed-form prices of the families with rank parts and a price (binomial
/// broadcast, reduce and allreduce, reduce-scatter-allgather, ring and
/// Bruck allgathers, pairwise and Bruck all-to-alls; algorithms/RankParts.h),
/// computed from the machine and the request alone, so that no process
/// builds a whole schedule; when none of them applies, compile() chooses as
/// below the threshold. Entry::Auto and Entry::Priced say which way was
/// taken (COLLC_VERBOSE prints it). A kind whose algorithm has no rank-part
/// builder, one with a non-commutative operator (whose fold order only the
/// whole schedule shows) and, with COLLC_CACHE, one chosen by `auto` below
/// PricedChoiceRanks (the cache holds whole schedules) are built whole, as
/// before, and Entry::Rank says so.
///
/// Size bands: the power-of-two bands of ir/SizeBand.h (band 0 is the empty
/// message; band b >= 1 holds the sizes [2^(b-1), 2^b - 1] bytes per block).
/// A band's schedule is built at the size the compiler builds that band at
/// (ByteBand::buildBytes, in int32 elements for reductions, whose requests
/// count them) and serves every size of the band, scaling its chunks, as
/// `--mpi-sizes any` does.
#ifndef COLLC_DROPIN_ENGINE_H
#define COLLC_DROPIN_ENGINE_H

#include "algorithms/RankParts.h"
#include "backends/MpiTables.h"
#include "dropin/Config.h"
#include "ir/Machine.h"
#include "ir/Request.h"
#include "ir/Schedule.h"
#include "ir/SizeBand.h"
#include "runtime/collc/tables.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <chrono>
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
  /// The size the schedule was built at (its request's bytes).
  uint64_t Bytes = 0;
  /// The schedule's time under the machine's model.
  double Makespan = 0;
  /// Read from a cache file (BuildSeconds is then the time of reading,
  /// verifying and lowering it).
  bool FromFile = false;
  /// The rank whose operations alone the tables hold (its part, built for
  /// it); -1 when they hold every rank's (the schedule was built whole).
  /// A part is not costed: its Makespan is that of `auto`'s whole
  /// schedule it was chosen by, or the closed-form price it was chosen by
  /// (Priced), NaN for an algorithm COLLC_ALGORITHM names.
  int32_t Rank = -1;
  /// `auto` chose the algorithm (by price when Priced, else from the whole
  /// candidates' costs); false for one COLLC_ALGORITHM names.
  bool Auto = false;
  /// `auto` chose the part's algorithm by the closed-form prices
  /// (choosePricedPart), without building any schedule whole.
  bool Priced = false;
  /// Why the kind's cache file was not used although there was one (it
  /// failed a check and was replaced); empty otherwise.
  std::string CacheNote;
};

/// From this many ranks on, `auto`'s choice for a kind that rank parts can
/// serve is made by closed-form prices (see the file comment): the budget
/// of a first call. Building and pricing every candidate whole costs a
/// process, in CPU seconds on the 2-D torus model (bench/rank_part_bench.cpp,
/// its `cands` rows): 0.007-1.3 s at 256 ranks (the all-to-all the most),
/// 0.04-2.0 s at 512 and 0.09-28 s at 1,024, growing with the broadcasts'
/// searches and the P (P - 1) blocks of an allgather or all-to-all; a part
/// chosen by price takes 0.3-9 ms there. Below it `auto` keeps choosing as
/// `collc` does: the flow-level prices of the whole candidates see what the
/// closed form does not (links a step's messages share) and every family,
/// with or without a rank part.
constexpr int32_t PricedChoiceRanks = 512;

/// The machine and the cache. Thread-safe: SimGrid's SMPI runs the ranks of
/// a program in one process and shares the library between them.
class Engine {
public:
  /// \p MachineDigest identifies the machine in cache file names (a digest
  /// of its file's text).
  Engine(Machine M, Config C, uint64_t MachineDigest = 0);

  /// Reads the machine COLLC_MACHINE names (same reader as `--machine`),
  /// and checks the cache directory: one others may write into is not used
  /// (a note says so).
  static llvm::Expected<std::unique_ptr<Engine>> create(Config C);

  const Machine &machine() const { return M; }
  const Config &config() const { return C; }
  /// What the settings leave to the MPI library, or leave undone, one
  /// sentence each: the configuration's notes and the engine's own.
  const std::vector<std::string> &notes() const { return C.Notes; }

  /// Whether a program of \p WorldSize ranks fits the machine; the error
  /// says why not (then no communicator can be served).
  llvm::Error checkWorld(int64_t WorldSize) const;

  /// The node of world rank \p WorldRank of \p WorldSize: the machine's
  /// placement (its network's; rank = node without one). Fails when the
  /// machine holds fewer ranks.
  llvm::Expected<int64_t> nodeOfWorldRank(int64_t WorldRank,
                                          int64_t WorldSize) const;
  /// Interns the node list of a communicator (index = its rank).
  int32_t layout(const std::vector<int64_t> &Nodes);

  /// The cached entry of \p K, built whole on first use. Never null.
  const Entry &get(const Key &K);
  /// The entry of \p K that serves rank \p Rank: that rank's part when the
  /// kind's algorithm has a rank-part builder (see the file comment), else
  /// get(K). Never null.
  const Entry &get(const Key &K, int32_t Rank);

  /// The request the schedule of kind \p K answers (its layout's nodes),
  /// made by collc's one request constructor (makeRequest,
  /// readers/RequestSpec.h) with its checks; a kind they refuse is left to
  /// the MPI library, its entry saying why.
  llvm::Expected<Request> requestOf(const Key &K) const {
    return requestOf(K, *Layouts[K.Layout]);
  }
  /// The digest that names \p K's cache file (dropin/CacheFile.h).
  uint64_t cacheKey(const Key &K) const {
    return cacheKey(K, *Layouts[K.Layout]);
  }
  /// The road of a cache file's text \p Text (read from \p Path) for kind
  /// \p K: the schedule it holds must be K's (\p R, named \p CacheKey),
  /// costs and verifies on the machine, lowers and passes checkTables. Null,
  /// with \p Why saying what failed, otherwise. get() reads files through
  /// it; tests and the fuzzer call it directly.
  std::unique_ptr<Entry> fromCacheText(llvm::StringRef Text,
                                       llvm::StringRef Path, uint64_t CacheKey,
                                       const Key &K, const Request &R,
                                       std::string &Why) const;

  /// Entries cached, and the bytes they and the node lists hold.
  size_t size() const;
  uint64_t memoryBytes() const;

private:
  /// The request a kind's schedule answers.
  llvm::Expected<Request> requestOf(const Key &K,
                                    const std::vector<int64_t> &Nodes) const;
  /// Builds \p K's schedule (the request \p R) and, with a \p CachePath,
  /// writes its cache file.
  std::unique_ptr<Entry> build(const Key &K, const Request &R,
                               const std::string &CachePath,
                               uint64_t CacheKey) const;
  /// The digest that names \p K's cache file.
  uint64_t cacheKey(const Key &K, const std::vector<int64_t> &Nodes) const;
  /// The entry of the cache file \p Path, or null with \p Why set when the
  /// file exists but fails a check (empty when there is none).
  std::unique_ptr<Entry> readCache(const std::string &Path, uint64_t CacheKey,
                                   const Key &K, const Request &R,
                                   std::string &Why) const;
  /// Lowers \p S into \p E, checks the tables and fills the variant.
  llvm::Error lower(const Schedule &S, const Key &K, Entry &E) const;
  /// The entry of schedule \p S, compiled for \p K, lowered whole.
  std::unique_ptr<Entry>
  wholeEntry(llvm::Expected<Schedule> S, const Key &K,
             const std::string &CachePath, uint64_t CacheKey,
             std::chrono::steady_clock::time_point T0) const;
  /// get(K) with the lock held.
  const Entry &getWhole(const Key &K);
  /// Rank \p Rank's part of algorithm \p Algo for \p K (\p R), built by
  /// \p Build.
  std::unique_ptr<Entry> buildPart(const Key &K, const Request &R,
                                   const std::string &Algo, RankPartFn Build,
                                   int32_t Rank) const;

  Machine M;
  Config C;
  uint64_t MachineDigest;
  mutable std::mutex Lock;
  std::map<std::vector<int64_t>, int32_t> LayoutIds;
  std::vector<const std::vector<int64_t> *> Layouts;
  std::map<Key, std::unique_ptr<Entry>> Cache;
  /// Rank parts, by kind and rank (several ranks share a process under
  /// SimGrid's SMPI).
  std::map<std::pair<Key, int32_t>, std::unique_ptr<Entry>> Parts;
  /// `auto`'s choice for a kind served by rank parts, and its whole
  /// schedule's time under the machine's model.
  struct Choice {
    std::string Algorithm;
    double Makespan = 0;
    /// Chosen by price (Entry::Priced).
    bool Priced = false;
  };
  std::map<Key, Choice> Choices;
};

} // namespace dropin
} // namespace collc

#endif
