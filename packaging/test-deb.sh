#!/usr/bin/env bash
# The package test (README's test command runs it after `mvn -B verify`): builds the .deb twice (the POM's
# version, then a higher one from the same app-image), installs the first with dpkg -i, runs the installed kiln with no JDK or Maven
# visible (headless commands, the daemon by its systemd unit's command line, the console under Xvfb until its
# first frame), upgrades to the second, removes it, purges it, and checks that nothing is left but user data.
#
# It installs and removes the system package "kiln", so it needs root, and refuses to run where kiln is
# already installed unless CI=true or KILN_TEST_DEB_REPLACE=1 (then it purges that install first).
# Needs (Debian 12): fakeroot, dpkg-dev is not needed, xvfb, xauth, xdg-utils, curl, util-linux (unshare),
# rpm (the first build also checks the .rpm), the JavaFX libraries (libgtk-3-0 libxtst6 libxxf86vm1 libgl1).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
started=$SECONDS
# Both builds compress with gzip -1 instead of xz (build.sh --compression=fast): dpkg installs either the same way,
# and xz over the 200 MB image was half of this test's time.
export KILN_PACKAGE_COMPRESSION="${KILN_PACKAGE_COMPRESSION:-fast}"
passed=0 failed=0
say() { echo "test-deb: [$((SECONDS - started)) s] $*"; }
ok() { passed=$((passed + 1)); echo "test-deb: ok   $*"; }
fail() { failed=$((failed + 1)); echo "test-deb: FAIL $*" >&2; }
check() { local what="$1"; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }
die() { echo "test-deb: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (it installs the kiln package with dpkg -i)"
for t in dpkg fakeroot xvfb-run unshare curl setpriv flock python3; do command -v "$t" >/dev/null || die "$t is missing (see the header of $0)"; done
# The installed kiln moves a seed through a real SeaweedFS: the weed binary .ci/seaweedfs builds and caches. .ci/run starts
# that build in the background before the tests; one still running holds the script's lock, so wait for it (bounded).
weed="$(.ci/seaweedfs --path)"
if [ ! -x "$weed" ] && [ -e "$(dirname "$weed")/build.lock" ]; then
  say "waiting for the SeaweedFS build (.ci/seaweedfs holds $(dirname "$weed")/build.lock)"
  flock -w 900 "$(dirname "$weed")/build.lock" true || true
fi
[ -x "$weed" ] || die "no SeaweedFS binary at $weed: the package test runs the installed kiln against a real S3 store; run .ci/seaweedfs first (it builds weed from the Go module proxy with the Go toolchain, a few minutes, once)"
known() { dpkg-query -W -f='${Status}' kiln 2>/dev/null | grep -qv "not-installed"; } # any state dpkg has, half-configured too
if known; then
  [ "${CI:-}" = true ] || [ "${KILN_TEST_DEB_REPLACE:-}" = 1 ] \
    || die "the kiln package is installed here; this test would replace it: rerun with KILN_TEST_DEB_REPLACE=1"
  dpkg -P kiln >/dev/null
fi

work="$(mktemp -d -t kiln-test-deb.XXXXXX)"
chmod 755 "$work" # the daemon runs as the system user kiln and must reach its workspace
made_user=0 made_home=0 # what this test adds to the machine, and so removes again: a kiln account, its home
cleanup() {
  if known; then dpkg -P kiln >/dev/null 2>&1 || true; fi
  rm -f /etc/kiln/serve.d/citest.conf; rmdir /etc/kiln/serve.d /etc/kiln 2>/dev/null || true
  if [ "$made_user" = 1 ]; then
    pkill -KILL -u kiln 2>/dev/null || true
    userdel kiln 2>/dev/null || true; groupdel kiln 2>/dev/null || true
  fi
  if [ "$made_home" = 1 ]; then rm -rf /var/lib/kiln; fi
  [ -z "${weed_pid:-}" ] || { kill -KILL "$weed_pid" 2>/dev/null; wait "$weed_pid" 2>/dev/null; } || true
  rm -rf "$work"
}
trap cleanup EXIT

# The store of the object-store check below starts now, in the background: SeaweedFS takes about 10 s before it takes a
# conditional write (its filer holds its announce to the master for an empty-membership check, then the lock ring
# settles), and that wait overlaps the builds instead of the test.
weed_pid=""
store_dir="$work/seaweedfs"
mkdir -p "$store_dir/data"
s3_key=KILNDEBTESTACCESSKEY s3_secret="kiln-deb-test-secret-$$"
printf '{"identities": [{"name": "kiln", "credentials": [{"accessKey": "%s", "secretKey": "%s"}], "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}\n' \
  "$s3_key" "$s3_secret" >"$store_dir/s3.json"
read -r p0 p1 p2 p3 p4 p5 p6 p7 < <(python3 -c 'import socket
s = [socket.socket() for _ in range(8)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s]); [x.close() for x in s]')
"$weed" server -dir="$store_dir/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 -master.port="$p0" -master.port.grpc="$p1" \
  -volume.port="$p2" -volume.port.grpc="$p3" -filer -filer.port="$p4" -filer.port.grpc="$p5" -s3 -s3.port="$p6" \
  -s3.port.grpc="$p7" -s3.port.iceberg=0 -s3.port.lance=0 -s3.config="$store_dir/s3.json" -master.telemetry=false \
  -master.telemetry.url=http://127.0.0.1:1/ -master.volumeSizeLimitMB=64 -volume.max=0 >"$store_dir/weed.log" 2>&1 &
weed_pid=$!

check "icons: every committed rendition matches its SVG (icons/render.sh --check)" icons/render.sh --check

# --- two builds: the POM's version, then a higher one -----------------------------------------------------------
say "build 1: mvn -Ppackage package (app-image, deb, rpm)"
# README's test command runs this after `mvn -B verify` in the same tree: the tests have run and every class is built,
# so test sources are not compiled again (maven.test.skip) and a module is recompiled only for a source newer than its
# classes (useIncrementalCompilation=false): the compiler plugin's default recompiled ui and app, Error Prone and all,
# because core's jar had been rewritten. On a tree that was never built this still compiles everything. skipTests as
# well: the slow-lane executions set surefire's `skip` themselves, which maven.test.skip then no longer reaches, and
# they would run the test classes mvn verify left behind a second time.
mvn -B -q -Ppackage -DskipTests -Dmaven.test.skip=true -Dmaven.compiler.useIncrementalCompilation=false package >"$work/build1.log" 2>&1 || { tail -n 60 "$work/build1.log"; die "build 1 failed"; }
deb1="$(ls packaging/target/kiln_*.deb)"
v1="$(dpkg-deb -f "$deb1" Version)"
check ".deb built: $(basename "$deb1")" test -s "$deb1"
if command -v rpmbuild >/dev/null; then check ".rpm built" test -s "$(ls packaging/target/kiln-*.rpm 2>/dev/null | head -1)"; fi
# A jpackage placeholder that this JDK did not fill stays in a maintainer script as a command ("UTILITY_SCRIPTS: not
# found"), and dpkg or rpm fails at upgrade or removal: no line of the scripts may be a bare upper-case name.
placeholder='^[[:space:]]*(:;[[:space:]]*)?[A-Z][A-Z_]{5,}[[:space:]]*$'
dpkg-deb -e "$deb1" "$work/control1"
check "the .deb's maintainer scripts hold no unfilled jpackage placeholder" \
  sh -c "! cat '$work'/control1/preinst '$work'/control1/postinst '$work'/control1/prerm '$work'/control1/postrm 2>/dev/null | grep -E '$placeholder'"
if command -v rpmbuild >/dev/null; then
  check "the .rpm's scriptlets hold no unfilled jpackage placeholder" \
    sh -c "! rpm -qp --scripts '$(ls packaging/target/kiln-*.rpm | head -1)' 2>/dev/null | grep -E '$placeholder'"
fi
cp "$deb1" "$work/"
deb1="$work/$(basename "$deb1")"
grep -v '^deb=' packaging/target/build.properties >"$work/build1.properties"

# The upgrade is the same build under a higher version: build.sh --repackage makes its .deb from build 1's
# app-image (only the image's version records differ), instead of compiling, linking and training it again.
say "build 2: the upgrade, build.sh --repackage --app-version=<patch + 1>"
IFS=.- read -r a b c _ <<<"$v1"
v2_app="$a.$b.$((c + 1))"
jdk1="$(sed -n 's/^jdk=//p' "$work/build1.properties")"
packaging/build.sh --repackage --app-version="$v2_app" --types=deb --jdk="$jdk1" >"$work/build2.log" 2>&1 \
  || { tail -n 60 "$work/build2.log"; die "build 2 failed"; }
deb2="$(ls packaging/target/kiln_"$v2_app"*.deb)"
check "upgrade .deb built: $(basename "$deb2")" test -s "$deb2"
check "upgrade version $(dpkg-deb -f "$deb2" Version) sorts above $v1" dpkg --compare-versions "$(dpkg-deb -f "$deb2" Version)" gt "$v1"

# --- what is on the machine before ------------------------------------------------------------------------------
# Everything a package could touch, less dpkg/apt bookkeeping and caches that other packages' triggers rewrite.
snapshot() {
  find /opt /usr /etc /lib/systemd /var/lib /var/cache /var/opt /var/mail /var/spool -xdev 2>/dev/null \
    | grep -Ev '^/var/lib/(dpkg|apt|ucf|systemd/deb-systemd)|^/var/cache/(apt|debconf|ldconfig|man)|^/etc/ld\.so\.cache|mimeinfo\.cache$|icon-theme\.cache$|^/etc/(passwd|group|shadow|gshadow|subuid|subgid)-?$' \
    | sort
}
# A kiln account that is there before the package (an admin's, or left by an earlier install): postinst reuses it,
# so the package must never delete it, its home, or what it owns (a workspace chowned to it). Purge used to run
# userdel/groupdel and rm -rf /var/lib/kiln on it, leaving the workspace to a uid the next system user would get.
if ! getent passwd kiln >/dev/null; then
  useradd --system --user-group --home-dir /var/lib/kiln --no-create-home --shell /usr/sbin/nologin kiln
  made_user=1
fi
kiln_uid="$(id -u kiln)"
if [ ! -e /var/lib/kiln ]; then
  install -d -o kiln -g kiln -m 750 /var/lib/kiln && made_home=1
  echo "written by the kiln account before the package came" >/var/lib/kiln/earlier.txt
fi
mkdir -p "$work/prior-ws"
echo '{"kept": true}' >"$work/prior-ws/data.json"
chown -R kiln:kiln "$work/prior-ws"
snapshot >"$work/before.txt"

# The installed kiln runs with no JDK and no Maven visible: a mount namespace hides them.
mkdir -p "$work/empty" "$work/home"
user_env=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$work/home" XDG_DATA_HOME="$work/home/data"
  XDG_STATE_HOME="$work/home/state" XDG_CACHE_HOME="$work/home/cache" LANG=C.UTF-8)
nojdk() {
  unshare -m sh -c 'for d in /usr/lib/jvm /usr/share/maven /usr/share/java; do [ -d "$d" ] && mount --bind "$0" "$d"; done; exec "$@"' \
    "$work/empty" "${user_env[@]}" "$@"
}

# --- install ----------------------------------------------------------------------------------------------------
say "dpkg -i $(basename "$deb1")"
dpkg -i "$deb1" >"$work/install1.log" 2>&1 || { cat "$work/install1.log"; die "dpkg -i failed"; }
check "kiln is on the PATH as /usr/bin/kiln (the image's lib/kiln-cli.sh)" test "$(readlink -f /usr/bin/kiln)" = /opt/kiln/lib/kiln-cli.sh
# dpkg owns what the package puts outside /opt (not made by postinst, so `dpkg -S`, upgrades and removal know them).
for f in /usr/bin/kiln /lib/systemd/system/kiln-serve@.service /usr/share/applications/kiln.desktop /etc/kiln/serve.d; do
  check "dpkg owns $f" sh -c "dpkg -S '$f' 2>/dev/null | grep -q '^kiln: $f\$'"
done
check "postinst reused the existing kiln account (uid $kiln_uid)" test "$(id -u kiln)" = "$kiln_uid"
nojdk sh -c 'command -v java >/dev/null || [ -n "$(ls /usr/lib/jvm)" ]' && fail "a java is still visible in the no-JDK namespace" || ok "the no-JDK namespace hides every java"
version="$(nojdk kiln --version 2>&1)"
check "kiln --version with no JDK: '$version'" grep -q "^kiln " <<<"$version"
check "kiln --version names the installed package's version" grep -qF "package $(dpkg-query -W -f='${Version}' kiln | sed 's/-[^-]*$//')," <<<"$version"
nojdk kiln demo "$work/ws" >"$work/demo.log" 2>&1; check "kiln demo $work/ws" test -f "$work/ws/kiln.json" -o -d "$work/ws/contracts"
nojdk kiln project "$work/ws" --json >"$work/project.json" 2>&1; check "kiln project --json writes observer/state.json" test -s "$work/ws/observer/state.json"
check "kiln --help lists the headless commands" sh -c "$(printf '%q ' "${user_env[@]}") kiln --help | grep -q serve"
# Every command runs with a bounded heap (the JVM's default is a quarter of the RAM): the JVM's own final value of
# MaxHeapSize, printed by the real java of the installed kiln (JAVA_TOOL_OPTIONS is read before its options).
max_heap() { nojdk env JAVA_TOOL_OPTIONS=-XX:+PrintFlagsFinal "$@" 2>/dev/null | sed -n 's/^ *size_t MaxHeapSize *= *\([0-9]*\).*/\1/p'; }
heap="$(max_heap kiln status --help)"; check "kiln status runs with a 256 MiB heap (MaxHeapSize=$heap)" test "$heap" = 268435456
heap="$(max_heap kiln doctor --help)"; check "kiln doctor runs with a 1 GiB heap (MaxHeapSize=$heap)" test "$heap" = 1073741824
heap="$(max_heap kiln serve --help)"; check "kiln serve runs with a 1 GiB heap (MaxHeapSize=$heap)" test "$heap" = 1073741824
heap="$(max_heap env KILN_JAVA_OPTS=-Xmx320m kiln status --help)"; check "KILN_JAVA_OPTS=-Xmx320m wins (MaxHeapSize=$heap)" test "$heap" = 335544320
heap="$(max_heap /opt/kiln/bin/kiln --help)"; check "the desktop entry's launcher runs with a 1 GiB heap (MaxHeapSize=$heap)" test "$heap" = 1073741824
check "desktop entry installed" sh -c 'ls /usr/share/applications/*kiln*.desktop >/dev/null 2>&1'
desktop="$(ls /usr/share/applications/*kiln*.desktop 2>/dev/null | head -1)"
check "desktop entry starts /opt/kiln/bin/kiln and has its icon" sh -c "grep -q '^Exec=/opt/kiln/bin/kiln' '$desktop' && grep -q '^Icon=/opt/kiln/lib/kiln.png' '$desktop' && test -s /opt/kiln/lib/kiln.png"
if command -v desktop-file-validate >/dev/null; then check "desktop-file-validate" desktop-file-validate "$desktop"; fi
check "copyright (license) installed" grep -q "Apache License" /opt/kiln/share/doc/copyright
check "systemd unit installed, not enabled" sh -c 'test -f /lib/systemd/system/kiln-serve@.service && ! ls /etc/systemd/system/*/kiln-serve@* >/dev/null 2>&1'
check "system user kiln exists" getent passwd kiln

# The console: under Xvfb until its first frame, as the user; nothing may be written into the install dir.
touch "$work/before-gui"
sleep 1
# kiln screenshot from the package: no display, no JDK; Monocle is linked into the image's javafx.graphics.
nojdk kiln screenshot --page projection --settle 1 --out "$work/shot.png" "$work/ws" >"$work/shot.log" 2>&1 || true
png="$(od -An -v -tx1 -N24 "$work/shot.png" 2>/dev/null | tr -d ' \n')"
check "kiln screenshot wrote a 1280x800 PNG with no display" test "${png:0:16}/${png:32:16}" = "89504e470d0a1a0a/0000050000000320"
[ "${png:0:16}" = 89504e470d0a1a0a ] || cat "$work/shot.log" >&2
nojdk env JAVA_TOOL_OPTIONS="-Dkiln.firstFrameFile=$work/first-frame -Dkiln.exitAfterFirstFrame=true" \
  timeout 120 xvfb-run -a -s "-screen 0 1280x800x24" kiln "$work/ws" >"$work/gui.log" 2>&1 || true
check "the installed console showed a frame under Xvfb" test -s "$work/first-frame"
[ -s "$work/first-frame" ] || cat "$work/gui.log" >&2
check "nothing written into /opt/kiln at run time" test -z "$(find /opt/kiln -newer "$work/before-gui" -print -quit)"
check "JavaFX extracted nothing to ~/.openjfx (its .so are in the runtime)" test ! -e "$work/home/.openjfx"
# An explicit module reads only what it requires: a descriptor missing one shows up as IllegalAccessError here.
check "the console's log has no access error or failed watch" sh -c "! grep -E 'IllegalAccessError|Cannot watch|NoClassDefFoundError' '$work/gui.log'"

# The object store from the package: the installed kiln (the jlink image's own AWS SDK, with module descriptors build.sh
# gave it) pushes a small seed to a real SeaweedFS on loopback and a second workspace pulls it; credentials only from
# the AWS variables (an identity file makes the store check the signatures).
say "object store: the installed kiln pushes a seed to a real SeaweedFS, a second workspace pulls it"
s3="http://127.0.0.1:$p6"
sig=(--aws-sigv4 "aws:amz:us-east-1:s3" --user "$s3_key:$s3_secret")
# Ready once a real write lands (the gateway answers before the filer and a volume are up).
ready=0
for _ in $(seq 1 240); do
  curl -fsS "${sig[@]}" -X PUT "$s3/kiln-deb" >/dev/null 2>&1 || true
  # UNSIGNED-PAYLOAD: curl 7.88 signs no body hash of its own, and SeaweedFS then refuses the signature.
  if curl -fsS "${sig[@]}" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -X PUT --data-binary probe "$s3/kiln-deb/probe" \
      >/dev/null 2>&1; then ready=1; break; fi
  kill -0 "$weed_pid" 2>/dev/null || break
  sleep 0.25
done
check "SeaweedFS serves S3 on loopback with signed requests" test "$ready" = 1
[ "$ready" = 1 ] || tail -n 30 "$store_dir/weed.log" >&2
aws_env=(env AWS_ACCESS_KEY_ID="$s3_key" AWS_SECRET_ACCESS_KEY="$s3_secret")
for host in store-a store-b; do
  mkdir -p "$work/$host/tasks" "$work/$host/targets/app"
  printf '{"store": {"url": "s3://kiln-deb/ci", "endpoint": "%s", "region": "us-east-1"}}\n' "$s3" >"$work/$host/kiln.json"
  echo '{"source": {"dir": "."}, "extras": "all"}' >"$work/$host/targets/app/target.json"
  cp core/src/test/resources/dev/kiln/core/seed/small/pyproject.toml core/src/test/resources/dev/kiln/core/seed/small/uv.lock "$work/$host/targets/app/"
done
# A small seed for the lockfile as it is (what a warm leaves, made directly: the package test has no package index).
row="$(nojdk kiln seed ls "$work/store-a" --json 2>"$work/seed-ls.err" | head -1)"
lock_hash="$(sed -n 's/.*"current_hash":"\([0-9a-f]*\)".*/\1/p' <<<"$row")"
seed_dir="$(sed -n 's/.*"seed_dir":"\([^"]*\)".*/\1/p' <<<"$row")"
check "kiln seed ls names the target's lockfile hash and seed dir" test -n "$lock_hash" -a -n "$seed_dir"
if [ -n "$lock_hash" ] && [ -n "$seed_dir" ]; then
  for i in $(seq 1 40); do mkdir -p "$seed_dir/archive-v0/pkg$((i % 7))"; echo "VALUE = $i" >"$seed_dir/archive-v0/pkg$((i % 7))/mod$i.py"; done
  ln -s ../archive-v0/pkg1 "$seed_dir/archive-v0/link-inside" 2>/dev/null || true
  echo "{\"target\": \"app\", \"hash\": \"$lock_hash\"}" >"$seed_dir/kiln-seed.json"
  echo "$lock_hash" >"$seed_dir/.kiln-seed-hash"
fi
pushed="$(nojdk "${aws_env[@]}" kiln seed push "$work/store-a" app --json 2>"$work/push.err")" || true
check "the installed kiln pushes the seed to the store: ${pushed:-$(tail -n 3 "$work/push.err")}" grep -q '"outcome":"pushed"' <<<"$pushed"
pulled="$(nojdk "${aws_env[@]}" kiln seed pull "$work/store-b" app --json 2>"$work/pull.err")" || true
check "a second workspace pulls it: ${pulled:-$(tail -n 3 "$work/pull.err")}" grep -q '"outcome":"pulled"' <<<"$pulled"
files_of() { (cd "$1" && find . -type f -exec sha256sum {} + | sort -k 2); }
same_seed() { [ -n "$2" ] && [ -d "$2" ] && [ "$(files_of "$1")" = "$(files_of "$2")" ]; }
row_b="$(nojdk kiln seed ls "$work/store-b" --json 2>&1 | head -1)"
b_seed="$(sed -n 's/.*"seed_dir":"\([^"]*\)".*/\1/p' <<<"$row_b")"
check "the pulled seed is the pushed one, file for file ($(files_of "$seed_dir" 2>/dev/null | wc -l) files)" same_seed "$seed_dir" "$b_seed"
check "the second workspace's seed is current" grep -q '"state":"current"' <<<"$row_b"
no_leak() {
  ! grep -qE 'IllegalAccessError|NoClassDefFoundError|no S3 client' "$work/push.err" "$work/pull.err" \
    && ! grep -qF "$s3_secret" "$work/push.err" "$work/pull.err" && [[ "$pushed$pulled" != *"$s3_secret"* ]]
}
check "no access error, missing class or secret in the store commands' output" no_leak
kill -TERM "$weed_pid" 2>/dev/null || true
for _ in $(seq 1 50); do kill -0 "$weed_pid" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$weed_pid" 2>/dev/null || true
wait "$weed_pid" 2>/dev/null || true

# The daemon by its unit: systemd may not run here (containers), so run the unit's ExecStart the way systemd
# would: as User=kiln, with the unit's Environment= and the instance's /etc/kiln/serve.d file.
unit=/lib/systemd/system/kiln-serve@.service
if command -v systemd-analyze >/dev/null; then
  cp "$unit" "$work/kiln-serve@citest.service"
  # verify exits 0 on an unknown or misspelt key (it only warns): any output fails.
  if systemd-analyze verify "$work/kiln-serve@citest.service" >"$work/verify.log" 2>&1 && [ ! -s "$work/verify.log" ]; then
    ok "systemd-analyze verify kiln-serve@citest.service"
  else fail "systemd-analyze verify: $(cat "$work/verify.log")"; fi
fi
for key in NoNewPrivileges=yes PrivateTmp=yes PrivateDevices=yes ProtectSystem=full ProtectHome=read-only ReadWritePaths=-%f \
    UMask=0077 CapabilityBoundingSet= "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6" SystemCallFilter=@system-service \
    SystemCallArchitectures=native ProtectKernelTunables=yes ProtectControlGroups=yes RestrictNamespaces=yes; do
  check "the unit sets $key" grep -qx "$key" "$unit"
done
chown -R kiln:kiln "$work/ws"
printf 'KILN_WORKSPACE=%s\nKILN_SERVE_ARGS=--port 0 --heartbeat 2s\n' "$work/ws" >/etc/kiln/serve.d/citest.conf
exec_start="$(sed -n 's/^ExecStart=//p' "$unit")"
check "ExecStart is the installed kiln serve" grep -q '^/usr/bin/kiln serve ' <<<"$exec_start"
mkdir -p "$work/varlib/kiln" && chown kiln:kiln "$work/varlib/kiln"
# setpriv, not runuser: it execs (runuser forks and, on SIGTERM, exits leaving kiln serve running), so $! is the
# daemon itself. shellcheck disable=SC2016: expanded in the child, as systemd expands ${VAR} (one word), $VAR (split)
nojdk setpriv --reuid=kiln --regid=kiln --init-groups env XDG_STATE_HOME="$work/varlib" XDG_CACHE_HOME="$work/varlib" HOME="$work/varlib/kiln" \
  bash -c 'while IFS== read -r k v; do export "$k=$v"; done </etc/kiln/serve.d/citest.conf # as EnvironmentFile= reads it
    eval "exec ${0//\$\{KILN_WORKSPACE\}/\"\$KILN_WORKSPACE\"}"' "$exec_start" \
  >"$work/serve.out" 2>"$work/serve.err" &
serve=$!
touch "$work/serve.out" # the background job may not have opened it yet
url=""
for _ in $(seq 1 600); do
  url="$(sed -n 's/^  state:  //p' "$work/serve.out" 2>/dev/null || true)"
  [ -n "$url" ] && break
  kill -0 "$serve" 2>/dev/null || break
  sleep 0.1
done
check "kiln serve started by the unit's command line (as kiln): ${url:-no URL}" test -n "$url"
sleep 2 # the watch is set up on its own thread; a failure is logged to stderr at once
check "the daemon's watch started (no access error or failed watch on its stderr)" sh -c "! grep -E 'IllegalAccessError|Cannot watch|NoClassDefFoundError' '$work/serve.err'"
if [ -n "$url" ]; then
  got=""
  for _ in $(seq 1 100); do # 503 until the first tick
    got="$(curl -fsS "$url" 2>/dev/null || true)"
    grep -q '"revision"' <<<"$got" && break
    sleep 0.3
  done
  check "GET /api/state answers with the projection" grep -q '"revision"' <<<"$got"
fi
# SIGTERM to the daemon itself, as systemd sends it to the unit's main process: serve.lock names its pid (the
# launcher between $! and the JVM may be more than one process).
daemon_pid="$(sed -n 's/^pid //p' "$work/ws/observer/serve.lock" 2>/dev/null | head -1)"
[ -n "$daemon_pid" ] || daemon_pid="$serve"
kill -TERM "$daemon_pid" 2>/dev/null || true
for _ in $(seq 1 300); do [ -d "/proc/$daemon_pid" ] || break; sleep 0.1; done
check "kiln serve (pid $daemon_pid) stops on SIGTERM" test ! -d "/proc/$daemon_pid"
kill -TERM "$serve" 2>/dev/null || true
wait "$serve" 2>/dev/null && serve_rc=0 || serve_rc=$?
check "its launcher ends with 0 or 143 (the unit's SuccessExitStatus), got $serve_rc" test "$serve_rc" -eq 0 -o "$serve_rc" -eq 143
pkill -KILL -u kiln 2>/dev/null || true # nothing of the account may outlive the test (purge removes the user)
[ -n "$url" ] || cat "$work/serve.err" >&2
rm -f /etc/kiln/serve.d/citest.conf

# --- upgrade ----------------------------------------------------------------------------------------------------
say "upgrade: dpkg -i $(basename "$deb2")"
dpkg -i "$deb2" >"$work/install2.log" 2>&1 || { cat "$work/install2.log"; die "dpkg -i (upgrade) failed"; }
check "upgraded to $(dpkg-query -W -f='${Version}' kiln)" test "$(dpkg-query -W -f='${Version}' kiln)" = "$(dpkg-deb -f "$deb2" Version)"
check "kiln runs after the upgrade, and says it is $v2_app" sh -c "$(printf '%q ' "${user_env[@]}") kiln --version | grep -qF 'package $v2_app,'"
check "the launcher carries the new version" grep -q "jpackage.app-version=$v2_app" /opt/kiln/lib/app/kiln.cfg
check "/usr/bin/kiln and the unit survive the upgrade" test -L /usr/bin/kiln -a -f /lib/systemd/system/kiln-serve@.service
check "user data untouched by the upgrade" test -s "$work/ws/observer/state.json"

# --- remove, purge ----------------------------------------------------------------------------------------------
say "dpkg -r kiln"
dpkg -r kiln >"$work/remove.log" 2>&1 || { cat "$work/remove.log"; die "dpkg -r failed"; }
snapshot >"$work/after-remove.txt"
left="$(comm -13 "$work/before.txt" "$work/after-remove.txt")"
check "dpkg -r leaves no file behind${left:+: $(tr '\n' ' ' <<<"$left")}" test -z "$left"
check "the user's data stays (workspace, logs)" test -s "$work/ws/observer/state.json" -a -d "$work/home/state/kiln/logs"
dpkg -P kiln >/dev/null 2>&1 || true
check "purge keeps the kiln account that was there before (uid $kiln_uid)" test "$(id -u kiln 2>/dev/null)" = "$kiln_uid"
check "purge keeps the workspace owned by kiln" test "$(stat -c %U:%s "$work/prior-ws/data.json")" = "kiln:15"
if [ "$made_home" = 1 ]; then check "purge keeps what the kiln account had in /var/lib/kiln" test -s /var/lib/kiln/earlier.txt; fi
snapshot >"$work/after-purge.txt"
left="$(comm -13 "$work/before.txt" "$work/after-purge.txt")"
check "dpkg -P leaves nothing behind${left:+: $(tr '\n' ' ' <<<"$left")}" test -z "$left"

# A machine without a kiln account: postinst makes the system user; purge leaves it too (Debian practice: files of
# its uid may remain anywhere), and removes /var/lib/kiln only when it is empty.
if [ "$made_user" = 1 ]; then
  userdel kiln; getent group kiln >/dev/null && groupdel kiln
  [ "$made_home" = 1 ] && rm -rf /var/lib/kiln
  dpkg -i "$deb2" >"$work/install3.log" 2>&1 || { cat "$work/install3.log"; die "dpkg -i (fresh account) failed"; }
  check "postinst makes a system user kiln with no login" sh -c 'getent passwd kiln | grep -q ":/var/lib/kiln:/usr/sbin/nologin$" && [ "$(id -u kiln)" -lt 1000 ]'
  dpkg -P kiln >"$work/purge3.log" 2>&1 || { cat "$work/purge3.log"; die "dpkg -P (fresh account) failed"; }
  check "purge leaves the system user kiln it made" getent passwd kiln
  check "purge removes nothing else: no /var/lib/kiln was made, none is left" test ! -e /var/lib/kiln
fi

say "done"
cat "$work/build1.properties" | sed 's/^/test-deb: build 1: /'
echo "test-deb: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
