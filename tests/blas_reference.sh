#!/usr/bin/env bash
# ctest helper: runs a reference BLAS test program of Debian's libblas-test against
# libadaptcore_blas.so (LD_PRELOAD) and checks its report.
#   blas_reference.sh LIB cblas|fortran WORKDIR [SANITIZERS]
#     cblas:   xscblat3 (CBLAS level 3, column- and row-major, error exits through cblas_xerbla)
#     fortran: xblat3s  (Fortran level 3, error exits through xerbla_)
# Each program runs twice: on the input file Debian ships (every level-3 routine, the others
# coming from the reference libblas3), and on a copy of it that tests only the GEMM routine on
# more sizes (N up to 65, the programs' NMAX, so that the packed kernels run too).
# The program must exit 0, bind its GEMM entry point to LIB (checked with LD_DEBUG=bindings),
# report the GEMM routine as passing the error-exit and computational tests and reach
# "END OF TESTS", and print no FAIL / NOT DETECTED / ***** line.
# Exit status 77 (ctest SKIP_RETURN_CODE): libblas-test is not installed, or SANITIZERS is not
# empty (a sanitizer build: the uninstrumented programs cannot preload the instrumented LIB).
set -uo pipefail

LIB="$1" KIND="$2" WORK="$3" SANITIZERS="${4:-}"
SKIP=77
skip() { echo "SKIP: $*"; exit "$SKIP"; }
fail() { echo "FAIL: $*"; exit 1; }

[[ -z "$SANITIZERS" ]] || skip "sanitizer build ($SANITIZERS)"
[[ -f "$LIB" ]] || fail "library $LIB missing"
case "$KIND" in
  cblas) PROG=xscblat3 INPUT=sin3 ROUTINE=cblas_sgemm SYMBOL=cblas_sgemm ;;
  fortran) PROG=xblat3s INPUT=sblat3.in ROUTINE=SGEMM SYMBOL=sgemm_ ;;
  *) fail "unknown kind '$KIND'" ;;
esac

# The package's files (Debian: /usr/lib/<multiarch>/blas/).
command -v dpkg >/dev/null || skip "no dpkg: libblas-test (Debian) not available"
dpkg-query -W -f='${Status}' libblas-test 2>/dev/null | grep -q "install ok installed" ||
  skip "libblas-test is not installed (apt-get install libblas-test)"
PROG_PATH=$(dpkg -L libblas-test | grep -E "/$PROG\$" | head -n1)
INPUT_PATH=$(dpkg -L libblas-test | grep -E "/$INPUT\$" | head -n1)
[[ -x "$PROG_PATH" && -f "$INPUT_PATH" ]] || fail "libblas-test lacks $PROG or $INPUT"
# The programs need the reference libblas3 (xscblat3 uses its CBLAS globals, which other
# libblas.so.3 alternatives such as OpenBLAS lack); Debian keeps it next to them.
REFDIR=$(dirname "$PROG_PATH")
[[ -e "$REFDIR/libblas.so.3" ]] || fail "reference libblas.so.3 not found in $REFDIR"

rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || fail "cannot use $WORK"

# The GEMM-only input on larger sizes: N values 0 1 2 3 5 9 17 33 65, the other routines off.
sed -E -e 's/^[0-9]+( +NUMBER OF VALUES OF N)/9\1/' \
       -e 's/^[0-9 ]+( +VALUES OF N)/0 1 2 3 5 9 17 33 65\1/' \
       -e "/^'?$ROUTINE /! s/^('?[a-zA-Z_0-9]+'? +)T /\\1F /" \
       "$INPUT_PATH" >gemm_only.in
grep -q "^0 1 2 3 5 9 17 33 65 " gemm_only.in && grep -qE "^$ROUTINE +T " gemm_only.in ||
  fail "could not derive the GEMM-only input from $INPUT_PATH (format changed?)"

status=0
run_one() {  # name input
  local name="$1" input="$2" out="$1.out" rc
  rm -f sblat3.out ld.*
  LD_LIBRARY_PATH="$REFDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$LIB" \
    LD_DEBUG=bindings LD_DEBUG_OUTPUT="$WORK/ld" ADAPTCORE_NUM_THREADS=2 \
    "$PROG_PATH" <"$input" >"$out" 2>&1
  rc=$?
  # The Fortran program writes its report to the file named in the input (sblat3.out).
  [[ -f sblat3.out ]] && cat sblat3.out >>"$out"
  local problems=()
  ((rc == 0)) || problems+=("exit status $rc")
  grep -qE "binding file [^ ]+ \[[0-9]+\] to ([^ ]*/)?$(basename "$LIB") \[[0-9]+\]: normal symbol \`$SYMBOL'" \
    ld.* 2>/dev/null || problems+=("$SYMBOL was not bound to $LIB")
  rm -f ld.*
  if grep -nE "FAIL|NOT DETECTED|\*\*\*\*\*|FATAL|SUSPECT" "$out"; then
    problems+=("failure lines in the report (above)")
  fi
  local want=("$ROUTINE +PASSED THE TESTS OF ERROR-EXITS" "END OF TESTS")
  if [[ "$KIND" == cblas ]]; then
    want+=("$ROUTINE +PASSED THE COLUMN-MAJOR +COMPUTATIONAL TESTS"
      "$ROUTINE +PASSED THE ROW-MAJOR +COMPUTATIONAL TESTS")
  else
    want+=("$ROUTINE +PASSED THE COMPUTATIONAL TESTS")
  fi
  local w
  for w in "${want[@]}"; do
    grep -qE "$w" "$out" || problems+=("missing: '$w'")
  done
  if ((${#problems[@]} > 0)); then
    echo "---- $PROG <$input: FAILED"
    printf '  %s\n' "${problems[@]}"
    echo "---- report ($WORK/$out):"
    cat "$out"
    status=1
  else
    echo "---- $PROG <$input: passed"
    grep -E "$ROUTINE +PASSED" "$out"
  fi
}

run_one shipped "$INPUT_PATH"
run_one gemm_only gemm_only.in
exit "$status"
