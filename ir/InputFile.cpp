#include "ir/InputFile.h"

#include "ir/Diagnostic.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Errno.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

using namespace llvm;

namespace collc {

namespace {

Error fileError(StringRef Path, const Twine &What) {
  return make_error<LocatedError>((Path + ": error: " + What).str());
}

/// What a file that is not regular is, in words.
const char *kindOf(mode_t Mode) {
  static const std::pair<mode_t, const char *> Kinds[] = {
      {S_IFDIR, "a directory"},        {S_IFIFO, "a FIFO"},
      {S_IFCHR, "a character device"}, {S_IFBLK, "a block device"},
      {S_IFSOCK, "a socket"},          {S_IFLNK, "a symbolic link"}};
  for (const auto &[Kind, Words] : Kinds)
    if ((Mode & S_IFMT) == Kind)
      return Words;
  return "not a regular file";
}

/// A file's permission bits as `ls` and chmod write them ("0644").
std::string modeText(mode_t Mode) {
  char Buf[8];
  std::snprintf(Buf, sizeof Buf, "%04o", static_cast<unsigned>(Mode & 07777));
  return Buf;
}

/// \p N bytes as people read them ("300 MiB", "17 bytes").
std::string sizeText(uint64_t N) {
  if (N >= (uint64_t(1) << 20) && N % (uint64_t(1) << 20) == 0)
    return std::to_string(N >> 20) + " MiB";
  if (N >= (uint64_t(1) << 20))
    return std::to_string(N) + " bytes (" + std::to_string(N >> 20) + " MiB)";
  return std::to_string(N) + " bytes";
}

} // namespace

Expected<std::unique_ptr<MemoryBuffer>>
readInputFile(StringRef Path, const InputFileOptions &Opts) {
  SmallString<256> P(Path);
  int Flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC;
  if (Opts.NoFollow)
    Flags |= O_NOFOLLOW;
  int FD;
  do
    FD = ::open(P.c_str(), Flags);
  while (FD < 0 && errno == EINTR);
  if (FD < 0) {
    const int Err = errno;
    if (Err == ELOOP && Opts.NoFollow)
      return fileError(Path, "is a symbolic link; expected a regular file");
    // A socket cannot be opened at all (ENXIO): say what it is.
    struct stat St;
    if (Err == ENXIO && ::stat(P.c_str(), &St) == 0 && !S_ISREG(St.st_mode))
      return fileError(Path, Twine("is ") + kindOf(St.st_mode) +
                                 "; expected a regular file");
    return fileError(Path, "cannot read file: " + sys::StrError(Err));
  }
  struct FDCloser {
    int FD;
    ~FDCloser() { ::close(FD); }
  } Closer{FD};
  struct stat St;
  if (::fstat(FD, &St) != 0)
    return fileError(Path, "cannot read file: " + sys::StrError(errno));
  if (!S_ISREG(St.st_mode))
    return fileError(Path, Twine("is ") + kindOf(St.st_mode) +
                               "; expected a regular file");
  if (Opts.Private && St.st_uid != ::geteuid())
    return fileError(Path, "is owned by another user (uid " +
                               Twine(static_cast<uint64_t>(St.st_uid)) +
                               "); expected a file of this user's");
  if (Opts.Private && (St.st_mode & (S_IWGRP | S_IWOTH)))
    return fileError(Path, "may be written by other users (mode " +
                               modeText(St.st_mode) +
                               "); expected a file only its owner writes");
  const uint64_t Size = static_cast<uint64_t>(St.st_size);
  if (Size > Opts.Limit)
    return fileError(Path, "is " + sizeText(Size) + ", more than the " +
                               sizeText(Opts.Limit) + " an input may be");
  std::unique_ptr<WritableMemoryBuffer> Buf =
      WritableMemoryBuffer::getNewUninitMemBuffer(Size, Path);
  if (!Buf)
    return fileError(Path, "cannot read file: out of memory");
  uint64_t Done = 0;
  while (Done < Size) {
    ssize_t N = ::read(FD, Buf->getBufferStart() + Done, Size - Done);
    if (N < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (N < 0)
      return fileError(Path, "cannot read file: " + sys::StrError(errno));
    if (N == 0) // the file shrank while it was read
      return fileError(Path, "changed while it was read");
    Done += static_cast<uint64_t>(N);
  }
  return std::unique_ptr<MemoryBuffer>(std::move(Buf));
}

Error checkPrivateDirectory(StringRef Dir) {
  SmallString<256> P(Dir);
  struct stat St;
  if (::stat(P.c_str(), &St) != 0) {
    if (errno != ENOENT)
      return fileError(Dir, "cannot use directory: " + sys::StrError(errno));
    if (::mkdir(P.c_str(), 0700) != 0 && errno != EEXIST)
      return fileError(Dir, "cannot make directory: " + sys::StrError(errno));
    if (::stat(P.c_str(), &St) != 0)
      return fileError(Dir, "cannot use directory: " + sys::StrError(errno));
  }
  if (!S_ISDIR(St.st_mode))
    return fileError(Dir, Twine("is ") + kindOf(St.st_mode) +
                              "; expected a directory");
  if (St.st_uid != ::geteuid())
    return fileError(Dir, "is owned by another user (uid " +
                              Twine(static_cast<uint64_t>(St.st_uid)) +
                              "); expected a directory of this user's");
  if (St.st_mode & (S_IWGRP | S_IWOTH))
    return fileError(Dir, "may be written by other users (mode " +
                              modeText(St.st_mode) +
                              "); expected a directory only its owner "
                              "writes (chmod go-w)");
  return Error::success();
}

} // namespace collc
