// libFuzzer harness for the schedule reader (`--schedule`, ir/ScheduleJson)
// and the data-flow verifier that collc runs on what it reads.
#include "ir/ScheduleJson.h"
#include "passes/Verify.h"

#include <cstddef>
#include <cstdint>

using namespace collc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  auto S = readScheduleJson(Text, "fuzz.json");
  if (!S) {
    llvm::consumeError(S.takeError());
    return 0;
  }
  // As `collc --schedule` without --machine: data flow, not timing.
  Machine M;
  M.Name = "unknown";
  M.Ports = UINT32_MAX;
  VerifyOptions VO;
  VO.Timing = false;
  (void)verifySchedule(*S, M, VO);
  return 0;
}
