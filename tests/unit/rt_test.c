/* rt_test.c: unit test of the runtime library (runtime/dmd_rt.c) on a 2x2
 * mesh; run by tests/unit/rt_test.sh as
 *	mpiexec.mpich -n 4 rt_test MODE
 * MODE f64 or f32: the full test; each section ends with a line
 * "ok NAME" or "FAIL NAME" from rank 0, and the stats the runtime should
 * report are printed as "expect bytes_moved_total=B bytes_recv_max=R
 * messages=M" (compared by the script with the DMD_STATS line).
 * The other modes stop with an error on purpose (see error_mode).
 * Relative file names are resolved against DMD_JOB_DIR, which the script
 * sets (the job's own job_dir does not exist).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "runtime/dmd_rt.h"

static int f64;			/* the job's dtype is f64 */
static int rank, c0, c1;	/* world rank and mesh coordinates */
static int fails;		/* failed checks of this rank in this section */
static long long exp_bytes;	/* bytes this rank should have counted */
static long long exp_msgs;	/* messages this rank should have counted */

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
static double get(const void *buf, long k)
{
	return f64 ? ((const double *) buf)[k] : ((const float *) buf)[k];
}

/* Set element k of a buffer of the job's dtype. */
static void set(void *buf, long k, double v)
{
	if (f64)
		((double *) buf)[k] = v;
	else
		((float *) buf)[k] = (float) v;
}

/* "v" rounded to the job's dtype. */
static double rnd(double v)
{
	return f64 ? v : (double) (float) v;
}

/* Size of n elements. */
static long long bytes(long n)
{
	return n * (f64 ? 8 : 4);
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

/* Random init: values at a few global indices (computed independently
 * with Python), on blocks of a 1-D tensor of 100 elements, 25 per rank,
 * a scalar, and a single element of a huge tensor; then the 5x7 tensor
 * rand.npy (seed 42) for the script to check in full.
 */
static void test_random(dmd_rt *rt)
{
	long g1 = 100, lo1 = 25 * rank, ext1 = 25;
	long g2[2] = { 5, 7 }, lo2[2], ext2[2];
	long gbig = 20000000000L, lobig = 12345678901L, extbig = 1;
	void *a = dmd_alloc(rt, 25), *s = dmd_alloc(rt, 1);
	void *b = dmd_alloc(rt, 1), *r;

	dmd_tensor_input(rt, "A", NULL, DMD_RT_INIT_RANDOM, 42, 1, &g1,
		&lo1, &ext1, a);
	if (rank == 0) {
		CHECK(get(a, 0) == rnd(0x1.eeb991317f5b4p-2), "A[0] = %.17g",
			get(a, 0));
		CHECK(get(a, 1) == rnd(-0x1.5c40733136644p-1), "A[1] = %.17g",
			get(a, 1));
	}
	if (rank == 1)
		CHECK(get(a, 9) == rnd(0x1.19a8e3fe4d260p-2), "A[34] = %.17g",
			get(a, 9));
	for (long k = 0; k < 25; ++k)
		CHECK(get(a, k) >= -1 && get(a, k) < 1, "A out of range");
	dmd_tensor_input(rt, "S", NULL, DMD_RT_INIT_RANDOM, 0, 0, NULL, NULL,
		NULL, s);
	CHECK(get(s, 0) == rnd(0x1.8882a0e5ec772p-1), "S = %.17g", get(s, 0));
	dmd_tensor_input(rt, "Big", NULL, DMD_RT_INIT_RANDOM,
		18446744073709551615ULL, 1, &gbig, &lobig, &extbig, b);
	CHECK(get(b, 0) == rnd(-0x1.3fd3b63ccd330p-4), "Big = %.17g",
		get(b, 0));

	dmd_tensor_input(rt, "O", NULL, DMD_RT_INIT_ONES, 0, 1, &g1, &lo1,
		&ext1, a);
	for (long k = 0; k < 25; ++k)
		CHECK(get(a, k) == 1, "ones");
	dmd_tensor_input(rt, "Z", NULL, DMD_RT_INIT_NONE, 0, 1, &g1, &lo1,
		&ext1, a);
	for (long k = 0; k < 25; ++k)
		CHECK(get(a, k) == 0, "none");

	lo2[0] = c0 ? 3 : 0;
	ext2[0] = c0 ? 2 : 3;
	lo2[1] = c1 ? 4 : 0;
	ext2[1] = c1 ? 3 : 4;
	r = dmd_alloc(rt, ext2[0] * ext2[1]);
	dmd_tensor_input(rt, "R", NULL, DMD_RT_INIT_RANDOM, 42, 2, g2, lo2,
		ext2, r);
	dmd_tensor_output(rt, "R", "rand.npy", 2, g2, lo2, ext2, r, 1);
	section("random-init");
}

/* Check that the block (lo, ext) of a 5x7 buffer holds 100*i+j+0.25. */
static void check_t(const void *buf, const long *lo, const long *ext,
	const char *what)
{
	for (long i = 0; i < ext[0]; ++i)
		for (long j = 0; j < ext[1]; ++j)
			CHECK(get(buf, i * ext[1] + j) ==
				100 * (lo[0] + i) + lo[1] + j + 0.25,
				"%s[%ld][%ld] = %g", what, lo[0] + i,
				lo[1] + j, get(buf, i * ext[1] + j));
}

/* Write T (5x7, blocks 3+2 by 4+3), V (3, written by the c1 == 0 ranks
 * only, blocks 2+1) and S (a scalar, written by rank 0) and read them
 * back, T also with blocks 5+0 by 2+5 (so that two ranks have empty
 * blocks).  Then read the arrays numpy wrote (in.npy: 6x5, 10*i+j+0.5;
 * in_v2.npy the same in .npy version 2.0; in_vec.npy: 1-D (4,), 2*i;
 * in_scalar.npy: 3.25).
 */
static void test_npy(dmd_rt *rt)
{
	long g[2] = { 5, 7 }, lo[2], ext[2], lo2[2], ext2[2];
	long gv = 3, lov, extv, gin[2] = { 6, 5 }, loin[2], extin[2];
	long gvec = 4, lovec = 0, extvec = 4;
	void *t, *t2, *v, *v2, *s, *in, *vec;

	lo[0] = c0 ? 3 : 0;
	ext[0] = c0 ? 2 : 3;
	lo[1] = c1 ? 4 : 0;
	ext[1] = c1 ? 3 : 4;
	t = dmd_alloc(rt, ext[0] * ext[1]);
	for (long i = 0; i < ext[0]; ++i)
		for (long j = 0; j < ext[1]; ++j)
			set(t, i * ext[1] + j,
				100 * (lo[0] + i) + lo[1] + j + 0.25);
	dmd_tensor_output(rt, "T", "T.npy", 2, g, lo, ext, t, 1);
	memset(t, 0, bytes(ext[0] * ext[1]));
	dmd_tensor_input(rt, "T", "T.npy", 0, 0, 2, g, lo, ext, t);
	check_t(t, lo, ext, "T");

	lo2[0] = 0;
	ext2[0] = c0 ? 0 : 5;
	lo2[1] = c1 ? 2 : 0;
	ext2[1] = c1 ? 5 : 2;
	if (c0)
		lo2[0] = 5;
	t2 = dmd_alloc(rt, ext2[0] * ext2[1]);
	dmd_tensor_input(rt, "T", "T.npy", 0, 0, 2, g, lo2, ext2, t2);
	check_t(t2, lo2, ext2, "T (5+0 by 2+5)");

	lov = c0 ? 2 : 0;
	extv = c0 ? 1 : 2;
	v = dmd_alloc(rt, 3);
	for (long i = 0; i < extv; ++i)
		set(v, i, c1 ? -1 : 7 * (lov + i) + 1);
	dmd_tensor_output(rt, "V", "V.npy", 1, &gv, &lov, &extv, v, c1 == 0);
	v2 = dmd_alloc(rt, 3);
	lov = 0;
	dmd_tensor_input(rt, "V", "V.npy", 0, 0, 1, &gv, &lov, &gv, v2);
	for (long i = 0; i < 3; ++i)
		CHECK(get(v2, i) == 7 * i + 1, "V[%ld] = %g", i, get(v2, i));

	s = dmd_alloc(rt, 1);
	set(s, 0, rank == 0 ? -2.5 : 99);
	dmd_tensor_output(rt, "S", "S.npy", 0, NULL, NULL, NULL, s, rank == 0);
	set(s, 0, 0);
	dmd_tensor_input(rt, "S", "S.npy", 0, 0, 0, NULL, NULL, NULL, s);
	CHECK(get(s, 0) == -2.5, "S = %g", get(s, 0));
	section("npy-roundtrip");

	loin[0] = c0 ? 4 : 0;
	extin[0] = c0 ? 2 : 4;
	loin[1] = c1 ? 1 : 0;
	extin[1] = c1 ? 4 : 1;
	in = dmd_alloc(rt, extin[0] * extin[1]);
	for (int version = 1; version <= 2; ++version) {
		dmd_tensor_input(rt, "In", version == 1 ? "in.npy" :
			"in_v2.npy", 0, 0, 2, gin, loin, extin, in);
		for (long i = 0; i < extin[0]; ++i)
			for (long j = 0; j < extin[1]; ++j)
				CHECK(get(in, i * extin[1] + j) ==
					10 * (loin[0] + i) + loin[1] + j + 0.5,
					"in v%d [%ld][%ld] = %g", version,
					loin[0] + i, loin[1] + j,
					get(in, i * extin[1] + j));
	}
	vec = dmd_alloc(rt, 4);
	dmd_tensor_input(rt, "Vec", "in_vec.npy", 0, 0, 1, &gvec, &lovec,
		&extvec, vec);
	for (long i = 0; i < 4; ++i)
		CHECK(get(vec, i) == 2 * i, "vec[%ld] = %g", i, get(vec, i));
	dmd_tensor_input(rt, "Sc", "in_scalar.npy", 0, 0, 0, NULL, NULL, NULL,
		s);
	CHECK(get(s, 0) == 3.25, "in_scalar = %g", get(s, 0));
	section("npy-read-numpy-files");
}

/* Broadcasts: a strided box along axis 1 from coordinate 1 (4x6 buffer
 * at the root, box at (1, 2) of extents 2x3, received at (2, 1) of a 5x5
 * buffer); a whole buffer along axis 0 from coordinate 0; an empty box;
 * a scalar over the whole mesh (axis -1) from world rank 3.
 */
static void test_bcast(dmd_rt *rt)
{
	long ext_root[2] = { 4, 6 }, lo_root[2] = { 1, 2 };
	long ext_other[2] = { 5, 5 }, lo_other[2] = { 2, 1 };
	long cnt[2] = { 2, 3 }, zero[2] = { 0, 0 }, empty[2] = { 2, 0 };
	long ext1 = 7, lo1 = 0;
	int root_rank = c0 * 2 + 1;
	void *a = dmd_alloc(rt, 30), *w = dmd_alloc(rt, 7);
	void *s = dmd_alloc(rt, 1);

	for (long k = 0; k < 30; ++k)
		set(a, k, c1 == 1 ? 1000 * rank + k : -1);
	if (c1 == 1)
		dmd_bcast(rt, 1, 1, a, 2, ext_root, lo_root, cnt);
	else
		dmd_bcast(rt, 1, 1, a, 2, ext_other, lo_other, cnt);
	if (c1 == 1) {
		for (long k = 0; k < 30; ++k)
			CHECK(get(a, k) == 1000 * rank + k, "root changed");
	} else {
		for (long i = 0; i < 5; ++i)
			for (long j = 0; j < 5; ++j) {
				double want = -1;

				if (i >= 2 && i < 4 && j >= 1 && j < 4)
					want = 1000 * root_rank +
						(i - 2 + 1) * 6 + (j - 1 + 2);
				CHECK(get(a, i * 5 + j) == want,
					"bcast [%ld][%ld] = %g, want %g", i, j,
					get(a, i * 5 + j), want);
			}
		exp_bytes += bytes(6);
		exp_msgs++;
	}

	for (long k = 0; k < 7; ++k)
		set(w, k, c0 == 0 ? 10 * c1 + k : -1);
	dmd_bcast(rt, 0, 0, w, 1, &ext1, &lo1, &ext1);
	for (long k = 0; k < 7; ++k)
		CHECK(get(w, k) == 10 * c1 + k, "whole bcast [%ld] = %g", k,
			get(w, k));
	if (c0 != 0) {
		exp_bytes += bytes(7);
		exp_msgs++;
	}

	dmd_bcast(rt, 1, 0, a, 2, ext_other, zero, empty);

	set(s, 0, rank == 3 ? 42.5 : 0);
	dmd_bcast(rt, -1, 3, s, 0, NULL, NULL, NULL);
	CHECK(get(s, 0) == 42.5, "scalar bcast = %g", get(s, 0));
	if (rank != 3) {
		exp_bytes += bytes(1);
		exp_msgs++;
	}
	section("bcast");
}

/* Shifts: along axis 0 by 1 (box (0, 1) 3x2 of a 3x4 buffer, received at
 * (1, 1) of a 4x3 buffer); along axis 1 by 3 (== 1 mod 2) with whole
 * buffers; along axis 1 by 2 (to itself: not counted in the stats).
 */
static void test_shift(dmd_rt *rt)
{
	long sext[2] = { 3, 4 }, slo[2] = { 0, 1 }, cnt[2] = { 3, 2 };
	long rext[2] = { 4, 3 }, rlo[2] = { 1, 1 };
	long n5 = 5, z = 0;
	int src = ((c0 + 1) % 2) * 2 + c1;
	void *sb = dmd_alloc(rt, 12), *rb = dmd_alloc(rt, 12);
	void *w = dmd_alloc(rt, 5), *w2 = dmd_alloc(rt, 5);

	for (long k = 0; k < 12; ++k) {
		set(sb, k, 100 * rank + k);
		set(rb, k, -1);
	}
	dmd_shift(rt, 0, 1, sb, 2, sext, slo, cnt, rb, rext, rlo, cnt);
	for (long i = 0; i < 4; ++i)
		for (long j = 0; j < 3; ++j) {
			double want = -1;

			if (i >= 1 && j >= 1)
				want = 100 * src + (i - 1) * 4 + (j - 1 + 1);
			CHECK(get(rb, i * 3 + j) == want,
				"shift [%ld][%ld] = %g, want %g", i, j,
				get(rb, i * 3 + j), want);
		}
	exp_bytes += bytes(6);
	exp_msgs++;

	for (long k = 0; k < 5; ++k)
		set(w, k, 10 * rank + k);
	dmd_shift(rt, 1, 3, w, 1, &n5, &z, &n5, w2, &n5, &z, &n5);
	for (long k = 0; k < 5; ++k)
		CHECK(get(w2, k) == 10 * (c0 * 2 + 1 - c1) + k,
			"shift axis 1 [%ld] = %g", k, get(w2, k));
	exp_bytes += bytes(5);
	exp_msgs++;

	dmd_shift(rt, 1, 2, w, 1, &n5, &z, &n5, w2, &n5, &z, &n5);
	for (long k = 0; k < 5; ++k)
		CHECK(get(w2, k) == 10 * rank + k, "self shift");
	section("shift");
}

/* Point-to-point transfers with the rank across axis 1: two messages in
 * one group (a strided 2x2 box received into a 2x2 box of a 5x5 buffer,
 * then a row of 3 received as a 1-D buffer: they must match in order),
 * an empty box to the diagonal rank, a strided box to itself, and local
 * copies of 3-D, 1-D and 0-D boxes.
 */
static void test_xfer(dmd_rt *rt)
{
	long sext[2] = { 4, 3 }, blo[2] = { 1, 0 }, bcnt[2] = { 2, 2 };
	long rlo[2] = { 3, 0 }, rcnt[2] = { 1, 3 };
	long r1ext[2] = { 5, 5 }, r1lo[2] = { 0, 3 };
	long n3 = 3, z = 0, zero2[2] = { 0, 0 }, empty[2] = { 0, 3 };
	long selfext[2] = { 2, 2 };
	long e3s[3] = { 3, 4, 5 }, l3s[3] = { 1, 1, 2 }, c3[3] = { 2, 2, 3 };
	long e3d[3] = { 2, 3, 4 }, l3d[3] = { 0, 1, 0 };
	long e1 = 6, l1s = 1, l1d = 3, c1n = 3;
	int peer[2] = { c0, 1 - c1 }, diag[2] = { 1 - c0, 1 - c1 };
	int self[2] = { c0, c1 };
	int prank = c0 * 2 + 1 - c1;
	void *sb = dmd_alloc(rt, 12), *r1 = dmd_alloc(rt, 25);
	void *r2 = dmd_alloc(rt, 3), *me = dmd_alloc(rt, 4);
	void *s3 = dmd_alloc(rt, 60), *d3 = dmd_alloc(rt, 24);
	void *s1 = dmd_alloc(rt, 6), *d1 = dmd_alloc(rt, 6);

	for (long k = 0; k < 12; ++k)
		set(sb, k, 100 * rank + k);
	for (long k = 0; k < 25; ++k)
		set(r1, k, -1);
	for (long k = 0; k < 60; ++k)
		set(s3, k, k);
	for (long k = 0; k < 24; ++k)
		set(d3, k, -1);
	for (long k = 0; k < 6; ++k) {
		set(s1, k, k);
		set(d1, k, -1);
	}

	dmd_xfer_begin(rt);
	dmd_recv(rt, peer, r1, 2, r1ext, r1lo, bcnt);
	dmd_send(rt, peer, sb, 2, sext, blo, bcnt);
	dmd_send(rt, peer, sb, 2, sext, rlo, rcnt);
	dmd_send(rt, diag, sb, 2, sext, zero2, empty);
	dmd_recv(rt, diag, r1, 2, r1ext, zero2, empty);
	dmd_recv(rt, self, me, 2, selfext, zero2, bcnt);
	dmd_recv(rt, peer, r2, 1, &n3, &z, &n3);
	dmd_send(rt, self, sb, 2, sext, blo, bcnt);
	dmd_copy(rt, d3, 3, e3d, l3d, s3, e3s, l3s, c3);
	dmd_copy(rt, d1, 1, &e1, &l1d, s1, &e1, &l1s, &c1n);
	dmd_copy(rt, d1, 0, NULL, NULL, (char *) s1 + bytes(5), NULL, NULL, NULL);
	dmd_xfer_end(rt);

	for (long i = 0; i < 5; ++i)
		for (long j = 0; j < 5; ++j) {
			double want = -1;

			if (i < 2 && j >= 3)
				want = 100 * prank + (1 + i) * 3 + (j - 3);
			CHECK(get(r1, i * 5 + j) == want,
				"xfer [%ld][%ld] = %g, want %g", i, j,
				get(r1, i * 5 + j), want);
		}
	for (long k = 0; k < 3; ++k)
		CHECK(get(r2, k) == 100 * prank + 9 + k, "xfer row [%ld] = %g",
			k, get(r2, k));
	for (long i = 0; i < 2; ++i)
		for (long j = 0; j < 2; ++j)
			CHECK(get(me, i * 2 + j) == 100 * rank + (1 + i) * 3 + j,
				"xfer self [%ld][%ld]", i, j);
	for (long i = 0; i < 2; ++i)
		for (long j = 0; j < 3; ++j)
			for (long k = 0; k < 4; ++k) {
				double want = -1;

				if (j >= 1 && k < 3)
					want = (1 + i) * 20 + (j - 1 + 1) * 5 +
						(k + 2);
				CHECK(get(d3, (i * 3 + j) * 4 + k) == want,
					"copy 3-D [%ld][%ld][%ld] = %g", i, j,
					k, get(d3, (i * 3 + j) * 4 + k));
			}
	CHECK(get(d1, 0) == 5, "copy 0-D = %g", get(d1, 0));
	for (long k = 1; k < 6; ++k)
		CHECK(get(d1, k) == (k >= 3 ? k - 2 : -1), "copy 1-D [%ld] = %g",
			k, get(d1, k));
	exp_bytes += bytes(4 + 3);
	exp_msgs += 2;
	section("xfer");
}

/* Reductions: a strided 2x2 box along axis 0 onto coordinate 1, in place
 * at the root; a whole 1-D buffer over the whole mesh onto world rank 2,
 * into another buffer; a whole buffer in place along axis 1 onto 0.
 */
static void test_reduce(dmd_rt *rt)
{
	long ext[2] = { 3, 4 }, lo[2] = { 1, 1 }, cnt[2] = { 2, 2 };
	long n5 = 5, n4 = 4, z = 0;
	void *a = dmd_alloc(rt, 12), *v = dmd_alloc(rt, 5);
	void *r = dmd_alloc(rt, 5), *w = dmd_alloc(rt, 4);

	for (long k = 0; k < 12; ++k)
		set(a, k, (rank + 1) * (k + 1));
	dmd_reduce(rt, 0, 1, a, 2, ext, lo, a, ext, lo, cnt);
	for (long i = 0; i < 3; ++i)
		for (long j = 0; j < 4; ++j) {
			long k = i * 4 + j;
			double want = (rank + 1) * (k + 1);

			if (c0 == 1 && i >= 1 && j >= 1 && j < 3)
				want = (c1 + 1 + c1 + 3) * (k + 1);
			CHECK(get(a, k) == want, "reduce [%ld][%ld] = %g, "
				"want %g", i, j, get(a, k), want);
		}
	if (c0 == 1) {
		exp_bytes += bytes(4);
		exp_msgs++;
	}

	for (long k = 0; k < 5; ++k) {
		set(v, k, rank * 10 + k);
		set(r, k, -1);
	}
	dmd_reduce(rt, -1, 2, v, 1, &n5, &z, r, &n5, &z, &n5);
	for (long k = 0; k < 5; ++k) {
		CHECK(get(v, k) == rank * 10 + k, "reduce changed sbuf");
		CHECK(get(r, k) == (rank == 2 ? 60 + 4 * k : -1),
			"reduce world [%ld] = %g", k, get(r, k));
	}
	if (rank == 2) {
		exp_bytes += 3 * bytes(5);
		exp_msgs += 3;
	}

	for (long k = 0; k < 4; ++k)
		set(w, k, rank + k);
	dmd_reduce(rt, 1, 0, w, 1, &n4, &z, w, &n4, &z, &n4);
	for (long k = 0; k < 4; ++k)
		CHECK(get(w, k) == (c1 == 0 ? 4 * c0 + 1 + 2 * k : rank + k),
			"reduce in place [%ld] = %g", k, get(w, k));
	if (c1 == 0) {
		exp_bytes += bytes(4);
		exp_msgs++;
	}
	section("reduce");
}

/* The mesh: coordinates and ranks. */
static void test_mesh(dmd_rt *rt)
{
	CHECK(dmd_rank(rt) == rank, "dmd_rank");
	CHECK(dmd_coord(rt, 0) == rank / 2, "dmd_coord 0");
	CHECK(dmd_coord(rt, 1) == rank % 2, "dmd_coord 1");
	section("mesh");
}

/* Print the stats the runtime should report. */
static void print_expected(void)
{
	long long sum[2], in[2] = { exp_bytes, exp_msgs }, max = 0;

	MPI_Reduce(in, sum, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(&exp_bytes, &max, 1, MPI_LONG_LONG, MPI_MAX, 0,
		MPI_COMM_WORLD);
	if (rank == 0) {
		printf("expect bytes_moved_total=%lld bytes_recv_max=%lld "
			"messages=%lld\n", sum[0], max, sum[1]);
		fflush(stdout);
	}
}

/* The modes that must stop with an error (after dmd_init). */
static void error_mode(dmd_rt *rt, const char *mode)
{
	long g[2] = { 64, 64 }, lo[2] = { 0, 0 }, ext[2] = { 0, 0 };
	void *b = dmd_alloc(rt, 1);

	if (rank == 0) {
		ext[0] = 64;
		ext[1] = 64;
		b = dmd_alloc(rt, 64 * 64);
	}
	if (!strcmp(mode, "missing"))
		dmd_tensor_input(rt, "B", "nope.npy", 0, 0, 2, g, lo, ext, b);
	else if (!strcmp(mode, "badshape"))
		dmd_tensor_input(rt, "B", "B.npy", 0, 0, 2, g, lo, ext, b);
	else if (!strcmp(mode, "baddtype"))
		dmd_tensor_input(rt, "B", "B64.npy", 0, 0, 2, g, lo, ext, b);
	else if (!strcmp(mode, "badheader"))
		dmd_tensor_input(rt, "B", "garbage.npy", 0, 0, 2, g, lo, ext,
			b);
	else if (!strcmp(mode, "badout"))
		dmd_tensor_output(rt, "C", "no/such/dir/C.npy", 2, g, lo, ext,
			b, 1);
	else if (!strcmp(mode, "fail") && rank == 1)
		dmd_fail(rt, "deliberate failure %d", 7);
	else if (!strcmp(mode, "fail"))
		MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	static const int shape[2] = { 2, 2 };
	static const char *const names[2] = { "x", "y" };
	static const int all_ranks[1][2] = { { 0, 3 } };
	static const int some_ranks[2][2] = { { 0, 1 }, { 2, 2 } };
	const char *mode = argc > 1 ? argv[1] : "f64";
	dmd_job_desc job = {
		.job = "rt_test", .n_axes = 2, .mesh_shape = shape,
		.axis_names = names, .nranks = 4, .nclasses = 1,
		.class_id = 0, .n_ranges = 1, .ranges = all_ranks,
		.dtype = DMD_RT_F64, .flops = 1e6,
		.job_dir = "/nonexistent/rt_test/job/dir",
	};
	dmd_rt *rt;

	if (!strcmp(mode, "f32") || !strcmp(mode, "baddtype"))
		job.dtype = DMD_RT_F32;
	if (!strcmp(mode, "wrongclass")) {
		job.nclasses = 2;
		job.class_id = 1;
		job.n_ranges = 2;
		job.ranges = some_ranks;
	}
	f64 = job.dtype == DMD_RT_F64;
	rt = dmd_init(&argc, &argv, &job);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	c0 = rank / 2;
	c1 = rank % 2;
	if (strcmp(mode, "f64") && strcmp(mode, "f32")) {
		error_mode(rt, mode);
		if (rank == 0)
			printf("error mode %s did not stop\n", mode);
		return dmd_finish(rt);
	}

	test_mesh(rt);
	test_random(rt);
	test_npy(rt);
	dmd_compute_begin(rt);
	test_bcast(rt);
	test_shift(rt);
	test_xfer(rt);
	test_reduce(rt);
	usleep(20000);
	dmd_compute_end(rt);
	print_expected();
	return dmd_finish(rt);
}
