#!/usr/bin/env bash
# Builds Kiln's installers from the built modules: a jlink runtime (trimmed, CDS), an AppCDS (JDK 17) or AOT
# cache (JDK 25) archive from a training run of the console, then jpackage app-images, a .deb and an .rpm.
# `mvn -Ppackage package` runs it after app/ and packaging/watcher/ are built; packaging/README.md explains.
#
#   packaging/build.sh [--pom-version=0.1.0] [--app-version=X.Y.Z] [--types=app-image,deb,rpm] [--jdk=DIR] [--out=DIR] [--compression=best|fast]
#   packaging/build.sh --repackage --app-version=X.Y.Z [--types=deb]
#
# --repackage builds only the installers again, from the app-image a full build left in packaging/target/image,
# under another version (the package test's upgrade .deb): the image's two version records (the launcher's
# jpackage.app-version, jpackage's .jpackage.xml) are rewritten, nothing else differs from a rebuild (the jars,
# hence the runtime and the trained archive, are the same), and it saves the jlink, the app-images and the
# training run (about 100 s of the package test here). With --types=deb and the last build's .deb at hand, that
# .deb is unpacked and built again with the new version (dpkg-deb), not made by jpackage a second time.
#
# Output in packaging/target/:
#   image/kiln/        app-image with CDS + AppCDS: what the installers contain
#   image-plain/kiln/  the same jlink runtime without any archive (only for `kiln bench startup`)
#   kiln_VERSION_amd64.deb, kiln-VERSION-1.x86_64.rpm, build.properties (what was built, sizes, seconds)
#
# Needs: a JDK with jlink + jpackage (the newest installed >= 25, else 17; or --jdk=DIR), fakeroot + dpkg-deb for the .deb, rpm (rpmbuild)
# for the .rpm, xvfb + xauth for the training run (it opens the console once, off-screen).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$here/target"

pom_version="" app_version="" types="app-image,deb,rpm" jdk="" repackage=0
# best (xz, what a release ships) or fast (gzip -1: a package test's build); KILN_PACKAGE_COMPRESSION sets the default
# so that `mvn -Ppackage package`, which runs this script, can be told too.
compression="${KILN_PACKAGE_COMPRESSION:-best}"
for arg in "$@"; do
  case "$arg" in
    --repackage) repackage=1 ;;
    --pom-version=*) pom_version="${arg#*=}" ;;
    --app-version=*) app_version="${arg#*=}" ;;
    --types=*) types="${arg#*=}" ;;
    --jdk=*) jdk="${arg#*=}" ;;
    --compression=*) compression="${arg#*=}" ;;
    --out=*) out="$(mkdir -p "${arg#*=}" && cd "${arg#*=}" && pwd)" ;;
    *) echo "build.sh: unknown argument '$arg' (see the header of $0)" >&2; exit 2 ;;
  esac
done
die() { echo "build.sh: $*" >&2; exit 1; }
case "$compression" in best) deb_compression="" ;; fast) deb_compression="gzip:1" ;;
  *) die "unknown --compression=$compression (best or fast)" ;; esac
started=$SECONDS
step() { echo "build.sh: [$((SECONDS - started)) s] $*"; }

# --- versions ------------------------------------------------------------------------------------------
# One scheme valid for deb, rpm, msi (three numbers, <= 255.255.65535) and macOS (first number not 0):
# package version = (major + 1).minor.patch of the POM version, -SNAPSHOT dropped: 0.1.0 -> 1.1.0.
# It only ever grows when the POM version grows, so upgrades order correctly everywhere.
[ -n "$pom_version" ] || pom_version="$(sed -n 's:^  <version>\(.*\)</version>:\1:p' "$root/pom.xml" | head -1)"
if [ -z "$app_version" ]; then
  base="${pom_version%-SNAPSHOT}"
  IFS=. read -r major minor patch <<<"$base"
  [[ "$major" =~ ^[0-9]+$ && "$minor" =~ ^[0-9]+$ && "${patch:-0}" =~ ^[0-9]+$ ]] || die "POM version '$pom_version' is not MAJOR.MINOR.PATCH"
  app_version="$((major + 1)).$minor.${patch:-0}"
fi
IFS=. read -r v1 v2 v3 extra <<<"$app_version"
[[ -z "$extra" && "$v1" =~ ^[0-9]+$ && "$v2" =~ ^[0-9]+$ && "$v3" =~ ^[0-9]+$ ]] \
  || die "--app-version '$app_version' must be three numbers X.Y.Z"
(( v1 >= 1 && v1 <= 255 && v2 <= 255 && v3 <= 65535 )) \
  || die "--app-version '$app_version' must be 1..255.0..255.0..65535 (msi limits; macOS refuses a leading 0)"

# --- JDK -----------------------------------------------------------------------------------------------
feature_of() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }
if [ -z "$jdk" ]; then
  # The image starts fastest on JDK 25+ (its AOT cache: first frame ×0.74 of JDK 17's AppCDS image, `kiln bench
  # startup`), so the newest installed JDK >= 25 with jlink and jpackage builds it; else the JDK that builds Kiln.
  jdk="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
  best=0
  for candidate in /usr/lib/jvm/*/ "${JAVA_HOME:-}"; do
    candidate="${candidate%/}"
    [ -n "$candidate" ] && [ -x "$candidate/bin/jlink" ] && [ -x "$candidate/bin/jpackage" ] || continue
    f="$(feature_of "$candidate")"
    [[ "$f" =~ ^[0-9]+$ ]] && (( f >= 25 && f > best )) && { best=$f; jdk="$candidate"; }
  done
fi
[ -x "$jdk/bin/jlink" ] && [ -x "$jdk/bin/jpackage" ] || die "$jdk has no jlink/jpackage: give a full JDK with --jdk=DIR (apt-get install openjdk-17-jdk)"
feature="$(feature_of "$jdk")"
# JDK 17 builds jlink from jmods/. Temurin 25 ships none, but is a "linkable run-time" (JEP 493): jlink links
# from the JDK's own lib/modules, which is what makes the AOT cache possible with it here.
[ -d "$jdk/jmods" ] || [ "$feature" -ge 24 ] || die "$jdk has no jmods/ and is older than 24: it cannot jlink"

if [ "$repackage" = 1 ]; then
  appdir="$out/image/kiln/lib/app"
  [ -f "$appdir/kiln.cfg" ] && [ -f "$out/build.properties" ] \
    || die "--repackage needs a full build's app-image in $out/image (run build.sh without --repackage first)"
  archive="$(sed -n 's/^archive=//p' "$out/build.properties")"
  cli_archive="$(sed -n 's/^cli_archive=//p' "$out/build.properties")"
  [ -n "$archive" ] && [ -n "$cli_archive" ] \
    || die "$out/build.properties names no archive/cli_archive: run build.sh without --repackage first"
  step "repackage: the app-image of the last build as version $app_version"
  sed -i "s/^java-options=-Djpackage.app-version=.*/java-options=-Djpackage.app-version=$app_version/" "$appdir/kiln.cfg"
  sed -i "s|<app-version>[^<]*</app-version>|<app-version>$app_version</app-version>|" "$appdir/.jpackage.xml"
  grep -qx "java-options=-Djpackage.app-version=$app_version" "$appdir/kiln.cfg" \
    || die "$appdir/kiln.cfg has no jpackage.app-version line to rewrite: this JDK's jpackage writes another format"
  # Only a .deb, and the last build left its .deb: that package is rewritten instead of running jpackage again (which
  # copied the 260 MB image, asked dpkg for each library's package and compressed it all: ~50 s of the package test).
  # What differs from a jpackage rebuild is what --repackage changes in the image: the control file's Version and the
  # launcher's version record, copied from the image so they cannot disagree.
  prev_deb="$(sed -n 's/^deb=//p' "$out/build.properties")"
  if [ "$types" = deb ] && [ -n "$prev_deb" ] && [ -f "$prev_deb" ]; then
    step "repackage: $(basename "$prev_deb") rewritten as $app_version (dpkg-deb -R / -b)"
    tree="$out/repack"
    rm -rf "$tree"
    dpkg-deb -R "$prev_deb" "$tree" || die "cannot unpack $prev_deb"
    old="$(sed -n 's/^Version: *//p' "$tree/DEBIAN/control")"
    [ -n "$old" ] && [[ "$old" == *-* ]] || die "$prev_deb's control file has no Version VERSION-RELEASE"
    release="${old##*-}"
    sed -i "s/^Version: .*/Version: $app_version-$release/" "$tree/DEBIAN/control"
    # (jpackage leaves its .jpackage.xml out of the installed tree: only the launcher's kiln.cfg is in the package)
    [ -f "$tree/opt/kiln/lib/app/kiln.cfg" ] || die "$prev_deb has no /opt/kiln/lib/app/kiln.cfg to rewrite"
    cp "$appdir/kiln.cfg" "$tree/opt/kiln/lib/app/kiln.cfg"
    [ ! -f "$tree/opt/kiln/lib/app/.jpackage.xml" ] || cp "$appdir/.jpackage.xml" "$tree/opt/kiln/lib/app/.jpackage.xml"
    rm -f "$out"/*.deb "$out"/*.rpm
    file="$out/kiln_${app_version}-${release}_$(sed -n 's/^Architecture: *//p' "$tree/DEBIAN/control").deb"
    zopts=(); [ -n "$deb_compression" ] && zopts=("-Z${deb_compression%%:*}" "-z${deb_compression##*:}")
    fakeroot dpkg-deb "${zopts[@]}" -b "$tree" "$file" >/dev/null || die "dpkg-deb could not build $file"
    rm -rf "$tree"
    sed -i "s|^deb=.*|deb=$file|; s|^deb.bytes=.*|deb.bytes=$(stat -c %s "$file")|" "$out/build.properties"
    step "done: $file"
    exit 0
  fi
  rm -f "$out"/*.deb "$out"/*.rpm
else
# --- inputs --------------------------------------------------------------------------------------------
app_jar="$root/app/target/kiln-app.jar"
lib="$root/app/target/lib"
watcher="$(ls "$here"/watcher/target/modules/directory-watcher-*.jar 2>/dev/null | head -1 || true)"
[ -f "$app_jar" ] && [ -d "$lib" ] || die "app/target has no kiln-app.jar/lib: run 'mvn -B -Ppackage -DskipTests package' from $root"
[ -n "$watcher" ] || die "packaging/watcher/target/modules has no directory-watcher jar: run 'mvn -B -Ppackage -DskipTests package'"
# The OS decides the JavaFX classifier, the native library names and where a runtime keeps them. Linux is
# what this machine builds and tests; the others are for runners on those systems (packaging/README.md).
case "$(uname -s)" in
  Linux) os=linux; natives='*.so'; native_dir=lib; installer_types="deb rpm" ;;
  Darwin) os=mac; natives='*.dylib'; native_dir=lib; installer_types="dmg" ;;
  MINGW*|MSYS*|CYGWIN*) os=win; natives='*.dll'; native_dir=bin; installer_types="msi" ;;
  *) die "unsupported OS $(uname -s)" ;;
esac
fx_graphics="$(ls "$lib"/javafx-graphics-*-"$os"*.jar | head -1)"

rm -rf "$out/mods" "$out/monocle" "$out/runtime" "$out/image" "$out/image-plain" "$out/train" "$out"/*.deb "$out"/*.rpm "$out"/*.msi "$out"/*.dmg
mkdir -p "$out/mods" "$out/train"
cp "$app_jar" "$out/mods/"
for jar in "$lib"/*.jar; do
  case "$(basename "$jar")" in
    directory-watcher-*|prometheus-metrics-*) ;;              # replaced by the moditect'ed copies
    javafx-*-[0-9]*.[0-9]*.[0-9]*.jar) [[ "$jar" == *-"$os"*.jar ]] && cp "$jar" "$out/mods/" ;; # the classifier-less ones are empty
    *) cp "$jar" "$out/mods/" ;;
  esac
done
cp "$here"/watcher/target/modules/*.jar "$out/mods/"
# The object store's client, the AWS SDK for Java v2 (s3, url-connection-client, sts and what they need: about 30 jars,
# no Netty, no Apache client), and its reactive-streams are automatic modules, which jlink refuses. Each gets a
# module descriptor of its own Automatic-Module-Name (so the jar is a drop-in, as the watcher's is): jdeps writes the
# requires and exports from the byte code, and the module is made open, as an automatic one is, since the SDK reads
# resources of its own packages (endpoints.json, sdk-default-configuration.json) and instantiates classes by name
# (sts's web identity factory). jdeps cannot see ServiceLoader calls: their `uses` are the table below, and a jar
# that calls ServiceLoader without an entry there stops the build instead of failing at run time.
declare -A sdk_uses=(
  [software.amazon.awssdk.core]="software.amazon.awssdk.http.SdkHttpService software.amazon.awssdk.http.async.SdkAsyncHttpService software.amazon.awssdk.core.warmup.SdkWarmUpProvider"
)
auto="$out/auto"
rm -rf "$auto" && mkdir -p "$auto/jars" "$auto/src" "$auto/classes"
for jar in "$out"/mods/*.jar; do
  # grep -c, not -q: -q stops reading, and unzip's SIGPIPE would then fail the pipe (pipefail).
  [ "$(unzip -Z1 "$jar" | grep -Ec '^(META-INF/versions/[0-9]+/)?module-info\.class$' || true)" = 0 ] || continue
  name="$(unzip -p "$jar" META-INF/MANIFEST.MF | tr -d '\r' | sed -n 's/^Automatic-Module-Name: *//p')"
  [ -n "$name" ] || die "$(basename "$jar") is an automatic module without an Automatic-Module-Name: give it a descriptor in packaging/watcher (as directory-watcher's)"
  mv "$jar" "$auto/jars/"
  echo "$name $(basename "$jar")" >>"$auto/names"
done
if [ -s "$auto/names" ]; then
  step "module descriptors for $(wc -l <"$auto/names") automatic modules (the AWS SDK)"
  # Their dependencies, without Kiln's own modules: those require the SDK, which is not on this path yet (jdeps and
  # javac would refuse the path).
  deps="$(ls "$out"/mods/*.jar | grep -v '/kiln-[^/]*\.jar$' | paste -sd:)"
  "$jdk/bin/jdeps" --generate-module-info "$auto/gen" --ignore-missing-deps --multi-release "$feature" \
    --module-path "$deps" "$auto"/jars/*.jar >"$auto/jdeps.log" 2>&1 || { cat "$auto/jdeps.log" >&2; die "jdeps could not describe the automatic modules"; }
  patches=()
  while read -r name file; do
    jar="$auto/jars/$file"
    gen="$(find "$auto/gen/$name" -name module-info.java | head -1)"
    [ -n "$gen" ] || die "jdeps wrote no module-info.java for $name ($file)"
    mkdir -p "$auto/src/$name"
    # exports only of packages with a class: javac refuses one that holds nothing but package-info.class.
    packages="$(unzip -Z1 "$jar" | grep '\.class$' | grep -Ev '(^|/)(package|module)-info\.class$' | grep / | sed 's|/[^/]*$||; s|/|.|g' | sort -u)"
    awk -v pk="$packages" -v uses="${sdk_uses[$name]:-}" '
      BEGIN { n = split(pk, a, "\n"); for (i = 1; i <= n; i++) ok[a[i]] = 1; m = split(uses, u, " ") }
      /^module / { sub(/^module /, "open module ") }
      /^ *exports / { p = $2; sub(/;$/, "", p); if (!(p in ok)) next }
      /^}/ { for (i = 1; i <= m; i++) print "    uses " u[i] ";" }
      { print }' "$gen" >"$auto/src/$name/module-info.java"
    if [ -z "${sdk_uses[$name]:-}" ] && [ "$(unzip -p "$jar" '*.class' | grep -ac 'java/util/ServiceLoader' || true)" != 0 ]; then
      die "$file ($name) calls java.util.ServiceLoader: add the services it loads to sdk_uses in $0"
    fi
    patches+=(--patch-module "$name=$jar")
  done <"$auto/names"
  "$jdk/bin/javac" -nowarn -d "$auto/classes" --module-source-path "$auto/src" --module-path "$deps" "${patches[@]}" \
    $(find "$auto/src" -name module-info.java) >"$auto/javac.log" 2>&1 || { cat "$auto/javac.log" >&2; die "the generated module descriptors do not compile"; }
  updates=()
  while read -r name file; do
    version="$(sed -n 's/.*-\([0-9][0-9.]*\)\.jar$/\1/p' <<<"$file")"
    updates+=("$auto/jars/$file" "${version:--}" "$auto/classes/$name")
  done <"$auto/names"
  # One JVM for all the jars' `jar --update`s (one per jar was ~0.4 s each).
  "$jdk/bin/java" "$here/AddModuleDescriptors.java" "${updates[@]}" || die "cannot add the module descriptors to the SDK's jars"
  mv "$auto"/jars/*.jar "$out/mods/"
fi
rm -rf "$auto"
# picocli's class files are Java 5's, and the class archive leaves every class older than Java 6 out ("Old class has
# been linked"): each command line then parsed and verified its 160 classes again. UpgradeClassFiles.java rewrites
# them as Java 8 class files with stack maps (java.lang.classfile, JDK 24+; on 17 they stay as they are).
if [ "$feature" -ge 24 ]; then
  for jar in "$out"/mods/picocli-*.jar; do
    "$jdk/bin/java" "$here/UpgradeClassFiles.java" "$jar" "$jar.new" && mv "$jar.new" "$jar" || die "cannot rewrite $jar's class files"
  done
fi
# Monocle (headless glass, for `kiln screenshot`) is linked into javafx.graphics itself: its classes are in that
# module's own package com.sun.glass.ui.monocle, so it cannot be a module of its own, and ./kiln's run-time
# --patch-module would, in the image, turn the JVM's class archive off (CDS refuses a patched module graph) and
# need a second JVM for each picture. Linked in, it costs 0.26 MB of a 150 MB runtime, the archive stays valid
# (the training run never loads it), and glass picks it only when the screenshot command sets glass.platform.
monocle="$root/app/target/monocle/openjfx-monocle.jar"
[ -f "$monocle" ] || die "app/target/monocle has no openjfx-monocle.jar: run 'mvn -B -Ppackage -DskipTests package'"
mkdir -p "$out/monocle"
(cd "$out/monocle" && unzip -q -o "$monocle" 'com/*')
fx_graphics_mod="$out/mods/$(basename "$fx_graphics")"
"$jdk/bin/jar" --update --file "$fx_graphics_mod" -C "$out/monocle" com
"$jdk/bin/jar" --describe-module --file "$fx_graphics_mod" | grep -qx 'contains com.sun.glass.ui.monocle' \
  || die "javafx.graphics does not contain Monocle's package after merging $monocle"
rm -rf "$out/monocle"
n_auto="$(ls "$lib"/prometheus-metrics-*.jar | wc -l)"
[ "$(ls "$out"/mods/prometheus-metrics-*.jar | wc -l)" -eq "$n_auto" ] \
  || die "packaging/watcher/target/modules lacks a moditect'ed copy of some prometheus-metrics jar in $lib"

# --- jlink ---------------------------------------------------------------------------------------------
# The ControlsFX exports are baked into the image (--add-options; its leading space is required), so every
# launch of the runtime, training run included, has them. JavaFX's .so are left out of the module image and
# put in runtime/lib, where System.loadLibrary finds them: otherwise JavaFX extracts them to ~/.openjfx/cache
# at every first start.
fx_opts=" --add-exports=javafx.base/com.sun.javafx.event=org.controlsfx.controls"
fx_opts+=" --add-exports=javafx.controls/com.sun.javafx.scene.control.behavior=org.controlsfx.controls"
fx_opts+=" --add-exports=javafx.controls/com.sun.javafx.scene.control=org.controlsfx.controls"
fx_opts+=" --add-opens=javafx.controls/javafx.scene.control.skin=org.controlsfx.controls"
fx_opts+=" --add-opens=javafx.graphics/javafx.scene=org.controlsfx.controls"
# JDK 24+ warns on every native-library load from a module without this (JEP 472); 17 accepts it silently.
[ "$feature" -ge 22 ] && fx_opts+=" --enable-native-access=javafx.graphics"
# JDK 24+ warns on stderr, once per run, that JavaFX 21's Marlin renderer allocates with sun.misc.Unsafe (JEP 498):
# allowed, as JDK 17 allows it, so that no command prints JVM warnings.
[ "$feature" -ge 24 ] && fx_opts+=" --sun-misc-unsafe-memory-access=allow"
step "jlink (JDK $feature, $jdk)"
modpath="$out/mods"
[ -d "$jdk/jmods" ] && modpath="$out/mods:$jdk/jmods"
"$jdk/bin/jlink" --module-path "$modpath" --add-modules dev.kiln.app \
  --strip-debug --no-header-files --no-man-pages \
  --exclude-resources="glob:/javafx.graphics/$natives" \
  --add-options="$fx_opts" \
  --generate-cds-archive \
  --output "$out/runtime"
unzip -q -o -j "$fx_graphics" "$natives" -d "$out/runtime/$native_dir"
# The no-compressed-oops CDS archive only serves heaps over 32 GB; 11 MB the console never uses.
rm -f "$out/runtime/lib/server/classes_nocoops.jsa"

# --- app-images ----------------------------------------------------------------------------------------
common=(--name kiln --app-version "$app_version" --vendor "Kiln"
  --description "Operations console for fast-starting, observable sandboxed tool runtimes"
  --copyright "Copyright the Kiln authors. Licensed under the Apache License 2.0."
  --module dev.kiln.app/dev.kiln.app.Main
  # A bounded heap, not the JVM's quarter of the RAM: what the console and kiln serve get from ./kiln too. On Linux
  # the PATH command is lib/kiln-cli.sh, which chooses per command (256 MiB for the small ones).
  --java-options -Xmx1g)
[ "$os" = linux ] && common+=(--icon "$root/icons/dist/kiln-256.png")
[ "$os" = win ] && common+=(--icon "$root/icons/dist/kiln.ico" --add-launcher "kiln-cli=$here/windows/kiln-cli.properties")
[ "$os" = mac ] && common+=(--icon "$root/icons/dist/kiln.icns")

# The plain image: the same runtime without any archive (the JVM then runs with sharing off).
step "jpackage app-image (plain, for the startup benchmark)"
cp -a "$out/runtime" "$out/runtime-plain"
rm -f "$out"/runtime-plain/lib/server/*.jsa
"$jdk/bin/jpackage" --type app-image --dest "$out/image-plain" --runtime-image "$out/runtime-plain" "${common[@]}"
rm -rf "$out/runtime-plain"

# The shipped image. The archive is read-only at run time and lives in the install dir: it is made here,
# once, for exactly this runtime; the app never writes an archive (JDK 17 has no auto-archive, and no
# ArchiveClassesAtExit/AOTCacheOutput flag is in the launcher). $APPDIR is the launcher's lib/app.
if [ "$feature" -ge 25 ]; then
  archive_option="-XX:AOTCache="; archive_ext=aot; train_flag="-XX:AOTCacheOutput="
  quiet="-Xlog:aot=off,cds=off"
else
  archive_option="-XX:SharedArchiveFile="; archive_ext=jsa; train_flag="-XX:ArchiveClassesAtExit="
  quiet="-Xlog:cds=off,cds+dynamic=off"
fi
archive="kiln.$archive_ext"; cli_archive="kiln-cli.$archive_ext"; use_archive="$archive_option\$APPDIR/$archive"
# An archive that does not match (it cannot, unless someone edits the install) only costs speed: the JVM
# then runs without it, and a CLI should not print JVM warnings about that.
step "jpackage app-image (shipped, archive $archive)"
"$jdk/bin/jpackage" --type app-image --dest "$out/image" --runtime-image "$out/runtime" "${common[@]}" \
  --java-options "$use_archive" --java-options "$quiet"
appdir="$out/image/kiln/lib/app"

# Training runs. First the console on a fresh demo workspace under Xvfb, exiting as soon as its first frame is
# shown, so the archive holds what a start needs and nothing the user's session loads later. Then the command
# line's own archive (kiln-cli.*, which lib/kiln-cli.sh gives the headless sub-commands): --help, --version,
# project, and status against a kiln serve of a second workspace. Two archives, because a JVM loads every class of
# its archive at start: with one, `kiln --version` loaded JavaFX's 2,800 classes too.
offscreen=()
if [ "$os" = linux ]; then
  command -v xvfb-run >/dev/null || die "xvfb-run is missing (the training run opens the console off-screen): apt-get install --no-install-recommends xvfb xauth"
  offscreen=(xvfb-run -a -s "-screen 0 1280x800x24")
fi
java="$out/image/kiln/lib/runtime/bin/java"
train="$out/train"
train_env=(env HOME="$train/home" XDG_DATA_HOME="$train/data" XDG_STATE_HOME="$train/state" XDG_CACHE_HOME="$train/cache")
mkdir -p "$train/home"
"${train_env[@]}" "$java" -m dev.kiln.app/dev.kiln.app.Main demo "$train/ws" >/dev/null
# The two training runs are independent (each its own workspace, each its own cache) and mostly one thread each, so
# they run side by side: 5 s each, one after the other, on this 2-core machine.
step "training runs for $archive and $cli_archive, side by side"
"${train_env[@]}" "$java" -m dev.kiln.app/dev.kiln.app.Main demo "$train/ws-cli" >/dev/null
# 600 s: with JDK 25's cache assembly after it, a loaded 2-core machine took over two minutes.
"${train_env[@]}" timeout 600 "${offscreen[@]}" "$java" "$train_flag$appdir/$archive" \
  -Dkiln.firstFrameFile="$train/first-frame" -Dkiln.exitAfterFirstFrame=true \
  -m dev.kiln.app/dev.kiln.app.Main "$train/ws" >"$train/train.log" 2>&1 &
console_pid=$!
"${train_env[@]}" "$java" -m dev.kiln.app/dev.kiln.app.Main demo "$train/ws-serve" >/dev/null
"${train_env[@]}" "$java" -m dev.kiln.app/dev.kiln.app.Main serve "$train/ws-serve" --port 0 >"$train/serve.log" 2>&1 &
serve_pid=$!
url=""
for _ in $(seq 600); do
  url="$(sed -n 's|^Serving .* at \(http://[^ ]*\)$|\1|p' "$train/serve.log" | head -1)"
  [ -n "$url" ] || ! kill -0 "$serve_pid" 2>/dev/null && break
  sleep 0.1
done
[ -n "$url" ] || { kill "$serve_pid" "$console_pid" 2>/dev/null; cat "$train/serve.log" >&2; die "the training daemon did not start"; }
"${train_env[@]}" timeout 600 "$java" "$train_flag$appdir/$cli_archive" -Dkiln.trainCli="$train/ws-cli" -Dkiln.trainStatus="$url" \
  -m dev.kiln.app/dev.kiln.app.Main "$train/ws-cli" >"$train/train-cli.log" 2>&1 \
  || { kill "$serve_pid" "$console_pid"; cat "$train/train-cli.log" >&2; die "the command line's training run failed"; }
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
wait "$console_pid" || { cat "$train/train.log" >&2; die "the training run failed"; }
[ -s "$appdir/$cli_archive" ] || { cat "$train/train-cli.log" >&2; die "the command line's training run wrote no $cli_archive"; }
[ -s "$train/first-frame" ] || { cat "$train/train.log" >&2; die "the training run showed no frame"; }
[ -s "$appdir/$archive" ] || { cat "$train/train.log" >&2; die "the training run wrote no $archive"; }
[ -d "$train/home/.openjfx" ] && die "JavaFX extracted its natives to ~/.openjfx: the .so are not in runtime/lib"

# Files jpackage 17 has no option for (--app-content is 18+): the systemd unit, its config dir's README.
mkdir -p "$out/image/kiln/lib/systemd"
cp "$here/systemd/kiln-serve@.service" "$here/systemd/serve.d.README" "$out/image/kiln/lib/systemd/"
"$out/image/kiln/bin/kiln" --version >/dev/null || die "the built image does not run: $out/image/kiln/bin/kiln --version"
# The PATH command of the Linux packages (/usr/bin/kiln links to it): a bounded heap per command, then the image's
# java with kiln.cfg's archive options ($APPDIR there is the script's $app), so the two launchers cannot drift.
if [ "$os" = linux ]; then
  sed -e "s|KILN_ARCHIVE_OPTIONS|\"$archive_option\$app/\$archive\" $quiet|" -e "s|KILN_ARCHIVE_EXT|$archive_ext|g" \
    "$here/linux/kiln-cli.sh" >"$out/image/kiln/lib/kiln-cli.sh"
  chmod 755 "$out/image/kiln/lib/kiln-cli.sh"
  grep -q 'KILN_ARCHIVE_[A-Z]*' "$out/image/kiln/lib/kiln-cli.sh" && die "lib/kiln-cli.sh kept a KILN_ARCHIVE_ placeholder"
  "$out/image/kiln/lib/kiln-cli.sh" --version >/dev/null || die "the built image's PATH launcher does not run: $out/image/kiln/lib/kiln-cli.sh --version"
fi

# --- installers ----------------------------------------------------------------------------------------
fi # the full build's inputs, runtime, app-images and training run

# --resource-dir holds our overrides of jpackage's templates: kiln.desktop, the deb maintainer scripts and
# the rpm spec (they add /usr/bin/kiln and the systemd unit; jpackage still fills its placeholders).
linux=(--linux-package-name kiln --linux-app-release 1 --linux-app-category devel
  --linux-shortcut --linux-menu-group "Development;Monitor;System;" --linux-deb-maintainer packaging@kiln.dev
  --linux-rpm-license-type "Apache-2.0" --license-file "$root/LICENSE" --resource-dir "$out/linux")
# jpackage fills placeholders in those templates, and their names changed between JDKs: the shell functions that
# DESKTOP_COMMANDS_UNINSTALL calls are UTILITY_SCRIPTS in 17, COMMON_SCRIPTS + DESKTOP_SCRIPTS in 25. A name the
# JDK does not know stays in the script as a command, and dpkg/rpm then fail. So KILN_DESKTOP_SCRIPTS becomes
# whatever this JDK's own rpm template puts before DESKTOP_COMMANDS_UNINSTALL.
rm -rf "$out/linux" "$out/jpackage-templates"
cp -r "$here/linux" "$out/linux"
"$jdk/bin/jimage" extract --dir "$out/jpackage-templates" --include 'regex:.*/internal/resources/template\.spec' "$jdk/lib/modules" \
  || die "cannot read jpackage's rpm template from $jdk/lib/modules"
template="$(find "$out/jpackage-templates" -name template.spec | head -1)"
if grep -q '^DESKTOP_SCRIPTS$' "$template"; then desktop_scripts='package_type=rpm\nCOMMON_SCRIPTS\nDESKTOP_SCRIPTS'
elif grep -q '^UTILITY_SCRIPTS$' "$template"; then desktop_scripts=UTILITY_SCRIPTS
else die "jpackage's rpm template in $jdk names neither UTILITY_SCRIPTS nor DESKTOP_SCRIPTS: packaging/linux/kiln.spec needs a look"
fi
awk -v lines="$desktop_scripts" '$0 == "KILN_DESKTOP_SCRIPTS" { print lines; n++; next } { print } END { exit n != 1 }' \
  "$here/linux/kiln.spec" >"$out/linux/kiln.spec" || die "packaging/linux/kiln.spec needs exactly one KILN_DESKTOP_SCRIPTS line"
[ "$compression" = fast ] && sed -i '1i %define _binary_payload w1.gzdio' "$out/linux/kiln.spec"
rm -rf "$out/jpackage-templates"
# Files the .deb ships outside /opt/kiln, as package files, so that dpkg owns them (installs, upgrades and removes
# them; `dpkg -S /usr/bin/kiln` names kiln), as Debian does, instead of maintainer scripts making and deleting them.
# jpackage has no option for them (--app-content only adds to the app dir), and repacking its .deb would run
# dpkg-deb's xz over the 200 MB image a second time (about 4 minutes here): linux/deb-shim/dpkg-deb, first on
# jpackage's PATH, adds them to jpackage's own staging tree just before the real dpkg-deb builds it.
extra="$out/deb-extra"
rm -rf "$extra"
mkdir -p "$extra/usr/bin" "$extra/lib/systemd/system" "$extra/etc/kiln/serve.d"
ln -s /opt/kiln/lib/kiln-cli.sh "$extra/usr/bin/kiln"
install -m 644 "$here/systemd/kiln-serve@.service" "$extra/lib/systemd/system/kiln-serve@.service"
built=()
# The .deb and the .rpm are built side by side (8 s and 3 s here, one after the other), then checked.
pending=()
for type in ${types//,/ }; do
  case "$type" in
    app-image) built+=("$out/image/kiln/bin/kiln") ;;
    deb|rpm)
      if [ "$type" = rpm ] && ! command -v rpmbuild >/dev/null; then
        echo "build.sh: no rpmbuild: skipping the .rpm (apt-get install rpm)"; continue
      fi
      [ "$type" = deb ] && { command -v fakeroot >/dev/null || die "no fakeroot: the .deb needs it (apt-get install fakeroot)"; }
      step "jpackage $type"
      shim=(); [ "$type" = deb ] && shim=(env PATH="$here/linux/deb-shim:$PATH" KILN_DEB_EXTRA="$extra" KILN_REAL_DPKG_DEB="$(command -v dpkg-deb)"
        KILN_DEB_COMPRESSION="$deb_compression")
      "${shim[@]}" "$jdk/bin/jpackage" --type "$type" --app-image "$out/image/kiln" --dest "$out" \
        --name kiln --app-version "$app_version" --vendor "Kiln" \
        --description "Operations console for fast-starting, observable sandboxed tool runtimes" \
        --copyright "Copyright the Kiln authors. Licensed under the Apache License 2.0." \
        --icon "$root/icons/dist/kiln-256.png" "${linux[@]}" >"$out/jpackage-$type.log" 2>&1 &
      pending+=("$type:$!") ;;
    msi|dmg)
      # Settings in packaging/windows/msi.options and packaging/macos/dmg.options; paths in them are relative
      # to the checkout. Not built or tested on this Linux machine: for a runner on that OS.
      [[ " $installer_types " == *" $type "* ]] || die "a .$type is built on its own OS (this is $(uname -s))"
      step "jpackage $type"
      opts="$here/windows/msi.options"; [ "$type" = dmg ] && opts="$here/macos/dmg.options"
      (cd "$root" && "$jdk/bin/jpackage" @"$opts" --app-image "$out/image/kiln" --dest "$out" --app-version "$app_version") \
        || die "jpackage --type $type failed"
      file="$(ls "$out"/*."$type" 2>/dev/null | head -1 || true)"
      [ -n "$file" ] && [ -s "$file" ] || die "jpackage made no .$type"
      built+=("$file") ;;
    *) die "unknown type '$type' in --types (app-image, deb, rpm, msi, dmg)" ;;
  esac
done
for job in "${pending[@]}"; do
  type="${job%%:*}"
  wait "${job#*:}" || { cat "$out/jpackage-$type.log" >&2; die "jpackage --type $type failed"; }
  # jpackage exits 0 when it skips a bundler (e.g. no fakeroot): the file is the only proof.
  file="$(ls "$out"/kiln[_-]"$app_version"*."$type" 2>/dev/null | head -1 || true)"
  [ -n "$file" ] && [ -s "$file" ] || { cat "$out/jpackage-$type.log" >&2; die "jpackage made no .$type"; }
  if [ "$type" = deb ]; then
    listing="$(dpkg-deb -c "$file")"
    for f in ./usr/bin/kiln ./lib/systemd/system/kiln-serve@.service ./usr/share/applications/kiln.desktop ./etc/kiln/serve.d/; do
      grep -Eq " $f( ->|\$)" <<<"$listing" || die "$file lacks $f: jpackage did not build it through linux/deb-shim/dpkg-deb"
    done
  fi
  built+=("$file")
done

deb="$(ls "$out"/kiln_*.deb 2>/dev/null | head -1 || true)"
{
  echo "pom.version=$pom_version"
  echo "app.version=$app_version"
  echo "jdk=$jdk"
  echo "jdk.feature=$feature"
  echo "archive=$archive"
  echo "runtime.bytes=$(du -sb "$out/image/kiln/lib/runtime" | cut -f1)"
  echo "image.bytes=$(du -sb "$out/image/kiln" | cut -f1)"
  echo "archive.bytes=$(stat -c %s "$appdir/$archive")"
  echo "cli_archive=$cli_archive"
  echo "cli_archive.bytes=$(stat -c %s "$appdir/$cli_archive")"
  [ -n "$deb" ] && echo "deb=$deb" && echo "deb.bytes=$(stat -c %s "$deb")" \
    && echo "deb.installed.bytes=$(( $(dpkg-deb -f "$deb" Installed-Size) * 1024 ))"
  echo "seconds=$((SECONDS - started))"
} >"$out/build.properties"
rm -rf "$out/mods" "$out/runtime" "$out/linux" "$out/deb-extra"
step "done: ${built[*]}"
