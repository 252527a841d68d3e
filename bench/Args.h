/// \file
/// A benchmark's command line: flags (`--name`) and integer options
/// (`--name N`).
#ifndef COLLC_BENCH_ARGS_H
#define COLLC_BENCH_ARGS_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <variant>

namespace collc::bench {

/// One option: a flag sets its bool; an integer option reads the number
/// that follows it.
struct Option {
  const char *Name;
  std::variant<bool *, int *, int64_t *> Into;
};

/// Reads \p argv into \p Options; false, after "usage: <Usage>" on stderr,
/// where an argument is none of them or an option lacks its number.
inline bool readOptions(int argc, char **argv,
                        std::initializer_list<Option> Options,
                        const char *Usage) {
  for (int I = 1; I < argc; ++I) {
    const Option *Found = nullptr;
    for (const Option &O : Options)
      if (!std::strcmp(argv[I], O.Name))
        Found = &O;
    const bool Flag = Found && std::holds_alternative<bool *>(Found->Into);
    if (!Found || (!Flag && I + 1 >= argc)) {
      std::fprintf(stderr, "usage: %s\n", Usage);
      return false;
    }
    if (Flag)
      *std::get<bool *>(Found->Into) = true;
    else if (auto *Int = std::get_if<int *>(&Found->Into))
      **Int = std::atoi(argv[++I]);
    else
      *std::get<int64_t *>(Found->Into) = std::atoll(argv[++I]);
  }
  return true;
}

} // namespace collc::bench

#endif
