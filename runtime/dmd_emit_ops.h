/* dmd_emit_ops.h: the operators isl's C printer uses in emitted code
 * (floord, min, max), as in PPCG's output. */
#ifndef DMD_EMIT_OPS_H
#define DMD_EMIT_OPS_H

#include <math.h>
#include <stdint.h>

#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define min(x, y) ((x) < (y) ? (x) : (y))
#define max(x, y) ((x) > (y) ? (x) : (y))

/* The functions of spec 1.5 that C's math library lacks, on doubles. */
static inline double dmd_sigmoid(double x)
{
	return 1.0 / (1.0 + exp(-x));
}

static inline double dmd_gelu(double x)
{
	return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

/* max(x, 0), keeping a NaN a NaN (like numpy's maximum). */
static inline double dmd_relu(double x)
{
	return x < 0.0 ? 0.0 : x;
}

/* The origin of a box that starts at a buffer's first element. */
static const int64_t dmd_zero[8] = { 0 };

#endif
