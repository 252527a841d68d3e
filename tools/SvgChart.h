/// \file
/// A minimal SVG line chart, enough for the barrier figures: axes with
/// ticks, one polyline with markers per series, a legend. No dependencies.
#ifndef COLLC_TOOLS_SVGCHART_H
#define COLLC_TOOLS_SVGCHART_H

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace collc::barrier {

struct Series {
  std::string Name;
  std::string Color; ///< Any SVG color, e.g. "#1f77b4".
  std::vector<std::pair<double, double>> Points;
};

struct Chart {
  std::string Title, XLabel, YLabel;
  std::vector<Series> Lines;
  /// Y axis starts at 0 unless false.
  bool YFromZero = true;
};

/// Writes \p C as a standalone SVG document (640 x 420).
void writeSvg(std::ostream &OS, const Chart &C);

} // namespace collc::barrier

#endif
