/* exchange.c: how Open MPI over TCP moves one message each way between two
 * ranks at once, against the same volume moved otherwise (the evidence for
 * docs/testbed.md, "Why collc loses where it loses"). Ranks pair up as
 * r and r ^ MASK (MASK from the environment, 1 by default; an even rank
 * count). Seven calls of each, the median and extremes of the slowest rank:
 *  - exchange: MPI_Sendrecv of BYTES with the partner, both ways at once;
 *  - shift:    MPI_Sendrecv of BYTES to rank r+1, from rank r-1 (each TCP
 *              connection carries one direction);
 *  - one way:  the even rank of each pair sends BYTES, the odd one receives;
 *  - pieces:   the exchange cut in messages of PIECE bytes (65000, below
 *              Open MPI's TCP eager limit, by default), all posted at once.
 *
 *   scripts/testbed run -- bench/testbed/exchange BYTES [PIECE]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  const char *M = getenv("MASK");
  int Mask = M ? atoi(M) : 1;
  long Bytes = argc > 1 ? atol(argv[1]) : 0;
  long Piece = argc > 2 ? atol(argv[2]) : 65000;
  if (Bytes <= 0 || Bytes > (1L << 30) || Piece <= 0 || Size % 2 ||
      Mask <= 0 || Mask >= Size || (Size & (Size - 1) && Mask != 1)) {
    if (Rank == 0)
      fprintf(stderr, "exchange: expected BYTES (1 to 2^30) [PIECE], an even "
                      "rank count and a MASK below it\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  char *Send = calloc(Bytes, 1), *Recv = calloc(Bytes, 1);
  int Partner = Rank ^ Mask;
  long Pieces = (Bytes + Piece - 1) / Piece;
  MPI_Request *Reqs = malloc(2 * Pieces * sizeof *Reqs);
  const char *Names[] = {"exchange", "shift", "one way", "pieces"};
  for (int Mode = 0; Mode < 4; ++Mode) {
    double T[7];
    for (int I = 0; I < 7; ++I) {
      MPI_Barrier(MPI_COMM_WORLD);
      double Start = MPI_Wtime();
      if (Mode == 0)
        MPI_Sendrecv(Send, Bytes, MPI_CHAR, Partner, 0, Recv, Bytes, MPI_CHAR,
                     Partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else if (Mode == 1)
        MPI_Sendrecv(Send, Bytes, MPI_CHAR, (Rank + 1) % Size, 0, Recv, Bytes,
                     MPI_CHAR, (Rank + Size - 1) % Size, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
      else if (Mode == 2 && Rank < Partner)
        MPI_Send(Send, Bytes, MPI_CHAR, Partner, 0, MPI_COMM_WORLD);
      else if (Mode == 2)
        MPI_Recv(Recv, Bytes, MPI_CHAR, Partner, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      else {
        for (long J = 0; J < Pieces; ++J) {
          long Len = J == Pieces - 1 ? Bytes - J * Piece : Piece;
          MPI_Irecv(Recv + J * Piece, Len, MPI_CHAR, Partner, 1,
                    MPI_COMM_WORLD, &Reqs[2 * J]);
          MPI_Isend(Send + J * Piece, Len, MPI_CHAR, Partner, 1,
                    MPI_COMM_WORLD, &Reqs[2 * J + 1]);
        }
        MPI_Waitall(2 * Pieces, Reqs, MPI_STATUSES_IGNORE);
      }
      double Mine = MPI_Wtime() - Start, Slowest;
      MPI_Allreduce(&Mine, &Slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      T[I] = Slowest * 1e3;
    }
    qsort(T, 7, sizeof *T, cmp);
    if (Rank == 0)
      printf("%-8s %ld bytes: median %.1f ms (min %.1f, max %.1f)\n",
             Names[Mode], Bytes, T[3], T[0], T[6]);
  }
  free(Reqs);
  free(Send);
  free(Recv);
  MPI_Finalize();
  return 0;
}
