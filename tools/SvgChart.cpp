#include "tools/SvgChart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace collc {

namespace {

// Layout in pixels: every panel has a plot area of PlotW x PlotH with its
// tick labels and axis labels in the margins left of and below it.
constexpr double PlotW = 460, PlotH = 300, Left = 80, Right = 20, Top = 45,
                 Bottom = 55;
/// About one character at font size 12, and at the title's 15.
constexpr double CharW = 6.5, TitleCharW = 8;

const char *const Colors[] = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e",
                              "#9467bd", "#8c564b", "#e377c2", "#17becf",
                              "#7f7f7f", "#bcbd22"};
constexpr size_t NumColors = sizeof(Colors) / sizeof(*Colors);
constexpr size_t NumMarks = 4; ///< Circle, square, diamond, triangle.

std::string num(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.6g", V);
  return Buf;
}

std::string esc(const std::string &S) {
  std::string Out;
  for (char C : S) {
    if (C == '<')
      Out += "&lt;";
    else if (C == '>')
      Out += "&gt;";
    else if (C == '&')
      Out += "&amp;";
    else if (C == '"')
      Out += "&quot;";
    else
      Out += C;
  }
  return Out;
}

/// 1, 2 or 5 times a power of ten, for about \p N ticks over \p Span.
double niceStep(double Span, int N) {
  double Raw = Span / N;
  double Mag = std::pow(10.0, std::floor(std::log10(Raw)));
  double F = Raw / Mag;
  return (F < 1.5 ? 1 : F < 3.5 ? 2 : F < 7.5 ? 5 : 10) * Mag;
}

/// An axis: its range, its ticks and where a value lands in pixels.
class Scale {
public:
  /// \p Min, \p Max: the values shown (infinite when none); the axis runs
  /// from pixel \p From to pixel \p To, with about \p Ticks ticks.
  Scale(const ChartAxis &A, double Min, double Max, int Ticks, double From,
        double To)
      : Log(A.Log), From(From), To(To) {
    if (!(Min <= Max)) {
      Min = Log ? 1 : 0;
      Max = Log ? 10 : 1;
    }
    if (Log) {
      Lo = std::floor(std::log10(Min));
      Hi = std::ceil(std::log10(Max));
      Step = 1;
    } else {
      Lo = A.FromZero ? std::min(0.0, Min) : Min;
      Hi = Max;
      if (Hi <= Lo)
        Hi = Lo + 1;
      Step = niceStep(Hi - Lo, Ticks);
      Lo = std::floor(Lo / Step) * Step;
      Hi = std::ceil(Hi / Step) * Step;
    }
    if (Hi <= Lo)
      Hi = Lo + Step;
  }

  double operator()(double V) const {
    double T = Log ? std::log10(V) : V;
    return From + (T - Lo) / (Hi - Lo) * (To - From);
  }

  /// (pixel, label) of every tick.
  std::vector<std::pair<double, std::string>> ticks() const {
    std::vector<std::pair<double, std::string>> Out;
    for (int I = 0; Lo + I * Step <= Hi + Step / 2; ++I) {
      double T = Lo + I * Step;
      double Pixel = From + (T - Lo) / (Hi - Lo) * (To - From);
      Out.push_back(
          {Pixel, Log ? "1e" + std::to_string(static_cast<int>(T)) : num(T)});
    }
    return Out;
  }

private:
  bool Log;
  double From, To;
  double Lo = 0, Hi = 1, Step = 1; ///< In log10 units on a log axis.
};

void marker(llvm::raw_ostream &OS, size_t Shape, double X, double Y,
            const char *Color) {
  switch (Shape % NumMarks) {
  case 0:
    OS << "<circle cx=\"" << num(X) << "\" cy=\"" << num(Y)
       << "\" r=\"3\" fill=\"" << Color << "\"/>\n";
    break;
  case 1:
    OS << "<rect x=\"" << num(X - 3) << "\" y=\"" << num(Y - 3)
       << "\" width=\"6\" height=\"6\" fill=\"" << Color << "\"/>\n";
    break;
  case 2:
    OS << "<polygon points=\"" << num(X) << "," << num(Y - 4) << " "
       << num(X + 4) << "," << num(Y) << " " << num(X) << "," << num(Y + 4)
       << " " << num(X - 4) << "," << num(Y) << "\" fill=\"" << Color
       << "\"/>\n";
    break;
  default:
    OS << "<polygon points=\"" << num(X) << "," << num(Y - 4) << " "
       << num(X + 4) << "," << num(Y + 3) << " " << num(X - 4) << ","
       << num(Y + 3) << "\" fill=\"" << Color << "\"/>\n";
    break;
  }
}

void writePanel(llvm::raw_ostream &OS, const ChartPanel &P, double X0,
                const std::vector<std::string> &Names, bool Markers) {
  const double Y0 = Top;
  double XMin = INFINITY, XMax = -INFINITY, YMin = INFINITY, YMax = -INFINITY;
  auto Shown = [&](double X, double Y) {
    return std::isfinite(X) && std::isfinite(Y) && (!P.X.Log || X > 0) &&
           (!P.Y.Log || Y > 0);
  };
  for (const ChartSeries &S : P.Lines)
    for (auto [X, Y] : S.Points)
      if (Shown(X, Y)) {
        XMin = std::min(XMin, X);
        XMax = std::max(XMax, X);
        YMin = std::min(YMin, Y);
        YMax = std::max(YMax, Y);
      }
  Scale SX(P.X, XMin, XMax, 8, X0, X0 + PlotW);
  Scale SY(P.Y, YMin, YMax, 6, Y0 + PlotH, Y0);

  // Grid, ticks, frame, axis labels.
  for (auto [Y, Label] : SY.ticks()) {
    OS << "<line x1=\"" << num(X0) << "\" x2=\"" << num(X0 + PlotW)
       << "\" y1=\"" << num(Y) << "\" y2=\"" << num(Y)
       << "\" stroke=\"#e0e0e0\"/>\n";
    OS << "<text x=\"" << num(X0 - 6) << "\" y=\"" << num(Y + 4)
       << "\" text-anchor=\"end\">" << Label << "</text>\n";
  }
  for (auto [X, Label] : SX.ticks()) {
    OS << "<line x1=\"" << num(X) << "\" x2=\"" << num(X) << "\" y1=\""
       << num(Y0) << "\" y2=\"" << num(Y0 + PlotH + 5)
       << "\" stroke=\"#e0e0e0\"/>\n";
    OS << "<text x=\"" << num(X) << "\" y=\"" << num(Y0 + PlotH + 19)
       << "\" text-anchor=\"middle\">" << Label << "</text>\n";
  }
  OS << "<rect x=\"" << num(X0) << "\" y=\"" << num(Y0) << "\" width=\""
     << num(PlotW) << "\" height=\"" << num(PlotH)
     << "\" fill=\"none\" stroke=\"black\"/>\n";
  if (!P.X.Label.empty())
    OS << "<text x=\"" << num(X0 + PlotW / 2) << "\" y=\""
       << num(Y0 + PlotH + 42) << "\" text-anchor=\"middle\">" << esc(P.X.Label)
       << "</text>\n";
  if (!P.Y.Label.empty())
    OS << "<text transform=\"translate(" << num(X0 - 62) << ","
       << num(Y0 + PlotH / 2) << ") rotate(-90)\" text-anchor=\"middle\">"
       << esc(P.Y.Label) << "</text>\n";

  // The lines, then the legend above them.
  auto Style = [&](const ChartSeries &S) {
    size_t I = std::find(Names.begin(), Names.end(), S.Name) - Names.begin();
    return std::make_pair(Colors[I % NumColors], I);
  };
  for (const ChartSeries &S : P.Lines) {
    auto [Color, Shape] = Style(S);
    std::vector<std::pair<double, double>> XY;
    for (auto [X, Y] : S.Points)
      if (Shown(X, Y))
        XY.push_back({SX(X), SY(Y)});
    OS << "<polyline fill=\"none\" stroke=\"" << Color
       << "\" stroke-width=\"1.8\" points=\"";
    for (size_t I = 0; I < XY.size(); ++I)
      OS << (I ? " " : "") << num(XY[I].first) << "," << num(XY[I].second);
    OS << "\"/>\n";
    if (Markers)
      for (auto [X, Y] : XY)
        marker(OS, Shape, X, Y, Color);
  }
  if (P.Lines.empty())
    return;
  size_t Longest = 0;
  for (const ChartSeries &S : P.Lines)
    Longest = std::max(Longest, S.Name.size());
  const double LX = X0 + 10, LY = Y0 + 10, Row = 18;
  OS << "<rect x=\"" << num(LX) << "\" y=\"" << num(LY) << "\" width=\""
     << num(48 + CharW * static_cast<double>(Longest)) << "\" height=\""
     << num(Row * static_cast<double>(P.Lines.size()) + 6)
     << "\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#c0c0c0\"/>\n";
  for (size_t I = 0; I < P.Lines.size(); ++I) {
    auto [Color, Shape] = Style(P.Lines[I]);
    double Y = LY + 3 + Row * (static_cast<double>(I) + 0.5);
    OS << "<line x1=\"" << num(LX + 6) << "\" x2=\"" << num(LX + 34)
       << "\" y1=\"" << num(Y) << "\" y2=\"" << num(Y) << "\" stroke=\""
       << Color << "\" stroke-width=\"2\"/>\n";
    if (Markers)
      marker(OS, Shape, LX + 20, Y, Color);
    OS << "<text x=\"" << num(LX + 40) << "\" y=\"" << num(Y + 4) << "\">"
       << esc(P.Lines[I].Name) << "</text>\n";
  }
}

} // namespace

void writeSvgChart(llvm::raw_ostream &OS, const Chart &C) {
  std::vector<std::string> Names; // Series in order of first appearance.
  for (const ChartPanel &P : C.Panels)
    for (const ChartSeries &S : P.Lines)
      if (std::find(Names.begin(), Names.end(), S.Name) == Names.end())
        Names.push_back(S.Name);
  // As wide as the panels or the title, the panels centred.
  const double N = static_cast<double>(std::max<size_t>(1, C.Panels.size()));
  const double PanelsW = N * (Left + PlotW) + Right;
  const double W =
      std::max(PanelsW, TitleCharW * static_cast<double>(C.Title.size()) + 40);
  const double H = Top + PlotH + Bottom;
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(W)
     << "\" height=\"" << num(H) << "\" viewBox=\"0 0 " << num(W) << " "
     << num(H) << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  OS << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  OS << "<text x=\"" << num(W / 2)
     << "\" y=\"26\" text-anchor=\"middle\" font-size=\"15\">" << esc(C.Title)
     << "</text>\n";
  for (size_t I = 0; I < C.Panels.size(); ++I)
    writePanel(OS, C.Panels[I],
               (W - PanelsW) / 2 + Left +
                   static_cast<double>(I) * (Left + PlotW),
               Names, C.Markers);
  OS << "</svg>\n";
}

} // namespace collc
