#include "backends/SelectTable.h"

#include "ir/Diagnostic.h"
#include "ir/EnumNames.h"
#include "ir/Escape.h"

#include "llvm/Support/Format.h"

namespace collc {

int ompiCollectiveId(Collective C) {
  // coll_base_functions.h, COLLTYPE_T, in the order of Collective (Open MPI
  // has no multicast; reduce-scatter is its REDUCESCATTERBLOCK).
  static constexpr int Ids[] = {7, -1, 11, 2, 14, 8, 9, 15, 0, 3, 6, 13};
  return enumEntry<Collective::Bcast, Collective::ReduceScatter>(C, Ids, -1);
}

int ompiAlgorithm(Collective C, llvm::StringRef A) {
  struct Map {
    Collective C;
    const char *Collc;
    int Ompi;
  };
  // Open MPI 4.1 numbering (ompi_info --param coll tuned --level 9).
  static const Map Maps[] = {
      {Collective::Bcast, "sequential", 1},
      {Collective::Bcast, "chain", 2},
      {Collective::Bcast, "pipeline", 3},
      {Collective::Bcast, "binomial", 6},
      {Collective::Bcast, "scatter-allgather", 9}, // scatter_allgather_ring
      {Collective::Reduce, "binomial", 5},
      {Collective::Reduce, "reduce-scatter-allgather", 7}, // rabenseifner
      {Collective::Allreduce, "binomial", 2}, // nonoverlapping: reduce + bcast
      {Collective::Allreduce, "reduce-scatter-allgather", 6}, // rabenseifner
      {Collective::Gather, "linear", 1},
      {Collective::Gather, "binomial", 2},
      {Collective::Scatter, "linear", 1},
      {Collective::Scatter, "binomial", 2},
      {Collective::Alltoall, "pairwise", 2},
      {Collective::Alltoall, "bruck", 3}, // modified_bruck
      {Collective::Scan, "linear", 1},
      {Collective::Exscan, "linear", 1},
      {Collective::Allgather, "bruck", 2}, // bruck
      {Collective::Allgather, "ring", 4},  // ring
  };
  for (const Map &X : Maps)
    if (X.C == C && A == X.Collc)
      return X.Ompi;
  return 0;
}

void emitSelect(llvm::raw_ostream &OS, const Machine &M, const Selection &Sel) {
  const Request &Base = Sel.Base;
  OS << "# collc select: " << collectiveName(Base.Coll) << " of " << Base.size()
     << " ranks on machine '" << printableText(M.Name) << "' ("
     << modelKindName(M.M.Kind)
     << " model); auto's choice per message size:\n#   " << Sel.Policy << "\n";
  OS << "#   from_bytes     to_bytes  algorithm                   segments   "
        "time_at_from     time_at_to\n";
  for (const AlgorithmBand &B : Sel.Bands) {
    std::string Segs = B.SegmentsAtLo == B.SegmentsAtHi
                           ? std::to_string(B.SegmentsAtLo)
                           : std::to_string(B.SegmentsAtLo) + "-" +
                                 std::to_string(B.SegmentsAtHi);
    OS << llvm::format("  %12llu %12llu  %-26s %9s %14.6g %14.6g\n",
                       static_cast<unsigned long long>(B.Lo),
                       static_cast<unsigned long long>(B.Hi),
                       B.Algorithm.c_str(), Segs.c_str(), B.TimeAtLo,
                       B.TimeAtHi);
  }
}

llvm::Error emitOmpiRules(llvm::raw_ostream &OS, const Machine &M,
                          const Selection &Sel) {
  const Request &Base = Sel.Base;
  const std::vector<AlgorithmBand> &Bands = Sel.Bands;
  int Id = ompiCollectiveId(Base.Coll);
  if (Id < 0)
    return error("--emit ompi-rules: Open MPI has no %s collective",
                 collectiveName(Base.Coll));
  OS << "# Open MPI coll/tuned dynamic rules written by collc: "
     << collectiveName(Base.Coll) << " on " << Base.size()
     << " ranks, machine '" << printableText(M.Name) << "'.\n"
     << "# Use: mpirun --mca coll_tuned_use_dynamic_rules 1 \\\n"
     << "#        --mca coll_tuned_dynamic_rules_filename <this file> ...\n"
     << "# Each rule: from this message size on (bytes), algorithm, fan-in/out "
        "(0 = default), segment size (0 = none).\n"
     << "1 # collectives\n"
     << Id << " # " << collectiveName(Base.Coll) << "\n"
     << "1 # communicator sizes\n"
     << Base.size() << " # ranks\n"
     << Bands.size() << " # message sizes\n";
  for (size_t I = 0; I < Bands.size(); ++I) {
    const AlgorithmBand &B = Bands[I];
    uint64_t From = I == 0 ? 0 : B.Lo;
    // Open MPI's pipeline takes a segment size: collc's segment count at the
    // band's start, as bytes.
    uint64_t SegSize = 0;
    if (B.Algorithm == "pipeline" && B.SegmentsAtLo > 1)
      SegSize = (B.Lo + B.SegmentsAtLo - 1) / B.SegmentsAtLo;
    OS << From << ' ' << ompiAlgorithm(Base.Coll, B.Algorithm) << " 0 "
       << SegSize << " # " << B.Algorithm << ", " << B.Lo << ".." << B.Hi
       << llvm::format(" bytes, model time %.6g..%.6g\n", B.TimeAtLo,
                       B.TimeAtHi);
  }
  return llvm::Error::success();
}

} // namespace collc
