/* dmd_rt_io.c: the tensors' files and initial values.
 *
 * Reads and writes are collective MPI-IO on the Cartesian communicator:
 * rank 0 checks (or writes) the .npy header and broadcasts a verdict, then
 * every rank reads or writes its block through a subarray file view (a
 * cyclic tensor's blocks: one strided view, dmd_rt_cyclic_type), from
 * or into its buffer through a memory datatype of the datatype cache (the
 * block may lie inside a larger buffer: ghost cells).  Ranks with empty
 * blocks take part with a count of 0.
 *
 * An output is written under the temporary name ".NAME.tmp.HOST.PID" in
 * its directory and renamed by rank 0 once every rank has succeeded; on
 * failure the temporary file is removed.  dmd_init checks every output
 * destination before any computation and removes the temporaries that
 * earlier runs on this host left behind when their process died.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <mpi.h>

#include "dmd_rt.h"
#include "dmd_rt_private.h"
#include "dmd_npy.h"

/* Error codes above this are MPI error classes (plus this), not errno. */
#define DMD_RT_MPI_ERRBASE 100000

/* What rank 0 found out and tells every rank: "ok", the file offset of
 * the data and a message or a file name.
 */
struct dmd_rt_verdict {
	int ok;
	long long offset;
	char text[DMD_RT_TEXT];
};

/* The spec's random value of the element at global linear index "i". */
double dmd_rt_random(unsigned long long seed, unsigned long long i)
{
	uint64_t z;

	z = (uint64_t) seed + (uint64_t) (i + 1) * 0x9E3779B97F4A7C15ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z = z ^ (z >> 31);
	return (double) (z >> 11) * 0x1.0p-53 * 2 - 1;
}

/* Store "v" as element "k" of "buf", rounded to the job's dtype. */
static void dmd_rt_store(dmd_rt *rt, void *buf, int64_t k, double v)
{
	if (rt->job->dtype == DMD_RT_F64)
		((double *) buf)[k] = v;
	else
		((float *) buf)[k] = (float) v;
}

/* The tensor number "tensor" of the job, or a message and a stop. */
static const dmd_tensor_desc *dmd_rt_tensor(dmd_rt *rt, int tensor,
	const char *what)
{
	if (tensor < 0 || tensor >= rt->job->n_tensors)
		dmd_fail(rt, "%s: bad tensor number %d (the job has %d)",
			what, tensor, rt->job->n_tensors);
	return &rt->job->tensors[tensor];
}

/* The cyclic dimensions of tensor number "tensor" (3 per dimension, see
 * dmd_job_desc), or NULL. */
static const int64_t *dmd_rt_cyclic(dmd_rt *rt, int tensor)
{
	return rt->job->cyclic ? rt->job->cyclic[tensor] : NULL;
}

/* The global index of local index "v" of dimension "d" (see
 * dmd_job_desc): "v" itself unless the dimension is cyclic.  For S = 2,
 * B = 2, L = 6, v = 6 .. 9 are elements 2, 3, 6, 7.  (Also the library's
 * check of the blocks, dmd_rt_lib.c.) */
int64_t dmd_rt_global(const int64_t *cyc, int d, int64_t v)
{
	int64_t S, B, L, b, l;

	if (!cyc || cyc[3 * d] <= 0)
		return v;
	S = cyc[3 * d];
	B = cyc[3 * d + 1];
	L = cyc[3 * d + 2];
	b = v / L;
	l = v % L;
	return l / S * S * B + b * S + l % S;
}

/* Check that the block (lo, ext) lies inside tensor "t" (whose cyclic
 * dimensions are "cyc": there, inside one holder's blocks and the
 * extent) and inside the buffer (origin bo, extents bx); set rel[] to
 * the block's origin in the buffer.
 */
static void dmd_rt_check_block(dmd_rt *rt, const dmd_tensor_desc *t,
	const int64_t *cyc, const int64_t *lo, const int64_t *ext,
	const int64_t *bo, const int64_t *bx, int64_t *rel)
{
	int64_t vshape[DMD_RT_MAX_DIMS];
	char what[256];
	int i;

	snprintf(what, sizeof(what), "tensor '%s'", t->name);
	if (t->ndim < 0 || t->ndim > DMD_RT_MAX_DIMS)
		dmd_fail(rt, "%s has %d dimensions (at most %d)", what,
			t->ndim, DMD_RT_MAX_DIMS);
	for (i = 0; i < t->ndim; ++i)
		vshape[i] = cyc && cyc[3 * i] > 0 ? cyc[3 * i + 1] *
			cyc[3 * i + 2] : t->shape[i];
	dmd_rt_check_box(rt, what, t->ndim, vshape, lo, ext);
	for (i = 0; cyc && dmd_rt_nelem(t->ndim, ext) && i < t->ndim; ++i)
		if (cyc[3 * i] > 0 && (lo[i] / cyc[3 * i + 2] !=
		     (lo[i] + ext[i] - 1) / cyc[3 * i + 2] ||
		     dmd_rt_global(cyc, i, lo[i] + ext[i] - 1) >=
		     t->shape[i]))
			dmd_fail(rt, "%s: local box [%" PRId64 ", %" PRId64
				") of cyclic dimension %d is not one holder's "
				"elements", what, lo[i], lo[i] + ext[i], i);
	for (i = 0; i < t->ndim; ++i)
		rel[i] = lo[i] - bo[i];
	snprintf(what, sizeof(what), "tensor '%s' (its buffer)", t->name);
	dmd_rt_check_box(rt, what, t->ndim, bx, rel, ext);
}

/* Fill the block (lo, ext) of tensor "t", at rel[] in "buf" (extents bx),
 * with zeros, ones or the random values of the elements' global linear
 * indices.
 */
static void dmd_rt_fill(dmd_rt *rt, const dmd_tensor_desc *t,
	const int64_t *cyc, const int64_t *lo, const int64_t *ext, void *buf,
	const int64_t *rel, const int64_t *bx)
{
	int64_t idx[DMD_RT_MAX_DIMS] = { 0 };
	int64_t n, r, nrows, row, j;
	int i, ndim = t->ndim, last = ndim - 1;

	n = dmd_rt_nelem(ndim, ext);
	if (n == 0)
		return;
	if (ndim == 0) {
		double v = t->init == DMD_RT_INIT_ONES ? 1.0 : 0.0;

		if (t->init == DMD_RT_INIT_RANDOM)
			v = dmd_rt_random(t->seed, 0);
		dmd_rt_store(rt, buf, 0, v);
		return;
	}
	row = ext[last];
	nrows = n / row;
	for (r = 0; r < nrows; ++r) {
		uint64_t g = 0;
		int64_t off = 0;

		for (i = 0; i < ndim; ++i) {
			int64_t k = i < last ? idx[i] : 0;

			g = g * (uint64_t) t->shape[i] + (uint64_t)
				(i < last ? dmd_rt_global(cyc, i, lo[i] + k) :
				 0);
			off = off * bx[i] + rel[i] + k;
		}
		for (j = 0; j < row; ++j) {
			double v = t->init == DMD_RT_INIT_ONES ? 1.0 : 0.0;

			if (t->init == DMD_RT_INIT_RANDOM)
				v = dmd_rt_random(t->seed, g + (uint64_t)
					dmd_rt_global(cyc, last, lo[last] + j));
			dmd_rt_store(rt, buf, off + j, v);
		}
		for (i = last - 1; i >= 0; --i) {
			if (++idx[i] < ext[i])
				break;
			idx[i] = 0;
		}
	}
}

/* The errno value that an MPI-IO error "rc" stands for, or
 * DMD_RT_MPI_ERRBASE plus its error class if none does.  "e" is errno as
 * the call left it: ROMIO reports a failed write (a full disk) as a mere
 * MPI_ERR_IO, but the failed system call's errno is still there.
 */
static int dmd_rt_io_errno(int rc, int e)
{
	int cls = MPI_ERR_OTHER;

	MPI_Error_class(rc, &cls);
	if (cls == MPI_ERR_NO_SPACE)
		return ENOSPC;
	if (cls == MPI_ERR_QUOTA)
		return EDQUOT;
	if (cls == MPI_ERR_ACCESS)
		return EACCES;
	if (cls == MPI_ERR_NO_SUCH_FILE)
		return ENOENT;
	if (cls == MPI_ERR_READ_ONLY)
		return EROFS;
	if (cls == MPI_ERR_FILE_EXISTS)
		return EEXIST;
	if (cls == MPI_ERR_IO && e > 0 && e < DMD_RT_MPI_ERRBASE)
		return e;
	return DMD_RT_MPI_ERRBASE + cls;
}

/* Note the error of an MPI-IO call that returned "rc" ("e": errno right
 * after the call) in err[0] (an errno value) or err[1]
 * (DMD_RT_MPI_ERRBASE plus an error class), unless one is noted already.
 */
static void dmd_rt_io_note(int rc, int e, int *err)
{
	int code;

	if (rc == MPI_SUCCESS || err[0] || err[1])
		return;
	code = dmd_rt_io_errno(rc, e);
	err[code < DMD_RT_MPI_ERRBASE ? 0 : 1] = code;
}

/* Write the reason for error code "err" (dmd_rt_io_errno) into "out". */
static void dmd_rt_io_reason(int err, char *out, size_t size)
{
	int len = 0;

	if (err < DMD_RT_MPI_ERRBASE) {
		snprintf(out, size, "%s", strerror(err));
		return;
	}
	if (size >= MPI_MAX_ERROR_STRING) {
		out[0] = '\0';
		MPI_Error_string(err - DMD_RT_MPI_ERRBASE, out, &len);
	} else {
		snprintf(out, size, "MPI-IO error");
	}
}

/* Stop this rank (and so the job) if "rc" (returned by the MPI-IO call
 * "what" on "path", of tensor "name", which left errno "e") is an error.
 */
static void dmd_rt_io_check(dmd_rt *rt, int rc, int e, const char *what,
	const char *path, const char *name)
{
	char why[MPI_MAX_ERROR_STRING];

	if (rc == MPI_SUCCESS)
		return;
	dmd_rt_io_reason(dmd_rt_io_errno(rc, e), why, sizeof(why));
	dmd_fail(rt, "tensor '%s': %s %s: %s", name, what, path, why);
}

/* Set the view of "fh" to the block (lo, ext) of tensor "t" in a file
 * whose data start at "offset": the displacement is the block's first
 * element, the filetype the block's box in the whole tensor (a cached
 * datatype, or plain elements when the block is contiguous in the file or
 * empty).  Return the MPI error code.
 */
static int dmd_rt_set_view(dmd_rt *rt, MPI_File fh, MPI_Offset offset,
	const dmd_tensor_desc *t, const int64_t *lo, const int64_t *ext)
{
	struct dmd_rt_box fbox;

	dmd_rt_box_get(rt, t->ndim, t->shape, lo, ext, &fbox);
	return MPI_File_set_view(fh, offset +
		(MPI_Offset) fbox.offset * (MPI_Offset) rt->esize, rt->base,
		fbox.type, "native", MPI_INFO_NULL);
}

/* The file type of the local box (lo, ext) of tensor "t" whose cyclic
 * dimensions are "cyc" (a holder's blocks: strided in the file), from
 * the start of the data.  Innermost dimension: the runs of consecutive
 * global indices that the box's local indices map to, as an hindexed
 * type of elements; each dimension outside it: one copy of the type
 * inside per index, at the byte offset of its global index (blocks of
 * one, so that no resized type is needed: ROMIO's flattening misplaces
 * the rows of a resized type).  The whole box is one datatype whose
 * elements come in the box's row-major order (increasing file offsets).
 * For one dimension with S = 2, B = 2 and the box of holder 1 of 10
 * elements: runs (2, 2), (6, 2).  *type is committed; free it after
 * use. */
static void dmd_rt_cyclic_type(dmd_rt *rt, const dmd_tensor_desc *t,
	const int64_t *cyc, const int64_t *lo, const int64_t *ext,
	MPI_Datatype *type)
{
	MPI_Datatype inner = rt->base, next;
	MPI_Aint row = (MPI_Aint) rt->esize;
	int d, last = t->ndim - 1;

	for (d = last; d >= 0; --d) {
		int *len = dmd_rt_malloc(rt, (size_t) (ext[d] + 1) * sizeof(int));
		MPI_Aint *at = dmd_rt_malloc(rt, (size_t) (ext[d] + 1) *
			sizeof(MPI_Aint));
		int64_t k, prev = -2;
		int n = 0;

		for (k = 0; k < ext[d]; ++k) {
			int64_t e = dmd_rt_global(cyc, d, lo[d] + k);

			if (d == last && e == prev + 1)
				len[n - 1]++;
			else {
				len[n] = 1;
				at[n++] = (MPI_Aint) e * row;
			}
			prev = e;
		}
		MPI_Type_create_hindexed(n, len, at, inner, &next);
		if (inner != rt->base)
			MPI_Type_free(&inner);
		free(len);
		free(at);
		row *= (MPI_Aint) t->shape[d];
		inner = next;
	}
	*type = inner;
	MPI_Type_commit(type);
}

/* Set the view of "fh" to the local box (lo, ext) of tensor "t" whose
 * cyclic dimensions are "cyc" (see dmd_rt_cyclic_type; plain boxes and
 * empty ones as dmd_rt_set_view).  *type: the file type to free after
 * the file is closed (MPI_DATATYPE_NULL: none).  Return the MPI error
 * code. */
static int dmd_rt_set_local_view(dmd_rt *rt, MPI_File fh, MPI_Offset offset,
	const dmd_tensor_desc *t, const int64_t *cyc, const int64_t *lo,
	const int64_t *ext, MPI_Datatype *type)
{
	*type = MPI_DATATYPE_NULL;
	if (!cyc || dmd_rt_nelem(t->ndim, ext) == 0)
		return dmd_rt_set_view(rt, fh, offset, t, lo, ext);
	dmd_rt_cyclic_type(rt, t, cyc, lo, ext, type);
	return MPI_File_set_view(fh, offset, rt->base, *type, "native",
		MPI_INFO_NULL);
}

/* The name under which MPI-IO opens "path" (to be freed).  ROMIO (the
 * MPI-IO of MPICH and of the MPIs built on it; its mpio.h defines
 * ROMIO_VERSION) reads a name that holds a ':' anywhere as
 * "DRIVER:FILE" and refuses a driver it does not know, so that
 * "/data/run:2/A.npy" or "out: x.npy" would fail with "Other I/O
 * error".  Such a name is given the prefix of ROMIO's generic POSIX
 * driver, "ufs:", which ROMIO strips (it chooses the driver from the
 * prefix alone, as a user who names one does).  Open MPI's OMPIO takes
 * any name as it is (and would not strip the prefix).
 */
static char *dmd_rt_mpio_name(dmd_rt *rt, const char *path)
{
	size_t len = strlen(path), lp = 0;
	char *name;

#ifdef ROMIO_VERSION
	if (strchr(path, ':'))
		lp = 4;
#endif
	name = dmd_rt_malloc(rt, lp + len + 1);
	memcpy(name, "ufs:", lp);
	memcpy(name + lp, path, len + 1);
	return name;
}

/* Read the block (lo, ext) of tensor "t" from its .npy file into the box
 * at rel[] of "buf" (extents bx): rank 0 checks the header and broadcasts
 * its verdict, then every rank reads its block with collective MPI-IO.
 */
static void dmd_rt_read_npy(dmd_rt *rt, const dmd_tensor_desc *t,
	const int64_t *cyc, const int64_t *lo, const int64_t *ext, void *buf,
	const int64_t *rel, const int64_t *bx)
{
	struct dmd_rt_verdict v;
	struct dmd_rt_box box;
	MPI_Datatype ftype;
	MPI_File fh;
	char *path = dmd_rt_path(rt, t->file), *name;
	int rc;

	memset(&v, 0, sizeof(v));
	if (rt->rank == 0) {
		char msg[DMD_NPY_MSG];
		long long off = 0;

		v.ok = dmd_npy_check(path, t->file, rt->descr, t->ndim,
				t->shape, &off, msg, sizeof(msg)) == 0;
		v.offset = off;
		if (!v.ok)
			snprintf(v.text, sizeof(v.text), "%s", msg);
	}
	MPI_Bcast(&v, sizeof(v), MPI_BYTE, 0, rt->cart);
	if (!v.ok)
		dmd_rt_fail_all(rt, "tensor '%s': %s", t->name, v.text);

	name = dmd_rt_mpio_name(rt, path);
	errno = 0;
	rc = MPI_File_open(rt->cart, name, MPI_MODE_RDONLY, MPI_INFO_NULL,
			&fh);
	free(name);
	dmd_rt_io_check(rt, rc, errno, "cannot open", path, t->name);
	rc = dmd_rt_set_local_view(rt, fh, v.offset, t, cyc, lo, ext, &ftype);
	dmd_rt_io_check(rt, rc, errno, "cannot set the view of", path,
		t->name);
	dmd_rt_box_get(rt, t->ndim, bx, rel, ext, &box);
	errno = 0;
	rc = dmd_rt_mpi_read_all(rt, fh,
		(char *) buf + box.offset * rt->esize, box.count, box.type);
	dmd_rt_io_check(rt, rc, errno, "cannot read", path, t->name);
	errno = 0;
	rc = MPI_File_close(&fh);
	dmd_rt_io_check(rt, rc, errno, "cannot close", path, t->name);
	if (ftype != MPI_DATATYPE_NULL)
		MPI_Type_free(&ftype);
	free(path);
}

/* Fill this rank's block of input tensor "tensor" into its buffer. */
void dmd_read(dmd_rt *rt, int tensor, const int64_t *lo,
	const int64_t *ext, void *buf, const int64_t *bo, const int64_t *bx)
{
	const dmd_tensor_desc *t = dmd_rt_tensor(rt, tensor, "dmd_read");
	const int64_t *cyc = dmd_rt_cyclic(rt, tensor);
	int64_t rel[DMD_RT_MAX_DIMS];

	dmd_rt_check_block(rt, t, cyc, lo, ext, bo, bx, rel);
	if (t->file && dmd_rt_lib_read(rt, tensor, lo, ext, buf, rel, bx))
		return;
	if (t->file) {
		dmd_rt_read_npy(rt, t, cyc, lo, ext, buf, rel, bx);
		return;
	}
	if (t->init != DMD_RT_INIT_NONE && t->init != DMD_RT_INIT_ZEROS &&
	    t->init != DMD_RT_INIT_ONES && t->init != DMD_RT_INIT_RANDOM)
		dmd_fail(rt, "tensor '%s': bad init %d", t->name, t->init);
	dmd_rt_fill(rt, t, cyc, lo, ext, buf, rel, bx);
}

/* Write the temporary name of "path" for a process "pid" on "host",
 * ".BASENAME.tmp.HOST.PID" in the directory of "path", into "out".
 * Return 0, or -1 if it does not fit.
 */
int dmd_rt_tmp_name(char *out, size_t size, const char *path,
	const char *host, long pid)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t) (slash - path) + 1 : 0;
	int n;

	n = snprintf(out, size, "%.*s.%s.tmp.%s.%ld", (int) dir_len, path,
		path + dir_len, host, pid);
	return n < 0 || (size_t) n >= size ? -1 : 0;
}

/* Write "len" bytes of "data" to the file descriptor "fd"; 0 or -1 (with
 * errno).
 */
static int dmd_rt_write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		data += n;
		len -= (size_t) n;
	}
	return 0;
}

/* Create (or truncate) the file "name" and write "len" bytes of "data"
 * into it.  Return 0, or -1 with the reason in "why".
 */
static int dmd_rt_create(const char *name, const char *data, size_t len,
	char *why, size_t why_size)
{
	int fd, err;

	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		snprintf(why, why_size, "cannot create %s: %s", name,
			strerror(errno));
		return -1;
	}
	if (dmd_rt_write_all(fd, data, len) < 0) {
		err = errno;
		close(fd);
		unlink(name);
		snprintf(why, why_size, "writing %s failed: %s", name,
			strerror(err));
		return -1;
	}
	if (close(fd) < 0) {
		err = errno;
		unlink(name);
		snprintf(why, why_size, "writing %s failed: %s", name,
			strerror(err));
		return -1;
	}
	return 0;
}

/* Write "data" into the file "path" of this process (rank 0): under the
 * temporary name, then renamed.  Return 0, or -1 with the reason in "why".
 */
int dmd_rt_write_file(dmd_rt *rt, const char *path, const char *data,
	size_t len, char *why, size_t why_size)
{
	char tmp[PATH_MAX + 512];

	if (dmd_rt_tmp_name(tmp, sizeof(tmp), path, rt->host,
			(long) getpid()) < 0) {
		snprintf(why, why_size, "path too long");
		return -1;
	}
	if (dmd_rt_create(tmp, data, len, why, why_size) < 0)
		return -1;
	if (rename(tmp, path) < 0) {
		snprintf(why, why_size, "cannot rename %s: %s", tmp,
			strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Rank 0: write the .npy header of output tensor "t" into a new
 * temporary file next to "path" and fill in the verdict (the temporary
 * name and the data offset, or a message).
 */
static void dmd_rt_start_output(dmd_rt *rt, const dmd_tensor_desc *t,
	const char *path, struct dmd_rt_verdict *v)
{
	char header[4096];
	char name[DMD_RT_TEXT / 2];
	char why[DMD_RT_TEXT / 2];
	int len;

	len = dmd_npy_header(header, sizeof(header), rt->descr, t->ndim,
		t->shape);
	if (len < 0) {
		snprintf(v->text, sizeof(v->text), "cannot make a .npy header");
		return;
	}
	if (dmd_rt_tmp_name(name, sizeof(name), path, rt->host,
			(long) getpid()) < 0) {
		snprintf(v->text, sizeof(v->text), "path too long");
		return;
	}
	if (dmd_rt_create(name, header, (size_t) len, why, sizeof(why)) < 0) {
		snprintf(v->text, sizeof(v->text), "cannot write %.1500s: %s",
			path, why);
		return;
	}
	strcpy(v->text, name);
	v->ok = 1;
	v->offset = len;
}

/* DMD_DUMP_BLOCKS: write this rank's block (lo, ext) of output tensor
 * "t", at rel[] in "buf" (extents bx), whether or not the rank writes the
 * tensor's file, as the .npy file DIR/NAME.rRANK.at_LO0_LO1...npy (a
 * scalar: DIR/NAME.rRANK.at.npy), so that every replica of an output can
 * be checked, not only the one in the file.  A cyclic tensor's block is
 * the rank's local array (its blocks one after another), named after the
 * global indices of its first element.  An empty block writes nothing.
 * A failure stops every rank. */
static void dmd_rt_dump_block(dmd_rt *rt, const dmd_tensor_desc *t,
	const int64_t *cyc, const int64_t *lo, const int64_t *ext,
	const void *buf, const int64_t *rel, const int64_t *bx)
{
	int64_t zero[DMD_RT_MAX_DIMS] = { 0 }, n;
	char path[PATH_MAX], why[PATH_MAX + 256], *data;
	const char *c;
	size_t len, size;
	int hlen, i;

	n = dmd_rt_nelem(t->ndim, ext);
	if (!rt->dump_dir || n == 0)
		return;
	for (c = t->name; *c; ++c)
		if (!(*c == '_' || (*c >= 'a' && *c <= 'z') ||
		      (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
			dmd_fail(rt, "DMD_DUMP_BLOCKS: tensor '%s': not an "
				"identifier", t->name);
	len = (size_t) snprintf(path, sizeof(path), "%s/%s.r%d.at",
		rt->dump_dir, t->name, rt->rank);
	for (i = 0; i < t->ndim && len < sizeof(path); ++i)
		len += (size_t) snprintf(path + len, sizeof(path) - len,
			"_%" PRId64, dmd_rt_global(cyc, i, lo[i]));
	if (len < sizeof(path))
		len += (size_t) snprintf(path + len, sizeof(path) - len, ".npy");
	if (len >= sizeof(path))
		dmd_fail(rt, "DMD_DUMP_BLOCKS: path too long: %s",
			rt->dump_dir);
	if ((uint64_t) n > (SIZE_MAX - 4096) / rt->esize)
		dmd_fail(rt, "DMD_DUMP_BLOCKS: tensor '%s': block too large",
			t->name);
	size = 4096 + (size_t) n * rt->esize;
	data = dmd_rt_malloc(rt, size);
	hlen = dmd_npy_header(data, 4096, rt->descr, t->ndim, ext);
	if (hlen < 0)
		dmd_fail(rt, "DMD_DUMP_BLOCKS: tensor '%s': cannot make a .npy "
			"header", t->name);
	dmd_copy(rt, data + hlen, t->ndim, ext, zero, buf, bx, rel, ext);
	if (dmd_rt_write_file(rt, path, data,
			(size_t) hlen + (size_t) n * rt->esize, why,
			sizeof(why)) < 0)
		dmd_fail(rt, "DMD_DUMP_BLOCKS: tensor '%s': %s", t->name, why);
	free(data);
}

/* Write this rank's block (if writer) of output tensor "tensor" into its
 * .npy file: under a temporary name first, renamed by rank 0 once every
 * rank has written and closed it.  Any failure removes the temporary file
 * and stops every rank with the system's reason.
 */
void dmd_write(dmd_rt *rt, int tensor, const int64_t *lo,
	const int64_t *ext, const void *buf, const int64_t *bo,
	const int64_t *bx, int writer)
{
	const dmd_tensor_desc *t = dmd_rt_tensor(rt, tensor, "dmd_write");
	const int64_t *cyc = dmd_rt_cyclic(rt, tensor);
	int64_t rel[DMD_RT_MAX_DIMS], zero[DMD_RT_MAX_DIMS] = { 0 };
	struct dmd_rt_verdict v;
	struct dmd_rt_box box;
	MPI_Datatype ftype = MPI_DATATYPE_NULL;
	MPI_Offset total;
	MPI_File fh;
	char why[MPI_MAX_ERROR_STRING + 64];
	char *path, *name;
	int rc, err[2] = { 0, 0 }, all_err[2] = { 0, 0 };

	if (!t->file)
		dmd_fail(rt, "dmd_write: tensor '%s' has no file", t->name);
	dmd_rt_check_block(rt, t, cyc, lo, ext, bo, bx, rel);
	if (dmd_rt_lib_write(rt, tensor, lo, ext, buf, rel, bx))
		return;
	dmd_rt_dump_block(rt, t, cyc, lo, ext, buf, rel, bx);
	path = dmd_rt_path(rt, t->file);
	memset(&v, 0, sizeof(v));
	if (rt->rank == 0)
		dmd_rt_start_output(rt, t, path, &v);
	MPI_Bcast(&v, sizeof(v), MPI_BYTE, 0, rt->cart);
	if (!v.ok)
		dmd_rt_fail_all(rt, "tensor '%s': %s", t->name, v.text);

	name = dmd_rt_mpio_name(rt, v.text);
	errno = 0;
	rc = MPI_File_open(rt->cart, name, MPI_MODE_WRONLY, MPI_INFO_NULL,
			&fh);
	free(name);
	dmd_rt_io_note(rc, errno, err);
	if (rc == MPI_SUCCESS) {
		total = (MPI_Offset) v.offset +
			(MPI_Offset) dmd_rt_nelem(t->ndim, t->shape) *
			(MPI_Offset) rt->esize;
		errno = 0;
		rc = MPI_File_set_size(fh, total);
		dmd_rt_io_note(rc, errno, err);
		box.type = rt->base;
		box.count = 0;
		box.offset = 0;
		if (writer)
			dmd_rt_box_get(rt, t->ndim, bx, rel, ext, &box);
		errno = 0;
		rc = dmd_rt_set_local_view(rt, fh, v.offset, t, cyc,
			writer ? lo : zero, writer ? ext : zero, &ftype);
		dmd_rt_io_note(rc, errno, err);
		errno = 0;
		rc = dmd_rt_mpi_write_all(rt, fh,
			(const char *) buf + box.offset * rt->esize,
			box.count, box.type);
		dmd_rt_io_note(rc, errno, err);
		errno = 0;
		rc = MPI_File_close(&fh);
		dmd_rt_io_note(rc, errno, err);
		if (ftype != MPI_DATATYPE_NULL)
			MPI_Type_free(&ftype);
	}
	MPI_Allreduce(err, all_err, 2, MPI_INT, MPI_MAX, rt->cart);
	why[0] = '\0';
	if (rt->rank == 0) {
		if (all_err[0] || all_err[1]) {
			dmd_rt_io_reason(all_err[0] ? all_err[0] : all_err[1],
				why, sizeof(why));
		} else if (rename(v.text, path) != 0) {
			snprintf(why, sizeof(why), "cannot rename %s: %s",
				v.text, strerror(errno));
			all_err[0] = 1;
		}
		if (all_err[0] || all_err[1])
			unlink(v.text);
	}
	MPI_Bcast(all_err, 2, MPI_INT, 0, rt->cart);
	if (all_err[0] || all_err[1])
		dmd_rt_fail_all(rt, "tensor '%s': cannot write %s: %s",
			t->name, path, why);
	free(path);
}

/* Remove from directory "dir" the temporary files of "base" that a
 * process of this host left behind and that is gone (kill(pid, 0) fails
 * with ESRCH): regular files named ".BASE.tmp.HOST.PID" exactly.
 */
static void dmd_rt_sweep(dmd_rt *rt, const char *dir, const char *base)
{
	char prefix[NAME_MAX + 1];
	struct dirent *e;
	size_t lp;
	DIR *d;
	int n;

	n = snprintf(prefix, sizeof(prefix), ".%s.tmp.%s.", base, rt->host);
	if (n < 0 || (size_t) n >= sizeof(prefix))
		return;
	lp = (size_t) n;
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		const char *p = e->d_name + lp;
		struct stat st;
		char *end;
		long pid;

		if (strncmp(e->d_name, prefix, lp) != 0)
			continue;
		if (*p < '1' || *p > '9' || strlen(p) > 9)
			continue;
		pid = strtol(p, &end, 10);
		if (*end || pid <= 0 || pid == (long) getpid())
			continue;
		if (kill((pid_t) pid, 0) == 0 || errno != ESRCH)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st,
				AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

/* Rank 0: check that "path" (for "what", e.g. "tensor 'C'") can be
 * written: its directory exists and is writable, and the file is absent
 * or a regular file (a symbolic link is followed to decide; a dangling
 * one is refused).  On success remove the stale temporaries next to it
 * and return 0; else write a message into "msg" and return -1.
 */
static int dmd_rt_check_dest(dmd_rt *rt, const char *what, const char *path,
	char *msg, size_t size)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char dir[PATH_MAX];
	struct stat st;
	int err = 0;

	if (!slash) {
		strcpy(dir, ".");
	} else if (slash == path) {
		strcpy(dir, "/");
	} else if ((size_t) (slash - path) >= sizeof(dir)) {
		snprintf(msg, size, "%s: path too long: %.1500s", what, path);
		return -1;
	} else {
		memcpy(dir, path, slash - path);
		dir[slash - path] = '\0';
	}
	if (!*base) {
		snprintf(msg, size, "%s: cannot write %.1500s: no file name",
			what, path);
		return -1;
	}
	if (stat(dir, &st) != 0)
		err = errno;
	else if (!S_ISDIR(st.st_mode))
		err = ENOTDIR;
	else if (access(dir, W_OK | X_OK) != 0)
		err = errno;
	if (err) {
		snprintf(msg, size, "%s: cannot write %.1500s: directory "
			"%.1500s: %s", what, path, dir, strerror(err));
		return -1;
	}
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode) && stat(path, &st) != 0) {
			snprintf(msg, size, "%s: cannot write %.1500s: it is a "
				"symbolic link to a missing file (%s)", what,
				path, strerror(errno));
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(msg, size, "%s: cannot write %.1500s: it "
				"exists and is not a regular file", what, path);
			return -1;
		}
	} else if (errno != ENOENT) {
		snprintf(msg, size, "%s: cannot write %.1500s: %s", what, path,
			strerror(errno));
		return -1;
	}
	dmd_rt_sweep(rt, dir, base);
	return 0;
}

/* Rank 0: check that "dir" (DMD_DUMP_BLOCKS) is a directory where files
 * can be created; else write a message into "msg" and return -1.
 */
static int dmd_rt_check_dump_dir(const char *dir, char *msg, size_t size)
{
	struct stat st;
	int err = 0;

	if (stat(dir, &st) != 0)
		err = errno;
	else if (!S_ISDIR(st.st_mode))
		err = ENOTDIR;
	else if (access(dir, W_OK | X_OK) != 0)
		err = errno;
	if (!err)
		return 0;
	snprintf(msg, size, "DMD_DUMP_BLOCKS: cannot write into %.1500s: %s",
		dir, strerror(err));
	return -1;
}

/* Check every output destination (and the trace's, and the directory of
 * DMD_DUMP_BLOCKS) on rank 0 before any computation; a problem stops
 * every rank with rank 0's message.
 */
void dmd_rt_check_outputs(dmd_rt *rt)
{
	struct dmd_rt_verdict v;
	int i;

	memset(&v, 0, sizeof(v));
	v.ok = 1;
	for (i = 0; rt->rank == 0 && v.ok && i < rt->job->n_tensors; ++i) {
		const dmd_tensor_desc *t = &rt->job->tensors[i];
		char what[256];
		char *path;

		if (!t->output || !t->file)
			continue;
		snprintf(what, sizeof(what), "tensor '%s'", t->name);
		path = dmd_rt_path(rt, t->file);
		v.ok = dmd_rt_check_dest(rt, what, path, v.text,
			sizeof(v.text)) == 0;
		free(path);
	}
	if (rt->rank == 0 && v.ok && rt->trace_path)
		v.ok = dmd_rt_check_dest(rt, "trace (DMD_TRACE)",
			rt->trace_path, v.text, sizeof(v.text)) == 0;
	if (rt->rank == 0 && v.ok && rt->dump_dir)
		v.ok = dmd_rt_check_dump_dir(rt->dump_dir, v.text,
			sizeof(v.text)) == 0;
	MPI_Bcast(&v, sizeof(v), MPI_BYTE, 0, rt->cart);
	if (!v.ok)
		dmd_rt_fail_all(rt, "%s", v.text);
}
