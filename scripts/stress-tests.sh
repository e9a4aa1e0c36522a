#!/usr/bin/env bash
# Runs the test suite N times in a row while a CPU hog keeps every core busy, the way a loaded CI box
# does, and reports each run's result and duration. A test that passes idle but fails here waits for
# luck (a sleep, a tight time bound) instead of a condition.
#
#   scripts/stress-tests.sh [-n RUNS] [-j HOGS] [-- vitest arguments]
#
#   scripts/stress-tests.sh                      # the whole suite, 3 runs, one hog per core
#   scripts/stress-tests.sh -n 5 -- test/alerts  # only test/alerts, 5 runs
#
# Exits 0 only if every run passed. Each run's output is kept in $STRESS_LOG_DIR (a temp dir by default).
set -uo pipefail
cd "$(dirname "$0")/.."

runs=3
hogs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs="$2"; shift 2 ;;
    -j) hogs="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
case "$runs$hogs" in *[!0-9]*) echo "stress: -n and -j take whole numbers" >&2; exit 64 ;; esac

log_dir="${STRESS_LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/reviewwatch-stress-XXXXXX")}"
mkdir -p "$log_dir"

hog_pids=()
stop_hogs() {
  for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${hog_pids[@]}"; do wait "$pid" 2>/dev/null; done
  hog_pids=()
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM

if command -v stress-ng >/dev/null 2>&1; then
  stress-ng --cpu "$hogs" --quiet &
  hog_pids+=($!)
  hog="stress-ng --cpu $hogs"
else
  for _ in $(seq 1 "$hogs"); do
    yes >/dev/null &
    hog_pids+=($!)
  done
  hog="$hogs x yes"
fi

echo "stress: $runs run(s) of vitest run $* beside a CPU hog ($hog); logs in $log_dir"
passed=0
for i in $(seq 1 "$runs"); do
  log="$log_dir/run-$i.log"
  start=$(date +%s)
  if npx vitest run "$@" >"$log" 2>&1; then status=pass; passed=$((passed + 1)); else status=FAIL; fi
  seconds=$(($(date +%s) - start))
  plain="$log_dir/run-$i.txt"
  sed 's/\x1b\[[0-9;]*m//g' "$log" >"$plain"
  summary=$(grep -E '^ *(Test Files|Tests) ' "$plain" | sed 's/^ *//' | tr -s ' ' | paste -sd ';' -)
  echo "run $i: $status in ${seconds}s ($summary)"
  if [ "$status" = FAIL ]; then
    grep -E '^ *FAIL ' "$plain" | sort -u | head -20 | sed 's/^ */    /'
  fi
done
echo "stress: $passed of $runs run(s) passed"
[ "$passed" -eq "$runs" ]
