#include "tools/SvgChart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace collc::barrier {

namespace {

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
    else
      Out += C;
  }
  return Out;
}

/// A "nice" tick step (1, 2 or 5 times a power of ten) for about \p N ticks.
double niceStep(double Span, int N) {
  if (Span <= 0)
    return 1;
  double Raw = Span / N;
  double Mag = std::pow(10.0, std::floor(std::log10(Raw)));
  double F = Raw / Mag;
  return (F < 1.5 ? 1 : F < 3.5 ? 2 : F < 7.5 ? 5 : 10) * Mag;
}

} // namespace

void writeSvg(std::ostream &OS, const Chart &C) {
  const double W = 640, H = 420, L = 70, R = 20, T = 40, B = 55;
  double X0 = INFINITY, X1 = -INFINITY, Y0 = INFINITY, Y1 = -INFINITY;
  for (const Series &S : C.Lines)
    for (auto [X, Y] : S.Points) {
      X0 = std::min(X0, X);
      X1 = std::max(X1, X);
      Y0 = std::min(Y0, Y);
      Y1 = std::max(Y1, Y);
    }
  if (!std::isfinite(X0)) {
    X0 = Y0 = 0;
    X1 = Y1 = 1;
  }
  if (C.YFromZero)
    Y0 = std::min(0.0, Y0);
  double YStep = niceStep(Y1 - Y0, 6);
  Y0 = std::floor(Y0 / YStep) * YStep;
  Y1 = std::ceil(Y1 / YStep) * YStep;
  if (Y1 <= Y0)
    Y1 = Y0 + YStep;
  if (X1 <= X0)
    X1 = X0 + 1;
  double XStep = niceStep(X1 - X0, 8);
  auto PX = [&](double X) { return L + (X - X0) / (X1 - X0) * (W - L - R); };
  auto PY = [&](double Y) {
    return H - B - (Y - Y0) / (Y1 - Y0) * (H - T - B);
  };

  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W
     << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " " << H
     << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  OS << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  OS << "<text x=\"" << W / 2
     << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" << esc(C.Title)
     << "</text>\n";
  // Grid and ticks.
  for (double Y = Y0; Y <= Y1 + YStep / 2; Y += YStep) {
    OS << "<line x1=\"" << L << "\" x2=\"" << W - R << "\" y1=\"" << num(PY(Y))
       << "\" y2=\"" << num(PY(Y)) << "\" stroke=\"#e0e0e0\"/>\n";
    OS << "<text x=\"" << L - 6 << "\" y=\"" << num(PY(Y) + 4)
       << "\" text-anchor=\"end\">" << num(Y) << "</text>\n";
  }
  for (double X = std::ceil(X0 / XStep) * XStep; X <= X1 + XStep / 2;
       X += XStep) {
    OS << "<line x1=\"" << num(PX(X)) << "\" x2=\"" << num(PX(X)) << "\" y1=\""
       << H - B << "\" y2=\"" << H - B + 5 << "\" stroke=\"black\"/>\n";
    OS << "<text x=\"" << num(PX(X)) << "\" y=\"" << H - B + 18
       << "\" text-anchor=\"middle\">" << num(X) << "</text>\n";
  }
  OS << "<polyline fill=\"none\" stroke=\"black\" points=\"" << L << "," << T
     << " " << L << "," << H - B << " " << W - R << "," << H - B << "\"/>\n";
  OS << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 12
     << "\" text-anchor=\"middle\">" << esc(C.XLabel) << "</text>\n";
  OS << "<text transform=\"translate(18," << (T + H - B) / 2
     << ") rotate(-90)\" text-anchor=\"middle\">" << esc(C.YLabel)
     << "</text>\n";
  // Series and legend.
  for (size_t I = 0; I < C.Lines.size(); ++I) {
    const Series &S = C.Lines[I];
    OS << "<polyline fill=\"none\" stroke=\"" << S.Color
       << "\" stroke-width=\"2\" points=\"";
    for (auto [X, Y] : S.Points)
      OS << num(PX(X)) << "," << num(PY(Y)) << " ";
    OS << "\"/>\n";
    for (auto [X, Y] : S.Points)
      OS << "<circle cx=\"" << num(PX(X)) << "\" cy=\"" << num(PY(Y))
         << "\" r=\"3\" fill=\"" << S.Color << "\"/>\n";
    double LY = T + 10 + 18 * static_cast<double>(I);
    OS << "<line x1=\"" << L + 15 << "\" x2=\"" << L + 40 << "\" y1=\"" << LY
       << "\" y2=\"" << LY << "\" stroke=\"" << S.Color
       << "\" stroke-width=\"2\"/>\n";
    OS << "<text x=\"" << L + 46 << "\" y=\"" << LY + 4 << "\">" << esc(S.Name)
       << "</text>\n";
  }
  OS << "</svg>\n";
}

} // namespace collc::barrier
