/* dmd_int.h: the one parser of the integers distmpmd accepts: on its
 * command line (cmd/: ranks, classes, -j, sweep values and indices), in
 * job files (ir/: extents, offsets, coordinates, counts, seeds, the
 * integers of expressions) and in build directories (manifests/).
 *
 * Syntax: an optional sign ('+' or '-') and one or more decimal digits,
 * nothing else (no white space, no "0x", no separators).  The value is
 * exact and compared with the caller's range [min, max]: nothing wraps
 * modulo 2^64 and nothing saturates, so "18446744073709551617" is out of
 * every range rather than 1.  The caller reports the problem, naming what
 * the integer is (a located message in a job, the option on the command
 * line).
 */
#ifndef DMD_INT_H
#define DMD_INT_H

#include <stddef.h>

/* The greatest common divisor of "a" and "b" (a when b is 0). */
long dmd_int_gcd(long a, long b);
/* The least common multiple of "a" and "b" (both positive). */
long dmd_int_lcm(long a, long b);

/* What dmd_int_parse found. */
enum dmd_int_status {
	DMD_INT_OK = 0,		/* an integer in range, stored */
	DMD_INT_SYNTAX,		/* not an integer (empty, a stray character) */
	DMD_INT_RANGE,		/* an integer outside [min, max] */
};

/* "len" for a string that ends at its NUL. */
#define DMD_INT_NUL ((size_t) -1)

/* Parse s[0 .. len) (len == DMD_INT_NUL: up to the NUL) as an integer in
 * [min, max] into *v (untouched unless DMD_INT_OK). */
enum dmd_int_status dmd_int_parse(const char *s, size_t len, long min,
	long max, long *v);
/* The integer in environment variable "name" if it is one in [min, max]
 * (DMD_SEARCH_QUOTA=1000), else "dflt". */
long dmd_int_env(const char *name, long min, long max, long dflt);
/* The same for an unsigned 64-bit value in [0, max] (a seed: 0 to
 * 2^64 - 1); a negative integer is out of range, "-0" is 0. */
enum dmd_int_status dmd_int_parse_u64(const char *s, size_t len,
	unsigned long long max, unsigned long long *v);

#endif
