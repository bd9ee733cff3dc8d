/* dmd_text.c: the text helpers that the writers of files share (see
 * dmd_text.h): XML character data, joined paths.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_text.h"

/* Print "s" as XML character data (see the header): valid UTF-8
 * sequences (shortest forms, no surrogates, at most U+10FFFF) as they
 * are, anything else that is not printable as '?'. */
void dmd_xml_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *) s;

	while (*p) {
		int n = 0, i;

		if (*p == '&')
			fputs("&amp;", f);
		else if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '>')
			fputs("&gt;", f);
		else if (*p == '"')
			fputs("&quot;", f);
		else if (*p == '\'')
			fputs("&apos;", f);
		else if (*p < 0x20 && *p != '\t' && *p != '\n')
			fputc('?', f);
		else if (*p < 0x80)
			fputc(*p, f);
		else {
			/* the length of a valid UTF-8 sequence, or 0 */
			if (*p >= 0xc2 && *p <= 0xdf)
				n = 2;
			else if (*p >= 0xe0 && *p <= 0xef)
				n = 3;
			else if (*p >= 0xf0 && *p <= 0xf4)
				n = 4;
			for (i = 1; i < n; ++i)
				if ((p[i] & 0xc0) != 0x80)
					n = 0;
			if (n >= 3 && ((*p == 0xe0 && p[1] < 0xa0) ||
			    (*p == 0xed && p[1] >= 0xa0) ||
			    (*p == 0xf0 && p[1] < 0x90) ||
			    (*p == 0xf4 && p[1] >= 0x90)))
				n = 0;
			if (n == 0) {
				fputc('?', f);
			} else {
				fwrite(p, 1, n, f);
				p += n - 1;
			}
		}
		++p;
	}
}

/* "dir/name" in newly allocated memory (no doubled '/'), or NULL with a
 * message. */
char *dmd_path_join(const char *dir, const char *name)
{
	size_t len = strlen(dir);
	char *path;

	if (asprintf(&path, "%s%s%s", dir,
			len > 0 && dir[len - 1] == '/' ? "" : "/", name) < 0) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return NULL;
	}
	return path;
}
