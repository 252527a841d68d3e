// The drop-in's cache files (dropin/CacheFile.h) against a hostile user of
// the cache directory: every file here is crafted with its key and checksum
// recomputed, as anyone who can write the directory could. Each must be
// refused, said (Entry::CacheNote), and rebuilt into exactly the tables a
// fresh build gives; none may crash, hang or serve anything else.
#include "dropin/CacheFile.h"
#include "dropin/Engine.h"

#include "compiler/Driver.h"
#include "ir/ScheduleJson.h"
#include "readers/MachineSpec.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <chrono>
#include <fcntl.h>
#include <functional>
#include <sys/stat.h>
#include <unistd.h>

using namespace collc;
using namespace collc::dropin;

namespace {

const char *MachinePath = COLLC_SOURCE_DIR "/examples/machines/pc-cluster.yaml";

/// A private directory of its own, removed at the end.
struct TempDir {
  llvm::SmallString<128> Path;
  TempDir() {
    REQUIRE(!llvm::sys::fs::createUniqueDirectory("collc-cache", Path));
    ::chmod(Path.c_str(), 0700);
  }
  ~TempDir() { llvm::sys::fs::remove_directories(Path); }
  std::string str() const { return std::string(Path); }
};

std::unique_ptr<Engine> engineIn(const std::string &Dir) {
  Config C;
  C.MachinePath = MachinePath;
  C.CacheDir = Dir;
  llvm::Expected<std::unique_ptr<Engine>> E = Engine::create(C);
  REQUIRE(E);
  return std::move(*E);
}

Key kindOf(Engine &E, int Coll, std::vector<int64_t> Nodes, int32_t Root,
           uint64_t Bytes) {
  Key K;
  K.Coll = Coll;
  K.Layout = E.layout(Nodes);
  K.Root = Root;
  K.Band = powerOfTwoBand(Bytes);
  return K;
}

std::string slurp(const std::string &Path) {
  auto B = llvm::MemoryBuffer::getFile(Path);
  REQUIRE(B);
  return (*B)->getBuffer().str();
}

void spit(const std::string &Path, const std::string &Text,
          unsigned Mode = 0600) {
  ::unlink(Path.c_str());
  std::error_code EC;
  {
    llvm::raw_fd_ostream OS(Path, EC);
    REQUIRE(!EC);
    OS << Text;
  }
  ::chmod(Path.c_str(), Mode);
}

bool sameTables(const Entry &A, const Entry &B) {
  auto SameOps = [&] {
    for (size_t I = 0; I < A.Tables.Ops.size(); ++I) {
      const rt::Op &X = A.Tables.Ops[I], &Y = B.Tables.Ops[I];
      if (X.Step != Y.Step || X.Peer != Y.Peer || X.Flags != Y.Flags ||
          X.Seg != Y.Seg || X.NumSegs != Y.NumSegs || X.Wait != Y.Wait)
        return false;
    }
    return true;
  };
  return A.Algorithm == B.Algorithm && A.Tables.RankOps == B.Tables.RankOps &&
         A.Tables.Ops.size() == B.Tables.Ops.size() &&
         A.Tables.Segs.size() == B.Tables.Segs.size() &&
         A.Tables.Waits == B.Tables.Waits && SameOps();
}

/// One kind and its good cache file.
struct Planted {
  TempDir Dir;
  int Coll;
  std::vector<int64_t> Nodes;
  int32_t Root;
  uint64_t Bytes;
  std::string Path; ///< The kind's cache file.
  uint64_t CacheKey = 0;
  Schedule Good; ///< What the file holds.
  std::unique_ptr<Engine> Builder;
  const Entry *Built = nullptr;

  Planted(int Coll, std::vector<int64_t> Nodes, int32_t Root, uint64_t Bytes)
      : Coll(Coll), Nodes(std::move(Nodes)), Root(Root), Bytes(Bytes) {
    Builder = engineIn(Dir.str());
    Key K = kindOf(*Builder, Coll, this->Nodes, Root, Bytes);
    Built = &Builder->get(K);
    REQUIRE(Built->Error.empty());
    REQUIRE(!Built->FromFile);
    CacheKey = Builder->cacheKey(K);
    Path = cacheFilePath(Dir.str(), CacheKey);
    std::string Text = slurp(Path);
    llvm::Expected<Schedule> S =
        parseCacheText(Text, Path, CacheKey, Builder->machine());
    REQUIRE(S);
    Good = std::move(*S);
  }

  /// A later process's entry for the kind (read, or rebuilt).
  const Entry &later(std::unique_ptr<Engine> &Holder) {
    Holder = engineIn(Dir.str());
    return Holder->get(kindOf(*Holder, Coll, Nodes, Root, Bytes));
  }

  /// Plants \p S as the kind's file, key and checksum right, and checks
  /// that a later process refuses it with a note containing \p Why and
  /// serves the tables a fresh build gives.
  void refuses(const Schedule &S, const std::string &Why) {
    spit(Path, cacheFileText(CacheKey, S, Builder->machine()));
    refusesFile(Why);
  }

  void refusesFile(const std::string &Why) {
    std::unique_ptr<Engine> Holder;
    auto T0 = std::chrono::steady_clock::now();
    const Entry &E = later(Holder);
    CHECK(std::chrono::steady_clock::now() - T0 < std::chrono::seconds(20));
    CAPTURE(E.CacheNote);
    CHECK(!E.FromFile);
    CHECK(E.Error.empty());
    CHECK(E.CacheNote.find(Why) != std::string::npos);
    CHECK(sameTables(E, *Built));
  }
};

/// The first transfer that carries data, its pieces explicit.
Transfer &firstData(Schedule &S) {
  for (Step &St : S.Steps)
    for (Transfer &T : St.Transfers)
      if (T.Kind != TransferKind::Signal) {
        if (T.Pieces.empty())
          T.Pieces.push_back(S.wholeMessage());
        return T;
      }
  FAIL("no data transfer");
  return S.Steps[0].Transfers[0];
}

} // namespace

TEST_CASE("dropin cache: a good file is read, verified and gives the same "
          "tables; two runs write the same bytes") {
  Planted P(rt::Gather, {3, 1, 4, 0, 5, 9}, 1, 20000);
  std::unique_ptr<Engine> Holder;
  const Entry &E = P.later(Holder);
  CHECK(E.FromFile);
  CHECK(E.CacheNote.empty());
  CHECK(sameTables(E, *P.Built));
  // No uninitialised byte, nothing of the process: another build of the
  // same kind writes the same file.
  Planted Q(rt::Gather, {3, 1, 4, 0, 5, 9}, 1, 20000);
  CHECK(slurp(P.Path) == slurp(Q.Path));
  struct stat St;
  REQUIRE(::stat(P.Path.c_str(), &St) == 0);
  CHECK((St.st_mode & 0777) == 0600);
}

TEST_CASE("dropin cache: crafted schedules with the checksum recomputed are "
          "refused and rebuilt") {
  for (int Coll : {rt::Bcast, rt::Gather, rt::Allreduce, rt::Alltoall}) {
    CAPTURE(Coll);
    Planted P(Coll, {2, 7, 1, 8, 3}, Coll == rt::Gather ? 3 : 0, 3000);
    const int32_t N = P.Good.size();
    auto Mutated = [&](const std::function<void(Schedule &)> &F) {
      Schedule S = P.Good;
      F(S);
      return S;
    };
    SUBCASE("chunks beyond the message") {
      P.refuses(Mutated([](Schedule &S) {
                  firstData(S).Pieces[0].Chunks.Hi = S.NumChunks + 3;
                }),
                "fails verification");
    }
    SUBCASE("an origin beyond the ranks") {
      P.refuses(Mutated([&](Schedule &S) {
                  firstData(S).Pieces[0].Origins = {0, int64_t(N) + 40};
                }),
                "fails verification");
    }
    SUBCASE("2^40 chunks") {
      P.refuses(Mutated([](Schedule &S) { S.NumChunks = int64_t(1) << 40; }),
                "not used");
    }
    SUBCASE("a combine where the collective has no accumulator, or a copy "
            "where it folds") {
      P.refuses(Mutated([](Schedule &S) {
                  Transfer &T = firstData(S);
                  T.Kind = T.Kind == TransferKind::Combine
                               ? TransferKind::Copy
                               : TransferKind::Combine;
                }),
                "not used");
    }
    SUBCASE("a wrong peer") {
      P.refuses(Mutated([&](Schedule &S) {
                  Transfer &T = firstData(S);
                  do
                    T.Dst = (T.Dst + 1) % N;
                  while (T.Dst == T.Src);
                }),
                "fails verification");
    }
    SUBCASE("a rank sending to itself") {
      P.refuses(Mutated([](Schedule &S) {
                  Transfer &T = firstData(S);
                  T.Dst = T.Src;
                }),
                "fails verification");
    }
    SUBCASE("a send turned into a receive") {
      P.refuses(Mutated([](Schedule &S) {
                  Transfer &T = firstData(S);
                  std::swap(T.Src, T.Dst);
                }),
                "fails verification");
    }
    SUBCASE("steps in reverse: each rank waits for what follows") {
      // (A direct all-to-all's steps are independent: reversed, it is
      // another correct schedule.)
      if (P.Good.Steps.size() > 1 && Coll != rt::Alltoall)
        P.refuses(Mutated([](Schedule &S) {
                    std::reverse(S.Steps.begin(), S.Steps.end());
                  }),
                  "fails verification");
    }
    SUBCASE("an empty schedule") {
      P.refuses(Mutated([](Schedule &S) { S.Steps.clear(); }),
                "fails verification");
    }
    SUBCASE("zero-byte messages") {
      P.refuses(Mutated([](Schedule &S) {
                  for (Step &St : S.Steps)
                    for (Transfer &T : St.Transfers)
                      T.Bytes = 0;
                }),
                "not used");
    }
    SUBCASE("another root") {
      P.refuses(Mutated([&](Schedule &S) { S.Root = (S.Root + 1) % N; }),
                "not used");
    }
    SUBCASE("the ranks on other nodes") {
      P.refuses(Mutated([](Schedule &S) {
                  std::swap(S.Participants[0], S.Participants[1]);
                }),
                "its rank 0 is on node");
    }
    SUBCASE("another size") {
      P.refuses(Mutated([](Schedule &S) { S.Bytes += 1; }), "built for");
    }
    SUBCASE("an algorithm collc does not have, named with escapes") {
      P.refuses(Mutated([](Schedule &S) { S.Algorithm = "x\x1b[2J\ny"; }),
                "is not one of collc's");
    }
  }
}

TEST_CASE("dropin cache: another kind's valid schedule is refused") {
  // A verified schedule of the same ranks, planted under the kind's key:
  // another root, then another collective.
  Planted P(rt::Bcast, {0, 1, 2, 3, 4, 5}, 2, 5000);
  Machine M = P.Builder->machine();
  Request R = llvm::cantFail(
      P.Builder->requestOf(kindOf(*P.Builder, rt::Bcast, P.Nodes, 2, 5000)));
  R.Root = 4;
  llvm::Expected<Schedule> OtherRoot = compile(M, R);
  REQUIRE(OtherRoot);
  P.refuses(*OtherRoot, "its root is 4, not 2");
  R.Coll = Collective::Scatter;
  R.Algorithm = "auto";
  llvm::Expected<Schedule> Scatter = compile(M, R);
  REQUIRE(Scatter);
  P.refuses(*Scatter, "it holds scatter, not the bcast asked for");
}

TEST_CASE("dropin cache: files that are not the cache's own are refused at "
          "once") {
  Planted P(rt::Allgather, {5, 4, 3, 2}, 0, 4096);
  const std::string Good = slurp(P.Path);
  SUBCASE("writable by others") {
    spit(P.Path, Good, 0666);
    P.refusesFile("may be written by other users (mode 0666)");
  }
  SUBCASE("owned by another user") {
    if (::geteuid() != 0)
      return; // only root can give a file away
    spit(P.Path, Good);
    REQUIRE(::chown(P.Path.c_str(), 65534, 65534) == 0);
    P.refusesFile("is owned by another user (uid 65534)");
  }
  SUBCASE("a link to a good file") {
    std::string Elsewhere = P.Dir.str() + "/elsewhere";
    spit(Elsewhere, Good);
    ::unlink(P.Path.c_str());
    REQUIRE(::symlink(Elsewhere.c_str(), P.Path.c_str()) == 0);
    P.refusesFile("is a symbolic link");
  }
  SUBCASE("a link to /dev/zero") {
    ::unlink(P.Path.c_str());
    REQUIRE(::symlink("/dev/zero", P.Path.c_str()) == 0);
    P.refusesFile("is a symbolic link");
  }
  SUBCASE("a FIFO nobody writes") {
    ::unlink(P.Path.c_str());
    REQUIRE(::mkfifo(P.Path.c_str(), 0600) == 0);
    P.refusesFile("is a FIFO");
  }
  SUBCASE("a directory") {
    ::unlink(P.Path.c_str());
    REQUIRE(::mkdir(P.Path.c_str(), 0700) == 0);
    P.refusesFile("is a directory");
  }
  SUBCASE("larger than any input") {
    spit(P.Path, Good);
    REQUIRE(::truncate(P.Path.c_str(), off_t(300) << 20) == 0);
    P.refusesFile("more than the 256 MiB an input may be");
  }
  SUBCASE("another format, key or checksum") {
    spit(P.Path, "clcdrop1" + Good);
    P.refusesFile("is not a collc cache file of this version");
    std::string OtherKey = Good;
    OtherKey[14] = OtherKey[14] == '0' ? '1' : '0';
    spit(P.Path, OtherKey);
    P.refusesFile("holds another kind of call");
    std::string Damaged = Good;
    Damaged[Damaged.size() - 3] ^= 1;
    spit(P.Path, Damaged);
    P.refusesFile("is damaged (its checksum does not match)");
  }
  SUBCASE("JSON that is not a schedule, checksum right") {
    const std::string Json = "{\"collective\": \"bcast\", \"steps\": 7}";
    std::string Text = Good.substr(0, 30) + " ";
    char Sum[17];
    std::snprintf(Sum, sizeof Sum, "%016llx",
                  (unsigned long long)fnv1a(Json.data(), Json.size()));
    spit(P.Path, Text + Sum + "\n" + Json);
    P.refusesFile(P.Path + ":2:");
  }
}

TEST_CASE("dropin cache: a directory others may write is not used") {
  TempDir D;
  REQUIRE(::chmod(D.Path.c_str(), 0777) == 0);
  std::unique_ptr<Engine> E = engineIn(D.str());
  REQUIRE(E->notes().size() == 1);
  CHECK(E->notes()[0].find("may be written by other users (mode 0777)") !=
        std::string::npos);
  CHECK(E->config().CacheDir.empty());
  E->get(kindOf(*E, rt::Bcast, {0, 1, 2}, 0, 10));
  std::error_code EC;
  CHECK(llvm::sys::fs::directory_iterator(D.Path, EC) ==
        llvm::sys::fs::directory_iterator());
  // A missing directory is made, private.
  std::string Fresh = D.str() + "/made";
  REQUIRE(::chmod(D.Path.c_str(), 0700) == 0);
  std::unique_ptr<Engine> F = engineIn(Fresh);
  CHECK(F->notes().empty());
  struct stat St;
  REQUIRE(::stat(Fresh.c_str(), &St) == 0);
  CHECK((St.st_mode & 0777) == 0700);
}

TEST_CASE("dropin cache: the fuzzer's seeds are schedules the reader "
          "accepts") {
  // tests/fuzz/CacheFuzzer.cpp wraps each seed in a header with the right
  // key and checksum; the seeds must get past every check, or the fuzzer
  // would spend its time in front of the checksum.
  llvm::Expected<Machine> M = loadMachine(MachinePath);
  REQUIRE(M);
  Engine E(*M, Config{}, 7);
  const std::pair<const char *, int> Seeds[] = {{"bcast-5", rt::Bcast},
                                                {"gather-5", rt::Gather},
                                                {"allreduce-5", rt::Allreduce}};
  for (const auto &Seed : Seeds) {
    const char *Name = Seed.first;
    const int Coll = Seed.second;
    CAPTURE(Name);
    Key K =
        kindOf(E, Coll, {0, 1, 2, 3, 4}, Coll == rt::Allreduce ? 0 : 2, 3000);
    const uint64_t CK = E.cacheKey(K);
    std::string Json =
        slurp(std::string(COLLC_SOURCE_DIR "/tests/fuzz/corpus/cache/") + Name +
              ".json");
    char Header[64];
    std::snprintf(Header, sizeof Header, "collc-cache 2 %016llx %016llx\n",
                  (unsigned long long)CK,
                  (unsigned long long)fnv1a(Json.data(), Json.size()));
    std::string Why;
    std::unique_ptr<Entry> Got = E.fromCacheText(Header + Json, Name, CK, K,
                                                 cantFail(E.requestOf(K)), Why);
    CAPTURE(Why);
    REQUIRE(Got);
    CHECK(Got->Error.empty());
  }
}
