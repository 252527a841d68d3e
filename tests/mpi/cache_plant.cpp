// cache-plant DIR MUTATION: rewrites every cache file of the drop-in in DIR
// (dropin/CacheFile.h) as a hostile writer of the directory would: the
// schedule it holds damaged one way, the key kept and the checksum
// recomputed, so that only the reader's checks stand between the damage and
// the program. Used by tests/mpi/hostile_cache.sh.
//
// MUTATION: swap (a send turned into a receive), root (another root), empty
// (no steps), peer (a transfer to another rank), self (a rank sending to
// itself), zero (zero-byte messages), chunks (2^40 chunks), combine (copy
// and combine exchanged), algorithm (a name with terminal escapes).
#include "dropin/CacheFile.h"
#include "ir/ScheduleJson.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace collc;

namespace {

Transfer *firstData(Schedule &S) {
  for (Step &St : S.Steps)
    for (Transfer &T : St.Transfers)
      if (T.Kind != TransferKind::Signal) {
        if (T.Pieces.empty())
          T.Pieces.push_back(S.wholeMessage());
        return &T;
      }
  return nullptr;
}

bool mutate(Schedule &S, llvm::StringRef How) {
  const int32_t P = S.size();
  Transfer *T = firstData(S);
  if (How == "root")
    S.Root = (S.Root + 1) % std::max(P, 1);
  else if (How == "empty")
    S.Steps.clear();
  else if (How == "chunks")
    S.NumChunks = int64_t(1) << 40;
  else if (How == "algorithm")
    S.Algorithm = "\x1b[31mevil\x1b[0m\nline";
  else if (How == "zero")
    for (Step &St : S.Steps)
      for (Transfer &X : St.Transfers)
        X.Bytes = 0;
  else if (!T) // the rest changes a transfer; a barrier's are signals
    return How == "swap" || How == "peer" || How == "self" || How == "combine";
  else if (How == "swap")
    std::swap(T->Src, T->Dst);
  else if (How == "peer")
    T->Dst = (T->Dst + 1) % P == T->Src ? (T->Dst + 2) % P : (T->Dst + 1) % P;
  else if (How == "self")
    T->Dst = T->Src;
  else if (How == "combine")
    T->Kind = T->Kind == TransferKind::Combine ? TransferKind::Copy
                                               : TransferKind::Combine;
  else
    return false;
  return true;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 3) {
    std::fprintf(stderr, "usage: cache-plant DIR MUTATION\n");
    return 2;
  }
  std::error_code EC;
  int Planted = 0;
  for (llvm::sys::fs::directory_iterator It(Argv[1], EC), End; !EC && It != End;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (!Name.startswith("collc-") || !Name.endswith(".schedule"))
      continue;
    auto Buf = llvm::MemoryBuffer::getFile(It->path());
    if (!Buf)
      return 1;
    llvm::StringRef Text = (*Buf)->getBuffer();
    auto [Header, Json] = Text.split('\n');
    uint64_t Key = 0;
    if (Header.size() < 30 || Header.substr(14, 16).getAsInteger(16, Key)) {
      std::fprintf(stderr, "cache-plant: %s: not a cache file\n",
                   It->path().c_str());
      return 1;
    }
    llvm::Expected<Schedule> S = readScheduleJson(Json, It->path());
    if (!S) {
      std::fprintf(stderr, "%s\n", llvm::toString(S.takeError()).c_str());
      return 1;
    }
    if (!mutate(*S, Argv[2])) {
      std::fprintf(stderr, "cache-plant: unknown mutation '%s'\n", Argv[2]);
      return 2;
    }
    llvm::raw_fd_ostream OS(It->path(), EC);
    if (EC)
      return 1;
    OS << dropin::cacheFileText(Key, *S, Machine{});
    ++Planted;
  }
  std::printf("cache-plant: %d files rewritten (%s)\n", Planted, Argv[2]);
  return Planted > 0 ? 0 : 1;
}
