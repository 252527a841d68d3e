//===- osu_reduce: osu_allreduce.cpp built for the reduce -----------------===//
//
//   mpirun -np P osu_reduce [options] BYTES...   (as osu_allreduce)
//
//===----------------------------------------------------------------------===//

#define OSU_SECOND 1
#include "osu_allreduce.cpp"
