#include "passes/HeldFlow.h"

namespace collc {

HeldFlow::HeldFlow(int32_t Ranks, int64_t Chunks, Interval Sources)
    : K(Chunks) {
  const ChunkMap None(K, Arrival{});
  const ChunkMap All(K, Arrival{true, 0});
  State.reserve(Ranks > 0 ? Ranks : 0);
  for (int32_t R = 0; R < Ranks; ++R) {
    State.emplace_back(Ranks, None);
    if (Sources.contains(R))
      State.back().assign({R, R + 1}, All);
  }
}

void HeldFlow::deliver(int32_t R, Interval Origins, Interval Chunks,
                       double Since) {
  State[R].update(Origins, [&](Interval, ChunkMap &Cs) {
    Cs.assign(Chunks, Arrival{true, Since});
  });
}

size_t HeldFlow::runs() const {
  size_t N = 0;
  for (const RunMap<ChunkMap> &M : State)
    N += M.runs();
  return N;
}

} // namespace collc
