#!/usr/bin/env bash
# Takes a screenshot of the console under Xvfb: docs/screenshot.sh [WORKSPACE] [PAGE] [OUT.png] [SECONDS]
# Needs xvfb-run and ImageMagick's import (apt-get install xvfb xauth imagemagick).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
ws="${1:-${XDG_DATA_HOME:-$HOME/.local/share}/kiln/demo}"
page="${2:-contracts}"
out="${3:-$here/docs/console.png}"
wait="${4:-10}"
"$here/kiln" --version >/dev/null  # build first, so the wait below is for the window only
xvfb-run -a -s "-screen 0 1180x740x24" bash -c "'$here/kiln' '$ws' --page '$page' & sleep $wait; import -window root '$out'; kill %1"
echo "$out"
