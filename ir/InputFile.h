/// \file
/// Reading the files collc and the drop-in library take as input: machine
/// specs, SimGrid platforms, requests, schedules and cache files. Each is
/// read the same way, so that no reader can be made to hang or to exhaust
/// memory by what it is pointed at:
///
///  - only a regular file is read: a FIFO, a device (`/dev/zero`), a socket
///    or a directory is refused at once, before any byte is read; the file
///    is opened without blocking (O_NONBLOCK), so that a FIFO cannot stall
///    the open itself;
///  - a file larger than the limit is refused by its size, before reading;
///  - with NoFollow, a symbolic link in the last component is refused too
///    (the drop-in's cache: a link planted there must not be followed);
///  - with Private, a file owned by another user, or writable by its group
///    or by others, is refused (the drop-in's cache: what it runs must be
///    what this user wrote).
///
/// Errors are LocatedErrors of the form "<path>: error: <what>", in the
/// place of a "file:line:col" that a file without readable content has not.
#ifndef COLLC_IR_INPUTFILE_H
#define COLLC_IR_INPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>

namespace collc {

/// Upper bound on an input file (256 MiB). A SimGrid platform of a
/// million hosts written one per line is about 100 MiB; a machine, request
/// or schedule larger than this is not one a user wrote or collc emitted.
constexpr uint64_t MaxInputBytes = uint64_t(256) << 20;

struct InputFileOptions {
  /// Refuse files larger than this.
  uint64_t Limit = MaxInputBytes;
  /// Refuse a symbolic link as the last component of the path.
  bool NoFollow = false;
  /// Refuse a file this process's user does not own, or that its group or
  /// others may write.
  bool Private = false;
};

/// The contents of the regular file \p Path, or a LocatedError naming
/// \p Path and saying what it is instead ("is a FIFO, not a regular file",
/// "is 300 MiB, more than the 256 MiB an input may be", "cannot read file:
/// No such file or directory").
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInputFile(llvm::StringRef Path, const InputFileOptions &Opts = {});

/// Whether \p Dir is a directory that only this process's user may write
/// into (owned by the user, not writable by its group or others), so that
/// no one else can put a file there or replace one. A missing directory is
/// made, with mode 0700. The error says what \p Dir is instead.
llvm::Error checkPrivateDirectory(llvm::StringRef Dir);

} // namespace collc

#endif
