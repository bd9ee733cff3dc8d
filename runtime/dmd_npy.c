/* dmd_npy.c: writing and checking the header of .npy files.
 *
 * Format (numpy's NEP 1): the magic "\x93NUMPY", a major and a minor version
 * byte, the header length (2 bytes little-endian in version 1.0, 4 bytes in
 * 2.0 and 3.0) and the header itself, a Python dict literal such as
 *	{'descr': '<f4', 'fortran_order': False, 'shape': (127, 128), }
 * padded with spaces and ended by '\n'.  The data follow in C order.
 * We write version 1.0 and read 1.0, 2.0 and 3.0.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dmd_npy.h"

#define DMD_NPY_MAGIC "\x93NUMPY"
#define DMD_NPY_MAGIC_LEN 6
/* More dimensions than this in a file are reported as too many. */
#define DMD_NPY_MAX_DIMS 32
/* Refuse headers longer than this (numpy's own limit is far lower). */
#define DMD_NPY_MAX_HEADER (1 << 20)

/* What the header dict of a .npy file says. */
struct dmd_npy_dict {
	char descr[32];
	int has_descr;
	int fortran_order;
	int has_fortran_order;
	int ndim;
	int64_t shape[DMD_NPY_MAX_DIMS];
	int has_shape;
};

/* Write "shape" as Python prints a tuple: "()", "(5,)", "(5, 7)". */
void dmd_npy_shape_str(char *out, size_t size, int ndim,
	const int64_t *shape)
{
	size_t len = 0;
	int i;

	if (size == 0)
		return;
	out[0] = '\0';
	len += snprintf(out + len, size - len, "(");
	for (i = 0; i < ndim && len < size; ++i)
		len += snprintf(out + len, size - len, "%s%" PRId64,
				i ? ", " : "", shape[i]);
	if (len < size)
		snprintf(out + len, size - len, ndim == 1 ? ",)" : ")");
}

/* Write the complete header (magic, version 1.0, length, dict, padding,
 * '\n') of a C-order array of "descr" elements and shape "shape" into
 * "out" (of "size" bytes).  The total length is a multiple of 64.
 * Return the total length, or -1 if it does not fit.
 */
int dmd_npy_header(char *out, size_t size, const char *descr, int ndim,
	const int64_t *shape)
{
	char shape_str[DMD_NPY_MAX_DIMS * 24 + 8];
	char dict[DMD_NPY_MAX_DIMS * 24 + 128];
	int dict_len, total, hlen;

	if (ndim < 0 || ndim > DMD_NPY_MAX_DIMS)
		return -1;
	dmd_npy_shape_str(shape_str, sizeof(shape_str), ndim, shape);
	dict_len = snprintf(dict, sizeof(dict),
		"{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
		descr, shape_str);
	if (dict_len < 0 || (size_t) dict_len >= sizeof(dict))
		return -1;
	total = DMD_NPY_MAGIC_LEN + 2 + 2 + dict_len + 1;
	total = (total + 63) / 64 * 64;
	hlen = total - (DMD_NPY_MAGIC_LEN + 2 + 2);
	if (hlen > 0xffff || (size_t) total > size)
		return -1;
	memcpy(out, DMD_NPY_MAGIC, DMD_NPY_MAGIC_LEN);
	out[6] = 1;
	out[7] = 0;
	out[8] = (char) (hlen & 0xff);
	out[9] = (char) (hlen >> 8);
	memcpy(out + 10, dict, dict_len);
	memset(out + 10 + dict_len, ' ', total - 10 - dict_len - 1);
	out[total - 1] = '\n';
	return total;
}

/* Skip white space in "p". */
static const char *dmd_npy_skip_ws(const char *p)
{
	while (*p && isspace((unsigned char) *p))
		++p;
	return p;
}

/* Parse a Python string literal ('...' or "...", no escapes) at "p" into
 * "out" (of "size" bytes).  Return the position after it, or NULL.
 */
static const char *dmd_npy_parse_str(const char *p, char *out, size_t size)
{
	char quote = *p;
	size_t n = 0;

	if (quote != '\'' && quote != '"')
		return NULL;
	for (++p; *p && *p != quote; ++p) {
		if (*p == '\\' || n + 1 >= size)
			return NULL;
		out[n++] = *p;
	}
	if (*p != quote)
		return NULL;
	out[n] = '\0';
	return p + 1;
}

/* Parse a tuple of non-negative integers ("()", "(5,)", "(5, 7)"; a
 * Python 2 "L" suffix is allowed) at "p" into "dict".
 * Return the position after it, or NULL.
 */
static const char *dmd_npy_parse_shape(const char *p,
	struct dmd_npy_dict *dict)
{
	if (*p != '(')
		return NULL;
	p = dmd_npy_skip_ws(p + 1);
	dict->ndim = 0;
	while (*p != ')') {
		char *end;
		long long v;

		if (!isdigit((unsigned char) *p))
			return NULL;
		if (dict->ndim >= DMD_NPY_MAX_DIMS)
			return NULL;
		errno = 0;
		v = strtoll(p, &end, 10);
		if (errno)
			return NULL;
		dict->shape[dict->ndim++] = v;
		p = end;
		if (*p == 'L' || *p == 'l')
			++p;
		p = dmd_npy_skip_ws(p);
		if (*p == ',')
			p = dmd_npy_skip_ws(p + 1);
		else if (*p != ')')
			return NULL;
	}
	return p + 1;
}

/* Parse the header dict "text" into "dict".
 * Return a description of the first problem found, or NULL if it is fine.
 */
static const char *dmd_npy_parse_dict(const char *text,
	struct dmd_npy_dict *dict)
{
	const char *p = dmd_npy_skip_ws(text);

	memset(dict, 0, sizeof(*dict));
	if (*p != '{')
		return "the header is not a dict";
	p = dmd_npy_skip_ws(p + 1);
	while (*p != '}') {
		char key[32];

		p = dmd_npy_parse_str(p, key, sizeof(key));
		if (!p)
			return "bad key in the header dict";
		p = dmd_npy_skip_ws(p);
		if (*p != ':')
			return "missing ':' in the header dict";
		p = dmd_npy_skip_ws(p + 1);
		if (!strcmp(key, "descr")) {
			p = dmd_npy_parse_str(p, dict->descr,
					sizeof(dict->descr));
			if (!p)
				return "bad 'descr' in the header";
			dict->has_descr = 1;
		} else if (!strcmp(key, "fortran_order")) {
			if (!strncmp(p, "True", 4)) {
				dict->fortran_order = 1;
				p += 4;
			} else if (!strncmp(p, "False", 5)) {
				dict->fortran_order = 0;
				p += 5;
			} else {
				return "bad 'fortran_order' in the header";
			}
			dict->has_fortran_order = 1;
		} else if (!strcmp(key, "shape")) {
			p = dmd_npy_parse_shape(p, dict);
			if (!p)
				return "bad 'shape' in the header";
			dict->has_shape = 1;
		} else {
			return "unknown key in the header dict";
		}
		p = dmd_npy_skip_ws(p);
		if (*p == ',')
			p = dmd_npy_skip_ws(p + 1);
		else if (*p != '}')
			return "missing ',' in the header dict";
	}
	p = dmd_npy_skip_ws(p + 1);
	if (*p)
		return "junk after the header dict";
	if (!dict->has_descr || !dict->has_fortran_order || !dict->has_shape)
		return "the header lacks 'descr', 'fortran_order' or 'shape'";
	return NULL;
}

/* Print a message into "msg" (of "size" bytes) and return -1. */
static int dmd_npy_error(char *msg, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, size, fmt, ap);
	va_end(ap);
	return -1;
}

/* Read the header of "path" (called "shown" in messages) and check that
 * the file holds a C-order array of "descr" elements and shape "shape",
 * with all its data present.  On success, set *offset to the start of the
 * data and return 0.  Otherwise, write a message that starts with the file
 * name into "msg" and return -1.
 */
int dmd_npy_check(const char *path, const char *shown, const char *descr,
	int ndim, const int64_t *shape, long long *offset, char *msg,
	size_t msg_size)
{
	unsigned char pre[12];
	struct dmd_npy_dict dict;
	struct stat st;
	const char *problem;
	char *text;
	FILE *f;
	long long hlen, need, esize;
	int pre_len, i, same;

	f = fopen(path, "rb");
	if (!f)
		return dmd_npy_error(msg, msg_size, "cannot open %s: %s",
				path, strerror(errno));
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return dmd_npy_error(msg, msg_size,
				"%s is not a regular file", path);
	}
	if (fread(pre, 1, 8, f) != 8 ||
	    memcmp(pre, DMD_NPY_MAGIC, DMD_NPY_MAGIC_LEN)) {
		fclose(f);
		return dmd_npy_error(msg, msg_size,
				"%s is not a .npy file (bad magic)", shown);
	}
	if (pre[6] < 1 || pre[6] > 3 || pre[7] != 0) {
		fclose(f);
		return dmd_npy_error(msg, msg_size,
				"%s has .npy version %d.%d; 1.0, 2.0 and 3.0 "
				"are supported", shown, pre[6], pre[7]);
	}
	pre_len = pre[6] == 1 ? 10 : 12;
	if (fread(pre + 8, 1, pre_len - 8, f) != (size_t) (pre_len - 8)) {
		fclose(f);
		return dmd_npy_error(msg, msg_size,
				"%s: truncated .npy header", shown);
	}
	if (pre[6] == 1)
		hlen = pre[8] | (pre[9] << 8);
	else
		hlen = pre[8] | (pre[9] << 8) | (pre[10] << 16) |
			((long long) pre[11] << 24);
	if (hlen > DMD_NPY_MAX_HEADER) {
		fclose(f);
		return dmd_npy_error(msg, msg_size,
				"%s: .npy header too long", shown);
	}
	text = malloc(hlen + 1);
	if (!text) {
		fclose(f);
		return dmd_npy_error(msg, msg_size, "out of memory");
	}
	if (fread(text, 1, hlen, f) != (size_t) hlen) {
		free(text);
		fclose(f);
		return dmd_npy_error(msg, msg_size,
				"%s: truncated .npy header", shown);
	}
	fclose(f);
	text[hlen] = '\0';
	if (strlen(text) != (size_t) hlen)
		problem = "NUL byte in the header";
	else
		problem = dmd_npy_parse_dict(text, &dict);
	free(text);
	if (problem)
		return dmd_npy_error(msg, msg_size, "%s: bad .npy header: %s",
				shown, problem);
	if (strcmp(dict.descr, descr))
		return dmd_npy_error(msg, msg_size,
				"%s has dtype '%s', the job says '%s'",
				shown, dict.descr, descr);
	if (dict.fortran_order)
		return dmd_npy_error(msg, msg_size,
				"%s is in Fortran order; only C order "
				"is supported", shown);
	same = dict.ndim == ndim;
	for (i = 0; same && i < ndim; ++i)
		same = dict.shape[i] == shape[i];
	if (!same) {
		char got[DMD_NPY_MAX_DIMS * 24 + 8];
		char want[DMD_NPY_MAX_DIMS * 24 + 8];

		dmd_npy_shape_str(got, sizeof(got), dict.ndim, dict.shape);
		dmd_npy_shape_str(want, sizeof(want), ndim, shape);
		return dmd_npy_error(msg, msg_size,
				"%s has shape %s, the job says %s",
				shown, got, want);
	}
	esize = descr[2] == '8' ? 8 : 4;
	need = esize;
	for (i = 0; i < ndim; ++i)
		need *= shape[i];
	*offset = pre_len + hlen;
	if ((long long) st.st_size < *offset + need)
		return dmd_npy_error(msg, msg_size,
				"%s is truncated: %lld bytes of data, "
				"the shape needs %lld", shown,
				(long long) st.st_size - *offset, need);
	return 0;
}
