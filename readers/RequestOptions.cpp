#include "readers/RequestOptions.h"

using namespace llvm;

namespace collc {

TextOption textOption(cl::OptionCategory &Cat, const char *Name,
                      const char *Value, const char *Help, const char *Init) {
  return TextOption(StringRef(Name), cl::desc(Help), cl::value_desc(Value),
                    cl::init(Init), cl::cat(Cat));
}

std::optional<std::string> given(const TextOption &O) {
  return O.getNumOccurrences() ? std::optional(O.getValue()) : std::nullopt;
}

RequestOptions::RequestOptions(cl::OptionCategory &Cat)
    : RequestPath(textOption(Cat, "request", "file",
                             "Collective request (YAML or JSON); the options "
                             "below override its fields")),
      Collective(
          textOption(Cat, "collective", "name,..",
                     "bcast, multicast, reduce, allreduce, scan, exscan, "
                     "gather, scatter, allgather, alltoall, barrier or "
                     "reduce-scatter; "
                     "or a list: one request per combination of the "
                     "lists (docs/cli.md)")),
      Ranks(textOption(Cat, "ranks", "K,..",
                       "Number of participants (nodes 0..K-1); a range 1:64, "
                       "a list 2,3,5 or both (1:8,16)")),
      Root(textOption(Cat, "root", "node,..",
                      "Root node: a number, coordinates \"(3,2)\" or a "
                      "permutation \"14523\"; a list, or 'all' (every rank)")),
      Bytes(
          textOption(Cat, "bytes", "n,..", "Message size in bytes, or a list")),
      Algorithm(textOption(Cat, "algorithm", "name",
                           "Algorithm (see --list-algorithms); 'auto' (the "
                           "default) builds every candidate and keeps the "
                           "best (docs/algorithms.md)")),
      Destinations(
          textOption(Cat, "destinations", "list",
                     "Multicast destinations: \"3,4,5\" or \"(1,5),(2,1)\"")),
      Op(textOption(Cat, "op", "op",
                    "Reduction operator: sum, prod, min, max")),
      Datatype(
          textOption(Cat, "datatype", "type",
                     "Reduction element type: int32, int64, float, double")),
      Commutative(textOption(
          Cat, "commutative", "bool",
          "Reductions: whether the operator is commutative, true (default) "
          "or false; with false every combine keeps rank order")),
      Segments(textOption(Cat, "segments", "k",
                          "Split the message into k segments")),
      BytesRange(
          textOption(Cat, "bytes-range", "lo:hi",
                     "Message sizes LO:HI (bytes, inclusive): --emit "
                     "select, ompi-rules (default 1:1048576), and the "
                     "MPI backends: one schedule per size band of auto")),
      MaxRequests("max-requests",
                  cl::desc("At most this many combinations of the request "
                           "lists (default 4096)"),
                  cl::value_desc("n"), cl::init(DefaultMaxRequests),
                  cl::cat(Cat)) {}

RequestOverrides RequestOptions::overrides() const {
  RequestOverrides O;
  const std::pair<const TextOption *,
                  std::optional<std::string> RequestOverrides::*>
      Fields[] = {{&Collective, &RequestOverrides::Collective},
                  {&Algorithm, &RequestOverrides::Algorithm},
                  {&Op, &RequestOverrides::Op},
                  {&Datatype, &RequestOverrides::Datatype},
                  {&Commutative, &RequestOverrides::Commutative},
                  {&Root, &RequestOverrides::Root},
                  {&Destinations, &RequestOverrides::Destinations},
                  {&Ranks, &RequestOverrides::Ranks},
                  {&Segments, &RequestOverrides::Segments}};
  for (auto [Opt, Field] : Fields)
    O.*Field = given(*Opt);
  return O;
}

} // namespace collc
