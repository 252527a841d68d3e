#include "ir/ScheduleJson.h"

#include "ir/Format.h"

#include <charconv>
#include <nlohmann/json.hpp>

namespace collc {

namespace {

void writeInterval(llvm::raw_ostream &OS, const Interval &I) {
  OS << '[' << I.Lo << ',' << I.Hi << ']';
}

void writeString(llvm::raw_ostream &OS, llvm::StringRef S) {
  OS << '"';
  for (char C : S) {
    if (C == '"' || C == '\\')
      OS << '\\' << C;
    else if (static_cast<unsigned char>(C) < 0x20)
      OS << llvm::format("\\u%04x", C);
    else
      OS << C;
  }
  OS << '"';
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
          OS << (PI ? ", " : "") << "{\"origins\": ";
          writeInterval(OS, P.Origins);
          OS << ", \"dests\": ";
          writeInterval(OS, P.Dests);
          OS << ", \"chunks\": ";
          writeInterval(OS, P.Chunks);
          OS << '}';
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

using nlohmann::json;

/// Line and column (1-based) of byte \p Offset in \p Text.
std::pair<unsigned, unsigned> lineCol(llvm::StringRef Text, size_t Offset) {
  unsigned Line = 1, Col = 1;
  for (size_t I = 0; I < Offset && I < Text.size(); ++I) {
    if (Text[I] == '\n') {
      ++Line;
      Col = 1;
    } else {
      ++Col;
    }
  }
  return {Line, Col};
}

struct Reader {
  llvm::StringRef File;
  std::string Problem;

  bool fail(const std::string &Msg) {
    if (Problem.empty())
      Problem = Msg;
    return false;
  }
  bool getInt(const json &J, const char *Key, int64_t &Out,
              bool Required = true) {
    auto It = J.find(Key);
    if (It == J.end())
      return Required ? fail(std::string("missing key '") + Key + "'") : true;
    if (!It->is_number_integer())
      return fail(std::string("'") + Key + "' must be an integer");
    Out = It->get<int64_t>();
    return true;
  }
  bool getTime(const json &J, const char *Key, double &Out) {
    auto It = J.find(Key);
    if (It == J.end() || It->is_null()) {
      Out = NAN;
      return true;
    }
    if (!It->is_number())
      return fail(std::string("'") + Key + "' must be a number or null");
    Out = It->get<double>();
    return true;
  }
  bool getInterval(const json &J, const char *Key, Interval &Out) {
    auto It = J.find(Key);
    if (It == J.end())
      return fail(std::string("missing key '") + Key + "'");
    if (!It->is_array() || It->size() != 2 || !(*It)[0].is_number_integer() ||
        !(*It)[1].is_number_integer())
      return fail(std::string("'") + Key + "' must be [lo, hi]");
    Out = {(*It)[0].get<int64_t>(), (*It)[1].get<int64_t>()};
    return true;
  }
  bool getString(const json &J, const char *Key, std::string &Out,
                 bool Required = true) {
    auto It = J.find(Key);
    if (It == J.end())
      return Required ? fail(std::string("missing key '") + Key + "'") : true;
    if (!It->is_string())
      return fail(std::string("'") + Key + "' must be a string");
    Out = It->get<std::string>();
    return true;
  }

  bool read(const json &J, Schedule &S) {
    if (!J.is_object())
      return fail("a schedule must be a JSON object");
    std::string Coll;
    if (!getString(J, "collective", Coll))
      return false;
    auto C = parseCollective(Coll);
    if (!C)
      return fail("unknown collective '" + Coll + "'");
    S.Coll = *C;
    int64_t Bytes = 0, Root = 0, Chunks = 1;
    if (!getString(J, "algorithm", S.Algorithm) ||
        !getString(J, "machine", S.MachineName, false) ||
        !getInt(J, "bytes", Bytes) || !getInt(J, "root", Root) ||
        !getInt(J, "chunks", Chunks, false) ||
        !getString(J, "op", S.Op, false) ||
        !getString(J, "datatype", S.Datatype, false) ||
        !getTime(J, "makespan", S.Makespan))
      return false;
    if (Bytes < 0 || Chunks < 1)
      return fail("'bytes' must be >= 0 and 'chunks' >= 1");
    S.Bytes = static_cast<uint64_t>(Bytes);
    S.Root = static_cast<int32_t>(Root);
    S.NumChunks = Chunks;
    if (auto It = J.find("commutative"); It != J.end())
      S.Commutative = It->is_boolean() ? It->get<bool>() : true;
    auto Ps = J.find("participants");
    if (Ps == J.end() || !Ps->is_array())
      return fail("'participants' must be an array");
    for (const json &P : *Ps) {
      int64_t Node = 0;
      if (!P.is_object() || !getInt(P, "node", Node))
        return fail("each participant needs a 'node'");
      S.Participants.push_back({Node});
    }
    if (Root < 0 || Root >= S.size())
      return fail("'root' is not a rank of the schedule");
    Piece Whole = S.wholeMessage();
    auto Ss = J.find("steps");
    if (Ss == J.end() || !Ss->is_array())
      return fail("'steps' must be an array");
    for (const json &SJ : *Ss) {
      auto Ts = SJ.find("transfers");
      if (!SJ.is_object() || Ts == SJ.end() || !Ts->is_array())
        return fail("each step needs a 'transfers' array");
      Step St;
      for (const json &TJ : *Ts) {
        Transfer T;
        int64_t Src = 0, Dst = 0, TB = 0;
        if (!TJ.is_object() || !getInt(TJ, "src", Src) ||
            !getInt(TJ, "dst", Dst) || !getInt(TJ, "bytes", TB) ||
            !getTime(TJ, "start", T.Start) || !getTime(TJ, "end", T.End))
          return false;
        if (Src < 0 || Src >= S.size() || Dst < 0 || Dst >= S.size())
          return fail("transfer between ranks outside the schedule");
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
          return fail("unknown transfer kind '" + Kind + "'");
        int64_t From = 0, Into = 1;
        if (!getInt(TJ, "from", From, false) ||
            !getInt(TJ, "into", Into, false))
          return false;
        if (From < 0 || From > 1 || Into < 1 || Into > 3)
          return fail("'from' must be 0 or 1 and 'into' 1, 2 or 3");
        T.From = static_cast<uint8_t>(From);
        T.Into = static_cast<uint8_t>(Into);
        int64_t TieDown = 0;
        if (!getInt(TJ, "tie_down", TieDown, false))
          return false;
        if (TieDown < 0 || TieDown > 255)
          return fail(
              "'tie_down' must be a bit mask of dimensions in [0, 255]");
        T.TieDown = static_cast<uint8_t>(TieDown);
        if (auto PJ = TJ.find("pieces"); PJ != TJ.end()) {
          if (!PJ->is_array())
            return fail("'pieces' must be an array");
          for (const json &X : *PJ) {
            Piece P;
            if (!getInterval(X, "origins", P.Origins) ||
                !getInterval(X, "dests", P.Dests) ||
                !getInterval(X, "chunks", P.Chunks))
              return false;
            T.Pieces.push_back(P);
          }
        } else if (T.Kind != TransferKind::Signal) {
          T.Pieces.push_back(Whole);
        }
        St.Transfers.push_back(std::move(T));
      }
      S.Steps.push_back(std::move(St));
    }
    return true;
  }
};

} // namespace

llvm::Expected<Schedule> readScheduleJson(llvm::StringRef Text,
                                          llvm::StringRef File) {
  json J;
  try {
    J = json::parse(Text.begin(), Text.end());
  } catch (const json::parse_error &E) {
    auto [Line, Col] = lineCol(Text, E.byte ? E.byte - 1 : 0);
    std::string Msg = E.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line
    // L, column C: "; keep only what follows.
    if (auto Pos = Msg.find(": "); Pos != std::string::npos)
      Msg = Msg.substr(Pos + 2);
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s:%u:%u: error: expected a JSON schedule: %s", File.str().c_str(),
        Line, Col, Msg.c_str());
  }
  Schedule S;
  Reader R{File, {}};
  if (!R.read(J, S))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: error: %s", File.str().c_str(),
                                   R.Problem.c_str());
  return S;
}

} // namespace collc
