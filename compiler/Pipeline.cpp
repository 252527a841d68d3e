#include "compiler/Pipeline.h"

#include "ir/ScheduleJson.h"

#include "llvm/Support/Format.h"

namespace collc {

Pipeline::~Pipeline() {
  if (!O.TimePasses || !O.Log)
    return;
  double Total = 0;
  for (auto &[N, T] : Times)
    Total += T;
  *O.Log << "===-- collc pass timing --===\n";
  for (auto &[N, T] : Times)
    *O.Log << llvm::format("  %10.6f s  %5.1f%%  ", T,
                           Total > 0 ? 100 * T / Total : 0.0)
           << N << "\n";
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
