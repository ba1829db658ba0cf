#!/usr/bin/env bash
# Renders Kiln's app icon from its SVG sources into every file the window and the installers use, and writes
# them into the repo (the renditions are committed). `icons/render.sh --check` renders into a temp dir and
# fails if a committed file differs, so a changed SVG cannot ship stale PNGs.
#
# Needs (Debian 12): librsvg2-bin (rsvg-convert), icoutils (icotool), icnsutils (png2icns):
#   apt-get install --no-install-recommends librsvg2-bin icoutils icnsutils
#
# Sources, both in src/main/resources/dev/kiln/icons/:
#   kiln.svg        the icon, drawn on a 256 grid; used for 32 px and up
#   kiln-small.svg  the same motif drawn on the 16 px grid (thicker strokes, no margin); used for 16 and 24 px
# Output:
#   dist/kiln-{16,24,32,48,64,128,256,512}.png   hicolor theme sizes, desktop entry, jpackage --icon (Linux)
#   dist/kiln.ico                                  Windows (msi, exe): 16…256
#   dist/kiln.icns                                 macOS (dmg, app bundle): 16…512
#   src/main/resources/dev/kiln/icons/kiln-{16,32,48,64,128,256}.png   the window/taskbar icons (Icons.SIZES)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
res="$here/src/main/resources/dev/kiln/icons"

for tool in rsvg-convert:librsvg2-bin icotool:icoutils png2icns:icnsutils; do
  command -v "${tool%%:*}" >/dev/null || {
    echo "render.sh: ${tool%%:*} is missing; install it: apt-get install --no-install-recommends ${tool##*:}" >&2; exit 1; }
done

check=false
[ "${1:-}" = "--check" ] && check=true
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/dist" "$out/res"

for size in 16 24 32 48 64 128 256 512; do
  src="$res/kiln.svg"
  [ "$size" -le 24 ] && src="$res/kiln-small.svg"
  rsvg-convert --width "$size" --height "$size" --keep-aspect-ratio "$src" --output "$out/dist/kiln-$size.png"
done
for size in 16 32 48 64 128 256; do
  cp "$out/dist/kiln-$size.png" "$out/res/kiln-$size.png"
done
# .ico: 256 px is stored as PNG inside the icon (Vista and later), the small sizes as bitmaps.
icotool --create --output "$out/dist/kiln.ico" \
  "$out"/dist/kiln-{16,24,32,48,64,128}.png --raw="$out/dist/kiln-256.png"
# png2icns picks the icns type from each PNG's size (16, 32, 48, 128, 256, 512 are the ones it knows).
png2icns "$out/dist/kiln.icns" "$out"/dist/kiln-{16,32,48,128,256,512}.png >/dev/null

if $check; then
  status=0
  for f in "$out"/dist/*; do
    cmp -s "$f" "$here/dist/$(basename "$f")" || { echo "render.sh: icons/dist/$(basename "$f") is stale: run icons/render.sh" >&2; status=1; }
  done
  for f in "$out"/res/*; do
    cmp -s "$f" "$res/$(basename "$f")" || { echo "render.sh: $(basename "$f") in resources is stale: run icons/render.sh" >&2; status=1; }
  done
  [ $status -eq 0 ] && echo "render.sh: every committed rendition matches its SVG"
  exit $status
fi

mkdir -p "$here/dist"
cp "$out"/dist/* "$here/dist/"
cp "$out"/res/* "$res/"
echo "render.sh: wrote $(ls "$out/dist" | wc -l) files to icons/dist and $(ls "$out/res" | wc -l) to resources"
