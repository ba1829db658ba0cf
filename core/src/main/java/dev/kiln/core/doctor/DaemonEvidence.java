package dev.kiln.core.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.workspace.Durations;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
import java.io.IOException;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What can be learnt about the workspace's daemon without asking it to do anything: its lock file (pid and URL, read
 * by serve's lock reader through {@link DaemonAccess}), who holds the lock (from {@code /proc/locks}, so the lock
 * file is never opened while this very process might hold it: closing any descriptor of a file drops the process's
 * POSIX locks on it), the process and its command line (heartbeat and interval), its inotify watches
 * ({@code /proc/PID/fdinfo}), and its metrics, asked through serve's client (token, pinned certificate, API version
 * check; every answer bounded in size and time: whatever answers at the URL may be hostile).
 */
final class DaemonEvidence {
    /** What the evidence says about the daemon. */
    enum State {
        /** No lock file: no daemon ever served the workspace (or it was cleaned up). */
        NEVER,
        /** A lock file, but nobody holds the lock: the daemon is gone (stopped, killed, crashed). */
        GONE,
        /** Somebody holds the lock, but no daemon API of this workspace answers. */
        UNREACHABLE,
        /** A daemon answers for this workspace. */
        RUNNING
    }

    State state = State.NEVER;
    /** The pid and URL the lock file names (-1 / null when it does not, or it was not read). */
    long filePid = -1;
    @Nullable URI fileUrl;
    /** What the lock file says holds it: "kiln serve" or "a Kiln console" (its {@code kind} line). */
    String fileKind = "kiln serve";
    /** The pid holding the lock, -1 if nobody; whether that is known (from /proc/locks). */
    long holderPid = -1;
    boolean holderKnown;
    /** The named process holds a POSIX lock, but on another file: the workspace was replaced after it started. */
    boolean holdsAnotherFile;
    boolean pidAlive;
    String command = "";
    /** The daemon's pacing, and where it came from (the defaults until {@link #gather} reads them). */
    Duration heartbeat = WorkspaceSettings.defaults().heartbeat();
    Duration interval = WorkspaceSettings.defaults().interval();
    String pacingSource = "";
    /** The daemon's watched directory inodes, or null when unknown. */
    @Nullable Set<Long> watchedInodes;
    /** The API that answered, and its {@code /api/metrics} (null unless {@link State#RUNNING}). */
    @Nullable URI url;
    @Nullable JsonNode metrics;
    String problem = "";

    /**
     * Gathers what the lock, the process table and {@code /api/metrics} say; {@code hint} is an API URL to try first.
     * The daemon's answer spends {@code patience}.
     */
    static DaemonEvidence gather(WorkspaceLayout layout, @Nullable URI hint, Patience patience, DaemonAccess access) {
        DaemonEvidence d = new DaemonEvidence();
        Path lock = layout.observerDir().resolve("serve.lock");
        long self = ProcessHandle.current().pid();
        Long inode = inode(lock);
        if (inode != null) {
            List<long[]> locks = ProcLocks.read();
            if (locks != null) {
                d.holderKnown = true;
                for (long[] l : locks) {
                    if (l[1] == inode) {
                        d.holderPid = l[0];
                    }
                }
            }
            // never open the lock file in the process that holds it (see the class comment)
            if (d.holderPid != self && !(d.holderPid < 0 && !d.holderKnown && hint != null)) {
                readLockFile(access, layout, lock, d);
            } else {
                d.filePid = self;
                d.fileUrl = hint;
            }
            if (d.holderKnown && d.holderPid < 0 && d.filePid > 0 && locks != null) {
                d.holdsAnotherFile = locks.stream().anyMatch(l -> l[0] == d.filePid);
            }
        }
        long pid = d.holderPid > 0 ? d.holderPid : d.filePid;
        Optional<ProcessHandle> ph = pid > 0 ? ProcessHandle.of(pid) : Optional.empty();
        d.pidAlive = ph.map(ProcessHandle::isAlive).orElse(false);
        if (d.pidAlive) {
            ProcessHandle.Info info = ph.get().info();
            d.command = info.commandLine().or(info::command).orElse("");
            pacing(d, info.arguments().orElse(new String[0]), layout);
            d.watchedInodes = InotifyWatches.of(pid);
        } else {
            pacing(d, new String[0], layout);
        }
        URI tryUrl = hint != null ? hint : d.fileUrl;
        if (inode == null && hint == null) {
            d.state = State.NEVER;
            return d;
        }
        boolean held = d.holderKnown ? d.holderPid > 0 : d.pidAlive;
        if (!held && hint == null && !(d.holdsAnotherFile && d.pidAlive && d.fileUrl != null)) {
            d.state = State.GONE;
            return d;
        }
        if (tryUrl == null) {
            d.state = State.UNREACHABLE;
            d.problem = "the lock file names no API URL";
            return d;
        }
        try {
            URI at = tryUrl;
            JsonNode m = patience.ask(at, within -> access.metrics(at, layout, within));
            Path ws = Path.of(m.path("workspace").asText(""));
            if (!same(ws, layout.root())) {
                d.state = held || hint != null ? State.UNREACHABLE : State.GONE;
                d.problem = tryUrl + " serves another workspace (" + ws + ")";
                return d;
            }
            d.url = tryUrl;
            d.metrics = m;
            d.state = State.RUNNING;
            JsonNode pacing = m.path("pacing");
            if (pacing.has("heartbeat_ms") && pacing.has("interval_ms")) { // the daemon's own word beats any guess
                d.heartbeat = Duration.ofMillis(pacing.path("heartbeat_ms").asLong());
                d.interval = Duration.ofMillis(pacing.path("interval_ms").asLong());
                d.pacingSource = "the daemon's /api/metrics";
            }
        } catch (IOException e) {
            d.state = held || hint != null ? State.UNREACHABLE : State.GONE; // a pid reused by another process
            d.problem = "its API at " + tryUrl + " does not answer (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            d.state = State.UNREACHABLE;
            d.problem = "interrupted while asking " + tryUrl;
        }
        return d;
    }

    /** The daemon's revision, from its metrics (-1 when not running). */
    long revision() {
        return metrics == null ? -1 : metrics.path("revision").asLong(-1);
    }

    boolean watchLive() {
        return metrics != null && "live".equals(metrics.path("watch").path("mode").asText());
    }

    /** Who is described, for messages: "kiln serve (pid 123) at http://…", "a Kiln console (pid 123) at …". */
    String name() {
        long pid = holderPid > 0 ? holderPid : filePid;
        return fileKind + (pid > 0 ? " (pid " + pid + ")" : "") + (url != null ? " at " + url : "");
    }

    /** The pid holding the lock as far as can be told (from /proc/locks, else the running daemon's file), or -1. */
    long owner() {
        if (holderKnown) {
            return holderPid;
        }
        return state == State.RUNNING ? filePid : -1;
    }

    private static void readLockFile(DaemonAccess access, WorkspaceLayout layout, Path lock, DaemonEvidence d) {
        Optional<DaemonAccess.LockRecord> r = access.lockFile(layout);
        if (r.isEmpty()) {
            d.problem = "cannot read " + lock;
            return;
        }
        d.filePid = r.get().pid();
        d.fileUrl = r.get().url();
        if (r.get().console()) {
            d.fileKind = "a Kiln console";
        }
    }

    /** {@code --heartbeat} / {@code --interval} from the daemon's command line, else kiln.json, else the defaults; its {@code /api/metrics} overrides these when it answers. */
    private static void pacing(DaemonEvidence d, String[] args, WorkspaceLayout layout) {
        WorkspaceSettings s;
        try {
            s = WorkspaceSettings.read(layout.root());
        } catch (RuntimeException e) {
            s = WorkspaceSettings.defaults();
        }
        d.heartbeat = s.heartbeat();
        d.interval = s.interval();
        d.pacingSource = Files.exists(layout.settingsFile()) ? "kiln.json or the defaults" : "the defaults";
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            try {
                String heartbeat = option(a, v, "--heartbeat");
                String interval = heartbeat == null ? option(a, v, "--interval") : null;
                if (heartbeat != null) {
                    d.heartbeat = Durations.parse(heartbeat);
                    d.pacingSource = "the daemon's command line";
                } else if (interval != null) {
                    d.interval = Durations.parse(interval);
                }
            } catch (RuntimeException e) {
                // the daemon refused it at start then; keep what kiln.json says
            }
        }
    }

    /** The value of option {@code name} when {@code arg} is it ({@code --name=value}, or {@code --name} then {@code next}). */
    private static @Nullable String option(String arg, @Nullable String next, String name) {
        if (arg.startsWith(name + "=")) {
            return arg.substring(name.length() + 1);
        }
        return arg.equals(name) ? next : null;
    }

    /** The inode of {@code p}: null when it does not exist, -1 when it exists but its inode cannot be read. */
    static @Nullable Long inode(Path p) {
        try {
            Object ino = Files.getAttribute(p, "unix:ino");
            return ino instanceof Long l ? l : null;
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return Files.exists(p) ? -1L : null;
        }
    }

    private static boolean same(Path a, Path b) {
        try {
            return Files.isSameFile(a, b);
        } catch (IOException e) {
            return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
        }
    }

    /** {@code /proc/locks}: the POSIX locks of the host, as (pid, inode) pairs; null where there is none. */
    static final class ProcLocks {
        private ProcLocks() {
        }

        static @Nullable List<long[]> read() {
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of("/proc/locks"));
            } catch (IOException | SecurityException e) {
                return null;
            }
            List<long[]> out = new java.util.ArrayList<>();
            for (String line : lines) {
                // "2: POSIX  ADVISORY  WRITE 28184 fe:00:10002318 0 EOF"; blocked waiters have "->" after the number
                String[] t = line.trim().split("\\s+");
                if (t.length < 6 || t[1].equals("->") || !t[1].equals("POSIX")) {
                    continue;
                }
                try {
                    String[] dev = t[5].split(":");
                    out.add(new long[] {Long.parseLong(t[4]), Long.parseLong(dev[dev.length - 1])});
                } catch (NumberFormatException e) {
                    // a format this reader does not know: skip the line
                }
            }
            return out;
        }
    }

    /** The directories a process's inotify instances watch, by inode ({@code /proc/PID/fdinfo}); null if unreadable. */
    static final class InotifyWatches {
        private InotifyWatches() {
        }

        static @Nullable Set<Long> of(long pid) {
            Path fds = Path.of("/proc", Long.toString(pid), "fd");
            Set<Long> inodes = new HashSet<>();
            boolean found = false;
            try (DirectoryStream<Path> s = Files.newDirectoryStream(fds)) {
                for (Path fd : s) {
                    String target;
                    try {
                        target = Files.readSymbolicLink(fd).toString();
                    } catch (IOException e) {
                        continue;
                    }
                    if (!target.equals("anon_inode:inotify")) {
                        continue;
                    }
                    found = true;
                    Path info = Path.of("/proc", Long.toString(pid), "fdinfo", fd.getFileName().toString());
                    for (String line : Files.readAllLines(info)) {
                        int at = line.indexOf(" ino:");
                        if (line.startsWith("inotify ") && at > 0) {
                            int end = line.indexOf(' ', at + 5);
                            inodes.add(Long.parseLong(line.substring(at + 5, end < 0 ? line.length() : end), 16));
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                return null;
            }
            return found ? inodes : null;
        }
    }
}
