/// \file
/// Sections of a spec document described by tables of fields. A Section is a
/// mapping (the machine spec, its `model`, a `t_hold`, a request); each Field
/// says its key, whether it must be given, and how to read and store its
/// value. A section may have kinds (`kind: linear`): then each field says the
/// kinds it applies to, and the reader checks that the keys given fit the
/// kind. SectionReader checks the keys and reports every mistake the same way:
///
///   unknown key 'x' in 'model'; expected one of: kind, t_hold, ...
///   duplicate key 'x' in 'model'        missing key 'base' in 't_hold'
///   missing key 't_s' in a linear model
///   't_s' does not apply to a parameterized model; expected: t_hold, t_end
///   unknown model kind 'x'; expected one of: parameterized, linear, ...
///
/// A new field is a new row; a new nested section is a function that reads
/// it with its own table, called from a row of the enclosing one (see
/// readers/MachineSpec.cpp).
#ifndef COLLC_READERS_SCHEMA_H
#define COLLC_READERS_SCHEMA_H

#include "readers/Document.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace collc {

/// Reads the value \p N of field \p Key and stores it where the table says;
/// reports a problem through \p D and returns false. \p N may come from the
/// file or from the command line (DocNode::fromCommandLine).
using FieldReader =
    std::function<bool(Document &D, const DocNode &N, llvm::StringRef Key)>;

/// The kinds of a section a field applies to: bit k for kind number k.
using KindSet = uint32_t;
/// Every kind (and the fields of a section without kinds).
constexpr KindSet AllKinds = ~KindSet(0);
/// The set of kinds \p K..., given as enumerators numbered like the
/// section's kind names.
template <typename... KindT> constexpr KindSet kinds(KindT... K) {
  return ((KindSet(1) << static_cast<unsigned>(K)) | ...);
}

enum class Presence { Optional, Required };

/// One key of a section.
struct Field {
  llvm::StringRef Name;
  Presence Need;
  FieldReader Read;
  KindSet Kinds = AllKinds;
};

/// A mapping of a document: its fields and, when it has a `kind` key, the
/// names of its kinds.
struct Section {
  /// What the section is, in messages about its kinds: "model" for "missing
  /// key 't_s' in a linear model".
  llvm::StringRef Noun;
  /// The values of its `kind` key, kind number = index; empty when it has no
  /// `kind`.
  std::vector<llvm::StringRef> KindNames;
  /// Keys in the order messages list them; fields that apply to every kind
  /// are read first, then those of the section's kind, each in this order.
  std::vector<Field> Fields;
  /// "expected a mapping {base, per_byte} for 't_hold'": small sections
  /// name their keys when the value is not a mapping.
  bool ShowKeysWhenNotAMap = false;
};

/// Reads one mapping of a document against a Section. read() does it all;
/// a reader that needs its own order (the request, whose fields depend on
/// each other and on the command line) calls checkKeys(), then readField()
/// for each key when it wants it.
class SectionReader {
public:
  SectionReader(Document &D, const Section &S) : D(D), S(S) {}

  /// Checks that \p Map, written under \p Where ("'model'", "machine spec"),
  /// is a mapping whose keys are plain, known and given once, with a value.
  bool checkKeys(const DocNode &Map, llvm::StringRef Where);
  /// checkKeys(), then the kind, the keys that must be given, the keys that
  /// apply to the kind, and every field, read in the table's order.
  bool read(const DocNode &Map, llvm::StringRef Where);

  /// The kind read (its index in Section::KindNames).
  unsigned kind() const { return Kind; }
  /// The value of \p Key, or null.
  const DocNode *get(llvm::StringRef Key) const;
  /// Gives \p Key the value \p V instead of the file's (null: no value).
  void set(llvm::StringRef Key, const DocNode *V);
  /// Reads field \p Key with its reader if it has a value; true if it has
  /// none.
  bool readField(llvm::StringRef Key);

private:
  bool readField(const Field &F);
  /// The missing keys, then the values, of the fields of every kind (or,
  /// with \p OfKind, of the kind read); \p In names the section.
  bool readFields(const DocNode &Map, bool OfKind, llvm::StringRef In);
  bool appliesToKind(const Field &F) const;
  /// \p Key is `kind` or a field of every kind.
  bool ofEveryKind(llvm::StringRef Key) const;
  /// A field of the kind read, not of every kind.
  bool ofKind(const Field &F) const;

  Document &D;
  const Section &S;
  std::vector<std::pair<llvm::StringRef, const DocNode *>> Values;
  unsigned Kind = 0;
};

/// "'model'": how a key names the section under it in messages.
std::string quoted(llvm::StringRef Key);

/// Readers of the common field types.
FieldReader numberField(double &Out, double Min = 0, double Max = 1e300);
FieldReader stringField(std::string &Out);
/// A string from \p Names; otherwise "unknown <What> 'x'; expected one of:
/// <Names>".
FieldReader nameField(std::string &Out, llvm::ArrayRef<llvm::StringRef> Names,
                      llvm::StringRef What);
/// `true` or `false`.
FieldReader boolField(bool &Out);
/// One of the names of \p Choices, stored as its value; otherwise as
/// nameField.
template <typename T>
FieldReader choiceField(T &Out,
                        std::vector<std::pair<llvm::StringRef, T>> Choices,
                        llvm::StringRef What) {
  return [&Out, Choices, What](Document &D, const DocNode &N,
                               llvm::StringRef Key) {
    std::vector<llvm::StringRef> Names;
    for (const auto &C : Choices)
      Names.push_back(C.first);
    std::string V;
    if (!nameField(V, Names, What)(D, N, Key))
      return false;
    for (const auto &[Name, Value] : Choices)
      if (Name == V)
        Out = Value;
    return true;
  };
}
/// An integer in [Min, Max], stored as \p IntT.
template <typename IntT>
FieldReader integerField(IntT &Out, int64_t Min, int64_t Max) {
  return [&Out, Min, Max](Document &D, const DocNode &N, llvm::StringRef Key) {
    int64_t V;
    if (!D.integer(N, Key, V, Min, Max))
      return false;
    Out = static_cast<IntT>(V);
    return true;
  };
}

/// A nested section: \p Read reads the field's value into \p Out with a
/// table of its own.
template <typename T>
FieldReader sectionField(bool (*Read)(Document &, const DocNode &,
                                      llvm::StringRef, T &),
                         T &Out) {
  return [Read, &Out](Document &D, const DocNode &N, llvm::StringRef Key) {
    return Read(D, N, Key, Out);
  };
}

} // namespace collc

#endif
