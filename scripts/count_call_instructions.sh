#!/bin/bash
# Native instructions of one warm GEMM call, by single-stepping it under gdb (no hardware
# counters needed; the AVX-512 paths run, which valgrind cannot emulate).
#   bash scripts/count_call_instructions.sh M N K [LIB...]     (default LIBs: adaptcore libxsmm openblas)
# Prints "LIB MxNxK: N instructions" per library; a library that is missing or does not run
# the shape says so. Needs gdb (apt-get install gdb) and build/bench/adaptcore_call_instructions.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${ADAPTCORE_BUILD_DIR:-$root/build}/bench/adaptcore_call_instructions
[ -x "$bin" ] || { echo "build $bin first (cmake --build build --target adaptcore_call_instructions)" >&2; exit 2; }
command -v gdb > /dev/null || { echo "needs gdb (apt-get install gdb)" >&2; exit 2; }
[ $# -ge 3 ] || { echo "usage: $0 M N K [LIB...]" >&2; exit 2; }
m=$1 n=$2 k=$3; shift 3
libs=("$@"); [ ${#libs[@]} -gt 0 ] || libs=(adaptcore libxsmm openblas)
py=$(mktemp --suffix=.py); trap 'rm -f "$py"' EXIT
cat > "$py" <<'PY'
import gdb
gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("break adaptcore_marker_begin")
gdb.execute("run", to_string=True)
try:
    gdb.execute("finish", to_string=True)
except gdb.error:
    print("COUNT none"); raise SystemExit
stop = int(gdb.parse_and_eval("(long)&adaptcore_marker_end"))
n = 0
while int(gdb.parse_and_eval("(long)$pc")) != stop:
    gdb.execute("stepi", to_string=True)
    n += 1
# The call instruction into the second marker is counted; the one after the first is not.
print("COUNT", n)
gdb.execute("kill", to_string=True)
PY
for lib in "${libs[@]}"; do
  out=$(gdb -q -batch -x "$py" --args "$bin" "$lib" "$m" "$n" "$k" 2>&1 || true)
  count=$(echo "$out" | awk '/^COUNT/ {print $2}')
  if [ -n "$count" ] && [ "$count" != none ]; then
    echo "$lib ${m}x${n}x${k}: $count instructions"
  else
    echo "$lib ${m}x${n}x${k}: not counted ($(echo "$out" | grep -v '^$' | tail -1))"
  fi
done
