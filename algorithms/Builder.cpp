#include "algorithms/Builder.h"

namespace collc {

Schedule scheduleSkeleton(const Machine &M, const Request &R,
                          llvm::StringRef Algorithm) {
  Schedule S;
  S.Coll = R.Coll;
  S.Algorithm = Algorithm.str();
  S.MachineName = M.Name;
  S.Bytes = R.Bytes;
  S.Root = R.Root;
  S.NumChunks = 1;
  S.Op = R.Op;
  S.Datatype = R.Datatype;
  S.Commutative = R.Commutative;
  S.Participants.reserve(R.Nodes.size());
  for (int64_t N : R.Nodes)
    S.Participants.push_back({N});
  return S;
}

Transfer wholeMessageCall(const Schedule &S, int64_t From, int64_t To) {
  Transfer T;
  T.Src = static_cast<int32_t>(From);
  T.Dst = static_cast<int32_t>(To);
  T.Bytes = S.Bytes;
  T.Kind = TransferKind::Copy;
  T.Pieces = {S.wholeMessage()};
  return T;
}

Transfer rootChunksCall(const Schedule &S, int64_t From, int64_t To,
                        Interval Chunks) {
  Transfer T;
  T.Src = static_cast<int32_t>(From);
  T.Dst = static_cast<int32_t>(To);
  T.Bytes = S.chunkBytes(Chunks);
  T.Kind = TransferKind::Copy;
  T.Pieces.push_back({{S.Root, S.Root + 1}, {0, S.size()}, Chunks});
  return T;
}

} // namespace collc
