/// \file
/// Tables indexed by an enumeration: one entry per value, in the order the
/// enumeration declares its values, from First to Last (a name, a number of
/// another library's).
#ifndef COLLC_IR_ENUMNAMES_H
#define COLLC_IR_ENUMNAMES_H

#include <cstddef>
#include <type_traits>

namespace collc {

/// The entry of \p V in \p Table, the entries of First..Last in order;
/// \p Outside for a value beyond them. The table must hold every value.
template <auto First, auto Last, typename T, std::size_t N>
constexpr T enumEntry(decltype(First) V, const T (&Table)[N], T Outside) {
  using E = decltype(First);
  using U = std::underlying_type_t<E>;
  static_assert(std::is_enum_v<E> && std::is_same_v<E, decltype(Last)>);
  static_assert(N == static_cast<std::size_t>(static_cast<U>(Last) -
                                              static_cast<U>(First)) +
                         1,
                "one entry for each value from First to Last");
  const auto I = static_cast<long long>(V) - static_cast<long long>(First);
  return I >= 0 && I < static_cast<long long>(N) ? Table[I] : Outside;
}

/// The name of \p V in \p Names, the names of First..Last in order ("?" for
/// a value beyond them).
template <auto First, auto Last, std::size_t N>
constexpr const char *enumName(decltype(First) V,
                               const char *const (&Names)[N]) {
  return enumEntry<First, Last>(V, Names, static_cast<const char *>("?"));
}

} // namespace collc

#endif
