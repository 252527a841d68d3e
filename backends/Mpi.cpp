#include "backends/Mpi.h"

#include "backends/MpiTables.h"

#include "ir/Diagnostic.h"
#include "ir/Escape.h"
#include "ir/Format.h"
#include "ir/MpiEntries.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

using namespace llvm;

namespace collc {

namespace {

/// The runtime's name of \p C: collc::rt::Bcast, ...
std::string rtName(Collective C) {
  std::string N = collectiveIdent(C);
  N[0] = static_cast<char>(toUpper(N[0]));
  return "collc::rt::" + N;
}

/// The MPI library's collective behind entry point \p C, without its "MPI_"
/// or "PMPI_": Bcast, ...
StringRef mpiCollective(Collective C) {
  return StringRef(rt::mpiName(static_cast<int>(entryOf(C)))).drop_front(4);
}

/// How an entry point looks and what it hands the runtime.
struct Entry {
  Collective C;
  const char *Params; ///< C parameter list.
  const char *Args;   ///< The same names, for the fallback call.
  /// collc::rt::Call's fields after the collective: send buffer, count and
  /// datatype, receive buffer, count and datatype, operator, root, comm.
  const char *CallArgs;
};

// One entry a collective, written from the list of entry points the drop-in
// compiles too (ir/MpiEntries.h).
#define COLLC_STRING(...) #__VA_ARGS__
#define COLLC_ENTRY_TEXT(Coll, ICall, Params, Fields, Args)                    \
  {static_cast<Collective>(rt::Coll), COLLC_STRING Params, COLLC_STRING Args,  \
   COLLC_STRING Fields},
#define COLLC_ENTRY(Coll, ICall, Shape, Unused)                                \
  COLLC_MPI_APPLY(COLLC_ENTRY_TEXT, Coll, ICall, Shape)
const Entry Entries[] = {COLLC_MPI_COLLECTIVES(COLLC_ENTRY, )};
#undef COLLC_ENTRY
#undef COLLC_ENTRY_TEXT
#undef COLLC_STRING

const Entry &entry(Collective C) {
  for (const Entry &E : Entries)
    if (E.C == entryOf(C))
      return E;
  llvm_unreachable("every collective has an entry point");
}

/// `{a,b,...}`: the fields of one row of a runtime table.
template <typename... Ts> std::string braced(const Ts &...Fields) {
  std::string Row = "{";
  ((Row += std::to_string(Fields) + ","), ...);
  Row.back() = '}';
  return Row;
}

/// Writes `const Type Name[] = {...};` with the row \p Row gives each of
/// \p Items, wrapped after about 90 characters; \p Unused stands in for an
/// empty table where one row is needed.
template <typename ItemT, typename RowFn>
void writeArray(raw_ostream &OS, const char *Type, const std::string &Name,
                const std::vector<ItemT> &Items, RowFn Row,
                const char *Unused = nullptr) {
  OS << "const " << Type << " " << Name << "[] = {";
  std::string Line;
  auto Flush = [&](bool Last) {
    if (Line.size() > 90 || (Last && !Line.empty())) {
      OS << "\n   " << Line;
      Line.clear();
    }
  };
  for (size_t I = 0; I < Items.size(); ++I) {
    Line += " " + Row(Items[I]) + ",";
    Flush(I + 1 == Items.size());
  }
  if (Items.empty() && Unused) {
    Line = Unused;
    Flush(true);
  }
  OS << "};\n";
}

/// Writes \p T as the arrays <Prefix>_rank_ops, <Prefix>_ops,
/// <Prefix>_segs and <Prefix>_waits.
void writeTables(raw_ostream &OS, const std::string &Prefix,
                 const MpiTables &T) {
  auto Number = [](auto V) { return std::to_string(V); };
  const char *Unused = " {0, 0, 0, 0, 0, 0}, /* unused */";
  writeArray(OS, "int64_t", Prefix + "_rank_ops", T.RankOps, Number);
  writeArray(
      OS, "collc::rt::Op", Prefix + "_ops", T.Ops,
      [](const rt::Op &O) {
        return braced(O.Step, O.Peer, O.Flags, O.Seg, O.NumSegs, O.Wait);
      },
      Unused);
  writeArray(
      OS, "collc::rt::Seg", Prefix + "_segs", T.Segs,
      [](const rt::Seg &G) {
        return braced(G.Block, G.NumBlocks, G.ChunkLo, G.ChunkHi, G.Buf,
                      G.Mode);
      },
      Unused);
  writeArray(OS, "int32_t", Prefix + "_waits", T.Waits, Number);
}

std::string functionName(Collective C, const std::string &Name) {
  return std::string("collc_") + collectiveIdent(entryOf(C)) + "_" + Name;
}

std::string bytesText(uint64_t B) {
  return B == UINT64_MAX ? std::string("UINT64_MAX") : std::to_string(B) + "u";
}

/// Collectives of \p Variants in the order they first appear.
std::vector<Collective> entryCollectives(ArrayRef<MpiVariant> Variants) {
  std::vector<Collective> Out;
  for (const MpiVariant &V : Variants)
    if (std::find(Out.begin(), Out.end(), entryOf(V.S->Coll)) == Out.end())
      Out.push_back(entryOf(V.S->Coll));
  return Out;
}

void declarations(raw_ostream &OS, ArrayRef<Collective> Colls,
                  const std::string &Name) {
  for (Collective C : Colls)
    OS << "int " << functionName(C, Name) << "(" << entry(C).Params << ");\n";
}

} // namespace

std::string defaultMpiName(const Schedule &S) {
  std::string Raw =
      S.MachineName.empty() ? S.Algorithm : S.MachineName + "_" + S.Algorithm;
  std::string Out;
  for (char Ch : Raw)
    Out += isAlnum(Ch) ? static_cast<char>(toLower(Ch)) : '_';
  if (Out.empty() || isDigit(Out[0]))
    Out = "s" + Out;
  return Out;
}

bool isValidMpiName(StringRef Name) {
  if (Name.empty())
    return false;
  for (char Ch : Name)
    if (!isAlnum(Ch) && Ch != '_')
      return false;
  return true;
}

Expected<std::vector<MpiVariant>> mpiSizeBands(ArrayRef<Schedule> Schedules,
                                               MpiSizes Sizes) {
  std::vector<MpiVariant> Out;
  for (const Schedule &S : Schedules) {
    // A reduction that needs a commutative operator and one that folds in
    // rank order serve different calls: they may share a size, and each
    // has its own size bands. (A table the backend cannot build is reported
    // by emitMpi.)
    bool NeedsCommutative = false;
    if (isReduction(S.Coll)) {
      auto T = lowerToTables(S);
      if (!T)
        consumeError(T.takeError());
      else
        NeedsCommutative = T->NeedsCommutative;
    }
    Out.push_back({&S, S.Bytes, S.Bytes, NeedsCommutative});
  }
  auto Key = [](const MpiVariant &V) {
    return std::make_tuple(static_cast<int>(entryOf(V.S->Coll)), V.S->size(),
                           isRooted(V.S->Coll) ? V.S->Root : 0,
                           V.NeedsCommutative);
  };
  std::stable_sort(
      Out.begin(), Out.end(), [&](const MpiVariant &A, const MpiVariant &B) {
        return std::make_tuple(Key(A), A.S->Bytes, !A.S->Commutative) <
               std::make_tuple(Key(B), B.S->Bytes, !B.S->Commutative);
      });
  // A reduction built for a non-commutative operator whose fold order is
  // that of the one built for a commutative operator and the same call
  // adds nothing: the latter serves every operator the former could.
  Out.erase(std::unique(Out.begin(), Out.end(),
                        [&](const MpiVariant &A, const MpiVariant &B) {
                          return Key(A) == Key(B) && A.S->Bytes == B.S->Bytes &&
                                 isReduction(A.S->Coll) && A.S->Commutative &&
                                 !B.S->Commutative;
                        }),
            Out.end());
  for (size_t I = 0; I < Out.size(); ++I) {
    bool First = I == 0 || Key(Out[I - 1]) != Key(Out[I]);
    bool Last = I + 1 == Out.size() || Key(Out[I + 1]) != Key(Out[I]);
    if (!First && Out[I - 1].S->Bytes == Out[I].S->Bytes)
      return createStringError(
          inconvertibleErrorCode(),
          "two %s schedules for %d ranks, root %d and %llu bytes ('%s' and "
          "'%s'%s): a call could "
          "not choose between them",
          collectiveName(Out[I].S->Coll), Out[I].S->size(), Out[I].S->Root,
          (unsigned long long)Out[I].S->Bytes, Out[I - 1].S->Algorithm.c_str(),
          Out[I].S->Algorithm.c_str(),
          !isReduction(Out[I].S->Coll) ? ""
          : Out[I].NeedsCommutative    ? ", both for commutative operators only"
                                       : ", both folding in rank order");
    if (Out[I].S->Coll == Collective::Barrier) {
      Out[I].MinBytes = 0;
      Out[I].MaxBytes = UINT64_MAX;
      continue;
    }
    if (Sizes != MpiSizes::Any)
      continue;
    if (First)
      Out[I].MinBytes = 0;
    if (Last)
      Out[I].MaxBytes = UINT64_MAX;
    else {
      // Split at the geometric mean of (bytes + 1): each size goes to the
      // variant whose size is nearer on a log scale.
      uint64_t A = Out[I].S->Bytes, B = Out[I + 1].S->Bytes;
      double G = std::sqrt((static_cast<double>(A) + 1) *
                           (static_cast<double>(B) + 1)) -
                 1;
      uint64_t Cut =
          std::clamp<uint64_t>(static_cast<uint64_t>(std::ceil(G)), A + 1, B);
      Out[I].MaxBytes = Cut - 1;
      Out[I + 1].MinBytes = Cut;
    }
  }
  return Out;
}

void emitMpiHeader(raw_ostream &OS, ArrayRef<MpiVariant> Variants,
                   const MpiOptions &Options) {
  std::string Guard = "COLLC_" + StringRef(Options.Name).upper() + "_H";
  OS << "// Generated by collc " COLLC_VERSION
        ": the entry points of the schedules \""
     << Options.Name << "\".\n";
  if (!Options.Command.empty())
    OS << "//   " << cComment(Options.Command) << "\n";
  OS << "#ifndef " << Guard << "\n#define " << Guard
     << "\n\n#include <mpi.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  declarations(OS, entryCollectives(Variants), Options.Name);
  OS << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
}

Error emitMpi(raw_ostream &OS, ArrayRef<MpiVariant> Variants,
              const MpiOptions &Options) {
  if (!isValidMpiName(Options.Name))
    return createStringError(
        inconvertibleErrorCode(),
        "--mpi-name: '%s' is not a C identifier suffix (letters, digits, _)",
        Options.Name.c_str());
  std::vector<Collective> Colls = entryCollectives(Variants);
  const bool Fallback = Options.Fallback || Options.Preload;
  const char *Lib = Options.Preload ? "PMPI_" : "MPI_";

  OS << "// Generated by collc " COLLC_VERSION
        ". Do not edit: regenerate it.\n";
  if (!Options.Command.empty())
    OS << "//   " << cComment(Options.Command) << "\n";
  OS << "//\n// Schedules (each runs for calls with its communicator size, "
        "root and\n"
        "// message size; bytes count one block: the broadcast buffer, the "
        "reduced\n"
        "// vector, one rank's block of a gather, scatter, allgather or "
        "alltoall):\n";
  for (const MpiVariant &V : Variants) {
    const Schedule &S = *V.S;
    OS << "//   " << collectiveName(S.Coll) << " " << cComment(S.Algorithm);
    if (!S.MachineName.empty())
      OS << " on " << cComment(S.MachineName);
    OS << ": " << S.size() << " ranks";
    if (isRooted(S.Coll))
      OS << ", root " << S.Root;
    OS << ", built for " << S.Bytes << " bytes";
    if (S.NumChunks > 1)
      OS << " in " << S.NumChunks << " chunks";
    if (S.Coll != Collective::Barrier) {
      if (V.MinBytes == V.MaxBytes)
        OS << ", serves exactly that size";
      else
        OS << ", serves " << V.MinBytes << ".."
           << (V.MaxBytes == UINT64_MAX ? std::string("")
                                        : std::to_string(V.MaxBytes))
           << " bytes";
    }
    OS << ", " << S.Steps.size() << " steps";
    if (!std::isnan(S.Makespan))
      OS << ", model time " << formatNumber(S.Makespan);
    OS << "\n";
  }
  OS << "//\n// Entry points (MPI's signatures; they return MPI error "
        "codes):\n";
  for (Collective C : Colls)
    OS << "//   int " << functionName(C, Options.Name) << "(" << entry(C).Params
       << ");\n";
  OS << "// When no schedule fits a call: "
     << (Fallback
             ? std::string("the MPI library's own collective (") + Lib +
                   "...) runs.\n"
             : std::string(
                   "the call raises MPI_ERR_COMM, MPI_ERR_ROOT, "
                   "MPI_ERR_COUNT,\n"
                   "// MPI_ERR_TYPE or MPI_ERR_OP through the communicator's "
                   "error handler;\n"
                   "// collc::rt::lastError() says why.\n"));
  if (Options.Preload)
    OS << "// PMPI interposers: MPI_<collective> runs the schedules above, "
          "PMPI_<collective>\n"
          "// otherwise. Build as a shared library and LD_PRELOAD it.\n";
  OS << "\n#include <collc/runtime.h>\n\n#include <cstdint>\n\n";

  std::string Prefix = "collc_" + Options.Name;
  OS << "namespace {\n\n";
  std::map<Collective, std::vector<std::string>> VariantsOf;
  for (size_t I = 0; I < Variants.size(); ++I) {
    const MpiVariant &V = Variants[I];
    const Schedule &S = *V.S;
    auto T = lowerToTables(S);
    if (!T)
      return T.takeError();
    // What the generated code runs passes the check a reader of tables
    // applies (the drop-in's); failing it is collc's fault.
    if (Error E = checkTables(*T, S.Coll, S.size(), S.Root, S.NumChunks))
      return make_error<InternalError>(
          "collc: the " + std::string(collectiveName(S.Coll)) + " schedule '" +
          S.Algorithm + "': " + toString(std::move(E)));
    const rt::Variant RV = T->variant(S, V.MinBytes, V.MaxBytes);
    std::string VP = Prefix + "_v" + std::to_string(I);
    OS << "// " << collectiveName(S.Coll) << " " << cComment(S.Algorithm)
       << ", " << S.size() << " ranks: " << T->Ops.size()
       << " operations. Per rank {step, peer, flags, segment, "
          "segments, wait};\n// segments {block, blocks, first chunk, end "
          "chunk, buffer, mode};\n// waits {staging, posting waits, applying "
          "waits, operations...}.\n";
    writeTables(OS, VP, *T);
    OS << "\n";
    VariantsOf[entryOf(S.Coll)].push_back(
        "  {" + cStringLiteral(S.Algorithm) + ", " + rtName(S.Coll) + ", " +
        std::to_string(RV.Ranks) + ", " + std::to_string(RV.Root) + ", " +
        bytesText(RV.MinBytes) + ", " + bytesText(RV.MaxBytes) + ", " +
        std::to_string(RV.NumChunks) + ", " +
        (RV.NeedsCommutative ? "true" : "false") + ", " +
        std::to_string(RV.ScratchBlocks) + ", " + VP + "_rank_ops, " + VP +
        "_ops, " + VP + "_segs, " + VP + "_waits},");
  }
  for (Collective C : Colls) {
    OS << "const collc::rt::Variant " << Prefix << "_" << collectiveIdent(C)
       << "_variants[] = {\n";
    for (const std::string &L : VariantsOf[C])
      OS << L << "\n";
    OS << "};\n\n";
  }
  OS << "} // namespace\n\n";

  for (Collective C : Colls) {
    const Entry &E = entry(C);
    std::string Table = Prefix + "_" + collectiveIdent(C) + "_variants";
    OS << "extern \"C\" int " << functionName(C, Options.Name) << "("
       << E.Params << ") {\n"
       << "  const collc::rt::Call Call = {" << rtName(C) << ", " << E.CallArgs
       << "};\n"
       << "  const int N = static_cast<int>(sizeof " << Table << " / sizeof "
       << Table << "[0]);\n"
       << "  int Code = MPI_SUCCESS;\n";
    if (Options.MaxPiece)
      OS << "  // The machine's protocol: {max_piece}: longer messages go in "
            "pieces of\n"
            "  // at most this many bytes (COLLC_MAX_PIECE overrides it).\n"
         << "  collc::rt::machinePiece() = " << Options.MaxPiece << ";\n";
    if (Fallback)
      OS << "  if (collc::rt::serve(" << Table << ", N, Call, true, Code))\n"
         << "    return collc::rt::reportError(comm, Code);\n"
         << "  return " << Lib << mpiCollective(C) << "(" << E.Args << ");\n";
    else
      OS << "  collc::rt::serve(" << Table << ", N, Call, false, Code);\n"
         << "  return collc::rt::reportError(comm, Code);\n";
    OS << "}\n\n";
  }
  if (Options.Preload) {
    OS << "// The interposers.\n";
    for (Collective C : Colls) {
      const Entry &E = entry(C);
      OS << "extern \"C\" int MPI_" << mpiCollective(C) << "(" << E.Params
         << ") {\n  return " << functionName(C, Options.Name) << "(" << E.Args
         << ");\n}\n\n";
    }
  }
  return Error::success();
}

} // namespace collc
