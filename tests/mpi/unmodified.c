/* An MPI program that knows nothing of collc: broadcasts and allreduces
 * checked against values every rank can compute. Run it with LD_PRELOAD of a
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
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("unmodified: %s\n", total ? "WRONG RESULTS" : "results correct");
  MPI_Finalize();
  return total ? 1 : 0;
}
