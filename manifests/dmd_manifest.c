/* dmd_manifest.c: the build directory's manifest.yaml, appfile and
 * multiprog.conf (spec section 3); the manifest is written with libyaml's
 * emitter and read back with its parser.
 *
 * The writer first checks the manifest (every rank of the mesh in exactly
 * one class, counts consistent with the ranges) and writes nothing if it
 * is wrong.  Every file is written under a temporary name in the build
 * directory and then renamed, so that a reader never sees a partial file.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "ir/dmd_int.h"
#include "dmd_manifest.h"
#include "dmd_mpi.h"
#include "dmd_text.h"

/* The version written as "distmpmd: 1" and the only one read. */
#define DMD_MANIFEST_VERSION 1

/* A class with at most this many ranges has its "ranks" on one line,
 * [[0, 6], [8, 14]]; a longer list has one range per line. */
#define DMD_MANIFEST_FLOW_RANGES 8

/* One range of ranks of one class: an appfile line. */
struct dmd_manifest_run {
	long lo;
	long hi;
	int class;		/* index into the classes of the manifest */
};

/* Print "prefix" followed by the formatted message and a newline
 * on stderr. */
static void dmd_manifest_report(const char *prefix, const char *fmt, ...)
{
	va_list ap;

	fputs(prefix, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Order runs by their first rank (then last rank and class, so that
 * messages about overlaps do not depend on qsort). */
static int dmd_manifest_run_cmp(const void *a, const void *b)
{
	const struct dmd_manifest_run *ra = a, *rb = b;

	if (ra->lo != rb->lo)
		return ra->lo < rb->lo ? -1 : 1;
	if (ra->hi != rb->hi)
		return ra->hi < rb->hi ? -1 : 1;
	return ra->class - rb->class;
}

/* Order ints (class ids). */
static int dmd_manifest_int_cmp(const void *a, const void *b)
{
	int ia = *(const int *) a, ib = *(const int *) b;

	return ia < ib ? -1 : ia > ib;
}

/* Is "s" NULL or empty? */
static int dmd_manifest_empty(const char *s)
{
	return !s || !*s;
}

/* Is "s" a plain file name that the launcher files can hold as
 * "./NAME": not "." or "..", no '/', and only letters, digits and
 * "._+-" (MPICH's appfile has no quoting)? */
static int dmd_manifest_plain_name(const char *s)
{
	const char *p;

	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (p = s; *p; ++p)
		if (!isalnum((unsigned char) *p) && !strchr("._+-", *p))
			return 0;
	return 1;
}

/* Is "s" 64 lowercase hexadecimal digits? */
static int dmd_manifest_is_sha256(const char *s)
{
	int i;

	for (i = 0; i < 64; ++i)
		if (!s[i] || !strchr("0123456789abcdef", s[i]))
			return 0;
	return s[64] == '\0';
}

/* Check the mesh of "m": named, distinct axes with positive extents
 * whose product is m->nranks.  Errors are reported after "prefix". */
static int dmd_manifest_check_mesh(const struct dmd_manifest *m,
	const char *prefix)
{
	long product = 1;
	int i, j;

	if (m->n_axes < 1 || !m->axes || !m->shape) {
		dmd_manifest_report(prefix, "the mesh has no axes");
		return -1;
	}
	for (i = 0; i < m->n_axes; ++i) {
		if (dmd_manifest_empty(m->axes[i])) {
			dmd_manifest_report(prefix,
				"mesh axis %d has no name", i);
			return -1;
		}
		for (j = 0; j < i; ++j)
			if (!strcmp(m->axes[i], m->axes[j])) {
				dmd_manifest_report(prefix,
					"mesh axis '%s' appears twice",
					m->axes[i]);
				return -1;
			}
		if (m->shape[i] < 1) {
			dmd_manifest_report(prefix,
				"mesh axis '%s' has extent %ld",
				m->axes[i], m->shape[i]);
			return -1;
		}
		if (product > LONG_MAX / m->shape[i]) {
			dmd_manifest_report(prefix, "the mesh is too large");
			return -1;
		}
		product *= m->shape[i];
	}
	if (m->nranks != product) {
		dmd_manifest_report(prefix,
			"nranks is %ld but the mesh has %ld ranks",
			m->nranks, product);
		return -1;
	}
	return 0;
}

/* Check class "c" of a manifest with "nranks" ranks on its own: its
 * strings are there, its ranges are increasing, separated and inside the
 * mesh, and its count is their size.  Errors are reported after
 * "prefix". */
static int dmd_manifest_check_class(const struct dmd_mclass *c, long nranks,
	const char *prefix)
{
	long count = 0;
	int j;

	if (dmd_manifest_empty(c->source) || dmd_manifest_empty(c->binary)) {
		dmd_manifest_report(prefix, "class %d has no %s", c->id,
			dmd_manifest_empty(c->source) ? "source" : "binary");
		return -1;
	}
	if (!dmd_manifest_plain_name(c->binary)) {
		dmd_manifest_report(prefix, "class %d: the binary '%s' is not "
			"a plain file name in the build directory", c->id,
			c->binary);
		return -1;
	}
	if (c->sha256 && !dmd_manifest_is_sha256(c->sha256)) {
		dmd_manifest_report(prefix, "class %d: the sha256 '%s' is not "
			"64 hexadecimal digits", c->id, c->sha256);
		return -1;
	}
	if (c->n_ranges < 1 || !c->ranges) {
		dmd_manifest_report(prefix, "class %d has no ranks", c->id);
		return -1;
	}
	for (j = 0; j < c->n_ranges; ++j) {
		long lo = c->ranges[j][0], hi = c->ranges[j][1];

		if (lo < 0 || hi < lo || hi >= nranks) {
			dmd_manifest_report(prefix, "class %d has the range "
				"[%ld, %ld], not inside ranks 0 to %ld",
				c->id, lo, hi, nranks - 1);
			return -1;
		}
		if (j > 0 && lo <= c->ranges[j - 1][1] + 1) {
			dmd_manifest_report(prefix, "class %d: the range "
				"[%ld, %ld] does not start after [%ld, %ld] "
				"(ranges must be increasing and separated)",
				c->id, lo, hi, c->ranges[j - 1][0],
				c->ranges[j - 1][1]);
			return -1;
		}
		count += hi - lo + 1;
	}
	if (c->count != count) {
		dmd_manifest_report(prefix,
			"class %d has count %ld but its ranges hold %ld ranks",
			c->id, c->count, count);
		return -1;
	}
	return 0;
}

/* Check that the class ids of "m" are distinct. */
static int dmd_manifest_check_ids(const struct dmd_manifest *m,
	const char *prefix)
{
	int *ids;
	int i, r = 0;

	ids = malloc(m->n_classes * sizeof(*ids));
	if (!ids) {
		dmd_manifest_report(prefix, "out of memory");
		return -1;
	}
	for (i = 0; i < m->n_classes; ++i)
		ids[i] = m->classes[i].id;
	qsort(ids, m->n_classes, sizeof(*ids), &dmd_manifest_int_cmp);
	for (i = 1; i < m->n_classes; ++i)
		if (ids[i] == ids[i - 1]) {
			dmd_manifest_report(prefix,
				"two classes have the id %d", ids[i]);
			r = -1;
			break;
		}
	free(ids);
	return r;
}

/* Check "m" and return its ranges in rank order (*n_runs of them), the
 * lines of the appfile, or NULL with a message after "prefix" if "m" is
 * wrong: the mesh does not have nranks ranks, a class is malformed, or a
 * rank is in no class or in two.  Since the ranges of a class are
 * separated, two consecutive runs always belong to different classes. */
static struct dmd_manifest_run *dmd_manifest_check(
	const struct dmd_manifest *m, const char *prefix, int *n_runs)
{
	struct dmd_manifest_run *runs = NULL;
	long next = 0;
	int i, j, n = 0, last = -1;

	if (!m) {
		dmd_manifest_report(prefix, "no manifest");
		return NULL;
	}
	if (dmd_manifest_empty(m->job)) {
		dmd_manifest_report(prefix, "the job has no name");
		return NULL;
	}
	if (dmd_manifest_check_mesh(m, prefix) < 0)
		return NULL;
	if (m->n_classes < 1 || !m->classes) {
		dmd_manifest_report(prefix, "there are no classes");
		return NULL;
	}
	for (i = 0; i < m->n_classes; ++i) {
		if (dmd_manifest_check_class(&m->classes[i], m->nranks,
				prefix) < 0)
			return NULL;
		if (m->classes[i].n_ranges > INT_MAX - n) {
			dmd_manifest_report(prefix, "too many ranges");
			return NULL;
		}
		n += m->classes[i].n_ranges;
	}
	if (dmd_manifest_check_ids(m, prefix) < 0)
		return NULL;

	runs = malloc(n * sizeof(*runs));
	if (!runs) {
		dmd_manifest_report(prefix, "out of memory");
		return NULL;
	}
	n = 0;
	for (i = 0; i < m->n_classes; ++i)
		for (j = 0; j < m->classes[i].n_ranges; ++j) {
			runs[n].lo = m->classes[i].ranges[j][0];
			runs[n].hi = m->classes[i].ranges[j][1];
			runs[n].class = i;
			++n;
		}
	qsort(runs, n, sizeof(*runs), &dmd_manifest_run_cmp);

	/* "next" is the first rank not yet covered; "last" the run
	 * that covers "next - 1". */
	for (i = 0; i < n; ++i) {
		if (runs[i].lo > next) {
			dmd_manifest_report(prefix,
				"rank %ld is in no class", next);
			goto error;
		}
		if (runs[i].lo < next) {
			dmd_manifest_report(prefix,
				"rank %ld is in class %d and in class %d",
				runs[i].lo, m->classes[runs[last].class].id,
				m->classes[runs[i].class].id);
			goto error;
		}
		next = runs[i].hi + 1;
		last = i;
	}
	if (next < m->nranks) {
		dmd_manifest_report(prefix, "rank %ld is in no class", next);
		goto error;
	}

	*n_runs = n;
	return runs;
error:
	free(runs);
	return NULL;
}

/* Emit "event" (initialized by the caller if "ok") to "e".  libyaml
 * takes ownership of the event. */
static int dmd_manifest_emit(yaml_emitter_t *e, int ok, yaml_event_t *event)
{
	if (!ok) {
		e->error = YAML_MEMORY_ERROR;
		e->problem = "out of memory";
		return -1;
	}
	return yaml_emitter_emit(e, event) ? 0 : -1;
}

/* Would the plain scalar "s" be read as something other than a string
 * (a number, a boolean, null) by a common YAML reader (PyYAML, libyaml
 * based ones, YAML 1.2)?  Such strings are written quoted.  Erring on the
 * side of quoting is harmless.  The YAML 1.1 booleans "y" and "n" are
 * left plain, as these readers do, since they are likely axis names. */
static int dmd_manifest_needs_quotes(const char *s)
{
	static const char *const words[] = {
		"null", "true", "false", "yes", "no", "on", "off",
	};
	size_t i;

	if (!*s || strchr("0123456789+-.~", s[0]))
		return 1;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); ++i)
		if (!strcasecmp(s, words[i]))
			return 1;
	return 0;
}

/* Emit the string "s" as a scalar, plain if possible. */
static int dmd_manifest_emit_str(yaml_emitter_t *e, const char *s)
{
	yaml_event_t event;
	yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;

	if (dmd_manifest_needs_quotes(s))
		style = YAML_SINGLE_QUOTED_SCALAR_STYLE;
	return dmd_manifest_emit(e, yaml_scalar_event_initialize(&event,
		NULL, (yaml_char_t *) YAML_STR_TAG, (yaml_char_t *) s,
		strlen(s), 1, 1, style), &event);
}

/* Emit the integer "v" as a plain scalar. */
static int dmd_manifest_emit_long(yaml_emitter_t *e, long v)
{
	yaml_event_t event;
	char buf[32];
	int len;

	len = snprintf(buf, sizeof(buf), "%ld", v);
	return dmd_manifest_emit(e, yaml_scalar_event_initialize(&event,
		NULL, (yaml_char_t *) YAML_INT_TAG, (yaml_char_t *) buf,
		len, 1, 1, YAML_PLAIN_SCALAR_STYLE), &event);
}

/* Emit the start of a mapping, in flow style if "flow". */
static int dmd_manifest_emit_map(yaml_emitter_t *e, int flow)
{
	yaml_event_t event;

	return dmd_manifest_emit(e, yaml_mapping_start_event_initialize(&event,
		NULL, NULL, 1, flow ? YAML_FLOW_MAPPING_STYLE :
		YAML_BLOCK_MAPPING_STYLE), &event);
}

/* Emit the end of a mapping. */
static int dmd_manifest_emit_map_end(yaml_emitter_t *e)
{
	yaml_event_t event;

	return dmd_manifest_emit(e, yaml_mapping_end_event_initialize(&event),
		&event);
}

/* Emit the start of a sequence, in flow style if "flow". */
static int dmd_manifest_emit_seq(yaml_emitter_t *e, int flow)
{
	yaml_event_t event;

	return dmd_manifest_emit(e, yaml_sequence_start_event_initialize(
		&event, NULL, NULL, 1, flow ? YAML_FLOW_SEQUENCE_STYLE :
		YAML_BLOCK_SEQUENCE_STYLE), &event);
}

/* Emit the end of a sequence. */
static int dmd_manifest_emit_seq_end(yaml_emitter_t *e)
{
	yaml_event_t event;

	return dmd_manifest_emit(e, yaml_sequence_end_event_initialize(&event),
		&event);
}

/* Emit the key "key" with the string value "s". */
static int dmd_manifest_emit_key_str(yaml_emitter_t *e, const char *key,
	const char *s)
{
	if (dmd_manifest_emit_str(e, key) < 0)
		return -1;
	return dmd_manifest_emit_str(e, s);
}

/* Emit the key "key" with the integer value "v". */
static int dmd_manifest_emit_key_long(yaml_emitter_t *e, const char *key,
	long v)
{
	if (dmd_manifest_emit_str(e, key) < 0)
		return -1;
	return dmd_manifest_emit_long(e, v);
}

/* Emit the mesh of "m" as a flow mapping
 * {axes: [x, y], shape: [8, 8]}. */
static int dmd_manifest_emit_mesh(yaml_emitter_t *e,
	const struct dmd_manifest *m)
{
	int i;

	if (dmd_manifest_emit_map(e, 1) < 0 ||
	    dmd_manifest_emit_str(e, "axes") < 0 ||
	    dmd_manifest_emit_seq(e, 1) < 0)
		return -1;
	for (i = 0; i < m->n_axes; ++i)
		if (dmd_manifest_emit_str(e, m->axes[i]) < 0)
			return -1;
	if (dmd_manifest_emit_seq_end(e) < 0 ||
	    dmd_manifest_emit_str(e, "shape") < 0 ||
	    dmd_manifest_emit_seq(e, 1) < 0)
		return -1;
	for (i = 0; i < m->n_axes; ++i)
		if (dmd_manifest_emit_long(e, m->shape[i]) < 0)
			return -1;
	if (dmd_manifest_emit_seq_end(e) < 0)
		return -1;
	return dmd_manifest_emit_map_end(e);
}

/* Emit the MPI of "m" as "mpi: {family: openmpi, version: 4.1.4,
 * mpicc: mpicc.openmpi}". */
static int dmd_manifest_emit_mpi(yaml_emitter_t *e,
	const struct dmd_manifest *m)
{
	if (dmd_manifest_emit_str(e, "mpi") < 0 ||
	    dmd_manifest_emit_map(e, 1) < 0 ||
	    dmd_manifest_emit_key_str(e, "family", m->mpi) < 0 ||
	    dmd_manifest_emit_key_str(e, "version",
			m->mpi_version ? m->mpi_version : "") < 0 ||
	    dmd_manifest_emit_key_str(e, "mpicc",
			m->mpicc ? m->mpicc : "") < 0)
		return -1;
	return dmd_manifest_emit_map_end(e);
}

/* Emit class "c" as a block mapping with the keys id, source, binary,
 * sha256 (if present), ranks, count and, if present, set, why and
 * blocks (a list of lines: the blocks of each cyclic tensor). */
static int dmd_manifest_emit_class(yaml_emitter_t *e,
	const struct dmd_mclass *c)
{
	int j, flow = c->n_ranges <= DMD_MANIFEST_FLOW_RANGES;

	if (dmd_manifest_emit_map(e, 0) < 0 ||
	    dmd_manifest_emit_key_long(e, "id", c->id) < 0 ||
	    dmd_manifest_emit_key_str(e, "source", c->source) < 0 ||
	    dmd_manifest_emit_key_str(e, "binary", c->binary) < 0 ||
	    (c->sha256 &&
	     dmd_manifest_emit_key_str(e, "sha256", c->sha256) < 0) ||
	    dmd_manifest_emit_str(e, "ranks") < 0 ||
	    dmd_manifest_emit_seq(e, flow) < 0)
		return -1;
	for (j = 0; j < c->n_ranges; ++j)
		if (dmd_manifest_emit_seq(e, 1) < 0 ||
		    dmd_manifest_emit_long(e, c->ranges[j][0]) < 0 ||
		    dmd_manifest_emit_long(e, c->ranges[j][1]) < 0 ||
		    dmd_manifest_emit_seq_end(e) < 0)
			return -1;
	if (dmd_manifest_emit_seq_end(e) < 0 ||
	    dmd_manifest_emit_key_long(e, "count", c->count) < 0)
		return -1;
	if (c->set && dmd_manifest_emit_key_str(e, "set", c->set) < 0)
		return -1;
	if (c->why && dmd_manifest_emit_key_str(e, "why", c->why) < 0)
		return -1;
	if (c->n_blocks > 0 && (dmd_manifest_emit_str(e, "blocks") < 0 ||
	    dmd_manifest_emit_seq(e, 0) < 0))
		return -1;
	for (j = 0; j < c->n_blocks; ++j)
		if (dmd_manifest_emit_str(e, c->blocks[j]) < 0)
			return -1;
	if (c->n_blocks > 0 && dmd_manifest_emit_seq_end(e) < 0)
		return -1;
	return dmd_manifest_emit_map_end(e);
}

/* Emit the files of the job, "files:" (after "job_dir:" and
 * "job_file:"), one flow mapping per file:
 *   - {tensor: B, file: B.npy, role: input, dtype: f32, shape: [96, 48]}
 * with role "input", "output" or "input, output". */
static int dmd_manifest_emit_files(yaml_emitter_t *e,
	const struct dmd_manifest *m)
{
	int i, d;

	if (dmd_manifest_emit_key_str(e, "job_dir", m->job_dir) < 0 ||
	    dmd_manifest_emit_key_str(e, "job_file", m->job_file) < 0 ||
	    dmd_manifest_emit_str(e, "files") < 0 ||
	    dmd_manifest_emit_seq(e, 0) < 0)
		return -1;
	for (i = 0; i < m->n_files; ++i) {
		const struct dmd_mfile *f = &m->files[i];

		if (dmd_manifest_emit_map(e, 1) < 0 ||
		    dmd_manifest_emit_key_str(e, "tensor", f->tensor) < 0 ||
		    dmd_manifest_emit_key_str(e, "file", f->file) < 0 ||
		    dmd_manifest_emit_key_str(e, "role", f->input &&
			f->output ? "input, output" : f->input ? "input" :
			"output") < 0 ||
		    dmd_manifest_emit_key_str(e, "dtype", f->f64 ? "f64" :
			"f32") < 0 ||
		    dmd_manifest_emit_str(e, "shape") < 0 ||
		    dmd_manifest_emit_seq(e, 1) < 0)
			return -1;
		for (d = 0; d < f->ndim; ++d)
			if (dmd_manifest_emit_long(e, f->shape[d]) < 0)
				return -1;
		if (dmd_manifest_emit_seq_end(e) < 0 ||
		    dmd_manifest_emit_map_end(e) < 0)
			return -1;
	}
	return dmd_manifest_emit_seq_end(e);
}

/* Emit the whole document for "m". */
static int dmd_manifest_emit_document(yaml_emitter_t *e,
	const struct dmd_manifest *m)
{
	yaml_event_t event;
	int i;

	if (dmd_manifest_emit(e, yaml_stream_start_event_initialize(&event,
			YAML_UTF8_ENCODING), &event) < 0 ||
	    dmd_manifest_emit(e, yaml_document_start_event_initialize(&event,
			NULL, NULL, NULL, 1), &event) < 0 ||
	    dmd_manifest_emit_map(e, 0) < 0 ||
	    dmd_manifest_emit_key_long(e, "distmpmd",
			DMD_MANIFEST_VERSION) < 0 ||
	    dmd_manifest_emit_key_str(e, "job", m->job) < 0 ||
	    dmd_manifest_emit_str(e, "mesh") < 0 ||
	    dmd_manifest_emit_mesh(e, m) < 0 ||
	    dmd_manifest_emit_key_long(e, "nranks", m->nranks) < 0 ||
	    (m->mpi && dmd_manifest_emit_mpi(e, m) < 0) ||
	    (m->job_dir && dmd_manifest_emit_files(e, m) < 0) ||
	    dmd_manifest_emit_str(e, "classes") < 0 ||
	    dmd_manifest_emit_seq(e, 0) < 0)
		return -1;
	for (i = 0; i < m->n_classes; ++i)
		if (dmd_manifest_emit_class(e, &m->classes[i]) < 0)
			return -1;
	if (dmd_manifest_emit_seq_end(e) < 0 ||
	    dmd_manifest_emit_map_end(e) < 0 ||
	    dmd_manifest_emit(e, yaml_document_end_event_initialize(&event,
			1), &event) < 0 ||
	    dmd_manifest_emit(e, yaml_stream_end_event_initialize(&event),
			&event) < 0)
		return -1;
	return 0;
}

/* Create a file in "dir" to write "path" (a file in "dir") under a
 * temporary name, which is returned in *tmp.  The file gets the mode
 * that creating "path" would give it.  NULL with a message on error. */
static FILE *dmd_manifest_open_temp(const char *dir, const char *path,
	char **tmp)
{
	const char *base = strrchr(path, '/');
	mode_t mask;
	FILE *f;
	int fd;

	*tmp = NULL;
	base = base ? base + 1 : path;
	if (asprintf(tmp, "%s%s.%s.XXXXXX", dir,
			dir[strlen(dir) - 1] == '/' ? "" : "/", base) < 0) {
		*tmp = NULL;
		fprintf(stderr, "distmpmd: out of memory\n");
		return NULL;
	}
	fd = mkstemp(*tmp);
	if (fd < 0) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			strerror(errno));
		goto error;
	}
	mask = umask(0);
	umask(mask);
	f = fdopen(fd, "w");
	if (fchmod(fd, 0666 & ~mask) < 0 || !f) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			strerror(errno));
		if (f)
			fclose(f);
		else
			close(fd);
		unlink(*tmp);
		goto error;
	}
	return f;
error:
	free(*tmp);
	*tmp = NULL;
	return NULL;
}

/* Flush "f", written for "path", to disk and close it.
 * -1 with a message if anything failed, including an earlier write. */
static int dmd_manifest_close_temp(FILE *f, const char *path)
{
	int failed;

	failed = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) < 0;
	if (fclose(f) != 0)
		failed = 1;
	if (failed) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Write manifest.yaml for "m" to "f", destined for "path". */
static int dmd_manifest_write_yaml(FILE *f, const char *path,
	const struct dmd_manifest *m)
{
	yaml_emitter_t e;
	int r;

	if (!yaml_emitter_initialize(&e)) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return -1;
	}
	yaml_emitter_set_output_file(&e, f);
	yaml_emitter_set_unicode(&e, 1);
	yaml_emitter_set_width(&e, -1);
	r = dmd_manifest_emit_document(&e, m);
	if (r == 0 && !yaml_emitter_flush(&e))
		r = -1;
	if (r < 0)
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			e.problem ? e.problem : "libyaml emitter error");
	yaml_emitter_delete(&e);
	return r;
}

/* Return the appfile text for "m", whose runs in rank order are the "n"
 * "runs" (see dmd_manifest_appfile), or NULL if memory runs out. */
static char *dmd_manifest_appfile_text(const struct dmd_manifest *m,
	const struct dmd_manifest_run *runs, int n)
{
	char *text = NULL;
	size_t size;
	FILE *f;
	int i;

	f = open_memstream(&text, &size);
	if (!f)
		return NULL;
	for (i = 0; i < n; ++i)
		fprintf(f, "-n %ld ./%s\n", runs[i].hi - runs[i].lo + 1,
			m->classes[runs[i].class].binary);
	if (ferror(f)) {
		fclose(f);
		free(text);
		return NULL;
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* Return the multiprog.conf text for the checked manifest "m" (see
 * dmd_manifest_multiprog), or NULL if memory runs out. */
static char *dmd_manifest_multiprog_text(const struct dmd_manifest *m)
{
	char *text = NULL;
	size_t size;
	FILE *f;
	int i, j;

	f = open_memstream(&text, &size);
	if (!f)
		return NULL;
	for (i = 0; i < m->n_classes; ++i) {
		const struct dmd_mclass *c = &m->classes[i];

		for (j = 0; j < c->n_ranges; ++j) {
			fprintf(f, "%s%ld", j ? "," : "", c->ranges[j][0]);
			if (c->ranges[j][1] != c->ranges[j][0])
				fprintf(f, "-%ld", c->ranges[j][1]);
		}
		fprintf(f, " ./%s\n", c->binary);
	}
	if (ferror(f)) {
		fclose(f);
		free(text);
		return NULL;
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* The appfile that "m" implies (see the header). */
char *dmd_manifest_appfile(const struct dmd_manifest *m)
{
	struct dmd_manifest_run *runs;
	char *text;
	int n;

	runs = dmd_manifest_check(m, "distmpmd: error: ", &n);
	if (!runs)
		return NULL;
	text = dmd_manifest_appfile_text(m, runs, n);
	if (!text)
		fprintf(stderr, "distmpmd: out of memory\n");
	free(runs);
	return text;
}

/* The multiprog.conf that "m" implies (see the header). */
char *dmd_manifest_multiprog(const struct dmd_manifest *m)
{
	struct dmd_manifest_run *runs;
	char *text;
	int n;

	runs = dmd_manifest_check(m, "distmpmd: error: ", &n);
	if (!runs)
		return NULL;
	free(runs);
	text = dmd_manifest_multiprog_text(m);
	if (!text)
		fprintf(stderr, "distmpmd: out of memory\n");
	return text;
}

/* Write "text" into a temporary file in "dir" destined for "path";
 * its name is returned in *tmp.  -1 with a message on error. */
static int dmd_manifest_write_temp(const char *dir, const char *path,
	const char *text, char **tmp)
{
	FILE *f;

	f = dmd_manifest_open_temp(dir, path, tmp);
	if (!f)
		return -1;
	if (fputs(text, f) < 0) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			strerror(errno));
		fclose(f);
		return -1;
	}
	return dmd_manifest_close_temp(f, path);
}

/* Rename the temporary file *tmp to "path" and forget its name.
 * -1 with a message on error (*tmp is left for the caller to remove). */
static int dmd_manifest_rename(char **tmp, const char *path)
{
	if (rename(*tmp, path) < 0) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	free(*tmp);
	*tmp = NULL;
	return 0;
}

/* Write DIR/manifest.yaml, DIR/appfile and DIR/multiprog.conf for "m"
 * (see the header).  All three are written completely under temporary
 * names before any is renamed; the manifest is renamed last. */
int dmd_manifest_write(const char *dir, const struct dmd_manifest *m)
{
	struct dmd_manifest_run *runs = NULL;
	char *manifest = NULL, *appfile = NULL, *multiprog = NULL;
	char *prefix = NULL, *app_text = NULL, *mp_text = NULL;
	char *tmp_manifest = NULL, *tmp_appfile = NULL, *tmp_multiprog = NULL;
	FILE *f;
	int n_runs, r = -1;

	manifest = dmd_path_join(dir, "manifest.yaml");
	appfile = dmd_path_join(dir, "appfile");
	multiprog = dmd_path_join(dir, "multiprog.conf");
	if (!manifest || !appfile || !multiprog)
		goto error;
	if (asprintf(&prefix, "distmpmd: cannot write %s: ", manifest) < 0) {
		prefix = NULL;
		fprintf(stderr, "distmpmd: out of memory\n");
		goto error;
	}
	runs = dmd_manifest_check(m, prefix, &n_runs);
	if (!runs)
		goto error;
	app_text = dmd_manifest_appfile_text(m, runs, n_runs);
	mp_text = dmd_manifest_multiprog_text(m);
	if (!app_text || !mp_text) {
		fprintf(stderr, "distmpmd: out of memory\n");
		goto error;
	}

	f = dmd_manifest_open_temp(dir, manifest, &tmp_manifest);
	if (!f)
		goto error;
	if (dmd_manifest_write_yaml(f, manifest, m) < 0) {
		fclose(f);
		goto error;
	}
	if (dmd_manifest_close_temp(f, manifest) < 0)
		goto error;
	if (dmd_manifest_write_temp(dir, appfile, app_text, &tmp_appfile) < 0 ||
	    dmd_manifest_write_temp(dir, multiprog, mp_text,
			&tmp_multiprog) < 0)
		goto error;

	if (dmd_manifest_rename(&tmp_appfile, appfile) < 0 ||
	    dmd_manifest_rename(&tmp_multiprog, multiprog) < 0 ||
	    dmd_manifest_rename(&tmp_manifest, manifest) < 0)
		goto error;
	r = 0;
error:
	if (tmp_manifest)
		unlink(tmp_manifest);
	if (tmp_appfile)
		unlink(tmp_appfile);
	if (tmp_multiprog)
		unlink(tmp_multiprog);
	free(tmp_manifest);
	free(tmp_appfile);
	free(tmp_multiprog);
	free(app_text);
	free(mp_text);
	free(runs);
	free(prefix);
	free(manifest);
	free(appfile);
	free(multiprog);
	return r;
}

/* Free "m" and everything it holds, also if it was only partly
 * filled in by the reader.  Returns NULL. */
struct dmd_manifest *dmd_manifest_free(struct dmd_manifest *m)
{
	int i;

	if (!m)
		return NULL;
	free(m->mpi);
	free(m->mpi_version);
	free(m->mpicc);
	free(m->job);
	if (m->axes)
		for (i = 0; i < m->n_axes; ++i)
			free(m->axes[i]);
	free(m->axes);
	free(m->shape);
	if (m->classes)
		for (i = 0; i < m->n_classes; ++i) {
			struct dmd_mclass *c = &m->classes[i];

			free(c->source);
			free(c->binary);
			free(c->set);
			free(c->why);
			free(c->ranges);
			free(c->sha256);
		}
	free(m->classes);
	free(m->job_dir);
	free(m->job_file);
	if (m->files)
		for (i = 0; i < m->n_files; ++i) {
			free(m->files[i].tensor);
			free(m->files[i].file);
			free(m->files[i].shape);
		}
	free(m->files);
	free(m);
	return NULL;
}

/* The state of reading one manifest.yaml. */
struct dmd_manifest_reader {
	const char *path;	/* for messages */
	yaml_document_t *doc;
};

/* Report an error at the position of "node" of the manifest being read,
 * as "path:line:column: error: message". */
static void dmd_manifest_read_error(struct dmd_manifest_reader *rd,
	yaml_node_t *node, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%lu:%lu: error: ", rd->path,
		(unsigned long) node->start_mark.line + 1,
		(unsigned long) node->start_mark.column + 1);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Report an out of memory condition while reading. */
static void dmd_manifest_read_nomem(struct dmd_manifest_reader *rd)
{
	fprintf(stderr, "%s: error: out of memory\n", rd->path);
}

/* Is "node" a null scalar ("", "~", "null")? */
static int dmd_manifest_is_null(yaml_node_t *node)
{
	const char *s = (const char *) node->data.scalar.value;

	if (node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") ||
		!strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* Read the string "node" (the value of "key") into *s. */
static int dmd_manifest_read_str(struct dmd_manifest_reader *rd,
	yaml_node_t *node, const char *key, char **s)
{
	if (node->type != YAML_SCALAR_NODE || dmd_manifest_is_null(node)) {
		dmd_manifest_read_error(rd, node,
			"'%s' must be a string", key);
		return -1;
	}
	*s = strdup((const char *) node->data.scalar.value);
	if (!*s) {
		dmd_manifest_read_nomem(rd);
		return -1;
	}
	return 0;
}

/* Read the integer "node" (the value of "key") into *v (ir/dmd_int.h:
 * a sign and decimal digits, within a long). */
static int dmd_manifest_read_long(struct dmd_manifest_reader *rd,
	yaml_node_t *node, const char *key, long *v)
{
	if (node->type == YAML_SCALAR_NODE &&
	    dmd_int_parse((const char *) node->data.scalar.value,
			node->data.scalar.length, LONG_MIN, LONG_MAX, v) ==
			DMD_INT_OK)
		return 0;

	dmd_manifest_read_error(rd, node, "'%s' must be an integer", key);
	return -1;
}

/* Read the integer "node" (the value of "key") into the int *v. */
static int dmd_manifest_read_int(struct dmd_manifest_reader *rd,
	yaml_node_t *node, const char *key, int *v)
{
	long l;

	if (dmd_manifest_read_long(rd, node, key, &l) < 0)
		return -1;
	if (l < INT_MIN || l > INT_MAX) {
		dmd_manifest_read_error(rd, node, "'%s' is too large", key);
		return -1;
	}
	*v = l;
	return 0;
}

/* Return the number of items of the sequence "node" (the value of "key"),
 * or -1 with a message if it is not a sequence. */
static int dmd_manifest_seq_len(struct dmd_manifest_reader *rd,
	yaml_node_t *node, const char *key)
{
	if (node->type != YAML_SEQUENCE_NODE) {
		dmd_manifest_read_error(rd, node,
			"'%s' must be a list", key);
		return -1;
	}
	return node->data.sequence.items.top - node->data.sequence.items.start;
}

/* Return item "i" of the sequence "node". */
static yaml_node_t *dmd_manifest_seq_item(struct dmd_manifest_reader *rd,
	yaml_node_t *node, int i)
{
	return yaml_document_get_node(rd->doc,
		node->data.sequence.items.start[i]);
}

/* Find the keys "keys" (n of them) in the mapping "node" (the value of
 * "what"), storing the value of keys[i] in values[i] (NULL if absent).
 * Other keys are ignored, so that later versions may add some; repeated
 * or non-scalar keys are errors, and so is a missing key of which
 * "required" has bit i set. */
static int dmd_manifest_map_get(struct dmd_manifest_reader *rd,
	yaml_node_t *node, const char *what, int n, const char *const *keys,
	unsigned required, yaml_node_t **values)
{
	yaml_node_pair_t *pair;
	int i;

	if (node->type != YAML_MAPPING_NODE) {
		dmd_manifest_read_error(rd, node, "%s must be a mapping",
			what);
		return -1;
	}
	for (i = 0; i < n; ++i)
		values[i] = NULL;
	for (pair = node->data.mapping.pairs.start;
	     pair < node->data.mapping.pairs.top; ++pair) {
		yaml_node_t *key = yaml_document_get_node(rd->doc, pair->key);
		const char *name;

		if (key->type != YAML_SCALAR_NODE) {
			dmd_manifest_read_error(rd, key,
				"the keys of %s must be strings", what);
			return -1;
		}
		name = (const char *) key->data.scalar.value;
		for (i = 0; i < n; ++i)
			if (!strcmp(name, keys[i]))
				break;
		if (i == n)
			continue;
		if (values[i]) {
			dmd_manifest_read_error(rd, key,
				"'%s' appears twice in %s", name, what);
			return -1;
		}
		values[i] = yaml_document_get_node(rd->doc, pair->value);
	}
	for (i = 0; i < n; ++i)
		if ((required & (1u << i)) && !values[i]) {
			dmd_manifest_read_error(rd, node,
				"%s has no '%s'", what, keys[i]);
			return -1;
		}
	return 0;
}

/* Read the mesh mapping "node" {axes: [...], shape: [...]} into "m". */
static int dmd_manifest_read_mesh(struct dmd_manifest_reader *rd,
	yaml_node_t *node, struct dmd_manifest *m)
{
	static const char *const keys[] = { "axes", "shape" };
	yaml_node_t *v[2];
	int i, n, n_shape;

	if (dmd_manifest_map_get(rd, node, "the mesh", 2, keys, 3, v) < 0)
		return -1;
	n = dmd_manifest_seq_len(rd, v[0], "axes");
	if (n < 0)
		return -1;
	n_shape = dmd_manifest_seq_len(rd, v[1], "shape");
	if (n_shape < 0)
		return -1;
	if (n_shape != n) {
		dmd_manifest_read_error(rd, node,
			"the mesh has %d axes but %d extents", n, n_shape);
		return -1;
	}
	m->axes = calloc(n ? n : 1, sizeof(*m->axes));
	m->shape = calloc(n ? n : 1, sizeof(*m->shape));
	if (!m->axes || !m->shape) {
		dmd_manifest_read_nomem(rd);
		return -1;
	}
	m->n_axes = n;
	for (i = 0; i < n; ++i)
		if (dmd_manifest_read_str(rd, dmd_manifest_seq_item(rd, v[0], i),
				"axes", &m->axes[i]) < 0 ||
		    dmd_manifest_read_long(rd,
				dmd_manifest_seq_item(rd, v[1], i), "shape",
				&m->shape[i]) < 0)
			return -1;
	return 0;
}

/* Read the "ranks" list "node", [[lo, hi], ...], into class "c". */
static int dmd_manifest_read_ranges(struct dmd_manifest_reader *rd,
	yaml_node_t *node, struct dmd_mclass *c)
{
	int j, n;

	n = dmd_manifest_seq_len(rd, node, "ranks");
	if (n < 0)
		return -1;
	c->ranges = calloc(n ? n : 1, sizeof(*c->ranges));
	if (!c->ranges) {
		dmd_manifest_read_nomem(rd);
		return -1;
	}
	c->n_ranges = n;
	for (j = 0; j < n; ++j) {
		yaml_node_t *range = dmd_manifest_seq_item(rd, node, j);

		if (range->type != YAML_SEQUENCE_NODE ||
		    dmd_manifest_seq_len(rd, range, "ranks") != 2) {
			dmd_manifest_read_error(rd, range, "a range of ranks "
				"must be a list [first, last]");
			return -1;
		}
		if (dmd_manifest_read_long(rd,
				dmd_manifest_seq_item(rd, range, 0), "ranks",
				&c->ranges[j][0]) < 0 ||
		    dmd_manifest_read_long(rd,
				dmd_manifest_seq_item(rd, range, 1), "ranks",
				&c->ranges[j][1]) < 0)
			return -1;
	}
	return 0;
}

/* Read the class mapping "node" into "c". */
static int dmd_manifest_read_class(struct dmd_manifest_reader *rd,
	yaml_node_t *node, struct dmd_mclass *c)
{
	static const char *const keys[] = {
		"id", "source", "binary", "ranks", "count", "set", "why",
		"sha256",
	};
	yaml_node_t *v[8];

	if (dmd_manifest_map_get(rd, node, "a class", 8, keys, 0x1f, v) < 0)
		return -1;
	if (dmd_manifest_read_int(rd, v[0], "id", &c->id) < 0 ||
	    dmd_manifest_read_str(rd, v[1], "source", &c->source) < 0 ||
	    dmd_manifest_read_str(rd, v[2], "binary", &c->binary) < 0 ||
	    dmd_manifest_read_ranges(rd, v[3], c) < 0 ||
	    dmd_manifest_read_long(rd, v[4], "count", &c->count) < 0)
		return -1;
	if (v[5] && !dmd_manifest_is_null(v[5]) &&
	    dmd_manifest_read_str(rd, v[5], "set", &c->set) < 0)
		return -1;
	if (v[6] && !dmd_manifest_is_null(v[6]) &&
	    dmd_manifest_read_str(rd, v[6], "why", &c->why) < 0)
		return -1;
	if (v[7] && dmd_manifest_read_str(rd, v[7], "sha256", &c->sha256) < 0)
		return -1;
	return 0;
}

/* Read the mapping "node" {family: F, version: V, mpicc: CC} into "m";
 * F must be a family that distmpmd knows. */
static int dmd_manifest_read_mpi(struct dmd_manifest_reader *rd,
	yaml_node_t *node, struct dmd_manifest *m)
{
	static const char *const keys[] = { "family", "version", "mpicc" };
	yaml_node_t *v[3];

	if (dmd_manifest_map_get(rd, node, "mpi", 3, keys, 0x7, v) < 0 ||
	    dmd_manifest_read_str(rd, v[0], "family", &m->mpi) < 0 ||
	    dmd_manifest_read_str(rd, v[1], "version", &m->mpi_version) < 0 ||
	    dmd_manifest_read_str(rd, v[2], "mpicc", &m->mpicc) < 0)
		return -1;
	if (dmd_mpi_family_of(m->mpi) < 0) {
		dmd_manifest_read_error(rd, v[0], "an MPI family that this "
			"distmpmd does not know (it knows mpich and openmpi)");
		return -1;
	}
	return 0;
}

/* Read the file mapping "node" ({tensor, file, role, dtype, shape}, see
 * dmd_manifest_emit_files) into "f". */
static int dmd_manifest_read_file(struct dmd_manifest_reader *rd,
	yaml_node_t *node, struct dmd_mfile *f)
{
	static const char *const keys[] = {
		"tensor", "file", "role", "dtype", "shape",
	};
	yaml_node_t *v[5];
	char *role = NULL, *dtype = NULL;
	int d, n, r = -1;

	if (dmd_manifest_map_get(rd, node, "a file", 5, keys, 0x1f, v) < 0 ||
	    dmd_manifest_read_str(rd, v[0], "tensor", &f->tensor) < 0 ||
	    dmd_manifest_read_str(rd, v[1], "file", &f->file) < 0 ||
	    dmd_manifest_read_str(rd, v[2], "role", &role) < 0 ||
	    dmd_manifest_read_str(rd, v[3], "dtype", &dtype) < 0)
		goto done;
	f->input = !strcmp(role, "input") || !strcmp(role, "input, output");
	f->output = !strcmp(role, "output") || !strcmp(role, "input, output");
	if (!f->input && !f->output) {
		dmd_manifest_read_error(rd, v[2], "'role' must be 'input', "
			"'output' or 'input, output'");
		goto done;
	}
	f->f64 = !strcmp(dtype, "f64");
	if (!f->f64 && strcmp(dtype, "f32")) {
		dmd_manifest_read_error(rd, v[3], "'dtype' must be 'f32' or "
			"'f64'");
		goto done;
	}
	n = dmd_manifest_seq_len(rd, v[4], "shape");
	if (n < 0)
		goto done;
	if (n > 32) {
		dmd_manifest_read_error(rd, v[4], "'shape' has more than 32 "
			"extents");
		goto done;
	}
	f->shape = calloc(n ? n : 1, sizeof(*f->shape));
	if (!f->shape) {
		dmd_manifest_read_nomem(rd);
		goto done;
	}
	f->ndim = n;
	for (d = 0; d < n; ++d)
		if (dmd_manifest_read_long(rd, dmd_manifest_seq_item(rd, v[4],
				d), "shape", &f->shape[d]) < 0)
			goto done;
		else if (f->shape[d] < 0) {
			dmd_manifest_read_error(rd, v[4], "a negative extent "
				"in 'shape'");
			goto done;
		}
	r = 0;
done:
	free(role);
	free(dtype);
	return r;
}

/* Read "job_dir", "job_file" and "files" (v[0..2], each NULL if absent)
 * into "m": all three or none. */
static int dmd_manifest_read_files(struct dmd_manifest_reader *rd,
	yaml_node_t *root, yaml_node_t *const v[3], struct dmd_manifest *m)
{
	int i, n;

	if (!v[0] && !v[1] && !v[2])
		return 0;
	if (!v[0] || !v[1] || !v[2]) {
		dmd_manifest_read_error(rd, root, "the manifest has some of "
			"'job_dir', 'job_file' and 'files' but not all");
		return -1;
	}
	if (dmd_manifest_read_str(rd, v[0], "job_dir", &m->job_dir) < 0 ||
	    dmd_manifest_read_str(rd, v[1], "job_file", &m->job_file) < 0)
		return -1;
	n = dmd_manifest_seq_len(rd, v[2], "files");
	if (n < 0)
		return -1;
	m->files = calloc(n ? n : 1, sizeof(*m->files));
	if (!m->files) {
		dmd_manifest_read_nomem(rd);
		return -1;
	}
	m->n_files = n;
	for (i = 0; i < n; ++i)
		if (dmd_manifest_read_file(rd, dmd_manifest_seq_item(rd, v[2],
				i), &m->files[i]) < 0)
			return -1;
	return 0;
}

/* Read the document root "root" into "m". */
static int dmd_manifest_read_root(struct dmd_manifest_reader *rd,
	yaml_node_t *root, struct dmd_manifest *m)
{
	static const char *const keys[] = {
		"distmpmd", "job", "mesh", "nranks", "classes", "mpi",
		"job_dir", "job_file", "files",
	};
	yaml_node_t *v[9];
	long version;
	int i, n;

	if (dmd_manifest_map_get(rd, root, "the manifest", 9, keys, 0x1,
			v) < 0)
		return -1;
	if (dmd_manifest_read_long(rd, v[0], "distmpmd", &version) < 0)
		return -1;
	if (version != DMD_MANIFEST_VERSION) {
		dmd_manifest_read_error(rd, v[0], "manifest version %ld "
			"(this distmpmd reads version %d)", version,
			DMD_MANIFEST_VERSION);
		return -1;
	}
	/* Only now that the version is known, require the other keys. */
	if (dmd_manifest_map_get(rd, root, "the manifest", 9, keys, 0x1f,
			v) < 0)
		return -1;
	if (v[5] && dmd_manifest_read_mpi(rd, v[5], m) < 0)
		return -1;
	if (dmd_manifest_read_str(rd, v[1], "job", &m->job) < 0 ||
	    dmd_manifest_read_mesh(rd, v[2], m) < 0 ||
	    dmd_manifest_read_long(rd, v[3], "nranks", &m->nranks) < 0 ||
	    dmd_manifest_read_files(rd, root, v + 6, m) < 0)
		return -1;
	n = dmd_manifest_seq_len(rd, v[4], "classes");
	if (n < 0)
		return -1;
	m->classes = calloc(n ? n : 1, sizeof(*m->classes));
	if (!m->classes) {
		dmd_manifest_read_nomem(rd);
		return -1;
	}
	m->n_classes = n;
	for (i = 0; i < n; ++i)
		if (dmd_manifest_read_class(rd,
				dmd_manifest_seq_item(rd, v[4], i),
				&m->classes[i]) < 0)
			return -1;
	return 0;
}

/* Read DIR/manifest.yaml (see the header).  After parsing, the manifest
 * gets the same checks as in dmd_manifest_write. */
struct dmd_manifest *dmd_manifest_read(const char *dir)
{
	struct dmd_manifest_reader rd;
	struct dmd_manifest *m = NULL;
	struct dmd_manifest_run *runs;
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	char *path, *prefix = NULL;
	int parser_ok = 0, doc_ok = 0, n_runs;
	FILE *f = NULL;

	path = dmd_path_join(dir, "manifest.yaml");
	if (!path)
		return NULL;
	rd.path = path;
	rd.doc = &doc;
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "distmpmd: cannot read %s: %s\n", path,
			strerror(errno));
		goto error;
	}
	if (!yaml_parser_initialize(&parser)) {
		dmd_manifest_read_nomem(&rd);
		goto error;
	}
	parser_ok = 1;
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		fprintf(stderr, "%s:%lu:%lu: error: %s%s%s\n", path,
			(unsigned long) parser.problem_mark.line + 1,
			(unsigned long) parser.problem_mark.column + 1,
			parser.context ? parser.context : "",
			parser.context ? ": " : "",
			parser.problem ? parser.problem : "malformed YAML");
		goto error;
	}
	doc_ok = 1;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		fprintf(stderr, "%s: error: the file is empty\n", path);
		goto error;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		dmd_manifest_read_nomem(&rd);
		goto error;
	}
	if (dmd_manifest_read_root(&rd, root, m) < 0)
		goto error;
	if (asprintf(&prefix, "%s: error: ", path) < 0) {
		prefix = NULL;
		dmd_manifest_read_nomem(&rd);
		goto error;
	}
	runs = dmd_manifest_check(m, prefix, &n_runs);
	if (!runs)
		goto error;
	free(runs);

	free(prefix);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(f);
	free(path);
	return m;
error:
	free(prefix);
	dmd_manifest_free(m);
	if (doc_ok)
		yaml_document_delete(&doc);
	if (parser_ok)
		yaml_parser_delete(&parser);
	if (f)
		fclose(f);
	free(path);
	return NULL;
}
