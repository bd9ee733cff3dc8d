# distmpmd: the compiler (bin/distmpmd) and the runtime its programs link
# (obj/libdmdrt.a for MPICH; obj/openmpi/libdmdrt.a for Open MPI when it
# is installed).  "make test" runs every test; "make bench" the benchmark;
# "make mutate" the mutation tests; "make install PREFIX=/usr/local
# DESTDIR=" installs both, the runtime's headers, a pkg-config file, the
# man pages (distmpmd(1), distmpmd-job(5)) and the sequential reference
# (share/distmpmd/dmd_ref.py, run by "distmpmd ref").

CC ?= cc
MPICC ?= mpicc.mpich
PKGS := isl yaml-0.1
WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
CFLAGS += $(WARN) -std=gnu11 $(shell pkg-config --cflags $(PKGS)) -I. -Iir
LDLIBS += $(shell pkg-config --libs $(PKGS)) -lm
# SAN=1: the compiler built with ASan/UBSan (and LeakSanitizer) into
# obj-san/ and bin-san/, beside the normal build.
SAN ?=
O := obj
B := bin
ifeq ($(SAN),1)
CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
O := obj-san
B := bin-san
endif

# runtime/dmd_npy.c (no MPI) is in both: run checks the inputs with it
COMPILER_SRC := $(wildcard ir/*.c partition/*.c specialize/*.c emit/*.c \
	search/*.c manifests/*.c cmd/*.c) runtime/dmd_npy.c
COMPILER_OBJ := $(patsubst %.c,$(O)/%.o,$(COMPILER_SRC))
RT_SRC := $(wildcard runtime/*.c)
RT_OBJ := $(patsubst %.c,obj/%.o,$(RT_SRC))
RT_CFLAGS := -O2 -g $(WARN) -std=gnu11 \
	$(shell pkg-config --cflags openblas)

# The runtime of another MPI (spec section 2, "MPI"): obj/KEY/libdmdrt.a,
# compiled with that MPI's wrapper MPICC_KEY ("make runtime-openmpi");
# "make all" builds Open MPI's when its wrapper is installed.  distmpmd
# links a class built with --mpicc/DISTMPMD_MPICC against the runtime
# of the wrapper's MPI (cmd/dmd_build.c).
MPICC_openmpi ?= mpicc.openmpi
RT_MPIS := openmpi
RT_MPIS_FOUND := $(foreach m,$(RT_MPIS),\
	$(if $(shell command -v $(MPICC_$(m)) 2>/dev/null),$(m)))

all: $(B)/distmpmd obj/libdmdrt.a \
	$(foreach m,$(RT_MPIS_FOUND),obj/$(m)/libdmdrt.a)

$(B)/distmpmd: $(COMPILER_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The flags of OpenBLAS that the generated programs are compiled with (the
# runtime itself is found relative to the distmpmd executable).
$(O)/cmd/dmd_build.o: CFLAGS += \
	-DDMD_BLAS_CFLAGS='"$(shell pkg-config --cflags openblas)"' \
	-DDMD_BLAS_LIBS='"$(shell pkg-config --libs openblas)"'

obj/runtime/%.o: runtime/%.c $(wildcard runtime/*.h)
	@mkdir -p $(@D)
	$(MPICC) $(RT_CFLAGS) -c -o $@ $<

obj/libdmdrt.a: $(RT_OBJ)
	rm -f $@
	ar rcs $@ $^

define dmd_rt_mpi
obj/$(1)/runtime/%.o: runtime/%.c $$(wildcard runtime/*.h)
	@mkdir -p $$(@D)
	$$(MPICC_$(1)) $$(RT_CFLAGS) -c -o $$@ $$<

obj/$(1)/libdmdrt.a: $$(patsubst %.c,obj/$(1)/%.o,$$(RT_SRC))
	rm -f $$@
	ar rcs $$@ $$^

runtime-$(1): obj/$(1)/libdmdrt.a
.PHONY: runtime-$(1)
endef
$(foreach m,$(RT_MPIS),$(eval $(call dmd_rt_mpi,$(m))))

$(O)/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

test: all
	$(MAKE) SAN=1 all
	bash tests/run.sh

# Install what is missing, build, and run the main job (PUMMA on 2x2).
demo: all
	bash examples/demo.sh

# Regenerate the golden emitted C of tests/codegen/ (review the diff!).
golden: all
	bash tests/codegen/regen.sh

bench: all
	bash bench/run.sh

# Mutation testing (tests/mutate/): plant each bug of
# tests/mutate/mutants.txt in a copy of the tree and run the checks that
# must catch it; "MUTANTS=a,b make mutate" runs some.  Not part of
# "make test".
mutate: all
	/usr/bin/python3 tests/mutate/mutate.py

# Installation.  The installed tree can be moved: distmpmd finds the
# runtime relative to its own executable (<prefix>/include/distmpmd,
# <prefix>/lib/libdmdrt.a), and distmpmd.pc relative to itself.
VERSION := 0.1

# What "distmpmd --version" says it was built with: the MPI of a wrapper's
# mpi.h, $(call dmd_mpi_desc,WRAPPER) (its name, version and MPI
# standard: "MPICH 4.0.2, MPI 4.0"), for $(MPICC) and for the wrapper of
# every other runtime built; OpenBLAS as pkg-config knows it.  Expanded
# only when cmd/distmpmd.c is compiled.
dmd_mpi_desc = $(shell printf '\043include <mpi.h>\n' | \
	$(1) -E -dM -x c - 2>/dev/null | awk ' \
	$$1 == "\043define" { v[$$2] = $$3; gsub(/"/, "", v[$$2]) } \
	END { \
	  if ("MPICH_VERSION" in v) n = "MPICH " v["MPICH_VERSION"]; \
	  else if ("OMPI_MAJOR_VERSION" in v) n = "Open MPI " \
	    v["OMPI_MAJOR_VERSION"] "." v["OMPI_MINOR_VERSION"] "." \
	    v["OMPI_RELEASE_VERSION"]; \
	  else n = "an unknown MPI"; \
	  if ("MPI_VERSION" in v) n = n ", MPI " v["MPI_VERSION"] "." \
	    v["MPI_SUBVERSION"]; \
	  print n }')
DMD_MPI_DESC = $(call dmd_mpi_desc,$(MPICC))
DMD_MPI_MORE = $(strip $(foreach m,$(RT_MPIS_FOUND),\
	$(call dmd_mpi_desc,$(MPICC_$(m))) (the runtime for --mpicc \
	$(MPICC_$(m)));))
$(O)/cmd/distmpmd.o: Makefile
$(O)/cmd/distmpmd.o: CFLAGS += -DDMD_VERSION='"$(VERSION)"' \
	-DDMD_MPI='"$(DMD_MPI_DESC)"' -DDMD_MPICC='"$(MPICC)"' \
	-DDMD_MPI_MORE='"$(DMD_MPI_MORE)"' \
	-DDMD_OPENBLAS='"$(shell pkg-config --modversion openblas)"'

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
LIBDIR = $(PREFIX)/lib
INCLUDEDIR = $(PREFIX)/include/distmpmd
MAN1DIR = $(PREFIX)/share/man/man1
MAN5DIR = $(PREFIX)/share/man/man5
# the sequential reference, run by "distmpmd ref" and "sweep --ref"
DATADIR = $(PREFIX)/share/distmpmd
PKGCONFIGDIR = $(LIBDIR)/pkgconfig
RT_HEADERS := runtime/dmd_rt.h runtime/dmd_emit_ops.h runtime/dmd_rt_lib.h

obj/distmpmd.pc: Makefile
	@mkdir -p $(@D)
	printf '%s\n' 'prefix=$${pcfiledir}/../..' \
		'includedir=$${prefix}/include/distmpmd' \
		'libdir=$${prefix}/lib' '' \
		'Name: distmpmd' \
		'Description: runtime of the MPI programs distmpmd generates (build them with mpicc.mpich)' \
		'Version: $(VERSION)' \
		'Requires.private: openblas' \
		'Cflags: -I$${includedir}' \
		'Libs: -L$${libdir} -ldmdrt' \
		'Libs.private: -lm' > $@

install: all obj/distmpmd.pc
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(LIBDIR)" \
		"$(DESTDIR)$(INCLUDEDIR)" "$(DESTDIR)$(MAN1DIR)" \
		"$(DESTDIR)$(MAN5DIR)" "$(DESTDIR)$(PKGCONFIGDIR)" \
		"$(DESTDIR)$(DATADIR)"
	install -m 755 bin/distmpmd "$(DESTDIR)$(BINDIR)/distmpmd"
	install -m 644 obj/libdmdrt.a "$(DESTDIR)$(LIBDIR)/libdmdrt.a"
	for m in $(RT_MPIS_FOUND); do \
		install -d "$(DESTDIR)$(LIBDIR)/distmpmd/$$m" && \
		install -m 644 obj/$$m/libdmdrt.a \
			"$(DESTDIR)$(LIBDIR)/distmpmd/$$m/libdmdrt.a" || exit 1; \
	done
	install -m 644 $(RT_HEADERS) "$(DESTDIR)$(INCLUDEDIR)/"
	install -m 644 obj/distmpmd.pc "$(DESTDIR)$(PKGCONFIGDIR)/distmpmd.pc"
	install -m 644 doc/distmpmd.1 "$(DESTDIR)$(MAN1DIR)/distmpmd.1"
	install -m 644 doc/distmpmd-job.5 "$(DESTDIR)$(MAN5DIR)/distmpmd-job.5"
	install -m 644 tests/ref/dmd_ref.py "$(DESTDIR)$(DATADIR)/dmd_ref.py"

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/distmpmd" "$(DESTDIR)$(LIBDIR)/libdmdrt.a" \
		"$(DESTDIR)$(PKGCONFIGDIR)/distmpmd.pc" \
		"$(DESTDIR)$(MAN1DIR)/distmpmd.1" \
		"$(DESTDIR)$(MAN5DIR)/distmpmd-job.5" \
		"$(DESTDIR)$(DATADIR)/dmd_ref.py"
	rm -f $(patsubst runtime/%,"$(DESTDIR)$(INCLUDEDIR)/%",$(RT_HEADERS))
	for m in $(RT_MPIS); do \
		rm -f "$(DESTDIR)$(LIBDIR)/distmpmd/$$m/libdmdrt.a"; \
		rmdir "$(DESTDIR)$(LIBDIR)/distmpmd/$$m" 2>/dev/null; \
	done; rmdir "$(DESTDIR)$(LIBDIR)/distmpmd" 2>/dev/null; true
	-rmdir "$(DESTDIR)$(INCLUDEDIR)" "$(DESTDIR)$(DATADIR)"

# The libFuzzer harness of the job reader and the analysis
# (tests/fuzz/fuzz_job.c), with ASan and UBSan, into obj-fuzz/; "make
# fuzz" builds it and runs it for FUZZ_SECONDS on the seed corpus
# (README.md, "Fuzzing the job reader and the analysis").
# Needs clang and libclang-rt-14-dev.  Not part of "make test".
FUZZ_SECONDS ?= 600
FUZZ_CC ?= clang
FUZZ_ARGS ?=
FUZZ_SRC := tests/fuzz/fuzz_job.c $(wildcard ir/*.c partition/*.c \
	specialize/*.c emit/*.c search/*.c) cmd/dmd_session.c
FUZZ_FLAGS := $(WARN) -std=gnu11 -I. -Iir $(shell pkg-config --cflags $(PKGS))
FUZZ_LIBS := $(shell pkg-config --libs $(PKGS)) -lm

obj-fuzz/fuzz_job: $(FUZZ_SRC) $(wildcard */*.h)
	@mkdir -p $(@D)
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz needs clang:" \
		"apt-get install clang libclang-rt-14-dev"; exit 1; }
	$(FUZZ_CC) -g -O1 $(FUZZ_FLAGS) \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer -o $@ $(FUZZ_SRC) $(FUZZ_LIBS)

fuzz: obj-fuzz/fuzz_job
	bash tests/fuzz/run_fuzz.sh obj-fuzz/fuzz_job $(FUZZ_SECONDS) $(FUZZ_ARGS)

# The same harness under AFL++ (optional: apt-get install afl++).
obj-fuzz/fuzz_job_afl: $(FUZZ_SRC) $(wildcard */*.h)
	@mkdir -p $(@D)
	AFL_QUIET=1 afl-clang-fast -g -O1 $(FUZZ_FLAGS) \
		-fsanitize=fuzzer -fsanitize=address,undefined \
		-o $@ $(FUZZ_SRC) $(FUZZ_LIBS)

fuzz-afl: obj-fuzz/fuzz_job_afl
	bash tests/fuzz/run_afl.sh obj-fuzz/fuzz_job_afl $(FUZZ_SECONDS)

clean:
	rm -rf obj bin obj-san bin-san obj-fuzz

.PHONY: all test demo golden bench mutate clean install uninstall fuzz fuzz-afl
