#!/bin/sh
# run-fuzzer.sh inputs FUZZER CORPUS CRASHES
#     Runs every committed input once (the seed corpus and the crash inputs found before).
# run-fuzzer.sh fuzz FUZZER CORPUS WORKDIR RUNS MAX_SECONDS
#     Fuzzes RUNS inputs (at most MAX_SECONDS) from a copy of CORPUS in WORKDIR/corpus (the
#     committed corpus is never written); a crash input lands in WORKDIR/crashes/ and fails the
#     test.
set -eu
mode=$1 fuzzer=$2 corpus=$3
# ASan's and UBSan's reports fail the run; leaks are reported at exit of each input.
limits="-rss_limit_mb=2048 -timeout=10 -max_len=8192"
case $mode in
    inputs)
        crashes=$4
        set -- "$corpus"/*
        [ -d "$crashes" ] && set -- "$@" "$crashes"/*
        exec "$fuzzer" $limits -runs=1 "$@" ;;
    fuzz)
        work=$4 runs=$5 seconds=$6
        rm -rf "$work"
        mkdir -p "$work/corpus" "$work/crashes"
        cp "$corpus"/* "$work/corpus/"
        # A fixed seed (SBW_FUZZ_SEED, default 1) and a number of runs, not a time, make the test
        # command fuzz the same amount on any machine, and nearly the same inputs (comparison
        # tracing also sees heap addresses). SBW_FUZZ_SEED=0 asks libFuzzer for a random seed,
        # for fuzzing by hand.
        exec "$fuzzer" $limits -seed="${SBW_FUZZ_SEED:-1}" -runs="$runs" -max_total_time="$seconds" -print_final_stats=1 \
            -artifact_prefix="$work/crashes/" "$work/corpus" ;;
    *) echo "usage: $0 inputs|fuzz ..." >&2; exit 2 ;;
esac
