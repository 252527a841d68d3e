/* Every collective the drop-in library serves (blocking, and two
 * non-blocking ones with MPI_Wait and MPI_Waitall; MPI_Sendrecv; and of the
 * calls that are no collective of collc's, MPI_Allgatherv with equal counts,
 * which it would serve, and MPI_Reduce_scatter_block), once each on
 * MPI_COMM_WORLD and on a split communicator, results checked: the program
 * of tests/mpi/dropin_wrong_build.sh, run with the build of the drop-in for
 * the other MPI library preloaded. Prints "results correct" per rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int Bad = 0;
static void expect(int Ok, const char *What, int Rank) {
  if (!Ok) {
    printf("rank %d: %s wrong\n", Rank, What);
    Bad = 1;
  }
}

static void run(MPI_Comm Comm) {
  int R, P;
  MPI_Comm_rank(Comm, &R);
  MPI_Comm_size(Comm, &P);
  enum { N = 1000 };
  int *A = malloc(sizeof(int) * N * (size_t)P);
  int *B = malloc(sizeof(int) * N * (size_t)P);
  int V, S;
  for (int I = 0; I < N; ++I)
    A[I] = R == P - 1 ? I : -1;
  MPI_Bcast(A, N, MPI_INT, P - 1, Comm);
  for (int I = 0; I < N; ++I)
    expect(A[I] == I, "MPI_Bcast", R);
  V = R + 1;
  MPI_Allreduce(&V, &S, 1, MPI_INT, MPI_SUM, Comm);
  expect(S == P * (P + 1) / 2, "MPI_Allreduce", R);
  S = -1;
  MPI_Reduce(&V, &S, 1, MPI_INT, MPI_SUM, 0, Comm);
  expect(R != 0 || S == P * (P + 1) / 2, "MPI_Reduce", R);
  MPI_Scan(&V, &S, 1, MPI_INT, MPI_SUM, Comm);
  expect(S == (R + 1) * (R + 2) / 2, "MPI_Scan", R);
  MPI_Exscan(&V, &S, 1, MPI_INT, MPI_SUM, Comm);
  expect(R == 0 || S == R * (R + 1) / 2, "MPI_Exscan", R);
  MPI_Allgather(&V, 1, MPI_INT, B, 1, MPI_INT, Comm);
  for (int I = 0; I < P; ++I)
    expect(B[I] == I + 1, "MPI_Allgather", R);
  MPI_Gather(&V, 1, MPI_INT, B, 1, MPI_INT, 0, Comm);
  for (int I = 0; R == 0 && I < P; ++I)
    expect(B[I] == I + 1, "MPI_Gather", R);
  for (int I = 0; I < P; ++I)
    A[I] = 100 * I;
  MPI_Scatter(A, 1, MPI_INT, &S, 1, MPI_INT, 0, Comm);
  expect(S == 100 * R, "MPI_Scatter", R);
  for (int I = 0; I < P; ++I)
    A[I] = 100 * R + I;
  MPI_Alltoall(A, 1, MPI_INT, B, 1, MPI_INT, Comm);
  for (int I = 0; I < P; ++I)
    expect(B[I] == 100 * I + R, "MPI_Alltoall", R);
  MPI_Barrier(Comm);
  int *Counts = malloc(sizeof(int) * (size_t)P),
      *Displs = malloc(sizeof(int) * (size_t)P);
  for (int I = 0; I < P; ++I) {
    Counts[I] = 1;
    Displs[I] = P - 1 - I;
  }
  MPI_Allgatherv(&V, 1, MPI_INT, B, Counts, Displs, MPI_INT, Comm);
  for (int I = 0; I < P; ++I)
    expect(B[P - 1 - I] == I + 1, "MPI_Allgatherv", R);
  for (int I = 0; I < P; ++I)
    A[I] = I * (R + 1);
  MPI_Reduce_scatter_block(A, &S, 1, MPI_INT, MPI_SUM, Comm);
  expect(S == R * P * (P + 1) / 2, "MPI_Reduce_scatter_block", R);
  free(Counts);
  free(Displs);
  /* Non-blocking calls and their completion, and point-to-point messages:
   * interposed too. */
  MPI_Request Q[2];
  MPI_Status St[1];
  for (int I = 0; I < N; ++I)
    A[I] = R == 0 ? 2 * I : -1;
  MPI_Ibcast(A, N, MPI_INT, 0, Comm, &Q[0]);
  MPI_Iallreduce(&V, &S, 1, MPI_INT, MPI_SUM, Comm, &Q[1]);
  MPI_Wait(&Q[0], MPI_STATUS_IGNORE);
  MPI_Waitall(1, &Q[1], St);
  for (int I = 0; I < N; ++I)
    expect(A[I] == 2 * I, "MPI_Ibcast", R);
  expect(S == P * (P + 1) / 2, "MPI_Iallreduce", R);
  int Ring = -1;
  MPI_Sendrecv(&R, 1, MPI_INT, (R + 1) % P, 3, &Ring, 1, MPI_INT,
               (R + P - 1) % P, 3, Comm, MPI_STATUS_IGNORE);
  expect(Ring == (R + P - 1) % P, "MPI_Sendrecv", R);
  free(A);
  free(B);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int R;
  MPI_Comm_rank(MPI_COMM_WORLD, &R);
  run(MPI_COMM_WORLD);
  MPI_Comm Half;
  MPI_Comm_split(MPI_COMM_WORLD, R % 2, -R, &Half);
  run(Half);
  MPI_Comm_free(&Half);
  if (!Bad)
    printf("rank %d: results correct\n", R);
  MPI_Finalize();
  return Bad;
}
