/* manifest_test.c: unit test of manifests/ (manifest.yaml, appfile,
 * multiprog.conf, SHA-256, checking a build directory, the launcher).
 *
 *	manifest_test WORKDIR [HELLO EXIT3]
 *
 * WORKDIR is an empty scratch directory (removed by the caller).  HELLO
 * and EXIT3 are MPI programs built by manifest_test.sh: HELLO exits 0 when
 * run on 2 ranks with the expected environment, EXIT3 exits 3 on rank 1.
 * Without them the tests that run MPI programs are skipped.  Prints one
 * "ok - ..." or "FAIL - ..." line per check and "N passed, M failed" last.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manifests/dmd_launch.h"
#include "manifests/dmd_manifest.h"
#include "manifests/dmd_sha256.h"

static int n_passed, n_failed;

/* Record the check "name" as passed if "ok". */
static void check(int ok, const char *name, int line)
{
	if (ok) {
		++n_passed;
		printf("ok - %s\n", name);
	} else {
		++n_failed;
		printf("FAIL - %s (line %d)\n", name, line);
	}
	fflush(stdout);
}

#define CHECK(cond, name)	check(!!(cond), name, __LINE__)

/* Return the contents of the file "path" (NULL if it cannot be read). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t size = 0;

	if (!f)
		return NULL;
	buf = malloc(1 << 16);
	if (buf)
		size = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	if (buf)
		buf[size] = '\0';
	return buf;
}

/* Compare the contents of "path" with "expected"; show both if they
 * differ. */
static int file_is(const char *path, const char *expected)
{
	char *got = slurp(path);
	int ok = got && !strcmp(got, expected);

	if (!ok)
		printf("# %s:\n# expected:\n%s# got:\n%s", path, expected,
			got ? got : "(nothing)\n");
	free(got);
	return ok;
}

/* Return "dir/name" (static buffer, one at a time). */
static const char *in(const char *dir, const char *name)
{
	static char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

/* Return the number of entries of "dir" other than "." and "..". */
static int n_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			++n;
	closedir(d);
	return n;
}

/* Create the directory "dir/name" and return its path (malloc'ed). */
static char *make_dir(const char *dir, const char *name)
{
	char *path;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		abort();
	if (mkdir(path, 0777) < 0) {
		perror(path);
		abort();
	}
	return path;
}

/* Redirecting stderr (ours and that of our children) to a file, so that
 * the messages can be checked. */
static int saved_stderr = -1;
static char capture_path[PATH_MAX];

/* Start capturing stderr into a file in "work". */
static void capture_begin(const char *work)
{
	int fd;

	snprintf(capture_path, sizeof(capture_path), "%s/stderr.txt", work);
	fflush(stderr);
	saved_stderr = dup(2);
	fd = open(capture_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0 || saved_stderr < 0)
		abort();
	dup2(fd, 2);
	close(fd);
}

/* Stop capturing stderr; return what was written (malloc'ed). */
static char *capture_end(void)
{
	char *text;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	text = slurp(capture_path);
	unlink(capture_path);
	if (!text)
		text = strdup("");
	return text;
}

/* Check that "text" (freed here) contains "part", showing it if not. */
static void check_says(char *text, const char *part, const char *name,
	int line)
{
	int ok = strstr(text, part) != NULL;

	if (!ok)
		printf("# expected a message with '%s', got:\n%s", part, text);
	check(ok, name, line);
	free(text);
}

#define CHECK_SAYS(text, part, name)	check_says(text, part, name, __LINE__)

/* The 4-rank manifest of the test: a 2x2 mesh, class 0 = ranks {0, 1, 3},
 * class 1 = rank {2}.  Its arrays are static; tests modify a copy. */
static char *axes4[] = { "x", "y" };
static long shape4[] = { 2, 2 };
static long ranges4_0[][2] = { { 0, 1 }, { 3, 3 } };
static long ranges4_1[][2] = { { 2, 2 } };
static struct dmd_mclass classes4[] = {
	{ 0, "class0.c", "class0", "[x, y] -> { : x = 0 or y = 1 }",
	  "every extent is even; rank 2 has no east neighbour: it's alone",
	  2, ranges4_0, 3, NULL, 0, NULL },
	{ 1, "class1.c", "class1", "[x, y] -> { : x = 1 and y = 0 }",
	  "the corner (1, 0)", 1, ranges4_1, 1, NULL, 0, NULL },
};
static const struct dmd_manifest manifest4 = {
	"toy", 2, axes4, shape4, 4, 2, classes4,
	"openmpi", "4.1.4", "/opt/my mpi/bin/mpicc", NULL, NULL, 0, NULL,
};

static const char *const manifest4_yaml =
	"distmpmd: 1\n"
	"job: toy\n"
	"mesh: {axes: [x, y], shape: [2, 2]}\n"
	"nranks: 4\n"
	"mpi: {family: openmpi, version: '4.1.4', "
		"mpicc: /opt/my mpi/bin/mpicc}\n"
	"classes:\n"
	"- id: 0\n"
	"  source: class0.c\n"
	"  binary: class0\n"
	"  ranks: [[0, 1], [3, 3]]\n"
	"  count: 3\n"
	"  set: '[x, y] -> { : x = 0 or y = 1 }'\n"
	"  why: 'every extent is even; rank 2 has no east neighbour: "
		"it''s alone'\n"
	"- id: 1\n"
	"  source: class1.c\n"
	"  binary: class1\n"
	"  ranks: [[2, 2]]\n"
	"  count: 1\n"
	"  set: '[x, y] -> { : x = 1 and y = 0 }'\n"
	"  why: the corner (1, 0)\n";

/* Is the string "a" equal to "b" (both possibly NULL)? */
static int same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

/* Is "a" (read back) equal to "b" (written), field by field? */
static int same_manifest(const struct dmd_manifest *a,
	const struct dmd_manifest *b)
{
	int i, j;

	if (!a || !same_str(a->job, b->job) || a->n_axes != b->n_axes ||
	    a->nranks != b->nranks || a->n_classes != b->n_classes ||
	    !same_str(a->mpi, b->mpi) ||
	    !same_str(a->mpi_version, b->mpi_version) ||
	    !same_str(a->mpicc, b->mpicc))
		return 0;
	for (i = 0; i < a->n_axes; ++i)
		if (!same_str(a->axes[i], b->axes[i]) ||
		    a->shape[i] != b->shape[i])
			return 0;
	for (i = 0; i < a->n_classes; ++i) {
		const struct dmd_mclass *ca = &a->classes[i];
		const struct dmd_mclass *cb = &b->classes[i];

		if (ca->id != cb->id || !same_str(ca->source, cb->source) ||
		    !same_str(ca->binary, cb->binary) ||
		    !same_str(ca->set, cb->set) ||
		    !same_str(ca->why, cb->why) ||
		    !same_str(ca->sha256, cb->sha256) ||
		    ca->n_ranges != cb->n_ranges || ca->count != cb->count)
			return 0;
		for (j = 0; j < ca->n_ranges; ++j)
			if (ca->ranges[j][0] != cb->ranges[j][0] ||
			    ca->ranges[j][1] != cb->ranges[j][1])
				return 0;
	}
	return 1;
}

/* Write the 4-rank manifest into a directory given by a relative path
 * and compare the files with the expected text; read it back. */
static void test_write_read(const char *work)
{
	struct dmd_manifest *m;
	char *dir = make_dir(work, "b4");
	char cwd[PATH_MAX], appfile[3 * PATH_MAX];

	if (!getcwd(cwd, sizeof(cwd)) || chdir(work) < 0)
		abort();
	CHECK(dmd_manifest_write("b4", &manifest4) == 0,
		"write a 4-rank manifest (relative directory)");
	if (chdir(cwd) < 0)
		abort();

	CHECK(file_is(in(dir, "manifest.yaml"), manifest4_yaml),
		"manifest.yaml has the expected text");
	CHECK(file_is(in(dir, "appfile"),
		"-n 2 ./class0\n-n 1 ./class1\n-n 1 ./class0\n"),
		"appfile has the expected text (relative to the directory)");
	CHECK(file_is(in(dir, "multiprog.conf"),
		"0-1,3 ./class0\n2 ./class1\n"),
		"multiprog.conf has the expected text (Slurm's ranges)");
	CHECK(n_entries(dir) == 3, "no temporary files are left");

	m = dmd_manifest_read(dir);
	CHECK(m, "read the manifest back");
	CHECK(m && same_manifest(m, &manifest4),
		"every field read back equals the one written");
	CHECK(m && m->classes[0].ranges[1][0] == 3 &&
		m->classes[0].ranges[1][1] == 3 && m->classes[1].count == 1,
		"ranges read back as inclusive pairs");
	dmd_manifest_free(m);

	/* A trailing '/' does not double in the paths. */
	snprintf(appfile, sizeof(appfile), "%s/", dir);
	CHECK(dmd_manifest_write(appfile, &manifest4) == 0 &&
		n_entries(dir) == 3, "rewrite with a trailing '/'");
	m = dmd_manifest_read(appfile);
	CHECK(m && same_manifest(m, &manifest4), "read with a trailing '/'");
	dmd_manifest_free(m);

	free(dir);
}

/* Strings that a YAML reader would take for numbers or booleans are
 * quoted, optional strings are left out, and a class with many ranges
 * lists them one per line; all of it reads back the same. */
static void test_round_trip(const char *work)
{
	static char *axes[] = { "p" };
	static long shape[] = { 20 };
	static long even[10][2], odd[10][2];
	static char *odd_blocks[] = {
		"A: dim 0: 2 blocks of 2, the last of 1 (dealt over 2 "
		"holders); 3 elements", "yes",
	};
	static struct dmd_mclass classes[] = {
		{ 7, "even.c", "even", NULL, NULL, 10, even, 10, NULL, 0, NULL },
		{ 3, "odd.c", "odd", "[p] -> { : p mod 2 = 1 }", "true", 10,
		  odd, 10, "0123456789abcdef0123456789abcdef"
		  "0123456789abcdef0123456789abcdef", 2, odd_blocks },
	};
	static const struct dmd_manifest m20 = {
		"1e3", 1, axes, shape, 20, 2, classes, NULL, NULL, NULL, NULL,
		NULL, 0, NULL,
	};
	struct dmd_manifest *m;
	char *dir = make_dir(work, "b20");
	char *text;
	int i;

	for (i = 0; i < 10; ++i) {
		even[i][0] = even[i][1] = 2 * i;
		odd[i][0] = odd[i][1] = 2 * i + 1;
	}
	CHECK(dmd_manifest_write(dir, &m20) == 0, "write a 20-rank manifest");
	text = slurp(in(dir, "manifest.yaml"));
	CHECK(text && strstr(text, "job: '1e3'\n") &&
		strstr(text, "why: 'true'\n"),
		"strings that look like numbers or booleans are quoted");
	CHECK(text && strstr(text, "  ranks:\n  - [0, 0]\n  - [2, 2]\n"),
		"many ranges are written one per line");
	CHECK(text && !strstr(text, "set: null") &&
		strstr(text, "count: 10\n- id: 3"), "NULL set and why are left out");
	CHECK(text && strstr(text, "  why: 'true'\n  blocks:\n  - 'A: dim 0: 2 "
		"blocks of 2, the last of 1 (dealt over 2 holders); 3 "
		"elements'\n  - 'yes'\n") && !strstr(text, "blocks: []"),
		"the blocks of cyclic tensors follow why, one line each "
		"(left out when there are none)");
	CHECK(text && strstr(text, "  binary: odd\n  sha256: '0123456789abcdef"
		"0123456789abcdef0123456789abcdef0123456789abcdef'\n  ranks:"),
		"the sha256 follows the binary (quoted: it starts with a digit)");
	free(text);
	text = slurp(in(dir, "appfile"));
	CHECK(text && !strncmp(text, "-n 1 ./even\n-n 1 ./odd\n-n 1 ./even\n",
		35) && strlen(text) == 10 * 12 + 10 * 11,
		"appfile alternates the classes");
	free(text);
	CHECK(file_is(in(dir, "multiprog.conf"),
		"0,2,4,6,8,10,12,14,16,18 ./even\n"
		"1,3,5,7,9,11,13,15,17,19 ./odd\n"),
		"multiprog.conf lists single ranks, in the manifest's order");
	m = dmd_manifest_read(dir);
	CHECK(m && same_manifest(m, &m20), "20-rank manifest reads back");
	dmd_manifest_free(m);
	free(dir);
}

/* The job's directory, file name and files (distmpmd run checks the
 * inputs with them) are written and read back; a manifest without them
 * (an earlier distmpmd's) still reads, with none. */
static void test_files(const char *work)
{
	static char *axes[] = { "x" };
	static long shape[] = { 2 };
	static long ranges[][2] = { { 0, 1 } };
	static struct dmd_mclass classes[] = {
		{ 0, "class0.c", "class0", NULL, NULL, 1, ranges, 2, NULL, 0, NULL },
	};
	static long shape_b[] = { 96, 48 }, shape_c[] = { 7 };
	static struct dmd_mfile files[] = {
		{ "B", "in dir/B.npy", 1, 0, 1, 2, shape_b },
		{ "C", "/abs/C.npy", 1, 1, 0, 1, shape_c },
		{ "s", "true", 0, 1, 0, 0, NULL },
	};
	static const struct dmd_manifest mf = {
		"files", 1, axes, shape, 2, 1, classes, NULL, NULL, NULL,
		"../..", "job.yaml", 3, files,
	};
	struct dmd_manifest *m;
	char *dir = make_dir(work, "bfiles");
	char *text;
	int ok, i, d;

	CHECK(dmd_manifest_write(dir, &mf) == 0, "write a manifest with files");
	text = slurp(in(dir, "manifest.yaml"));
	CHECK(text && strstr(text, "nranks: 2\njob_dir: '../..'\n"
		"job_file: job.yaml\nfiles:\n"
		"- {tensor: B, file: in dir/B.npy, role: input, dtype: f64, "
		"shape: [96, 48]}\n"
		"- {tensor: C, file: /abs/C.npy, role: 'input, output', "
		"dtype: f32, shape: [7]}\n"
		"- {tensor: s, file: 'true', role: output, dtype: f32, "
		"shape: []}\nclasses:\n"),
		"job_dir, job_file and files come before the classes");
	free(text);
	m = dmd_manifest_read(dir);
	ok = m && same_manifest(m, &mf) && same_str(m->job_dir, "../..") &&
		same_str(m->job_file, "job.yaml") && m->n_files == 3;
	for (i = 0; ok && i < 3; ++i) {
		ok = same_str(m->files[i].tensor, files[i].tensor) &&
			same_str(m->files[i].file, files[i].file) &&
			m->files[i].input == files[i].input &&
			m->files[i].output == files[i].output &&
			m->files[i].f64 == files[i].f64 &&
			m->files[i].ndim == files[i].ndim;
		for (d = 0; ok && d < files[i].ndim; ++d)
			ok = m->files[i].shape[d] == files[i].shape[d];
	}
	CHECK(ok, "the files read back as written");
	dmd_manifest_free(m);
	free(dir);

	dir = make_dir(work, "bnofiles");
	CHECK(dmd_manifest_write(dir, &manifest4) == 0 &&
		file_is(in(dir, "manifest.yaml"), manifest4_yaml),
		"no files, no job_dir: the manifest as before");
	m = dmd_manifest_read(dir);
	CHECK(m && !m->job_dir && !m->job_file && m->n_files == 0 &&
		!m->files, "a manifest without files reads with none");
	dmd_manifest_free(m);
	free(dir);
}

/* Writing "m" into the empty (or missing) directory "dir" fails, leaves
 * "dir" empty and says "part" on stderr. */
static void check_write_fails(const char *work, const char *dir,
	const struct dmd_manifest *m, const char *part, const char *name)
{
	int r;

	capture_begin(work);
	r = dmd_manifest_write(dir, m);
	CHECK_SAYS(capture_end(), part, name);
	CHECK(r == -1 && n_entries(dir) <= 0, "... and -1, nothing written");
}

/* Invalid manifests are refused and nothing is written. */
static void test_invalid(const char *work)
{
	long missing_0[][2] = { { 0, 1 } };
	long twice_0[][2] = { { 0, 3 } };
	long adjacent_0[][2] = { { 0, 0 }, { 1, 1 }, { 3, 3 } };
	long outside_1[][2] = { { 2, 4 } };
	struct dmd_mclass classes[2];
	struct dmd_manifest m = manifest4;
	char *dir = make_dir(work, "bad");

	m.classes = classes;
	memcpy(classes, classes4, sizeof(classes));
	classes[0].ranges = missing_0;
	classes[0].n_ranges = 1;
	classes[0].count = 2;
	check_write_fails(work, dir, &m, "rank 3 is in no class",
		"a rank in no class is refused");

	memcpy(classes, classes4, sizeof(classes));
	classes[0].ranges = twice_0;
	classes[0].n_ranges = 1;
	classes[0].count = 4;
	check_write_fails(work, dir, &m, "rank 2 is in class 0 and in class 1",
		"a rank in two classes is refused");

	memcpy(classes, classes4, sizeof(classes));
	classes[0].count = 2;
	check_write_fails(work, dir, &m, "class 0 has count 2 but its ranges "
		"hold 3 ranks", "a wrong count is refused");

	memcpy(classes, classes4, sizeof(classes));
	classes[0].ranges = adjacent_0;
	classes[0].n_ranges = 3;
	check_write_fails(work, dir, &m, "increasing and separated",
		"adjacent ranges are refused");

	memcpy(classes, classes4, sizeof(classes));
	classes[1].ranges = outside_1;
	classes[1].count = 3;
	check_write_fails(work, dir, &m, "not inside ranks 0 to 3",
		"a rank outside the mesh is refused");

	memcpy(classes, classes4, sizeof(classes));
	classes[1].id = 0;
	check_write_fails(work, dir, &m, "two classes have the id 0",
		"repeated class ids are refused");

	memcpy(classes, classes4, sizeof(classes));
	m.nranks = 5;
	check_write_fails(work, dir, &m, "nranks is 5 but the mesh has 4",
		"nranks that is not the mesh size is refused");
	m.nranks = 4;

	memcpy(classes, classes4, sizeof(classes));
	classes[1].binary = "../class1";
	check_write_fails(work, dir, &m, "class 1: the binary '../class1' is "
		"not a plain file name in the build directory",
		"a binary outside the directory is refused");
	classes[1].binary = "class 1";
	check_write_fails(work, dir, &m, "class 1: the binary 'class 1' is "
		"not a plain file name", "a binary with a space is refused");
	classes[1].binary = "..";
	check_write_fails(work, dir, &m, "the binary '..' is not a plain",
		"a binary named '..' is refused");

	memcpy(classes, classes4, sizeof(classes));
	classes[0].sha256 = "abc";
	check_write_fails(work, dir, &m, "class 0: the sha256 'abc' is not "
		"64 hexadecimal digits", "a malformed sha256 is refused");

	check_write_fails(work, "/nonexistent/dir", &manifest4,
		"/nonexistent/dir", "a missing directory is refused");
	free(dir);
}

/* Write "text" as DIR/manifest.yaml in a new directory "name" of
 * "work", read it and check that this fails saying "part". */
static void check_read_fails(const char *work, const char *name,
	const char *text, const char *part, const char *what)
{
	struct dmd_manifest *m;
	char *dir = make_dir(work, name);
	FILE *f = fopen(in(dir, "manifest.yaml"), "w");

	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	capture_begin(work);
	m = dmd_manifest_read(dir);
	CHECK_SAYS(capture_end(), part, what);
	CHECK(!m, "... and NULL");
	dmd_manifest_free(m);
	free(dir);
}

/* Missing and malformed manifests are errors naming the file. */
static void test_read_errors(const char *work)
{
	struct dmd_manifest *m;
	char *dir = make_dir(work, "empty");
	char *part;

	if (asprintf(&part, "%s/manifest.yaml: No such file", dir) < 0)
		abort();
	capture_begin(work);
	m = dmd_manifest_read(dir);
	CHECK_SAYS(capture_end(), part, "a missing manifest names the file");
	CHECK(!m, "a missing manifest gives NULL");
	free(part);
	free(dir);

	check_read_fails(work, "r1", "distmpmd: 1\njob: [toy\n",
		"r1/manifest.yaml:3:1: error:", "malformed YAML");
	check_read_fails(work, "r2", "", "r2/manifest.yaml: error: "
		"the file is empty", "an empty file");
	check_read_fails(work, "r3", "- 1\n",
		"r3/manifest.yaml:1:1: error: the manifest must be a mapping",
		"a manifest that is not a mapping");
	check_read_fails(work, "r4", "distmpmd: 1\njob: toy\n"
		"mesh: {axes: [x], shape: [2]}\nnranks: 2\n",
		"r4/manifest.yaml:1:1: error: the manifest has no 'classes'",
		"a missing key");
	check_read_fails(work, "r5", "distmpmd: 2\n",
		"r5/manifest.yaml:1:11: error: manifest version 2",
		"another version");
	check_read_fails(work, "r6", "distmpmd: 1\njob: toy\n"
		"mesh: {axes: [x], shape: [2]}\nnranks: 2\nclasses:\n"
		"- {id: 0, source: a.c, binary: a, ranks: [[0, 1]], "
		"count: two}\n",
		"r6/manifest.yaml:6:59: error: 'count' must be an integer",
		"a count that is not a number");
	check_read_fails(work, "r7", "distmpmd: 1\njob: toy\n"
		"mesh: {axes: [x], shape: [2]}\nnranks: 2\nclasses:\n"
		"- {id: 0, source: a.c, binary: a, ranks: [[0, 0]], "
		"count: 1}\n",
		"r7/manifest.yaml: error: rank 1 is in no class",
		"a manifest that does not cover the mesh");
	check_read_fails(work, "r8", "distmpmd: 1\njob: toy\njob: toy\n",
		"r8/manifest.yaml:3:1: error: 'job' appears twice",
		"a repeated key");
	check_read_fails(work, "r9", "distmpmd: 1\njob: toy\n"
		"mesh: {axes: [x], shape: [2]}\nnranks: 2\nclasses:\n"
		"- {id: 0, source: a.c, binary: a, ranks: [[0, 1, 2]], "
		"count: 2}\n",
		"r9/manifest.yaml:6:43: error: a range of ranks must be",
		"a range that is not a pair");
	check_read_fails(work, "r10", "distmpmd: 1\njob: toy\n"
		"mesh: {axes: [x], shape: [2]}\nnranks: 2\n"
		"mpi: {family: lam, version: '7', mpicc: mpicc.lam}\n"
		"classes:\n"
		"- {id: 0, source: a.c, binary: a, ranks: [[0, 1]], "
		"count: 2}\n",
		"r10/manifest.yaml:5:15: error: an MPI family that this "
		"distmpmd does not know (it knows mpich and openmpi)",
		"an MPI that distmpmd does not know");
	check_read_fails(work, "r11", "distmpmd: 1\njob: toy\n"
		"mesh: {axes: [x], shape: [2]}\nnranks: 2\n"
		"mpi: {family: openmpi, version: '4.1.4'}\n"
		"classes:\n"
		"- {id: 0, source: a.c, binary: a, ranks: [[0, 1]], "
		"count: 2}\n",
		"r11/manifest.yaml:5:6: error: mpi has no 'mpicc'",
		"an MPI without its wrapper");
}

/* Copy the file "from" to "to" (mode 0755). */
static void copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	ssize_t n;
	int in_fd = open(from, O_RDONLY), out_fd;

	out_fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in_fd < 0 || out_fd < 0)
		abort();
	while ((n = read(in_fd, buf, sizeof(buf))) > 0)
		if (write(out_fd, buf, n) != n)
			abort();
	close(in_fd);
	close(out_fd);
}

/* Store the SHA-256 of the file "path" in "hex". */
static int file_sha256(const char *path, char hex[65])
{
	int fd = open(path, O_RDONLY), r;

	if (fd < 0)
		return -1;
	r = dmd_sha256_fd(fd, hex);
	close(fd);
	return r;
}

/* Write a 2-rank manifest whose single class runs "program" into a new
 * directory "name" of "work"; return the directory (malloc'ed). */
static char *make_launch_dir(const char *work, const char *name,
	const char *program)
{
	static char *axes[] = { "x" };
	static long shape[] = { 2 };
	static long ranges[][2] = { { 0, 1 } };
	static char sha[65];
	static struct dmd_mclass classes[] = {
		{ 0, "class0.c", "class0", NULL, NULL, 1, ranges, 2, sha, 0, NULL },
	};
	static const struct dmd_manifest m2 = {
		"hello", 1, axes, shape, 2, 1, classes, NULL, NULL, NULL, NULL,
		NULL, 0, NULL,
	};
	char *dir = make_dir(work, name);

	copy_file(program, in(dir, "class0"));
	if (file_sha256(in(dir, "class0"), sha) < 0 ||
	    dmd_manifest_write(dir, &m2) < 0)
		abort();
	return dir;
}

/* Write "text" to the file "path". */
static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
}

/* Check that verifying "dir" fails saying "part". */
static void check_verify_fails(const char *work, const char *dir,
	const char *part, const char *name)
{
	struct dmd_manifest *m;

	capture_begin(work);
	m = dmd_manifest_verify(dir);
	CHECK_SAYS(capture_end(), part, name);
	CHECK(!m, "... and NULL");
	dmd_manifest_free(m);
}

/* A build directory is run only if it is what its manifest says. */
static void test_verify(const char *work)
{
	char *dir = make_launch_dir(work, "v", "/bin/true");
	char path[PATH_MAX], msg[3 * PATH_MAX], app[PATH_MAX];
	struct dmd_manifest *m;

	m = dmd_manifest_verify(dir);
	CHECK(m && m->classes[0].sha256 &&
		strlen(m->classes[0].sha256) == 64,
		"a directory as written verifies; the sha256 reads back");
	dmd_manifest_free(m);

	snprintf(app, sizeof(app), "%s", in(dir, "appfile"));
	put_file(app, "-n 2 /bin/echo PWNED\n");
	snprintf(msg, sizeof(msg), "distmpmd: cannot run %s: %s/appfile line "
		"1 is '-n 2 /bin/echo PWNED', but %s/manifest.yaml implies "
		"'-n 2 ./class0'\n", dir, dir, dir);
	check_verify_fails(work, dir, msg, "an appfile running another "
		"program is refused, naming the file and the line");
	put_file(app, "-n 2 ./class0");
	check_verify_fails(work, dir, "appfile line 1 '-n 2 ./class0' does "
		"not end with a newline", "an appfile without its newline");
	put_file(app, "-n 2 ./class0\n-n 2 ./class0\n");
	check_verify_fails(work, dir, "appfile line 2 is '-n 2 ./class0', "
		"but", "an appfile with a line too many");
	put_file(app, "");
	check_verify_fails(work, dir, "appfile ends before line 1, but",
		"an empty appfile");
	put_file(app, "-n 2 ./class0\033[2J\n");
	check_verify_fails(work, dir, "line 1 is '-n 2 ./class0\\033[2J'",
		"control characters are shown escaped");
	unlink(app);
	check_verify_fails(work, dir, "appfile: No such file",
		"a missing appfile is refused");
	put_file(app, "-n 2 ./class0\n");

	snprintf(path, sizeof(path), "%s", in(dir, "multiprog.conf"));
	put_file(path, "0-1 /bin/sh\n");
	check_verify_fails(work, dir, "multiprog.conf line 1 is '0-1 /bin/sh', "
		"but", "a multiprog.conf running another program is refused");
	unlink(path);
	m = dmd_manifest_verify(dir);
	CHECK(m, "a missing multiprog.conf is accepted");
	dmd_manifest_free(m);

	snprintf(path, sizeof(path), "%s", in(dir, "class0"));
	unlink(path);
	copy_file("/bin/echo", path);
	check_verify_fails(work, dir, "class0 is not the binary that",
		"a replaced binary is refused (SHA-256)");
	unlink(path);
	if (symlink("/bin/true", path) < 0)
		abort();
	check_verify_fails(work, dir, "class0 is a symbolic link to a file "
		"outside", "a symbolic link leading outside is refused");
	unlink(path);
	copy_file("/bin/true", in(dir, "real"));
	if (symlink("real", path) < 0)
		abort();
	m = dmd_manifest_verify(dir);
	CHECK(m, "a symbolic link to the right file inside is accepted");
	dmd_manifest_free(m);
	unlink(path);
	if (mkdir(path, 0777) < 0)
		abort();
	check_verify_fails(work, dir, "class0 is not a regular file",
		"a directory as binary is refused");
	rmdir(path);
	check_verify_fails(work, dir, "cannot read", "a missing binary");

	put_file(in(dir, "manifest.yaml"), "distmpmd: 1\njob: j\n"
		"mesh: {axes: [x], shape: [2]}\nnranks: 2\nclasses:\n"
		"- {id: 0, source: a.c, binary: class0, ranks: [[0, 1]], "
		"count: 2}\n");
	copy_file("/bin/true", path);
	check_verify_fails(work, dir, "manifest.yaml records no SHA-256 for "
		"class0", "a manifest without SHA-256 is refused");
	free(dir);
}

/* dmd_launch of "dir" with the default launcher, "stats" and the extra
 * arguments "extra" (n of them). */
static int launch(const char *dir, int stats, int n, char **extra)
{
	struct dmd_launch_opts o;

	memset(&o, 0, sizeof(o));
	o.stats = stats;
	o.n_extra = n;
	o.extra = extra;
	return dmd_launch(dir, &o);
}

/* Launching fails cleanly when mpiexec.mpich cannot be started or there
 * is no appfile. */
static void test_launch_errors(const char *work)
{
	char *dir = make_launch_dir(work, "nompi", "/bin/true");
	char *empty = make_dir(work, "noapp");
	char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	int r;

	setenv("PATH", "/nonexistent", 1);
	capture_begin(work);
	r = launch(dir, 0, 0, NULL);
	CHECK_SAYS(capture_end(), "distmpmd: cannot run mpiexec.mpich: "
		"No such file or directory", "a missing mpiexec.mpich says so");
	CHECK(r == 1, "a missing mpiexec.mpich gives 1");
	if (path)
		setenv("PATH", path, 1);
	else
		unsetenv("PATH");
	free(path);

	/* a directory built with Open MPI, the default launcher (MPICH's):
	 * refused before anything runs */
	{
		struct dmd_manifest *m = dmd_manifest_read(dir);
		char *want;

		if (!m)
			abort();
		m->mpi = strdup("openmpi");
		m->mpi_version = strdup("4.1.4");
		m->mpicc = strdup("mpicc.openmpi");
		if (dmd_manifest_write(dir, m) < 0)
			abort();
		dmd_manifest_free(m);
		if (asprintf(&want, "distmpmd: %s was built with Open MPI "
				"(mpicc.openmpi) but the launcher mpiexec.mpich "
				"is MPICH's: give Open MPI's launcher (--mpiexec "
				"or DISTMPMD_MPIEXEC, e.g. mpiexec.openmpi)\n",
				dir) < 0)
			abort();
		capture_begin(work);
		r = launch(dir, 0, 0, NULL);
		CHECK_SAYS(capture_end(), want, "the launcher of another MPI "
			"is refused");
		CHECK(r == 1, "... with 1");
		free(want);
	}

	capture_begin(work);
	r = launch(empty, 0, 0, NULL);
	CHECK_SAYS(capture_end(), "noapp/manifest.yaml: No such file",
		"a directory without a manifest says so");
	CHECK(r == 1, "a directory without a manifest gives 1");
	free(empty);
	free(dir);
}

/* Launch the MPI programs "hello" and "exit3" through appfiles. */
static void test_launch(const char *work, const char *hello,
	const char *exit3)
{
	char *ok = make_launch_dir(work, "hello", hello);
	char *bad = make_launch_dir(work, "exit3", exit3);
	char *extra[] = { "-genv", "DMD_EXPECT_STATS", "1",
		"-genv", "DMD_EXPECT_OB", "3" };
	int r;

	unsetenv("OPENBLAS_NUM_THREADS");
	CHECK(launch(ok, 0, 0, NULL) == 0,
		"hello on 2 ranks returns 0 (OPENBLAS_NUM_THREADS=1 added)");
	CHECK(launch(ok, 1, 3, extra) == 0,
		"with stats and extra arguments, the ranks get DMD_STATS=1");
	setenv("OPENBLAS_NUM_THREADS", "3", 1);
	CHECK(launch(ok, 1, 6, extra) == 0,
		"a user's OPENBLAS_NUM_THREADS is kept");
	unsetenv("OPENBLAS_NUM_THREADS");

	capture_begin(work);
	r = launch(bad, 0, 0, NULL);
	CHECK_SAYS(capture_end(), "distmpmd: mpiexec.mpich failed (exit status",
		"a failed rank is reported");
	CHECK(r == 1, "a program that exits 3 gives 1");
	free(ok);
	free(bad);
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: %s WORKDIR [HELLO EXIT3]\n", argv[0]);
		return 2;
	}
	test_write_read(argv[1]);
	test_round_trip(argv[1]);
	test_files(argv[1]);
	test_invalid(argv[1]);
	test_read_errors(argv[1]);
	test_verify(argv[1]);
	test_launch_errors(argv[1]);
	if (argc == 4)
		test_launch(argv[1], argv[2], argv[3]);
	else
		printf("# skipped: launching MPI programs (no programs given)\n");
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed != 0;
}
