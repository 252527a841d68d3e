#include "passes/Pipeline.h"

#include "ir/ScheduleJson.h"

#include "llvm/Support/Format.h"

namespace collc {

Pipeline::~Pipeline() {
  if (!O.TimePasses || !O.Log)
    return;
  double Total = 0;
  for (const Timed &T : Times)
    if (T.Depth == 0)
      Total += T.Seconds;
  *O.Log << "===-- collc pass timing --===\n";
  for (const Timed &T : Times)
    *O.Log << llvm::format("  %10.6f s  %5.1f%%  ", T.Seconds,
                           Total > 0 ? 100 * T.Seconds / Total : 0.0)
           << std::string(2 * T.Depth, ' ') << T.Name << "\n";
  *O.Log << llvm::format("  %10.6f s  100.0%%  total\n", Total);
}

void Pipeline::after(const llvm::Twine &Name, const Schedule &S,
                     const Machine &M) {
  if (!O.PrintAfterAll || !O.Log)
    return;
  *O.Log << "// *** IR after " << Name << " ***\n";
  writeScheduleJson(*O.Log, S, &M);
}

void Pipeline::note(const llvm::Twine &Text) {
  if (O.TimePasses && O.Log)
    *O.Log << "collc: note: " << Text << "\n";
}

} // namespace collc
