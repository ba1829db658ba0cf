#!/usr/bin/env bash
# Takes a screenshot of the console in a real window under Xvfb:
#   docs/screenshot.sh [WORKSPACE] [PAGE] [OUT.png] [SECONDS]
# The console renders its own scene to PNG after SECONDS and exits (-Dkiln.screenshot).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
ws="${1:-${XDG_DATA_HOME:-$HOME/.local/share}/kiln/demo}"
page="${2:-contracts}"
out="$(readlink -f "${3:-$here/docs/console.png}")"
wait="${4:-4}"
KILN_JAVA_OPTS="-Dkiln.screenshot=$out -Dkiln.screenshot.delay=$wait" \
  xvfb-run -a -s "-screen 0 1280x800x24" "$here/kiln" "$ws" --page "$page"
