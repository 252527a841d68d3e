//===- simgrid_routes: SimGrid's routes of a cluster platform -------------===//
//
//   simgrid_routes PLATFORM.xml
//
// Prints every route between the hosts node-0 .. node-(N-1) of the
// platform's one <cluster> (TORUS, FAT_TREE or flat) as collc-netcheck
// routes does: "a b: from->to#lane ...", SimGrid's links renamed to collc's
// vertex numbers (passes/Routes.h, ir/FatTree.h):
//   - torus: <id>_link_from_A_to_B_UP is A -> B, _DOWN is B -> A;
//   - flat cluster: <id>_link_I_UP is I -> switch (N), _DOWN switch -> I,
//     <id>_backbone is N -> N;
//   - fat tree: link_from_C_P_U_UP is C -> P, _DOWN P -> C, where switch id
//     K (SimGrid numbers switches down from 2N - 1, level by level) is
//     vertex 3N - 1 - K, and the lane of a parallel link is its rank among
//     the links joining the same two vertices, by creation (U);
//   - a SHARED link (one link both ways, named without _UP or _DOWN) goes
//     from the vertex the route is at to the other end;
//   - limiter links (limiter_link) are left out: collc models them as the
//     nodes' injection limits, not as links of the routes.
//
//===----------------------------------------------------------------------===//

#include <simgrid/s4u.hpp>

#include <cstdio>
#include <map>
#include <regex>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  simgrid::s4u::Engine E(&argc, argv);
  E.load_platform(argv[1]);
  std::vector<simgrid::s4u::Host *> Hosts;
  for (int I = 0;; ++I) {
    auto *H = simgrid::s4u::Host::by_name_or_null("node-" + std::to_string(I));
    if (!H)
      break;
    Hosts.push_back(H);
  }
  const long N = static_cast<long>(Hosts.size());
  const std::regex Torus(".*_link_from_([0-9]+)_to_([0-9]+)(_UP|_DOWN|)");
  const std::regex Flat(".*_link_([0-9]+)(_UP|_DOWN|)");
  const std::regex Fat("link_from_([0-9]+)_([0-9]+)_([0-9]+)(_UP|_DOWN|)");
  auto Vertex = [&](long Id) { return Id < N ? Id : 3 * N - 1 - Id; };
  // Fat tree lanes: the links between two vertices, by creation.
  std::map<std::pair<long, long>, std::vector<long>> Parallel;
  std::vector<simgrid::s4u::Link *> All = E.get_all_links();
  std::smatch Mt;
  for (auto *L : All) {
    std::string Name = L->get_name();
    if (std::regex_match(Name, Mt, Fat) && Mt[4] != "_DOWN")
      Parallel[{std::stol(Mt[1]), std::stol(Mt[2])}].push_back(
          std::stol(Mt[3]));
  }
  for (auto &[Key, Us] : Parallel)
    std::sort(Us.begin(), Us.end());
  for (long A = 0; A < N; ++A)
    for (long B = 0; B < N; ++B) {
      if (A == B)
        continue;
      std::vector<simgrid::s4u::Link *> Route;
      double Lat = 0;
      Hosts[A]->route_to(Hosts[B], Route, &Lat);
      std::printf("%ld %ld:", A, B);
      long At = A; // the vertex the route has reached
      // One hop X -> Y, or the other way when a SHARED link is crossed
      // from Y.
      auto Hop = [&](long X, long Y, const std::string &Dir, long Lane) {
        if (Dir.empty() && At == Y)
          std::swap(X, Y);
        if (Dir == "_DOWN")
          std::swap(X, Y);
        std::printf(" %ld->%ld#%ld", X, Y, Lane);
        At = Y;
      };
      for (auto *L : Route) {
        std::string Name = L->get_name();
        if (Name.find("limiter") != std::string::npos)
          continue;
        if (std::regex_match(Name, Mt, Fat)) {
          long C = std::stol(Mt[1]), P = std::stol(Mt[2]);
          auto &Us = Parallel[{C, P}];
          long Lane = std::lower_bound(Us.begin(), Us.end(), std::stol(Mt[3])) -
                      Us.begin();
          Hop(Vertex(C), Vertex(P), Mt[4], Lane);
        } else if (std::regex_match(Name, Mt, Torus)) {
          Hop(std::stol(Mt[1]), std::stol(Mt[2]), Mt[3], 0);
        } else if (std::regex_match(Name, Mt, Flat)) {
          Hop(std::stol(Mt[1]), N, Mt[2], 0);
        } else if (Name.find("backbone") != std::string::npos) {
          std::printf(" %ld->%ld#0", N, N);
        } else {
          std::printf(" ?%s", Name.c_str());
        }
      }
      std::printf("\n");
    }
  return 0;
}
