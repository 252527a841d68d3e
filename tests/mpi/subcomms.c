/* An MPI program that knows nothing of collc: on sub-communicators of every
 * size from 1 to the world's (world ranks 0..k-1), with every root, it calls
 * every collective collc serves (broadcast, reduce, allreduce, scan,
 * exscan, gather, scatter, allgather, all-to-all, barrier) at several
 * counts from 0 up, and checks every result against values each rank can
 * compute. World rank 0, rank 0 of every sub-communicator, prints how many
 * collective calls it made, so that a run under COLLC_VERBOSE can be
 * checked call by call. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad = 0;
static long calls = 0;

static void check(int ok, const char *what, int k, int root, int count) {
  if (!ok && !bad)
    fprintf(stderr, "subcomms: wrong %s on %d ranks, root %d, count %d\n",
            what, k, root, count);
  if (!ok)
    bad = 1;
}

static unsigned char byte(int a, int b, int i) {
  return (unsigned char)(a * 31 + b * 7 + i);
}

/* The rooted collectives of one communicator, root and count. */
static void rooted(MPI_Comm c, int k, int r, int root, int n) {
  unsigned char *b = malloc((size_t)n + 1);
  for (int i = 0; i < n; ++i)
    b[i] = r == root ? byte(root, 0, i) : 0;
  MPI_Bcast(b, n, MPI_BYTE, root, c);
  ++calls;
  for (int i = 0; i < n; ++i)
    check(b[i] == byte(root, 0, i), "bcast", k, root, n);
  free(b);

  int *in = malloc(sizeof(int) * ((size_t)n + 1));
  int *out = malloc(sizeof(int) * ((size_t)n + 1));
  for (int i = 0; i < n; ++i)
    in[i] = r * 1000 + i;
  MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, root, c);
  ++calls;
  for (int i = 0; r == root && i < n; ++i)
    check(out[i] == 1000 * k * (k - 1) / 2 + k * i, "reduce", k, root, n);
  free(in);
  free(out);

  /* Gather and scatter: n bytes per rank. */
  unsigned char *blk = malloc((size_t)n + 1);
  unsigned char *all = malloc((size_t)n * k + 1);
  for (int i = 0; i < n; ++i)
    blk[i] = byte(r, root, i);
  MPI_Gather(blk, n, MPI_BYTE, all, n, MPI_BYTE, root, c);
  ++calls;
  for (int q = 0; r == root && q < k; ++q)
    for (int i = 0; i < n; ++i)
      check(all[(size_t)q * n + i] == byte(q, root, i), "gather", k, root, n);
  for (int q = 0; r == root && q < k; ++q)
    for (int i = 0; i < n; ++i)
      all[(size_t)q * n + i] = byte(root, q, i);
  memset(blk, 0, (size_t)n + 1);
  MPI_Scatter(all, n, MPI_BYTE, blk, n, MPI_BYTE, root, c);
  ++calls;
  for (int i = 0; i < n; ++i)
    check(blk[i] == byte(root, r, i), "scatter", k, root, n);
  free(blk);
  free(all);
}

/* The collectives without a root. */
static void rootless(MPI_Comm c, int k, int r, int n) {
  int *in = malloc(sizeof(int) * ((size_t)n + 1));
  int *out = malloc(sizeof(int) * ((size_t)n + 1));
  for (int i = 0; i < n; ++i)
    in[i] = r * 1000 + i;
  MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, c);
  ++calls;
  for (int i = 0; i < n; ++i)
    check(out[i] == 1000 * k * (k - 1) / 2 + k * i, "allreduce", k, 0, n);
  MPI_Scan(in, out, n, MPI_INT, MPI_SUM, c);
  ++calls;
  for (int i = 0; i < n; ++i)
    check(out[i] == 1000 * r * (r + 1) / 2 + (r + 1) * i, "scan", k, 0, n);
  MPI_Exscan(in, out, n, MPI_INT, MPI_SUM, c);
  ++calls;
  for (int i = 0; r > 0 && i < n; ++i)
    check(out[i] == 1000 * r * (r - 1) / 2 + r * i, "exscan", k, 0, n);
  free(in);
  free(out);

  unsigned char *sb = malloc((size_t)n * k + 1);
  unsigned char *rb = malloc((size_t)n * k + 1);
  for (int i = 0; i < n; ++i)
    sb[i] = byte(r, 1, i);
  MPI_Allgather(sb, n, MPI_BYTE, rb, n, MPI_BYTE, c);
  ++calls;
  for (int q = 0; q < k; ++q)
    for (int i = 0; i < n; ++i)
      check(rb[(size_t)q * n + i] == byte(q, 1, i), "allgather", k, 0, n);
  for (int q = 0; q < k; ++q)
    for (int i = 0; i < n; ++i)
      sb[(size_t)q * n + i] = byte(r, q, i);
  MPI_Alltoall(sb, n, MPI_BYTE, rb, n, MPI_BYTE, c);
  ++calls;
  for (int q = 0; q < k; ++q)
    for (int i = 0; i < n; ++i)
      check(rb[(size_t)q * n + i] == byte(q, r, i), "alltoall", k, 0, n);
  free(sb);
  free(rb);
  MPI_Barrier(c);
  ++calls;
}

int main(int argc, char **argv) {
  int rank, size, total = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int counts[] = {0, 1, 7, 1000, 50000};
  const int ncounts = (int)(sizeof counts / sizeof counts[0]);
  for (int k = 1; k <= size; ++k) {
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &c);
    if (c == MPI_COMM_NULL)
      continue;
    for (int n = 0; n < ncounts; ++n) {
      for (int root = 0; root < k; ++root)
        rooted(c, k, rank, root, counts[n]);
      rootless(c, k, rank, counts[n]);
    }
    MPI_Comm_free(&c);
  }
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  ++calls;
  if (rank == 0)
    printf("subcomms: %s, %ld collective calls on rank 0\n",
           total ? "WRONG RESULTS" : "results correct", calls);
  MPI_Finalize();
  return total ? 1 : 0;
}
