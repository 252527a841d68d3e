#include "backends/Output.h"

#include "ir/Diagnostic.h"

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <climits>
#include <unistd.h>
#include <vector>

namespace collc {

using namespace llvm;

namespace {

Error cannotWrite(StringRef Path, const Twine &Why) {
  return make_error<LocatedError>(Path.str() +
                                  ": error: cannot write: " + Why.str());
}

/// Where one output goes.
struct Target {
  enum Kind {
    Stdout,  ///< "-": standard output.
    Replace, ///< A regular file, new or old: a temporary renamed over Path.
    InPlace, ///< A device, FIFO or socket: opened and written as it is.
  } K = Stdout;
  std::string Path; ///< Replace: symlinks resolved. InPlace: as given.
  sys::fs::perms Perms = sys::fs::perms_not_known; ///< Of the file replaced.
};

/// The path a new file is created at when \p Path names nothing yet: \p Path
/// itself, or the end of the chain of symlinks it starts (a dangling link).
Expected<std::string> newFilePath(StringRef Path) {
  std::string Cur = Path.str();
  for (int Hop = 0; Hop < 40; ++Hop) {
    sys::fs::file_status St;
    if (sys::fs::status(Cur, St, /*Follow=*/false) ||
        St.type() != sys::fs::file_type::symlink_file)
      return Cur;
    char Buf[PATH_MAX];
    ssize_t N = ::readlink(Cur.c_str(), Buf, sizeof(Buf));
    if (N < 0)
      return cannotWrite(
          Path, std::error_code(errno, std::generic_category()).message());
    StringRef Link(Buf, static_cast<size_t>(N));
    if (sys::path::is_absolute(Link)) {
      Cur = Link.str();
    } else {
      SmallString<256> Next(sys::path::parent_path(Cur));
      sys::path::append(Next, Link);
      Cur = std::string(Next.str());
    }
  }
  return cannotWrite(Path, "too many levels of symbolic links");
}

Expected<Target> resolve(StringRef Path) {
  if (Path.empty() || Path == "-")
    return Target{};
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Path, St, /*Follow=*/true)) {
    if (EC != std::errc::no_such_file_or_directory)
      return cannotWrite(Path, EC.message());
    auto New = newFilePath(Path);
    if (!New)
      return New.takeError();
    return Target{Target::Replace, *New};
  }
  switch (St.type()) {
  case sys::fs::file_type::directory_file:
    return cannotWrite(Path, "it is a directory");
  case sys::fs::file_type::regular_file:
    break;
  default:
    return Target{Target::InPlace, Path.str()};
  }
  // Root may write anywhere; a file without any write bit is read-only for
  // everyone, as `cp -i`, editors and compilers treat it.
  if ((St.permissions() & sys::fs::all_write) == 0 ||
      sys::fs::access(Path, sys::fs::AccessMode::Write))
    return cannotWrite(Path, "the file is read-only");
  SmallString<256> Real;
  if (std::error_code EC = sys::fs::real_path(Path, Real))
    return cannotWrite(Path, EC.message());
  return Target{Target::Replace, std::string(Real.str()), St.permissions()};
}

/// Writes \p F's contents to \p OS; the error text, or empty on success.
std::string writeAll(raw_fd_ostream &OS, const OutputFile &F) {
  if (F.Write)
    F.Write(OS);
  else
    OS << F.Text;
  OS.flush();
  if (!OS.has_error())
    return {};
  std::string Why = OS.error().message();
  OS.clear_error();
  return Why;
}

} // namespace

Error writeOutputs(ArrayRef<OutputFile> Files) {
  // Every target is checked before anything is written.
  std::vector<Target> Targets;
  for (const OutputFile &F : Files) {
    auto T = resolve(F.Path);
    if (!T)
      return T.takeError();
    Targets.push_back(*T);
  }
  std::vector<Optional<sys::fs::TempFile>> Temps(Files.size());
  auto Fail = [&](Error E) {
    for (Optional<sys::fs::TempFile> &T : Temps)
      if (T)
        consumeError(T->discard());
    return E;
  };
  // The regular files go to temporaries first.
  for (size_t I = 0; I < Files.size(); ++I) {
    const Target &T = Targets[I];
    if (T.K != Target::Replace)
      continue;
    auto Tmp = sys::fs::TempFile::create(T.Path + ".tmp-%%%%%%");
    if (!Tmp)
      return Fail(cannotWrite(Files[I].Path, toString(Tmp.takeError())));
    Temps[I] = std::move(*Tmp);
    // A replaced file keeps its permissions.
    if (T.Perms != sys::fs::perms_not_known)
      if (std::error_code EC = sys::fs::setPermissions(Temps[I]->FD, T.Perms))
        return Fail(cannotWrite(Files[I].Path, EC.message()));
    raw_fd_ostream OS(Temps[I]->FD, /*shouldClose=*/false);
    std::string Why = writeAll(OS, Files[I]);
    if (!Why.empty())
      return Fail(cannotWrite(Files[I].Path, Why));
  }
  // Devices and FIFOs cannot be written aside: they are written once every
  // temporary is complete, before any rename.
  for (size_t I = 0; I < Files.size(); ++I) {
    if (Targets[I].K != Target::InPlace)
      continue;
    std::error_code EC;
    raw_fd_ostream OS(Targets[I].Path, EC, sys::fs::OF_None);
    if (EC)
      return Fail(cannotWrite(Files[I].Path, EC.message()));
    std::string Why = writeAll(OS, Files[I]);
    if (!Why.empty())
      return Fail(cannotWrite(Files[I].Path, Why));
  }
  for (size_t I = 0; I < Files.size(); ++I)
    if (Temps[I]) {
      sys::fs::TempFile Tmp = std::move(*Temps[I]);
      Temps[I].reset();
      if (Error E = Tmp.keep(Targets[I].Path))
        return Fail(cannotWrite(Files[I].Path, toString(std::move(E))));
    }
  for (size_t I = 0; I < Files.size(); ++I)
    if (Targets[I].K == Target::Stdout) {
      if (Files[I].Write)
        Files[I].Write(outs());
      else
        outs() << Files[I].Text;
      outs().flush();
    }
  return Error::success();
}

Error writeOutput(StringRef Path, StringRef Text) {
  return writeOutputs(OutputFile{Path.str(), Text.str(), {}});
}

} // namespace collc
