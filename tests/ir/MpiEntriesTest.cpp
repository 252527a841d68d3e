// README.md's table of what the drop-in library serves against the one list
// of MPI entry points (ir/MpiEntries.h): a row per entry, in the list's
// order, and each call collc passes on with the reason the library says.

#include "ir/MpiEntries.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// An entry of the list: its blocking call's name after "MPI_", and the
/// reason the drop-in says when it passes the call on (null for the
/// collectives of collc's own).
struct ListEntry {
  const char *Name;
  const char *Why;
};

#define COLLC_TEST_ENTRY(Coll, ICall, Shape, Extra) {#Coll, nullptr},
#define COLLC_TEST_OTHER(Coll, ICall, Shape, Why, Extra) {#Coll, Why},
const ListEntry Entries[] = {COLLC_MPI_COLLECTIVES(COLLC_TEST_ENTRY, )
                                 COLLC_MPI_OTHERS(COLLC_TEST_OTHER, )};
#undef COLLC_TEST_ENTRY
#undef COLLC_TEST_OTHER

/// The table's rows: the lines that start with "| `MPI_", split in cells.
std::vector<std::vector<std::string>> tableRows(const std::string &Text) {
  std::vector<std::vector<std::string>> Rows;
  std::istringstream In(Text);
  for (std::string Line; std::getline(In, Line);) {
    llvm::StringRef L(Line);
    if (!L.startswith("| `MPI_"))
      continue;
    llvm::SmallVector<llvm::StringRef, 8> Cells;
    L.trim().drop_front().drop_back().split(Cells, " | ");
    std::vector<std::string> Row;
    for (llvm::StringRef C : Cells)
      Row.push_back(C.trim().str());
    Rows.push_back(std::move(Row));
  }
  return Rows;
}

} // namespace

TEST_CASE("README's table of what the drop-in serves follows the list of MPI "
          "entry points") {
  std::ifstream F(COLLC_SOURCE_DIR "/README.md");
  REQUIRE(F);
  std::stringstream Buf;
  Buf << F.rdbuf();
  const std::vector<std::vector<std::string>> Rows = tableRows(Buf.str());
  REQUIRE(Rows.size() == std::size(Entries));
  for (size_t I = 0; I < Rows.size(); ++I) {
    const ListEntry &E = Entries[I];
    const std::vector<std::string> &Row = Rows[I];
    CAPTURE(E.Name);
    REQUIRE(Row.size() == 5);
    CHECK(Row[0] == "`MPI_" + std::string(E.Name) + "`");
    if (!E.Why) {
      // A collective of collc's: served in every form.
      CHECK(Row[1] == "served");
      CHECK(Row[2] == "served");
      CHECK(Row[3] == "served");
      continue;
    }
    // Passed on, or served only in some cases: never plainly "served", and
    // the reason is the one the drop-in says.
    CHECK(Row[1] != "served");
    llvm::StringRef Why(E.Why);
    REQUIRE(Why.consume_front("collc: "));
    CHECK(Row[4] == Why.str());
  }
}
