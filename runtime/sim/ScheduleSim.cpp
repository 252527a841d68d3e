#include "runtime/sim/ScheduleSim.h"

#include "ir/Format.h"
#include "passes/Contention.h"

#include <unordered_map>

namespace collc {

namespace {

/// Whether a transfer's data depends on one received earlier: the rule of
/// passes/Cost.cpp (pieces meet; signals depend on everything).
bool meets(const Transfer &Sent, const Transfer &Got) {
  if (Sent.Kind == TransferKind::Signal || Got.Kind == TransferKind::Signal)
    return true;
  for (const Piece &A : Sent.Pieces)
    for (const Piece &B : Got.Pieces)
      if (A.intersects(B))
        return true;
  return false;
}

} // namespace

std::vector<std::vector<uint32_t>> transferDependencies(const Schedule &S) {
  std::vector<std::vector<uint32_t>> Deps;
  Deps.reserve(S.numTransfers());
  std::vector<std::vector<uint32_t>> Into(S.size());
  std::vector<const Transfer *> ById;
  for (const Step &St : S.Steps) {
    size_t First = ById.size();
    for (const Transfer &T : St.Transfers) {
      std::vector<uint32_t> D;
      for (uint32_t W : Into[T.Src])
        if (meets(T, *ById[W]))
          D.push_back(W);
      Deps.push_back(std::move(D));
      ById.push_back(&T);
    }
    for (size_t W = First; W < ById.size(); ++W)
      Into[ById[W]->Dst].push_back(static_cast<uint32_t>(W));
  }
  return Deps;
}

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
  // Transfers received so far, per rank: a singly linked list through
  // Received (Head[r] = newest, -1 = none), as in passes/Cost.cpp.
  std::vector<int64_t> Head(In.Ranks, -1);
  std::vector<std::pair<uint32_t, int64_t>> Received;
  std::vector<const Transfer *> ById;
  ById.reserve(NumT);
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
      Msg.DepBegin = static_cast<uint32_t>(In.Deps.size());
      for (int64_t I = Head[T.Src]; I >= 0; I = Received[I].second)
        if (meets(T, *ById[Received[I].first]))
          In.Deps.push_back(Received[I].first);
      Msg.DepEnd = static_cast<uint32_t>(In.Deps.size());
      In.Messages.push_back(Msg);
      Out.Hops.push_back(static_cast<unsigned>(Path.size()));
      Out.Bytes.push_back(T.Bytes);
      ById.push_back(&T);
    }
    // Receives of a step count only for later steps.
    for (uint32_t W = static_cast<uint32_t>(Received.size()); W < ById.size();
         ++W) {
      Received.push_back({W, Head[ById[W]->Dst]});
      Head[ById[W]->Dst] = static_cast<int64_t>(Received.size()) - 1;
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
  std::vector<TransferRef> Refs;
  for (uint32_t St = 0; St < S.Steps.size(); ++St)
    for (uint32_t I = 0; I < S.Steps[St].Transfers.size(); ++I)
      Refs.push_back({St, I});
  auto Name = [&](uint32_t W) {
    return "transfer " + std::to_string(W) + " (" +
           describeTransfer(S, M, Refs[W]) + ")";
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
