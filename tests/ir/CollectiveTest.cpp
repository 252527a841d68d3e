// The collectives' traits (ir/Collective.h): names read back, and the traits
// the verifier and the backends rely on.
#include "ir/Collective.h"

#include <doctest/doctest.h>

using namespace collc;

TEST_CASE("collective: every name reads back as its collective") {
  CHECK(allCollectives().size() == NumCollectives);
  for (Collective C : allCollectives())
    CHECK(parseCollective(collectiveName(C)) == C);
  CHECK(!parseCollective("Bcast"));
  CHECK(std::string(withArticle(Collective::Allreduce)) == "an");
  CHECK(std::string(withArticle(Collective::Bcast)) == "a");
}

TEST_CASE("collective: rooted, reductions, personalized data and entry "
          "points") {
  for (Collective C : allCollectives()) {
    CAPTURE(collectiveName(C));
    bool Rooted = C == Collective::Bcast || C == Collective::Multicast ||
                  C == Collective::Reduce || C == Collective::Gather ||
                  C == Collective::Scatter;
    CHECK(isRooted(C) == Rooted);
    bool Reduction = C == Collective::Reduce || C == Collective::Allreduce ||
                     C == Collective::Scan || C == Collective::Exscan ||
                     C == Collective::ReduceScatter;
    CHECK(isReduction(C) == Reduction);
    // Every rank ends with its own block of the result: reduce-scatter.
    CHECK((traits(C).Results == RankScope::Own) ==
          (C == Collective::ReduceScatter));
    // The name generated code spells in identifiers is MPI's.
    CHECK(std::string(collectiveIdent(C)) == (C == Collective::ReduceScatter
                                                  ? "reduce_scatter_block"
                                                  : collectiveName(C)));
    bool Personalized = C == Collective::Gather || C == Collective::Scatter ||
                        C == Collective::Alltoall;
    CHECK(isPersonalized(C) == Personalized);
    CHECK(traits(C).ResultApart == (C == Collective::Exscan));
    CHECK(entryOf(C) == (C == Collective::Multicast ? Collective::Bcast : C));
    CHECK(blockPerPair(C) ==
          (C == Collective::Allgather || C == Collective::Alltoall));
  }
  CHECK(dataKindOf(Collective::Barrier) == DataKind::Signal);
  CHECK(dataKindOf(Collective::Allgather) == DataKind::Replicated);
}
