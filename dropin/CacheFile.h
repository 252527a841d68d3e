/// \file
/// The drop-in library's cache files (COLLC_CACHE=dir): a schedule built by
/// one process, read by a later one (another run, or another rank of the
/// same run) instead of building it again.
///
/// A cache file holds a *schedule*, not the runtime's tables: what a reader
/// runs is what it lowers itself from a schedule that passed collc's
/// verifier (data flow, ports, timing) on its own machine, after checking
/// that the schedule is the kind it asked for. A damaged or crafted file can
/// therefore make a process build again, never run tables it did not make.
///
/// Format: one header line, then the schedule as `collc --emit json` writes
/// it (docs/ir.md):
///
///   collc-cache 2 <key: 16 hex digits> <checksum: 16 hex digits>\n
///   { "collective": ..., "steps": [...], ... }
///
/// The key is a digest of everything the schedule depends on (the machine
/// file's text, the build of collc, the algorithm asked for, the kind); it
/// also names the file (`collc-<key>.schedule`). The checksum (FNV-1a of
/// the JSON text) catches accidental damage only: anyone can recompute it,
/// so it is no proof of origin. What keeps others from planting files is the
/// directory: it must be this user's and writable by no one else
/// (checkPrivateDirectory), and a file is read only when it is a regular
/// file (not a link) of this user's, writable by no one else, and at most
/// MaxInputBytes long. Files are written whole under a temporary name (mode
/// 0600) and renamed, so concurrent writers of one kind leave one complete
/// file, and the same schedule is always written as the same bytes.
#ifndef COLLC_DROPIN_CACHEFILE_H
#define COLLC_DROPIN_CACHEFILE_H

#include "ir/Machine.h"
#include "ir/Schedule.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace collc {
namespace dropin {

/// FNV-1a, 64 bits, continuing from \p H: digests of cache keys, of the
/// machine file and of the build, and the cache files' checksums.
uint64_t fnv1a(const void *P, size_t N, uint64_t H = 0xcbf29ce484222325ULL);

/// The cache file of \p Key in \p Dir.
std::string cacheFilePath(llvm::StringRef Dir, uint64_t Key);

/// The text of the cache file \p Path: a regular file (not a link) of this
/// user's, writable by no one else, at most MaxInputBytes. Errors say what
/// the file is instead.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readCacheFile(llvm::StringRef Path);

/// The schedule cache file text \p Text (read from \p Path) holds for
/// \p Key, as written: the caller checks that it is the kind asked for,
/// then costs and verifies it on \p M. Errors say why it is not used:
/// another format, another key, a wrong checksum, or JSON that is not a
/// schedule on \p M (file:line:col).
llvm::Expected<Schedule> parseCacheText(llvm::StringRef Text,
                                        llvm::StringRef Path, uint64_t Key,
                                        const Machine &M);

/// The text of \p S as the cache file of \p Key (header and JSON).
std::string cacheFileText(uint64_t Key, const Schedule &S, const Machine &M);

/// Writes \p S as the cache file \p Path of \p Key, atomically.
llvm::Error writeCacheFile(llvm::StringRef Path, uint64_t Key,
                           const Schedule &S, const Machine &M);

} // namespace dropin
} // namespace collc

#endif
