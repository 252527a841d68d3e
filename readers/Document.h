/// \file
/// One input document of the front end (a machine spec or a request), read
/// into a tree of DocNodes, and the errors found in it. YAML is read with
/// LLVM's YAML parser; a file named *.json must first pass a strict JSON check
/// (ir/JsonTree.h), then reads as YAML flow style. Values given on the command
/// line join the document as nodes of their own, so that one reader serves
/// both. Every error is reported once, the first:
///
///   file:line:col: error: <what was expected>   (with the line and a caret)
///   collc: error: --option: <what was expected> (a command-line value)
#ifndef COLLC_READERS_DOCUMENT_H
#define COLLC_READERS_DOCUMENT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llvm::yaml {
class Node;
class Stream;
} // namespace llvm::yaml

namespace collc {

/// A node of a document, converted once from LLVM's single-pass YAML nodes so
/// that a schema can look at it as often as it likes.
struct DocNode {
  enum KindT { Scalar, Map, Seq, Null } Kind = Null;
  llvm::SMLoc Loc;  ///< Where it starts in the file.
  std::string Text; ///< Scalars: the value.
  /// Scalars: written in quotes or as a block, so a string, never a number.
  bool Quoted = false;
  std::vector<std::pair<DocNode *, DocNode *>> Entries; ///< Maps: key, value.
  std::vector<DocNode *> Items;                         ///< Sequences.
  /// A value given on the command line: its option ("--bytes"). Empty for the
  /// nodes of a file.
  std::string Option;

  bool fromCommandLine() const { return !Option.empty(); }
};

/// A document being read and the first error found in it.
class Document {
public:
  /// A document read from \p Buffer (its identifier names the file).
  explicit Document(llvm::MemoryBufferRef Buffer);
  /// A document without a file, for values from the command line only.
  Document();
  Document(const Document &) = delete;
  Document &operator=(const Document &) = delete;
  ~Document();

  /// Parses the file; returns its root mapping, or null after an error. \p
  /// What names the document in errors ("expected a request mapping").
  const DocNode *root(llvm::StringRef What);
  /// A scalar value given on the command line as \p Option.
  const DocNode *commandLine(llvm::StringRef Option, llvm::StringRef Value);

  /// Records \p Msg as the document's error, located at \p N, unless an
  /// error came first; null \p N: about the input as a whole ("collc: error:
  /// missing key 'bytes' in request"). Returns false, for `return error(...)`.
  bool error(const DocNode *N, const llvm::Twine &Msg);
  bool failed() const { return Failed; }
  /// The recorded error; the document records the next one after it.
  llvm::Error takeError();

  /// Checks that \p N is a scalar, the value of field \p Key.
  bool scalar(const DocNode &N, llvm::StringRef Key);
  /// A non-empty string.
  bool string(const DocNode &N, llvm::StringRef Key, std::string &Out);
  /// A finite number in [Min, Max] (a quoted one is a string).
  bool number(const DocNode &N, llvm::StringRef Key, double &Out,
              double Min = 0, double Max = 1e300);
  /// An integer in [Min, Max]; any text of digits beyond 64 bits is out of
  /// range, not malformed.
  bool integer(const DocNode &N, llvm::StringRef Key, int64_t &Out, int64_t Min,
               int64_t Max);

private:
  bool error(llvm::SMLoc Loc, const llvm::Twine &Msg);
  std::string render(llvm::SMLoc Loc, const std::string &Msg);
  DocNode *convert(llvm::yaml::Node *N, unsigned Depth = 0);
  llvm::SMLoc nextDocument();
  bool checkJson();

  std::string Name;
  llvm::SourceMgr SM;
  std::unique_ptr<llvm::yaml::Stream> Stream;
  std::vector<std::unique_ptr<DocNode>> Pool;
  llvm::StringRef Text;
  /// The end of the last scalar converted (or start of the last node).
  const char *LastEnd = nullptr;
  bool Failed = false;
  std::string Message;
  /// Whether Message names its place (a file); else it names an option.
  bool Located = true;
};

} // namespace collc

#endif
