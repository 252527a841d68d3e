//===- netcheck: the evaluator's side of the comparisons with SMPI --------===//
//
//   collc-netcheck routes PLATFORM|MACHINE-FILE
//       every route of the platform's machine (tests/network/Platforms.h),
//       or of a machine file (a spec or a SimGrid platform: what --machine
//       reads), "a b: from->to#lane ..." in vertex numbers (passes/Routes.h);
//   collc-netcheck schedule PLATFORM COLLECTIVE ALGORITHM BYTES OUT.json
//       builds, costs (the network evaluator) and verifies the schedule on
//       the platform's 256 ranks (root 0; reductions sum int32), writes it
//       as JSON and prints "makespan <µs>".
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver.h"
#include "ir/ScheduleJson.h"
#include "passes/Routes.h"
#include "readers/MachineSpec.h"
#include "tests/network/Platforms.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <numeric>

using namespace collc;

int main(int argc, char **argv) {
  if (argc < 3) {
    llvm::errs() << "usage: collc-netcheck routes PLATFORM | schedule "
                    "PLATFORM COLLECTIVE ALGORITHM BYTES OUT.json\n";
    return 1;
  }
  std::string Mode = argv[1];
  std::optional<Machine> M = test::smpiPlatform(argv[2]);
  if (!M && Mode == "routes" && llvm::sys::fs::exists(argv[2])) {
    llvm::Expected<Machine> File = loadMachine(argv[2]);
    if (!File) {
      llvm::errs() << "collc-netcheck: " << llvm::toString(File.takeError())
                   << "\n";
      return 1;
    }
    M = std::move(*File);
  }
  if (!M) {
    llvm::errs() << "collc-netcheck: unknown platform '" << argv[2] << "'\n";
    return 1;
  }
  if (Mode == "routes") {
    std::vector<Channel> R;
    for (int64_t A = 0; A < M->Topo.Nodes; ++A)
      for (int64_t B = 0; B < M->Topo.Nodes; ++B) {
        if (A == B)
          continue;
        R.clear();
        llvm::cantFail(appendRoute(M->Topo, A, B, R));
        llvm::outs() << A << " " << B << ":";
        for (const Channel &C : R)
          llvm::outs() << " " << C.From << "->" << C.To << "#" << C.Lane;
        llvm::outs() << "\n";
      }
    return 0;
  }
  if (Mode != "schedule" || argc != 7) {
    llvm::errs() << "collc-netcheck: bad arguments\n";
    return 1;
  }
  auto Coll = parseCollective(argv[3]);
  if (!Coll) {
    llvm::errs() << "collc-netcheck: unknown collective '" << argv[3] << "'\n";
    return 1;
  }
  Request R;
  R.Coll = *Coll;
  R.Nodes.resize(M->Topo.Nodes);
  std::iota(R.Nodes.begin(), R.Nodes.end(), 0);
  R.Algorithm = argv[4];
  R.Bytes = std::strtoull(argv[5], nullptr, 10);
  if (R.Coll == Collective::Reduce || R.Coll == Collective::Allreduce ||
      R.Coll == Collective::Scan || R.Coll == Collective::Exscan) {
    R.Op = "sum";
    R.Datatype = "int32";
  }
  auto S = compile(*M, R);
  if (!S) {
    llvm::errs() << "collc-netcheck: " << llvm::toString(S.takeError()) << "\n";
    return 1;
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(argv[6], EC, llvm::sys::fs::OF_Text);
  if (EC) {
    llvm::errs() << "collc-netcheck: " << argv[6] << ": " << EC.message()
                 << "\n";
    return 1;
  }
  writeScheduleJson(OS, *S, &*M);
  llvm::outs() << "algorithm " << S->Algorithm << "\nmakespan "
               << llvm::format("%.4f", S->Makespan) << "\n";
  return 0;
}
