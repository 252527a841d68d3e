#include "tools/probe/ProbeOptions.h"

#include "ir/Escape.h"

#include "llvm/ADT/StringRef.h"

#include <cmath>

namespace collc::probe {

const char *const ProbeHelp =
    R"(collc-probe: measures the machine it runs on and writes a collc machine spec
(YAML) with a network: section: link latency and bandwidth, protocol bands,
send overhead, injection limits, processes per node and the intra-node link.

  mpirun -np P collc-probe [options]            (P >= 2)
  smpirun -np P -platform F.xml collc-probe-smpi [options]   (SimGrid's SMPI)

It measures by ping-pong between rank 0 and a near, a middle and the farthest
rank (and one on rank 0's node, if any), at message sizes from 0 B to
--max-bytes (four per doubling, median of up to 31 repetitions, fewer for
large sizes), times k = 1..min(4, P-1) concurrent flows out of rank 0 and an
exchange both ways at once (whole, and in pieces below the 64 KiB eager limit:
where whole messages are much slower, as Open MPI's over TCP, the spec gets
protocol: {max_piece} and the drop-in sends such pieces), then fits the model

  time(m, h) = send_overhead + h * latency * latency_factor(m)
               + m / (bandwidth_factor(m) * bandwidth)

for a message of m bytes over h links, in size bands split where the
measured curve changes regime (refined by bisection). The spec's comments
show the fit's error per band (measured against predicted median, %).
Progress goes to standard error. Nodes are told apart by
MPI_Get_processor_name.

Options:
  -o, --output FILE  Write the spec to FILE (default: standard output). The
                     file is written (through a temporary file, renamed) only
                     when the whole run succeeds.
  --name NAME        The machine's name in the spec (default: probed).
  --topology T       The topology the machine has; the probe cannot see it.
                     Hop counts of the named topology enter the fit (latency
                     per link crossed), and the injection test knows which
                     flows share a link. One of
                       full[:N]        a crossbar, one link per route (default;
                                       N nodes, default: as many as found)
                       cluster[:N]     SimGrid's flat cluster: a private link
                                       per node, two per route
                       mesh:D1,D2,...  collc's mesh and torus (extents
                       torus:D1,D2,... written highest dimension first)
                       hypercube:D     2^D nodes
                       fat-tree:L;d1,..;u1,..;p1,..   SimGrid's FAT_TREE
                       discover        found from rounds of concurrent flows
                                       between the nodes (one rank each):
                                       leaf switches whose uplinks slow the
                                       flows crossing them make a two-level
                                       fat tree, else a flat cluster
                     Node i is the i-th distinct processor name in rank order.
  --base B           How latency and bandwidth are split from their factors
                     (a ping-pong measures only the products):
                       smpi       the factors at the smallest and largest
                                  sizes are SimGrid SMPI's defaults (default;
                                  a platform simulated by SMPI reads back its
                                  links and SMPI's factors)
                       measured   those two factors are 1
                       LAT,BW     a given link: LAT µs, BW bytes/µs
  --max-bytes N      Largest message, 1024..268435456 bytes (default
                     16777216 = 16 MiB).
  --quick            Two sizes per doubling, few repetitions, no bisection:
                     a few seconds, for tests.
  --max-error PCT    Fail (exit status 2, nothing written) when a prediction
                     is off its measured median by more than PCT percent.
  -h, --help         This text.
  --version          The version.

Times are in µs, sizes in bytes, bandwidths in bytes/µs (= MB/s).
Exit status: 0 success, 1 bad usage (including fewer than 2 processes),
2 the --max-error check failed, 3 the output could not be written.
)";

namespace {

llvm::Error usage(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

/// A number in (0, \p Max].
llvm::Expected<double> positive(llvm::StringRef Option, llvm::StringRef Text,
                                double Max, const char *MaxText) {
  double V = 0;
  if (Text.trim().getAsDouble(V) || !std::isfinite(V) || V <= 0 || V > Max)
    return usage(Option + ": expected a number > 0 and <= " + MaxText +
                 ", got '" + Text + "'");
  return V;
}

} // namespace

llvm::Expected<ProbeOptions>
parseProbeOptions(const std::vector<std::string> &Args) {
  ProbeOptions O;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef Arg = Args[I];
    llvm::StringRef Option = Arg, Inline;
    bool HasInline = false;
    if (Arg.startswith("--") && Arg.contains('=')) {
      std::tie(Option, Inline) = Arg.split('=');
      HasInline = true;
    }
    auto Value = [&]() -> llvm::Expected<std::string> {
      if (HasInline)
        return Inline.str();
      if (I + 1 >= Args.size())
        return usage(Option + ": missing value");
      return Args[++I];
    };
    auto Flag = [&]() -> llvm::Error {
      if (HasInline)
        return usage(Option + ": takes no value");
      return llvm::Error::success();
    };

    if (Option == "-h" || Option == "--help") {
      if (auto E = Flag())
        return E;
      O.Help = true;
    } else if (Option == "--version") {
      if (auto E = Flag())
        return E;
      O.Version = true;
    } else if (Option == "--quick") {
      if (auto E = Flag())
        return E;
      O.Quick = true;
    } else if (Option == "-o" || Option == "--output") {
      auto V = Value();
      if (!V)
        return V.takeError();
      if (V->empty())
        return usage(Option + ": expected a file name");
      O.Output = *V;
    } else if (Option == "--name") {
      auto V = Value();
      if (!V)
        return V.takeError();
      if (V->empty() || !isValidUtf8(*V))
        return usage("--name: expected a non-empty UTF-8 name");
      O.Name = *V;
    } else if (Option == "--topology") {
      auto V = Value();
      if (!V)
        return V.takeError();
      O.Discover = *V == "discover";
      if (O.Discover) {
        O.Topology = ProbeTopology();
        continue;
      }
      auto T = parseProbeTopology(*V);
      if (!T)
        return T.takeError();
      O.Topology = *T;
    } else if (Option == "--base") {
      auto V = Value();
      if (!V)
        return V.takeError();
      llvm::StringRef B = *V;
      if (B == "smpi") {
        O.BaseLink.K = Base::Smpi;
      } else if (B == "measured") {
        O.BaseLink.K = Base::Measured;
      } else if (B.contains(',')) {
        auto [L, W] = B.split(',');
        auto Lat = positive("--base latency", L, 1e12, "1e12");
        if (!Lat)
          return Lat.takeError();
        auto Bw = positive("--base bandwidth", W, 1e12, "1e12");
        if (!Bw)
          return Bw.takeError();
        O.BaseLink.K = Base::Given;
        O.BaseLink.Link = {*Lat, *Bw};
      } else {
        return usage("--base: expected smpi, measured or LATENCY,BANDWIDTH, "
                     "got '" +
                     B + "'");
      }
    } else if (Option == "--max-bytes") {
      auto V = Value();
      if (!V)
        return V.takeError();
      uint64_t N = 0;
      if (llvm::StringRef(*V).getAsInteger(10, N) || N < 1024 ||
          N > (uint64_t(256) << 20))
        return usage("--max-bytes: expected an integer in [1024, 268435456], "
                     "got '" +
                     *V + "'");
      O.MaxBytes = N;
    } else if (Option == "--max-error") {
      auto V = Value();
      if (!V)
        return V.takeError();
      auto P = positive("--max-error", *V, 1000, "1000");
      if (!P)
        return P.takeError();
      O.MaxError = *P / 100;
    } else if (Arg.startswith("-")) {
      return usage("unknown option '" + Option + "' (see --help)");
    } else {
      return usage("unexpected argument '" + Arg + "' (see --help)");
    }
  }
  return O;
}

} // namespace collc::probe
