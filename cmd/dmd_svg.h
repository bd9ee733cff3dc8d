/* dmd_svg.h: SVG pictures written by the command line: the mesh coloured
 * by rank class ("distmpmd classes JOB --svg FILE"), and the helpers that
 * the sweep's plot shares (XML text, colours, writing a file under a
 * temporary name).
 */
#ifndef DMD_SVG_H
#define DMD_SVG_H

#include <stdio.h>

#include "cmd/dmd_build.h"
#include "manifests/dmd_text.h"

/* The fill colour of series or class "k": "#rrggbb" in "buf" (at least
 * 8 bytes), returned.  Twelve distinct colours, then hues spaced by the
 * golden angle. */
const char *dmd_svg_colour(int k, char *buf);

/* Open "path" for writing, under the temporary name "path.tmp.PID"
 * (returned in *tmp, newly allocated; the caller frees it).  NULL with
 * a message ("distmpmd: cannot write PATH: reason") on error. */
FILE *dmd_svg_open(const char *path, char **tmp);
/* Check that "path" can be written as dmd_svg_open and dmd_svg_close
 * write it: its temporary name is created and removed, and "path" is
 * not a directory.  Returns 0, or -1 with a message. */
int dmd_svg_probe(const char *path);
/* Close "f" opened by dmd_svg_open and rename "tmp" to "path" (or
 * remove "tmp" if writing failed).  Returns 0, or -1 with a message. */
int dmd_svg_close(FILE *f, const char *tmp, const char *path);

/* Draw the mesh of "in" coloured by class into "path": one square per
 * rank (a run of ranks of one class in a row drawn as one rect of class
 * "cell cK", with a <title> naming its ranks and coordinates); a 1-D
 * mesh as a row, a 2-D mesh as a grid (the first axis down, the second
 * across, with their names), higher dimensions as slices of the last
 * two axes, labelled with the other coordinates; a legend with a
 * swatch (rect class "legend cK") per class, its label, rank count and
 * its "why" as the tooltip.  Returns 0, or 1 with a message. */
int dmd_svg_classes(const struct dmd_build_input *in, const char *path);

#endif
