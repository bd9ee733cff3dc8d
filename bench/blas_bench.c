/* blas_bench.c: single-process OpenBLAS DGEMM on the benchmark's product.
 *
 *   OPENBLAS_NUM_THREADS=T ./blas_bench M N K REPS
 *
 * C (MxN) = A (MxK) * B (KxN), float64, row-major, with the job format's
 * "random" values (spec 1.2, seeds 1 and 2) as in the distmpmd jobs.
 * One cold call, then REPS timed calls (clock_gettime(CLOCK_MONOTONIC)
 * around cblas_dgemm only); reports the best and the median (REPS may be
 * 0: then both are the cold call's time).  A few
 * entries of C are checked against a direct dot product.  Prints one JSON
 * line; exit status 0 if the check passed.
 */
#define _POSIX_C_SOURCE 199309L
#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_rand.h"

int openblas_get_num_threads(void);
char *openblas_get_corename(void);

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: blas_bench M N K REPS\n");
		return 2;
	}
	long M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);
	int reps = atoi(argv[4]);
	if (M <= 0 || N <= 0 || K <= 0 || reps < 0) {
		fprintf(stderr, "blas_bench: bad arguments\n");
		return 2;
	}
	double *a = malloc(sizeof(double) * M * K);
	double *b = malloc(sizeof(double) * K * N);
	double *c = calloc(M * N, sizeof(double));
	double *times = malloc(sizeof(double) * (reps > 0 ? reps : 1));
	if (!a || !b || !c || !times) {
		fprintf(stderr, "blas_bench: out of memory\n");
		return 1;
	}
	for (long i = 0; i < M * K; ++i)
		a[i] = dmd_bench_rnd(1, i);
	for (long i = 0; i < K * N; ++i)
		b[i] = dmd_bench_rnd(2, i);

	double cold = 0.0;
	for (int r = -1; r < reps; ++r) {
		double t = now();
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K,
			1.0, a, K, b, N, 0.0, c, N);
		t = now() - t;
		if (r < 0)
			cold = t;
		else
			times[r] = t;
	}
	double best = cold, median = cold;	/* REPS = 0: the cold call */
	if (reps > 0) {
		qsort(times, reps, sizeof(double), cmp_double);
		best = times[0];
		median = reps % 2 ? times[reps / 2] :
			(times[reps / 2 - 1] + times[reps / 2]) / 2;
	}

	enum { NSAMPLE = 24 };
	double worst = 0.0, maxerr = 0.0;
	for (int s = 0; s < NSAMPLE; ++s) {
		long gi, gj;
		if (s < 4) {
			gi = (s & 1) ? M - 1 : 0;
			gj = (s & 2) ? N - 1 : 0;
		} else {
			gi = (long) ((dmd_bench_rnd(77, s) + 1) / 2 * M);
			gj = (long) ((dmd_bench_rnd(78, s) + 1) / 2 * N);
		}
		double dot = 0.0, absdot = 0.0;
		for (long k = 0; k < K; ++k) {
			double x = a[gi * K + k], y = b[k * N + gj];
			dot += x * y;
			absdot += fabs(x * y);
		}
		double err = fabs(c[gi * N + gj] - dot);
		double bound = K * 2.220446049250313e-16 * absdot;
		if (err > maxerr)
			maxerr = err;
		if (bound > 0 ? err / bound > worst : err > 0)
			worst = bound > 0 ? err / bound : INFINITY;
	}
	double flop = 2.0 * M * N * K;
	int ok = worst <= 1.0;
	printf("{\"M\": %ld, \"N\": %ld, \"K\": %ld, \"threads\": %d, "
		"\"core\": \"%s\", "
		"\"reps\": %d, \"time_s\": %.6f, \"time_median_s\": %.6f, "
		"\"time_cold_s\": %.6f, \"gflops\": %.4f, \"gflops_median\": %.4f, "
		"\"gflops_cold\": %.4f, \"checked\": %d, \"max_abs_err\": %.3e, "
		"\"err_over_bound\": %.3e, \"ok\": %s}\n", M, N, K,
		openblas_get_num_threads(), openblas_get_corename(), reps, best, median, cold,
		flop / best / 1e9, flop / median / 1e9, flop / cold / 1e9,
		NSAMPLE, maxerr, worst, ok ? "true" : "false");
	free(times);
	free(a);
	free(b);
	free(c);
	return ok ? 0 : 1;
}
