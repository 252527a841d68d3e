/// \file
/// Machines and requests for the benchmarks. Requests are made by collc's
/// one request constructor (makeRequest, readers/RequestSpec.h), so that a
/// benchmark runs only what collc itself would accept.
#ifndef COLLC_BENCH_INPUTS_H
#define COLLC_BENCH_INPUTS_H

#include "readers/RequestSpec.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <numeric>
#include <vector>

namespace collc::bench {

/// The IBM SP's parameterized model (paper 000): t_hold 20 + 0.02 B,
/// t_end 55 + 0.07 B, without a topology.
inline Machine ibmSP() {
  Machine M;
  M.Name = "ibm-sp";
  M.M.Kind = ModelKind::Parameterized;
  M.M.Parameterized = {{20, 0.02}, {55, 0.07}};
  return M;
}

/// The fields of \p C among ranks 0..K-1 on nodes 0..K-1, of \p Bytes, by
/// \p Algorithm; reductions sum int32 elements.
inline RequestFields onFirstNodes(Collective C, int64_t K, uint64_t Bytes,
                                  const char *Algorithm = "auto") {
  RequestFields F;
  F.Coll = C;
  F.Participants.emplace(static_cast<size_t>(K));
  std::iota(F.Participants->begin(), F.Participants->end(), 0);
  F.Bytes = Bytes;
  F.Algorithm = Algorithm;
  return F;
}

/// The request \p F asks for on \p M; one that \p M refuses ends the
/// benchmark with the reason.
inline Request mustRequest(const RequestFields &F, const Machine &M) {
  auto R = makeRequest(F, M);
  if (!R) {
    llvm::errs() << "benchmark request refused: "
                 << llvm::toString(R.takeError()) << "\n";
    std::exit(1);
  }
  return std::move(*R);
}

} // namespace collc::bench

#endif
