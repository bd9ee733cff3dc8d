/* dmd_text.h: the text helpers that the writers of files share (the
 * build directory, the SVG pictures of classes and of traces).
 */
#ifndef DMD_TEXT_H
#define DMD_TEXT_H

#include <stdio.h>

/* Print "s" to "f" as XML character data (also fit for an attribute
 * value in double quotes): & < > " ' as entities, a control character
 * other than tab and newline, or a byte that is not part of valid UTF-8,
 * as '?'. */
void dmd_xml_text(FILE *f, const char *s);

/* "dir/name" in newly allocated memory (no doubled '/'), or NULL with a
 * message ("distmpmd: out of memory") on stderr. */
char *dmd_path_join(const char *dir, const char *name);

#endif
