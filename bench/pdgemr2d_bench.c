/* pdgemr2d_bench.c: ScaLAPACK's PDGEMR2D on the benchmark's
 * redistribution.
 *
 *   mpiexec.mpich -n P*Q ./pdgemr2d_bench N NB P Q REPS
 *
 * B = A for an N x N float64 matrix on a PxQ BLACS grid in row-major
 * order (process (p, q) is MPI rank p*Q + q, like a distmpmd mesh
 * [x, y]): A in one block per process (MB = ceil(N / P), NB = ceil(N /
 * Q): the block a distmpmd job with dist [x, y] gives it), B block-cyclic
 * with NB x NB blocks (cyclic {0: NB, 1: NB}).  A holds the job format's
 * "random" values (spec 1.2, seed 1, global row-major linear index), so
 * the problem is the distmpmd job's of bench/redist.sh.
 *
 * One cold call, then REPS timed calls: each is barrier; t0 =
 * MPI_Wtime(); Cpdgemr2d; t = MPI_Wtime() - t0; the time of a call is the
 * maximum of t over the ranks.  Every element of B is checked on its
 * owner against the generated value.
 *
 * Prints one JSON line on rank 0's stdout.  Exit status 0 if the check
 * passed, 1 otherwise.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_rand.h"

void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int icontxt, int what, int *val);
void Cblacs_gridinit(int *icontxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int *nprow, int *npcol, int *myrow,
	int *mycol);
int numroc_(const int *n, const int *nb, const int *iproc,
	const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb,
	const int *nb, const int *irsrc, const int *icsrc, const int *ictxt,
	const int *lld, int *info);
void Cpdgemr2d(int m, int n, double *a, int ia, int ja, int *desca,
	double *b, int ib, int jb, int *descb, int gcontext);

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int me, np, ctxt, nprow, npcol, myrow, mycol, info, izero = 0;

	MPI_Init(&argc, &argv);
	if (argc != 6) {
		fprintf(stderr, "usage: pdgemr2d_bench N NB P Q REPS\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int N = atoi(argv[1]), NB = atoi(argv[2]);
	int P = atoi(argv[3]), Q = atoi(argv[4]), reps = atoi(argv[5]);

	Cblacs_pinfo(&me, &np);
	if (np != P * Q || N <= 0 || NB <= 0 || reps < 0) {
		if (me == 0)
			fprintf(stderr, "pdgemr2d_bench: need %d ranks (have "
				"%d) and positive sizes\n", P * Q, np);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	Cblacs_get(-1, 0, &ctxt);
	Cblacs_gridinit(&ctxt, "Row", P, Q);
	Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);

	int amb = (N + P - 1) / P, anb = (N + Q - 1) / Q;
	int am = numroc_(&N, &amb, &myrow, &izero, &nprow);
	int an = numroc_(&N, &anb, &mycol, &izero, &npcol);
	int bm = numroc_(&N, &NB, &myrow, &izero, &nprow);
	int bn = numroc_(&N, &NB, &mycol, &izero, &npcol);
	int lda = am > 1 ? am : 1, ldb = bm > 1 ? bm : 1;
	int desca[9], descb[9];
	descinit_(desca, &N, &N, &amb, &anb, &izero, &izero, &ctxt, &lda,
		&info);
	if (info == 0)
		descinit_(descb, &N, &N, &NB, &NB, &izero, &izero, &ctxt, &ldb,
			&info);
	if (info != 0) {
		fprintf(stderr, "pdgemr2d_bench: descinit_ failed (info %d)\n",
			info);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	double *a = malloc(sizeof(double) * (size_t) lda * (an > 0 ? an : 1));
	double *b = calloc((size_t) ldb * (bn > 0 ? bn : 1), sizeof(double));
	double *times = malloc(sizeof(double) * (reps > 0 ? reps : 1));
	if (!a || !b || !times) {
		fprintf(stderr, "pdgemr2d_bench: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (int j = 0; j < an; ++j)
		for (int i = 0; i < am; ++i)
			a[(long) j * lda + i] = dmd_bench_rnd(1, (uint64_t) (
				dmd_bench_l2g(i, amb, myrow, nprow) * N +
				dmd_bench_l2g(j, anb, mycol, npcol)));

	double cold = 0.0;
	for (int r = -1; r < reps; ++r) {
		double t, tmax;

		MPI_Barrier(MPI_COMM_WORLD);
		t = MPI_Wtime();
		Cpdgemr2d(N, N, a, 1, 1, desca, b, 1, 1, descb, ctxt);
		t = MPI_Wtime() - t;
		MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX,
			MPI_COMM_WORLD);
		if (r < 0)
			cold = tmax;
		else
			times[r] = tmax;
	}
	double best = cold, median = cold;
	if (reps > 0) {
		qsort(times, reps, sizeof(double), cmp_double);
		best = times[0];
		median = reps % 2 ? times[reps / 2] :
			(times[reps / 2 - 1] + times[reps / 2]) / 2;
	}

	long bad = 0, gbad = 0;
	for (int j = 0; j < bn; ++j)
		for (int i = 0; i < bm; ++i)
			if (b[(long) j * ldb + i] != dmd_bench_rnd(1, (uint64_t) (
			    dmd_bench_l2g(i, NB, myrow, nprow) * N +
			    dmd_bench_l2g(j, NB, mycol, npcol))))
				bad++;
	MPI_Reduce(&bad, &gbad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (me == 0)
		printf("{\"n\": %d, \"nb\": %d, \"grid\": \"%dx%d\", "
			"\"time_cold_s\": %.6g, \"time_best_s\": %.6g, "
			"\"time_median_s\": %.6g, \"reps\": %d, "
			"\"wrong_elements\": %ld}\n", N, NB, P, Q, cold, best,
			median, reps, gbad);
	free(a);
	free(b);
	free(times);
	MPI_Bcast(&gbad, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return gbad ? 1 : 0;
}
