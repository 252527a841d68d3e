/* The drop-in's test programs' draws (nonblocking.c, vector.c): with a seed,
 * each round's counts and roots are drawn, the same on every rank; without
 * one (Seed 0), the programs cycle through fixed values. */
#ifndef COLLC_TESTS_MPI_DRAW_H
#define COLLC_TESTS_MPI_DRAW_H

static unsigned Seed;

/* Draw number \p K of round \p Round, below \p Bound. */
static long draw(int Round, int K, long Bound) {
  unsigned long X = Seed * 2654435761ul + (unsigned long)Round * 40503ul +
                    (unsigned long)K * 9973ul;
  X ^= X >> 13;
  X *= 0x5bd1e995ul;
  X ^= X >> 15;
  return (long)(X % (unsigned long)Bound);
}

#endif
