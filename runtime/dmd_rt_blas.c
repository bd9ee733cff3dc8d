/* dmd_rt_blas.c: the BLAS leaf (dmd_gemm) and the check of OpenBLAS's
 * kernels at start-up.
 *
 * Overlap: MPICH (ch4:ucx) moves large messages with a rendezvous
 * protocol that is pipelined and needs both sides to enter MPI again and
 * again; a rank that spends its time in one long BLAS call stalls the
 * transfers posted for the next time step.  So while a transfer is in
 * flight on this rank, dmd_gemm cuts C into panels of rows and calls
 * MPI_Testall on the requests in flight before, between and after them.
 * How many: one progress point per 256 KiB sent or received in flight
 * (at least 4 panels, at most 64), but no panel under 4 Mflop nor under
 * 384 rows.  Measured on 2 ranks of one host, 8 MB each way during an
 * 800^3 dgemm (70 ms): with 1, 3 or 8 progress points the wait after
 * the product still took the whole transfer (6-14 ms); with 32 it took
 * 1 us.  But each call packs all of op(B) again, which costs about as
 * much as 8 rows of the product: a 2048x1024x1024 dgemm in 48-row panels
 * took 17% longer than one call, in 96-row panels 8%, in 384-row panels
 * 2.6% (bench/, one thread); and at 64 MB in flight 43 panels did not
 * shorten the wait.  Hence the floor of 384 rows.
 *
 * Panels are rows, never columns, and their heights are multiples of 48,
 * so that every element of C is bitwise the one a single call gives.
 * OpenBLAS's kernels are not position-independent: its Haswell/Zen sgemm
 * rounds an element differently depending on where it falls in the
 * kernel's blocks, and those blocks are cut along the columns of
 * (row-major) C according to the whole extent N; along the rows they are
 * fixed groups (12 rows for that sgemm, 8 for Nehalem's), which 48-row
 * steps keep in place.  Column panels gave differences in the last bit
 * for f32; row panels of multiples of 24 gave none, for the Zen, Haswell,
 * Sandybridge, Nehalem, Core2, Barcelona, Atom and Prescott kernels, f32
 * and f64, all transposes (12 did not for Nehalem).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cblas.h>
#include <mpi.h>

#include "dmd_rt.h"
#include "dmd_rt_private.h"

/* Panels: multiples of DMD_RT_PANEL_ROWS rows; one per DMD_RT_PANEL_BYTES
 * in flight, between DMD_RT_PANEL_MIN and DMD_RT_PANEL_MAX of them; no
 * panel under DMD_RT_PANEL_FLOPS nor under DMD_RT_PANEL_MIN_ROWS rows.
 */
#define DMD_RT_PANEL_ROWS 48
#define DMD_RT_PANEL_BYTES (256 * 1024)
#define DMD_RT_PANEL_MIN 4
#define DMD_RT_PANEL_MAX 64
#define DMD_RT_PANEL_FLOPS (4 * 1024 * 1024)
#define DMD_RT_PANEL_MIN_ROWS 384

/* The name of the kernels OpenBLAS runs ("Haswell", "Prescott", ...). */
const char *dmd_rt_blas_core(void)
{
	const char *c = openblas_get_corename();

	return c && *c ? c : "unknown";
}

/* Is "core" one of the NULL-terminated "names" (ignoring case)? */
static int dmd_rt_core_in(const char *core, const char *const *names)
{
	for (; *names; ++names)
		if (!strcasecmp(core, *names))
			return 1;
	return 0;
}

/* Write into "out" the advice about OpenBLAS's kernels "core" on a CPU
 * with (avx512f) or without AVX-512F and with (avx2) or without AVX2:
 * return 1 if OpenBLAS runs kernels that do not use what the CPU has (and
 * "out" holds the advice, one line without '\n'), else 0.
 */
int dmd_rt_blas_advice(int avx512f, int avx2, const char *core, char *out,
	size_t size)
{
	static const char *const k512[] = { "SkylakeX", "Cooperlake",
		"SapphireRapids", NULL };
	static const char *const k256[] = { "Haswell", "Zen", "SkylakeX",
		"Cooperlake", "SapphireRapids", NULL };
	const char *try, *cpu, *slow;

	if (avx512f && !dmd_rt_core_in(core, k512)) {
		try = "SkylakeX";
		cpu = "AVX-512";
	} else if (avx2 && !avx512f && !dmd_rt_core_in(core, k256)) {
		try = "Haswell";
		cpu = "AVX2";
	} else {
		return 0;
	}
	slow = dmd_rt_core_in(core, k256) ? "up to 2x" : "3-4x";
	snprintf(out, size, "distmpmd: OpenBLAS uses its '%s' kernels on "
		"this %s CPU (OpenBLAS does not know it): products may be %s "
		"slower; try OPENBLAS_CORETYPE=%s (check the results: on some "
		"processors some kernels compute wrong results)", core, cpu,
		slow, try);
	return 1;
}

/* Rank 0 at start-up: when OPENBLAS_CORETYPE is unset, say on stderr if
 * OpenBLAS runs kernels older than the CPU.  Never sets the variable.
 */
void dmd_rt_blas_check(dmd_rt *rt)
{
	char msg[512];
	int avx512f = 0, avx2 = 0;

	(void) rt;
	if (getenv("OPENBLAS_CORETYPE"))
		return;
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	avx512f = __builtin_cpu_supports("avx512f");
	avx2 = __builtin_cpu_supports("avx2");
#endif
	if (dmd_rt_blas_advice(avx512f, avx2, dmd_rt_blas_core(), msg,
			sizeof(msg))) {
		fprintf(stderr, "%s\n", msg);
		fflush(stderr);
	}
}

/* One BLAS call: C += op(A) * op(B) in the job's dtype (row-major). */
static void dmd_rt_gemm1(dmd_rt *rt, int ta, int tb, int M, int N, int K,
	const void *A, int lda, const void *B, int ldb, void *C, int ldc)
{
	enum CBLAS_TRANSPOSE oa = ta ? CblasTrans : CblasNoTrans;
	enum CBLAS_TRANSPOSE ob = tb ? CblasTrans : CblasNoTrans;

	if (rt->job->dtype == DMD_RT_F64)
		cblas_dgemm(CblasRowMajor, oa, ob, M, N, K, 1.0, A, lda, B,
			ldb, 1.0, C, ldc);
	else
		cblas_sgemm(CblasRowMajor, oa, ob, M, N, K, 1.0f, A, lda, B,
			ldb, 1.0f, C, ldc);
}

/* The height of the row panels of an "m" x "n" x "k" product while
 * "bytes" are in flight: "m" itself when it is too small to cut.
 */
static int64_t dmd_rt_panel_rows(int64_t m, int64_t n, int64_t k,
	int64_t bytes)
{
	int64_t np = bytes / DMD_RT_PANEL_BYTES, h, hmin;

	if (np < DMD_RT_PANEL_MIN)
		np = DMD_RT_PANEL_MIN;
	if (np > DMD_RT_PANEL_MAX)
		np = DMD_RT_PANEL_MAX;
	h = (m + np - 1) / np;
	hmin = DMD_RT_PANEL_FLOPS / 2 / n / k + 1;
	if (h < hmin)
		h = hmin;
	if (h < DMD_RT_PANEL_MIN_ROWS)
		h = DMD_RT_PANEL_MIN_ROWS;
	h = (h + DMD_RT_PANEL_ROWS - 1) / DMD_RT_PANEL_ROWS *
		DMD_RT_PANEL_ROWS;
	return h < m ? h : m;
}

/* C += op(A) * op(B) (see dmd_rt.h); in panels, with MPI progress between
 * them, while transfers are in flight.
 */
void dmd_gemm(dmd_rt *rt, int ta, int tb, int64_t M, int64_t N, int64_t K,
	const void *A, int64_t lda, const void *B, int64_t ldb, void *C,
	int64_t ldc)
{
	int64_t es = (int64_t) rt->esize, h, p;
	double t0;

	if (M < 0 || N < 0 || K < 0)
		dmd_fail(rt, "dmd_gemm: negative extent (M %" PRId64 ", N %"
			PRId64 ", K %" PRId64 ")", M, N, K);
	if (M == 0 || N == 0 || K == 0)
		return;
	if (M > INT_MAX || N > INT_MAX || K > INT_MAX || lda > INT_MAX ||
	    ldb > INT_MAX || ldc > INT_MAX)
		dmd_fail(rt, "dmd_gemm: extents beyond the BLAS's int (M %"
			PRId64 ", N %" PRId64 ", K %" PRId64 ")", M, N, K);
	if (lda < (ta ? M : K) || ldb < (tb ? K : N) || ldc < N)
		dmd_fail(rt, "dmd_gemm: leading dimension too small (lda %"
			PRId64 ", ldb %" PRId64 ", ldc %" PRId64 " for M %"
			PRId64 ", N %" PRId64 ", K %" PRId64 ", ta %d, tb %d)",
			lda, ldb, ldc, M, N, K, ta, tb);
	t0 = MPI_Wtime();
	h = M;
	if (rt->n_inflight > 0)
		h = dmd_rt_panel_rows(M, N, K, dmd_rt_progress(rt));
	for (p = 0; p < M; p += h) {
		int64_t m = M - p < h ? M - p : h;
		int64_t aoff = ta ? p : p * lda;

		if (p > 0)
			dmd_rt_progress(rt);
		if (h < M)
			rt->n_panels++;
		dmd_rt_gemm1(rt, ta, tb, (int) m, (int) N, (int) K,
			(const char *) A + aoff * es, (int) lda, B, (int) ldb,
			(char *) C + p * ldc * es, (int) ldc);
	}
	if (rt->n_inflight > 0)
		dmd_rt_progress(rt);
	dmd_rt_trace_event(rt, DMD_RT_EV_GEMM, -1, t0, MPI_Wtime(), 0);
}

/* How many panels dmd_gemm has computed (for the unit test). */
int64_t dmd_rt_debug_panels(const dmd_rt *rt)
{
	return rt->n_panels;
}
