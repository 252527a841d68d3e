/// \file
/// A small, strict XML reader for the subset SimGrid platform files use,
/// into a tree that remembers where every element and attribute starts (like
/// ir/JsonTree.h for JSON), so that a reader of the tree can report
/// `file:line:col` for what it finds wrong in a well-formed document.
///
/// It reads: an optional XML declaration, comments and processing
/// instructions, a DOCTYPE without an internal subset, one root element;
/// elements with attributes in either quote kind; the entities &lt; &gt;
/// &amp; &quot; &apos; and character references (&#65; &#x41;) in attribute
/// values. Character data other than blanks, CDATA sections and an internal
/// DTD subset are errors: platform elements hold only elements. The text
/// must be UTF-8; elements nest at most MaxNestingDepth deep, and a document
/// has at most MaxXmlElements elements.
#ifndef COLLC_READERS_XMLTREE_H
#define COLLC_READERS_XMLTREE_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <string>
#include <vector>

namespace collc {

/// The most elements one document may have (a platform needs a handful).
constexpr size_t MaxXmlElements = 100000;

struct XmlAttribute {
  std::string Name;
  std::string Value;      ///< Entities replaced.
  size_t Offset = 0;      ///< Byte offset of the name.
  size_t ValueOffset = 0; ///< Byte offset of the first character of the value.
};

struct XmlElement {
  std::string Name;
  size_t Offset = 0; ///< Byte offset of its '<'.
  std::vector<XmlAttribute> Attributes;
  std::vector<XmlElement> Children;

  /// Attribute \p Name, or null.
  const XmlAttribute *attribute(llvm::StringRef Name) const;
};

/// What went wrong, and where (byte offset into the text).
struct XmlError {
  size_t Offset = 0;
  std::string Message;
};

/// Parses \p Text into \p Root (the root element). On failure returns false
/// and fills \p Err ("expected '>' to close <cluster>", "</zone> does not
/// close <cluster> (line 4)", ...).
bool parseXmlTree(llvm::StringRef Text, XmlElement &Root, XmlError &Err);

/// Whether \p Text looks like XML (after blanks, `<?xml` or `<platform`), for
/// readers that accept several formats.
bool looksLikeXml(llvm::StringRef Text);

} // namespace collc

#endif
