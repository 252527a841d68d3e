/// \file
/// SVG line charts, the one chart writer of collc's figures: the simulators'
/// experiments (docs/figures, docs/barrier) and paper 001's sweep (bench/).
///
/// A chart is a title over one or more panels side by side. A panel has an x
/// and a y axis, each linear (ticks at 1, 2 or 5 times a power of ten) or
/// base-10 logarithmic (ticks at powers of ten), one line per series and a
/// legend in its upper left corner. A series keeps its color and marker in
/// every panel: they follow the order in which series names first appear.
#ifndef COLLC_TOOLS_SVGCHART_H
#define COLLC_TOOLS_SVGCHART_H

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace collc {

/// One line: (x, y) points, drawn in the order given.
struct ChartSeries {
  std::string Name; ///< The legend's text.
  std::vector<std::pair<double, double>> Points;
};

struct ChartAxis {
  std::string Label; ///< Empty: no label.
  /// Logarithmic, base 10; points with a value <= 0 on it are left out.
  bool Log = false;
  /// Linear: the axis starts at 0 (or below, for negative values) rather
  /// than near the smallest value.
  bool FromZero = false;
};

struct ChartPanel {
  ChartAxis X, Y;
  std::vector<ChartSeries> Lines;
};

struct Chart {
  std::string Title;
  std::vector<ChartPanel> Panels; ///< Left to right.
  bool Markers = true;            ///< A marker on every point.
};

/// Writes \p C as a standalone SVG document.
void writeSvgChart(llvm::raw_ostream &OS, const Chart &C);

} // namespace collc

#endif
