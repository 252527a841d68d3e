#include "ir/Schedule.h"

#include "ir/EnumNames.h"

#include <algorithm>

namespace collc {

void assignPieces(PieceList &L, llvm::ArrayRef<Piece> Ps) {
  if (Ps.size() <= 1) {
    L.assign(Ps.begin(), Ps.end());
    return;
  }
  llvm::SmallVector<Piece, 0> Exact;
  Exact.reserve(Ps.size());
  Exact.append(Ps.begin(), Ps.end());
  L = std::move(Exact);
}

const char *transferKindName(TransferKind K) {
  static constexpr const char *Names[] = {"copy", "combine", "signal"};
  return enumName<TransferKind::Copy, TransferKind::Signal>(K, Names);
}

Piece Schedule::wholeMessage() const {
  return Piece{{Root, Root + 1}, {0, size()}, {0, NumChunks}};
}

uint64_t elementBytes(const std::string &Datatype) {
  if (Datatype == "int64" || Datatype == "double")
    return 8;
  if (Datatype == "int32" || Datatype == "float")
    return 4;
  return 1;
}

uint64_t messageUnit(Collective C, const std::string &Datatype, int32_t Ranks) {
  const uint64_t E = isReduction(C) ? elementBytes(Datatype) : 1;
  return C == Collective::ReduceScatter
             ? E * static_cast<uint64_t>(std::max<int32_t>(Ranks, 1))
             : E;
}

uint64_t Schedule::chunkBytes(Interval C) const {
  if (C.empty())
    return 0;
  const uint64_t K = static_cast<uint64_t>(NumChunks);
  const uint64_t Unit = elementBytes(Datatype), Units = Bytes / Unit;
  const uint64_t Base = Units / K, Extra = Units % K;
  auto Prefix = [&](uint64_t X) {
    return (X * Base + std::min<uint64_t>(X, Extra)) * Unit;
  };
  return Prefix(static_cast<uint64_t>(C.Hi)) -
         Prefix(static_cast<uint64_t>(C.Lo));
}

uint64_t Schedule::numTransfers() const {
  uint64_t N = 0;
  for (const Step &S : Steps)
    N += S.Transfers.size();
  return N;
}

std::vector<Step> stepsByRounds(std::vector<Transfer> Transfers,
                                int32_t Ranks) {
  std::vector<int64_t> LastRecv(Ranks, -1), LastSend(Ranks, -1);
  std::vector<int64_t> StepOf(Transfers.size());
  int64_t NumSteps = 0;
  for (size_t I = 0; I < Transfers.size(); ++I) {
    const Transfer &T = Transfers[I];
    int64_t S =
        std::max({LastRecv[T.Src], LastSend[T.Src], LastRecv[T.Dst]}) + 1;
    StepOf[I] = S;
    LastSend[T.Src] = S;
    LastRecv[T.Dst] = S;
    NumSteps = std::max(NumSteps, S + 1);
  }
  std::vector<size_t> Count(NumSteps, 0);
  for (int64_t S : StepOf)
    ++Count[S];
  std::vector<Step> Steps(NumSteps);
  for (int64_t S = 0; S < NumSteps; ++S)
    Steps[S].Transfers.reserve(Count[S]);
  for (size_t I = 0; I < Transfers.size(); ++I)
    Steps[StepOf[I]].Transfers.push_back(std::move(Transfers[I]));
  return Steps;
}

} // namespace collc
