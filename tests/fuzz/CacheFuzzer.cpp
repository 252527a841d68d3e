// libFuzzer harness for the drop-in's cache files (dropin/CacheFile.h): the
// whole road a file's text takes before its tables may run (the header, the
// schedule JSON, the kind check, cost, verification, lowering, checkTables).
// An input that does not begin like a cache file is taken as the JSON of
// one, given the right key and checksum, as a hostile writer of the cache
// directory would: so the fuzzer spends its time past the checksum. It
// fails on any crash, hang or sanitizer report, and when a text is accepted
// whose tables do not pass checkTables.
#include "backends/MpiTables.h"
#include "dropin/CacheFile.h"
#include "dropin/Engine.h"
#include "readers/MachineSpec.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace collc;
using namespace collc::dropin;

namespace {

Engine &engine() {
  static Engine *E = [] {
    llvm::Expected<Machine> M =
        loadMachine(COLLC_SOURCE_DIR "/examples/machines/pc-cluster.yaml");
    if (!M) {
      std::fprintf(stderr, "%s\n", llvm::toString(M.takeError()).c_str());
      std::abort();
    }
    return new Engine(std::move(*M), Config{}, 7);
  }();
  return *E;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  Engine &E = engine();
  llvm::StringRef In(reinterpret_cast<const char *>(Data), Size);
  // The kinds the seeds hold: a broadcast, a gather and an allreduce of 5
  // ranks, 3000 bytes (tests/fuzz/corpus/cache).
  static const int Colls[] = {rt::Bcast, rt::Gather, rt::Allreduce};
  for (int Coll : Colls) {
    Key K;
    K.Coll = Coll;
    K.Layout = E.layout({0, 1, 2, 3, 4});
    K.Root = Coll == rt::Allreduce ? 0 : 2;
    K.Band = powerOfTwoBand(3000);
    const uint64_t CK = E.cacheKey(K);
    std::string Text = In.str();
    if (!In.startswith("collc-cache ")) {
      char Header[64];
      std::snprintf(Header, sizeof Header, "collc-cache 2 %016llx %016llx\n",
                    (unsigned long long)CK,
                    (unsigned long long)fnv1a(In.data(), In.size()));
      Text = Header + Text;
    }
    std::string Why;
    // The kinds fuzzed are requests collc accepts.
    std::unique_ptr<Entry> Got = E.fromCacheText(
        Text, "fuzz.schedule", CK, K, llvm::cantFail(E.requestOf(K)), Why);
    if (Got && Got->Error.empty()) {
      // Accepted: its tables were checked; check once more, independently.
      llvm::Error Err = checkTables(Got->Tables, static_cast<Collective>(Coll),
                                    Got->Variant.Ranks, Got->Variant.Root,
                                    Got->Variant.NumChunks);
      if (Err) {
        std::fprintf(stderr, "accepted tables fail: %s\n",
                     llvm::toString(std::move(Err)).c_str());
        std::abort();
      }
    } else if (!Got && Why.empty()) {
      std::fprintf(stderr, "refused without saying why\n");
      std::abort();
    }
  }
  return 0;
}
