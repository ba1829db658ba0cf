#!/usr/bin/env bash
# Renders a page of the console to PNG, headless (no display needed):
#   docs/screenshot.sh [WORKSPACE] [PAGE] [OUT.png] [SECONDS] [THEME]
# A thin wrapper over `kiln screenshot` at README's size (1280x800); SECONDS is how long the page runs first.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
ws="${1:-${XDG_DATA_HOME:-$HOME/.local/share}/kiln/demo}"
page="${2:-contracts}"
out="$(readlink -f "${3:-$here/docs/console.png}")"
wait="${4:-4}"
theme="${5:-dark}"
exec "$here/kiln" screenshot --page "$page" --theme "$theme" --size 1280x800 --settle "$wait" --out "$out" "$ws"
