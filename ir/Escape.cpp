#include "ir/Escape.h"

#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace collc {

namespace {

/// Decodes the code point at \p I of \p S and moves \p I past it; -1 (and
/// one byte on) for a byte that does not start valid UTF-8.
int32_t nextCodePoint(llvm::StringRef S, size_t &I) {
  auto *Begin = reinterpret_cast<const llvm::UTF8 *>(S.data());
  const llvm::UTF8 *P = Begin + I;
  llvm::UTF32 C = 0;
  if (llvm::convertUTF8Sequence(&P, Begin + S.size(), &C,
                                llvm::strictConversion) != llvm::conversionOK) {
    ++I;
    return -1;
  }
  I = static_cast<size_t>(P - Begin);
  return static_cast<int32_t>(C);
}

/// Code points beyond ASCII that do not show as themselves: C1 controls,
/// the Unicode line and paragraph separators, and the invisible and
/// bidirectional format characters.
bool isHiddenCodePoint(int32_t C) {
  return (C >= 0x80 && C <= 0xa0) || C == 0xad || C == 0x61c || C == 0x180e ||
         (C >= 0x200b && C <= 0x200f) || (C >= 0x2028 && C <= 0x202e) ||
         (C >= 0x2060 && C <= 0x206f) || C == 0xfeff ||
         (C >= 0xfff9 && C <= 0xfffb);
}

} // namespace

std::string printableText(llvm::StringRef S) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  for (size_t I = 0; I < S.size();) {
    unsigned char B = static_cast<unsigned char>(S[I]);
    if (B < 0x80) {
      ++I;
      if (B == '\\')
        OS << "\\\\";
      else if (B == '\n')
        OS << "\\n";
      else if (B == '\t')
        OS << "\\t";
      else if (B == '\r')
        OS << "\\r";
      else if (B < 0x20 || B == 0x7f)
        OS << llvm::format("\\x%02x", B);
      else
        OS << static_cast<char>(B);
      continue;
    }
    size_t Start = I;
    int32_t C = nextCodePoint(S, I);
    if (C < 0)
      OS << llvm::format("\\x%02x", B);
    else if (isHiddenCodePoint(C))
      OS << llvm::format("\\u{%04x}", C);
    else
      OS << S.slice(Start, I);
  }
  return OS.str();
}

std::string cComment(llvm::StringRef S) {
  std::string P = printableText(S), Out;
  for (size_t I = 0; I < P.size(); ++I) {
    if (P[I] == '?' && I > 0 && P[I - 1] == '?')
      Out += "\\x3f";
    else if (P[I] == '\\' && I + 2 == P.size() && P[I + 1] == '\\')
      return Out + "\\x5c"; // an escaped backslash that ends the text
    else
      Out += P[I];
  }
  return Out;
}

std::string cStringLiteral(llvm::StringRef S) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << '"';
  for (char Ch : S) {
    unsigned char B = static_cast<unsigned char>(Ch);
    if (Ch == '"' || Ch == '\\' || Ch == '?')
      OS << '\\' << Ch;
    else if (B >= 0x20 && B < 0x7f)
      OS << Ch;
    else // three octal digits: the escape cannot swallow what follows
      OS << llvm::format("\\%03o", B);
  }
  OS << '"';
  return OS.str();
}

std::string dotString(llvm::StringRef S) {
  std::string Out;
  for (char Ch : printableText(S)) {
    if (Ch == '"' || Ch == '\\')
      Out += '\\';
    Out += Ch;
  }
  return Out;
}

std::string jsonString(llvm::StringRef S) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << '"';
  for (size_t I = 0; I < S.size();) {
    unsigned char B = static_cast<unsigned char>(S[I]);
    if (B < 0x80) {
      ++I;
      if (B == '"' || B == '\\')
        OS << '\\' << static_cast<char>(B);
      else if (B < 0x20)
        OS << llvm::format("\\u%04x", B);
      else
        OS << static_cast<char>(B);
      continue;
    }
    size_t Start = I;
    if (nextCodePoint(S, I) < 0)
      OS << "\\ufffd";
    else
      OS << S.slice(Start, I);
  }
  OS << '"';
  return OS.str();
}

bool isValidUtf8(llvm::StringRef S, size_t *ErrOffset) {
  // ConvertUTF's check rather than llvm/Support/JSON.h, which clang 14 cannot
  // compile in C++20 against libstdc++ 12.
  const auto *Begin = reinterpret_cast<const llvm::UTF8 *>(S.data());
  const llvm::UTF8 *P = Begin;
  if (llvm::isLegalUTF8String(&P, Begin + S.size()))
    return true;
  if (ErrOffset)
    *ErrOffset = static_cast<size_t>(P - Begin);
  return false;
}

} // namespace collc
