# Run independent checks of a test script side by side, their output
# printed whole and in the order they were started (sourced by
# tests/codegen/run.sh and tests/plan/run.sh).
#
#	par_init DIR	where the outputs go (a directory the caller removes)
#	par_start CMD...	run CMD (a shell function or a command) in the
#			background once fewer than TEST_JOBS (default: the
#			number of processors, at most 2) run; its
#			standard output and error go to a file
#	par_wait	wait for all, print the outputs not yet printed
#
# A check reports its own counts by calling par_count PASSED FAILED (in its
# background shell); par_wait adds them to the caller's variables passed
# and failed.  A check that exits without reporting counts as one failure.
# TEST_JOBS=1 runs the checks one after another.

par_init() {
    PAR_DIR=$1
    PAR_N=0
    PAR_PRINTED=0
    if [ -n "${TEST_JOBS:-}" ]; then
        PAR_JOBS=$TEST_JOBS
    else
        PAR_JOBS=$(nproc 2> /dev/null || echo 1)
        [ "$PAR_JOBS" -gt 2 ] && PAR_JOBS=2
    fi
    case $PAR_JOBS in
    '' | *[!0-9]* | 0) PAR_JOBS=1 ;;
    esac
    mkdir -p "$PAR_DIR"
}

# par_count PASSED FAILED: the counts of the running check.
par_count() {
    echo "$1 $2" > "$PAR_DIR/$PAR_ID.res"
}

# Print the outputs of the finished checks that come next in order, and
# add up their counts.
par_flush() {
    local p f
    while [ "$PAR_PRINTED" -lt "$PAR_N" ] &&
          [ -e "$PAR_DIR/$PAR_PRINTED.done" ]; do
        cat "$PAR_DIR/$PAR_PRINTED.out"
        if [ -s "$PAR_DIR/$PAR_PRINTED.res" ]; then
            read -r p f < "$PAR_DIR/$PAR_PRINTED.res"
        else
            echo "FAIL check $PAR_PRINTED: exited without its counts"
            p=0 f=1
        fi
        passed=$((passed + p))
        failed=$((failed + f))
        PAR_PRINTED=$((PAR_PRINTED + 1))
    done
}

par_start() {
    while [ "$(jobs -rp | wc -l)" -ge "$PAR_JOBS" ]; do
        wait -n
        par_flush
    done
    (
        PAR_ID=$PAR_N
        "$@" > "$PAR_DIR/$PAR_ID.out" 2>&1
        : > "$PAR_DIR/$PAR_ID.done"
    ) &
    PAR_N=$((PAR_N + 1))
    par_flush
}

par_wait() {
    wait
    par_flush
}
