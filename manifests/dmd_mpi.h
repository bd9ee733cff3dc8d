/* dmd_mpi.h: which MPI builds and runs the programs (spec section 2,
 * "MPI").
 *
 * The compiler wrapper is mpicc.mpich and the launcher mpiexec.mpich
 * unless an option (--mpicc, --mpiexec) or the environment
 * (DISTMPMD_MPICC, DISTMPMD_MPIEXEC) names others.  Each is identified
 * by what it reports (the wrapper's "-show", "-v" and
 * "--showme:version", the launcher's "--version"), run without a shell;
 * distmpmd knows two families, MPICH and Open MPI.
 */
#ifndef DMD_MPI_H
#define DMD_MPI_H

#include <stdio.h>

/* The families of MPI that distmpmd knows. */
enum dmd_mpi_family {
	DMD_MPI_MPICH,
	DMD_MPI_OPENMPI,
};

/* An MPI as a wrapper or a launcher reported it. */
struct dmd_mpi {
	enum dmd_mpi_family family;
	char version[64];	/* "4.0.2"; "" if it did not say */
};

/* The wrapper to use: "opt" if given, else $DISTMPMD_MPICC if set and
 * not empty, else "mpicc.mpich".  The same for the launcher
 * ($DISTMPMD_MPIEXEC, "mpiexec.mpich"). */
const char *dmd_mpi_cc(const char *opt);
const char *dmd_mpi_exec(const char *opt);

/* Identify the MPI of the compiler wrapper "cc" (run as "cc -show",
 * then "cc -v" for MPICH or "cc --showme:version" for Open MPI).
 * Returns 0 with *m filled, or -1 after a message naming "cc". */
int dmd_mpi_probe_cc(const char *cc, struct dmd_mpi *m);
/* Identify the MPI of the launcher "exec" ("exec --version": hydra's
 * "HYDRA build details", Open MPI's "(OpenRTE)" or "(Open MPI)").
 * Returns 0 with *m filled, or -1 after a message naming "exec". */
int dmd_mpi_probe_exec(const char *exec, struct dmd_mpi *m);

/* Print the name "s" (a wrapper, a launcher: the user's, or read from a
 * manifest) to "f" for a message: bytes outside printable ASCII and '\\'
 * as octal escapes, at most 200 of them. */
void dmd_mpi_show_in(FILE *f, const char *s);

/* The family's key in the manifest and in the runtime's mark
 * ("mpich", "openmpi"), and its name for people ("MPICH", "Open MPI"). */
const char *dmd_mpi_key(enum dmd_mpi_family family);
const char *dmd_mpi_name(enum dmd_mpi_family family);
/* The family whose key is "key", or -1. */
int dmd_mpi_family_of(const char *key);

#endif
