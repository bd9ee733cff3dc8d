# distmpmd: the compiler (bin/distmpmd) and the runtime its programs link
# (obj/libdmdrt.a).  "make test" runs every test; "make bench" the benchmark.

CC ?= cc
MPICC ?= mpicc.mpich
PKGS := isl yaml-0.1
WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
CFLAGS += $(WARN) -std=gnu11 $(shell pkg-config --cflags $(PKGS)) -I. -Iir
LDLIBS += $(shell pkg-config --libs $(PKGS))
TOP := $(abspath .)
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
	manifests/*.c) cmd/distmpmd.c
COMPILER_OBJ := $(patsubst %.c,$(O)/%.o,$(COMPILER_SRC))
RT_SRC := $(wildcard runtime/*.c)
RT_OBJ := $(patsubst %.c,obj/%.o,$(RT_SRC))
RT_CFLAGS := -O2 -g $(WARN) -std=gnu11 \
	$(shell pkg-config --cflags openblas)

all: $(B)/distmpmd obj/libdmdrt.a

$(B)/distmpmd: $(COMPILER_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/cmd/distmpmd.o: CFLAGS += -DDMD_TOP='"$(TOP)"' \
	-DDMD_BLAS_CFLAGS='"$(shell pkg-config --cflags openblas)"' \
	-DDMD_BLAS_LIBS='"$(shell pkg-config --libs openblas)"'

obj/runtime/%.o: runtime/%.c runtime/dmd_rt.h
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

# The libFuzzer harness of the job reader (tests/fuzz/fuzz_job.c), with
# ASan and UBSan, into obj-fuzz/; "make fuzz" builds it and runs it for
# FUZZ_SECONDS on the seed corpus (README.md, "Fuzzing the job reader").
# Needs clang and libclang-rt-14-dev.  Not part of "make test".
FUZZ_SECONDS ?= 600
FUZZ_CC ?= clang
FUZZ_ARGS ?=
FUZZ_SRC := tests/fuzz/fuzz_job.c ir/dmd_parse.c ir/dmd_expr.c \
	ir/dmd_diag.c ir/dmd_job.c ir/dmd_program.c

obj-fuzz/fuzz_job: $(FUZZ_SRC) ir/dmd_job.h ir/dmd_parse_private.h
	@mkdir -p $(@D)
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz needs clang:" \
		"apt-get install clang libclang-rt-14-dev"; exit 1; }
	$(FUZZ_CC) -g -O1 $(WARN) -std=gnu11 -Iir \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer $(shell pkg-config --cflags yaml-0.1) \
		-o $@ $(FUZZ_SRC) $(shell pkg-config --libs yaml-0.1)

fuzz: obj-fuzz/fuzz_job
	bash tests/fuzz/run_fuzz.sh obj-fuzz/fuzz_job $(FUZZ_SECONDS) $(FUZZ_ARGS)

# The same harness under AFL++ (optional: apt-get install afl++).
obj-fuzz/fuzz_job_afl: $(FUZZ_SRC) ir/dmd_job.h ir/dmd_parse_private.h
	@mkdir -p $(@D)
	AFL_QUIET=1 afl-clang-fast -g -O1 $(WARN) -std=gnu11 -Iir \
		-fsanitize=fuzzer -fsanitize=address,undefined \
		$(shell pkg-config --cflags yaml-0.1) \
		-o $@ $(FUZZ_SRC) $(shell pkg-config --libs yaml-0.1)

fuzz-afl: obj-fuzz/fuzz_job_afl
	bash tests/fuzz/run_afl.sh obj-fuzz/fuzz_job_afl $(FUZZ_SECONDS)

clean:
	rm -rf obj bin obj-san bin-san obj-fuzz

.PHONY: all test demo golden bench clean fuzz fuzz-afl
