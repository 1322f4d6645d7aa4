#!/usr/bin/env bash
# Screenshots of every testbed scene without a display: the viewer under Xvfb on Mesa's software
# drivers (lavapipe/llvmpipe), 90 frames per scene, then <out>/<scene>.png (default out/testbed/).
#
# Needs: apt-get install xvfb xauth mesa-vulkan-drivers libgl1-mesa-dri libegl1
# Usage:  crates/rapier3d-deform-testbed/scripts/screenshots.sh [out-dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
out="$(mkdir -p "${1:-$root/out/testbed}" && cd "${1:-$root/out/testbed}" && pwd)"
cd "$root"
cargo build --release -p rapier3d-deform-testbed
# The viewer autosaves (and restores) its panel state and camera in the working directory: run it
# in a fresh one so every scene opens on its own camera.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
xvfb-run -a -s "-screen 0 1280x720x24" "$root/target/release/rapier3d-deform-testbed" --screenshots "$out"
ls -l "$out"
