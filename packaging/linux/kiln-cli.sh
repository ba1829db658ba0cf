#!/bin/sh
# The installed `kiln` command: /usr/bin/kiln is a symlink to this file, shipped in the package (dpkg/rpm own both).
# It gives each command a bounded heap, as ./kiln does, and runs the image's own java the way the jpackage launcher
# /opt/kiln/bin/kiln does (the same module, the runtime's baked-in options, the same class archive). Not that
# launcher itself: its options come from lib/app/kiln.cfg, the same for every command, it ignores JDK_JAVA_OPTIONS,
# and JAVA_TOOL_OPTIONS would lose to the cfg's -Xmx (and print a "Picked up" line). /opt/kiln/bin/kiln (the desktop
# entry's, for the console) keeps -Xmx1g from its cfg.
#
# Heap: 1 GiB where a whole workspace's projection or the console lives (serve, project, doctor, heal, archive,
# bench, the console, attach, screenshot; 100,000 contracts need 512 MiB), 256 MiB for the small commands. The same
# list as ./kiln's. KILN_JAVA_OPTS (word-split, as in ./kiln) is passed to java; with its own -Xmx it wins.
# build.sh fills in the archive options (those of kiln.cfg) and the archives' file extension.
set -e
image="$(dirname "$(dirname "$(readlink -f "$0")")")"
app="$image/lib/app"
case "${1:-}" in
  status|demo|warm|seed|probe|bytecode|help|-h|--help|-V|--version) heap=-Xmx256m ;;
  *) heap=-Xmx1g ;;
esac
case " ${KILN_JAVA_OPTS:-} " in *" -Xmx"*) heap= ;; esac
# Commands over in a fraction of a second never reach C2's code: C1 alone costs them less (status: CPU x0.78).
jit=
case "${1:-}" in
  status|help|-h|--help|-V|--version) jit=-XX:TieredStopAtLevel=1 ;;
esac
# The class archive: the command line's own for the headless sub-commands, the console's for the rest (a JVM loads
# every class of its archive at start, so the console's would load JavaFX into `kiln status`; build.sh says more).
case "${1:-}" in
  demo|project|doctor|heal|serve|status|alerts|archive|warm|seed|probe|bytecode|bench|fleet|record|help|-h|--help|-V|--version)
    archive=kiln-cli.KILN_ARCHIVE_EXT ;;
  *) archive=kiln.KILN_ARCHIVE_EXT ;;
esac
# shellcheck disable=SC2086: $heap and $jit may be empty, KILN_JAVA_OPTS is a list of options
exec "$image/lib/runtime/bin/java" KILN_ARCHIVE_OPTIONS $heap $jit ${KILN_JAVA_OPTS:-} -m dev.kiln.app/dev.kiln.app.Main "$@"
