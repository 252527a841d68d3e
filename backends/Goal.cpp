#include "backends/Traces.h"
#include "ir/Escape.h"
#include "passes/Dependencies.h"

namespace collc {

void emitGoal(llvm::raw_ostream &OS, const Schedule &S, const Machine &M) {
  (void)M;
  const int32_t P = S.size();
  auto Deps = transferDependencies(S);
  // Per rank, its ops in schedule order: each transfer is a send on its
  // source and a receive on its destination; labels are per rank.
  struct Op {
    uint32_t Transfer;
    bool Send;
  };
  std::vector<std::vector<Op>> Ops(P);
  std::vector<const Transfer *> ById;
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers) {
      uint32_t Id = static_cast<uint32_t>(ById.size());
      ById.push_back(&T);
      Ops[T.Src].push_back({Id, true});
      Ops[T.Dst].push_back({Id, false});
    }
  // Label of transfer Id's receive on its destination rank.
  std::vector<uint32_t> RecvLabel(ById.size(), 0);
  OS << "// collc: " << cComment(S.Algorithm) << " " << collectiveName(S.Coll)
     << ", " << P << " ranks, " << S.Bytes << " bytes; tag = transfer number\n";
  OS << "num_ranks " << P << "\n";
  for (int32_t R = 0; R < P; ++R) {
    OS << "\nrank " << R << " {\n";
    uint32_t Label = 0, PrevSend = 0;
    std::vector<std::pair<uint32_t, uint32_t>> Requires;
    for (const Op &O : Ops[R]) {
      const Transfer &T = *ById[O.Transfer];
      ++Label;
      if (O.Send) {
        OS << "l" << Label << ": send " << T.Bytes << "b to " << T.Dst
           << " tag " << O.Transfer << "\n";
        for (uint32_t D : Deps.of(O.Transfer))
          Requires.push_back({Label, RecvLabel[D]});
        if (PrevSend)
          Requires.push_back({Label, PrevSend});
        PrevSend = Label;
      } else {
        OS << "l" << Label << ": recv " << T.Bytes << "b from " << T.Src
           << " tag " << O.Transfer << "\n";
        RecvLabel[O.Transfer] = Label;
      }
    }
    for (auto [A, B] : Requires)
      OS << "l" << A << " requires l" << B << "\n";
    OS << "}\n";
  }
}

} // namespace collc
