#include "passes/Contention.h"

#include "ir/Diagnostic.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace collc {

namespace {

/// One channel use: transfer T holds channel C during [Start, End).
struct Use {
  Channel C;
  double Start, End;
  uint32_t T;   ///< Index into the flat transfer list.
  uint32_t Pos; ///< Position of C on T's route.
};

struct Flat {
  TransferRef Ref;
  /// The sending rank (ranks on one node send independently) and the
  /// receiving rank.
  int32_t Src, Dst;
  double Start, End, Hold;
};

std::string fmtTime(double T) {
  if (std::isnan(T))
    return "?";
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::format("%g", T);
  return OS.str();
}

} // namespace

ChannelWindow wormChannelWindow(const WormholeParams &W, uint64_t Bytes,
                                unsigned Hops, unsigned Pos, double Start) {
  const uint64_t M = W.flits(Bytes);
  const uint64_t L = std::max<uint64_t>(1, M); // a signal is one header flit
  const double Inject = Start + W.Ss + static_cast<double>(M) * W.Sd;
  const uint64_t Release = std::min<uint64_t>(Pos + L, Hops + L - 1);
  return {Inject + static_cast<double>(Pos - 1) * W.Cd,
          Inject + static_cast<double>(Release) * W.Cd};
}

ContentionReport checkContention(const Schedule &S, const Machine &M,
                                 const ContentionOptions &Opts) {
  ContentionReport R;
  const Topology &Topo = M.Topo;
  if (!isRouted(Topo)) {
    R.Checked = false;
    R.Why = std::string("no routing for topology '") +
            topologyKindName(Topo.Kind) + "' yet";
    return R;
  }
  // Times, or step windows when any transfer lacks them.
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers)
      if (std::isnan(T.Start) || std::isnan(T.End))
        R.Timed = false;

  // Wormhole parameters give each channel use its own window (see the
  // header); the other models only bound a transfer by [Start, End).
  const bool Worm = R.Timed && M.M.Kind == ModelKind::Wormhole;
  R.PerChannel = Worm;
  const bool Stream = R.Timed && !Worm && M.Net.has_value();

  std::vector<Flat> Ts;
  Ts.reserve(S.numTransfers());
  std::vector<Use> Uses;
  std::vector<Channel> Route;
  for (uint32_t SI = 0; SI < S.Steps.size(); ++SI) {
    const Step &St = S.Steps[SI];
    for (uint32_t TI = 0; TI < St.Transfers.size(); ++TI) {
      const Transfer &T = St.Transfers[TI];
      int64_t A = S.Participants[T.Src].Node, B = S.Participants[T.Dst].Node;
      double Start = R.Timed ? T.Start : SI, End = R.Timed ? T.End : SI + 1;
      uint32_t Idx = static_cast<uint32_t>(Ts.size());
      Ts.push_back({{SI, TI}, T.Src, T.Dst, Start, End, M.M.tHold(T.Bytes)});
      Route.clear();
      // isRouted() said yes, so routing cannot fail.
      llvm::cantFail(appendRoute(Topo, A, B, Route, T.TieDown));
      const unsigned K = static_cast<unsigned>(Route.size());
      for (uint32_t P = 0; P < K; ++P) {
        if (Worm) {
          ChannelWindow W =
              wormChannelWindow(M.M.Worm, T.Bytes, K, P + 1, Start);
          Uses.push_back({Route[P], W.From, W.To, Idx, P});
        } else {
          Uses.push_back({Route[P], Start, End, Idx, P});
        }
      }
    }
  }
  R.Transfers = Ts.size();
  R.ChannelUses = Uses.size();

  std::sort(Uses.begin(), Uses.end(), [](const Use &X, const Use &Y) {
    if (X.C.From != Y.C.From)
      return X.C.From < Y.C.From;
    if (X.C.To != Y.C.To)
      return X.C.To < Y.C.To;
    if (X.C.Lane != Y.C.Lane) // a fat tree's parallel links
      return X.C.Lane < Y.C.Lane;
    if (X.Start != Y.Start)
      return X.Start < Y.Start;
    return X.T < Y.T;
  });

  // Sweep each channel's uses in start order, keeping those still in the
  // network. A pair is reported once, at its first shared channel on the
  // earlier transfer's route.
  std::unordered_set<uint64_t> Seen;
  std::vector<Conflict> Found;
  std::vector<const Use *> Active;
  for (size_t I = 0; I < Uses.size();) {
    size_t J = I;
    while (J < Uses.size() && Uses[J].C == Uses[I].C)
      ++J;
    Active.clear();
    for (size_t K = I; K < J; ++K) {
      const Use &U = Uses[K];
      // Drop uses that left the network by the time U enters it.
      Active.erase(
          std::remove_if(Active.begin(), Active.end(),
                         [&](const Use *A) { return A->End <= U.Start; }),
          Active.end());
      for (const Use *A : Active) {
        const Flat &FA = Ts[A->T], &FU = Ts[U.T];
        if (!R.Timed && FA.Ref.Step != FU.Ref.Step)
          continue;
        // One sender (a rank, not a node: several ranks of one node send
        // at once), t_hold apart: serialized at the source (Theorem 3.2).
        // Per-channel windows need no such rule: they already say whether
        // the later worm reaches the channel after the earlier one's tail.
        if (R.Timed && !Worm && FA.Src == FU.Src &&
            U.Start - A->Start >= FA.Hold * (1 - 1e-12))
          continue;
        // One stream, on a network: messages of one rank to one rank take
        // one route and MPI delivers them in order, so a pipeline's
        // segments posted before the previous one arrived share that
        // route's links with each other only.
        if (Stream && FA.Src == FU.Src && FA.Dst == FU.Dst)
          continue;
        double From = std::max(A->Start, U.Start), To = std::min(A->End, U.End);
        if (!(From < To))
          continue;
        uint64_t Key = (static_cast<uint64_t>(std::min(A->T, U.T)) << 32) |
                       std::max(A->T, U.T);
        if (!Seen.insert(Key).second)
          continue;
        Found.push_back({FA.Ref, FU.Ref, U.C, From, To});
        if (Opts.StopAtFirst)
          break;
      }
      if (Opts.StopAtFirst && !Found.empty())
        break;
      Active.push_back(&U);
    }
    if (Opts.StopAtFirst && !Found.empty())
      break;
    I = J;
  }
  R.NumConflicts = Found.size();
  if (Found.size() > Opts.MaxConflicts)
    Found.resize(Opts.MaxConflicts);
  R.Conflicts = std::move(Found);
  return R;
}

std::string describeTransfer(const Schedule &S, const Machine &M,
                             TransferRef Ref) {
  const Transfer &T = S.Steps[Ref.Step].Transfers[Ref.Index];
  const Topology &Topo = M.Topo;
  std::string Out =
      "step " + std::to_string(Ref.Step) + " #" + std::to_string(Ref.Index) +
      " rank " + std::to_string(T.Src) + " " +
      nodeName(Topo, S.Participants[T.Src].Node) + " -> rank " +
      std::to_string(T.Dst) + " " + nodeName(Topo, S.Participants[T.Dst].Node);
  if (!std::isnan(T.Start))
    Out += " [" + fmtTime(T.Start) + ", " + fmtTime(T.End) + ")";
  return Out;
}

void printContention(llvm::raw_ostream &OS, const Schedule &S, const Machine &M,
                     const ContentionReport &R) {
  if (!R.Checked) {
    OS << "contention: not checked: " << R.Why << "\n";
    return;
  }
  OS << "contention: " << R.NumConflicts << " conflicting pair"
     << (R.NumConflicts == 1 ? "" : "s") << " among " << R.Transfers
     << " transfers (" << R.ChannelUses << " channel uses on "
     << topologyKindName(M.Topo.Kind) << ", "
     << (!R.Timed       ? "step windows"
         : R.PerChannel ? "wormhole channel windows"
                        : "timed windows")
     << ")" << (R.clean() ? ": contention-free" : "") << "\n";
  for (const Conflict &C : R.Conflicts) {
    OS << "  channel " << channelName(M.Topo, C.Shared) << ": "
       << describeTransfer(S, M, C.A) << " and " << describeTransfer(S, M, C.B);
    if (R.Timed)
      OS << " overlap [" << fmtTime(C.From) << ", " << fmtTime(C.To) << ")";
    else
      OS << " in the same step";
    OS << "\n";
  }
  if (R.NumConflicts > R.Conflicts.size())
    OS << "  ... and " << R.NumConflicts - R.Conflicts.size() << " more\n";
}

void emitContention(llvm::raw_ostream &OS, const Schedule &S,
                    const Machine &M) {
  printContention(OS, S, M, checkContention(S, M));
}

llvm::Error requireContentionFree(const Schedule &S, const Machine &M) {
  ContentionReport CR = checkContention(S, M);
  if (CR.clean())
    return llvm::Error::success();
  std::string Msg;
  llvm::raw_string_ostream OS(Msg);
  printContention(OS, S, M, CR);
  return llvm::make_error<CheckFailure>(
      "--verify: " + llvm::StringRef(OS.str()).rtrim().str());
}

} // namespace collc
