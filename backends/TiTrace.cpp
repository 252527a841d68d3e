#include "backends/Traces.h"
#include "passes/Dependencies.h"

#include "llvm/Support/Path.h"

namespace collc {

namespace {

/// The actions of every rank, in the order that rank performs them.
std::vector<std::string> rankActions(const Schedule &S) {
  const int32_t P = S.size();
  auto Deps = transferDependencies(S);
  std::vector<const Transfer *> ById;
  std::vector<std::vector<uint32_t>> Sends(P), Recvs(P);
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers) {
      uint32_t Id = static_cast<uint32_t>(ById.size());
      ById.push_back(&T);
      Sends[T.Src].push_back(Id);
      Recvs[T.Dst].push_back(Id);
    }
  std::vector<std::string> Out(P);
  // Whether the receiver (Waited) and the sender (SendWaited) of a transfer
  // have waited for it.
  std::vector<uint8_t> Waited(ById.size(), 0), SendWaited(ById.size(), 0);
  for (int32_t R = 0; R < P; ++R) {
    std::string &A = Out[R];
    std::string Me = std::to_string(R);
    auto WaitSend = [&](uint32_t Id) {
      SendWaited[Id] = 1;
      A += Me + " wait " + Me + " " + std::to_string(ById[Id]->Dst) + " " +
           std::to_string(Id) + "\n";
    };
    A += Me + " init\n";
    // Receives are posted up front, waited for when a send forwards them.
    for (uint32_t Id : Recvs[R])
      A += Me + " irecv " + std::to_string(ById[Id]->Src) + " " +
           std::to_string(Id) + " " + std::to_string(ById[Id]->Bytes) + "\n";
    for (size_t I = 0; I < Sends[R].size(); ++I) {
      uint32_t Id = Sends[R][I];
      for (uint32_t D : Deps.of(Id))
        if (!Waited[D]) {
          Waited[D] = 1;
          A += Me + " wait " + std::to_string(ById[D]->Src) + " " + Me + " " +
               std::to_string(D) + "\n";
        }
      // The model's port: a send the model starts only once an earlier send
      // of this rank has been received (t_hold = t_end, as in linear
      // models) waits for that send to complete.
      for (size_t J = 0; J < I; ++J) {
        uint32_t Prev = Sends[R][J];
        if (!SendWaited[Prev] && ById[Prev]->End <= ById[Id]->Start)
          WaitSend(Prev);
      }
      A += Me + " isend " + std::to_string(ById[Id]->Dst) + " " +
           std::to_string(Id) + " " + std::to_string(ById[Id]->Bytes) + "\n";
    }
    for (uint32_t Id : Sends[R])
      if (!SendWaited[Id])
        WaitSend(Id);
    for (uint32_t Id : Recvs[R])
      if (!Waited[Id])
        A += Me + " wait " + std::to_string(ById[Id]->Src) + " " + Me + " " +
             std::to_string(Id) + "\n";
    A += Me + " finalize\n";
  }
  return Out;
}

} // namespace

void emitTiTrace(llvm::raw_ostream &OS, const Schedule &S, const Machine &M) {
  (void)M;
  for (const std::string &A : rankActions(S))
    OS << A;
}

std::vector<std::pair<std::string, std::string>>
tiTraceFiles(const Schedule &S, llvm::StringRef Path) {
  std::vector<std::pair<std::string, std::string>> Files;
  std::vector<std::string> Actions = rankActions(S);
  std::string Index;
  llvm::StringRef Base = llvm::sys::path::filename(Path);
  for (size_t R = 0; R < Actions.size(); ++R) {
    std::string Name = (Base + "." + std::to_string(R)).str();
    Index += Name + "\n";
    Files.push_back(
        {(Path + "." + std::to_string(R)).str(), std::move(Actions[R])});
  }
  Files.insert(Files.begin(), {Path.str(), Index});
  return Files;
}

} // namespace collc
