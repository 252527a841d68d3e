#include "compiler/Select.h"

#include "compiler/Algorithms.h"
#include "compiler/Driver.h"
#include "ir/Escape.h"
#include "passes/Verify.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <limits>

namespace collc {

llvm::Expected<std::pair<uint64_t, uint64_t>>
parseBytesRange(llvm::StringRef Text) {
  auto [L, H] = Text.split(':');
  uint64_t Lo = 0, Hi = 0;
  if (!Text.contains(':') || L.trim().getAsInteger(10, Lo) ||
      H.trim().getAsInteger(10, Hi) || Lo > Hi || Hi > MaxBytes)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "collc: error: --bytes-range: expected "
                                   "LO:HI with 0 <= LO <= HI <= %llu, "
                                   "got '%s'",
                                   static_cast<unsigned long long>(MaxBytes),
                                   Text.str().c_str());
  return std::make_pair(Lo, Hi);
}

int ompiCollectiveId(Collective C) {
  // coll_base_functions.h, COLLTYPE_T.
  switch (C) {
  case Collective::Allgather:
    return 0;
  case Collective::Allreduce:
    return 2;
  case Collective::Alltoall:
    return 3;
  case Collective::Barrier:
    return 6;
  case Collective::Bcast:
    return 7;
  case Collective::Exscan:
    return 8;
  case Collective::Gather:
    return 9;
  case Collective::Reduce:
    return 11;
  case Collective::Scan:
    return 14;
  case Collective::Scatter:
    return 15;
  case Collective::Multicast:
    return -1;
  }
  return -1;
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

namespace {

struct Pick {
  std::string Algorithm;
  int64_t Segments = 1;
  double Time = std::numeric_limits<double>::infinity();
};

class Selector {
public:
  Selector(const Machine &M, const Request &Base, bool OmpiOnly)
      : M(M), Base(Base), OmpiOnly(OmpiOnly) {}

  llvm::Expected<Pick> at(uint64_t Bytes) {
    Request R = Base;
    R.Bytes = Bytes;
    R.Algorithm = "auto";
    Pick Best;
    for (const AlgorithmInfo *A : autoCandidates(M, R)) {
      if (OmpiOnly && !ompiAlgorithm(R.Coll, A->Name))
        continue;
      auto S = buildAndCost(M, R, A->Name);
      if (!S) {
        llvm::consumeError(S.takeError());
        continue;
      }
      // As under auto: only a schedule that verifies may win.
      if (S->Makespan < Best.Time) {
        if (llvm::Error E = verify(*S, M)) {
          llvm::consumeError(std::move(E));
          continue;
        }
        Best = {A->Name, S->NumChunks, S->Makespan};
      }
    }
    if (Best.Algorithm.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "collc: error: no algorithm%s can build %s %s of %llu bytes on "
          "machine '%s'",
          OmpiOnly ? " that Open MPI also has" : "", withArticle(R.Coll),
          collectiveName(R.Coll), static_cast<unsigned long long>(Bytes),
          M.Name.c_str());
    return Best;
  }

private:
  const Machine &M;
  const Request &Base;
  bool OmpiOnly;
};

uint64_t elementSize(const Request &R) {
  if (R.Datatype == "int64" || R.Datatype == "double")
    return 8;
  if (R.Datatype == "int32" || R.Datatype == "float")
    return 4;
  return 1;
}

} // namespace

llvm::Expected<std::vector<SizeBand>> selectBands(const Machine &M,
                                                  const Request &Base,
                                                  uint64_t Lo, uint64_t Hi,
                                                  bool OmpiOnly) {
  // Reductions take whole elements: work in units of one element.
  const uint64_t Unit = elementSize(Base);
  uint64_t ULo = (Lo + Unit - 1) / Unit, UHi = Hi / Unit;
  if (ULo > UHi)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "collc: error: --bytes-range: no multiple of %llu (the size of %s) in "
        "[%llu, %llu]",
        static_cast<unsigned long long>(Unit), Base.Datatype.c_str(),
        static_cast<unsigned long long>(Lo),
        static_cast<unsigned long long>(Hi));
  Selector Sel(M, Base, OmpiOnly);
  std::vector<uint64_t> Samples{ULo};
  for (uint64_t X = 1; X <= UHi && X < (uint64_t(1) << 62); X *= 2)
    if (X > ULo)
      Samples.push_back(X);
  if (Samples.back() != UHi)
    Samples.push_back(UHi);
  std::vector<SizeBand> Bands;
  auto Add = [&](uint64_t U, const Pick &P) {
    if (Bands.empty() || Bands.back().Algorithm != P.Algorithm) {
      Bands.push_back({U * Unit, U * Unit, P.Algorithm, P.Segments, P.Segments,
                       P.Time, P.Time});
    } else {
      Bands.back().Hi = U * Unit;
      Bands.back().SegmentsAtHi = P.Segments;
      Bands.back().TimeAtHi = P.Time;
    }
  };
  auto First = Sel.at(ULo * Unit);
  if (!First)
    return First.takeError();
  Pick Prev = *First;
  Add(ULo, Prev);
  uint64_t PrevU = ULo;
  for (size_t I = 1; I < Samples.size(); ++I) {
    uint64_t U = Samples[I];
    auto Cur = Sel.at(U * Unit);
    if (!Cur)
      return Cur.takeError();
    // Bisect (PrevU, U] for the first size where the winner changes.
    uint64_t A = PrevU, B = U;
    Pick PA = Prev, PB = *Cur;
    while (PA.Algorithm != PB.Algorithm && B - A > 1) {
      uint64_t Mid = A + (B - A) / 2;
      auto PM = Sel.at(Mid * Unit);
      if (!PM)
        return PM.takeError();
      if (PM->Algorithm == PA.Algorithm) {
        A = Mid;
        PA = *PM;
      } else {
        B = Mid;
        PB = *PM;
      }
    }
    Add(A, PA);
    Add(B, PB);
    if (B != U)
      Add(U, *Cur);
    Prev = *Cur;
    PrevU = U;
  }
  return Bands;
}

void emitSelect(llvm::raw_ostream &OS, const Machine &M, const Request &Base,
                const std::vector<SizeBand> &Bands) {
  OS << "# collc select: " << collectiveName(Base.Coll) << " of " << Base.size()
     << " ranks on machine '" << printableText(M.Name) << "' ("
     << modelKindName(M.M.Kind)
     << " model); the cheapest algorithm under the model per message size\n";
  OS << "#   from_bytes     to_bytes  algorithm                   segments   "
        "time_at_from     time_at_to\n";
  for (const SizeBand &B : Bands) {
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
                          const Request &Base,
                          const std::vector<SizeBand> &Bands) {
  int Id = ompiCollectiveId(Base.Coll);
  if (Id < 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "collc: error: --emit ompi-rules: Open MPI has "
        "no %s collective",
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
    const SizeBand &B = Bands[I];
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
