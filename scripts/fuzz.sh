#!/usr/bin/env bash
# Runs the libFuzzer targets of the instrumented tree (scripts/sanitize-build.sh
# builds them; this script builds nothing): scripts/fuzz.sh BUILD_DIR SECONDS.
#
# For each target it makes the seed corpus from the repository's fixtures
# (test/fuzz/make_seeds.py) into BUILD_DIR/fuzz/<target>/seeds, replays the
# reproducers of fixed findings (test/fuzz/regressions/<target>/, each must
# pass), then fuzzes for SECONDS, growing BUILD_DIR/fuzz/<target>/corpus,
# with crash reproducers written to BUILD_DIR/fuzz/<target>/artifacts. It prints each
# target's execs, corpus size and coverage, and exits non-zero when a
# target crashed or a fixed finding is back.
#
# Environment: FUZZ_TARGETS (default: fuzz-import fuzz-program fuzz-npy),
# FUZZ_ARGS (more libFuzzer flags, e.g. -fork=16 on a bigger machine),
# FUZZ_KEEP_SEEDS (set: a target's seeds already in BUILD_DIR/fuzz/<target>/
# seeds are used as they are, as scripts/fuzz-bundle.sh carries them).
# Only bash and python3 are needed, so the built binaries can be copied to
# another machine and run there with a copy of the source tree
# (scripts/fuzz-bundle.sh packs them).
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
build=$(cd "$1" && pwd) || exit 2
seconds=$2
root=$(cd "$(dirname "$0")/.." && pwd)
targets=${FUZZ_TARGETS:-fuzz-import fuzz-program fuzz-npy}

# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs in our
# instrumented code while the uninstrumented MLIR/LLVM code writes into them,
# a false positive (see scripts/run_tests.py).
export ASAN_OPTIONS="allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

failed=0
summary=()
for target in $targets; do
  binary=$build/bin/$target
  work=$build/fuzz/$target
  if [ ! -x "$binary" ]; then
    echo "fuzz.sh: $binary is missing; build it with scripts/sanitize-build.sh $1" >&2
    failed=1
    continue
  fi
  mkdir -p "$work/seeds" "$work/corpus" "$work/artifacts"
  if [ -n "${FUZZ_KEEP_SEEDS:-}" ] && [ -n "$(ls -A "$work/seeds")" ]; then
    echo "$target: $(ls "$work/seeds" | wc -l) seeds kept in $work/seeds"
  elif ! python3 "$root/test/fuzz/make_seeds.py" "$target" "$work/seeds" \
       --duet "$build/bin/duet"; then
    failed=1
    continue
  fi

  regressions=$root/test/fuzz/regressions/$target
  fixed=()
  [ -d "$regressions" ] && while IFS= read -r f; do fixed+=("$f"); done \
    < <(find "$regressions" -maxdepth 1 -type f ! -name '*.md' | sort)
  if [ ${#fixed[@]} -gt 0 ]; then
    if "$binary" "${fixed[@]}" >"$work/regressions.log" 2>&1; then
      echo "$target: ${#fixed[@]} fixed findings replayed, none is back"
    else
      echo "$target: a fixed finding is back (log: $work/regressions.log):" >&2
      tail -n 30 "$work/regressions.log" >&2
      failed=1
    fi
  fi

  log=$work/fuzz.log
  # -timeout: an input that runs for 25 s is a hang, not a slow model.
  # shellcheck disable=SC2086
  "$binary" -max_total_time="$seconds" -timeout=25 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" ${FUZZ_ARGS:-} \
    "$work/corpus" "$work/seeds" >"$log" 2>&1
  status=$?
  stats=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$stats")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$stats")
  corpus=$(find "$work/corpus" -type f | wc -l | tr -d ' ')
  line="$target: execs ${execs:-?} (${rate:-?}/s), corpus $corpus files, cov ${cov:-?}, ft ${ft:-?}"
  if [ $status -ne 0 ]; then
    line="$line, FAILED (exit $status; log: $log)"
    echo "$target: libFuzzer stopped with exit $status:" >&2
    grep -E 'ERROR|SUMMARY|runtime error|fuzz-import:|Test unit written' "$log" | head -n 20 >&2
    failed=1
  fi
  echo "$line"
  summary+=("$line")
done

echo "fuzz.sh summary ($seconds s per target):"
printf '  %s\n' "${summary[@]}"
exit $failed
