#!/usr/bin/env bash
# Memory and throughput of a build against MariaDB, and against an earlier build: the
# measurements behind "results stream, sorts spill, nothing got slower".
#
# Builds the current tree in release (and, with BEFORE=<commit>, that commit too, in a
# temporary git worktree), then runs with MariaDB beside each build, into one folder:
#   myriad-bench run oltp        --rows 1000000 --threads 1,16,64 --time 10 --repeat 2
#   myriad-bench run many-tables --tables 5000
#   myriad-bench run memory      (100,000 rows of ~1 KiB; 1 / 5 / 20 slow readers)
# Experiments run outermost and builds innermost (before, then current), so that both
# builds of one experiment run minutes apart. At the end it prints myriad / MariaDB per
# oltp cell and the memory growth per cell for each build.
#
# Usage:
#   scripts/bench_memory.sh                   # the current tree only
#   BEFORE=15072db scripts/bench_memory.sh    # and the build of 15072db
# Variables: OUT (default docs/benchmarks/results/<date>-<commit>-<machine>), MACHINE
# (default <cores>core-<cpu vendor word>, e.g. 2core-epyc), EXPERIMENTS (default
# "oltp many-tables memory"), QUICK=1 (every experiment's --quick: checks the script).
# Needs what myriad-bench needs: mariadb-server, sysbench, fonts-dejavu-core.
set -euo pipefail
cd "$(dirname "$0")/.."

commit=$(git rev-parse --short HEAD)
machine=${MACHINE:-$(nproc)core-$(lscpu | sed -n 's/^Model name:.*\(EPYC\|Xeon\|Ryzen\|Core\).*/\1/p' | head -1 | tr '[:upper:]' '[:lower:]')}
out=${OUT:-docs/benchmarks/results/$(date -u +%Y-%m-%d)-$commit-${machine%-}}
experiments=${EXPERIMENTS:-oltp many-tables memory}
bins=target/bench-memory-bins
mkdir -p "$out" "$bins"

cargo build --release --bins
cp target/release/myriad "$bins/myriad-current"
cp target/release/myriad-bench "$bins/myriad-bench"
builds=(current)
if [[ -n "${BEFORE:-}" ]]; then
    src=$(mktemp -d)/before
    git worktree add --detach "$src" "$BEFORE"
    trap 'git worktree remove --force "$src"' EXIT
    # The same target directory: the dependencies are reused, only the workspace rebuilds.
    cargo build --release --bin myriad --manifest-path "$src/Cargo.toml" --target-dir target
    cp target/release/myriad "$bins/myriad-before"
    # Leave target/release/myriad as the current tree's build.
    cargo build --release --bin myriad
    builds=(before current)
fi

args() {
    case $1 in
        oltp) echo "--rows 1000000 --threads 1,16,64 --time 10 --repeat 2" ;;
        many-tables) echo "--tables 5000" ;;
        *) echo "" ;;
    esac
}

{
    echo "commit $commit; before: ${BEFORE:-none}; machine $machine; $(date -u)"
    uptime
} > "$out/run.txt"
for experiment in $experiments; do
    for build in "${builds[@]}"; do
        dir="$out/$build"
        mkdir -p "$dir"
        if [[ -n "${QUICK:-}" ]]; then
            extra="--quick"
        else
            extra=$(args "$experiment")
        fi
        echo "== $experiment, $build build: $(date -u), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/run.txt"
        # shellcheck disable=SC2086 # the experiment's options are words
        "$bins/myriad-bench" run "$experiment" --target both $extra \
            --myriad-bin "$bins/myriad-$build" --out "$dir" || echo "exit status $? (error rows are in the record)" | tee -a "$out/run.txt"
    done
done

python3 - "$out" "${builds[@]}" <<'EOF'
import json, os, sys
out, builds = sys.argv[1], sys.argv[2:]
def rows(build, experiment):
    path = os.path.join(out, build, experiment + ".json")
    return json.load(open(path))["rows"] if os.path.exists(path) else []
def find(rs, target, **params):
    for r in rs:
        if r["target"] == target and not r.get("error") and all(str(r["params"].get(k)) == str(v) for k, v in params.items()):
            return r
ran = lambda experiment: any(rows(b, experiment) for b in builds)
if ran("oltp"):
    print("\noltp: myriad TPS / MariaDB TPS (same run) per build")
    print("| test | threads | " + " | ".join(builds) + " |")
    print("|---|---|" + "---|" * len(builds))
for test in ["oltp_point_select", "oltp_read_only", "oltp_read_write"] if ran("oltp") else []:
    for threads in [1, 16, 64]:
        cells = []
        for b in builds:
            rs = rows(b, "oltp")
            m, d = find(rs, "myriad", test=test, threads=threads), find(rs, "mariadb", test=test, threads=threads)
            cells.append("%.2fx (%.0f / %.0f)" % (m["metrics"]["tps"] / d["metrics"]["tps"], m["metrics"]["tps"], d["metrics"]["tps"]) if m and d else "-")
        print("| %s | %d | %s |" % (test, threads, " | ".join(cells)))
if ran("memory"):
    print("\nmemory: server RSS growth, MB, myriad / MariaDB per build")
    print("| cell | " + " | ".join(builds) + " |")
    print("|---|" + "---|" * len(builds))
cells = []
for b in builds:
    for r in rows(b, "memory"):
        if r["params"].get("cell") not in cells:
            cells.append(r["params"].get("cell"))
for cell in cells:
    line = []
    for b in builds:
        rs = rows(b, "memory")
        m, d = find(rs, "myriad", cell=cell), find(rs, "mariadb", cell=cell)
        line.append("%.1f / %.1f" % (m["metrics"]["growth_mb"], d["metrics"]["growth_mb"]) if m and d else "-")
    print("| %s | %s |" % (cell, " | ".join(line)))
EOF
