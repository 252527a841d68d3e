#include "ir/ScheduleJson.h"

#include "ir/Diagnostic.h"
#include "ir/Escape.h"

#include "ir/JsonTree.h"
#include "ir/Request.h"

#include "ir/Format.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace collc {

namespace {

/// Piece \p P as `{"origins": [lo,hi], "dests": [lo,hi], "chunks": [lo,hi]}`,
/// formatted in a buffer and written at once (a 65,536-rank latency-form swing
/// lists 25 million pieces; the stream's operator per number took a tenth of
/// its compile).
void writePiece(llvm::raw_ostream &OS, const Piece &P) {
  char Buf[256];
  char *At = Buf;
  auto Text = [&](llvm::StringRef S) {
    std::copy(S.begin(), S.end(), At);
    At += S.size();
  };
  auto Span = [&](const Interval &I) {
    *At++ = '[';
    At = std::to_chars(At, Buf + sizeof Buf, I.Lo).ptr;
    *At++ = ',';
    At = std::to_chars(At, Buf + sizeof Buf, I.Hi).ptr;
    *At++ = ']';
  };
  Text("{\"origins\": ");
  Span(P.Origins);
  Text(", \"dests\": ");
  Span(P.Dests);
  Text(", \"chunks\": ");
  Span(P.Chunks);
  *At++ = '}';
  OS.write(Buf, size_t(At - Buf));
}

void writeString(llvm::raw_ostream &OS, llvm::StringRef S) {
  OS << jsonString(S);
}

} // namespace

void writeScheduleJson(llvm::raw_ostream &OS, const Schedule &S,
                       const Machine *M) {
  Piece Whole = S.wholeMessage();
  OS << "{\n  \"collective\": ";
  writeString(OS, collectiveName(S.Coll));
  OS << ",\n  \"algorithm\": ";
  writeString(OS, S.Algorithm);
  OS << ",\n  \"machine\": ";
  writeString(OS, S.MachineName);
  OS << ",\n  \"bytes\": " << S.Bytes << ",\n  \"root\": " << S.Root
     << ",\n  \"chunks\": " << S.NumChunks;
  if (S.RecvWindow > 0)
    OS << ",\n  \"recv_window\": " << S.RecvWindow;
  if (S.StagingDepth > 0)
    OS << ",\n  \"staging_depth\": " << S.StagingDepth;
  if (S.Lockstep)
    OS << ",\n  \"lockstep\": true";
  if (S.SendsAhead)
    OS << ",\n  \"sends_ahead\": true";
  if (!S.Op.empty()) {
    OS << ",\n  \"op\": ";
    writeString(OS, S.Op);
    OS << ",\n  \"datatype\": ";
    writeString(OS, S.Datatype);
    OS << ",\n  \"commutative\": " << (S.Commutative ? "true" : "false");
  }
  OS << ",\n  \"makespan\": " << formatNumber(S.Makespan);
  OS << ",\n  \"participants\": [";
  bool Coords = M && M->Topo.hasCoordinates();
  for (int32_t R = 0; R < S.size(); ++R) {
    OS << (R ? ",\n    " : "\n    ") << "{\"rank\": " << R
       << ", \"node\": " << S.Participants[R].Node;
    if (Coords) {
      OS << ", \"coord\": [";
      auto C = M->Topo.coordOf(S.Participants[R].Node);
      for (size_t I = 0; I < C.size(); ++I)
        OS << (I ? "," : "") << C[I];
      OS << ']';
    }
    OS << '}';
  }
  OS << "\n  ],\n  \"steps\": [";
  for (size_t SI = 0; SI < S.Steps.size(); ++SI) {
    OS << (SI ? ",\n    " : "\n    ") << "{\"transfers\": [";
    const auto &Ts = S.Steps[SI].Transfers;
    for (size_t TI = 0; TI < Ts.size(); ++TI) {
      const Transfer &T = Ts[TI];
      OS << (TI ? ",\n      " : "\n      ") << "{\"src\": " << T.Src
         << ", \"dst\": " << T.Dst << ", \"bytes\": " << T.Bytes;
      if (T.Kind != TransferKind::Copy)
        OS << ", \"kind\": \"" << transferKindName(T.Kind) << '"';
      if (T.From != 0)
        OS << ", \"from\": " << unsigned(T.From);
      if (T.Into != 1)
        OS << ", \"into\": " << unsigned(T.Into);
      if (T.TieDown != 0)
        OS << ", \"tie_down\": " << unsigned(T.TieDown);
      bool Default =
          T.Kind != TransferKind::Signal &&
          (T.Pieces.empty() || (T.Pieces.size() == 1 && T.Pieces[0] == Whole));
      if (!Default && !T.Pieces.empty()) {
        OS << ", \"pieces\": [";
        for (size_t PI = 0; PI < T.Pieces.size(); ++PI) {
          const Piece &P = T.Pieces[PI];
          if (PI)
            OS << ", ";
          writePiece(OS, P);
        }
        OS << ']';
      }
      OS << ", \"start\": " << formatNumber(T.Start)
         << ", \"end\": " << formatNumber(T.End) << '}';
    }
    OS << (Ts.empty() ? "]}" : "\n    ]}");
  }
  OS << (S.Steps.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

namespace {

/// Reads the schedule from the JSON tree; the first problem is kept with the
/// place it was found.
struct Reader {
  llvm::StringRef Text, File;
  int64_t Nodes; ///< The machine's node count (INT64_MAX: no machine).
  std::string Problem;

  bool fail(const JsonNode &At, const std::string &Msg) {
    return failAt(At.Offset, Msg);
  }
  bool failAt(size_t Offset, const std::string &Msg) {
    if (Problem.empty())
      Problem = locatedError(Text, File, Offset, Msg);
    return false;
  }
  /// Member \p Key of \p Obj; a missing required one is an error at \p Obj.
  bool member(const JsonNode &Obj, const char *Key, const JsonNode *&Out,
              bool Required) {
    Out = Obj.find(Key);
    if (!Out && Required)
      return fail(Obj, std::string("missing key '") + Key + "'");
    return true;
  }
  /// Member \p Key of \p Obj read by \p Read(value); a missing required one
  /// is an error at \p Obj, a missing optional one is not read.
  template <typename ReadFn>
  bool read(const JsonNode &Obj, const char *Key, bool Required, ReadFn Read) {
    const JsonNode *V;
    if (!member(Obj, Key, V, Required))
      return false;
    return !V || Read(*V);
  }
  /// An integer in [Min, Max]; a missing optional key leaves \p Out as is.
  bool getInt(const JsonNode &Obj, const char *Key, int64_t &Out,
              bool Required = true, int64_t Min = INT64_MIN,
              int64_t Max = INT64_MAX) {
    return read(Obj, Key, Required, [&](const JsonNode &V) {
      // An integer beyond 64 bits reads as a floating-point number.
      bool Digits = V.K == JsonNode::Kind::Number &&
                    V.Str.find_first_of(".eE") == std::string::npos;
      if (!V.isInteger() && !Digits)
        return fail(V, std::string("'") + Key + "' must be an integer");
      if (Digits || V.Huge || V.Int < Min || V.Int > Max) {
        std::string Range =
            Max == INT64_MAX ? (Min == INT64_MIN ? "of 64 bits"
                                                 : ">= " + std::to_string(Min))
                             : "in [" + std::to_string(Min) + ", " +
                                   std::to_string(Max) + "]";
        return fail(V, std::string("'") + Key + "' must be an integer " +
                           Range + ", got " + V.Str);
      }
      Out = V.Int;
      return true;
    });
  }
  bool getTime(const JsonNode &Obj, const char *Key, double &Out) {
    const JsonNode *V = Obj.find(Key);
    if (!V || V->K == JsonNode::Kind::Null) {
      Out = NAN;
      return true;
    }
    if (!V->isNumber())
      return fail(*V, std::string("'") + Key + "' must be a number or null");
    Out = V->Num;
    return true;
  }
  /// The required array \p Key of \p Obj.
  bool getArray(const JsonNode &Obj, const char *Key, const JsonNode *&Out) {
    if (!member(Obj, Key, Out, true))
      return false;
    return Out->isArray() ||
           fail(*Out, std::string("'") + Key + "' must be an array");
  }
  bool getInterval(const JsonNode &Obj, const char *Key, Interval &Out) {
    return read(Obj, Key, true, [&](const JsonNode &V) {
      if (!V.isArray() || V.Items.size() != 2 || !V.Items[0].isInteger() ||
          !V.Items[1].isInteger() || V.Items[0].Huge || V.Items[1].Huge)
        return fail(V, std::string("'") + Key + "' must be [lo, hi]");
      Out = {V.Items[0].Int, V.Items[1].Int};
      return true;
    });
  }
  bool getString(const JsonNode &Obj, const char *Key, std::string &Out,
                 bool Required = true) {
    return read(Obj, Key, Required, [&](const JsonNode &V) {
      if (V.K != JsonNode::Kind::String)
        return fail(V, std::string("'") + Key + "' must be a string");
      Out = V.Str;
      return true;
    });
  }

  bool read(const JsonNode &J, Schedule &S) {
    if (!J.isObject())
      return fail(J, "a schedule must be a JSON object");
    std::string Coll;
    if (!getString(J, "collective", Coll))
      return false;
    auto C = parseCollective(Coll);
    if (!C)
      return fail(*J.find("collective"), "unknown collective '" + Coll + "'");
    S.Coll = *C;
    int64_t Bytes = 0, Root = 0, Chunks = 1, Window = 0, Depth = 0;
    if (!getString(J, "algorithm", S.Algorithm) ||
        !getString(J, "machine", S.MachineName, false) ||
        !getInt(J, "bytes", Bytes, true, 0, static_cast<int64_t>(MaxBytes)) ||
        !getInt(J, "root", Root) || !getInt(J, "chunks", Chunks, false, 1) ||
        !getInt(J, "recv_window", Window, false, 0, MaxRecvWindow) ||
        !getInt(J, "staging_depth", Depth, false, 0, MaxStagingDepth) ||
        !getString(J, "op", S.Op, false) ||
        !getString(J, "datatype", S.Datatype, false) ||
        !getTime(J, "makespan", S.Makespan))
      return false;
    S.Bytes = static_cast<uint64_t>(Bytes);
    S.NumChunks = Chunks;
    S.RecvWindow = Window;
    S.StagingDepth = Depth;
    if (const JsonNode *V = J.find("commutative")) {
      if (V->K != JsonNode::Kind::Bool)
        return fail(*V, "'commutative' must be true or false");
      S.Commutative = V->Bool;
    }
    if (const JsonNode *V = J.find("lockstep")) {
      if (V->K != JsonNode::Kind::Bool)
        return fail(*V, "'lockstep' must be true or false");
      S.Lockstep = V->Bool;
    }
    if (const JsonNode *V = J.find("sends_ahead")) {
      if (V->K != JsonNode::Kind::Bool)
        return fail(*V, "'sends_ahead' must be true or false");
      S.SendsAhead = V->Bool;
    }
    const JsonNode *Ps;
    if (!getArray(J, "participants", Ps))
      return false;
    for (const JsonNode &P : Ps->Items) {
      int64_t Node = 0;
      if (!P.isObject())
        return fail(P, "each participant needs a 'node'");
      if (!getInt(P, "node", Node, true, 0,
                  Nodes == INT64_MAX ? INT64_MAX : Nodes - 1))
        return false;
      S.Participants.push_back({Node});
    }
    if (Root < 0 || Root >= S.size())
      return fail(*J.find("root"), "'root' is not a rank of the schedule");
    // As a request's: no byte count of the schedule may wrap.
    const double N = std::max<int32_t>(S.size(), 1);
    if (static_cast<double>(S.Bytes) * N *
            (S.Coll == Collective::Alltoall ? N : 1) >
        static_cast<double>(MaxTransferBytes))
      return fail(*J.find("bytes"),
                  "'bytes' x the ranks" +
                      std::string(S.Coll == Collective::Alltoall
                                      ? " x the ranks"
                                      : "") +
                      " must be at most " + std::to_string(MaxTransferBytes) +
                      " (2^62), so that every byte count fits in 64 bits");
    S.Root = static_cast<int32_t>(Root);
    Piece Whole = S.wholeMessage();
    const JsonNode *Ss;
    if (!getArray(J, "steps", Ss))
      return false;
    for (const JsonNode &SJ : Ss->Items) {
      const JsonNode *Ts = SJ.find("transfers");
      if (!SJ.isObject() || !Ts || !Ts->isArray())
        return fail(Ts ? *Ts : SJ, "each step needs a 'transfers' array");
      Step St;
      for (const JsonNode &TJ : Ts->Items) {
        if (!readTransfer(TJ, S, Whole, St.Transfers.emplace_back()))
          return false;
      }
      S.Steps.push_back(std::move(St));
    }
    return true;
  }

  bool readTransfer(const JsonNode &TJ, const Schedule &S, const Piece &Whole,
                    Transfer &T) {
    if (!TJ.isObject())
      return fail(TJ, "a transfer must be a JSON object");
    int64_t Src = 0, Dst = 0, TB = 0;
    if (!getInt(TJ, "src", Src) || !getInt(TJ, "dst", Dst) ||
        !getInt(TJ, "bytes", TB, true, 0) || !getTime(TJ, "start", T.Start) ||
        !getTime(TJ, "end", T.End))
      return false;
    for (const char *Key : {"src", "dst"}) {
      const JsonNode &V = *TJ.find(Key);
      if (V.Int < 0 || V.Int >= S.size())
        return fail(V, "transfer between ranks outside the schedule");
    }
    T.Src = static_cast<int32_t>(Src);
    T.Dst = static_cast<int32_t>(Dst);
    T.Bytes = static_cast<uint64_t>(TB);
    std::string Kind = "copy";
    if (!getString(TJ, "kind", Kind, false))
      return false;
    if (Kind == "copy")
      T.Kind = TransferKind::Copy;
    else if (Kind == "combine")
      T.Kind = TransferKind::Combine;
    else if (Kind == "signal")
      T.Kind = TransferKind::Signal;
    else
      return fail(*TJ.find("kind"), "unknown transfer kind '" + Kind + "'");
    int64_t From = 0, Into = 1, TieDown = 0;
    if (!getInt(TJ, "from", From, false, 0, 1) ||
        !getInt(TJ, "into", Into, false, 1, 3))
      return false;
    T.From = static_cast<uint8_t>(From);
    T.Into = static_cast<uint8_t>(Into);
    if (!getInt(TJ, "tie_down", TieDown, false))
      return false;
    if (TieDown < 0 || TieDown > 255)
      return fail(*TJ.find("tie_down"),
                  "'tie_down' must be a bit mask of dimensions in [0, 255]");
    T.TieDown = static_cast<uint8_t>(TieDown);
    if (const JsonNode *PJ = TJ.find("pieces")) {
      if (!PJ->isArray())
        return fail(*PJ, "'pieces' must be an array");
      for (const JsonNode &X : PJ->Items) {
        Piece P;
        if (!X.isObject())
          return fail(X, "a piece must be a JSON object");
        if (!getInterval(X, "origins", P.Origins) ||
            !getInterval(X, "dests", P.Dests) ||
            !getInterval(X, "chunks", P.Chunks))
          return false;
        T.Pieces.push_back(P);
      }
    } else if (T.Kind != TransferKind::Signal) {
      T.Pieces.push_back(Whole);
    }
    return true;
  }
};

} // namespace

llvm::Expected<Schedule>
readScheduleJson(llvm::StringRef Text, llvm::StringRef File, const Machine *M) {
  JsonNode J;
  JsonError E;
  if (!parseJsonTree(Text, J, E))
    return llvm::make_error<LocatedError>(locatedError(
        Text, File, E.Offset, "expected a JSON schedule: " + E.Message));
  Schedule S;
  int64_t Nodes = M && M->Topo.Nodes > 0 ? M->Topo.Nodes : INT64_MAX;
  Reader R{Text, File, Nodes, {}};
  if (!R.read(J, S))
    return llvm::make_error<LocatedError>(R.Problem);
  return S;
}

} // namespace collc
