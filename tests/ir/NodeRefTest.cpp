#include "ir/NodeRef.h"
#include "ir/Permutation.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

Topology mesh(std::vector<int64_t> Dims) {
  Topology T;
  T.Kind = TopologyKind::Mesh;
  T.Nodes = 1;
  for (int64_t D : Dims)
    T.Nodes *= D;
  T.Dims = std::move(Dims);
  return T;
}

Topology star(int64_t K) {
  Topology T;
  T.Kind = TopologyKind::Star;
  T.StarK = K;
  T.Nodes = permutationCount(K);
  return T;
}

/// The node, or the error's text.
std::string read(const Topology &T, llvm::StringRef Text, bool Quoted = false) {
  auto N = parseNodeRef(T, Text, "root", Quoted);
  return N ? std::to_string(*N) : llvm::toString(N.takeError());
}

} // namespace

TEST_CASE("noderef: numbers, coordinates and permutations name a node") {
  Topology M = mesh({6, 4});
  CHECK(read(M, "14") == "14");
  CHECK(read(M, " 14 ") == "14");
  CHECK(read(M, "(3,2)") == "14");
  CHECK(read(M, "[3, 2]") == "14");
  Topology S = star(5);
  CHECK(read(S, "12345") == "0");
  CHECK(read(S, "54321") == "119");
  // Fewer than k digits: a node number; quoted: a permutation.
  CHECK(read(S, "119") == "119");
  CHECK(read(S, "14523", /*Quoted=*/true) == read(S, "14523"));
  Topology Full;
  CHECK(read(Full, "1048575") == "1048575");
}

TEST_CASE("noderef: a bad reference says what is wrong with it and names its "
          "field") {
  Topology M = mesh({6, 4});
  CHECK(read(M, "(6,2)") == "node (6, 2) in 'root' is outside the (6, 4) mesh");
  CHECK(read(M, "(3)") == "expected 2 coordinates for 'root', got 1");
  CHECK(read(M, "(3,x)") ==
        "expected integer coordinates for 'root', got '(3,x)'");
  CHECK(read(M, "abc") ==
        "expected a node number or coordinates for 'root', got 'abc'");
  CHECK(read(M, "24") ==
        "node 24 in 'root' is outside the machine (nodes 0..23)");
  CHECK(read(M, "99999999999999999999") ==
        "node 99999999999999999999 in 'root' is outside the machine (nodes "
        "0..23)");
  Topology Full;
  CHECK(read(Full, "(1,2)") == "expected a node number for 'root': "
                               "coordinates need a mesh, torus or hypercube");
  CHECK(read(Full, "1048576") ==
        "node 1048576 in 'root' is outside the machine (nodes 0..1048575)");
  CHECK(read(star(5), "14423") == "expected a permutation of 5 symbols for "
                                  "'root', got '14423': symbol '4' appears "
                                  "twice");
}

TEST_CASE("noderef: a list in one text splits into its references") {
  using L = std::vector<std::string>;
  CHECK(splitNodeRefs("3,4,5") == L{"3", "4", "5"});
  CHECK(splitNodeRefs(" 3 , 4 ") == L{"3", "4"});
  CHECK(splitNodeRefs("(1,5),(2,1)") == L{"(1,5)", "(2,1)"});
  CHECK(splitNodeRefs("[1,5] [2,1]") == L{"[1,5]", "[2,1]"});
  CHECK(splitNodeRefs("1,5;2,1") == L{"(1,5)", "(2,1)"});
  CHECK(splitNodeRefs("14523,21345") == L{"14523", "21345"});
}

TEST_CASE("noderef: coordinates are written highest dimension first") {
  Topology M = mesh({6, 4});
  CHECK(formatCoordinates(M.coordOf(14)) == "(3,2)");
  CHECK(formatCoordinates({3, 2}, ", ") == "(3, 2)");
  CHECK(read(M, formatCoordinates(M.coordOf(23))) == "23");
}
