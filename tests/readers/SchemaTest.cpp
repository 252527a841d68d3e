#include "readers/Schema.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

enum class Shape { Circle, Square };

struct Sizes {
  double R = 0, Side = 0, Weight = 0;
};

/// Reads \p Text as a `shape` section; the kind read or the error.
std::string readShape(const char *Text, Sizes &Out,
                      const char *RFromCommandLine = nullptr) {
  Document D(llvm::MemoryBufferRef(Text, "s.yaml"));
  const DocNode *Root = D.root("shape");
  if (!Root)
    return llvm::toString(D.takeError());
  Section S{
      "shape",
      {"circle", "square"},
      {{"r", Presence::Required, numberField(Out.R), kinds(Shape::Circle)},
       {"side", Presence::Required, numberField(Out.Side),
        kinds(Shape::Square)},
       {"weight", Presence::Optional, numberField(Out.Weight)}}};
  SectionReader R(D, S);
  if (RFromCommandLine) {
    if (!R.checkKeys(*Root, "shape"))
      return llvm::toString(D.takeError());
    R.set("r", D.commandLine("--r", RFromCommandLine));
    if (!R.readField("r"))
      return llvm::toString(D.takeError());
    return "r";
  }
  if (!R.read(*Root, "shape"))
    return llvm::toString(D.takeError());
  return S.KindNames[R.kind()].str();
}

std::string firstLine(const std::string &S) {
  return S.substr(0, S.find('\n'));
}

} // namespace

TEST_CASE("schema: a section with kinds reads the fields of its kind") {
  Sizes O;
  CHECK(readShape("kind: circle\nr: 2\nweight: 1\n", O) == "circle");
  CHECK(O.R == 2);
  CHECK(O.Weight == 1);
  Sizes Q;
  CHECK(readShape("{kind: square, side: 3}", Q) == "square");
  CHECK(Q.Side == 3);
}

TEST_CASE("schema: every mistake in a section is reported the same way") {
  Sizes O;
  auto Error = [&](const char *Text) { return firstLine(readShape(Text, O)); };
  CHECK(Error("kind: square\nr: 2\n") ==
        "s.yaml:2:4: error: 'r' does not apply to a square shape; expected: "
        "side");
  CHECK(Error("kind: square\n") ==
        "s.yaml:1:1: error: missing key 'side' in a square shape");
  CHECK(Error("r: 1\n") == "s.yaml:1:1: error: missing key 'kind' in shape");
  CHECK(Error("kind: hexagon\n") ==
        "s.yaml:1:7: error: unknown shape kind 'hexagon'; expected one of: "
        "circle, square");
  CHECK(Error("kind: circle\nradius: 2\n") ==
        "s.yaml:2:1: error: unknown key 'radius' in shape; expected one of: "
        "kind, r, side, weight");
  CHECK(Error("kind: circle\nr: 1\nr: 2\n") ==
        "s.yaml:3:1: error: duplicate key 'r' in shape");
  CHECK(Error("kind: circle\nr: -1\n") ==
        "s.yaml:2:4: error: expected a number >= 0 for 'r', got '-1'");
}

TEST_CASE("schema: a command-line value is read by its field's reader") {
  Sizes O;
  CHECK(readShape("kind: circle\nr: 1\n", O, "2.5") == "r");
  CHECK(O.R == 2.5);
  CHECK(readShape("kind: circle\n", O, "-1") ==
        "--r: expected a number >= 0 for 'r', got '-1'");
}
