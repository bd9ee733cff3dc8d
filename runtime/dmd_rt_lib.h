/* dmd_rt_lib.h: the runtime's library mode ("distmpmd build --lib", spec
 * section 2, "Library mode").
 *
 * A library holds the program of every rank class as a static function
 * (the body of classK.c's main) and calls dmd_lib_run from its NAME_run:
 * dmd_lib_run checks the arguments (the communicator's size locally, the
 * blocks with one allreduce, so that every rank returns the same), dups
 * the caller's communicator, and runs the class of the caller's rank with
 * the runtime in library mode: no MPI_Init/MPI_Finalize, the dup instead
 * of MPI_COMM_WORLD, the caller's blocks instead of .npy files (the
 * program's buffer of a tensor is the caller's block where the two have
 * the same shape; else dmd_read copies the block of an input into the
 * buffer, dmd_write the buffer into the block of an output), no environment
 * (DMD_STATS, DMD_TRACE, DMD_DUMP_BLOCKS ignored), nothing printed.  A
 * failure once the program runs prints its message and aborts the dup
 * (MPI_Abort), as a class program does.
 */
#ifndef DMD_RT_LIB_H
#define DMD_RT_LIB_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "dmd_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The program of a class: main() of classK.c with its class number and
 * ranks as arguments (argc and argv are 0 and NULL). */
typedef int dmd_lib_class_fn(int argc, char **argv, int class_id,
	int n_ranges, const int64_t (*ranges)[2]);

/* A class of the library: its program, its ranks (inclusive ranges). */
typedef struct dmd_lib_class {
	dmd_lib_class_fn *fn;
	int n_ranges;
	const int64_t (*ranges)[2];
} dmd_lib_class;

/* What a library tells the runtime.  The library's tensors are the job's
 * tensors with a file, in job order: library tensor i is job tensor
 * file_tensor[i], read by the program if file_input[i].  blocks[] holds,
 * per rank r and library tensor i, at (r * n_files + i) * (1 + 2 *
 * max_dims): the number of dimensions or -1 (the rank holds none of it),
 * then max_dims offsets and max_dims extents, as NAME_block gives them
 * (along a cyclic dimension the global index of the rank's first element
 * and the number it holds; the program's box there is in local
 * coordinates, dmd_job_desc, and is compared by dmd_rt_global of its
 * origin; the caller's block, its blocks one after another, is that
 * box's elements in the same order).  The first n_home
 * dmd_alloc calls of every class program allocate the home buffers of
 * job tensors home[0 .. n_home) in this order (the programs' set-up):
 * where such a buffer is exactly the caller's block (same number of
 * elements; dmd_read and dmd_write check the box), dmd_alloc returns the
 * caller's block instead (zeroed unless it is an input) and nothing is
 * copied.  Messages go to err (err_size bytes). */
typedef struct dmd_lib_desc {
	const dmd_job_desc *job;
	int n_classes;
	const dmd_lib_class *classes;
	int n_files;
	const int *file_tensor;
	const int *file_input;
	int max_dims;
	const int64_t *blocks;
	int n_home;
	const int *home;
	char *err;
	size_t err_size;
} dmd_lib_desc;

/* NAME_block: the block of library tensor "t" that "rank" holds (see the
 * generated header). */
int dmd_lib_block(const dmd_lib_desc *lib, int rank, int t,
	int64_t offset[], int64_t extent[]);
/* NAME_run: collective over "comm"; 0, or nonzero with lib->err saying
 * why on every rank. */
int dmd_lib_run(const dmd_lib_desc *lib, MPI_Comm comm,
	void *const tensors[]);

#ifdef __cplusplus
}
#endif

#endif
