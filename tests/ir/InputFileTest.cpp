// ir/InputFile.h: an input is a regular file under a size limit, or a
// located error that says what it is instead, given at once.
#include "ir/InputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace collc;

namespace {

/// A fresh directory, removed with what it holds at the end of the test.
struct TempDir {
  llvm::SmallString<128> Path;
  TempDir() {
    REQUIRE(!llvm::sys::fs::createUniqueDirectory("collc-in", Path));
  }
  ~TempDir() { llvm::sys::fs::remove_directories(Path); }
  std::string operator/(const char *Name) const {
    return (Path + "/" + Name).str();
  }
};

void write(const std::string &Path, const std::string &Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  REQUIRE(!EC);
  OS << Text;
}

/// The error of reading \p Path, or "" when it reads.
std::string errorOf(const std::string &Path, const InputFileOptions &O = {}) {
  auto Buf = readInputFile(Path, O);
  if (Buf)
    return "";
  return llvm::toString(Buf.takeError());
}

} // namespace

TEST_CASE("input files: a regular file is read whole, up to the limit") {
  TempDir D;
  write(D / "m.yaml", "name: x\n");
  auto Buf = readInputFile(D / "m.yaml");
  REQUIRE(Buf);
  CHECK((*Buf)->getBuffer() == "name: x\n");
  CHECK((*Buf)->getBufferIdentifier() == D / "m.yaml");

  InputFileOptions Small;
  Small.Limit = 8;
  CHECK(errorOf(D / "m.yaml", Small).empty()); // exactly the limit
  write(D / "big.yaml", "name: xy\n");
  CHECK(errorOf(D / "big.yaml", Small) ==
        D / "big.yaml" + ": error: is 9 bytes, more than the 8 bytes an input "
                         "may be");
  write(D / "empty.yaml", "");
  auto Empty = readInputFile(D / "empty.yaml");
  REQUIRE(Empty);
  CHECK((*Empty)->getBufferSize() == 0);
}

TEST_CASE("input files: what is not a regular file is refused before any "
          "byte is read") {
  TempDir D;
  const std::string Fifo = D / "fifo";
  REQUIRE(::mkfifo(Fifo.c_str(), 0600) == 0);
  // No writer: a blocking open or read would never return.
  CHECK(errorOf(Fifo) == Fifo + ": error: is a FIFO; expected a regular file");
  CHECK(errorOf("/dev/zero") ==
        "/dev/zero: error: is a character device; expected a regular file");
  CHECK(errorOf(std::string(D.Path)) ==
        std::string(D.Path) +
            ": error: is a directory; expected a regular file");
  CHECK(errorOf(D / "none") ==
        D / "none" + ": error: cannot read file: No such file or directory");

  const std::string Sock = D / "socket";
  sockaddr_un A{};
  A.sun_family = AF_UNIX;
  REQUIRE(Sock.size() < sizeof(A.sun_path));
  std::copy(Sock.begin(), Sock.end(), A.sun_path);
  int S = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(S >= 0);
  REQUIRE(::bind(S, reinterpret_cast<sockaddr *>(&A), sizeof A) == 0);
  CHECK(errorOf(Sock) ==
        Sock + ": error: is a socket; expected a regular file");
  ::close(S);
}

TEST_CASE("input files: a final symbolic link is followed unless NoFollow") {
  TempDir D;
  write(D / "m.yaml", "name: x\n");
  const std::string Link = D / "link.yaml";
  REQUIRE(!llvm::sys::fs::create_link(D / "m.yaml", Link));
  CHECK(errorOf(Link).empty());
  InputFileOptions NoFollow;
  NoFollow.NoFollow = true;
  CHECK(errorOf(Link, NoFollow) ==
        Link + ": error: is a symbolic link; expected a regular file");
  CHECK(errorOf(D / "m.yaml", NoFollow).empty());
  // A sparse file over the default limit is refused by its size, unread.
  const std::string Big = D / "sparse.yaml";
  int FD = ::open(Big.c_str(), O_CREAT | O_WRONLY, 0600);
  REQUIRE(FD >= 0);
  REQUIRE(::ftruncate(FD, static_cast<off_t>(MaxInputBytes) + 1) == 0);
  ::close(FD);
  CHECK(errorOf(Big) == Big + ": error: is 268435457 bytes (256 MiB), more "
                              "than the 256 MiB an input may be");
}
