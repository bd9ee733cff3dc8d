/* dmd_npy.h: the .npy header, for the runtime's own use (dmd_rt_io.c).
 *
 * Only the header is handled here; the data are read and written by the
 * runtime with collective MPI-IO at the offset these functions give.
 * Nothing here calls MPI: the functions run on one rank (rank 0).
 */
#ifndef DMD_NPY_H
#define DMD_NPY_H

#include <stddef.h>
#include <stdint.h>

/* Longest message dmd_npy_check writes, including the final NUL. */
#define DMD_NPY_MSG 1024

int dmd_npy_header(char *out, size_t size, const char *descr, int ndim,
	const int64_t *shape);
int dmd_npy_check(const char *path, const char *shown, const char *descr,
	int ndim, const int64_t *shape, long long *offset, char *msg,
	size_t msg_size);
void dmd_npy_shape_str(char *out, size_t size, int ndim, const int64_t *shape);

#endif
