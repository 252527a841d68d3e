/// \file
/// The tools' top level: running out of memory is reported as a clear error
/// with an exit status, not an abort.
#ifndef COLLC_IR_OUTOFMEMORY_H
#define COLLC_IR_OUTOFMEMORY_H

namespace collc {

/// Runs \p Run(argc, argv). When memory runs out (std::bad_alloc, or LLVM's
/// allocation failure), prints `<Tool>: error: out of memory ...` and returns
/// \p Status instead. Tools build their output in memory and write it last,
/// so nothing partial is left behind.
int runReportingOutOfMemory(const char *Tool, int (*Run)(int, char **),
                            int argc, char **argv, int Status = 1);

} // namespace collc

#endif
