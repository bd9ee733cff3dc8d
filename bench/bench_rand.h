/* bench_rand.h: what the benchmark drivers share with the job format.
 *
 * dmd_bench_rnd is the job format's "random" init (spec 1.2: SplitMix64
 * of seed + (i + 1) * golden ratio, 53 bits scaled to [-1, 1)) of global
 * linear index i, written again here, independently of the runtime, so
 * that the hand-written and ScaLAPACK baselines compute the distmpmd
 * jobs' problem.  dmd_bench_l2g is the global index of local index l of
 * a block-cyclic dimension (ScaLAPACK's INDXL2G with source 0).
 */
#ifndef DMD_BENCH_RAND_H
#define DMD_BENCH_RAND_H

#include <stdint.h>

static inline double dmd_bench_rnd(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z = z ^ (z >> 31);
	return (double) (z >> 11) * 0x1p-53 * 2 - 1;
}

static inline long dmd_bench_l2g(long l, int nb, int iproc, int nprocs)
{
	return (l / nb * nprocs + iproc) * nb + l % nb;
}

#endif
