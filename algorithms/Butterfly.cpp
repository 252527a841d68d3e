#include "algorithms/Butterfly.h"

#include "ir/Diagnostic.h"

#include <algorithm>
#include <cassert>
#include <numeric>

namespace collc {

int64_t swingRho(int S) {
  int64_t Rho = 0, Term = 1;
  for (int I = 0; I <= S; ++I, Term *= -2)
    Rho += Term;
  return Rho;
}

int64_t swingPeer(int64_t C, int S, int64_t N) {
  const int64_t Q = C % 2 == 0 ? C + swingRho(S) : C - swingRho(S);
  return ((Q % N) + N) % N;
}

namespace {

int log2Exact(int64_t N) {
  int L = 0;
  while ((int64_t(1) << L) < N)
    ++L;
  assert((int64_t(1) << L) == N && "a butterfly's extents are powers of two");
  return L;
}

} // namespace

Butterfly swingButterfly(llvm::ArrayRef<int64_t> Extents) {
  Butterfly B;
  std::vector<int64_t> Stride;
  std::vector<int> Left, Done(Extents.size(), 0);
  for (int64_t L : Extents) {
    Stride.push_back(B.N);
    Left.push_back(log2Exact(L));
    B.N *= L;
  }
  for (bool Any = true; Any;) {
    Any = false;
    for (size_t J = 0; J < Extents.size(); ++J) {
      if (Done[J] == Left[J])
        continue;
      Any = true;
      const int S = Done[J]++;
      std::vector<int64_t> Peer(B.N);
      for (int64_t C = 0; C < B.N; ++C) {
        const int64_t X = C / Stride[J] % Extents[J];
        Peer[C] = C + (swingPeer(X, S, Extents[J]) - X) * Stride[J];
      }
      B.Peer.push_back(std::move(Peer));
    }
  }
  return B;
}

llvm::Expected<ButterflyBlocks> butterflyBlocks(const Butterfly &B) {
  const int L = B.steps();
  ButterflyBlocks Out;
  // Blocks in the order of a walk down the reach sets of core 0: R_s(c) is
  // R_{s+1}(c), then R_{s+1}(partner). An explicit stack, not recursion.
  std::vector<int64_t> Order;
  Order.reserve(B.N);
  std::vector<std::pair<int64_t, int>> Stack{{0, 0}};
  while (!Stack.empty()) {
    auto [C, S] = Stack.back();
    Stack.pop_back();
    if (S == L) {
      Order.push_back(C);
      continue;
    }
    Stack.push_back({B.Peer[S][C], S + 1});
    Stack.push_back({C, S + 1});
  }
  Out.Pos.assign(B.N, -1);
  for (size_t I = 0; I < Order.size(); ++I) {
    if (Out.Pos[Order[I]] >= 0)
      return error("the pairings are not a butterfly: core %lld is reached "
                   "twice",
                   static_cast<long long>(Order[I]));
    Out.Pos[Order[I]] = static_cast<int64_t>(I);
  }
  // Every reach set one range of 2^(L-s) blocks, shared by its members.
  Out.Lo.assign(L + 1, {});
  Out.Lo[L] = Out.Pos;
  std::vector<int64_t> Hi = Out.Pos;
  for (int S = L - 1; S >= 0; --S) {
    std::vector<int64_t> Lo(B.N), NewHi(B.N);
    for (int64_t C = 0; C < B.N; ++C) {
      const int64_t Q = B.Peer[S][C];
      if (B.Peer[S][Q] != C || Q == C)
        return error("the pairings are not a butterfly: step %d pairs core "
                     "%lld with %lld",
                     S, static_cast<long long>(C), static_cast<long long>(Q));
      Lo[C] = std::min(Out.Lo[S + 1][C], Out.Lo[S + 1][Q]);
      NewHi[C] = std::max(Hi[C], Hi[Q]);
      if (NewHi[C] - Lo[C] + 1 != Out.span(S, L))
        return error("the pairings are not a butterfly: the reach set of "
                     "core %lld at step %d is not one range",
                     static_cast<long long>(C), S);
    }
    Out.Lo[S] = std::move(Lo);
    Hi = std::move(NewHi);
  }
  return Out;
}

std::vector<int32_t> bineTreeOffsets(int64_t P) {
  int Bits = 0;
  while ((int64_t(1) << Bits) < P)
    ++Bits;
  std::vector<int64_t> Value(P);
  for (int64_t U = 0; U < P; ++U) {
    // Reverse u's Bits bits, undo the Gray code, read it in base -2.
    uint64_t Y = 0;
    for (int I = 0; I < Bits; ++I)
      if (U >> I & 1)
        Y |= uint64_t(1) << (Bits - 1 - I);
    uint64_t X = 0;
    for (uint64_t G = Y; G; G >>= 1)
      X ^= G;
    int64_t V = 0, Term = 1;
    for (int I = 0; I < Bits; ++I, Term *= -2)
      if (X >> I & 1)
        V += Term;
    Value[U] = V;
  }
  std::vector<int64_t> ByValue(P);
  std::iota(ByValue.begin(), ByValue.end(), 0);
  std::sort(ByValue.begin(), ByValue.end(),
            [&](int64_t A, int64_t B) { return Value[A] < Value[B]; });
  const int64_t RootAt =
      std::find(ByValue.begin(), ByValue.end(), 0) - ByValue.begin();
  std::vector<int32_t> Offset(P);
  for (int64_t I = 0; I < P; ++I)
    Offset[ByValue[I]] = static_cast<int32_t>(((I - RootAt) % P + P) % P);
  return Offset;
}

} // namespace collc
