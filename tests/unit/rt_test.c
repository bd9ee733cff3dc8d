/* rt_test.c: unit test of the runtime library (runtime/, API v2); run by
 * tests/unit/rt_test.sh as
 *	mpiexec.mpich -n N rt_test MODE DTYPE [ARG]
 * MODE main (4 ranks, 2x2 mesh): the full test; each section ends with a
 * line "ok NAME" or "FAIL NAME" from rank 0, and the stats the runtime
 * should report are printed as "expect bytes_moved_total=B
 * bytes_recv_max=R messages=M steps=B0:M0,B1:M1,..." (the script compares
 * them with the DMD_STATS line).
 * MODE gemm (2 ranks): dmd_gemm against a naive triple loop, with and
 * without transfers in flight.
 * MODE out (2 ranks): writes the 4x6 output C to the file ARG (the script
 * checks refused destinations, stale temporaries, a full disk).
 * MODE jobdir (1 rank): reads in.npy relative to the job_dir "jobdir",
 * i.e. next to the binary; MODE absdir: job_dir is ARG.
 * The other modes stop with an error on purpose (see error_mode).
 * Relative file names are resolved against DMD_JOB_DIR, which the script
 * sets for most modes.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "runtime/dmd_rt.h"
#include "runtime/dmd_rt_private.h"

static int f64;			/* the job's dtype is f64 */
static int rank, c0, c1;	/* world rank and mesh coordinates (2x2) */
static int fails;		/* failed checks of this rank in this section */
static long long exp_bytes;	/* bytes this rank should have counted */
static long long exp_msgs;	/* messages this rank should have counted */
static long long exp_sb[3];	/* the same per step */
static long long exp_sm[3];

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			if (fails < 10) {				\
				fprintf(stderr, "rank %d: %s:%d: ",	\
					rank, __FILE__, __LINE__);	\
				fprintf(stderr, __VA_ARGS__);		\
				fprintf(stderr, "\n");			\
			}						\
			fails++;					\
		}							\
	} while (0)

/* Element k of a buffer of the job's dtype. */
static double get(const void *buf, int64_t k)
{
	return f64 ? ((const double *) buf)[k] : ((const float *) buf)[k];
}

/* Set element k of a buffer of the job's dtype. */
static void set(void *buf, int64_t k, double v)
{
	if (f64)
		((double *) buf)[k] = v;
	else
		((float *) buf)[k] = (float) v;
}

/* Set n elements of buf to v. */
static void fill(void *buf, int64_t n, double v)
{
	for (int64_t k = 0; k < n; ++k)
		set(buf, k, v);
}

/* "v" rounded to the job's dtype. */
static double rnd(double v)
{
	return f64 ? v : (double) (float) v;
}

/* Size of n elements. */
static long long bytes(int64_t n)
{
	return n * (f64 ? 8 : 4);
}

/* This rank receives n elements from another rank in step "step". */
static void expect_recv(int step, int64_t n)
{
	exp_bytes += bytes(n);
	exp_msgs++;
	if (step >= 0) {
		exp_sb[step] += bytes(n);
		exp_sm[step]++;
	}
}

/* The spec's random formula, written again here (independently of the
 * runtime's copy). */
static double spec_random(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z = z ^ (z >> 31);
	return (double) (z >> 11) * ldexp(1.0, -53) * 2 - 1;
}

/* End a section: rank 0 prints whether every rank passed it. */
static void section(const char *name)
{
	int all = 0;

	MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) {
		if (all)
			printf("FAIL %s (%d failed checks)\n", name, all);
		else
			printf("ok %s\n", name);
		fflush(stdout);
	}
	fails = 0;
}

/* The tensors of the main job. */
enum { T_A, T_S, T_BIG, T_O, T_Z, T_N, T_R, T_ROUT, T_T, T_V, T_SC, T_IN,
	T_IN2, T_VEC, T_INS, T_U, NT_MAIN };
static const int64_t sh100[1] = { 100 }, sh57[2] = { 5, 7 };
static const int64_t sh3[1] = { 3 }, sh65[2] = { 6, 5 }, sh4[1] = { 4 };
static const int64_t shbig[1] = { 20000000000LL };
static const int64_t sh456[3] = { 4, 5, 6 };
static const dmd_tensor_desc main_tensors[NT_MAIN] = {
	[T_A] = { "A", NULL, DMD_RT_INIT_RANDOM, 42, 1, sh100, 0 },
	[T_S] = { "S", NULL, DMD_RT_INIT_RANDOM, 0, 0, NULL, 0 },
	[T_BIG] = { "Big", NULL, DMD_RT_INIT_RANDOM,
		18446744073709551615ULL, 1, shbig, 0 },
	[T_O] = { "O", NULL, DMD_RT_INIT_ONES, 0, 1, sh100, 0 },
	[T_Z] = { "Z", NULL, DMD_RT_INIT_ZEROS, 0, 1, sh100, 0 },
	[T_N] = { "N", NULL, DMD_RT_INIT_NONE, 0, 1, sh100, 0 },
	[T_R] = { "R", NULL, DMD_RT_INIT_RANDOM, 42, 2, sh57, 0 },
	[T_ROUT] = { "R", "rand.npy", 0, 0, 2, sh57, 1 },
	[T_T] = { "T", "T.npy", 0, 0, 2, sh57, 1 },
	[T_V] = { "V", "V.npy", 0, 0, 1, sh3, 1 },
	[T_SC] = { "Sc", "S.npy", 0, 0, 0, NULL, 1 },
	[T_IN] = { "In", "in.npy", 0, 0, 2, sh65, 0 },
	[T_IN2] = { "In2", "in_v2.npy", 0, 0, 2, sh65, 0 },
	[T_VEC] = { "Vec", "in_vec.npy", 0, 0, 1, sh4, 0 },
	[T_INS] = { "InS", "in_scalar.npy", 0, 0, 0, NULL, 0 },
	[T_U] = { "U", "U.npy", 0, 0, 3, sh456, 1 },
};

/* The mesh, dmd_alloc. */
static void test_mesh(dmd_rt *rt)
{
	void *p = dmd_alloc(rt, 0), *q = dmd_alloc(rt, 13);

	CHECK(dmd_rank(rt) == rank, "dmd_rank");
	CHECK(dmd_coord(rt, 0) == rank / 2, "dmd_coord 0");
	CHECK(dmd_coord(rt, 1) == rank % 2, "dmd_coord 1");
	CHECK(p != NULL && (uintptr_t) p % 64 == 0, "dmd_alloc(0)");
	CHECK((uintptr_t) q % 64 == 0, "dmd_alloc alignment");
	for (int k = 0; k < 13; ++k)
		CHECK(get(q, k) == 0, "dmd_alloc zero-fills");
	section("mesh");
}

/* Random init: values at a few global indices (computed independently
 * with Python), on blocks of a 1-D tensor of 100 elements, 25 per rank,
 * a scalar, and a single element of a huge tensor; ones, zeros; then the
 * 5x7 tensor R (seed 42) into a buffer with ghost cells, every element
 * against the formula, written to rand.npy for the script to check.
 */
static void test_random(dmd_rt *rt)
{
	int64_t lo1 = 25 * rank, ext1 = 25, lobig = 12345678901LL, one = 1;
	int64_t lo2[2], ext2[2], bo[2], bx[2];
	void *a = dmd_alloc(rt, 25), *s = dmd_alloc(rt, 1);
	void *b = dmd_alloc(rt, 1), *r;

	dmd_read(rt, T_A, &lo1, &ext1, a, &lo1, &ext1);
	if (rank == 0) {
		CHECK(get(a, 0) == rnd(0x1.eeb991317f5b4p-2), "A[0] = %.17g",
			get(a, 0));
		CHECK(get(a, 1) == rnd(-0x1.5c40733136644p-1), "A[1] = %.17g",
			get(a, 1));
	}
	if (rank == 1)
		CHECK(get(a, 9) == rnd(0x1.19a8e3fe4d260p-2), "A[34] = %.17g",
			get(a, 9));
	for (int64_t k = 0; k < 25; ++k)
		CHECK(get(a, k) == rnd(spec_random(42, lo1 + k)),
			"A[%lld] = %.17g", (long long) (lo1 + k), get(a, k));
	dmd_read(rt, T_S, NULL, NULL, s, NULL, NULL);
	CHECK(get(s, 0) == rnd(0x1.8882a0e5ec772p-1), "S = %.17g", get(s, 0));
	dmd_read(rt, T_BIG, &lobig, &one, b, &lobig, &one);
	CHECK(get(b, 0) == rnd(-0x1.3fd3b63ccd330p-4), "Big = %.17g",
		get(b, 0));

	fill(a, 25, -7);
	dmd_read(rt, T_O, &lo1, &ext1, a, &lo1, &ext1);
	for (int64_t k = 0; k < 25; ++k)
		CHECK(get(a, k) == 1, "ones");
	fill(a, 25, -7);
	dmd_read(rt, T_Z, &lo1, &ext1, a, &lo1, &ext1);
	for (int64_t k = 0; k < 25; ++k)
		CHECK(get(a, k) == 0, "zeros");
	fill(a, 25, -7);
	dmd_read(rt, T_N, &lo1, &ext1, a, &lo1, &ext1);
	for (int64_t k = 0; k < 25; ++k)
		CHECK(get(a, k) == 0, "none");

	lo2[0] = c0 ? 3 : 0;
	ext2[0] = c0 ? 2 : 3;
	lo2[1] = c1 ? 4 : 0;
	ext2[1] = c1 ? 3 : 4;
	bo[0] = lo2[0] - 1;
	bo[1] = lo2[1] - 2;
	bx[0] = ext2[0] + 2;
	bx[1] = ext2[1] + 3;
	r = dmd_alloc(rt, bx[0] * bx[1]);
	fill(r, bx[0] * bx[1], -7);
	dmd_read(rt, T_R, lo2, ext2, r, bo, bx);
	for (int64_t i = 0; i < bx[0]; ++i)
		for (int64_t j = 0; j < bx[1]; ++j) {
			int64_t gi = bo[0] + i, gj = bo[1] + j;
			double want = -7;

			if (gi >= lo2[0] && gi < lo2[0] + ext2[0] &&
			    gj >= lo2[1] && gj < lo2[1] + ext2[1])
				want = rnd(spec_random(42, gi * 7 + gj));
			CHECK(get(r, i * bx[1] + j) == want,
				"R ghost buffer [%lld][%lld] = %.17g, want "
				"%.17g", (long long) i, (long long) j,
				get(r, i * bx[1] + j), want);
		}
	dmd_write(rt, T_ROUT, lo2, ext2, r, bo, bx, 1);
	section("random-init");
}

/* Check that the block (lo, ext) in a buffer (bo, bx) of a 2-D tensor
 * holds f(i, j) and its ghost cells hold "ghost".
 */
static void check_block(const void *buf, const int64_t *lo,
	const int64_t *ext, const int64_t *bo, const int64_t *bx, double ghost,
	double (*f)(int64_t, int64_t), const char *what)
{
	for (int64_t i = 0; i < bx[0]; ++i)
		for (int64_t j = 0; j < bx[1]; ++j) {
			int64_t gi = bo[0] + i, gj = bo[1] + j;
			double want = ghost;

			if (gi >= lo[0] && gi < lo[0] + ext[0] &&
			    gj >= lo[1] && gj < lo[1] + ext[1])
				want = f(gi, gj);
			CHECK(get(buf, i * bx[1] + j) == want,
				"%s [%lld][%lld] = %g, want %g", what,
				(long long) gi, (long long) gj,
				get(buf, i * bx[1] + j), want);
		}
}

/* The values of T and of in.npy. */
static double t_val(int64_t i, int64_t j)
{
	return 100 * i + j + 0.25;
}

static double in_val(int64_t i, int64_t j)
{
	return 10 * i + j + 0.5;
}

/* The value of U (4x5x6) at (i, j, k). */
static double u_val(int64_t i, int64_t j, int64_t k)
{
	return 100 * i + 10 * j + k;
}

/* Write U (4x5x6) in blocks 2+2 by 5 by 3+3 from buffers with one ghost
 * layer on every side (holding -9), read it back in blocks 4 by 1+4 by
 * 2+4 into buffers with ghost layers of 2 and check every element.
 */
static void test_write_3d(dmd_rt *rt)
{
	int64_t lo[3] = { 2 * c0, 0, 3 * c1 }, ext[3] = { 2, 5, 3 };
	int64_t bo[3], bx[3], lo2[3] = { 0, c1 ? 1 : 0, c0 ? 2 : 0 };
	int64_t ext2[3] = { 4, c1 ? 4 : 1, c0 ? 4 : 2 }, bo2[3], bx2[3];
	void *u, *u2;

	for (int d = 0; d < 3; ++d) {
		bo[d] = lo[d] - 1;
		bx[d] = ext[d] + 2;
		bo2[d] = lo2[d] - 2;
		bx2[d] = ext2[d] + 4;
	}
	u = dmd_alloc(rt, bx[0] * bx[1] * bx[2]);
	for (int64_t i = 0; i < bx[0]; ++i)
		for (int64_t j = 0; j < bx[1]; ++j)
			for (int64_t k = 0; k < bx[2]; ++k) {
				int64_t g[3] = { bo[0] + i, bo[1] + j,
					bo[2] + k };
				int in = 1;

				for (int d = 0; d < 3; ++d)
					in &= g[d] >= lo[d] &&
						g[d] < lo[d] + ext[d];
				set(u, (i * bx[1] + j) * bx[2] + k,
					in ? u_val(g[0], g[1], g[2]) : -9);
			}
	dmd_write(rt, T_U, lo, ext, u, bo, bx, 1);
	u2 = dmd_alloc(rt, bx2[0] * bx2[1] * bx2[2]);
	fill(u2, bx2[0] * bx2[1] * bx2[2], -7);
	dmd_read(rt, T_U, lo2, ext2, u2, bo2, bx2);
	for (int64_t i = 0; i < bx2[0]; ++i)
		for (int64_t j = 0; j < bx2[1]; ++j)
			for (int64_t k = 0; k < bx2[2]; ++k) {
				int64_t g[3] = { bo2[0] + i, bo2[1] + j,
					bo2[2] + k };
				double want = u_val(g[0], g[1], g[2]);

				for (int d = 0; d < 3; ++d)
					if (g[d] < lo2[d] ||
					    g[d] >= lo2[d] + ext2[d])
						want = -7;
				CHECK(get(u2, (i * bx2[1] + j) * bx2[2] + k) ==
					want, "U [%lld][%lld][%lld] = %g, want "
					"%g", (long long) g[0], (long long) g[1],
					(long long) g[2],
					get(u2, (i * bx2[1] + j) * bx2[2] + k),
					want);
			}
}

/* Write T (5x7, blocks 3+2 by 4+3, from buffers with ghost cells holding
 * 999), V (3, written by the c1 == 0 ranks only, blocks 2+1; the others
 * hold -1 and pass writer 0) and Sc (a scalar, written by rank 0), and
 * read them back, T also with blocks 5+0 by 2+5 (two ranks have empty
 * blocks) into ghost buffers; then the 3-D U.
 */
static void test_write(dmd_rt *rt)
{
	int64_t lo[2], ext[2], bo[2], bx[2], lo2[2], ext2[2], bo2[2], bx2[2];
	int64_t lov, extv, bov, bxv, z = 0;
	void *t, *t2, *v, *v2, *s;

	lo[0] = c0 ? 3 : 0;
	ext[0] = c0 ? 2 : 3;
	lo[1] = c1 ? 4 : 0;
	ext[1] = c1 ? 3 : 4;
	bo[0] = lo[0] - 2;
	bo[1] = lo[1] - 1;
	bx[0] = ext[0] + 3;
	bx[1] = ext[1] + 2;
	t = dmd_alloc(rt, bx[0] * bx[1]);
	for (int64_t i = 0; i < bx[0]; ++i)
		for (int64_t j = 0; j < bx[1]; ++j) {
			int64_t gi = bo[0] + i, gj = bo[1] + j;
			int in = gi >= lo[0] && gi < lo[0] + ext[0] &&
				gj >= lo[1] && gj < lo[1] + ext[1];

			set(t, i * bx[1] + j, in ? t_val(gi, gj) : 999);
		}
	dmd_write(rt, T_T, lo, ext, t, bo, bx, 1);

	lo2[0] = c0 ? 5 : 0;
	ext2[0] = c0 ? 0 : 5;
	lo2[1] = c1 ? 2 : 0;
	ext2[1] = c1 ? 5 : 2;
	bo2[0] = lo2[0] - 1;
	bo2[1] = lo2[1];
	bx2[0] = ext2[0] + 1;
	bx2[1] = ext2[1] + 1;
	t2 = dmd_alloc(rt, bx2[0] * bx2[1]);
	fill(t2, bx2[0] * bx2[1], -7);
	dmd_read(rt, T_T, lo2, ext2, t2, bo2, bx2);
	check_block(t2, lo2, ext2, bo2, bx2, -7, t_val, "T read back");

	lov = c0 ? 2 : 0;
	extv = c0 ? 1 : 2;
	bov = lov - 1;
	bxv = extv + 2;
	v = dmd_alloc(rt, bxv);
	for (int64_t i = 0; i < bxv; ++i)
		set(v, i, c1 || i == 0 || i == bxv - 1 ? -1 :
			7 * (bov + i) + 1);
	dmd_write(rt, T_V, &lov, &extv, v, &bov, &bxv, c1 == 0);
	v2 = dmd_alloc(rt, 5);
	fill(v2, 5, -7);
	bov = -2;
	bxv = 5;
	dmd_read(rt, T_V, &z, sh3, v2, &bov, &bxv);
	for (int64_t i = 0; i < 5; ++i)
		CHECK(get(v2, i) == (i >= 2 ? 7 * (i - 2) + 1 : -7),
			"V[%lld] = %g", (long long) i - 2, get(v2, i));

	s = dmd_alloc(rt, 1);
	set(s, 0, rank == 0 ? -2.5 : 99);
	dmd_write(rt, T_SC, NULL, NULL, s, NULL, NULL, rank == 0);
	set(s, 0, 0);
	dmd_read(rt, T_SC, NULL, NULL, s, NULL, NULL);
	CHECK(get(s, 0) == -2.5, "Sc = %g", get(s, 0));
	test_write_3d(rt);
	section("write-ghost-writers");
}

/* Read the arrays numpy wrote (in.npy: 6x5, 10*i+j+0.5; in_v2.npy the
 * same in .npy version 2.0; in_vec.npy: (4,), 2*i; in_scalar.npy: 3.25)
 * into buffers with ghost cells (which must keep -7); the c1 == 1 ranks
 * have empty blocks of In.
 */
static void test_read_file(dmd_rt *rt)
{
	int64_t lo[2], ext[2], bo[2], bx[2], z = 0, bov = -2, bxv = 7;
	void *in, *vec, *s;

	lo[0] = c0 ? 4 : 0;
	ext[0] = c0 ? 2 : 4;
	lo[1] = c1 ? 5 : 0;
	ext[1] = c1 ? 0 : 5;
	bo[0] = lo[0] - 1;
	bo[1] = lo[1] - 1;
	bx[0] = ext[0] + 2;
	bx[1] = ext[1] + 2;
	in = dmd_alloc(rt, bx[0] * bx[1]);
	for (int version = 1; version <= 2; ++version) {
		fill(in, bx[0] * bx[1], -7);
		dmd_read(rt, version == 1 ? T_IN : T_IN2, lo, ext, in, bo, bx);
		check_block(in, lo, ext, bo, bx, -7, in_val,
			version == 1 ? "in.npy" : "in_v2.npy");
	}
	vec = dmd_alloc(rt, 7);
	fill(vec, 7, -7);
	dmd_read(rt, T_VEC, &z, sh4, vec, &bov, &bxv);
	for (int64_t i = 0; i < 7; ++i)
		CHECK(get(vec, i) == (i >= 2 && i < 6 ? 2 * (i - 2) : -7),
			"vec[%lld] = %g", (long long) i - 2, get(vec, i));
	s = dmd_alloc(rt, 1);
	dmd_read(rt, T_INS, NULL, NULL, s, NULL, NULL);
	CHECK(get(s, 0) == 3.25, "in_scalar = %g", get(s, 0));
	section("read-ghost-file");
}

/* Broadcasts (step 0): a strided box along axis 1 from coordinate 1 (4x6
 * buffer at the root, box at (1, 2) of extents 2x3, received at (2, 1) of
 * a 5x5 buffer) and, in flight at the same time on another request, a
 * whole buffer along axis 0 from coordinate 0; an empty box.
 */
static void test_bcast(dmd_rt *rt)
{
	int64_t bx_root[2] = { 4, 6 }, lo_root[2] = { 1, 2 };
	int64_t bx_other[2] = { 5, 5 }, lo_other[2] = { 2, 1 };
	int64_t cnt[2] = { 2, 3 }, zero[2] = { 0, 0 }, empty[2] = { 2, 0 };
	int64_t n7 = 7, z = 0;
	int root_rank = c0 * 2 + 1;
	dmd_req *q1 = dmd_req_new(rt, 1, 0, "A: broadcast along y");
	dmd_req *q2 = dmd_req_new(rt, 2, 0, "W: broadcast along x");
	dmd_req *q3 = dmd_req_new(rt, 3, 0, "E: empty broadcast");
	void *a = dmd_alloc(rt, 30), *w = dmd_alloc(rt, 7);

	for (int64_t k = 0; k < 30; ++k)
		set(a, k, c1 == 1 ? 1000 * rank + k : -1);
	for (int64_t k = 0; k < 7; ++k)
		set(w, k, c0 == 0 ? 10 * c1 + k : -1);
	if (c1 == 1)
		dmd_ibcast(rt, q1, 1, 1, a, 2, bx_root, lo_root, cnt);
	else
		dmd_ibcast(rt, q1, 1, 1, a, 2, bx_other, lo_other, cnt);
	dmd_ibcast(rt, q2, 0, 0, w, 1, &n7, &z, &n7);
	dmd_ibcast(rt, q3, 1, 0, a, 2, bx_other, zero, empty);
	dmd_wait(rt, q3);
	dmd_wait(rt, q2);
	dmd_wait(rt, q1);
	if (c1 == 1) {
		for (int64_t k = 0; k < 30; ++k)
			CHECK(get(a, k) == 1000 * rank + k, "root changed");
	} else {
		for (int64_t i = 0; i < 5; ++i)
			for (int64_t j = 0; j < 5; ++j) {
				double want = -1;

				if (i >= 2 && i < 4 && j >= 1 && j < 4)
					want = 1000 * root_rank +
						(i - 2 + 1) * 6 + (j - 1 + 2);
				CHECK(get(a, i * 5 + j) == want,
					"bcast [%lld][%lld] = %g, want %g",
					(long long) i, (long long) j,
					get(a, i * 5 + j), want);
			}
		expect_recv(0, 6);
	}
	for (int64_t k = 0; k < 7; ++k)
		CHECK(get(w, k) == 10 * c1 + k, "whole bcast [%lld] = %g",
			(long long) k, get(w, k));
	if (c0 != 0)
		expect_recv(0, 7);
	section("ibcast");
}

/* Shifts (step 0): along axis 0 by 1 (box (0, 1) 3x2 of a 3x4 buffer,
 * received at (1, 1) of a 4x3 buffer); along axis 1 by 3 (== 1 mod 2) with
 * whole buffers, in flight together; along axis 1 by 2 (to itself: not
 * counted); along axis 0 with an empty box sent by the c0 == 0 ranks (so
 * the c0 == 1 ranks receive nothing).
 */
static void test_shift(dmd_rt *rt)
{
	int64_t sx[2] = { 3, 4 }, slo[2] = { 0, 1 }, cnt[2] = { 3, 2 };
	int64_t rx[2] = { 4, 3 }, rlo[2] = { 1, 1 }, ecnt[2] = { 3, 0 };
	int64_t n5 = 5, z = 0;
	int src = ((c0 + 1) % 2) * 2 + c1;
	dmd_req *q1 = dmd_req_new(rt, 4, 0, "B: shift along x");
	dmd_req *q2 = dmd_req_new(rt, 5, 0, "W: shift along y");
	dmd_req *q3 = dmd_req_new(rt, 6, 0, "W: self shift");
	dmd_req *q4 = dmd_req_new(rt, 7, 0, "B: half-empty shift");
	void *sb = dmd_alloc(rt, 12), *rb = dmd_alloc(rt, 12);
	void *w = dmd_alloc(rt, 5), *w2 = dmd_alloc(rt, 5);
	void *w3 = dmd_alloc(rt, 5);

	for (int64_t k = 0; k < 12; ++k) {
		set(sb, k, 100 * rank + k);
		set(rb, k, -1);
	}
	for (int64_t k = 0; k < 5; ++k)
		set(w, k, 10 * rank + k);
	dmd_ishift(rt, q1, 0, 1, sb, 2, sx, slo, cnt, rb, rx, rlo, cnt);
	dmd_ishift(rt, q2, 1, 3, w, 1, &n5, &z, &n5, w2, &n5, &z, &n5);
	dmd_wait(rt, q2);
	dmd_wait(rt, q1);
	for (int64_t i = 0; i < 4; ++i)
		for (int64_t j = 0; j < 3; ++j) {
			double want = -1;

			if (i >= 1 && j >= 1)
				want = 100 * src + (i - 1) * 4 + (j - 1 + 1);
			CHECK(get(rb, i * 3 + j) == want,
				"shift [%lld][%lld] = %g, want %g",
				(long long) i, (long long) j,
				get(rb, i * 3 + j), want);
		}
	expect_recv(0, 6);
	for (int64_t k = 0; k < 5; ++k)
		CHECK(get(w2, k) == 10 * (c0 * 2 + 1 - c1) + k,
			"shift axis 1 [%lld] = %g", (long long) k, get(w2, k));
	expect_recv(0, 5);

	dmd_ishift(rt, q3, 1, 2, w, 1, &n5, &z, &n5, w3, &n5, &z, &n5);
	dmd_wait(rt, q3);
	for (int64_t k = 0; k < 5; ++k)
		CHECK(get(w3, k) == 10 * rank + k, "self shift");

	fill(rb, 12, -1);
	dmd_ishift(rt, q4, 0, 1, sb, 2, sx, slo, c0 == 0 ? ecnt : cnt, rb, rx,
		rlo, c0 == 1 ? ecnt : cnt);
	dmd_wait(rt, q4);
	for (int64_t i = 0; i < 4; ++i)
		for (int64_t j = 0; j < 3; ++j) {
			double want = -1;

			if (c0 == 0 && i >= 1 && j >= 1)
				want = 100 * src + (i - 1) * 4 + (j - 1 + 1);
			CHECK(get(rb, i * 3 + j) == want,
				"half-empty shift [%lld][%lld] = %g, want %g",
				(long long) i, (long long) j,
				get(rb, i * 3 + j), want);
		}
	if (c0 == 0)
		expect_recv(0, 6);
	section("ishift");
}

/* Views (step 0): "line" (axis 2, l = rank) over the 4 ranks and
 * "three" (axes 3 and 4: (p, q) = (r // 3, r % 3), shape [1, 3]) over
 * ranks 0-2.  Coordinates, a broadcast along l from coordinate 2, a
 * broadcast along q from coordinate 1 that rank 3 (off the view) takes
 * no part in, and a ring shift along q by 1 on ranks 0-2.
 */
static void test_views(dmd_rt *rt)
{
	int64_t n3 = 3, z = 0, none = 0;
	dmd_req *q1 = dmd_req_new(rt, 21, 0, "L: broadcast along l");
	dmd_req *q2 = dmd_req_new(rt, 22, 0, "Q: broadcast along q");
	dmd_req *q3 = dmd_req_new(rt, 23, 0, "Q: shift along q");
	void *a = dmd_alloc(rt, 3), *b = dmd_alloc(rt, 3);
	void *c = dmd_alloc(rt, 3);

	CHECK(dmd_coord(rt, 2) == rank, "dmd_coord l");
	/* rank 3 lies past "three": (3 // 3, 3 % 3) = (1, 0) */
	CHECK(dmd_coord(rt, 3) == rank / 3, "dmd_coord p");
	CHECK(dmd_coord(rt, 4) == rank % 3, "dmd_coord q");
	for (int64_t k = 0; k < 3; ++k) {
		set(a, k, rank == 2 ? 50 + k : -1);
		set(b, k, rank == 1 ? 70 + k : -1);
	}
	dmd_ibcast(rt, q1, 2, 2, a, 1, &n3, &z, &n3);
	dmd_ibcast(rt, q2, 4, 1, b, 1, &n3, &z, rank < 3 ? &n3 : &none);
	dmd_wait(rt, q2);
	dmd_wait(rt, q1);
	for (int64_t k = 0; k < 3; ++k) {
		CHECK(get(a, k) == 50 + k, "bcast along l [%lld] = %g",
			(long long) k, get(a, k));
		CHECK(get(b, k) == (rank < 3 ? 70 + k : -1),
			"bcast along q [%lld] = %g", (long long) k, get(b, k));
	}
	if (rank != 2)
		expect_recv(0, 3);
	if (rank == 0 || rank == 2)
		expect_recv(0, 3);
	for (int64_t k = 0; k < 3; ++k) {
		set(b, k, 10 * rank + k);
		set(c, k, -1);
	}
	dmd_ishift(rt, q3, 4, 1, b, 1, &n3, &z, rank < 3 ? &n3 : &none, c,
		&n3, &z, rank < 3 ? &n3 : &none);
	dmd_wait(rt, q3);
	for (int64_t k = 0; k < 3; ++k)
		CHECK(get(c, k) == (rank < 3 ? 10 * ((rank + 1) % 3) + k : -1),
			"shift along q [%lld] = %g", (long long) k, get(c, k));
	if (rank < 3)
		expect_recv(0, 3);
	section("views");
}

/* Point-to-point transfers (step 1) with the rank across axis 1: a
 * strided 2x2 box received into a 2x2 box of a 5x5 buffer, an empty box
 * to the diagonal rank, a strided box to itself (not counted); then three
 * requests in flight at once between the same pair of ranks (tags 11, 12,
 * 13), posted in different orders on the two sides and waited for out of
 * order.
 */
static void test_p2p(dmd_rt *rt)
{
	int64_t sx[2] = { 4, 3 }, blo[2] = { 1, 0 }, bcnt[2] = { 2, 2 };
	int64_t r1x[2] = { 5, 5 }, r1lo[2] = { 0, 3 };
	int64_t zero2[2] = { 0, 0 }, empty[2] = { 0, 3 }, selfx[2] = { 2, 2 };
	int64_t peer[2] = { c0, 1 - c1 }, diag[2] = { 1 - c0, 1 - c1 };
	int64_t self[2] = { c0, c1 }, n6 = 6, z = 0;
	int prank = c0 * 2 + 1 - c1;
	dmd_req *q = dmd_req_new(rt, 10, 1, "P: point to point");
	dmd_req *m[3];
	void *sb = dmd_alloc(rt, 12), *r1 = dmd_alloc(rt, 25);
	void *me = dmd_alloc(rt, 4), *x[3], *y[3];

	for (int64_t k = 0; k < 12; ++k)
		set(sb, k, 100 * rank + k);
	fill(r1, 25, -1);
	dmd_irecv(rt, q, peer, r1, 2, r1x, r1lo, bcnt);
	dmd_isend(rt, q, peer, sb, 2, sx, blo, bcnt);
	dmd_isend(rt, q, diag, sb, 2, sx, zero2, empty);
	dmd_irecv(rt, q, diag, r1, 2, r1x, zero2, empty);
	dmd_irecv(rt, q, self, me, 2, selfx, zero2, bcnt);
	dmd_isend(rt, q, self, sb, 2, sx, blo, bcnt);
	dmd_wait(rt, q);
	dmd_wait(rt, q);
	for (int64_t i = 0; i < 5; ++i)
		for (int64_t j = 0; j < 5; ++j) {
			double want = -1;

			if (i < 2 && j >= 3)
				want = 100 * prank + (1 + i) * 3 + (j - 3);
			CHECK(get(r1, i * 5 + j) == want,
				"p2p [%lld][%lld] = %g, want %g", (long long) i,
				(long long) j, get(r1, i * 5 + j), want);
		}
	for (int64_t i = 0; i < 2; ++i)
		for (int64_t j = 0; j < 2; ++j)
			CHECK(get(me, i * 2 + j) == 100 * rank + (1 + i) * 3 + j,
				"p2p self [%lld][%lld]", (long long) i,
				(long long) j);
	expect_recv(1, 4);

	for (int k = 0; k < 3; ++k) {
		char label[32];

		snprintf(label, sizeof(label), "M%d: pair", k);
		m[k] = dmd_req_new(rt, 11 + k, 1, label);
		x[k] = dmd_alloc(rt, 6);
		y[k] = dmd_alloc(rt, 6);
		for (int64_t i = 0; i < 6; ++i)
			set(x[k], i, 1000 * k + 10 * rank + i);
		fill(y[k], 6, -1);
	}
	for (int k = 0; k < 3; ++k) {
		int kk = c1 ? 2 - k : k;

		dmd_isend(rt, m[kk], peer, x[kk], 1, &n6, &z, &n6);
	}
	for (int k = 0; k < 3; ++k) {
		int kk = (k + 1 + c1) % 3;

		dmd_irecv(rt, m[kk], peer, y[kk], 1, &n6, &z, &n6);
	}
	dmd_wait(rt, m[1]);
	dmd_wait(rt, m[2]);
	dmd_wait(rt, m[0]);
	for (int k = 0; k < 3; ++k) {
		for (int64_t i = 0; i < 6; ++i)
			CHECK(get(y[k], i) == 1000 * k + 10 * prank + i,
				"pair %d [%lld] = %g", k, (long long) i,
				get(y[k], i));
		expect_recv(1, 6);
	}
	section("p2p-several-in-flight");
}

/* Combed point-to-point transfers (step 1) with the rank across axis 1:
 * the box (1, 0) 4x7 of a 5x7 buffer, rows combed { 2, 0, 1 } (offsets
 * 0, 2: rows 1 and 3) and columns { 4, 1, 2 } (offsets u with
 * (u + 1) mod 4 < 2: 0, entered in the middle of its run, 3, 4), lands
 * at (1, 1) of a 6x8 buffer: 6 elements in one message, the others
 * untouched; then a comb that lets
 * every element through ({ 1, 0, 1 }) and one that lets none of a box
 * through (nothing posted, nothing counted).
 */
static void test_comb(dmd_rt *rt)
{
	int64_t sx[2] = { 5, 7 }, slo[2] = { 1, 0 }, cnt[2] = { 4, 7 };
	int64_t rx[2] = { 6, 8 }, rlo[2] = { 1, 1 };
	int64_t comb[6] = { 2, 0, 1, 4, 1, 2 }, all[6] = { 1, 0, 1, 1, 0, 1 };
	int64_t one[2] = { 1, 2 }, none[6] = { 3, 1, 1, 1, 0, 1 };
	int64_t peer[2] = { c0, 1 - c1 };
	int prank = c0 * 2 + 1 - c1;
	dmd_req *q = dmd_req_new(rt, 14, 1, "C: combed");
	void *sb = dmd_alloc(rt, 35), *rb = dmd_alloc(rt, 48);
	void *ab = dmd_alloc(rt, 2);

	for (int64_t k = 0; k < 35; ++k)
		set(sb, k, 100 * rank + k);
	fill(rb, 48, -1);
	fill(ab, 2, -1);
	dmd_irecv_comb(rt, q, peer, rb, 2, rx, rlo, cnt, comb);
	dmd_isend_comb(rt, q, peer, sb, 2, sx, slo, cnt, comb);
	dmd_irecv_comb(rt, q, peer, ab, 2, one, (const int64_t[]){ 0, 0 },
		one, all);
	dmd_isend_comb(rt, q, peer, sb, 2, sx, (const int64_t[]){ 4, 5 },
		one, all);
	dmd_irecv_comb(rt, q, peer, rb, 2, rx, (const int64_t[]){ 0, 0 },
		one, none);
	dmd_isend_comb(rt, q, peer, sb, 2, sx, (const int64_t[]){ 0, 0 },
		one, none);
	dmd_wait(rt, q);
	for (int64_t i = 0; i < 6; ++i)
		for (int64_t j = 0; j < 8; ++j) {
			int64_t u = i - 1, v = j - 1;
			double want = -1;

			if (u >= 0 && u < 4 && v >= 0 && v < 7 && u % 2 == 0 &&
			    (v + 1) % 4 < 2)
				want = 100 * prank + (1 + u) * 7 + v;
			CHECK(get(rb, i * 8 + j) == want,
				"comb [%lld][%lld] = %g, want %g", (long long) i,
				(long long) j, get(rb, i * 8 + j), want);
		}
	for (int64_t j = 0; j < 2; ++j)
		CHECK(get(ab, j) == 100 * prank + 4 * 7 + 5 + j,
			"comb all [%lld] = %g", (long long) j, get(ab, j));
	expect_recv(1, 6);
	expect_recv(1, 2);
	section("p2p-comb");
}

/* Six runs per period (more than the 4 a comb had before, of
 * DMD_RT_MAX_RUNS 8), step 1, with the rank across axis 1: the row of a
 * 1x20 buffer, columns { P 13, a 0, [0, 1), [2, 3), [4, 5), [6, 7),
 * [8, 9), [10, 12) }: u = 0 2 4 6 8 10 11 13 15 17 19 (11 elements, the
 * second period cut short), land at 0 of a 1x20 buffer.
 */
static void test_combs_six(dmd_rt *rt)
{
	int64_t x[2] = { 1, 20 }, lo[2] = { 0, 0 }, cnt[2] = { 1, 20 };
	int64_t comb[26] = { 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		13, 0, 1, 2, 1, 4, 1, 6, 1, 8, 1, 10, 2 };
	int64_t peer[2] = { c0, 1 - c1 };
	int prank = c0 * 2 + 1 - c1;
	dmd_req *q = dmd_req_new(rt, 16, 1, "D: combed, six runs");
	void *sb = dmd_alloc(rt, 20), *rb = dmd_alloc(rt, 20);

	for (int64_t k = 0; k < 20; ++k)
		set(sb, k, 100 * rank + k);
	fill(rb, 20, -1);
	dmd_irecv_combs(rt, q, peer, rb, 2, x, lo, cnt, 6, comb);
	dmd_isend_combs(rt, q, peer, sb, 2, x, lo, cnt, 6, comb);
	dmd_wait(rt, q);
	for (int64_t j = 0; j < 20; ++j) {
		int64_t r = j % 13;
		double want = -1;

		if (r == 0 || r == 2 || r == 4 || r == 6 || r == 8 ||
		    r == 10 || r == 11)
			want = 100 * prank + j;
		CHECK(get(rb, j) == want, "combs six [%lld] = %g, want %g",
			(long long) j, get(rb, j), want);
	}
	expect_recv(1, 11);
}

/* Combs of several runs per period (step 1) with the rank across axis
 * 1: the box (1, 1) 2x12 of a 3x14 buffer, rows whole ({ 1, 0, 1 } and
 * two empty runs), columns { P 10, a 3, [0, 2), [5, 6), none }: the u
 * with (u + 3) mod 10 in { 0, 1, 5 }, u = 2, 7, 8 (a run entered at its
 * start, a run of one, a third run empty), land at (2, 0) of a 4x13
 * buffer: 6 elements in one message, the others untouched.
 */
static void test_combs(dmd_rt *rt)
{
	int64_t sx[2] = { 3, 14 }, slo[2] = { 1, 1 }, cnt[2] = { 2, 12 };
	int64_t rx[2] = { 4, 13 }, rlo[2] = { 2, 0 };
	int64_t comb[14] = { 1, 0, 1, 0, 0, 0, 0, 10, 3, 2, 5, 1, 9, 0 };
	int64_t peer[2] = { c0, 1 - c1 };
	int prank = c0 * 2 + 1 - c1;
	dmd_req *q = dmd_req_new(rt, 15, 1, "C: combed, several runs");
	void *sb = dmd_alloc(rt, 42), *rb = dmd_alloc(rt, 52);

	for (int64_t k = 0; k < 42; ++k)
		set(sb, k, 100 * rank + k);
	fill(rb, 52, -1);
	dmd_irecv_combs(rt, q, peer, rb, 2, rx, rlo, cnt, 3, comb);
	dmd_isend_combs(rt, q, peer, sb, 2, sx, slo, cnt, 3, comb);
	dmd_wait(rt, q);
	for (int64_t i = 0; i < 4; ++i)
		for (int64_t j = 0; j < 13; ++j) {
			double want = -1;

			if (i >= 2 && (j == 2 || j == 7 || j == 8))
				want = 100 * prank + (i - 1) * 14 + 1 + j;
			CHECK(get(rb, i * 13 + j) == want,
				"combs [%lld][%lld] = %g, want %g",
				(long long) i, (long long) j,
				get(rb, i * 13 + j), want);
		}
	expect_recv(1, 6);
	test_combs_six(rt);
	section("p2p-combs");
}

/* Partial sums (step 1): every rank adds the 2x3 contributions of the
 * three others (dmd_irecv_sum, from strided boxes) and its own
 * (dmd_copy_sum) into a box of a 4x5 buffer that starts at 1.
 */
static void test_sums(dmd_rt *rt)
{
	int64_t sx[2] = { 3, 4 }, slo[2] = { 1, 1 }, cnt[2] = { 2, 3 };
	int64_t dx[2] = { 4, 5 }, dlo[2] = { 1, 2 };
	dmd_req *q = dmd_req_new(rt, 20, 1, "C: partial sums");
	void *s = dmd_alloc(rt, 12), *d = dmd_alloc(rt, 20);

	for (int64_t k = 0; k < 12; ++k)
		set(s, k, (rank + 1) * (k + 1));
	fill(d, 20, 1);
	for (int r = 0; r < 4; ++r) {
		int64_t pc[2] = { r / 2, r % 2 };

		if (r == rank)
			continue;
		dmd_irecv_sum(rt, q, pc, d, 2, dx, dlo, cnt);
		dmd_isend(rt, q, pc, s, 2, sx, slo, cnt);
		expect_recv(1, 6);
	}
	dmd_copy_sum(rt, d, 2, dx, dlo, s, sx, slo, cnt);
	dmd_wait(rt, q);
	for (int64_t i = 0; i < 4; ++i)
		for (int64_t j = 0; j < 5; ++j) {
			double want = 1;

			if (i >= 1 && i < 3 && j >= 2) {
				int64_t k = (i - 1 + 1) * 4 + (j - 2 + 1);

				want = 1 + (1 + 2 + 3 + 4) * (k + 1);
			}
			CHECK(get(d, i * 5 + j) == want,
				"sum [%lld][%lld] = %g, want %g", (long long) i,
				(long long) j, get(d, i * 5 + j), want);
		}
	section("irecv-sum");
}

/* Local copies of 3-D, 1-D and 0-D boxes; a strided dmd_copy_sum. */
static void test_copy(dmd_rt *rt)
{
	int64_t e3s[3] = { 3, 4, 5 }, l3s[3] = { 1, 1, 2 }, c3[3] = { 2, 2, 3 };
	int64_t e3d[3] = { 2, 3, 4 }, l3d[3] = { 0, 1, 0 };
	int64_t e1 = 6, l1s = 1, l1d = 3, c1n = 3, e0[2] = { 3, 3 };
	int64_t z2[2] = { 1, 1 }, ec[2] = { 0, 4 };
	void *s3 = dmd_alloc(rt, 60), *d3 = dmd_alloc(rt, 24);
	void *s1 = dmd_alloc(rt, 6), *d1 = dmd_alloc(rt, 6);

	for (int64_t k = 0; k < 60; ++k)
		set(s3, k, k);
	fill(d3, 24, -1);
	for (int64_t k = 0; k < 6; ++k)
		set(s1, k, k);
	fill(d1, 6, -1);
	dmd_copy(rt, d3, 3, e3d, l3d, s3, e3s, l3s, c3);
	dmd_copy(rt, d1, 1, &e1, &l1d, s1, &e1, &l1s, &c1n);
	dmd_copy(rt, d1, 0, NULL, NULL, (char *) s1 + bytes(5), NULL, NULL,
		NULL);
	dmd_copy(rt, d1, 2, e0, z2, s1, e0, z2, ec);
	for (int64_t i = 0; i < 2; ++i)
		for (int64_t j = 0; j < 3; ++j)
			for (int64_t k = 0; k < 4; ++k) {
				double want = -1;

				if (j >= 1 && k < 3)
					want = (1 + i) * 20 + (j - 1 + 1) * 5 +
						(k + 2);
				CHECK(get(d3, (i * 3 + j) * 4 + k) == want,
					"copy 3-D [%lld][%lld][%lld] = %g",
					(long long) i, (long long) j,
					(long long) k,
					get(d3, (i * 3 + j) * 4 + k));
			}
	CHECK(get(d1, 0) == 5, "copy 0-D = %g", get(d1, 0));
	for (int64_t k = 1; k < 6; ++k)
		CHECK(get(d1, k) == (k >= 3 ? k - 2 : -1),
			"copy 1-D [%lld] = %g", (long long) k, get(d1, k));
	dmd_copy_sum(rt, d3, 3, e3d, l3d, s3, e3s, l3s, c3);
	for (int64_t i = 0; i < 2; ++i)
		for (int64_t j = 1; j < 3; ++j)
			for (int64_t k = 0; k < 3; ++k)
				CHECK(get(d3, (i * 3 + j) * 4 + k) ==
					2 * ((1 + i) * 20 + j * 5 + k + 2),
					"copy_sum 3-D");
	section("copy");
}

/* The datatype cache (step 1, to itself: no stats): a strided box makes
 * one new type; the same transfer again (other buffers, other origin)
 * none; contiguous boxes none; a 3-D box whose two inner dimensions are
 * whole makes one, and a 2-D box with the same layout in memory reuses
 * it.
 */
static void test_cache(dmd_rt *rt)
{
	int64_t bx[2] = { 9, 11 }, lo[2] = { 2, 3 }, lo2[2] = { 5, 7 };
	int64_t cnt[2] = { 3, 2 }, rows[2] = { 2, 11 }, one[2] = { 1, 5 };
	int64_t bx3[3] = { 5, 3, 4 }, lo3[3] = { 1, 0, 0 }, c3[3] = { 2, 3, 4 };
	int64_t bx3s[3] = { 5, 6, 4 }, c2[2] = { 2, 12 }, bx2[2] = { 5, 24 };
	int64_t lo2d[2] = { 1, 0 }, lo2r[2] = { 2, 0 }, z2[2] = { 0, 0 };
	int64_t lo1r[2] = { 5, 6 }, z3[3] = { 0, 0, 0 };
	int64_t self[2] = { c0, c1 };
	dmd_req *q = dmd_req_new(rt, 30, 1, "K: cache");
	void *a = dmd_alloc(rt, 99), *b = dmd_alloc(rt, 99);
	void *c = dmd_alloc(rt, 120), *d = dmd_alloc(rt, 120);
	int n0, n;

	for (int64_t k = 0; k < 99; ++k)
		set(a, k, k);
	n0 = dmd_rt_debug_ntypes(rt);
	dmd_irecv(rt, q, self, b, 2, bx, lo2, cnt);
	dmd_isend(rt, q, self, a, 2, bx, lo, cnt);
	dmd_wait(rt, q);
	n = dmd_rt_debug_ntypes(rt);
	CHECK(n == n0 + 1, "a strided box made %d types", n - n0);
	for (int64_t i = 0; i < 3; ++i)
		for (int64_t j = 0; j < 2; ++j)
			CHECK(get(b, (5 + i) * 11 + 7 + j) ==
				(2 + i) * 11 + 3 + j, "cache transfer");
	dmd_irecv(rt, q, self, c, 2, bx, lo, cnt);
	dmd_isend(rt, q, self, b, 2, bx, lo2, cnt);
	dmd_wait(rt, q);
	CHECK(dmd_rt_debug_ntypes(rt) == n, "the same transfer made %d "
		"new types", dmd_rt_debug_ntypes(rt) - n);
	for (int64_t i = 0; i < 3; ++i)
		for (int64_t j = 0; j < 2; ++j)
			CHECK(get(c, (2 + i) * 11 + 3 + j) ==
				(2 + i) * 11 + 3 + j, "cache transfer again");
	dmd_irecv(rt, q, self, d, 2, bx, lo2r, rows);
	dmd_isend(rt, q, self, a, 2, bx, lo2d, rows);
	dmd_irecv(rt, q, self, d, 2, bx, lo1r, one);
	dmd_isend(rt, q, self, a, 2, bx, lo, one);
	dmd_wait(rt, q);
	CHECK(dmd_rt_debug_ntypes(rt) == n, "contiguous boxes made %d types",
		dmd_rt_debug_ntypes(rt) - n);
	for (int64_t j = 0; j < 22; ++j)
		CHECK(get(d, 2 * 11 + j) == 11 + j, "rows [%lld] = %g",
			(long long) j, get(d, 2 * 11 + j));
	for (int64_t j = 0; j < 5; ++j)
		CHECK(get(d, 5 * 11 + 6 + j) == 2 * 11 + 3 + j, "one row");

	for (int64_t k = 0; k < 120; ++k)
		set(c, k, k);
	fill(d, 120, -1);
	dmd_irecv(rt, q, self, d, 3, bx3s, z3, c3);
	dmd_isend(rt, q, self, c, 3, bx3, lo3, c3);
	dmd_wait(rt, q);
	CHECK(dmd_rt_debug_ntypes(rt) == n + 1, "a 3-D box made %d types",
		dmd_rt_debug_ntypes(rt) - n);
	for (int64_t i = 0; i < 2; ++i)
		for (int64_t k = 0; k < 12; ++k)
			CHECK(get(d, i * 24 + k) == (1 + i) * 12 + k,
				"3-D [%lld][%lld] = %g", (long long) i,
				(long long) k, get(d, i * 24 + k));
	dmd_irecv(rt, q, self, c, 2, bx2, z2, c2);
	dmd_isend(rt, q, self, d, 2, bx2, z2, c2);
	dmd_wait(rt, q);
	CHECK(dmd_rt_debug_ntypes(rt) == n + 1, "the same layout in 2-D made "
		"%d types", dmd_rt_debug_ntypes(rt) - n - 1);
	section("datatype-cache");
}

/* A naive C += op(A) op(B) in double, and a bound of the rounding error
 * (the sum of |terms|).
 */
static void naive(int ta, int tb, int64_t M, int64_t N, int64_t K,
	const void *A, int64_t lda, const void *B, int64_t ldb, double *ref,
	double *bound, const void *C0, int64_t ldc)
{
	for (int64_t i = 0; i < M; ++i)
		for (int64_t j = 0; j < N; ++j) {
			double s = get(C0, i * ldc + j), b = fabs(s);

			for (int64_t k = 0; k < K; ++k) {
				double x = get(A, ta ? k * lda + i : i * lda + k);
				double y = get(B, tb ? j * ldb + k : k * ldb + j);

				s += x * y;
				b += fabs(x * y);
			}
			ref[i * N + j] = s;
			bound[i * N + j] = b;
		}
}

/* The number of panels dmd_gemm should cut an M x N x K product into
 * while "bytes" are in flight (0: one call), by the rule of
 * runtime/dmd_rt_blas.c: one panel per 256 KiB in flight, 4 to 64 of
 * them, none under 4 Mflop nor 384 rows, heights multiples of 48 rows.
 */
static int64_t expected_panels(int64_t M, int64_t N, int64_t K,
	int64_t bytes)
{
	int64_t np = bytes / (256 * 1024), h, hmin;

	np = np < 4 ? 4 : np > 64 ? 64 : np;
	h = (M + np - 1) / np;
	hmin = 4 * 1024 * 1024 / 2 / N / K + 1;
	h = h < hmin ? hmin : h;
	h = h < 384 ? 384 : h;
	h = (h + 47) / 48 * 48;
	return h >= M ? 0 : (M + h - 1) / h;
}

/* One product M x N x K with transposes ta, tb and leading dimensions 3
 * larger than needed: once alone (one BLAS call), once with a transfer
 * of 400000 elements in flight to and from the other rank (in panels:
 * check that as many as expected ran, at least "min_panels", and that the
 * result is bitwise the same), both against the naive product.
 */
static void gemm_case(dmd_rt *rt, dmd_req *q, int ta, int tb, int64_t M,
	int64_t N, int64_t K, int64_t min_panels, void *big, void *bigr)
{
	int64_t lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 3, ldc = N + 3;
	int64_t na = (ta ? K : M) * lda, nb = (tb ? N : K) * ldb, nc = M * ldc;
	int64_t peer[1] = { 1 - rank }, nbig = 400000, z = 0, p0;
	void *A = malloc(bytes(na)), *B = malloc(bytes(nb));
	void *C1 = malloc(bytes(nc)), *C2 = malloc(bytes(nc));
	void *C0 = malloc(bytes(nc));
	double *ref = malloc(M * N * sizeof(double));
	double *bound = malloc(M * N * sizeof(double));
	double tol = f64 ? 1e-13 : 1e-5;

	srand(1234 + ta * 2 + tb);
	for (int64_t k = 0; k < na; ++k)
		set(A, k, rand() % 2001 / 1000.0 - 1);
	for (int64_t k = 0; k < nb; ++k)
		set(B, k, rand() % 2001 / 1000.0 - 1);
	for (int64_t k = 0; k < nc; ++k)
		set(C0, k, rand() % 201 / 100.0 - 1);
	memcpy(C1, C0, bytes(nc));
	memcpy(C2, C0, bytes(nc));
	naive(ta, tb, M, N, K, A, lda, B, ldb, ref, bound, C0, ldc);

	p0 = dmd_rt_debug_panels(rt);
	dmd_gemm(rt, ta, tb, M, N, K, A, lda, B, ldb, C1, ldc);
	CHECK(dmd_rt_debug_panels(rt) == p0, "panels with nothing in flight");

	for (int64_t k = 0; k < nbig; ++k)
		set(big, k, rank * 1000000 + k % 1000);
	fill(bigr, nbig, -1);
	dmd_irecv(rt, q, peer, bigr, 1, &nbig, &z, &nbig);
	dmd_isend(rt, q, peer, big, 1, &nbig, &z, &nbig);
	dmd_gemm(rt, ta, tb, M, N, K, A, lda, B, ldb, C2, ldc);
	CHECK(dmd_rt_debug_panels(rt) - p0 == expected_panels(M, N, K,
		2 * bytes(nbig)) && dmd_rt_debug_panels(rt) - p0 >= min_panels,
		"%lld panels, want %lld (at least %lld)",
		(long long) (dmd_rt_debug_panels(rt) - p0),
		(long long) expected_panels(M, N, K, 2 * bytes(nbig)),
		(long long) min_panels);
	dmd_wait(rt, q);
	for (int64_t k = 0; k < nbig; k += 997)
		CHECK(get(bigr, k) == (1 - rank) * 1000000 + k % 1000,
			"transfer during gemm [%lld]", (long long) k);

	CHECK(!memcmp(C1, C2, bytes(nc)), "panels differ from one call "
		"(ta %d tb %d M %lld N %lld)", ta, tb, (long long) M,
		(long long) N);
	for (int64_t i = 0; i < M; ++i) {
		for (int64_t j = 0; j < N; ++j) {
			double c = get(C1, i * ldc + j);

			CHECK(fabs(c - ref[i * N + j]) <=
				tol * bound[i * N + j], "gemm ta %d tb %d "
				"[%lld][%lld] = %.17g, want %.17g", ta, tb,
				(long long) i, (long long) j, c,
				ref[i * N + j]);
		}
		for (int64_t j = N; j < ldc; ++j)
			CHECK(get(C1, i * ldc + j) == get(C0, i * ldc + j),
				"gemm wrote beyond N");
	}
	free(A);
	free(B);
	free(C0);
	free(C1);
	free(C2);
	free(ref);
	free(bound);
}

/* dmd_gemm in the job's dtype: the 4 transpose cases with many row
 * panels (M = 2000: 6 panels of 384 rows; M = 600: 2), 2 (M = 1000, but
 * N x K is small: 4 Mflop per panel) and none (M = 70 is too small to
 * cut); extents of 0 are no-ops
 * (even with leading dimensions of 0).
 */
static void test_gemm(dmd_rt *rt)
{
	dmd_req *q = dmd_req_new(rt, 40, -1, "G: during gemm");
	void *big = dmd_alloc(rt, 400000), *bigr = dmd_alloc(rt, 400000);
	void *c = dmd_alloc(rt, 4);

	for (int ta = 0; ta < 2; ++ta)
		for (int tb = 0; tb < 2; ++tb) {
			gemm_case(rt, q, ta, tb, 2000, 200, 100, 6, big, bigr);
			gemm_case(rt, q, ta, tb, 600, 300, 200, 2, big, bigr);
			gemm_case(rt, q, ta, tb, 1000, 77, 33, 2, big, bigr);
			gemm_case(rt, q, ta, tb, 70, 600, 50, 0, big, bigr);
		}
	fill(c, 4, 3);
	dmd_gemm(rt, 0, 0, 0, 2, 2, NULL, 0, c, 2, c, 2);
	dmd_gemm(rt, 0, 0, 2, 0, 2, c, 2, NULL, 0, c, 0);
	dmd_gemm(rt, 0, 0, 2, 2, 0, NULL, 0, NULL, 0, c, 2);
	for (int k = 0; k < 4; ++k)
		CHECK(get(c, k) == 3, "gemm with an extent 0 changed C");
	section("gemm");
}

/* A small product on every rank of the main test (for the trace). */
static void small_gemm(dmd_rt *rt)
{
	void *a = dmd_alloc(rt, 6), *b = dmd_alloc(rt, 6);
	void *c = dmd_alloc(rt, 4);

	for (int k = 0; k < 6; ++k) {
		set(a, k, k + 1);
		set(b, k, 1);
	}
	dmd_gemm(rt, 0, 0, 2, 2, 3, a, 3, b, 2, c, 2);
	CHECK(get(c, 0) == 6 && get(c, 3) == 15, "small gemm");
}

/* The BLAS advice (dmd_rt_blas_advice) for a few CPUs and kernels. */
static void test_blas_advice(void)
{
	char msg[512];

	CHECK(dmd_rt_blas_advice(1, 1, "Prescott", msg, sizeof(msg)) == 1 &&
		!strcmp(msg, "distmpmd: OpenBLAS uses its 'Prescott' kernels "
		"on this AVX-512 CPU (OpenBLAS does not know it): products may "
		"be 3-4x slower; try OPENBLAS_CORETYPE=SkylakeX (check the "
		"results: on some processors some kernels compute wrong "
		"results)"), "advice AVX-512/Prescott: %s", msg);
	CHECK(dmd_rt_blas_advice(0, 1, "Sandybridge", msg, sizeof(msg)) == 1 &&
		!strcmp(msg, "distmpmd: OpenBLAS uses its 'Sandybridge' kernels "
		"on this AVX2 CPU (OpenBLAS does not know it): products may "
		"be 3-4x slower; try OPENBLAS_CORETYPE=Haswell (check the "
		"results: on some processors some kernels compute wrong "
		"results)"), "advice AVX2/Sandybridge: %s", msg);
	CHECK(dmd_rt_blas_advice(1, 1, "Haswell", msg, sizeof(msg)) == 1 &&
		strstr(msg, "up to 2x slower; try OPENBLAS_CORETYPE=SkylakeX"),
		"advice AVX-512/Haswell: %s", msg);
	CHECK(dmd_rt_blas_advice(1, 1, "SkylakeX", msg, sizeof(msg)) == 0,
		"advice AVX-512/SkylakeX");
	CHECK(dmd_rt_blas_advice(1, 1, "cooperlake", msg, sizeof(msg)) == 0,
		"advice AVX-512/Cooperlake");
	CHECK(dmd_rt_blas_advice(0, 1, "Zen", msg, sizeof(msg)) == 0,
		"advice AVX2/Zen");
	CHECK(dmd_rt_blas_advice(0, 1, "Haswell", msg, sizeof(msg)) == 0,
		"advice AVX2/Haswell");
	CHECK(dmd_rt_blas_advice(0, 0, "Prescott", msg, sizeof(msg)) == 0,
		"advice no AVX2/Prescott");
	section("blas-advice");
}

/* Print the stats the runtime should report. */
static void print_expected(void)
{
	long long in[8] = { exp_bytes, exp_msgs, exp_sb[0], exp_sm[0],
		exp_sb[1], exp_sm[1], exp_sb[2], exp_sm[2] };
	long long sum[8], max = 0;
	long n_big, all_big = 0;
	int large = dmd_rt_debug_large_count(&n_big);

	MPI_Reduce(&n_big, &all_big, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(in, sum, 8, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(&exp_bytes, &max, 1, MPI_LONG_LONG, MPI_MAX, 0,
		MPI_COMM_WORLD);
	if (rank == 0) {
		printf("expect bytes_moved_total=%lld bytes_recv_max=%lld "
			"messages=%lld steps=%lld:%lld,%lld:%lld,%lld:%lld\n",
			sum[0], max, sum[1], sum[2], sum[3], sum[4], sum[5],
			sum[6], sum[7]);
		/* which calls the runtime makes (rt_test.sh, RT_MPI) */
		printf("mpi large_count=%d big_types=%s\n", large,
			all_big > 0 ? "some" : "none");
		fflush(stdout);
	}
}

/* The full test on a 2x2 mesh. */
static int main_mode(int *argc, char ***argv, int dtype)
{
	static const int shape[2] = { 2, 2 };
	static const char *const names[2] = { "x", "y" };
	static const char *const steps[3] = { "step 1: transfers",
		"step 2: sums", "step 3: never" };
	static const int64_t all[1][2] = { { 0, 3 } };
	static const int line_shape[1] = { 4 }, three_shape[2] = { 1, 3 };
	static const char *const line_axes[1] = { "l" };
	static const char *const three_axes[2] = { "p", "q" };
	static const dmd_view_desc views[2] = {
		{ "line", 1, line_shape, line_axes },
		{ "three", 2, three_shape, three_axes },
	};
	dmd_job_desc job = {
		.job = "rt_test", .n_axes = 2, .mesh_shape = shape,
		.axis_names = names, .nranks = 4, .nclasses = 1,
		.dtype = dtype, .flops = 1e6,
		.job_dir = "/nonexistent/rt_test/job/dir",
		.n_tensors = NT_MAIN, .tensors = main_tensors,
		.n_steps = 3, .step_labels = steps,
		.n_views = 2, .views = views,
	};
	dmd_rt *rt = dmd_init(argc, argv, &job, 0, 1, all);

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	c0 = rank / 2;
	c1 = rank % 2;
	test_mesh(rt);
	test_blas_advice();
	test_random(rt);
	test_write(rt);
	test_read_file(rt);
	dmd_compute_begin(rt);
	dmd_step_begin(rt, 0);
	test_bcast(rt);
	test_shift(rt);
	test_views(rt);
	dmd_step_end(rt, 0);
	dmd_step_begin(rt, 1);
	test_p2p(rt);
	test_comb(rt);
	test_combs(rt);
	test_sums(rt);
	small_gemm(rt);
	dmd_step_end(rt, 1);
	dmd_step_begin(rt, 1);
	test_copy(rt);
	test_cache(rt);
	dmd_step_end(rt, 1);
	usleep(20000);
	dmd_compute_end(rt);
	print_expected();
	return dmd_finish(rt);
}

/* dmd_gemm on a mesh of 2 ranks. */
static int gemm_mode(int *argc, char ***argv, int dtype)
{
	static const int shape[1] = { 2 };
	static const char *const names[1] = { "x" };
	static const int64_t all[1][2] = { { 0, 1 } };
	dmd_job_desc job = {
		.job = "rt_gemm", .n_axes = 1, .mesh_shape = shape,
		.axis_names = names, .nranks = 2, .nclasses = 1,
		.dtype = dtype, .flops = -1, .job_dir = "/",
	};
	dmd_rt *rt = dmd_init(argc, argv, &job, 0, 1, all);

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	test_gemm(rt);
	return dmd_finish(rt);
}

/* Write the 4x6 output C (10*i+j, two blocks of 2 rows, from buffers with
 * a ghost row) into "file" on a mesh of 2 ranks; "computed" says that
 * dmd_init let the program start.
 */
static int out_mode(int *argc, char ***argv, int dtype, const char *file)
{
	static const int shape[1] = { 2 };
	static const char *const names[1] = { "x" };
	static const int64_t all[1][2] = { { 0, 1 } };
	static const int64_t sh[2] = { 4, 6 };
	dmd_tensor_desc t[1] = { { "C", file, 0, 0, 2, sh, 1 } };
	dmd_job_desc job = {
		.job = "rt_out", .n_axes = 1, .mesh_shape = shape,
		.axis_names = names, .nranks = 2, .nclasses = 1,
		.dtype = dtype, .flops = -1, .job_dir = "/nonexistent",
		.n_tensors = 1, .tensors = t,
	};
	dmd_rt *rt = dmd_init(argc, argv, &job, 0, 1, all);
	int64_t lo[2], ext[2] = { 2, 6 }, bo[2], bx[2] = { 3, 6 };
	void *c = dmd_alloc(rt, 18);

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		printf("computed\n");
		fflush(stdout);
	}
	lo[0] = 2 * rank;
	lo[1] = 0;
	bo[0] = lo[0] - rank;
	bo[1] = 0;
	for (int64_t i = 0; i < 3; ++i)
		for (int64_t j = 0; j < 6; ++j)
			set(c, i * 6 + j, 10 * (bo[0] + i) + j);
	if (rank == 0)
		fill((char *) c + bytes(12), 6, -1);
	else
		fill(c, 6, -1);
	dmd_write(rt, 0, lo, ext, c, bo, bx, 1);
	return dmd_finish(rt);
}

/* Read the 6x5 in.npy relative to "job_dir" on one rank and check it. */
static int dir_mode(int *argc, char ***argv, int dtype, const char *job_dir)
{
	static const int shape[1] = { 1 };
	static const char *const names[1] = { "x" };
	static const int64_t all[1][2] = { { 0, 0 } };
	dmd_tensor_desc t[1] = { { "In", "in.npy", 0, 0, 2, sh65, 0 } };
	dmd_job_desc job = {
		.job = "rt_dir", .n_axes = 1, .mesh_shape = shape,
		.axis_names = names, .nranks = 1, .nclasses = 1,
		.dtype = dtype, .flops = -1, .job_dir = job_dir,
		.n_tensors = 1, .tensors = t,
	};
	dmd_rt *rt = dmd_init(argc, argv, &job, 0, 1, all);
	int64_t z[2] = { 0, 0 };
	void *in = dmd_alloc(rt, 30);

	rank = 0;
	dmd_read(rt, 0, z, sh65, in, z, sh65);
	check_block(in, z, sh65, z, sh65, -7, in_val, "in.npy");
	section("job-dir");
	return dmd_finish(rt);
}

/* The modes that must stop with an error: on 4 ranks (2x2) wrongcount
 * (started with 3), wrongclass (class 1 is ranks 0-1 and 2); on 2 ranks
 * missing, badshape, baddtype, badheader (reading B), fail (dmd_fail on
 * rank 1), unwaited (dmd_finish on rank 0 with a transfer in flight).
 */
static int error_mode(int *argc, char ***argv, int dtype, const char *mode)
{
	static const int shape4[2] = { 2, 2 }, shape2[1] = { 2 };
	static const char *const names[2] = { "x", "y" };
	static const int64_t all4[1][2] = { { 0, 3 } };
	static const int64_t all2[1][2] = { { 0, 1 } };
	static const int64_t some[2][2] = { { 0, 1 }, { 2, 2 } };
	static const int64_t sh[2] = { 64, 64 };
	dmd_tensor_desc t[1] = { { "B", "B.npy", 0, 0, 2, sh, 0 } };
	dmd_job_desc job = {
		.job = "rt_test", .n_axes = 1, .mesh_shape = shape2,
		.axis_names = names, .nranks = 2, .nclasses = 1,
		.dtype = dtype, .flops = -1, .job_dir = "/nonexistent",
		.n_tensors = 1, .tensors = t,
	};
	int64_t lo[2] = { 0, 0 }, ext[2] = { 32, 64 };
	dmd_rt *rt;
	void *b;

	if (!strcmp(mode, "missing"))
		t[0].file = "nope.npy";
	else if (!strcmp(mode, "baddtype"))
		t[0].file = "B64.npy";
	else if (!strcmp(mode, "badheader"))
		t[0].file = "garbage.npy";
	if (!strcmp(mode, "wrongcount") || !strcmp(mode, "wrongclass")) {
		job.n_axes = 2;
		job.mesh_shape = shape4;
		job.nranks = 4;
	}
	if (!strcmp(mode, "wrongclass"))
		rt = dmd_init(argc, argv, &job, 1, 2, some);
	else if (job.nranks == 4)
		rt = dmd_init(argc, argv, &job, 0, 1, all4);
	else
		rt = dmd_init(argc, argv, &job, 0, 1, all2);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	b = dmd_alloc(rt, 32 * 64);
	lo[0] = 32 * rank;
	if (!strcmp(mode, "fail")) {
		if (rank == 1)
			dmd_fail(rt, "deliberate failure %d", 7);
		MPI_Barrier(MPI_COMM_WORLD);
	} else if (!strcmp(mode, "unwaited")) {
		int64_t peer[1] = { rank }, n = 4, z = 0;
		dmd_req *q = dmd_req_new(rt, 9, -1, "U: never waited");

		if (rank == 0) {
			dmd_irecv(rt, q, peer, b, 1, &n, &z, &n);
			dmd_isend(rt, q, peer, b, 1, &n, &z, &n);
		}
	} else {
		dmd_read(rt, 0, lo, ext, b, lo, ext);
	}
	if (rank == 0 && strcmp(mode, "unwaited"))
		printf("error mode %s did not stop\n", mode);
	return dmd_finish(rt);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "main";
	const char *arg = argc > 3 ? argv[3] : "";

	f64 = argc > 2 && !strcmp(argv[2], "f64");
	if (!strcmp(mode, "main"))
		return main_mode(&argc, &argv, f64 ? DMD_RT_F64 : DMD_RT_F32);
	if (!strcmp(mode, "gemm"))
		return gemm_mode(&argc, &argv, f64 ? DMD_RT_F64 : DMD_RT_F32);
	if (!strcmp(mode, "out"))
		return out_mode(&argc, &argv, f64 ? DMD_RT_F64 : DMD_RT_F32,
			arg);
	if (!strcmp(mode, "jobdir"))
		return dir_mode(&argc, &argv, f64 ? DMD_RT_F64 : DMD_RT_F32,
			"jobdir");
	if (!strcmp(mode, "absdir"))
		return dir_mode(&argc, &argv, f64 ? DMD_RT_F64 : DMD_RT_F32,
			arg);
	return error_mode(&argc, &argv, f64 ? DMD_RT_F64 : DMD_RT_F32, mode);
}
