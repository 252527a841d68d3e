/// \file
/// Output files: how `collc -o` writes what a backend produced. Every output
/// path of the driver goes through writeOutputs, so that one set of rules
/// holds for all of them:
///   - "-" (or an empty path) is stdout;
///   - a symlink is followed: its target is written, the link stays;
///   - a regular file (or a new one) is written to a temporary file beside
///     it and renamed over it, so a reader never sees half of it;
///   - anything else the path names (a character device such as /dev/null,
///     a FIFO, a socket) is opened and written in place, never replaced;
///   - a read-only target (no write permission for the user, or no write bit
///     at all, which stops root too) and a directory are refused;
///   - several files are written all or nothing: every check and every
///     temporary file first, the renames only when all of them succeeded.
#ifndef COLLC_BACKENDS_OUTPUT_H
#define COLLC_BACKENDS_OUTPUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>

namespace collc {

/// One file to write: where, and its whole contents: Text, or, when Write is
/// set, what Write writes (straight to the temporary file, device or stdout,
/// so that an output of gigabytes is never held in memory; Text is unused).
struct OutputFile {
  std::string Path;
  std::string Text;
  std::function<void(llvm::raw_ostream &)> Write;
};

/// Writes \p Files under the rules above. On error nothing has been written
/// (no file changed, no temporary file left) and the message reads
/// `PATH: error: cannot write: WHY`.
llvm::Error writeOutputs(llvm::ArrayRef<OutputFile> Files);

/// writeOutputs for one file.
llvm::Error writeOutput(llvm::StringRef Path, llvm::StringRef Text);

} // namespace collc

#endif
