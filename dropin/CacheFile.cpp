#include "dropin/CacheFile.h"

#include "ir/Diagnostic.h"
#include "ir/InputFile.h"
#include "ir/ScheduleJson.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace collc {
namespace dropin {

namespace {

constexpr StringLiteral Magic = "collc-cache 2 ";

/// 16 hex digits, lower case: the form of keys and checksums.
std::string hex16(uint64_t V) {
  std::string S = utohexstr(V, /*LowerCase=*/true);
  return std::string(16 - S.size(), '0') + S;
}

Error cacheError(StringRef Path, const Twine &What) {
  return make_error<LocatedError>((Path + ": error: " + What).str());
}

} // namespace

uint64_t fnv1a(const void *P, size_t N, uint64_t H) {
  const unsigned char *B = static_cast<const unsigned char *>(P);
  for (size_t I = 0; I < N; ++I)
    H = (H ^ B[I]) * 0x100000001b3ULL;
  return H;
}

std::string cacheFilePath(StringRef Dir, uint64_t Key) {
  SmallString<256> P(Dir);
  sys::path::append(P, "collc-" + hex16(Key) + ".schedule");
  return std::string(P);
}

std::string cacheFileText(uint64_t Key, const Schedule &S, const Machine &M) {
  std::string Json;
  raw_string_ostream OS(Json);
  writeScheduleJson(OS, S, &M);
  OS.flush();
  return (Magic + hex16(Key) + " " + hex16(fnv1a(Json.data(), Json.size())) +
          "\n" + Json)
      .str();
}

Expected<std::unique_ptr<MemoryBuffer>> readCacheFile(StringRef Path) {
  InputFileOptions Opts;
  Opts.NoFollow = true;
  Opts.Private = true;
  return readInputFile(Path, Opts);
}

Expected<Schedule> parseCacheText(StringRef Text, StringRef Path, uint64_t Key,
                                  const Machine &M) {
  auto [Header, Json] = Text.split('\n');
  // "collc-cache 2 <key> <sum>": fixed widths, so a header is exactly
  // Magic + 16 + 1 + 16 characters.
  if (!Header.startswith(Magic) || Header.size() != Magic.size() + 33 ||
      Header[Magic.size() + 16] != ' ')
    return cacheError(Path, "is not a collc cache file of this version "
                            "(expected a first line 'collc-cache 2 <key> "
                            "<checksum>')");
  if (Header.substr(Magic.size(), 16) != hex16(Key))
    return cacheError(Path, "holds another kind of call (its key is not the "
                            "one its name says)");
  if (Header.substr(Magic.size() + 17) !=
      hex16(fnv1a(Json.data(), Json.size())))
    return cacheError(Path, "is damaged (its checksum does not match)");
  // The JSON as it stands in the file, the header blanked, so that a
  // diagnostic's line and column are the file's.
  std::string Blanked = std::string(Header.size(), ' ') + "\n" + Json.str();
  return readScheduleJson(Blanked, Path, &M);
}

Error writeCacheFile(StringRef Path, uint64_t Key, const Schedule &S,
                     const Machine &M) {
  const std::string Text = cacheFileText(Key, S, M);
  int FD = -1;
  SmallString<256> Tmp;
  if (std::error_code EC = sys::fs::createUniqueFile(
          Path + ".%%%%%%%%.tmp", FD, Tmp, sys::fs::OF_None,
          sys::fs::owner_read | sys::fs::owner_write))
    return cacheError(Path, "cannot write: " + EC.message());
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    OS.close();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      sys::fs::remove(Tmp);
      return cacheError(Path, "cannot write: " + EC.message());
    }
  }
  if (std::error_code EC = sys::fs::rename(Tmp, Path)) {
    sys::fs::remove(Tmp);
    return cacheError(Path, "cannot write: " + EC.message());
  }
  return Error::success();
}

} // namespace dropin
} // namespace collc
