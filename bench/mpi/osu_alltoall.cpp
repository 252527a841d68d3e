//===- osu_alltoall: osu_allgather.cpp built for the all-to-all -----------===//
//
//   mpirun -np P osu_alltoall [options] BYTES...   (as osu_allgather)
//
//===----------------------------------------------------------------------===//

#define OSU_SECOND 1
#include "osu_allgather.cpp"
