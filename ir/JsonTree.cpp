#include "ir/JsonTree.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>
#include <unordered_set>

namespace collc {

const JsonNode *JsonNode::find(llvm::StringRef Key) const {
  for (const JsonMember &M : Members)
    if (M.Key == Key)
      return &M.Value;
  return nullptr;
}

namespace {

/// A character iterator that publishes how far nlohmann's lexer has read, so
/// that the SAX events below can tell where their token started.
struct TrackedIter {
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char *;
  using reference = const char &;
  const char *P = nullptr;
  const char **Read = nullptr;

  reference operator*() const { return *P; }
  TrackedIter &operator++() {
    *Read = ++P;
    return *this;
  }
  TrackedIter operator++(int) {
    TrackedIter Old = *this;
    ++*this;
    return Old;
  }
  bool operator==(const TrackedIter &O) const { return P == O.P; }
  bool operator!=(const TrackedIter &O) const { return P != O.P; }
};

using json = nlohmann::json;

/// Builds the tree from nlohmann's SAX events. Every event comes right after
/// the lexer read its token (and, for a number, one character more): the
/// token starts at the first character after the previous token that is not
/// blank, ',' or ':'.
class TreeBuilder : public nlohmann::json_sax<json> {
public:
  TreeBuilder(llvm::StringRef Text, const char *const &Read, JsonNode &Root,
              JsonError &Err, bool RejectDuplicates)
      : Text(Text), Read(Read), Root(Root), Err(Err),
        RejectDuplicates(RejectDuplicates), PrevEnd(Text.begin()) {}

  bool null() override { return value(JsonNode::Kind::Null) != nullptr; }
  bool boolean(bool V) override {
    JsonNode *N = value(JsonNode::Kind::Bool);
    N->Bool = V;
    return true;
  }
  bool number_integer(number_integer_t V) override {
    JsonNode *N = value(JsonNode::Kind::Integer);
    N->Int = V;
    N->Num = static_cast<double>(V);
    N->Str = std::to_string(V);
    return true;
  }
  bool number_unsigned(number_unsigned_t V) override {
    JsonNode *N = value(JsonNode::Kind::Integer);
    N->Huge = V > uint64_t(INT64_MAX);
    N->Int = N->Huge ? INT64_MAX : static_cast<int64_t>(V);
    N->Num = static_cast<double>(V);
    N->Str = std::to_string(V);
    return true;
  }
  bool number_float(number_float_t V, const string_t &S) override {
    JsonNode *N = value(JsonNode::Kind::Number);
    N->Num = V;
    N->Str = S;
    return true;
  }
  bool string(string_t &V) override {
    JsonNode *N = value(JsonNode::Kind::String);
    N->Str = std::move(V);
    return true;
  }
  bool binary(binary_t &) override { return fail(Read, "unexpected binary"); }
  bool start_object(std::size_t) override {
    return open(JsonNode::Kind::Object);
  }
  bool start_array(std::size_t) override { return open(JsonNode::Kind::Array); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t &K) override {
    const char *Start = tokenStart();
    JsonNode *Obj = Stack.back();
    if (RejectDuplicates && !Keys.back().insert(K).second)
      return fail(Start, "duplicate key '" + K + "'");
    Obj->Members.push_back({std::move(K), size_t(Start - Text.begin()), {}});
    return true;
  }
  bool parse_error(std::size_t Position, const std::string &,
                   const nlohmann::detail::exception &E) override {
    if (E.id == 406) { // out_of_range: a number beyond a double
      const char *Start = tokenStart();
      llvm::StringRef Number =
          llvm::StringRef(Start, Text.end() - Start).take_while([](char C) {
            return llvm::StringRef("0123456789+-.eE").contains(C);
          });
      return fail(Start,
                  "expected a number within the range of a double, got '" +
                      Number.str() + "'");
    }
    // nlohmann's messages start "[json.exception.parse_error.101] parse
    // error at line L, column C: "; keep only what follows.
    std::string Msg = E.what();
    if (auto Pos = Msg.find(": "); Pos != std::string::npos)
      Msg = Msg.substr(Pos + 2);
    return fail(
        Text.begin() + std::min(Position ? Position - 1 : 0, Text.size()), Msg);
  }

private:
  const char *tokenStart() {
    const char *P = PrevEnd;
    while (P < Text.end() && (*P == ' ' || *P == '\t' || *P == '\n' ||
                              *P == '\r' || *P == ',' || *P == ':'))
      ++P;
    PrevEnd = Read;
    return P;
  }
  /// The node the next value goes into.
  JsonNode *value(JsonNode::Kind K) {
    const char *Start = tokenStart();
    JsonNode *N;
    if (Stack.empty())
      N = &Root;
    else if (Stack.back()->K == JsonNode::Kind::Array)
      N = &Stack.back()->Items.emplace_back();
    else
      N = &Stack.back()->Members.back().Value;
    N->K = K;
    N->Offset = size_t(Start - Text.begin());
    return N;
  }
  bool open(JsonNode::Kind K) {
    if (Stack.size() >= MaxNestingDepth)
      return fail(tokenStart(), "expected at most " +
                                    std::to_string(MaxNestingDepth) +
                                    " levels of nesting");
    Stack.push_back(value(K));
    Keys.emplace_back();
    return true;
  }
  bool close() {
    PrevEnd = Read;
    Stack.pop_back();
    Keys.pop_back();
    return true;
  }
  bool fail(const char *At, std::string Msg) {
    Err.Offset = size_t(std::min(At, Text.end()) - Text.begin());
    Err.Message = std::move(Msg);
    return false;
  }

  llvm::StringRef Text;
  const char *const &Read;
  JsonNode &Root;
  JsonError &Err;
  bool RejectDuplicates;
  const char *PrevEnd;
  std::vector<JsonNode *> Stack;
  std::vector<std::unordered_set<std::string>> Keys;
};

} // namespace

bool parseJsonTree(llvm::StringRef Text, JsonNode &Root, JsonError &Err,
                   bool RejectDuplicateKeys) {
  Root = JsonNode();
  const char *Read = Text.begin();
  TreeBuilder B(Text, Read, Root, Err, RejectDuplicateKeys);
  TrackedIter First{Text.begin(), &Read}, Last{Text.end(), &Read};
  return json::sax_parse(First, Last, &B, json::input_format_t::json,
                         /*strict=*/true, /*ignore_comments=*/false);
}

std::string locatedError(llvm::StringRef Text, llvm::StringRef File,
                         size_t Offset, const llvm::Twine &Msg) {
  llvm::SourceMgr SM;
  SM.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(Text, File, false),
                        llvm::SMLoc());
  return locatedError(
      SM,
      llvm::SMLoc::getFromPointer(Text.begin() + std::min(Offset, Text.size())),
      Msg);
}

std::string locatedError(const llvm::SourceMgr &SM, llvm::SMLoc Loc,
                         const llvm::Twine &Msg) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  llvm::SMDiagnostic D = SM.GetMessage(Loc, llvm::SourceMgr::DK_Error, Msg);
  llvm::StringRef Line = D.getLineContents();
  if (Line.size() <= 160) {
    D.print(nullptr, OS, /*ShowColors=*/false);
  } else {
    size_t Col = static_cast<size_t>(std::max(D.getColumnNo(), 0));
    size_t From = Col > 40 ? Col - 40 : 0;
    OS << D.getFilename() << ':' << D.getLineNo() << ':' << Col + 1
       << ": error: " << D.getMessage() << '\n'
       << Line.substr(From, 80) << '\n'
       << std::string(Col - From, ' ') << "^\n";
  }
  OS.flush();
  while (!S.empty() && S.back() == '\n')
    S.pop_back();
  return S;
}

} // namespace collc
