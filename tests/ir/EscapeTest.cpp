// User text in generated files (ir/Escape.h): one line, printable, and in
// C, DOT and JSON never more than text.
#include "ir/Escape.h"
#include "ir/ScheduleJson.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace collc;

namespace {
// Newline, comment end, quote, backslash, `#`, trigraph, a right-to-left
// override (U+202E), a byte that is not UTF-8, and a backslash at the end.
const std::string Hostile =
    "a\nb */ \" \\ # ?\?= \xe2\x80\xae \xff Z\xc3\xbcrich \\";
} // namespace

TEST_CASE("escape.printable-text: one line, controls and hidden characters "
          "spelled out, printable UTF-8 kept") {
  CHECK(printableText("ibm-sp") == "ibm-sp");
  CHECK(printableText(Hostile) ==
        "a\\nb */ \" \\\\ # ?\?= \\u{202e} \\xff Z\xc3\xbcrich \\\\");
  CHECK(printableText(std::string("\t\r\x01\x7f", 4)) == "\\t\\r\\x01\\x7f");
  // C1 controls and U+2028 (a line break to some readers) are escaped.
  CHECK(printableText("\xc2\x85|\xe2\x80\xa8") == "\\u{0085}|\\u{2028}");
}

TEST_CASE("escape.c-comment: no trigraph, no backslash at the end") {
  CHECK(cComment("ibm-sp") == "ibm-sp");
  CHECK(cComment(Hostile) ==
        "a\\nb */ \" \\\\ # ?\\x3f= \\u{202e} \\xff Z\xc3\xbcrich \\x5c");
  CHECK(cComment("?\?\?/") == "?\\x3f\\x3f/");
  CHECK(cComment("\\\\") == "\\\\\\x5c");
}

TEST_CASE("escape.c-string: the exact bytes, nothing that a compiler reads "
          "as more") {
  CHECK(cStringLiteral("binomial") == "\"binomial\"");
  CHECK(cStringLiteral(Hostile) ==
        "\"a\\012b */ \\\" \\\\ # \\?\\?= \\342\\200\\256 \\377 "
        "Z\\303\\274rich \\\\\"");
  // An octal escape has three digits: a digit after it stays a digit.
  CHECK(cStringLiteral("\x01"
                       "7") == "\"\\0017\"");
}

TEST_CASE("escape.dot: quotes and backslashes escaped, shown as printable "
          "text") {
  CHECK(dotString("a\"b\\c\nd") == "a\\\"b\\\\\\\\c\\\\nd");
}

TEST_CASE("escape.json: valid UTF-8 reads back as written") {
  std::string Valid = "a\nb */ \" \\ # ?\?= \xe2\x80\xae Z\xc3\xbcrich \\\x01";
  REQUIRE(isValidUtf8(Valid));
  auto J = nlohmann::json::parse(jsonString(Valid));
  CHECK(J.get<std::string>() == Valid);
  size_t Off = 0;
  CHECK_FALSE(isValidUtf8(Hostile, &Off));
  CHECK(Off == Hostile.find('\xff'));
  // A byte that is not UTF-8 still gives JSON that parses.
  CHECK(nlohmann::json::parse(jsonString("\xff")).get<std::string>() ==
        "\xef\xbf\xbd");
}
