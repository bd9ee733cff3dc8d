# distmpmd: the compiler (bin/distmpmd) and the runtime its programs link
# (obj/libdmdrt.a).  "make test" runs every test; "make bench" the benchmark;
# "make install PREFIX=/usr/local DESTDIR=" installs both, the runtime's
# headers, a pkg-config file and the man page.

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

COMPILER_SRC := $(wildcard ir/*.c partition/*.c specialize/*.c emit/*.c \
	search/*.c manifests/*.c cmd/*.c)
COMPILER_OBJ := $(patsubst %.c,$(O)/%.o,$(COMPILER_SRC))
RT_SRC := $(wildcard runtime/*.c)
RT_OBJ := $(patsubst %.c,obj/%.o,$(RT_SRC))
RT_CFLAGS := -O2 -g $(WARN) -std=gnu11 \
	$(shell pkg-config --cflags openblas)

all: $(B)/distmpmd obj/libdmdrt.a

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

# Installation.  The installed tree can be moved: distmpmd finds the
# runtime relative to its own executable (<prefix>/include/distmpmd,
# <prefix>/lib/libdmdrt.a), and distmpmd.pc relative to itself.
VERSION := 0.1
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
LIBDIR = $(PREFIX)/lib
INCLUDEDIR = $(PREFIX)/include/distmpmd
MAN1DIR = $(PREFIX)/share/man/man1
PKGCONFIGDIR = $(LIBDIR)/pkgconfig
RT_HEADERS := runtime/dmd_rt.h runtime/dmd_emit_ops.h

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
		"$(DESTDIR)$(PKGCONFIGDIR)"
	install -m 755 bin/distmpmd "$(DESTDIR)$(BINDIR)/distmpmd"
	install -m 644 obj/libdmdrt.a "$(DESTDIR)$(LIBDIR)/libdmdrt.a"
	install -m 644 $(RT_HEADERS) "$(DESTDIR)$(INCLUDEDIR)/"
	install -m 644 obj/distmpmd.pc "$(DESTDIR)$(PKGCONFIGDIR)/distmpmd.pc"
	install -m 644 doc/distmpmd.1 "$(DESTDIR)$(MAN1DIR)/distmpmd.1"

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/distmpmd" "$(DESTDIR)$(LIBDIR)/libdmdrt.a" \
		"$(DESTDIR)$(PKGCONFIGDIR)/distmpmd.pc" \
		"$(DESTDIR)$(MAN1DIR)/distmpmd.1"
	rm -f $(patsubst runtime/%,"$(DESTDIR)$(INCLUDEDIR)/%",$(RT_HEADERS))
	-rmdir "$(DESTDIR)$(INCLUDEDIR)"

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

.PHONY: all test demo golden bench clean install uninstall fuzz fuzz-afl
