/* dmd_svg.c: the mesh coloured by rank class as SVG (see dmd_svg.h), and
 * the helpers the sweep's plot shares.
 *
 * The picture follows the text one of "distmpmd classes": the last axis
 * across, the one before it down, further axes as slices (here side by
 * side, wrapping into rows of slices).  A rank is a square of side
 * "cell" pixels, chosen so that the mesh fits in about 800 x 800 pixels
 * (at most 32 per rank); a run of ranks of one class in a row of the
 * picture is one rect, so that a 512 x 512 mesh with few classes stays a
 * small file.  Every text is XML-escaped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/dmd_svg.h"

/* The target size of the mesh picture and the largest square. */
#define DMD_SVG_AREA 800.0
#define DMD_SVG_MAX_CELL 32.0
/* Margins: left (the first axis), top (title and second axis), the gap
 * between slices, the legend's line height. */
#define DMD_SVG_LEFT 70.0
#define DMD_SVG_TOP 60.0
#define DMD_SVG_GAP 24.0
#define DMD_SVG_LINE 18.0

/* The colour of "k" (see the header). */
const char *dmd_svg_colour(int k, char *buf)
{
	static const char *const palette[] = {
		"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
		"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
		"#17becf", "#8c564b",
	};
	int n = sizeof(palette) / sizeof(palette[0]);
	double h, s = 0.55, l = 0.6, c, x, m, r = 0, g = 0, b = 0;

	if (k >= 0 && k < n)
		return strcpy(buf, palette[k]);
	h = fmod((k < 0 ? 0 : k) * 137.508, 360.0) / 60.0;
	c = (1 - fabs(2 * l - 1)) * s;
	x = c * (1 - fabs(fmod(h, 2.0) - 1));
	m = l - c / 2;
	if (h < 1)
		r = c, g = x;
	else if (h < 2)
		r = x, g = c;
	else if (h < 3)
		g = c, b = x;
	else if (h < 4)
		g = x, b = c;
	else if (h < 5)
		r = x, b = c;
	else
		r = c, b = x;
	sprintf(buf, "#%02x%02x%02x", (int) lround((r + m) * 255),
		(int) lround((g + m) * 255), (int) lround((b + m) * 255));
	return buf;
}

/* Open "path" under a temporary name (see the header). */
FILE *dmd_svg_open(const char *path, char **tmp)
{
	FILE *f;

	if (asprintf(tmp, "%s.tmp.%ld", path, (long) getpid()) < 0) {
		*tmp = NULL;
		fprintf(stderr, "distmpmd: out of memory\n");
		return NULL;
	}
	f = fopen(*tmp, "wx");
	if (!f && errno == EEXIST && unlink(*tmp) == 0)
		f = fopen(*tmp, "wx");
	if (!f) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			strerror(errno));
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

/* Check that "path" can be written (see the header). */
int dmd_svg_probe(const char *path)
{
	struct stat st;
	char *tmp = NULL;
	FILE *f;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			strerror(EISDIR));
		return -1;
	}
	f = dmd_svg_open(path, &tmp);
	if (!f)
		return -1;
	fclose(f);
	unlink(tmp);
	free(tmp);
	return 0;
}

/* Close and rename (see the header). */
int dmd_svg_close(FILE *f, const char *tmp, const char *path)
{
	int failed = ferror(f);

	if (fclose(f) != 0 || failed) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			strerror(failed && !errno ? EIO : errno));
		goto error;
	}
	if (rename(tmp, path) != 0) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			strerror(errno));
		goto error;
	}
	return 0;
error:
	unlink(tmp);
	return -1;
}

/* The one-character label of class "k", as in the text picture. */
static char dmd_svg_label(int k)
{
	static const char *l = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz";
	return k < 62 ? l[k] : '*';
}

/* The geometry of the mesh picture. */
struct dmd_svg_mesh {
	const struct dmd_build_input *in;
	int *cls;		/* per rank: its class (owned) */
	long rows, cols;	/* of one slice */
	long n_slices;
	long grid_cols;		/* slices side by side */
	long grid_rows;
	double cell;		/* side of a rank's square */
	double slice_w, slice_h;	/* a slice with its gap */
	double width, height;
};

/* Fill in the class of every rank of "m->in" in m->cls and the
 * geometry.  -1 if memory runs out. */
static int dmd_svg_mesh_init(struct dmd_svg_mesh *m)
{
	const struct dmd_build_input *in = m->in;
	int na = in->n_axes, k, j;
	double across, down;
	long r;

	m->cls = malloc((in->nranks ? in->nranks : 1) * sizeof(int));
	if (!m->cls)
		return -1;
	for (r = 0; r < in->nranks; ++r)
		m->cls[r] = -1;
	for (k = 0; k < in->n_class; ++k)
		for (j = 0; j < in->cls[k].n_ranges; ++j)
			for (r = in->cls[k].ranges[j][0];
			     r <= in->cls[k].ranges[j][1] && r < in->nranks;
			     ++r)
				m->cls[r] = k;
	m->cols = na >= 1 ? in->shape[na - 1] : 1;
	m->rows = na >= 2 ? in->shape[na - 2] : 1;
	m->n_slices = in->nranks / (m->rows * m->cols);
	if (m->n_slices < 1)
		m->n_slices = 1;
	m->grid_cols = (long) ceil(sqrt((double) m->n_slices));
	m->grid_rows = (m->n_slices + m->grid_cols - 1) / m->grid_cols;
	across = (double) m->grid_cols * m->cols;
	down = (double) m->grid_rows * m->rows;
	m->cell = DMD_SVG_AREA / (across > down ? across : down);
	if (m->cell > DMD_SVG_MAX_CELL)
		m->cell = DMD_SVG_MAX_CELL;
	/* beside a slice: its coordinates, and the first axis's name of
	 * the next slice */
	m->slice_w = m->cols * m->cell + (m->grid_cols > 1 ? DMD_SVG_LEFT :
		DMD_SVG_GAP);
	m->slice_h = m->rows * m->cell + DMD_SVG_GAP + (na > 2 ? 16 : 0);
	m->width = DMD_SVG_LEFT + m->grid_cols * m->slice_w;
	m->height = DMD_SVG_TOP + m->grid_rows * m->slice_h;
	return 0;
}

/* Print the coordinates of rank "r" along the axes before the last two
 * (the slice), as "x = 1, y = 0", to "f". */
static void dmd_svg_slice_name(FILE *f, const struct dmd_svg_mesh *m,
	long r)
{
	const struct dmd_build_input *in = m->in;
	long c[64], rest = r / (m->rows * m->cols);
	int i, na = in->n_axes;

	for (i = na - 3; i >= 0; --i) {
		c[i] = rest % in->shape[i];
		rest /= in->shape[i];
	}
	for (i = 0; i < na - 2 && i < 64; ++i) {
		fputs(i ? ", " : "", f);
		dmd_xml_text(f, in->axes[i]);
		fprintf(f, " = %ld", c[i]);
	}
}

/* Print the tooltip of the run of ranks "r0" to "r1" (one row of a
 * slice) to "f": "ranks 4-7 (x = 1, y = 0..3): class K". */
static void dmd_svg_run_title(FILE *f, const struct dmd_svg_mesh *m,
	long r0, long r1)
{
	const struct dmd_build_input *in = m->in;
	int na = in->n_axes;
	long row = (r0 / m->cols) % m->rows;
	long c0 = r0 % m->cols, c1 = r1 % m->cols;

	if (r0 == r1)
		fprintf(f, "rank %ld (", r0);
	else
		fprintf(f, "ranks %ld-%ld (", r0, r1);
	if (na > 2) {
		dmd_svg_slice_name(f, m, r0);
		fputs(", ", f);
	}
	if (na >= 2) {
		dmd_xml_text(f, in->axes[na - 2]);
		fprintf(f, " = %ld, ", row);
	}
	if (na >= 1)
		dmd_xml_text(f, in->axes[na - 1]);
	if (c0 == c1)
		fprintf(f, " = %ld", c0);
	else
		fprintf(f, " = %ld..%ld", c0, c1);
	fprintf(f, "): class %d", m->cls[r0]);
}

/* Draw slice "s" of the mesh at (x0, y0): its label (3-D and more), the
 * axis names and coordinates, one rect per run of equal class in a row,
 * and grid lines when the squares are large enough to show them. */
static void dmd_svg_slice(FILE *f, const struct dmd_svg_mesh *m, long s,
	double x0, double y0)
{
	const struct dmd_build_input *in = m->in;
	int na = in->n_axes;
	long base = s * m->rows * m->cols, i, j, k;
	double cell = m->cell;
	char colour[8];

	if (na > 2) {
		fprintf(f, "<text class=\"slice\" x=\"%.6g\" y=\"%.6g\">",
			x0, y0 - 22);
		dmd_svg_slice_name(f, m, base);
		fputs("</text>\n", f);
	}
	/* the last axis across, above; the one before it down, left */
	fprintf(f, "<text class=\"axis\" x=\"%.6g\" y=\"%.6g\" "
		"font-weight=\"bold\">", x0, y0 - 8);
	dmd_xml_text(f, in->axes[na - 1]);
	fprintf(f, " &#8594; (%ld)</text>\n", m->cols);
	if (na >= 2) {
		fprintf(f, "<text class=\"axis\" x=\"%.6g\" y=\"%.6g\" "
			"font-weight=\"bold\" text-anchor=\"end\">",
			x0 - 6, y0 + 12);
		dmd_xml_text(f, in->axes[na - 2]);
		fprintf(f, " &#8595;</text>\n");
		fprintf(f, "<text class=\"axis\" x=\"%.6g\" y=\"%.6g\" "
			"text-anchor=\"end\">(%ld)</text>\n", x0 - 6,
			y0 + 26, m->rows);
	}
	if (cell >= 14) {
		for (j = 0; j < m->cols; ++j)
			fprintf(f, "<text class=\"coord\" x=\"%.6g\" "
				"y=\"%.6g\" text-anchor=\"middle\" "
				"font-size=\"9\">%ld</text>\n",
				x0 + (j + 0.5) * cell,
				y0 + m->rows * cell + 10, j);
		for (i = 0; na >= 2 && i < m->rows; ++i)
			fprintf(f, "<text class=\"coord\" x=\"%.6g\" "
				"y=\"%.6g\" text-anchor=\"end\" "
				"font-size=\"9\">%ld</text>\n",
				x0 + m->cols * cell + 14,
				y0 + (i + 0.5) * cell + 3, i);
	}
	for (i = 0; i < m->rows; ++i) {
		long row = base + i * m->cols;

		for (j = 0; j < m->cols; j = k) {
			int c = m->cls[row + j];

			for (k = j + 1; k < m->cols && m->cls[row + k] == c;
			     ++k)
				;
			fprintf(f, "<rect class=\"cell c%d\" x=\"%.6g\" "
				"y=\"%.6g\" width=\"%.6g\" height=\"%.6g\" "
				"fill=\"%s\"><title>", c, x0 + j * cell,
				y0 + i * cell, (k - j) * cell, cell,
				dmd_svg_colour(c, colour));
			dmd_svg_run_title(f, m, row + j, row + k - 1);
			fputs("</title></rect>\n", f);
		}
	}
	if (cell < 6)
		return;
	fputs("<path class=\"grid\" stroke=\"white\" stroke-width=\"1\" "
		"fill=\"none\" d=\"", f);
	for (j = 0; j <= m->cols; ++j)
		fprintf(f, "M%.6g %.6gv%.6g", x0 + j * cell, y0,
			m->rows * cell);
	for (i = 0; i <= m->rows; ++i)
		fprintf(f, "M%.6g %.6gh%.6g", x0, y0 + i * cell,
			m->cols * cell);
	fputs("\"/>\n", f);
}

/* Draw the legend of "m" at (x0, y0): per class a swatch, its label and
 * rank count, and "why" as the tooltip of both. */
static void dmd_svg_legend(FILE *f, const struct dmd_svg_mesh *m,
	double x0, double y0)
{
	const struct dmd_build_input *in = m->in;
	char colour[8];
	int k;

	fprintf(f, "<text class=\"legend-title\" x=\"%.6g\" y=\"%.6g\" "
		"font-weight=\"bold\">classes</text>\n", x0, y0 - 6);
	for (k = 0; k < in->n_class; ++k) {
		const struct dmd_build_class *c = &in->cls[k];
		double y = y0 + k * DMD_SVG_LINE;

		fprintf(f, "<g class=\"legend-entry\"><title>class %d: ", k);
		dmd_xml_text(f, c->why ? c->why : "");
		fprintf(f, "</title><rect class=\"legend c%d\" x=\"%.6g\" "
			"y=\"%.6g\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%.6g\" y=\"%.6g\">class %d (%c): %ld "
			"rank%s</text></g>\n", k, x0, y,
			dmd_svg_colour(k, colour), x0 + 18, y + 10, k,
			dmd_svg_label(k), c->count, c->count == 1 ? "" : "s");
	}
}

/* Draw the mesh of "in" by class into "path" (see the header). */
int dmd_svg_classes(const struct dmd_build_input *in, const char *path)
{
	struct dmd_svg_mesh m;
	double legend_x, width, height;
	char *tmp = NULL;
	FILE *f = NULL;
	long s;

	memset(&m, 0, sizeof(m));
	m.in = in;
	if (in->n_axes < 1 || in->nranks < 1) {
		fprintf(stderr, "distmpmd: cannot draw a mesh without "
			"ranks\n");
		goto error;
	}
	if (dmd_svg_mesh_init(&m) < 0) {
		fprintf(stderr, "distmpmd: out of memory\n");
		goto error;
	}
	f = dmd_svg_open(path, &tmp);
	if (!f)
		goto error;
	legend_x = m.width + 10;
	width = legend_x + 200;
	height = m.height;
	if (DMD_SVG_TOP + in->n_class * DMD_SVG_LINE + 20 > height)
		height = DMD_SVG_TOP + in->n_class * DMD_SVG_LINE + 20;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"sans-serif\" font-size=\"11\"%s>\n",
		width, height, width, height, m.cell < 4 ?
		" shape-rendering=\"crispEdges\"" : "");
	fputs("<title>", f);
	dmd_xml_text(f, in->job_name);
	fputs(": rank classes</title>\n", f);
	fprintf(f, "<rect class=\"background\" x=\"0\" y=\"0\" "
		"width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n",
		width, height);
	fputs("<text class=\"title\" x=\"8\" y=\"16\" font-size=\"13\" "
		"font-weight=\"bold\">job ", f);
	dmd_xml_text(f, in->job_name);
	fprintf(f, ": %ld rank%s, %d class%s</text>\n", in->nranks,
		in->nranks == 1 ? "" : "s", in->n_class,
		in->n_class == 1 ? "" : "es");
	for (s = 0; s < m.n_slices; ++s)
		dmd_svg_slice(f, &m, s,
			DMD_SVG_LEFT + (s % m.grid_cols) * m.slice_w,
			DMD_SVG_TOP + (in->n_axes > 2 ? 16 : 0) +
			(s / m.grid_cols) * m.slice_h);
	dmd_svg_legend(f, &m, legend_x, DMD_SVG_TOP);
	fputs("</svg>\n", f);
	if (dmd_svg_close(f, tmp, path) < 0)
		goto error;
	free(tmp);
	free(m.cls);
	return 0;
error:
	free(tmp);
	free(m.cls);
	return 1;
}
