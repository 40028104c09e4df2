#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit tests, end-to-end tests against the real
# binary with real clients. One build profile (dev, optimised) serves all of it.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace --no-fail-fast
# Schedule exploration of the block cache's lock-free paths (shuttle, bounded iterations).
cargo test -p myriad-cache --features shuttle --lib schedules
