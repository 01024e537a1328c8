#!/bin/sh
# An example CI step: compile a model with duet and fail, with a message a
# person can act on, when any op would run on the portable CPU kernels instead
# of a delegate (Vulkan, XNNPACK), unless that op is on an allowed list.
#
#   examples/ci/compile-and-check.sh MODEL.pt2 OUT.duet [ALLOWED_OP...]
#
#   ALLOWED_OP   an aten op that may stay portable, e.g. aten.embedding
#   DUET         the duet tool (default: duet on PATH)
#   DUET_FLAGS   more `duet compile` options, e.g. "--backends xnnpack
#                --target-profile adreno"
#
# Writes OUT.duet and OUT.duet.report.json (keep both as build artifacts).
# Exits 0 when the model compiled and every portable op is allowed; otherwise
# exits with duet's own exit code (docs/cli.md): 4 for a disallowed portable
# op, 2 for a bad model, 3 for an unsupported one, ...
set -u

if [ $# -lt 2 ]; then
  echo "usage: $0 MODEL.pt2 OUT.duet [ALLOWED_OP...]" >&2
  exit 2
fi
model=$1
out=$2
shift 2
duet=${DUET:-duet}
report=$out.report.json

# --strict turns any portable op into exit code 4; the program and the report
# are written all the same, and the report says which ops and why.
# shellcheck disable=SC2086  # DUET_FLAGS is a list of options
"$duet" compile "$model" -o "$out" --report "$report" --strict --quiet \
  ${DUET_FLAGS:-}
code=$?
case $code in
  0) echo "ok: every op of $model runs on a delegate"; exit 0 ;;
  4) ;;  # some op fell to portable: the report decides below
  *) echo "FAILED: duet compile $model exited with $code (docs/cli.md lists the codes)" >&2
     exit $code ;;
esac

python3 - "$report" "$model" "$@" <<'PY'
import json
import sys

report_path, model, allowed = sys.argv[1], sys.argv[2], set(sys.argv[3:])
report = json.load(open(report_path))
portable = [op for op in report["ops"] if op["backend"] == "portable"]
refused = [op for op in portable if op["op"] not in allowed]
summary = report["summary"]
counts = ", ".join(f"{b} {summary[b]}" for b in ("vulkan", "xnnpack", "portable"))
if not refused:
    kinds = ", ".join(sorted({op["op"] for op in portable}))
    print(f"ok: {model}: {counts}; portable ops are all allowed ({kinds})")
    sys.exit(0)
print(f"FAILED: {model}: {len(refused)} op(s) would run on the portable CPU "
      f"kernels ({counts}; backends asked: {', '.join(report['backends']) or 'none'}):",
      file=sys.stderr)
for op in refused:
    reasons = "; ".join(r["reason"] for r in op["rejections"]) or "no delegate backend was asked"
    print(f"  {op['node']} ({op['op']}): {reasons}", file=sys.stderr)
print(f"Allow an op by naming it after the output file, or see {report_path}.",
      file=sys.stderr)
sys.exit(4)
PY
