/* The drop-in's test programs' checked calls (large_count.c,
 * large_count_vector.c): each names itself in Program and its rank in Rank
 * before it calls them. */
#ifndef COLLC_TESTS_MPI_CHECKED_H
#define COLLC_TESTS_MPI_CHECKED_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static const char *Program;
static int Rank;

/* N zeroed bytes, or the program ends. */
static void *must(size_t N) {
  void *P = calloc(N ? N : 1, 1);
  if (!P) {
    fprintf(stderr, "%s: out of memory\n", Program);
    exit(1);
  }
  return P;
}

/* Ends the program when an MPI call \p What returned an error. */
static void check(int Err, const char *What) {
  if (Err != MPI_SUCCESS) {
    fprintf(stderr, "%s: %s returned %d on rank %d\n", Program, What, Err,
            Rank);
    exit(1);
  }
}

/* \p Ints values of \p Seed and the rank, below 1000. */
static void fill(int *In, size_t Ints, int Seed) {
  for (size_t I = 0; I < Ints; ++I)
    In[I] = (int)((Seed * 7919 + (unsigned)Rank * 104729 + I * 31) % 1000);
}

#endif
