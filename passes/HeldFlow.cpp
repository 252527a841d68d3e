#include "passes/HeldFlow.h"

#include <cassert>
#include <limits>
#include <utility>

namespace collc {

namespace {

using Times = llvm::IntervalMap<int64_t, double, 8,
                                llvm::IntervalMapHalfOpenInfo<int64_t>>;

/// Sets the runs of \p I in \p M to \p Since: the runs held already inside
/// \p I are cut out first (an IntervalMap inserts only where nothing is
/// mapped).
void place(Times &M, Interval I, double Since) {
  auto It = M.find(I.Lo);
  if (It.valid() && It.start() < I.Hi) {
    std::vector<std::pair<Interval, double>> Kept;
    while (It.valid() && It.start() < I.Hi) {
      if (It.start() < I.Lo)
        Kept.push_back({{It.start(), I.Lo}, It.value()});
      if (It.stop() > I.Hi)
        Kept.push_back({{I.Hi, It.stop()}, It.value()});
      It.erase();
    }
    for (const std::pair<Interval, double> &Run : Kept)
      M.insert(Run.first.Lo, Run.first.Hi, Run.second);
  }
  M.insert(I.Lo, I.Hi, Since);
}

} // namespace

HeldFlow::HeldFlow(int32_t Ranks, int64_t Chunks, Interval Sources)
    : P(std::max(Ranks, 0)), K(Chunks),
      Along(Chunks == 1           ? Axis::Origins
            : Sources.size() == 1 ? Axis::Chunks
                                  : Axis::Both),
      Source(Sources.Lo) {
  if (Along == Axis::Both) {
    const ChunkMap None(K, Arrival{});
    const ChunkMap All(K, Arrival{true, 0});
    State.reserve(P);
    for (int32_t R = 0; R < P; ++R) {
      State.emplace_back(P, None);
      if (Sources.contains(R))
        State.back().assign({R, R + 1}, All);
    }
    return;
  }
  for (int32_t R = 0; R < P; ++R) {
    Flat.emplace_back(Nodes);
    Covered.emplace_back(Nodes);
  }
  Latest.assign(P, -std::numeric_limits<double>::infinity());
  if (Along == Axis::Origins) {
    for (int64_t R = std::max<int64_t>(Sources.Lo, 0);
         R < std::min<int64_t>(Sources.Hi, P); ++R) {
      Flat[R].insert(R, R + 1, 0.0);
      Covered[R].insert(R, R + 1, 0.0);
      Latest[R] = 0;
    }
  } else if (Source >= 0 && Source < P && K > 0) {
    Flat[Source].insert(0, K, 0.0);
    Covered[Source].insert(0, K, 0.0);
    Latest[Source] = 0;
  }
}

bool HeldFlow::holdsAll(int32_t R, Interval Origins, Interval Chunks,
                        double &Last) const {
  if (Along == Axis::Both)
    return false;
  Origins = {std::max<int64_t>(Origins.Lo, 0),
             std::min<int64_t>(Origins.Hi, P)};
  Chunks = {std::max<int64_t>(Chunks.Lo, 0), std::min(Chunks.Hi, K)};
  if (Origins.empty() || Chunks.empty())
    return false;
  if (Along == Axis::Chunks && !(Origins == Interval{Source, Source + 1}))
    return false;
  const Interval I = Along == Axis::Origins ? Origins : Chunks;
  auto It = Covered[R].find(I.Lo);
  if (!It.valid() || It.start() > I.Lo || It.stop() < I.Hi)
    return false;
  Last = Latest[R];
  return true;
}

void HeldFlow::deliver(int32_t R, Interval Origins, Interval Chunks,
                       double Since) {
  if (Along == Axis::Both) {
    State[R].update(Origins, [&](Interval, ChunkMap &Cs) {
      Cs.assign(Chunks, Arrival{true, Since});
    });
    return;
  }
  Origins = {std::max<int64_t>(Origins.Lo, 0),
             std::min<int64_t>(Origins.Hi, P)};
  Chunks = {std::max<int64_t>(Chunks.Lo, 0), std::min(Chunks.Hi, K)};
  if (Origins.empty() || Chunks.empty())
    return;
  assert((Along == Axis::Origins ||
          (Origins.Lo == Source && Origins.Hi == Source + 1)) &&
         "only the source's data exists");
  if (Along == Axis::Chunks && !Origins.contains(Source))
    return;
  const Interval I = Along == Axis::Origins ? Origins : Chunks;
  place(Flat[R], I, Since);
  place(Covered[R], I, 0);
  Latest[R] = std::max(Latest[R], Since);
}

size_t HeldFlow::runs() const {
  size_t N = 0;
  for (const RunMap<ChunkMap> &M : State)
    N += M.runs();
  const int64_t Size = Along == Axis::Origins ? P : K;
  for (const FlatMap &M : Flat) {
    int64_t At = 0;
    for (auto It = M.begin(); It.valid(); ++It) {
      N += (It.start() > At) + 1;
      At = It.stop();
    }
    N += At < Size;
  }
  return N;
}

} // namespace collc
