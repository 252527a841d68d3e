/// \file
/// The command-line options that make up a request (--request, --collective,
/// --ranks, --bytes, ..., --bytes-range, --max-requests): one group, declared
/// once, that a tool adds to its command line in its option category. Their
/// values stay as written until the request reader parses them with the
/// file's rules (readers/RequestSpec.h, readers/RequestSet.h).
#ifndef COLLC_READERS_REQUESTOPTIONS_H
#define COLLC_READERS_REQUESTOPTIONS_H

#include "readers/RequestSet.h"

#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>

namespace collc {

/// A text option in one line (-name=<value>).
using TextOption = llvm::cl::opt<std::string>;
/// Declares a text option of \p Cat.
TextOption textOption(llvm::cl::OptionCategory &Cat, const char *Name,
                      const char *Value, const char *Help,
                      const char *Init = "");
/// The value of \p O when the command line gives it.
std::optional<std::string> given(const TextOption &O);

/// The request options. Construct one (statically) before the command line
/// is parsed; read it after.
struct RequestOptions {
  explicit RequestOptions(llvm::cl::OptionCategory &Cat);

  TextOption RequestPath, Collective, Ranks, Root, Bytes, Algorithm,
      Destinations, Op, Datatype, Commutative, Segments, BytesRange;
  llvm::cl::opt<uint64_t> MaxRequests;

  /// The options that override the request file's fields (the set's lists
  /// among them: readers/RequestSet.h), --bytes apart (RequestSetOptions).
  RequestOverrides overrides() const;
};

} // namespace collc

#endif
