#!/usr/bin/env bash
# The fleet test at its full size (test/recipes/fleet.t): 8 hosts, 12 CLI signatures each and 6
# rounds of long-running signers, every round but the first with an etcd member killed. CI runs the
# small size; this is the one to run after a change to the fleet witness.
#   scripts/fleet-stress.sh [BUILD_DIR] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"
[[ -d "$build" ]] || { echo "fleet-stress: no build at $build (scripts/build.sh release)" >&2; exit 1; }
export KLMS_FLEET_SIZE=full
[[ -n "${2:-}" ]] && export KLMS_FLEET_SEED="$2"
exec ctest --test-dir "$build" -R '^recipe_fleet$' --output-on-failure -V
