#include "backends/Traces.h"
#include "ir/Escape.h"
#include "ir/Format.h"
#include "passes/Routes.h"
#include "sim/ScheduleSim.h"

#include "llvm/Support/Format.h"

#include <algorithm>

namespace collc {

llvm::Error checkSimCompletes(const Schedule &S, const Machine &M) {
  auto Sim = simulateSchedule(S, M);
  if (!Sim)
    return Sim.takeError();
  if (Sim->Result.deadlocked())
    return llvm::createStringError(
        std::make_error_code(std::errc::resource_deadlock_would_occur),
        "the network deadlocked: %s", deadlockReport(*Sim, S, M).c_str());
  return llvm::Error::success();
}

void emitSimReport(llvm::raw_ostream &OS, const Schedule &S, const Machine &M) {
  auto Sim = simulateSchedule(S, M);
  if (!Sim) {
    // main checks checkSimulatable() before compiling, so only a topology
    // without routes can end here; say so in the report.
    OS << "# collc wormhole simulation: " << llvm::toString(Sim.takeError())
       << "\n";
    return;
  }
  const sim::SimResult &R = Sim->Result;
  if (R.deadlocked()) {
    // main runs checkSimCompletes() first and stops there; say it anyway.
    OS << "# collc wormhole simulation: the network deadlocked: "
       << deadlockReport(*Sim, S, M);
    return;
  }
  const Model &Mo = M.M;
  uint64_t BlockedCount = 0;
  for (const sim::SimMessageResult &MR : R.Messages)
    BlockedCount += MR.Blocked > 0;

  OS << "# collc wormhole simulation (times in the machine's unit)\n";
  OS << "algorithm   " << printableText(S.Algorithm) << " ("
     << collectiveName(S.Coll) << ", " << S.size() << " ranks, " << S.Bytes
     << " bytes)\n";
  OS << "machine     " << printableText(M.Name) << ": "
     << topologyKindName(M.Topo.Kind);
  for (size_t I = 0; I < M.Topo.Dims.size(); ++I)
    OS << (I ? "x" : " ") << M.Topo.Dims[I];
  OS << ", s_s " << formatNumber(Mo.Worm.Ss) << ", s_d "
     << formatNumber(Mo.Worm.Sd) << ", c_d " << formatNumber(Mo.Worm.Cd)
     << ", r_s " << formatNumber(Mo.Worm.Rs) << ", r_d "
     << formatNumber(Mo.Worm.Rd) << ", " << Mo.Worm.FlitBytes
     << " byte(s) per flit\n";
  OS << "makespan    " << formatNumber(R.Makespan) << " (model "
     << formatNumber(S.Makespan) << ")\n";
  OS << "blocked     " << formatNumber(R.TotalBlocked) << " in total, "
     << BlockedCount << " of " << R.Messages.size() << " transfers blocked\n";
  OS << "events      " << R.Events << "\n";
  OS << "deadlock    none\n";

  OS << "\ntransfers:\n";
  OS << "    id  step    src    dst      bytes  hops        start       inject"
        "    blocked          end    model_end\n";
  uint32_t W = 0;
  for (size_t St = 0; St < S.Steps.size(); ++St)
    for (const Transfer &T : S.Steps[St].Transfers) {
      const sim::SimMessageResult &MR = R.Messages[W];
      OS << llvm::format("%6u %5zu %6d %6d %10llu %5u ", W, St, T.Src, T.Dst,
                         static_cast<unsigned long long>(T.Bytes),
                         Sim->Hops[W]);
      OS << llvm::format(
          "%12s %12s %10s %12s %12s\n", formatNumber(MR.Start).c_str(),
          formatNumber(MR.Inject).c_str(), formatNumber(MR.Blocked).c_str(),
          formatNumber(MR.End).c_str(), formatNumber(Sim->ModelEnd[W]).c_str());
      ++W;
    }

  OS << "\nchannels (busy time, busiest first):\n";
  std::vector<uint32_t> Order(Sim->Channels.size());
  for (uint32_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  std::stable_sort(Order.begin(), Order.end(), [&](uint32_t A, uint32_t B) {
    return R.ChannelBusy[A] > R.ChannelBusy[B];
  });
  for (uint32_t C : Order)
    OS << llvm::format("  %-24s %12s\n",
                       channelName(M.Topo, Sim->Channels[C]).c_str(),
                       formatNumber(R.ChannelBusy[C]).c_str());
}

} // namespace collc
