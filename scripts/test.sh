#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit tests, end-to-end tests against the real
# binary with real clients. One build profile (dev, optimised) serves all of it.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# API documentation: every intra-doc link resolves, no warning of any kind.
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
cargo test --workspace --no-fail-fast
# Schedule exploration of the block cache's lock-free paths (shuttle, bounded iterations).
cargo test -p myriad-cache --features shuttle --lib schedules
# myriad-bench end to end: each experiment's --quick mode against myriad and MariaDB must
# produce its JSON record, its table and its plots with no error row (exit status 2).
cargo build --workspace --bins
out=target/bench-ci
rm -rf "$out"
for experiment in many-tables query-cache open-files table-cache-instances oltp key-cache memory; do
    target/debug/myriad-bench run "$experiment" --quick --target both --out "$out"
    test -s "$out/$experiment.json" && test -s "$out/$experiment.md"
    ls "$out/$experiment"*.png >/dev/null
done
# MariaDB's own regression tests (the quick list) replayed against MariaDB and myriad: no
# hang, no crash, and no test agreeing on fewer statements than the baseline records.
target/debug/myriad-bench compat --quick --out "$out/compat" --baseline crates/bench/compat-quick.baseline
