#include "sim/ScheduleSim.h"

#include "ir/Format.h"
#include "passes/Contention.h"
#include "passes/Dependencies.h"

#include <unordered_map>

namespace collc {

llvm::Error checkSimulatable(const Machine &M) {
  if (M.M.Kind != ModelKind::Wormhole)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the simulator needs a wormhole model (model: {kind: wormhole, s_s, "
        "s_d, c_d, r_s, r_d}); machine '%s' has a %s model",
        M.Name.c_str(), modelKindName(M.M.Kind));
  if (!isRouted(M.Topo) || M.Topo.Kind == TopologyKind::Star ||
      M.Topo.Kind == TopologyKind::MacroStar ||
      M.Topo.Kind == TopologyKind::Min)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the simulator runs on mesh, torus, hypercube and full topologies; "
        "machine '%s' is a %s",
        M.Name.c_str(), topologyKindName(M.Topo.Kind));
  return llvm::Error::success();
}

sim::WormTiming wormTiming(const Model &M) {
  sim::WormTiming T;
  T.Ss = M.Worm.Ss;
  T.Sd = M.Worm.Sd;
  T.Cd = M.Worm.Cd;
  T.Rs = M.Worm.Rs;
  T.Rd = M.Worm.Rd;
  return T;
}

llvm::Expected<ScheduleSim> prepareSimulation(const Schedule &S,
                                              const Machine &M) {
  if (llvm::Error E = checkSimulatable(M))
    return E;
  ScheduleSim Out;
  sim::SimInput &In = Out.Input;
  In.Ranks = S.size();
  In.Ports = std::max(1u, M.Ports);
  const uint64_t NumT = S.numTransfers();
  In.Messages.reserve(NumT);
  Out.Hops.reserve(NumT);

  std::unordered_map<uint64_t, uint32_t> ChannelIds;
  std::vector<Channel> Path;
  TransferDependencies Deps = transferDependencies(S);
  In.Deps = std::move(Deps.Deps);
  uint32_t Id = 0;
  for (const Step &St : S.Steps) {
    for (const Transfer &T : St.Transfers) {
      sim::SimMessage Msg;
      Msg.Src = T.Src;
      Msg.Dst = T.Dst;
      Msg.Flits = M.M.Worm.flits(T.Bytes);
      Path.clear();
      if (llvm::Error E =
              appendRoute(M.Topo, S.Participants[T.Src].Node,
                          S.Participants[T.Dst].Node, Path, T.TieDown))
        return E;
      Msg.RouteBegin = static_cast<uint32_t>(In.Route.size());
      for (const Channel &C : Path) {
        uint64_t Key =
            (static_cast<uint64_t>(C.From) << 32) | static_cast<uint64_t>(C.To);
        auto [It, New] = ChannelIds.try_emplace(
            Key, static_cast<uint32_t>(Out.Channels.size()));
        if (New)
          Out.Channels.push_back(C);
        In.Route.push_back(It->second);
      }
      Msg.RouteEnd = static_cast<uint32_t>(In.Route.size());
      Msg.DepBegin = static_cast<uint32_t>(Deps.Begin[Id]);
      Msg.DepEnd = static_cast<uint32_t>(Deps.Begin[Id + 1]);
      ++Id;
      In.Messages.push_back(Msg);
      Out.Hops.push_back(static_cast<unsigned>(Path.size()));
      Out.Bytes.push_back(T.Bytes);
    }
  }
  In.NumChannels = static_cast<uint32_t>(Out.Channels.size());
  return Out;
}

llvm::Expected<ScheduleSim> simulateSchedule(const Schedule &S,
                                             const Machine &M) {
  auto Out = prepareSimulation(S, M);
  if (!Out)
    return Out.takeError();
  Out->Result = sim::simulate(Out->Input, wormTiming(M.M));
  Out->ModelEnd.resize(Out->Input.Messages.size());
  for (size_t W = 0; W < Out->ModelEnd.size(); ++W)
    Out->ModelEnd[W] =
        Out->Result.Messages[W].Start + M.M.tEnd(Out->Bytes[W], Out->Hops[W]);
  return Out;
}

std::string deadlockReport(const ScheduleSim &Sim, const Schedule &S,
                           const Machine &M, size_t MaxCycle) {
  const sim::SimResult &R = Sim.Result;
  if (!R.deadlocked())
    return "";
  TransferIds Ids(S);
  auto Name = [&](uint32_t W) {
    return "transfer " + std::to_string(W) + " (" +
           describeTransfer(S, M, Ids.ref(W)) + ")";
  };
  std::string Out = std::to_string(R.Stuck.size()) + " of " +
                    std::to_string(R.Messages.size()) +
                    " transfers never completed; nothing moved after " +
                    formatNumber(R.StopTime) + " (" +
                    std::to_string(R.Waits.size()) +
                    " worms wait for channels, their blocked time counted up "
                    "to then)";
  std::vector<sim::SimWait> Cycle = sim::deadlockCycle(R);
  if (Cycle.empty()) {
    Out += "; no worm waits for a channel: the first stuck transfer, " +
           Name(R.Stuck.front()) + ", waits for data that never arrives\n";
    return Out;
  }
  Out += "\nworms waiting for each other's channels in a cycle of " +
         std::to_string(Cycle.size()) + ":\n";
  for (size_t I = 0; I < Cycle.size() && I < MaxCycle; ++I)
    Out += "  " + Name(Cycle[I].Message) + " waits for channel " +
           channelName(M.Topo, Sim.Channels[Cycle[I].Channel]) +
           ", held by transfer " + std::to_string(Cycle[I].Holder) + "\n";
  if (Cycle.size() > MaxCycle)
    Out += "  ... and " + std::to_string(Cycle.size() - MaxCycle) +
           " more, back to transfer " + std::to_string(Cycle[0].Message) + "\n";
  return Out;
}

} // namespace collc
