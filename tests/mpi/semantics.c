/* MPI semantics that programs written without collc in mind rely on, as a
 * drop-in collective library must keep them: predefined operators on
 * predefined pair, complex and boolean types (MPI_MINLOC on MPI_2INT,
 * MPI_BXOR, MPI_PROD on MPI_C_DOUBLE_COMPLEX, MPI_LAND on MPI_C_BOOL); a
 * user-defined associative, non-commutative operator (affine maps composed)
 * on a derived datatype in reduce and scan; a broadcast of a struct datatype
 * with holes (the holes must stay untouched); MPI_IN_PLACE in gather,
 * scatter, allgather, alltoall and reduce; NULL buffers where the standard
 * says they are not significant; zero counts; a broadcast whose root sends a
 * derived type and the others receive its basic elements; a 1.2 MB
 * allreduce. Run on MPI_COMM_WORLD, a split with reversed keys, a dup, an
 * odd split and a communicator made from a group in scrambled order.
 *
 * It knows nothing of collc: tests/mpi/semantics.sh runs it under the MPI
 * library alone (so that its expectations are the standard's) and under the
 * drop-in library. Prints "semantics: N calls on rank 0, F failures" and
 * exits 1 when F > 0. */
#include <complex.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int fails = 0, calls = 0;
#define CHECK(c, ...)                                                          \
  do {                                                                         \
    if (!(c)) {                                                                \
      fails++;                                                                 \
      if (fails < 20) {                                                        \
        printf("rank %d FAIL line %d: ", wr, __LINE__);                        \
        printf(__VA_ARGS__);                                                   \
        printf("\n");                                                          \
      }                                                                        \
    }                                                                          \
  } while (0)
static int wr;
static void myop(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  int *a = in, *b = inout;
  /* affine maps x -> m x + c composed, a first: associative, not commutative */
  for (int i = 0; i < *len; i++) {
    unsigned m = (unsigned)b[3 * i] * (unsigned)a[3 * i],
             cc = (unsigned)b[3 * i] * (unsigned)a[3 * i + 1] +
                  (unsigned)b[3 * i + 1];
    b[3 * i] = (int)m;
    b[3 * i + 1] = (int)cc;
    b[3 * i + 2] = a[3 * i + 2] + b[3 * i + 2];
  }
}
static void run(MPI_Comm c, const char *name) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  /* 1. MINLOC on 2INT */
  struct {
    int v, i;
  } in2 = {(r * 37) % 11, r}, out2;
  MPI_Allreduce(&in2, &out2, 1, MPI_2INT, MPI_MINLOC, c);
  calls++;
  {
    int bv = 1 << 30, bi = -1;
    for (int q = 0; q < p; q++) {
      int v = (q * 37) % 11;
      if (v < bv) {
        bv = v;
        bi = q;
      }
    }
    CHECK(out2.v == bv && out2.i == bi, "%s minloc %d %d vs %d %d", name,
          out2.v, out2.i, bv, bi);
  }
  /* 2. BXOR on unsigned char, in place */
  unsigned char x[1000];
  for (int i = 0; i < 1000; i++)
    x[i] = (unsigned char)(i * 3 + r * 101);
  MPI_Allreduce(MPI_IN_PLACE, x, 1000, MPI_UNSIGNED_CHAR, MPI_BXOR, c);
  calls++;
  for (int i = 0; i < 1000; i++) {
    unsigned char e = 0;
    for (int q = 0; q < p; q++)
      e ^= (unsigned char)(i * 3 + q * 101);
    CHECK(x[i] == e, "%s bxor %d", name, i);
    if (x[i] != e)
      break;
  }
  /* 3. PROD on double complex */
  double _Complex z[5], zo[5];
  for (int i = 0; i < 5; i++)
    z[i] = (1.0 + 0.01 * r) + I * (0.02 * i);
  MPI_Allreduce(z, zo, 5, MPI_C_DOUBLE_COMPLEX, MPI_PROD, c);
  calls++;
  for (int i = 0; i < 5; i++) {
    double _Complex e = 1;
    for (int q = 0; q < p; q++)
      e *= (1.0 + 0.01 * q) + I * (0.02 * i);
    CHECK(cabs(zo[i] - e) < 1e-9 * cabs(e), "%s cprod", name);
  }
  /* 4. LAND on C_BOOL */
  bool bl = (r != 1), blo;
  MPI_Allreduce(&bl, &blo, 1, MPI_C_BOOL, MPI_LAND, c);
  calls++;
  CHECK(blo == (p < 2), "%s land %d", name, blo);
  /* 5. user op non-commutative on contiguous(3 ints), reduce to root p-1 */
  MPI_Datatype t3;
  MPI_Type_contiguous(3, MPI_INT, &t3);
  MPI_Type_commit(&t3);
  MPI_Op op;
  MPI_Op_create(myop, 0, &op);
  int v[6], vo[6];
  for (int i = 0; i < 6; i++)
    v[i] = (i % 3 == 0) ? r + 2 + i : r * 5 + i;
  MPI_Reduce(v, vo, 2, t3, op, p - 1, c);
  calls++;
  {
    unsigned E[6];
    for (int k = 0; k < 2; k++) {
      unsigned m = 1, cc = 0, sum = 0;
      for (int q = 0; q < p; q++) {
        unsigned am = q + 2 + 3 * k, ac = q * 5 + 3 * k + 1;
        cc = am * cc + ac;
        m = am * m;
        sum += q * 5 + 3 * k + 2;
        if (q == r) {
          E[3 * k] = m;
          E[3 * k + 1] = cc;
          E[3 * k + 2] = sum;
        }
      }
      if (r == p - 1) {
        CHECK((unsigned)vo[3 * k] == m && (unsigned)vo[3 * k + 1] == cc &&
                  (unsigned)vo[3 * k + 2] == sum,
              "%s noncomm reduce %d: %u %u vs %u %u", name, k, vo[3 * k],
              vo[3 * k + 1], m, cc);
      }
    }
    MPI_Scan(v, vo, 2, t3, op, c);
    calls++;
    for (int i = 0; i < 6; i++)
      CHECK((unsigned)vo[i] == E[i], "%s noncomm scan %d: %u vs %u", name, i,
            vo[i], E[i]);
  }
  MPI_Op_free(&op);
  /* 6. bcast with hindexed struct type with gaps */
  MPI_Datatype st;
  int bl2[2] = {2, 1};
  MPI_Aint dp[2] = {0, 5 * sizeof(double)};
  MPI_Datatype ty[2] = {MPI_DOUBLE, MPI_DOUBLE};
  MPI_Type_create_struct(2, bl2, dp, ty, &st);
  MPI_Type_commit(&st);
  double sb[4 * 6];
  for (int i = 0; i < 24; i++)
    sb[i] = (r == 1 % p) ? i + 0.5 : -1;
  MPI_Bcast(sb, 4, st, 1 % p, c);
  calls++;
  for (int k = 0; k < 4; k++) {
    MPI_Aint lb, ext;
    MPI_Type_get_extent(st, &lb, &ext);
    int base = (int)(k * ext / sizeof(double));
    for (int j = 0; j < 6; j++) {
      int idx = base + j;
      if (idx >= 24)
        break;
      double e = (j == 0 || j == 1 || j == 5) ? idx + 0.5
                                              : (r == 1 % p ? idx + 0.5 : -1);
      CHECK(sb[idx] == e, "%s struct bcast %d: %g vs %g", name, idx, sb[idx],
            e);
    }
  }
  MPI_Type_free(&st);
  /* 7. gather with NULL recvbuf off root, scatter NULL sendbuf off root, root 0
   */
  int g = r * 3 + 1;
  int *gb = r == 0 ? malloc(sizeof(int) * p) : NULL;
  MPI_Gather(&g, 1, MPI_INT, gb, 1, MPI_INT, 0, c);
  calls++;
  if (r == 0)
    for (int q = 0; q < p; q++)
      CHECK(gb[q] == q * 3 + 1, "%s gather", name);
  int sc = -1;
  MPI_Scatter(gb, 1, MPI_INT, &sc, 1, MPI_INT, 0, c);
  calls++;
  CHECK(sc == r * 3 + 1, "%s scatter %d", name, sc);
  /* 8. in-place gather at root, in-place scatter at root */
  int *ib = malloc(sizeof(int) * p * 2);
  for (int q = 0; q < 2 * p; q++)
    ib[q] = (r == 0) ? -5 : 0;
  if (r == 0) {
    ib[0] = 1;
    ib[1] = 2;
    MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, ib, 2, MPI_INT, 0, c);
  } else {
    int mine[2] = {r * 10, r * 10 + 1};
    MPI_Gather(mine, 2, MPI_INT, NULL, 2, MPI_INT, 0, c);
  }
  calls++;
  if (r == 0) {
    CHECK(ib[0] == 1 && ib[1] == 2, "%s inplace gather root part", name);
    for (int q = 1; q < p; q++)
      CHECK(ib[2 * q] == q * 10 && ib[2 * q + 1] == q * 10 + 1,
            "%s inplace gather %d", name, q);
  }
  if (r == 0) {
    for (int q = 0; q < 2 * p; q++)
      ib[q] = 100 + q;
    MPI_Scatter(ib, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, 0, c);
    CHECK(ib[0] == 100, "%s inplace scatter root", name);
  } else {
    int got[2];
    MPI_Scatter(NULL, 2, MPI_INT, got, 2, MPI_INT, 0, c);
    CHECK(got[0] == 100 + 2 * r && got[1] == 101 + 2 * r,
          "%s inplace scatter %d", name, got[0]);
  }
  calls++;
  /* 9. allgather in place, alltoall in place */
  for (int q = 0; q < p; q++)
    ib[q] = (q == r) ? r * r : -9;
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ib, 1, MPI_INT, c);
  calls++;
  for (int q = 0; q < p; q++)
    CHECK(ib[q] == q * q, "%s inplace allgather %d", name, q);
  for (int q = 0; q < p; q++)
    ib[q] = r * 100 + q;
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ib, 1, MPI_INT, c);
  calls++;
  for (int q = 0; q < p; q++)
    CHECK(ib[q] == q * 100 + r, "%s inplace alltoall %d: %d", name, q, ib[q]);
  /* 10. exscan sum, zero-count allreduce, reduce in place at root */
  long long ex = 1000, exo = -77;
  MPI_Exscan(&ex, &exo, 1, MPI_LONG_LONG, MPI_SUM, c);
  calls++;
  if (r > 0)
    CHECK(exo == 1000LL * r, "%s exscan %lld", name, exo);
  MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, c);
  calls++;
  double d[3] = {r, 2.0 * r, 1};
  if (r == p / 2)
    MPI_Reduce(MPI_IN_PLACE, d, 3, MPI_DOUBLE, MPI_MAX, p / 2, c);
  else
    MPI_Reduce(d, NULL, 3, MPI_DOUBLE, MPI_MAX, p / 2, c);
  calls++;
  if (r == p / 2)
    CHECK(d[0] == p - 1 && d[1] == 2.0 * (p - 1) && d[2] == 1,
          "%s inplace reduce", name);
  /* 11. alltoall with count 0 and bcast of 0 */
  MPI_Alltoall(ib, 0, MPI_INT, ib, 0, MPI_INT, c);
  calls++;
  MPI_Bcast(NULL, 0, MPI_INT, 0, c);
  calls++;
  /* 12. mixed types: root sends contiguous(3 ints) x 2, others receive 6
   * MPI_INT */
  int m6[6];
  for (int i = 0; i < 6; i++)
    m6[i] = r == 0 ? 40 + i : 0;
  if (r == 0)
    MPI_Bcast(m6, 2, t3, 0, c);
  else
    MPI_Bcast(m6, 6, MPI_INT, 0, c);
  calls++;
  for (int i = 0; i < 6; i++)
    CHECK(m6[i] == 40 + i, "%s mixed bcast", name);
  /* 13. large allreduce of floats, sum */
  int n = 300001;
  float *f = malloc(sizeof(float) * n), *fo = malloc(sizeof(float) * n);
  for (int i = 0; i < n; i++)
    f[i] = (float)((i % 7) + r);
  MPI_Allreduce(f, fo, n, MPI_FLOAT, MPI_SUM, c);
  calls++;
  for (int i = 0; i < n; i += 997) {
    float e = 0;
    for (int q = 0; q < p; q++)
      e += (float)((i % 7) + q);
    CHECK(fo[i] == e, "%s big allreduce %d: %g vs %g", name, i, fo[i], e);
  }
  free(f);
  free(fo);
  free(ib);
  free(gb);
  MPI_Type_free(&t3);
  MPI_Barrier(c);
  calls++;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wr);
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  run(MPI_COMM_WORLD, "world");
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, p - wr, &rev);
  run(rev, "reversed");
  MPI_Comm_free(&rev);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  run(dup, "dup");
  MPI_Comm_free(&dup);
  MPI_Comm odd;
  MPI_Comm_split(MPI_COMM_WORLD, wr % 2, (wr * 7) % 5, &odd);
  run(odd, "split");
  MPI_Comm_free(&odd);
  MPI_Group wg, sg;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  int ranks[3] = {p - 1, 0, p / 2};
  MPI_Group_incl(wg, p >= 3 ? 3 : 1, ranks, &sg);
  MPI_Comm cg;
  MPI_Comm_create(MPI_COMM_WORLD, sg, &cg);
  if (cg != MPI_COMM_NULL) {
    run(cg, "group");
    MPI_Comm_free(&cg);
  }
  MPI_Group_free(&sg);
  MPI_Group_free(&wg);
  int tf;
  MPI_Allreduce(&fails, &tf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (wr == 0)
    printf("semantics: %d calls on rank 0, %d failures\n", calls, tf);
  MPI_Finalize();
  return tf != 0;
}
