/* stencil_bench.c: the hand-written references of the stencil benchmark,
 * and the machine's copy bandwidth.
 *
 *   mpiexec.mpich -n P ./stencil_bench sweep N REPS [OUT.npy]
 *   mpiexec.mpich -n P ./stencil_bench copy N REPS
 *
 * sweep: the 5-point stencil of bench/jobs/stencil_*.yaml on an N x N
 * float64 array A holding the job format's "random" values (spec 1.2,
 * seed 1, global row-major index):
 *
 *   B[i, j] = 0.2 * (A[i-1, j] + A[i+1, j] + A[i, j-1] + A[i, j+1] + A[i, j])
 *
 * for 1 <= i, j <= N-2 only (the border of B is not written and stays 0,
 * as in the job).  With P = 1 it is one plain C sweep of the whole array
 * on one core (restrict pointers, compiled with the generated programs'
 * flags, -O3): the baseline of the benchmark.  With P > 1 the rows are
 * split in blocks of ceil(N/P) (the job format's "block" rule), each rank
 * holding its rows plus one ghost row on each side; a timed sweep is: the
 * ghost rows exchanged with MPI_Sendrecv (contiguous rows), then the
 * rank's sweep.  That is the hand-written MPI program an HPC engineer
 * would write for the row layout, for comparison with distmpmd's.
 *
 * Order, as in a distmpmd program: A allocated and filled, then B
 * allocated and zeroed (memset: its pages are touched), then the first
 * (cold) sweep, then REPS more sweeps (each recomputes B from A: the same
 * work; their mean is reported too).  Each sweep is timed as MPI_Barrier; t0 = MPI_Wtime(); ...;
 * t = MPI_Wtime() - t0, and its time is the maximum over the ranks.
 * OUT.npy: B is written there (gathered on rank 0) for the numpy check.
 *
 * copy: every rank copies its share (N*N/P doubles) with memcpy, then with
 * a plain C loop (compiled without the memcpy idiom, so with ordinary
 * stores, like the stencil's), all ranks at once; REPS timed copies of
 * each after one untimed one.  Bandwidth convention throughout: bytes =
 * read + write of the whole array, 2 * 8 * N^2, over the time.
 *
 * Prints one JSON line on rank 0's stdout; exit status 0 on success.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_rand.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;
	return (x > y) - (x < y);
}

static void *xalloc(size_t bytes)
{
	void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
	if (!p) {
		fprintf(stderr, "stencil_bench: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

/* The sweep over rows [i0, i1] (indices into a, which has n columns; row i
 * of b is row i of a), columns 1 .. n-2. */
static void sweep(long n, long i0, long i1, const double *restrict a,
	double *restrict b)
{
	for (long i = i0; i <= i1; ++i)
		for (long j = 1; j <= n - 2; ++j)
			b[i * n + j] = 0.2 * (a[(i - 1) * n + j] +
				a[(i + 1) * n + j] + a[i * n + j - 1] +
				a[i * n + j + 1] + a[i * n + j]);
}

/* A copy loop with ordinary stores (GCC would otherwise call memcpy). */
__attribute__((optimize("no-tree-loop-distribute-patterns")))
static void copy_loop(long n, const double *restrict s, double *restrict d)
{
	for (long i = 0; i < n; ++i)
		d[i] = s[i];
}

static double tmax(double t)
{
	double m;
	MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return m;
}

static void stats(double *t, int reps, double *best, double *median)
{
	qsort(t, reps, sizeof(double), cmp_double);
	*best = t[0];
	*median = reps % 2 ? t[reps / 2] : (t[reps / 2 - 1] + t[reps / 2]) / 2;
}

/* Write the n x n row-major float64 array "b" as a version 1.0 .npy. */
static int write_npy(const char *path, long n, const double *b)
{
	char hdr[128];
	int len = snprintf(hdr, sizeof(hdr), "{'descr': '<f8', 'fortran_order': "
		"False, 'shape': (%ld, %ld), }", n, n);
	int total = 10 + len + 1;
	int pad = (64 - total % 64) % 64;
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	unsigned short hl = (unsigned short) (len + pad + 1);
	fwrite("\x93NUMPY\x01\x00", 1, 8, f);
	fputc(hl & 0xff, f);
	fputc(hl >> 8, f);
	fwrite(hdr, 1, len, f);
	for (int i = 0; i < pad; ++i)
		fputc(' ', f);
	fputc('\n', f);
	size_t cnt = (size_t) n * n;
	int bad = fwrite(b, sizeof(double), cnt, f) != cnt;
	return fclose(f) || bad ? -1 : 0;
}

static int do_sweep(int me, int np, long n, int reps, const char *out)
{
	long rows = (n + np - 1) / np;	/* block rule */
	long g0 = me * rows, g1 = g0 + rows;	/* my rows [g0, g1) */
	if (g0 > n)
		g0 = n;
	if (g1 > n)
		g1 = n;
	long h = g1 - g0;
	/* local row r (0 .. h+1) is global row g0 - 1 + r */
	double *a = xalloc(sizeof(double) * (size_t) (h + 2) * n);
	for (long r = 0; r < h + 2; ++r) {
		long g = g0 - 1 + r;
		for (long j = 0; j < n; ++j)
			a[r * n + j] = (g >= g0 && g < g1) ?
				dmd_bench_rnd(1, (uint64_t) (g * n + j)) : 0.0;
	}
	double *b = xalloc(sizeof(double) * (size_t) (h + 2) * n);
	memset(b, 0, sizeof(double) * (size_t) (h + 2) * n);
	/* interior rows of mine: global [max(g0, 1), min(g1, n-1)) */
	long i0 = (g0 > 1 ? g0 : 1) - (g0 - 1);
	long i1 = (g1 < n - 1 ? g1 : n - 1) - 1 - (g0 - 1);
	int up = me > 0 && h > 0 ? me - 1 : MPI_PROC_NULL;
	int down = me < np - 1 && g1 < n ? me + 1 : MPI_PROC_NULL;
	double cold = 0.0, *t = malloc(sizeof(double) * (reps > 0 ? reps : 1));
	for (int r = -1; r < reps; ++r) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		if (np > 1) {
			/* my first row up, the row below mine from down, ... */
			MPI_Sendrecv(a + 1 * n, (int) n, MPI_DOUBLE, up, 0,
				a + (h + 1) * n, (int) n, MPI_DOUBLE, down, 0,
				MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Sendrecv(a + h * n, (int) n, MPI_DOUBLE, down, 1,
				a, (int) n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD,
				MPI_STATUS_IGNORE);
		}
		if (i1 >= i0)
			sweep(n, i0, i1, a, b);
		double dt = tmax(MPI_Wtime() - t0);
		if (r < 0)
			cold = dt;
		else
			t[r] = dt;
	}
	double best = cold, median = cold, mean = cold;
	if (reps > 0) {
		mean = 0.0;
		for (int r = 0; r < reps; ++r)
			mean += t[r] / reps;
		stats(t, reps, &best, &median);
	}
	int ok = 1;
	if (out) {
		double *all = me == 0 ? xalloc(sizeof(double) * (size_t) n * n) : NULL;
		int *cnt = malloc(sizeof(int) * np), *dsp = malloc(sizeof(int) * np);
		for (int p = 0; p < np; ++p) {
			long p0 = p * rows < n ? p * rows : n;
			long p1 = (p + 1) * rows < n ? (p + 1) * rows : n;
			cnt[p] = (int) ((p1 - p0) * n);
			dsp[p] = (int) (p0 * n);
		}
		MPI_Gatherv(b + n, (int) (h * n), MPI_DOUBLE, all, cnt, dsp,
			MPI_DOUBLE, 0, MPI_COMM_WORLD);
		if (me == 0) {
			if (write_npy(out, n, all)) {
				fprintf(stderr, "stencil_bench: cannot write %s\n", out);
				ok = 0;
			}
			free(all);
		}
		free(cnt);
		free(dsp);
	}
	if (me == 0) {
		double bytes = 2.0 * 8.0 * n * n;
		printf("{\"mode\": \"sweep\", \"n\": %ld, \"ranks\": %d, "
			"\"reps\": %d, \"time_cold_s\": %.6f, \"time_s\": %.6f, "
			"\"time_median_s\": %.6f, \"time_mean_s\": %.6f, "
			"\"gbs_cold\": %.3f, \"gbs\": %.3f, \"gbs_median\": %.3f, "
			"\"gbs_mean\": %.3f}\n", n, np, reps, cold, best, median,
			mean, bytes / cold / 1e9, bytes / best / 1e9,
			bytes / median / 1e9, bytes / mean / 1e9);
		fflush(stdout);
	}
	free(t);
	free(a);
	free(b);
	return ok;
}

static int do_copy(int me, int np, long n, int reps)
{
	long cnt = (n * n + np - 1) / np;
	double *s = xalloc(sizeof(double) * (size_t) cnt);
	double *d = xalloc(sizeof(double) * (size_t) cnt);
	for (long i = 0; i < cnt; ++i)
		s[i] = dmd_bench_rnd(1, (uint64_t) (me * cnt + i));
	memset(d, 0, sizeof(double) * (size_t) cnt);
	double res[2][3];	/* [memcpy, loop][best, median, cold] */
	double *t = malloc(sizeof(double) * (reps > 0 ? reps : 1));
	for (int kind = 0; kind < 2; ++kind) {
		double cold = 0.0;
		for (int r = -1; r < reps; ++r) {
			MPI_Barrier(MPI_COMM_WORLD);
			double t0 = MPI_Wtime();
			if (kind == 0)
				memcpy(d, s, sizeof(double) * (size_t) cnt);
			else
				copy_loop(cnt, s, d);
			double dt = tmax(MPI_Wtime() - t0);
			if (r < 0)
				cold = dt;
			else
				t[r] = dt;
		}
		res[kind][2] = cold;
		res[kind][0] = res[kind][1] = cold;
		if (reps > 0)
			stats(t, reps, &res[kind][0], &res[kind][1]);
	}
	/* keep the copies alive */
	volatile double sink = d[cnt / 2];
	(void) sink;
	if (me == 0) {
		double bytes = 2.0 * 8.0 * n * n;
		printf("{\"mode\": \"copy\", \"n\": %ld, \"ranks\": %d, \"reps\": %d, "
			"\"bytes_per_rank\": %ld, "
			"\"memcpy_time_s\": %.6f, \"memcpy_time_median_s\": %.6f, "
			"\"memcpy_gbs\": %.3f, \"memcpy_gbs_median\": %.3f, "
			"\"loop_time_s\": %.6f, \"loop_time_median_s\": %.6f, "
			"\"loop_gbs\": %.3f, \"loop_gbs_median\": %.3f}\n",
			n, np, reps, (long) (cnt * sizeof(double)),
			res[0][0], res[0][1], bytes / res[0][0] / 1e9,
			bytes / res[0][1] / 1e9, res[1][0], res[1][1],
			bytes / res[1][0] / 1e9, bytes / res[1][1] / 1e9);
		fflush(stdout);
	}
	free(t);
	free(s);
	free(d);
	return 1;
}

int main(int argc, char **argv)
{
	int me, np;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (argc < 4 || argc > 5 || (strcmp(argv[1], "sweep") &&
			strcmp(argv[1], "copy"))) {
		if (me == 0)
			fprintf(stderr, "usage: stencil_bench sweep|copy N REPS "
				"[OUT.npy]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	long n = atol(argv[2]);
	int reps = atoi(argv[3]);
	if (n < 3 || reps < 0 || (long) np > n) {
		if (me == 0)
			fprintf(stderr, "stencil_bench: bad arguments\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int ok = !strcmp(argv[1], "sweep") ?
		do_sweep(me, np, n, reps, argc == 5 ? argv[4] : NULL) :
		do_copy(me, np, n, reps);
	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return ok ? 0 : 1;
}
