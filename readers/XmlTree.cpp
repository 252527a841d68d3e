#include "readers/XmlTree.h"

#include "ir/Escape.h"
#include "ir/JsonTree.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"

namespace collc {

const XmlAttribute *XmlElement::attribute(llvm::StringRef Name) const {
  for (const XmlAttribute &A : Attributes)
    if (A.Name == Name)
      return &A;
  return nullptr;
}

namespace {

bool isBlank(char C) { return C == ' ' || C == '\t' || C == '\n' || C == '\r'; }
bool isNameStart(char C) {
  return llvm::isAlpha(C) || C == '_' || C == ':' ||
         static_cast<unsigned char>(C) >= 0x80;
}
bool isNameChar(char C) {
  return isNameStart(C) || llvm::isDigit(C) || C == '-' || C == '.';
}

/// "line 4" of the element starting at \p Offset, for messages about its
/// end.
std::string lineOf(llvm::StringRef Text, size_t Offset) {
  return "line " + std::to_string(Text.take_front(Offset).count('\n') + 1);
}

class Parser {
public:
  Parser(llvm::StringRef Text, XmlError &Err) : Text(Text), Err(Err) {}

  bool document(XmlElement &Root) {
    if (Text.startswith("\xEF\xBB\xBF"))
      Pos = 3;
    if (peek("<?xml") && Pos + 5 < Text.size() && isBlank(Text[Pos + 5])) {
      if (!processingInstruction())
        return false;
    }
    bool Doctype = false;
    for (;;) {
      if (!misc())
        return false;
      if (!peek("<!DOCTYPE"))
        break;
      if (Doctype)
        return fail("expected one DOCTYPE, got a second");
      Doctype = true;
      if (!doctype())
        return false;
    }
    if (Pos >= Text.size())
      return fail("expected a root element, got the end of the file");
    if (Text[Pos] != '<' || Pos + 1 >= Text.size() ||
        !isNameStart(Text[Pos + 1]))
      return fail("expected a root element");
    if (!element(Root, 1))
      return false;
    if (!misc())
      return false;
    if (Pos < Text.size())
      return fail(Text[Pos] == '<' ? "expected one root element, got a second"
                                   : "expected nothing after the root "
                                     "element but comments");
    return true;
  }

private:
  bool fail(const std::string &Msg) { return failAt(Pos, Msg); }
  bool failAt(size_t At, const std::string &Msg) {
    Err.Offset = std::min(At, Text.size());
    Err.Message = Msg;
    return false;
  }
  bool peek(llvm::StringRef S) const { return Text.substr(Pos).startswith(S); }
  void skipBlanks() {
    while (Pos < Text.size() && isBlank(Text[Pos]))
      ++Pos;
  }

  /// Blanks, comments and processing instructions.
  bool misc() {
    for (;;) {
      skipBlanks();
      if (peek("<!--")) {
        if (!comment())
          return false;
      } else if (peek("<?")) {
        if (!processingInstruction())
          return false;
      } else {
        return true;
      }
    }
  }

  bool comment() {
    size_t Start = Pos;
    size_t End = Text.find("-->", Pos + 4);
    if (End == llvm::StringRef::npos)
      return failAt(Start, "expected '-->' to close this comment");
    Pos = End + 3;
    return true;
  }

  bool processingInstruction() {
    size_t Start = Pos;
    Pos += 2;
    if (Pos >= Text.size() || !isNameStart(Text[Pos]))
      return fail("expected a name after '<?'");
    if (Start > 0 && Text.substr(Pos).startswith_insensitive("xml") &&
        (Pos + 3 >= Text.size() || !isNameChar(Text[Pos + 3])))
      return failAt(Start, "expected the XML declaration at the very start "
                           "of the file");
    size_t End = Text.find("?>", Pos);
    if (End == llvm::StringRef::npos)
      return failAt(Start, "expected '?>' to close this processing "
                           "instruction");
    Pos = End + 2;
    return true;
  }

  bool doctype() {
    size_t Start = Pos;
    Pos += 9;
    for (char Quote = 0; Pos < Text.size(); ++Pos) {
      char C = Text[Pos];
      if (Quote) {
        if (C == Quote)
          Quote = 0;
      } else if (C == '"' || C == '\'') {
        Quote = C;
      } else if (C == '[') {
        return fail("expected a DOCTYPE without an internal subset ('[...]'); "
                    "collc reads no DTD");
      } else if (C == '>') {
        ++Pos;
        return true;
      }
    }
    return failAt(Start, "expected '>' to close the DOCTYPE");
  }

  bool name(std::string &Out, const char *What) {
    if (Pos >= Text.size() || !isNameStart(Text[Pos]))
      return fail(std::string("expected ") + What);
    size_t Start = Pos;
    while (Pos < Text.size() && isNameChar(Text[Pos]))
      ++Pos;
    Out = Text.slice(Start, Pos).str();
    return true;
  }

  /// An entity or character reference at Pos ('&'), appended to \p Out.
  bool reference(std::string &Out) {
    size_t Start = Pos;
    size_t End = Text.find(';', Pos);
    if (End == llvm::StringRef::npos || End - Pos > 12)
      return fail("expected an entity (&lt; &gt; &amp; &quot; &apos; or "
                  "&#N;) after '&'");
    llvm::StringRef Ref = Text.slice(Pos + 1, End);
    Pos = End + 1;
    static const std::pair<llvm::StringRef, char> Named[] = {
        {"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};
    for (auto [N, C] : Named)
      if (Ref == N) {
        Out += C;
        return true;
      }
    unsigned Code = 0;
    bool Ok = Ref.consume_front("#") &&
              (Ref.consume_front("x") ? !Ref.getAsInteger(16, Code)
                                      : !Ref.getAsInteger(10, Code)) &&
              Code != 0 && Code <= 0x10FFFF &&
              !(Code >= 0xD800 && Code <= 0xDFFF);
    if (!Ok)
      return failAt(Start, "expected an entity (&lt; &gt; &amp; &quot; &apos; "
                           "or &#N;), got '" +
                               Text.slice(Start, Pos).str() + "'");
    char Buf[4];
    char *P = Buf;
    llvm::ConvertCodePointToUTF8(Code, P);
    Out.append(Buf, P);
    return true;
  }

  bool attributeValue(XmlAttribute &A) {
    if (Pos >= Text.size() || (Text[Pos] != '"' && Text[Pos] != '\''))
      return fail("expected a quoted value for attribute '" + A.Name + "'");
    char Quote = Text[Pos++];
    size_t Open = Pos - 1;
    A.ValueOffset = Pos;
    while (Pos < Text.size() && Text[Pos] != Quote) {
      if (Text[Pos] == '<')
        return fail("expected no '<' in an attribute value (write &lt;)");
      if (Text[Pos] == '&') {
        if (!reference(A.Value))
          return false;
        continue;
      }
      A.Value += Text[Pos++];
    }
    if (Pos >= Text.size())
      return failAt(Open,
                    "expected a closing quote for attribute '" + A.Name + "'");
    ++Pos;
    return true;
  }

  /// An element at Pos ('<' then a name); \p Depth counts it.
  bool element(XmlElement &E, unsigned Depth) {
    if (Depth > MaxNestingDepth)
      return fail("expected at most " + std::to_string(MaxNestingDepth) +
                  " levels of nested elements");
    if (++Elements > MaxXmlElements)
      return fail("expected at most " + std::to_string(MaxXmlElements) +
                  " elements");
    E.Offset = Pos++;
    if (!name(E.Name, "an element name after '<'"))
      return false;
    for (;;) {
      size_t Before = Pos;
      skipBlanks();
      if (peek("/>")) {
        Pos += 2;
        return true;
      }
      if (peek(">")) {
        ++Pos;
        break;
      }
      if (Pos >= Text.size())
        return failAt(E.Offset, "expected '>' to close <" + E.Name + ">");
      if (Before == Pos)
        return fail("expected a blank, '>' or '/>' in <" + E.Name + ">");
      XmlAttribute A;
      A.Offset = Pos;
      if (!name(A.Name, "an attribute name, '>' or '/>'"))
        return false;
      if (E.attribute(A.Name))
        return failAt(A.Offset, "duplicate attribute '" + A.Name + "' in <" +
                                    E.Name + ">");
      skipBlanks();
      if (!peek("="))
        return fail("expected '=' after attribute '" + A.Name + "'");
      ++Pos;
      skipBlanks();
      if (!attributeValue(A))
        return false;
      E.Attributes.push_back(std::move(A));
    }
    // Content: elements, comments, processing instructions, blanks.
    for (;;) {
      if (!misc())
        return false;
      if (Pos >= Text.size())
        return failAt(E.Offset,
                      "expected </" + E.Name + "> to close <" + E.Name + ">");
      if (peek("</")) {
        size_t Close = Pos;
        Pos += 2;
        std::string End;
        if (!name(End, "an element name after '</'"))
          return false;
        if (End != E.Name)
          return failAt(Close, "</" + End + "> does not close <" + E.Name +
                                   "> (" + lineOf(Text, E.Offset) + ")");
        skipBlanks();
        if (!peek(">"))
          return fail("expected '>' to end </" + End + ">");
        ++Pos;
        return true;
      }
      if (peek("<![CDATA["))
        return fail("expected elements in <" + E.Name +
                    ">, got a CDATA section");
      if (peek("<!"))
        return fail("expected elements in <" + E.Name + ">, got '<!'");
      if (Text[Pos] != '<') {
        size_t End = Pos;
        while (End < Text.size() && Text[End] != '<' && End - Pos < 20)
          ++End;
        return fail("expected elements in <" + E.Name + ">, got text '" +
                    llvm::StringRef(Text.slice(Pos, End)).rtrim().str() + "'");
      }
      E.Children.emplace_back();
      if (!element(E.Children.back(), Depth + 1))
        return false;
    }
  }

  llvm::StringRef Text;
  XmlError &Err;
  size_t Pos = 0;
  size_t Elements = 0;
};

} // namespace

bool parseXmlTree(llvm::StringRef Text, XmlElement &Root, XmlError &Err) {
  size_t Bad = 0;
  if (!isValidUtf8(Text, &Bad)) {
    Err.Offset = Bad;
    Err.Message = "expected UTF-8 text; this byte is not";
    return false;
  }
  return Parser(Text, Err).document(Root);
}

bool looksLikeXml(llvm::StringRef Text) {
  if (Text.startswith("\xEF\xBB\xBF"))
    Text = Text.drop_front(3);
  Text = Text.ltrim(" \t\r\n");
  return Text.startswith("<?xml") || Text.startswith("<platform") ||
         Text.startswith("<!DOCTYPE");
}

} // namespace collc
