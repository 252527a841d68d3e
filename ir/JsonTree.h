/// \file
/// Strict JSON (RFC 8259) read into a tree that remembers where every value
/// and key starts, so that readers can report `file:line:col` for what they
/// find wrong in a well-formed document. The reader is iterative (no
/// recursion on nesting), bounds the nesting depth, rejects numbers beyond a
/// double and, when asked, duplicate keys.
#ifndef COLLC_IR_JSONTREE_H
#define COLLC_IR_JSONTREE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// Deepest nesting of arrays and objects (and YAML collections) a spec,
/// request or schedule may have; theirs is at most 6.
constexpr unsigned MaxNestingDepth = 64;

struct JsonMember;

/// One JSON value and the byte offset of its first character.
struct JsonNode {
  enum class Kind : uint8_t {
    Null,
    Bool,
    Integer,
    Number,
    String,
    Array,
    Object
  };
  Kind K = Kind::Null;
  bool Bool = false;
  /// Integer: the value, unless \c Huge (an integer above INT64_MAX).
  int64_t Int = 0;
  bool Huge = false;
  /// Integer and Number: the value as a double (always finite).
  double Num = 0;
  /// String: the value. Integer and Number: the text as written.
  std::string Str;
  size_t Offset = 0;
  std::vector<JsonNode> Items;     ///< Array.
  std::vector<JsonMember> Members; ///< Object, in the order written.

  bool isObject() const { return K == Kind::Object; }
  bool isArray() const { return K == Kind::Array; }
  bool isInteger() const { return K == Kind::Integer; }
  bool isNumber() const { return K == Kind::Integer || K == Kind::Number; }
  /// The value of member \p Key of an object, or null.
  const JsonNode *find(llvm::StringRef Key) const;
};

struct JsonMember {
  std::string Key;
  size_t KeyOffset = 0;
  JsonNode Value;
};

/// What went wrong, and where (byte offset into the text).
struct JsonError {
  size_t Offset = 0;
  std::string Message;
};

/// Parses \p Text into \p Root. On failure returns false and fills \p Err:
/// syntax errors as nlohmann_json words them, nesting deeper than
/// MaxNestingDepth, numbers beyond a double and, with \p RejectDuplicateKeys,
/// a key given twice in one object.
bool parseJsonTree(llvm::StringRef Text, JsonNode &Root, JsonError &Err,
                   bool RejectDuplicateKeys = true);

/// `File:line:col: error: Msg`, then the line of \p Text and a caret under
/// byte \p Offset: the form of every located diagnostic of collc.
std::string locatedError(llvm::StringRef Text, llvm::StringRef File,
                         size_t Offset, const llvm::Twine &Msg);

/// The same for a location in a buffer of \p SM. A line longer than 160
/// characters is shown as the 80 around the column.
std::string locatedError(const llvm::SourceMgr &SM, llvm::SMLoc Loc,
                         const llvm::Twine &Msg);

} // namespace collc

#endif
