#include "algorithms/LibraryAllgather.h"

#include "algorithms/Cheapest.h"
#include "algorithms/Personalized.h"
#include "algorithms/Placement.h"

#include <cassert>
#include <vector>

namespace collc {

bool neighborExchangeApplies(const Machine &, const Request &R,
                             std::string &Why) {
  const double P = R.size();
  if (R.size() % 2 != 0) {
    Why = "needs an even number of ranks (it pairs them off)";
    return false;
  }
  // P / 2 steps of P transfers.
  return copyTransfersFit(R, P * P / 2, Why);
}

bool farthestDoublingApplies(const Machine &, const Request &R,
                             std::string &Why) {
  const int64_t P = R.size();
  if ((P & (P - 1)) != 0) {
    Why = "needs a power-of-two number of ranks";
    return false;
  }
  // P log2 P transfers, but P (P - 1) pieces in all (a rank's blocks are
  // strided): held to the all-pairs bound, as direct's P (P - 1) transfers.
  return copyTransfersFit(R, double(P) * double(P - 1), Why);
}

namespace {

Schedule neighborExchange(const Machine &M, const Request &R, bool Lockstep) {
  Schedule S = scheduleSkeleton(M, R, "neighbor-exchange");
  S.Lockstep = Lockstep;
  const int32_t P = S.size();
  assert(P % 2 == 0 && "neighborExchangeApplies");
  auto Mod = [P](int64_t X) { return static_cast<int32_t>((X % P + P) % P); };
  std::vector<Transfer> Ts;
  std::vector<int64_t> Groups;
  // Step 0: the pairs exchange their own blocks.
  for (int32_t Rk = 0; Rk < P; ++Rk) {
    Ts.push_back(allgatherBlocks(S, Rk, Rk ^ 1, {{Rk, Rk + 1}}));
    Groups.push_back(0);
  }
  // Then rank r sends its neighbour of the step's parity the pair it
  // received last (at first its own pair); it receives the pair two ranks
  // further on in that neighbour's direction.
  struct State {
    int32_t Neighbor[2];
    int32_t RecvFrom[2];
    int32_t Offset[2];
    int32_t SendFrom;
  };
  std::vector<State> St(P);
  for (int32_t Rk = 0; Rk < P; ++Rk) {
    const bool Even = Rk % 2 == 0;
    const int32_t First = Even ? Mod(Rk + 1) : Mod(Rk - 1);
    const int32_t Second = Even ? Mod(Rk - 1) : Mod(Rk + 1);
    const int32_t Pair = Even ? Rk : Rk - 1;
    St[Rk] = {
        {First, Second}, {Pair, Pair}, {Even ? 2 : -2, Even ? -2 : 2}, Pair};
  }
  for (int32_t Step = 1; Step < P / 2; ++Step) {
    const int Parity = Step % 2;
    for (int32_t Rk = 0; Rk < P; ++Rk) {
      State &X = St[Rk];
      Ts.push_back(allgatherBlocks(S, Rk, X.Neighbor[Parity],
                                   {{X.SendFrom, X.SendFrom + 2}}));
      Groups.push_back(Step);
      X.RecvFrom[Parity] = Mod(X.RecvFrom[Parity] + X.Offset[Parity]);
      X.SendFrom = X.RecvFrom[Parity];
    }
  }
  S.Steps = groupedRounds(M, std::move(Ts), P, std::move(Groups));
  return S;
}

} // namespace

llvm::Expected<Schedule> buildNeighborExchangeAllgather(const Machine &M,
                                                        const Request &R,
                                                        Pipeline &P) {
  Cheapest Posting(M, P, makespanJudge());
  for (bool Lockstep : {false, true})
    Posting.consider(Lockstep ? "lockstep" : "posted ahead",
                     [&]() -> llvm::Expected<Schedule> {
                       return neighborExchange(M, R, Lockstep);
                     });
  return Posting.take();
}

llvm::Expected<Schedule> buildFarthestDoublingAllgather(const Machine &M,
                                                        const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "farthest-doubling");
  const int32_t P = S.size();
  assert((P & (P - 1)) == 0 && "farthestDoublingApplies");
  std::vector<Transfer> Ts;
  std::vector<int64_t> Groups;
  for (int32_t Mask = P / 2, Step = 0; Mask >= 1; Mask /= 2, ++Step)
    for (int32_t Rk = 0; Rk < P; ++Rk) {
      // Rank r holds the blocks of the ranks equal to it below bit 2 Mask:
      // r mod 2 Mask, then every 2 Mask.
      std::vector<Interval> Held;
      for (int32_t Q = Rk % (2 * Mask); Q < P; Q += 2 * Mask)
        Held.push_back({Q, Q + 1});
      Ts.push_back(allgatherBlocks(S, Rk, Rk ^ Mask, Held));
      Groups.push_back(Step);
    }
  S.Steps = groupedRounds(M, std::move(Ts), P, std::move(Groups));
  return S;
}

} // namespace collc
