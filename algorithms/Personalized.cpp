#include "algorithms/Personalized.h"

#include "algorithms/Placement.h"

namespace collc {

namespace {

/// Blocks of origins x dests (each a list of rank intervals).
Transfer blocks(const Schedule &S, int32_t Src, int32_t Dst,
                const std::vector<Interval> &Origins,
                const std::vector<Interval> &Dests) {
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  for (const Interval &O : Origins)
    for (const Interval &D : Dests) {
      T.Pieces.push_back({O, D, {0, S.NumChunks}});
      T.Bytes += S.Bytes * static_cast<uint64_t>(O.size() * D.size());
    }
  return T;
}

std::vector<Interval> one(int32_t R) { return {{R, R + 1}}; }

/// One step per round value in \p Rounds; in each, every rank r sends the
/// transfer \p Make(round, r) returns (the exchange pattern of pairwise,
/// ring and Bruck algorithms).
template <typename MakeFn>
void stepPerRound(Schedule &S, const std::vector<int64_t> &Rounds,
                  MakeFn Make) {
  for (int64_t X : Rounds) {
    Step Stp;
    for (int32_t Rk = 0; Rk < S.size(); ++Rk)
      Stp.Transfers.push_back(Make(X, Rk));
    S.Steps.push_back(std::move(Stp));
  }
}

/// 1, 2, 4, ... below \p P: the distances of Bruck's rounds.
std::vector<int64_t> powersBelow(int64_t P) {
  std::vector<int64_t> V;
  for (int64_t Bit = 1; Bit < P; Bit <<= 1)
    V.push_back(Bit);
  return V;
}

/// 0 .. N - 1.
std::vector<int64_t> upTo(int64_t N) {
  std::vector<int64_t> V;
  for (int64_t I = 0; I < N; ++I)
    V.push_back(I);
  return V;
}

} // namespace

/// The root's exchanges of a gather or scatter: one block with every other
/// rank, from the rank after the root on.
static std::vector<Transfer> rootExchanges(const Schedule &S) {
  const int32_t P = S.size();
  std::vector<Transfer> Ts;
  for (int64_t I = 1; I < P; ++I) {
    int32_t X = relRank(I, S.Root, P);
    if (S.Coll == Collective::Scatter)
      Ts.push_back(blocks(S, S.Root, X, one(S.Root), one(X)));
    else
      Ts.push_back(blocks(S, X, S.Root, one(X), one(S.Root)));
  }
  return Ts;
}

llvm::Expected<Schedule> buildLinearPersonalized(const Machine &M,
                                                 const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "linear");
  S.Steps = orderedRounds(rootExchanges(S), S.size());
  return S;
}

llvm::Expected<Schedule> buildBinomialPersonalized(const Machine &M,
                                                   const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "binomial");
  const int32_t P = S.size();
  std::vector<Transfer> Ts;
  auto Rel = [&](int64_t I) { return relRank(I, S.Root, P); };
  if (R.Coll == Collective::Scatter) {
    int64_t Top = 1;
    while (Top < P)
      Top <<= 1;
    // Relative rank i (a multiple of 2m) sends the blocks of [i+m, i+2m).
    for (int64_t Mask = Top / 2; Mask >= 1; Mask >>= 1)
      for (int64_t I = 0; I + Mask < P; I += 2 * Mask)
        Ts.push_back(
            blocks(S, Rel(I), Rel(I + Mask), one(S.Root),
                   relIntervals(I + Mask, std::min<int64_t>(I + 2 * Mask, P),
                                S.Root, P)));
  } else {
    // Relative rank i (i mod 2m = m) sends the blocks of [i, i+m) to i - m.
    for (int64_t Mask = 1; Mask < P; Mask <<= 1)
      for (int64_t I = Mask; I < P; I += 2 * Mask)
        Ts.push_back(
            blocks(S, Rel(I), Rel(I - Mask),
                   relIntervals(I, std::min<int64_t>(I + Mask, P), S.Root, P),
                   one(S.Root)));
  }
  S.Steps = orderedRounds(Ts, P);
  return S;
}

llvm::Expected<Schedule> buildPairwiseAlltoall(const Machine &M,
                                               const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "pairwise");
  const int32_t P = S.size();
  stepPerRound(S, upTo(P - 1), [&](int64_t St, int32_t Rk) {
    int32_t To = static_cast<int32_t>((Rk + St + 1) % P);
    return blocks(S, Rk, To, one(Rk), one(To));
  });
  return S;
}

llvm::Expected<Schedule> buildBruckAlltoall(const Machine &M,
                                            const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "bruck");
  const int32_t P = S.size();
  // Block M[a][b] sits at rank a + (the bits of (b - a) mod P below k).
  stepPerRound(S, powersBelow(P), [&](int64_t Bit, int32_t Rk) {
    Transfer T;
    T.Src = Rk;
    T.Dst = static_cast<int32_t>((Rk + Bit) % P);
    // Distances d with bit k set; the block at Rk with distance d has
    // origin a = Rk - (d mod Bit), dest b = a + d.
    for (int64_t D = Bit; D < P; ++D) {
      if (!(D & Bit))
        continue;
      int32_t A = static_cast<int32_t>(((Rk - D % Bit) % P + P) % P);
      int32_t B = static_cast<int32_t>((A + D) % P);
      T.Pieces.push_back({{A, A + 1}, {B, B + 1}, {0, S.NumChunks}});
      T.Bytes += S.Bytes;
    }
    return T;
  });
  return S;
}

/// Allgather blocks of origins [Lo, Lo + N) (mod P), for every rank.
static Transfer allgatherBlocks(const Schedule &S, int32_t Src, int32_t Dst,
                                int64_t Lo, int64_t N) {
  const int32_t P = S.size();
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  for (const Interval &O : relIntervals(Lo, Lo + N, 0, P)) {
    T.Pieces.push_back({O, {0, P}, {0, S.NumChunks}});
    T.Bytes += S.Bytes * static_cast<uint64_t>(O.size());
  }
  return T;
}

llvm::Expected<Schedule> buildRingAllgather(const Machine &M,
                                            const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "ring");
  const int32_t P = S.size();
  // Step s: rank r passes on the block of rank r - s to r + 1.
  stepPerRound(S, upTo(P - 1), [&](int64_t St, int32_t Rk) {
    return allgatherBlocks(S, Rk, static_cast<int32_t>((Rk + 1) % P),
                           ((Rk - St) % P + P) % P, 1);
  });
  return S;
}

llvm::Expected<Schedule> buildBruckAllgather(const Machine &M,
                                             const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "bruck");
  const int32_t P = S.size();
  // Before the step with distance Bit, rank r holds the blocks of ranks
  // r .. r + Bit - 1 (mod P); it sends them (or the ones rank r - Bit still
  // lacks) to r - Bit.
  stepPerRound(S, powersBelow(P), [&](int64_t Bit, int32_t Rk) {
    return allgatherBlocks(S, Rk,
                           static_cast<int32_t>(((Rk - Bit) % P + P) % P), Rk,
                           std::min<int64_t>(Bit, P - Bit));
  });
  return S;
}

namespace {

/// The steps of a direct algorithm whose transfers \p Ts all run at once
/// (groupedRounds: one step where the ports allow it).
std::vector<Step> allAtOnce(const Machine &M, const std::vector<Transfer> &Ts,
                            int32_t P) {
  return groupedRounds(M, Ts, P, std::vector<int64_t>(Ts.size(), 0));
}

/// A direct exchange: every rank r sends \p Make(S, r, t) to each
/// t = r + 1, r + 2, ... (mod P), all at once; listed offset by offset, so
/// that the one-port placement pairs ranks as `pairwise` does.
template <typename MakeFn>
Schedule directExchange(const Machine &M, const Request &R, MakeFn Make) {
  Schedule S = scheduleSkeleton(M, R, "direct");
  const int32_t P = S.size();
  std::vector<Transfer> Ts;
  for (int64_t D = 1; D < P; ++D)
    for (int32_t Rk = 0; Rk < P; ++Rk)
      Ts.push_back(Make(S, Rk, static_cast<int32_t>((Rk + D) % P)));
  S.Steps = allAtOnce(M, Ts, P);
  return S;
}

} // namespace

llvm::Expected<Schedule> buildDirectPersonalized(const Machine &M,
                                                 const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "direct");
  S.Steps = allAtOnce(M, rootExchanges(S), S.size());
  return S;
}

llvm::Expected<Schedule> buildDirectAlltoall(const Machine &M,
                                             const Request &R) {
  return directExchange(M, R, [](const Schedule &S, int32_t From, int32_t To) {
    return blocks(S, From, To, one(From), one(To));
  });
}

llvm::Expected<Schedule> buildDirectAllgather(const Machine &M,
                                              const Request &R) {
  return directExchange(M, R, [](const Schedule &S, int32_t From, int32_t To) {
    return allgatherBlocks(S, From, To, From, 1);
  });
}

} // namespace collc
