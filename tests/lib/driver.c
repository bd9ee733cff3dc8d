/* driver.c: an MPI program that calls libraries made by "distmpmd build
 * --lib" (tests/lib/run.sh compiles it once per test).
 *
 *	mpicc -DLIB=name -DREAL=double -include name.h [-DCYC='{...},']
 *	    [-DLIB2=name2 -DREAL2=float -DLIB2_RANKS=3 -include name2.h
 *	    -DCYC2='{...},'] driver.c ...
 *	mpiexec -n N ./driver DUMPDIR [MODE]
 *
 * Every rank fills its block of every tensor of the library (NAME_block)
 * from a formula of the global index, the tensor and the run (CYC, CYC2:
 * the cyclic dimensions of LIB's, LIB2's tensors, as "check.py JOB
 * --cyclic" prints them: {T, D, S, H} for dimension D of tensor T in
 * blocks of S over H holders, whose local index l on the holder with
 * offset h S is element ((l / S) H + h) S + l % S; ScaLAPACK's local
 * layout), calls
 * NAME_run twice (different values the second time), and after each run
 * writes every block to DUMPDIR/NAME.tT.runK.{in,out}.rR.bin (the block
 * before and after the run: int64 ndim, offsets, extents, then the values)
 * for tests/lib/check.py, which compares them with the sequential
 * reference.  LIB2, if given, is run between LIB's runs on the first
 * LIB2_RANKS ranks (a communicator split off the world), so that two
 * libraries live in one program.  The driver prints nothing on success.
 *
 * MODE "wrongsize": one call of NAME_run on the world; each rank prints
 * "rank R: NAME_run returned RC: MESSAGE".  MODE "null": rank 1 passes NULL
 * for tensor 0 first (each rank prints the same line), then the two runs
 * as usual.  MODE "blocks": rank 0 prints what NAME_block says of every
 * rank and tensor, "rank R tensor T: offset [O0, O1] extent [E0, E1]" or
 * "rank R tensor T: none (-1)", and nothing runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "../../bench/bench_rand.h"	/* dmd_bench_l2g */

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define STR2(a) #a
#define STR(a) STR2(a)

#define MAXD 8

/* The value of element "idx" (global, n dimensions) of tensor "t" in run
 * "run": small multiples of 1/8 (exact in f32 and f64). */
static double value(int t, int run, int n, const int64_t *idx)
{
	int64_t h = 3 * t + 11 * run + 1;
	int d;

	for (d = 0; d < n; ++d)
		h = h * 7 + idx[d] * (2 * d + 3);
	return (double) (h % 23) / 8.0 - 1.25;
}

#ifndef CYC
#define CYC
#endif
#ifndef CYC2
#define CYC2
#endif
/* {tensor, dimension, block size, holders} of LIB's (LIB2's) cyclic
 * dimensions, then { -1 }. */
static const int64_t cyc1[][4] = { CYC { -1, 0, 0, 0 } };
#ifdef LIB2
static const int64_t cyc2[][4] = { CYC2 { -1, 0, 0, 0 } };
#endif

/* The global index of local index "l" of dimension "d" of tensor "t"
 * whose block starts at "off" ("cyc": the library's cyclic dimensions):
 * off + l, or on a cyclic dimension in blocks of S over H holders, the
 * holder h = off / S's element ((l / S) H + h) S + l % S (ScaLAPACK's
 * INDXL2G, bench/bench_rand.h). */
static int64_t global(const int64_t (*cyc)[4], int t, int d, int64_t off,
	int64_t l)
{
	int i;

	for (i = 0; cyc[i][0] >= 0; ++i)
		if (cyc[i][0] == t && cyc[i][1] == d)
			return dmd_bench_l2g(l, (int) cyc[i][2],
				(int) (off / cyc[i][2]), (int) cyc[i][3]);
	return off + l;
}

/* The blocks of one library: pointers, and what NAME_block says. */
struct blocks {
	int n;
	void *ptr[64];
	int ndim[64];
	int64_t off[64][MAXD], ext[64][MAXD], nelem[64];
};

/* Allocate and fill every block of rank "rank" for run "run"
 * ("esize"-byte elements: 4 float, 8 double), via "block" (the cyclic
 * dimensions "cyc"). */
static void fill(struct blocks *b, int nt, int rank, int run, size_t esize,
	int (*block)(int, int, int64_t *, int64_t *),
	const int64_t (*cyc)[4])
{
	int t, d;
	int64_t k, idx[MAXD];

	b->n = nt;
	for (t = 0; t < nt; ++t) {
		b->ndim[t] = block(rank, t, b->off[t], b->ext[t]);
		b->ptr[t] = NULL;
		if (b->ndim[t] < 0)
			continue;
		b->nelem[t] = 1;
		for (d = 0; d < b->ndim[t]; ++d)
			b->nelem[t] *= b->ext[t][d];
		b->ptr[t] = malloc(b->nelem[t] ? b->nelem[t] * esize : 1);
		for (k = 0; k < b->nelem[t]; ++k) {
			int64_t r = k;

			for (d = b->ndim[t] - 1; d >= 0; --d) {
				idx[d] = global(cyc, t, d, b->off[t][d],
					r % b->ext[t][d]);
				r /= b->ext[t][d];
			}
			if (esize == 4)
				((float *) b->ptr[t])[k] = (float) value(t,
					run, b->ndim[t], idx);
			else
				((double *) b->ptr[t])[k] = value(t, run,
					b->ndim[t], idx);
		}
	}
}

/* Write every block of "b" to DIR/NAME.tT.runK.PHASE.rR.bin. */
static void dump(const struct blocks *b, const char *dir, const char *name,
	int run, const char *phase, int rank, size_t esize)
{
	char path[4096];
	int t;

	for (t = 0; t < b->n; ++t) {
		FILE *f;
		int64_t nd = b->ndim[t];

		if (nd < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s.t%d.run%d.%s.r%d.bin",
			dir, name, t, run, phase, rank);
		f = fopen(path, "wb");
		if (!f) {
			perror(path);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		fwrite(&nd, sizeof(nd), 1, f);
		fwrite(b->off[t], sizeof(int64_t), nd, f);
		fwrite(b->ext[t], sizeof(int64_t), nd, f);
		fwrite(b->ptr[t], esize, b->nelem[t], f);
		fclose(f);
	}
}

static void release(struct blocks *b)
{
	int t;

	for (t = 0; t < b->n; ++t)
		free(b->ptr[t]);
}

/* One run of library "name" on "comm": fill, dump "in", run, dump "out".
 * Stops the job if run fails. */
static void one_run(const char *dir, const char *name, int nt, size_t esize,
	int (*block)(int, int, int64_t *, int64_t *), const int64_t (*cyc)[4],
	int (*run)(MPI_Comm, void *const[]), const char *(*error)(void),
	MPI_Comm comm, int k)
{
	struct blocks b;
	int rank, rc;

	MPI_Comm_rank(comm, &rank);
	fill(&b, nt, rank, k, esize, block, cyc);
	dump(&b, dir, name, k, "in", rank, esize);
	rc = run(comm, b.ptr);
	if (rc != 0) {
		fprintf(stderr, "rank %d: %s_run returned %d: %s\n", rank,
			name, rc, error());
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	dump(&b, dir, name, k, "out", rank, esize);
	release(&b);
}

#define RUN1(k, comm) one_run(dir, STR(LIB), CAT(LIB, _NTENSORS), \
	sizeof(REAL), CAT(LIB, _block), cyc1, CAT(LIB, _run), \
	CAT(LIB, _error), comm, k)
#ifdef LIB2
#define RUN2(k, comm) one_run(dir, STR(LIB2), CAT(LIB2, _NTENSORS), \
	sizeof(REAL2), CAT(LIB2, _block), cyc2, CAT(LIB2, _run), \
	CAT(LIB2, _error), comm, k)
#endif

/* MODE "blocks": what NAME_block says of every rank (of "nranks") and
 * tensor, one line each. */
static void print_blocks(int nranks, int nt,
	int (*block)(int, int, int64_t *, int64_t *))
{
	int r, t, d, nd;

	for (r = 0; r < nranks; ++r)
		for (t = 0; t < nt; ++t) {
			int64_t off[MAXD], ext[MAXD];

			nd = block(r, t, off, ext);
			printf("rank %d tensor %d: ", r, t);
			if (nd < 0) {
				printf("none (%d)\n", nd);
				continue;
			}
			printf("offset [");
			for (d = 0; d < nd; ++d)
				printf("%s%lld", d ? ", " : "",
					(long long) off[d]);
			printf("] extent [");
			for (d = 0; d < nd; ++d)
				printf("%s%lld", d ? ", " : "",
					(long long) ext[d]);
			printf("]\n");
		}
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	const char *mode = argc > 2 ? argv[2] : "run";
	MPI_Comm sub = MPI_COMM_NULL;
	int rank, k;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (!strcmp(mode, "blocks")) {
		int size;

		MPI_Comm_size(MPI_COMM_WORLD, &size);
		if (rank == 0)
			print_blocks(size, CAT(LIB, _NTENSORS),
				CAT(LIB, _block));
		MPI_Finalize();
		return 0;
	}
	if (!strcmp(mode, "wrongsize") || !strcmp(mode, "null")) {
		struct blocks b;
		void *saved;
		int rc;

		fill(&b, CAT(LIB, _NTENSORS), rank, 0, sizeof(REAL),
			CAT(LIB, _block), cyc1);
		saved = b.ptr[0];
		if (!strcmp(mode, "null") && rank == 1)
			b.ptr[0] = NULL;
		rc = CAT(LIB, _run)(MPI_COMM_WORLD, b.ptr);
		printf("rank %d: %s_run returned %d: %s\n", rank, STR(LIB),
			rc, CAT(LIB, _error)());
		fflush(stdout);
		b.ptr[0] = saved;
		release(&b);
		if (!strcmp(mode, "wrongsize")) {
			MPI_Finalize();
			return 0;
		}
	}
#ifdef LIB2
	MPI_Comm_split(MPI_COMM_WORLD, rank < LIB2_RANKS ? 0 : MPI_UNDEFINED,
		rank, &sub);
#endif
	for (k = 0; k < 2; ++k) {
		RUN1(k, MPI_COMM_WORLD);
#ifdef LIB2
		if (sub != MPI_COMM_NULL)
			RUN2(k, sub);
#endif
	}
	if (sub != MPI_COMM_NULL)
		MPI_Comm_free(&sub);
	MPI_Finalize();
	return 0;
}
