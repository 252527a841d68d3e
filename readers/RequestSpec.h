/// \file
/// The request schema (docs/spec.md): which collective, among which nodes,
/// how many bytes, which algorithm; read from YAML or JSON and from the
/// command line, and checked against the machine.
#ifndef COLLC_READERS_REQUESTSPEC_H
#define COLLC_READERS_REQUESTSPEC_H

#include "ir/Machine.h"
#include "ir/Request.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collc {

struct DocNode;
class Document;

/// A request's fields as values: what a program asks for, or what the
/// command line and a request file hold once read. Every field is optional;
/// makeRequest() says what is missing, as a request file's reader would.
struct RequestFields {
  std::optional<Collective> Coll;
  /// The group: K ranks placed as the machine says (rank = node with one
  /// process per node), or the participants' nodes in rank order; a
  /// multicast's is its Root and Destinations.
  std::optional<int64_t> Ranks;
  std::optional<std::vector<int64_t>> Participants, Destinations;
  /// The root's node; or RootRank, its rank among the participants (when
  /// several ranks share the root's node).
  std::optional<int64_t> Root;
  std::optional<int32_t> RootRank;
  std::optional<uint64_t> Bytes;
  std::optional<std::string> Algorithm, Op, Datatype;
  std::optional<bool> Commutative;
  std::optional<int64_t> Segments;
  /// Where Bytes was written (a command-line value), for diagnostics; null
  /// when a program gave it. Set without Bytes: a value that is not a byte
  /// count, which makeRequest reports as the file's reader would, in the
  /// order it reads the fields.
  const DocNode *BytesAt = nullptr;
};

/// Fields of a request given on the command line, as written; they override
/// the file's and are read by the same field readers, so a value is checked
/// the same way wherever it was written. (--bytes is a number once read:
/// RequestFields::Bytes.)
struct RequestOverrides {
  std::optional<std::string> Collective, Algorithm, Op, Datatype;
  std::optional<std::string> Root; ///< Node number, coords or permutation.
  std::optional<std::string> Destinations; ///< Comma/semicolon separated list.
  /// Numbers as text, so that "-1" or a number beyond 64 bits gets the same
  /// clear error as any other value out of range.
  std::optional<std::string> Ranks, Segments;
  std::optional<std::string> Commutative; ///< "true" or "false", as written.
};

/// A request file read once (or none), and the command-line values read
/// beside it: every request of a run is made from one of these.
class RequestDocument {
public:
  /// No file: the fields come from the command line and the program.
  RequestDocument();
  ~RequestDocument();
  RequestDocument(const RequestDocument &) = delete;
  RequestDocument &operator=(const RequestDocument &) = delete;

  /// Reads the request file \p Path ("" for none).
  static llvm::Expected<std::unique_ptr<RequestDocument>>
  read(llvm::StringRef Path);
  /// Reads \p Buffer (its identifier names the file), which must outlive
  /// the document.
  static llvm::Expected<std::unique_ptr<RequestDocument>>
  parse(llvm::MemoryBufferRef Buffer);

  /// Reads `--bytes` \p Text (one size) into \p F: Bytes and where it was
  /// written; a text that is not a size leaves Bytes empty, for
  /// makeRequest() to report.
  void commandLineBytes(llvm::StringRef Text, RequestFields &F);

private:
  friend llvm::Expected<Request> makeRequest(const RequestFields &,
                                             const Machine &, RequestDocument *,
                                             const RequestOverrides &);
  std::unique_ptr<llvm::MemoryBuffer> Owned;
  std::unique_ptr<Document> D;
  const DocNode *Root = nullptr; ///< The file's mapping; null without one.
};

/// The one request constructor: the request \p F asks for on \p M, with
/// every check of the request schema (docs/spec.md): the fields each
/// collective needs, the group against the machine's nodes and processes,
/// the root among the group, the reduction's operator, datatype and element
/// size, sizes whose times stay finite, an algorithm that can run there.
/// Fields \p F leaves out come from \p Text (the command line's values as
/// written) and then from \p From's file; errors are located where the
/// field was written (file:line:col, or the option), or name the field.
llvm::Expected<Request> makeRequest(const RequestFields &F, const Machine &M,
                                    RequestDocument *From = nullptr,
                                    const RequestOverrides &Text = {});

/// Reads a request file (\p Buffer may be null when the whole request comes
/// from \p Overrides and \p F) and makes its request on \p M.
llvm::Expected<Request> parseRequest(const llvm::MemoryBufferRef *Buffer,
                                     const RequestOverrides &Overrides,
                                     const Machine &M,
                                     const RequestFields &F = {});
/// Reads a request file; \p Path empty means "no file".
llvm::Expected<Request> loadRequest(llvm::StringRef Path,
                                    const RequestOverrides &Overrides,
                                    const Machine &M,
                                    const RequestFields &F = {});

/// Longest time one transfer may take under a model: a schedule has far
/// fewer than 10^20 transfers, so its makespan stays below 10^300.
constexpr double MaxTransferTime = 1e280;

/// Checks that the largest transfer a request for \p Bytes can make (every
/// block of every rank; of every pair for an all-to-all) carries at most
/// MaxTransferBytes (ir/Request.h) and takes at most MaxTransferTime under \p
/// M; the error says what it would carry or take.
llvm::Error checkFiniteTimes(const Machine &M, const Request &R,
                             uint64_t Bytes);

} // namespace collc

#endif
