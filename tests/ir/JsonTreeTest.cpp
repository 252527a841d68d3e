#include "ir/JsonTree.h"

#include <doctest/doctest.h>

#include <string>

using namespace collc;

TEST_CASE("json tree: every value and key knows where it starts") {
  std::string Text = "{\"a\": [1, -2.5e3, \"x\"],\n \"b\" :{\"c\":null}, "
                     "\"d\": true, \"e\": 18446744073709551615}";
  JsonNode Root;
  JsonError Err;
  REQUIRE(parseJsonTree(Text, Root, Err));
  REQUIRE(Root.isObject());
  REQUIRE(Root.Members.size() == 4);
  const JsonNode &A = *Root.find("a");
  CHECK(A.Offset == Text.find('['));
  REQUIRE(A.Items.size() == 3);
  CHECK(A.Items[0].Offset == Text.find('1'));
  CHECK(A.Items[0].Int == 1);
  CHECK(A.Items[1].Offset == Text.find("-2.5e3"));
  CHECK(A.Items[1].Num == -2500);
  CHECK(A.Items[2].Offset == Text.find("\"x\""));
  CHECK(Root.Members[1].KeyOffset == Text.find("\"b\""));
  const JsonNode &B = *Root.find("b");
  CHECK(B.Offset == Text.find("{\"c\""));
  CHECK(B.find("c")->Offset == Text.find("null"));
  CHECK(Root.find("d")->Offset == Text.find("true"));
  const JsonNode &E = *Root.find("e");
  CHECK(E.Huge);
  CHECK(E.Offset == Text.find("1844"));
}

TEST_CASE("json tree: duplicates, depth and numbers beyond a double") {
  JsonNode Root;
  JsonError Err;
  std::string Dup = "{\"a\": 1, \"a\": 2}";
  REQUIRE(!parseJsonTree(Dup, Root, Err));
  CHECK(Err.Message == "duplicate key 'a'");
  CHECK(Err.Offset == Dup.rfind("\"a\""));
  CHECK(parseJsonTree(Dup, Root, Err, /*RejectDuplicateKeys=*/false));

  std::string Deep(100000, '[');
  REQUIRE(!parseJsonTree(Deep, Root, Err));
  CHECK(Err.Message == "expected at most 64 levels of nesting");
  CHECK(Err.Offset == 64);
  std::string Fine = std::string(64, '[') + std::string(64, ']');
  CHECK(parseJsonTree(Fine, Root, Err));

  std::string Big = "[0, 1e999]";
  REQUIRE(!parseJsonTree(Big, Root, Err));
  CHECK(Err.Message ==
        "expected a number within the range of a double, got '1e999'");
  CHECK(Err.Offset == 4);
}

TEST_CASE("json tree: a located error shows the line and a caret") {
  CHECK(locatedError("{\n  \"a\": x\n}", "f.json", 9, "bad") ==
        "f.json:2:8: error: bad\n  \"a\": x\n       ^");
}
