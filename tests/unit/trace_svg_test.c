/* trace_svg_test.c: the driver of tests/unit/trace_svg_test.sh:
 *	trace_svg_test TRACE.json OUT.svg
 * draws the trace with dmd_trace_svg (manifests/dmd_trace_svg.c); exit
 * status 0 if it returned 0, else 1.
 */
#include <stdio.h>

#include "manifests/dmd_trace.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: trace_svg_test TRACE.json OUT.svg\n");
		return 2;
	}
	return dmd_trace_svg(argv[1], argv[2]) == 0 ? 0 : 1;
}
