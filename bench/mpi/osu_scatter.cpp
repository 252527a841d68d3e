//===- osu_scatter: osu_gather.cpp built for the scatter ------------------===//
//
//   mpirun -np P osu_scatter [options] BYTES...   (as osu_gather)
//
//===----------------------------------------------------------------------===//

#define OSU_SECOND 1
#include "osu_gather.cpp"
