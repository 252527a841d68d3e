#include "compiler/Select.h"

#include "ir/Diagnostic.h"

namespace collc {

llvm::Expected<std::pair<uint64_t, uint64_t>>
parseBytesRange(llvm::StringRef Text) {
  auto [L, H] = Text.split(':');
  uint64_t Lo = 0, Hi = 0;
  if (!Text.contains(':') || L.trim().getAsInteger(10, Lo) ||
      H.trim().getAsInteger(10, Hi) || Lo > Hi || Hi > MaxBytes)
    return error("--bytes-range: expected LO:HI with 0 <= LO <= HI <= %llu, "
                 "got '%s'",
                 static_cast<unsigned long long>(MaxBytes), Text.str().c_str());
  return std::make_pair(Lo, Hi);
}

namespace {

struct Pick {
  std::string Algorithm;
  int64_t Segments = 1;
  double Time = 0;
};

/// The auto policy at one size.
class Selector {
public:
  Selector(const Machine &M, const Request &Base, const CostJudge &Judge,
           const ChooseOptions &Opts)
      : M(M), Base(Base), Judge(Judge), Opts(Opts) {}

  llvm::Expected<Pick> at(uint64_t Bytes) {
    Request R = Base;
    R.Bytes = Bytes;
    R.Algorithm = "auto";
    PipelineOptions Quiet;
    Pipeline P(Quiet);
    auto S = chooseSchedule(M, R, Judge, P, Opts);
    if (!S)
      return S.takeError();
    return Pick{S->Algorithm, S->NumChunks, S->Makespan};
  }

private:
  const Machine &M;
  const Request &Base;
  const CostJudge &Judge;
  const ChooseOptions &Opts;
};

} // namespace

llvm::Expected<Selection> selectBands(const Machine &M, const Request &Base,
                                      uint64_t Lo, uint64_t Hi,
                                      const CostJudge &Judge,
                                      const ChooseOptions &Opts) {
  // Reductions take whole elements: work in units of one element.
  const uint64_t Unit = elementBytes(Base.Datatype);
  uint64_t ULo = (Lo + Unit - 1) / Unit, UHi = Hi / Unit;
  if (ULo > UHi)
    return error("--bytes-range: no multiple of %llu (the size of %s) in "
                 "[%llu, %llu]",
                 static_cast<unsigned long long>(Unit), Base.Datatype.c_str(),
                 static_cast<unsigned long long>(Lo),
                 static_cast<unsigned long long>(Hi));
  Selector Sel(M, Base, Judge, Opts);
  std::vector<uint64_t> Samples{ULo};
  for (uint64_t X = 1; X <= UHi && X < (uint64_t(1) << 62); X *= 2)
    if (X > ULo)
      Samples.push_back(X);
  if (Samples.back() != UHi)
    Samples.push_back(UHi);
  std::vector<SizeBand> Bands;
  auto Add = [&](uint64_t U, const Pick &P) {
    if (Bands.empty() || Bands.back().Algorithm != P.Algorithm) {
      Bands.push_back({U * Unit, U * Unit, P.Algorithm, P.Segments, P.Segments,
                       P.Time, P.Time});
    } else {
      Bands.back().Hi = U * Unit;
      Bands.back().SegmentsAtHi = P.Segments;
      Bands.back().TimeAtHi = P.Time;
    }
  };
  auto First = Sel.at(ULo * Unit);
  if (!First)
    return First.takeError();
  Pick Prev = *First;
  Add(ULo, Prev);
  uint64_t PrevU = ULo;
  for (size_t I = 1; I < Samples.size(); ++I) {
    uint64_t U = Samples[I];
    auto Cur = Sel.at(U * Unit);
    if (!Cur)
      return Cur.takeError();
    // Bisect (PrevU, U] for the first size where the winner changes.
    uint64_t A = PrevU, B = U;
    Pick PA = Prev, PB = *Cur;
    while (PA.Algorithm != PB.Algorithm && B - A > 1) {
      uint64_t Mid = A + (B - A) / 2;
      auto PM = Sel.at(Mid * Unit);
      if (!PM)
        return PM.takeError();
      if (PM->Algorithm == PA.Algorithm) {
        A = Mid;
        PA = *PM;
      } else {
        B = Mid;
        PB = *PM;
      }
    }
    Add(A, PA);
    Add(B, PB);
    if (B != U)
      Add(U, *Cur);
    Prev = *Cur;
    PrevU = U;
  }
  return Selection{Base, Judge.Description, std::move(Bands)};
}

} // namespace collc
