#!/usr/bin/env bash
# Configures and builds one CMake preset (release by default): scripts/build.sh [release|asan|fuzz|debug]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
jobs=$(nproc 2>/dev/null || echo 2)
. scripts/lib/configure-preset.sh
klms_configure_preset "$preset"
cmake --build --preset "$preset" -j "$jobs"
