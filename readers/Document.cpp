#include "readers/Document.h"

#include "ir/Diagnostic.h"

#include "ir/Escape.h"
#include "ir/Format.h"
#include "ir/JsonTree.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/YAMLParser.h"

#include <cmath>

using namespace llvm;

namespace collc {

Document::Document(MemoryBufferRef Buf) : Name(Buf.getBufferIdentifier()) {
  SM.AddNewSourceBuffer(MemoryBuffer::getMemBuffer(Buf, false), SMLoc());
  SM.setDiagHandler(
      [](const SMDiagnostic &D, void *Ctx) {
        auto *Self = static_cast<Document *>(Ctx);
        Self->error(D.getLoc(), "expected YAML or JSON: " + D.getMessage());
      },
      this);
  Text = Buf.getBuffer();
}

Document::Document() : Name("collc") {}

Document::~Document() = default;

const DocNode *Document::root(StringRef What) {
  // Names reach every output, JSON included, which must read back: the text
  // must be UTF-8 (the YAML scanner would misread other bytes).
  size_t Bad = 0;
  if (!isValidUtf8(Text, &Bad)) {
    error(SMLoc::getFromPointer(Text.begin() + Bad),
          "expected UTF-8 text; this byte is not");
    return nullptr;
  }
  if (StringRef(Name).endswith(".json") && !checkJson())
    return nullptr;
  Stream = std::make_unique<yaml::Stream>(
      SM.getMemoryBuffer(SM.getMainFileID())->getMemBufferRef(), SM, false);
  auto It = Stream->begin();
  if (It == Stream->end() || Failed) {
    if (!Failed)
      error(SMLoc::getFromPointer(Text.begin()),
            "expected a " + What + " mapping, got an empty file");
    return nullptr;
  }
  yaml::Node *N = It->getRoot();
  if (Failed)
    return nullptr;
  // Convert the whole document once, so that syntax errors surface before
  // schema errors.
  DocNode *Top = convert(N);
  if (Failed)
    return nullptr;
  if (Top && Top->Kind == DocNode::Null) {
    error(Top->Loc, "expected a " + What + " mapping, got an empty document");
    return nullptr;
  }
  if (!Top || Top->Kind != DocNode::Map) {
    error(Top ? Top->Loc : SMLoc::getFromPointer(Text.begin()),
          "expected a " + What + " mapping");
    return nullptr;
  }
  ++It;
  if (It != Stream->end()) {
    error(nextDocument(), "expected a single document");
    return nullptr;
  }
  return Top;
}

const DocNode *Document::commandLine(StringRef Option, StringRef Value) {
  Pool.push_back(std::make_unique<DocNode>());
  DocNode *N = Pool.back().get();
  N->Kind = DocNode::Scalar;
  N->Text = Value.str();
  N->Option = Option.str();
  return N;
}

/// Where the document after the first begins: its `---`, past the first
/// document's last scalar, closing brackets, blanks, comments and `...`.
SMLoc Document::nextDocument() {
  const char *P = LastEnd ? LastEnd : Text.begin();
  while (P < Text.end()) {
    StringRef Rest(P, Text.end() - P);
    if (isSpace(*P) || *P == ']' || *P == '}' || *P == ',')
      ++P;
    else if (*P == '#')
      P = Rest.find('\n') == StringRef::npos ? Text.end() : P + Rest.find('\n');
    else if (Rest.startswith("..."))
      P += 3;
    else
      break;
  }
  return SMLoc::getFromPointer(std::min(P, Text.end()));
}

bool Document::error(SMLoc Loc, const Twine &Msg) {
  if (!Failed) {
    Failed = true;
    Located = true;
    Message = render(Loc, Msg.str());
  }
  return false;
}

bool Document::error(const DocNode *N, const Twine &Msg) {
  if (Failed)
    return false;
  if (N && !N->fromCommandLine())
    return error(N->Loc, Msg);
  Failed = true;
  // A command-line value's error names its option; the tool says whose
  // error it is.
  Located = false;
  Message = (N ? N->Option + ": " : std::string()) + Msg.str();
  return false;
}

Error Document::takeError() {
  Failed = false; // the document may be read again (a request per combination)
  if (Located)
    return make_error<LocatedError>(Message);
  return createStringError(inconvertibleErrorCode(), Message);
}

std::string Document::render(SMLoc Loc, const std::string &Msg) {
  if (Loc.isValid())
    return locatedError(SM, Loc, Msg);
  return Name + ": error: " + Msg;
}

bool Document::scalar(const DocNode &N, StringRef Key) {
  if (N.Kind != DocNode::Scalar)
    return error(&N, "expected a scalar for '" + Key + "'");
  return true;
}

bool Document::string(const DocNode &N, StringRef Key, std::string &Out) {
  if (!scalar(N, Key))
    return false;
  if (N.Text.empty())
    return error(&N, "expected a non-empty string for '" + Key + "'");
  Out = N.Text;
  return true;
}

bool Document::number(const DocNode &N, StringRef Key, double &Out, double Min,
                      double Max) {
  if (!scalar(N, Key))
    return false;
  const std::string &Text = N.Text;
  double V;
  StringRef T = StringRef(Text).trim();
  if (!N.Quoted &&
      (T.equals_insensitive(".nan") || T.equals_insensitive(".inf") ||
       T.equals_insensitive("-.inf") || T.equals_insensitive("+.inf")))
    return error(&N, "expected a finite number for '" + Key + "', got '" +
                         Text + "'");
  if (N.Quoted || T.getAsDouble(V))
    return error(&N, "expected a number for '" + Key + "', got '" + Text + "'");
  if (!std::isfinite(V))
    return error(&N, "expected a finite number for '" + Key + "', got '" +
                         Text + "'");
  if (V < Min)
    return error(&N, "expected a number >= " + formatBound(Min) + " for '" +
                         Key + "', got '" + Text + "'");
  if (V > Max)
    return error(&N, "expected a number <= " + formatBound(Max) + " for '" +
                         Key + "', got '" + Text + "'");
  Out = V;
  return true;
}

bool Document::integer(const DocNode &N, StringRef Key, int64_t &Out,
                       int64_t Min, int64_t Max) {
  if (!scalar(N, Key))
    return false;
  const std::string &Text = N.Text;
  StringRef T = StringRef(Text).trim();
  bool Negative = T.startswith("-");
  uint64_t Abs;
  StringRef Digits = Negative ? T.drop_front() : T;
  auto OutOfRange = [&] {
    return error(&N, "expected an integer in [" + Twine(Min) + ", " +
                         Twine(Max) + "] for '" + Key + "', got '" + Text +
                         "'");
  };
  if (!N.Quoted && !Digits.empty() &&
      Digits.find_first_not_of("0123456789") == StringRef::npos &&
      Digits.getAsInteger(10, Abs))
    Abs = UINT64_MAX; // too many digits: out of range below
  else if (N.Quoted || Digits.getAsInteger(10, Abs))
    // A command-line value learns the range with its first mistake: no
    // schema stands next to it (--help gives none).
    return N.fromCommandLine() ? OutOfRange()
                               : error(&N, "expected an integer for '" + Key +
                                               "', got '" + Text + "'");
  if (Negative ? Abs > uint64_t(-(Min < 0 ? Min : 0)) : Abs > uint64_t(Max))
    return OutOfRange();
  int64_t V = Negative ? -int64_t(Abs) : int64_t(Abs);
  if (V < Min || V > Max)
    return OutOfRange();
  Out = V;
  return true;
}

/// \p Depth counts the collections around \p N; deeper than MaxNestingDepth
/// is an error rather than a stack overflow.
DocNode *Document::convert(yaml::Node *N, unsigned Depth) {
  if (!N || Failed)
    return nullptr;
  Pool.push_back(std::make_unique<DocNode>());
  DocNode *Out = Pool.back().get();
  Out->Loc = N->getSourceRange().Start;
  if (Out->Loc.getPointer() > LastEnd)
    LastEnd = Out->Loc.getPointer();
  if ((isa<yaml::MappingNode>(N) || isa<yaml::SequenceNode>(N)) &&
      Depth >= MaxNestingDepth) {
    error(Out->Loc,
          "expected at most " + Twine(MaxNestingDepth) + " levels of nesting");
    return nullptr;
  }
  if (auto *M = dyn_cast<yaml::MappingNode>(N)) {
    Out->Kind = DocNode::Map;
    for (yaml::KeyValueNode &KV : *M) {
      DocNode *K = convert(KV.getKey(), Depth + 1);
      DocNode *V = convert(KV.getValue(), Depth + 1);
      if (Failed)
        return nullptr;
      Out->Entries.push_back({K, V});
    }
  } else if (auto *S = dyn_cast<yaml::SequenceNode>(N)) {
    Out->Kind = DocNode::Seq;
    for (yaml::Node &E : *S) {
      DocNode *X = convert(&E, Depth + 1);
      if (Failed)
        return nullptr;
      Out->Items.push_back(X);
    }
  } else if (auto *Sc = dyn_cast<yaml::ScalarNode>(N)) {
    Out->Kind = DocNode::Scalar;
    LastEnd = std::max(LastEnd, Sc->getRawValue().end());
    SmallString<32> Storage;
    Out->Text = Sc->getValue(Storage).str();
    StringRef Raw = Sc->getRawValue();
    Out->Quoted = Raw.startswith("\"") || Raw.startswith("'");
  } else if (auto *B = dyn_cast<yaml::BlockScalarNode>(N)) {
    Out->Kind = DocNode::Scalar;
    LastEnd = std::max(LastEnd, B->getSourceRange().End.getPointer());
    Out->Text = B->getValue().str();
    Out->Quoted = true;
  } else if (isa<yaml::AliasNode>(N)) {
    error(N->getSourceRange().Start,
          "expected plain YAML: anchors and aliases are not supported");
    return nullptr;
  } else {
    Out->Kind = DocNode::Null;
  }
  return Out;
}

/// JSON files must be strict JSON: YAML accepts things JSON does not.
/// Duplicate keys are left to the schema, which names the mapping.
bool Document::checkJson() {
  JsonNode Tree;
  JsonError E;
  if (!parseJsonTree(Text, Tree, E, /*RejectDuplicateKeys=*/false))
    return error(SMLoc::getFromPointer(Text.begin() + E.Offset),
                 "expected JSON: " + E.Message);
  return true;
}

} // namespace collc
