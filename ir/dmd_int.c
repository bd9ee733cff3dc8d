/* dmd_int.c: parsing integers with range checks (see dmd_int.h).
 *
 * The digits are read into an unsigned 64-bit magnitude that stops
 * growing, with an overflow flag, once it passes 2^64 - 1: any longer
 * integer is out of every range the callers have, however many digits it
 * has ("18446744073709551616" is not 0).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_int.h"

/* Read s[0 .. len) as [sign] digits: *neg, the magnitude in *mag and
 * whether it exceeds 2^64 - 1 in *over.  -1 if it is not that syntax. */
static int dmd_int_scan(const char *s, size_t len, int *neg,
	unsigned long long *mag, int *over)
{
	size_t i = 0;

	if (len == DMD_INT_NUL)
		len = strlen(s);
	*neg = 0;
	*mag = 0;
	*over = 0;
	if (i < len && (s[i] == '+' || s[i] == '-'))
		*neg = s[i++] == '-';
	if (i >= len)
		return -1;
	for (; i < len; ++i) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return -1;
		d = s[i] - '0';
		if (*over)
			continue;
		if (__builtin_mul_overflow(*mag, 10ULL, mag) ||
		    __builtin_add_overflow(*mag, d, mag))
			*over = 1;
	}
	return 0;
}

/* Parse a signed integer in [min, max] (see the header).  E.g. "-5" in
 * [0, 3] is DMD_INT_RANGE, "5x" DMD_INT_SYNTAX. */
enum dmd_int_status dmd_int_parse(const char *s, size_t len, long min,
	long max, long *v)
{
	unsigned long long mag;
	long val;
	int neg, over;

	if (dmd_int_scan(s, len, &neg, &mag, &over) < 0)
		return DMD_INT_SYNTAX;
	if (over)
		return DMD_INT_RANGE;
	if (!neg) {
		if (mag > (unsigned long long) LONG_MAX)
			return DMD_INT_RANGE;
		val = (long) mag;
	} else {
		/* -(LONG_MAX + 1) is the most negative long */
		if (mag > (unsigned long long) LONG_MAX + 1)
			return DMD_INT_RANGE;
		val = mag == (unsigned long long) LONG_MAX + 1 ?
			LONG_MIN : -(long) mag;
	}
	if (val < min || val > max)
		return DMD_INT_RANGE;
	*v = val;
	return DMD_INT_OK;
}

/* Parse an unsigned 64-bit integer in [0, max] (see the header). */
enum dmd_int_status dmd_int_parse_u64(const char *s, size_t len,
	unsigned long long max, unsigned long long *v)
{
	unsigned long long mag;
	int neg, over;

	if (dmd_int_scan(s, len, &neg, &mag, &over) < 0)
		return DMD_INT_SYNTAX;
	if (over || (neg && mag != 0) || mag > max)
		return DMD_INT_RANGE;
	*v = mag;
	return DMD_INT_OK;
}

/* The greatest common divisor of "a" and "b" (Euclid). */
long dmd_int_gcd(long a, long b)
{
	while (b) {
		long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The least common multiple of "a" and "b", both positive: lcm(4, 6) =
 * 12 (divided before it is multiplied, so that it overflows only where
 * the result does). */
long dmd_int_lcm(long a, long b)
{
	return a / dmd_int_gcd(a, b) * b;
}

/* The integer in environment variable "name" if it is one in [min, max],
 * else "dflt": the knobs of experiments and tests (DMD_SEARCH_QUOTA). */
long dmd_int_env(const char *name, long min, long max, long dflt)
{
	const char *e = getenv(name);
	long v;

	if (e && dmd_int_parse(e, DMD_INT_NUL, min, max, &v) == DMD_INT_OK)
		return v;
	return dflt;
}
