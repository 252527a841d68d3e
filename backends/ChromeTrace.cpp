#include "backends/Traces.h"
#include "ir/Escape.h"
#include "ir/Format.h"
#include "passes/Routes.h"
#include "sim/ScheduleSim.h"

namespace collc {

namespace {

/// Thread ids inside each rank's process.
enum : int { SendThread = 1, RecvThread = 2 };

/// Writes the comma-separated event list of one trace.
class TraceWriter {
public:
  explicit TraceWriter(llvm::raw_ostream &OS) : OS(OS) {}

  void begin() { OS << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n"; }
  void end(llvm::StringRef Source) {
    OS << "\n], \"otherData\": {\"generator\": \"collc\", \"times\": \""
       << Source << "\"}}\n";
  }

  void processes(const Schedule &S, const Machine &M) {
    for (int32_t R = 0; R < S.size(); ++R) {
      std::string Name = "rank " + std::to_string(R) + " (node " +
                         nodeName(M.Topo, S.Participants[R].Node) + ")";
      event() << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " << R
              << ", \"args\": {\"name\": " << jsonString(Name) << "}}";
      event() << "{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": "
              << R << ", \"args\": {\"sort_index\": " << R << "}}";
      event() << "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " << R
              << ", \"tid\": " << SendThread
              << ", \"args\": {\"name\": \"send\"}}";
      event() << "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " << R
              << ", \"tid\": " << RecvThread
              << ", \"args\": {\"name\": \"recv\"}}";
    }
  }

  /// A complete slice; \p Args is a JSON object body (may be empty).
  void slice(llvm::StringRef Name, int32_t Pid, int Tid, double Ts, double Dur,
             const std::string &Args) {
    event() << "{\"ph\": \"X\", \"name\": \"" << Name << "\", \"pid\": " << Pid
            << ", \"tid\": " << Tid << ", \"ts\": " << formatNumber(Ts)
            << ", \"dur\": " << formatNumber(Dur) << ", \"args\": {" << Args
            << "}}";
  }

  /// A flow arrow from the slice at (Pid, Tid, Ts) to the one at the end.
  void flow(uint32_t Id, int32_t FromPid, double FromTs, int32_t ToPid,
            double ToTs) {
    event() << "{\"ph\": \"s\", \"name\": \"transfer\", \"cat\": \"transfer\", "
               "\"id\": "
            << Id << ", \"pid\": " << FromPid << ", \"tid\": " << SendThread
            << ", \"ts\": " << formatNumber(FromTs) << "}";
    event() << "{\"ph\": \"f\", \"bp\": \"e\", \"name\": \"transfer\", "
               "\"cat\": \"transfer\", \"id\": "
            << Id << ", \"pid\": " << ToPid << ", \"tid\": " << RecvThread
            << ", \"ts\": " << formatNumber(ToTs) << "}";
  }

  /// An async slice (its own track in the process): a worm in the network.
  void async(llvm::StringRef Name, uint32_t Id, int32_t Pid, double Ts,
             double Te, const std::string &Args) {
    event() << "{\"ph\": \"b\", \"name\": \"" << Name
            << "\", \"cat\": \"network\", \"id\": " << Id
            << ", \"pid\": " << Pid << ", \"ts\": " << formatNumber(Ts)
            << ", \"args\": {" << Args << "}}";
    event() << "{\"ph\": \"e\", \"name\": \"" << Name
            << "\", \"cat\": \"network\", \"id\": " << Id
            << ", \"pid\": " << Pid << ", \"ts\": " << formatNumber(Te) << "}";
  }

private:
  llvm::raw_ostream &event() {
    OS << (First ? "" : ",\n");
    First = false;
    return OS;
  }
  llvm::raw_ostream &OS;
  bool First = true;
};

std::string transferArgs(uint32_t Id, const Transfer &T, size_t Step) {
  return "\"transfer\": " + std::to_string(Id) +
         ", \"step\": " + std::to_string(Step) +
         ", \"src\": " + std::to_string(T.Src) +
         ", \"dst\": " + std::to_string(T.Dst) +
         ", \"bytes\": " + std::to_string(T.Bytes) + ", \"kind\": \"" +
         transferKindName(T.Kind) + "\"";
}

/// The receive overhead the model implies: the wormhole model's r_s + m r_d,
/// else t_hold (the gap the model keeps between two receives of a port).
double receiveTime(const Machine &M, const Transfer &T) {
  if (M.M.Kind == ModelKind::Wormhole) {
    return M.M.Worm.Rs +
           static_cast<double>(M.M.Worm.flits(T.Bytes)) * M.M.Worm.Rd;
  }
  return M.M.tHold(T.Bytes);
}

/// Writes the whole trace of \p S: the processes, then \p Each(W, Id, T,
/// Args) for every transfer in schedule order (Id its number, Args its
/// common arguments), then the end, whose times come from \p Source.
template <typename F>
void writeTrace(llvm::raw_ostream &OS, const Schedule &S, const Machine &M,
                llvm::StringRef Source, F &&Each) {
  TraceWriter W(OS);
  W.begin();
  W.processes(S, M);
  uint32_t Id = 0;
  for (size_t St = 0; St < S.Steps.size(); ++St)
    for (const Transfer &T : S.Steps[St].Transfers) {
      Each(W, Id, T, transferArgs(Id, T, St));
      ++Id;
    }
  W.end(Source);
}

} // namespace

void emitChromeTrace(llvm::raw_ostream &OS, const Schedule &S,
                     const Machine &M) {
  writeTrace(OS, S, M, "model",
             [&](TraceWriter &W, uint32_t Id, const Transfer &T,
                 const std::string &Args) {
               double Hold = std::min(M.M.tHold(T.Bytes), T.End - T.Start);
               double Recv = std::min(receiveTime(M, T), T.End - T.Start);
               W.slice("send to " + std::to_string(T.Dst), T.Src, SendThread,
                       T.Start, Hold, Args);
               W.slice("recv from " + std::to_string(T.Src), T.Dst, RecvThread,
                       T.End - Recv, Recv, Args);
               W.flow(Id, T.Src, T.Start, T.Dst, T.End - Recv);
             });
}

void emitChromeTraceSim(llvm::raw_ostream &OS, const Schedule &S,
                        const Machine &M) {
  auto Sim = simulateSchedule(S, M);
  if (!Sim) {
    // main checks checkSimulatable() first; keep the output valid JSON.
    OS << "{\"traceEvents\": [], \"otherData\": {\"error\": "
       << jsonString(llvm::toString(Sim.takeError())) << "}}\n";
    return;
  }
  writeTrace(OS, S, M, "simulated",
             [&](TraceWriter &W, uint32_t Id, const Transfer &T,
                 const std::string &Args) {
               const sim::SimMessageResult &R = Sim->Result.Messages[Id];
               if (R.End == 0 && Sim->Result.deadlocked())
                 return; // never completed: a deadlocked network
               W.slice("send to " + std::to_string(T.Dst), T.Src, SendThread,
                       R.Start, R.Inject - R.Start, Args);
               std::string Net =
                   Args + ", \"hops\": " + std::to_string(Sim->Hops[Id]) +
                   ", \"blocked\": " + formatNumber(R.Blocked);
               W.async(R.Blocked > 0
                           ? "blocked worm to " + std::to_string(T.Dst)
                           : "worm to " + std::to_string(T.Dst),
                       Id, T.Src, R.Inject, R.Arrive, Net);
               W.slice("recv from " + std::to_string(T.Src), T.Dst, RecvThread,
                       R.RecvStart, R.End - R.RecvStart,
                       Args + ", \"waited_for_port\": " +
                           formatNumber(R.RecvStart - R.Arrive));
               W.flow(Id, T.Src, R.Start, T.Dst, R.RecvStart);
             });
}

} // namespace collc
