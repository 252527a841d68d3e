// The chart writer of the figures (tools/SvgChart.h): axes, ticks, series
// styles across panels, what a log axis leaves out, escaped text.
#include "tools/SvgChart.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

std::string svg(const Chart &C) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeSvgChart(OS, C);
  return Text;
}

size_t count(llvm::StringRef S, llvm::StringRef What) { return S.count(What); }

} // namespace

TEST_CASE("svg chart: linear axes from zero with 1-2-5 ticks, a marker per "
          "point, escaped text") {
  Chart C;
  C.Title = "a < b & c";
  ChartPanel P;
  P.X = {"x", false, true};
  P.Y = {"y \"quoted\"", false, true};
  P.Lines = {{"one", {{1, 10}, {2, 20}, {3, 35}}}, {"two", {{1, 5}, {3, 7}}}};
  C.Panels = {P};
  std::string S = svg(C);
  CHECK(S.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(S.find("</svg>\n") == S.size() - 7);
  CHECK(S.find(">a &lt; b &amp; c</text>") != std::string::npos);
  CHECK(S.find(">y &quot;quoted&quot;</text>") != std::string::npos);
  // y: 0..35 in steps of 5 (35 / 6 rounds to 5); x: 0..3 in steps of 0.5.
  CHECK(S.find("text-anchor=\"end\">0</text>") != std::string::npos);
  CHECK(S.find("text-anchor=\"end\">35</text>") != std::string::npos);
  CHECK(S.find("text-anchor=\"end\">40</text>") == std::string::npos);
  CHECK(S.find("text-anchor=\"middle\">2.5</text>") != std::string::npos);
  // Two polylines; markers: 5 points and 2 legend entries.
  CHECK(count(S, "<polyline") == 2);
  CHECK(count(S, "<circle") == 3 + 1);
  CHECK(count(S, "<rect x=") == 1 /* frame */ + 1 /* legend */ + 2 + 1);
}

TEST_CASE("svg chart: log axes tick every decade and leave out values <= 0; "
          "a series keeps its color in every panel") {
  Chart C;
  C.Title = "log";
  C.Markers = false;
  ChartPanel A, B;
  A.X = B.X = {"bytes", true};
  A.Y = B.Y = {"time", true};
  A.Lines = {{"first", {{0, 5}, {4, 20}, {1048576, 9000}}},
             {"second", {{4, 30}, {1048576, 8000}}}};
  B.Lines = {{"second", {{8, 40}}}, {"first", {{8, 50}}}};
  C.Panels = {A, B};
  std::string S = svg(C);
  for (const char *Tick : {">1e0<", ">1e7<", ">1e1<", ">1e4<"})
    CHECK(S.find(Tick) != std::string::npos);
  CHECK(S.find(">1e8<") == std::string::npos);
  CHECK(S.find("<circle") == std::string::npos);
  // "first" is red and "second" blue in both panels, whatever their order.
  size_t Red = count(S, "stroke=\"#d62728\""),
         Blue = count(S, "stroke=\"#1f77b4\"");
  CHECK(Red == 4); // two polylines, two legend swatches
  CHECK(Blue == 4);
  // x = 0 is left out of the first series: three points drawn as two.
  size_t Line = S.find("<polyline fill=\"none\" stroke=\"#d62728\"");
  REQUIRE(Line != std::string::npos);
  std::string Points = S.substr(S.find("points=\"", Line) + 8);
  Points = Points.substr(0, Points.find('"'));
  CHECK(count(Points, ",") == 2);
}
