/// \file
/// The drop-in library's settings, read from the environment once per
/// process (dropin/Interpose.cpp):
///
///   COLLC_MACHINE      the machine: a spec or a SimGrid platform file
///   COLLC_COLLECTIVES  `all` (the default) or a list: `bcast,allreduce`
///   COLLC_ALGORITHM    an algorithm per collective: `bcast=binomial,...`
///   COLLC_CACHE        a directory of built schedules (dropin/CacheFile.h)
///   COLLC_VERBOSE      `1` rank 0 of each communicator reports every call,
///                      `all` every rank does; `0`, `off` or unset: quiet
///
/// A setting that is wrong as a whole (an unknown collective, a malformed
/// pair) is an error: the library serves nothing and says why. A setting
/// that makes it serve less than asked (an algorithm collc does not have)
/// is a note: the rest is served, and the note is said once on world rank 0,
/// with or without COLLC_VERBOSE.
#ifndef COLLC_DROPIN_CONFIG_H
#define COLLC_DROPIN_CONFIG_H

#include "runtime/collc/tables.h"

#include "llvm/Support/Error.h"

#include <array>
#include <string>
#include <vector>

namespace collc {
namespace dropin {

/// The collectives the library takes over (the MPI entry points; multicast
/// is served through MPI_Bcast by no one here).
bool isServedCollective(int Coll);

/// What the environment asks for.
struct Config {
  /// COLLC_MACHINE: a machine spec or a SimGrid platform file.
  std::string MachinePath;
  /// COLLC_COLLECTIVES: which collectives to take over (index rt::Coll).
  std::array<bool, rt::NumColls> TakeOver{};
  /// COLLC_ALGORITHM: an algorithm per collective instead of `auto`.
  std::array<std::string, rt::NumColls> Algorithm;
  /// COLLC_CACHE: the directory of cache files (empty: none).
  std::string CacheDir;
  /// COLLC_VERBOSE: 0 silent, 1 rank 0 of each communicator reports each
  /// call, 2 (COLLC_VERBOSE=all) every rank does.
  int Verbose = 0;
  /// What the settings leave to the MPI library although asked for, one
  /// sentence each (see the file comment).
  std::vector<std::string> Notes;
};

/// Reads the configuration from the environment's values (null: unset).
/// COLLC_COLLECTIVES is `all` (the default) or a comma-separated list of
/// collective names (`bcast,allreduce`); COLLC_ALGORITHM a comma-separated
/// list of `collective=algorithm`. An error names the variable and says
/// what was expected. An algorithm collc does not have for that collective
/// is a note: that collective stays with the MPI library.
llvm::Expected<Config> parseConfig(const char *Machine, const char *Collectives,
                                   const char *Algorithm, const char *Verbose,
                                   const char *Cache = nullptr);

} // namespace dropin
} // namespace collc

#endif
