#include "compiler/Run.h"

#include "compiler/Select.h"
#include "passes/Contention.h"

namespace collc {

llvm::Expected<RunResult> runPlan(const Machine *M, const RunPlan &P) {
  RunResult Out;
  const bool Reading = !P.ScheduleFiles.empty();
  for (const std::string &Path : P.ScheduleFiles) {
    auto S = loadSchedule(Path, M, P.Compile);
    if (!S)
      return S.takeError();
    Out.Schedules.push_back(std::move(*S));
  }
  if (!Reading && P.Select) {
    const Request &R = P.Set->Requests[0].R;
    Pipeline Pl(P.Compile);
    auto Bands = selectBands(*M, R, P.Range.Lo, P.Range.Hi,
                             modelJudge(P.Verify), P.Choose, &Pl);
    if (!Bands)
      return Bands.takeError();
    Out.Sel = std::move(*Bands);
  } else if (!Reading) {
    CompileOptions CO = P.Compile;
    CO.ContentionFree = P.Verify;
    auto Built = compileSet(*M, *P.Set, CO, {CO.Log, 1.0});
    if (!Built)
      return Built.takeError();
    for (SetSchedule &S : *Built) {
      Out.Schedules.push_back(std::move(S.S));
      Out.Bands.push_back(S.Band);
    }
  }
  for (const Schedule &S : Out.Schedules)
    if (P.Verify && M && Reading)
      if (llvm::Error E = requireContentionFree(S, *M))
        return E;
  // Without a machine a read schedule keeps its file's times (null: none).
  if (M) {
    for (const Schedule &S : Out.Schedules)
      if (llvm::Error E = requireFiniteTimes(S, *M))
        return E;
    if (Out.Sel)
      if (llvm::Error E = requireFiniteTimes(*Out.Sel, *M))
        return E;
  }
  return Out;
}

} // namespace collc
