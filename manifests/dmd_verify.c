/* dmd_verify.c: checking a build directory before anything in it is run
 * ("distmpmd run DIR").  A build directory may come from elsewhere or
 * have been edited; what runs must be what the manifest describes: the
 * class binaries it records (by SHA-256), started by the launcher files
 * it implies, and nothing else.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dmd_manifest.h"
#include "dmd_sha256.h"
#include "dmd_text.h"

/* Launcher files larger than this are not read (and not what any
 * manifest implies: a line per range of ranks is far less). */
#define DMD_VERIFY_MAX_TEXT (64L << 20)

/* A line is shown in a message up to this many bytes. */
#define DMD_VERIFY_SHOW 160

/* Print "distmpmd: cannot run DIR: " and the formatted message with a
 * newline on stderr. */
static void dmd_verify_report(const char *dir, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "distmpmd: cannot run %s: ", dir);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Return the "len" bytes at "s" (a line of a file) as a string that can
 * be shown in a message: at most DMD_VERIFY_SHOW bytes, with bytes
 * outside printable ASCII, '\' and '\'' written as octal escapes.
 * NULL if memory runs out. */
static char *dmd_verify_show(const char *s, size_t len)
{
	char *text = NULL;
	size_t size, i;
	FILE *f;

	f = open_memstream(&text, &size);
	if (!f)
		return NULL;
	for (i = 0; i < len && i < DMD_VERIFY_SHOW; ++i) {
		unsigned char c = s[i];

		if (c < 0x20 || c >= 0x7f || c == '\\' || c == '\'')
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	if (len > DMD_VERIFY_SHOW)
		fputs("...", f);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* Read the whole file "path" into *text (NUL-terminated, its length in
 * *len).  Returns 0, or -1 with errno set (EFBIG if it is too large). */
static int dmd_verify_slurp(const char *path, char **text, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	ssize_t got;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto error;
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		goto error;
	}
	if (st.st_size > DMD_VERIFY_MAX_TEXT) {
		errno = EFBIG;
		goto error;
	}
	buf = malloc(st.st_size + 1);
	if (!buf)
		goto error;
	while (n < (size_t) st.st_size) {
		got = read(fd, buf + n, st.st_size - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto error;
		if (got == 0)
			break;
		n += got;
	}
	close(fd);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
error:
	err = errno;
	free(buf);
	close(fd);
	errno = err;
	return -1;
}

/* Report the first line where "got" (the file "shown", "n_got" bytes)
 * and "want" (what the manifest "man" implies) differ; they do differ.
 * Returns -1 (or -1 after "out of memory"). */
static int dmd_verify_diff(const char *dir, const char *shown,
	const char *man, const char *got, size_t n_got, const char *want)
{
	size_t n_want = strlen(want), i = 0, j = 0;
	char *a = NULL, *b = NULL;
	int line = 1;

	for (;;) {
		const char *eg = memchr(got + i, '\n', n_got - i);
		const char *ew = memchr(want + j, '\n', n_want - j);
		size_t lg = eg ? (size_t) (eg - got - i) : n_got - i;
		size_t lw = ew ? (size_t) (ew - want - j) : n_want - j;

		if (i >= n_got || j >= n_want || lg != lw ||
		    memcmp(got + i, want + j, lg) != 0 || !eg != !ew)
			break;
		i += lg + 1;
		j += lw + 1;
		++line;
	}
	if (i >= n_got && j >= n_want) {
		/* cannot happen: the texts differ */
		dmd_verify_report(dir, "%s is not what %s implies", shown, man);
		return -1;
	}
	if (i < n_got) {
		const char *eg = memchr(got + i, '\n', n_got - i);
		a = dmd_verify_show(got + i, eg ? (size_t) (eg - got - i) :
			n_got - i);
	}
	if (j < n_want) {
		const char *ew = strchr(want + j, '\n');
		b = dmd_verify_show(want + j, ew ? (size_t) (ew - want - j) :
			n_want - j);
	}
	if ((i < n_got && !a) || (j < n_want && !b))
		fprintf(stderr, "distmpmd: out of memory\n");
	else if (i >= n_got)
		dmd_verify_report(dir, "%s ends before line %d, but %s implies "
			"line %d '%s'", shown, line, man, line, b);
	else if (j >= n_want)
		dmd_verify_report(dir, "%s line %d is '%s', but %s implies no "
			"line %d", shown, line, a, man, line);
	else if (!strcmp(a, b))
		dmd_verify_report(dir, "%s line %d '%s' does not end with a "
			"newline as %s implies", shown, line, a, man);
	else
		dmd_verify_report(dir, "%s line %d is '%s', but %s implies "
			"'%s'", shown, line, a, man, b);
	free(a);
	free(b);
	return -1;
}

/* Check that the file "name" of the build directory (at "absdir", given
 * as "dir") is exactly "want", the text the manifest implies.  If
 * "optional", a missing file is fine. */
static int dmd_verify_text(const char *absdir, const char *dir,
	const char *name, const char *want, int optional)
{
	char *path = NULL, *shown = NULL, *man = NULL, *got = NULL;
	size_t n_got;
	int r = -1;

	path = dmd_path_join(absdir, name);
	shown = dmd_path_join(dir, name);
	man = dmd_path_join(dir, "manifest.yaml");
	if (!path || !shown || !man)
		goto error;
	if (dmd_verify_slurp(path, &got, &n_got) < 0) {
		if (optional && errno == ENOENT)
			r = 0;
		else
			dmd_verify_report(dir, "cannot read %s: %s", shown,
				strerror(errno));
		goto error;
	}
	if (n_got == strlen(want) && !memcmp(got, want, n_got))
		r = 0;
	else
		dmd_verify_diff(dir, shown, man, got, n_got, want);
error:
	free(got);
	free(man);
	free(shown);
	free(path);
	return r;
}

/* Is "path" "absdir" followed by '/' and more? */
static int dmd_verify_inside(const char *path, const char *absdir)
{
	size_t n = strlen(absdir);

	if (n > 0 && absdir[n - 1] == '/')
		--n;
	return !strncmp(path, absdir, n) && path[n] == '/' && path[n + 1];
}

/* Check the binary of class "c" of the build directory at "absdir"
 * (given as "dir"): a regular file inside the directory whose SHA-256 is
 * the one the manifest records. */
static int dmd_verify_binary(const char *absdir, const char *dir,
	const struct dmd_mclass *c)
{
	char *path = NULL, *shown = NULL, *real = NULL;
	char hex[65];
	struct stat st;
	int fd = -1, r = -1;

	path = dmd_path_join(absdir, c->binary);
	shown = dmd_path_join(dir, c->binary);
	if (!path || !shown)
		goto error;
	if (!c->sha256) {
		dmd_verify_report(dir, "%s/manifest.yaml records no SHA-256 "
			"for %s (build it again with this distmpmd)", dir,
			c->binary);
		goto error;
	}
	if (lstat(path, &st) < 0) {
		dmd_verify_report(dir, "cannot read %s: %s", shown,
			strerror(errno));
		goto error;
	}
	if (S_ISLNK(st.st_mode)) {
		real = realpath(path, NULL);
		if (!real) {
			dmd_verify_report(dir, "cannot read %s: %s", shown,
				strerror(errno));
			goto error;
		}
		if (!dmd_verify_inside(real, absdir)) {
			dmd_verify_report(dir, "%s is a symbolic link to a "
				"file outside %s", shown, dir);
			goto error;
		}
	}
	fd = open(real ? real : path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &st) < 0) {
		dmd_verify_report(dir, "cannot read %s: %s", shown,
			strerror(errno));
		goto error;
	}
	if (!S_ISREG(st.st_mode)) {
		dmd_verify_report(dir, "%s is not a regular file", shown);
		goto error;
	}
	if (dmd_sha256_fd(fd, hex) < 0) {
		dmd_verify_report(dir, "cannot read %s: %s", shown,
			strerror(errno));
		goto error;
	}
	if (strcmp(hex, c->sha256)) {
		dmd_verify_report(dir, "%s is not the binary that "
			"%s/manifest.yaml describes (its SHA-256 is %s, "
			"not %s)", shown, dir, hex, c->sha256);
		goto error;
	}
	r = 0;
error:
	if (fd >= 0)
		close(fd);
	free(real);
	free(shown);
	free(path);
	return r;
}

/* Check the build directory "dir" (see the header). */
struct dmd_manifest *dmd_manifest_verify(const char *dir)
{
	struct dmd_manifest *m = NULL;
	char *absdir = NULL, *appfile = NULL, *multiprog = NULL;
	int i;

	absdir = realpath(dir, NULL);
	if (!absdir) {
		dmd_verify_report(dir, "%s", strerror(errno));
		goto error;
	}
	m = dmd_manifest_read(dir);
	if (!m)
		goto error;
	for (i = 0; i < m->n_classes; ++i)
		if (dmd_verify_binary(absdir, dir, &m->classes[i]) < 0)
			goto error;
	appfile = dmd_manifest_appfile(m);
	multiprog = dmd_manifest_multiprog(m);
	if (!appfile || !multiprog)
		goto error;
	if (dmd_verify_text(absdir, dir, "appfile", appfile, 0) < 0 ||
	    dmd_verify_text(absdir, dir, "multiprog.conf", multiprog, 1) < 0)
		goto error;
	free(multiprog);
	free(appfile);
	free(absdir);
	return m;
error:
	free(multiprog);
	free(appfile);
	free(absdir);
	dmd_manifest_free(m);
	return NULL;
}
