/// \file
/// User text in generated files. Machine names, and a read schedule's
/// `algorithm` and `machine` fields, are free text (any valid UTF-8: the
/// readers reject anything else, so JSON round trips hold); the command line
/// is any bytes. Every backend puts such text through one of these functions
/// for the syntax it lands in, so that it stays text there: never a second
/// line, never code, never a broken string.
#ifndef COLLC_IR_ESCAPE_H
#define COLLC_IR_ESCAPE_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace collc {

/// \p S as one line of printable text, for comments and reports: printable
/// ASCII and printable UTF-8 stay as they are; a backslash becomes `\\`, a
/// newline, tab or carriage return `\n`, `\t`, `\r`; another control
/// character or a byte that is not UTF-8 `\xNN`; a Unicode control,
/// line/paragraph separator, bidirectional or invisible format character
/// (which editors and compilers treat as code: "Trojan Source") `\u{NNNN}`.
std::string printableText(llvm::StringRef S);

/// printableText for a C or C++ line comment: in addition, no `??` (a
/// trigraph under -trigraphs) and no backslash at the end, where it would
/// splice the next line into the comment (both written `\x3f`, `\x5c`).
std::string cComment(llvm::StringRef S);

/// A C/C++ string literal, quotes included, holding exactly the bytes of
/// \p S: `"`, `\` and `?` escaped, every byte outside printable ASCII in
/// octal.
std::string cStringLiteral(llvm::StringRef S);

/// The inside of a DOT quoted string that Graphviz shows as
/// printableText(\p S).
std::string dotString(llvm::StringRef S);

/// A JSON string, quotes included. \p S must be valid UTF-8 (a byte that is
/// not becomes U+FFFD).
std::string jsonString(llvm::StringRef S);

/// Whether \p S is valid UTF-8; if not, \p ErrOffset (when given) is the
/// offset of the first byte that is not.
bool isValidUtf8(llvm::StringRef S, size_t *ErrOffset = nullptr);

} // namespace collc

#endif
