/* pdgemm_bench.c: ScaLAPACK PDGEMM on the benchmark's matrix product.
 *
 *   mpiexec.mpich -n P*Q ./pdgemm_bench M N K NB P Q REPS
 *
 * C (MxN) = A (MxK) * B (KxN) in float64 on a PxQ BLACS grid in row-major
 * order (process (p, q) is MPI rank p*Q + q, like a distmpmd mesh [x, y]),
 * block-cyclic with NBxNB blocks.  With M = N = K = n on a 2x2 grid and
 * NB = n/2 every process holds one block of each matrix: exactly the block
 * a distmpmd job with dist [x, y] gives it.
 *
 * A and B hold the job format's "random" values (spec 1.2, seeds 1 and 2,
 * global row-major linear index), so the problem is the distmpmd jobs'.
 *
 * One cold call, then REPS timed calls (REPS may be 0: then the cold call
 * is all there is, and the "best" and "median" are its time): each is
 * barrier; t0 = MPI_Wtime(); pdgemm_; t = MPI_Wtime() - t0; and the time of
 * a call is the maximum of t over the ranks.  The cold call is reported
 * separately.  A few entries of C are checked against a direct dot
 * product of the generated values.
 *
 * Prints one JSON line on rank 0's stdout.  Exit status 0 if the check
 * passed, 1 otherwise.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_rand.h"

/* BLACS C interface and Fortran-callable ScaLAPACK/PBLAS routines. */
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int icontxt, int what, int *val);
void Cblacs_gridinit(int *icontxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int *nprow, int *npcol, int *myrow,
	int *mycol);
void Cblacs_gridexit(int icontxt);
void Cblacs_exit(int notdone);
int numroc_(const int *n, const int *nb, const int *iproc,
	const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb,
	const int *nb, const int *irsrc, const int *icsrc, const int *ictxt,
	const int *lld, int *info);
void pdgemm_(const char *transa, const char *transb, const int *m,
	const int *n, const int *k, const double *alpha, const double *a,
	const int *ia, const int *ja, const int *desca, const double *b,
	const int *ib, const int *jb, const int *descb, const double *beta,
	double *c, const int *ic, const int *jc, const int *descc);

/* Fill the local part (column-major, leading dimension lld) of a global
 * rows x cols row-major "random" matrix. */
static void fill(double *a, int lrows, int lcols, int lld, long cols,
	uint64_t seed, int nb, int myrow, int nprow, int mycol, int npcol)
{
	for (int j = 0; j < lcols; ++j) {
		long gj = dmd_bench_l2g(j, nb, mycol, npcol);
		for (int i = 0; i < lrows; ++i) {
			long gi = dmd_bench_l2g(i, nb, myrow, nprow);
			a[(long) j * lld + i] = dmd_bench_rnd(seed, (uint64_t) (gi * cols + gj));
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int me, np, ctxt, nprow, npcol, myrow, mycol, info, izero = 0, ione = 1;
	MPI_Init(&argc, &argv);
	if (argc != 8) {
		fprintf(stderr, "usage: pdgemm_bench M N K NB P Q REPS\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
	int NB = atoi(argv[4]), P = atoi(argv[5]), Q = atoi(argv[6]);
	int reps = atoi(argv[7]);

	Cblacs_pinfo(&me, &np);
	if (np != P * Q || M <= 0 || N <= 0 || K <= 0 || NB <= 0 || reps < 0) {
		if (me == 0)
			fprintf(stderr, "pdgemm_bench: need %d ranks (have %d) and "
				"positive sizes\n", P * Q, np);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	Cblacs_get(-1, 0, &ctxt);
	Cblacs_gridinit(&ctxt, "Row", P, Q);
	Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);

	/* Local sizes: A is MxK, B is KxN, C is MxN. */
	int am = numroc_(&M, &NB, &myrow, &izero, &nprow);
	int ak = numroc_(&K, &NB, &mycol, &izero, &npcol);
	int bk = numroc_(&K, &NB, &myrow, &izero, &nprow);
	int bn = numroc_(&N, &NB, &mycol, &izero, &npcol);
	int cm = am;
	int cn = numroc_(&N, &NB, &mycol, &izero, &npcol);
	int lda = am > 1 ? am : 1, ldb = bk > 1 ? bk : 1, ldc = cm > 1 ? cm : 1;
	int desca[9], descb[9], descc[9];
	descinit_(desca, &M, &K, &NB, &NB, &izero, &izero, &ctxt, &lda, &info);
	if (info == 0)
		descinit_(descb, &K, &N, &NB, &NB, &izero, &izero, &ctxt, &ldb,
			&info);
	if (info == 0)
		descinit_(descc, &M, &N, &NB, &NB, &izero, &izero, &ctxt, &ldc,
			&info);
	if (info != 0) {
		fprintf(stderr, "pdgemm_bench: descinit_ failed (info %d)\n", info);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	double *a = malloc(sizeof(double) * (size_t) lda * (ak > 0 ? ak : 1));
	double *b = malloc(sizeof(double) * (size_t) ldb * (bn > 0 ? bn : 1));
	double *c = calloc((size_t) ldc * (cn > 0 ? cn : 1), sizeof(double));
	if (!a || !b || !c) {
		fprintf(stderr, "pdgemm_bench: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	fill(a, am, ak, lda, K, 1, NB, myrow, nprow, mycol, npcol);
	fill(b, bk, bn, ldb, N, 2, NB, myrow, nprow, mycol, npcol);

	double alpha = 1.0, beta = 0.0, cold = 0.0;
	double *times = malloc(sizeof(double) * (reps > 0 ? reps : 1));
	for (int r = -1; r < reps; ++r) {
		double t, tmax;
		MPI_Barrier(MPI_COMM_WORLD);
		t = MPI_Wtime();
		pdgemm_("N", "N", &M, &N, &K, &alpha, a, &ione, &ione, desca,
			b, &ione, &ione, descb, &beta, c, &ione, &ione, descc);
		t = MPI_Wtime() - t;
		MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		if (r < 0)
			cold = tmax;
		else
			times[r] = tmax;
	}
	double best = cold, median = cold;	/* REPS = 0: the cold call */
	if (reps > 0) {
		qsort(times, reps, sizeof(double), cmp_double);
		best = times[0];
		median = reps % 2 ? times[reps / 2] :
			(times[reps / 2 - 1] + times[reps / 2]) / 2;
	}

	/* Check sampled entries (the four corners and some pseudo-random ones)
	 * on their owners against a direct dot product of the generated
	 * values; the error bound is K * eps * sum |a_ik * b_kj|. */
	enum { NSAMPLE = 24 };
	double worst = 0.0;	/* max of |error| / bound over the samples */
	double maxerr = 0.0;
	int checked = 0;
	for (int s = 0; s < NSAMPLE; ++s) {
		long gi, gj;
		if (s < 4) {
			gi = (s & 1) ? M - 1 : 0;
			gj = (s & 2) ? N - 1 : 0;
		} else {
			gi = (long) ((dmd_bench_rnd(77, s) + 1) / 2 * M);
			gj = (long) ((dmd_bench_rnd(78, s) + 1) / 2 * N);
		}
		if ((gi / NB) % nprow != myrow || (gj / NB) % npcol != mycol)
			continue;
		long li = gi / NB / nprow * NB + gi % NB;
		long lj = gj / NB / npcol * NB + gj % NB;
		double dot = 0.0, absdot = 0.0;
		for (long k = 0; k < K; ++k) {
			double x = dmd_bench_rnd(1, (uint64_t) (gi * K + k));
			double y = dmd_bench_rnd(2, (uint64_t) (k * N + gj));
			dot += x * y;
			absdot += fabs(x * y);
		}
		double err = fabs(c[lj * ldc + li] - dot);
		double bound = K * 2.220446049250313e-16 * absdot;
		if (err > maxerr)
			maxerr = err;
		if (bound > 0 && err / bound > worst)
			worst = err / bound;
		if (bound == 0 && err > 0)
			worst = INFINITY;
		++checked;
	}
	double gworst, gmaxerr;
	int gchecked;
	MPI_Reduce(&worst, &gworst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&maxerr, &gmaxerr, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&checked, &gchecked, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

	int ok = 1;
	if (me == 0) {
		double flop = 2.0 * M * N * K;
		ok = gworst <= 1.0 && gchecked == NSAMPLE;
		printf("{\"M\": %d, \"N\": %d, \"K\": %d, \"nb\": %d, \"blacs_grid\": "
			"[%d, %d], \"reps\": %d, \"time_s\": %.6f, "
			"\"time_median_s\": %.6f, \"time_cold_s\": %.6f, "
			"\"gflops\": %.4f, \"gflops_median\": %.4f, "
			"\"gflops_cold\": %.4f, \"checked\": %d, "
			"\"max_abs_err\": %.3e, \"err_over_bound\": %.3e, "
			"\"ok\": %s}\n", M, N, K, NB, P, Q, reps, best, median,
			cold, flop / best / 1e9, flop / median / 1e9,
			flop / cold / 1e9, gchecked, gmaxerr, gworst,
			ok ? "true" : "false");
		fflush(stdout);
	}
	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	free(times);
	free(a);
	free(b);
	free(c);
	Cblacs_gridexit(ctxt);
	Cblacs_exit(1);		/* leave MPI to us */
	MPI_Finalize();
	return ok ? 0 : 1;
}
