/* dmd_emit_ops.h: the operators isl's C printer uses in emitted code
 * (floord, min, max), as in PPCG's output. */
#ifndef DMD_EMIT_OPS_H
#define DMD_EMIT_OPS_H

#include <math.h>
#include <stdint.h>

#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define min(x, y) ((x) < (y) ? (x) : (y))
#define max(x, y) ((x) > (y) ? (x) : (y))

/* The functions of spec 1.5 that C's math library lacks, on doubles
 * (f64 jobs). */
static inline double dmd_sigmoid(double x)
{
	return 1.0 / (1.0 + exp(-x));
}

static inline double dmd_gelu(double x)
{
	return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

/* The same in single precision, for f32 jobs (spec 1.3: an f32 job
 * computes in float). */
static inline float dmd_sigmoidf(float x)
{
	return 1.0f / (1.0f + expf(-x));
}

/* The formula of spec 1.5 in float: within 2.4 ulps of the float64
 * value rounded to float on [-1, 1], 8.6 on [-2, 2], 99 on [-3, 3]; below
 * about -4, 1 + erff(...) cancels to 0 and the result is -0.0 where the
 * float64 value is tiny (as 1 + erf does in double below about -8). */
static inline float dmd_geluf(float x)
{
	return 0.5f * x * (1.0f + erff(x / sqrtf(2.0f)));
}

/* numpy's maximum and minimum (spec 1.3): a NaN argument gives NaN
 * (C's fmax/fmin drop it), and of two equal values the second is
 * returned, so maximum(-0.0, 0.0) is 0.0 and maximum(0.0, -0.0) -0.0. */
static inline double dmd_max(double a, double b)
{
	return a > b || a != a ? a : b;
}

static inline double dmd_min(double a, double b)
{
	return a < b || a != a ? a : b;
}

static inline float dmd_maxf(float a, float b)
{
	return a > b || a != a ? a : b;
}

static inline float dmd_minf(float a, float b)
{
	return a < b || a != a ? a : b;
}

/* relu(x) = numpy's maximum(x, 0.0): NaN stays NaN, -0.0 gives 0.0. */
static inline double dmd_relu(double x)
{
	return dmd_max(x, 0.0);
}

static inline float dmd_reluf(float x)
{
	return dmd_maxf(x, 0.0f);
}

/* Set the "n" elements of "p" to -0.0, the additive identity: a buffer
 * that receives sums, or whose elements are added somewhere whether the
 * rank computed them or not (0.0 + -0.0 would be 0.0). */
static inline void dmd_clear_double(double *p, int64_t n)
{
	for (int64_t i = 0; i < n; ++i)
		p[i] = -0.0;
}

static inline void dmd_clear_float(float *p, int64_t n)
{
	for (int64_t i = 0; i < n; ++i)
		p[i] = -0.0f;
}

/* The origin of a box that starts at a buffer's first element. */
static const int64_t dmd_zero[8] = { 0 };

#endif
