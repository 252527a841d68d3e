#include "dropin/Config.h"

#include "algorithms/Registry.h"
#include "ir/Collective.h"
#include "ir/Diagnostic.h"
#include "runtime/collc/settings.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

using namespace llvm;

namespace collc {
namespace dropin {

namespace {

/// The served collective named \p Name, or an error naming \p Var.
Expected<int> collectiveNamed(StringRef Name, StringRef Var) {
  std::optional<Collective> C = parseCollective(Name.trim().str());
  if (!C || !isServedCollective(static_cast<int>(*C)))
    return error(
        Var + ": unknown collective '" + Name.trim() +
        "'; expected bcast, reduce, allreduce, scan, exscan, "
        "gather, scatter, allgather, alltoall, barrier or reduce-scatter");
  return static_cast<int>(*C);
}

} // namespace

bool isServedCollective(int Coll) {
  return Coll >= rt::Bcast && Coll < rt::NumColls && Coll != rt::Multicast;
}

Expected<Config> parseConfig(const char *Machine, const char *Collectives,
                             const char *Algorithm, const char *Verbose,
                             const char *Cache) {
  Config C;
  if (Machine)
    C.MachinePath = Machine;
  if (Cache)
    C.CacheDir = Cache;
  StringRef Colls = Collectives ? StringRef(Collectives).trim() : "all";
  if (Colls == "all" || Colls.empty()) {
    for (int I = 0; I < rt::NumColls; ++I)
      C.TakeOver[I] = isServedCollective(I);
  } else {
    SmallVector<StringRef, 12> Names;
    Colls.split(Names, ',', -1, false);
    for (StringRef N : Names) {
      Expected<int> I = collectiveNamed(N, "COLLC_COLLECTIVES");
      if (!I)
        return I.takeError();
      C.TakeOver[*I] = true;
    }
  }
  if (Algorithm) {
    SmallVector<StringRef, 12> Pairs;
    StringRef(Algorithm).split(Pairs, ',', -1, false);
    for (StringRef P : Pairs) {
      auto [Name, Algo] = P.split('=');
      if (Algo.trim().empty())
        return error("COLLC_ALGORITHM: expected collective=algorithm "
                     "(e.g. bcast=binomial,allreduce=ring), got '" +
                     P.trim() + "'");
      Expected<int> I = collectiveNamed(Name, "COLLC_ALGORITHM");
      if (!I)
        return I.takeError();
      const std::string A = Algo.trim().str();
      C.Algorithm[*I] = A;
      const Collective Coll = static_cast<Collective>(*I);
      if (A != "auto" && !findAlgorithm(A, Coll) && C.TakeOver[*I]) {
        C.TakeOver[*I] = false;
        C.Notes.push_back("COLLC_ALGORITHM: collc has no " +
                          std::string(collectiveName(Coll)) + " algorithm '" +
                          A + "' (`collc --list-algorithms` " +
                          "lists them); " + rt::mpiName(*I) +
                          " runs in the MPI library");
      }
    }
  }
  C.Verbose = rt::verbosityOf(Verbose);
  return C;
}

} // namespace dropin
} // namespace collc
