/* An MPI program that knows nothing of collc: broadcasts, an allreduce, an
 * all-to-all and an exclusive scan checked against values every rank can
 * compute. Run it with LD_PRELOAD of a
 * library from `collc --emit mpi-preload` and it uses collc's schedules for
 * the sizes that library was built for, the MPI library's otherwise. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, size, bad = 0, total = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int counts[] = {1000, 7};
  for (int c = 0; c < 2; ++c)
    for (int root = 0; root < size; ++root) {
      unsigned char *buf = malloc(counts[c]);
      for (int i = 0; i < counts[c]; ++i)
        buf[i] = rank == root ? (unsigned char)(i * 7 + root) : 0;
      if (MPI_Bcast(buf, counts[c], MPI_BYTE, root, MPI_COMM_WORLD) !=
          MPI_SUCCESS)
        bad = 1;
      for (int i = 0; i < counts[c]; ++i)
        if (buf[i] != (unsigned char)(i * 7 + root))
          bad = 1;
      free(buf);
    }
  int in[400], out[400];
  for (int i = 0; i < 400; ++i)
    in[i] = rank * 1000 + i;
  if (MPI_Allreduce(in, out, 400, MPI_INT, MPI_SUM, MPI_COMM_WORLD) !=
      MPI_SUCCESS)
    bad = 1;
  for (int i = 0; i < 400; ++i)
    if (out[i] != 1000 * size * (size - 1) / 2 + size * i)
      bad = 1;
  /* All-to-all: block b of rank r's send buffer holds (r, b, i). */
  unsigned char *sb = malloc(100 * size), *rb = malloc(100 * size);
  for (int b = 0; b < size; ++b)
    for (int i = 0; i < 100; ++i)
      sb[100 * b + i] = (unsigned char)(rank * 31 + b * 7 + i);
  if (MPI_Alltoall(sb, 100, MPI_BYTE, rb, 100, MPI_BYTE, MPI_COMM_WORLD) !=
      MPI_SUCCESS)
    bad = 1;
  for (int b = 0; b < size; ++b)
    for (int i = 0; i < 100; ++i)
      if (rb[100 * b + i] != (unsigned char)(b * 31 + rank * 7 + i))
        bad = 1;
  free(sb);
  free(rb);
  /* Exclusive scan: rank r > 0 gets the sum over ranks 0..r-1. */
  int ein[50], eout[50];
  for (int i = 0; i < 50; ++i)
    ein[i] = rank * 100 + i;
  if (MPI_Exscan(ein, eout, 50, MPI_INT, MPI_SUM, MPI_COMM_WORLD) !=
      MPI_SUCCESS)
    bad = 1;
  for (int i = 0; rank > 0 && i < 50; ++i)
    if (eout[i] != 100 * rank * (rank - 1) / 2 + rank * i)
      bad = 1;
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("unmodified: %s\n", total ? "WRONG RESULTS" : "results correct");
  MPI_Finalize();
  return total ? 1 : 0;
}
