package dev.kiln.core.startup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Watches one fetching launcher's start for evidence of its fetch phase: which of its stderr lines are its own (and
 * whether one says it downloaded), the moment it hands off to the server (a new direct child of the launcher, or the
 * launcher's process exec'ing into something that is not a launcher, seen by polling {@code /proc}), and the growth
 * of its cache directory between spawn and the end.
 *
 * <p>Concurrency: {@link #line} runs on the stderr reader, {@link #serverSpoke} on whichever reader saw the server's
 * first output, the poller on its own daemon thread, {@link #finish} on the probe thread after the readers drained.
 * Shared fields are volatile and written once or monotonically; the poller stops at the first server output.
 */
final class FetchWatch {
    static final long POLL_MILLIS = 10;
    private static final long UNSET = Recorder.UNSET;

    private final Launcher launcher;
    /** The run's recorder, from {@link #spawned}; null while nothing was spawned. */
    private volatile @Nullable Recorder recorder;
    private final @Nullable Path growing;
    private final int entriesBefore;
    private volatile long handOff = UNSET;
    private volatile @Nullable String handOffTo;
    private volatile long lastOwnLine = UNSET;
    private volatile @Nullable String downloadLine;
    private volatile boolean spoke;
    private volatile boolean procReadable = true;
    private @Nullable Thread poller;

    /** Counts the cache's entries now, before the spawn. */
    FetchWatch(Launcher launcher, Map<String, String> env) {
        this.launcher = launcher;
        this.growing = launcher.growingDir(env);
        this.entriesBefore = entries(growing);
    }

    /** Starts polling the launcher's process {@code pid} for its hand-off. */
    void spawned(long pid, Recorder recorder) {
        this.recorder = recorder;
        Thread t = new Thread(() -> poll(pid, recorder), "kiln-probe-" + recorder.server + "-fetch");
        t.setDaemon(true);
        poller = t;
        t.start();
    }

    /** A stderr line seen at {@code at}: true when it is the launcher's own, not the server's. */
    boolean line(String text, long at) {
        if (spoke || !launcher.ownsLine(text)) {
            return false;
        }
        lastOwnLine = at;
        if (downloadLine == null && launcher.saysDownloaded(text)) {
            downloadLine = text.strip();
        }
        return true;
    }

    /** The server's own first output arrived at {@code at}: the fetch phase ended at or before it. */
    void serverSpoke(long at) {
        if (spoke) {
            return;
        }
        spoke = true;
        Thread t = poller;
        if (t != null) {
            t.interrupt();
        }
        long end = handOff != UNSET ? Math.min(handOff, at) : UNSET;
        if (end == UNSET && lastOwnLine != UNSET && launcher.readsOutput()
                && (launcher == Launcher.UVX || launcher == Launcher.UV_TOOL_RUN)) {
            end = lastOwnLine; // uv prints "Installed N packages" as its last step before running the tool
        }
        Recorder r = recorder;
        if (end != UNSET && r != null) { // it spoke, so it was spawned
            r.fetchEnded(end);
        }
    }

    private void poll(long pid, Recorder recorder) {
        Path proc = Path.of("/proc", Long.toString(pid));
        Set<Long> seen = new HashSet<>();
        String firstCmd = null;
        long lastChild = -1;
        try {
            while (!spoke) {
                long now = recorder.now();
                String cmd = cmdline(proc);
                if (cmd == null) {
                    if (!Files.isDirectory(proc)) {
                        return; // it ended
                    }
                } else if (firstCmd == null) {
                    firstCmd = cmd;
                } else if (!cmd.equals(firstCmd) && !launcherish(cmd)) {
                    handOff(now, cmd); // exec'ed into the server (pipx does this)
                    return;
                }
                for (long child : children(proc, pid)) {
                    if (seen.add(child)) {
                        // The last new child before the server spoke is the server (an earlier one: an interpreter query).
                        lastChild = child;
                        handOff(now, "pid " + child);
                    }
                }
                if (lastChild > 0) {
                    // Read again each poll: just after the fork the child still shows its parent's command line.
                    String c = cmdline(Path.of("/proc", Long.toString(lastChild)));
                    if (c != null && !spoke) {
                        handOffTo = clip(c);
                    }
                }
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            }
        } catch (InterruptedException e) {
            // the server spoke or the run ended
        }
    }

    private void handOff(long at, String to) {
        if (!spoke) {
            handOff = at;
            handOffTo = clip(to);
        }
    }

    private static String clip(String s) {
        return s.length() > 120 ? s.substring(0, 119) + "…" : s;
    }

    /** The launcher's own programs and the wrappers Kiln puts in front (taskset, the CPU-quota shell, pyenv shims). */
    static boolean launcherish(String cmd) {
        String[] words = cmd.trim().split("\\s+");
        for (int i = 0; i < Math.min(2, words.length); i++) {
            String base = words[i].substring(words[i].lastIndexOf('/') + 1);
            if (Set.of("npx", "npm", "uvx", "uv", "pipx", "pyenv", "bunx", "bun", "pnpm", "yarn", "taskset", "sh", "bash",
                    "env", "npx-cli.js", "npm-cli.js").contains(base)) {
                return true;
            }
        }
        return cmd.contains("kiln-cpu-quota");
    }

    private Set<Long> children(Path proc, long pid) {
        Set<Long> out = new HashSet<>();
        Path tasks = proc.resolve("task");
        try (Stream<Path> ts = Files.list(tasks)) {
            for (Path task : (Iterable<Path>) ts::iterator) {
                try {
                    for (String s : Files.readString(task.resolve("children")).trim().split("\\s+")) {
                        if (!s.isEmpty()) {
                            out.add(Long.parseLong(s));
                        }
                    }
                } catch (IOException | NumberFormatException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            procReadable = Files.isDirectory(proc) ? false : procReadable;
        }
        return out;
    }

    private static @Nullable String cmdline(Path proc) {
        try {
            byte[] b = Files.readAllBytes(proc.resolve("cmdline"));
            return b.length == 0 ? null : new String(b, StandardCharsets.UTF_8).replace('\0', ' ').trim();
        } catch (IOException e) {
            return null;
        }
    }

    private static int entries(@Nullable Path dir) {
        if (dir == null || !Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(dir)) {
            return (int) s.count();
        } catch (IOException e) {
            return 0;
        }
    }

    /** What was seen, once the run ended; {@code recorder} is the run's (also when its spawn failed). */
    FetchPhase finish(Recorder recorder) {
        Thread t = poller;
        if (t != null) {
            t.interrupt();
        }
        Double fetchMs = recorder.sinceSpawn(recorder.fetchEnd);
        int grown = entries(growing) - entriesBefore;
        FetchPhase.Downloaded dl;
        StringBuilder ev = new StringBuilder();
        if (downloadLine != null) {
            dl = FetchPhase.Downloaded.YES;
            ev.append(launcher.label()).append(" said \"").append(downloadLine).append('"');
        } else if (grown > 0) {
            dl = FetchPhase.Downloaded.YES;
            ev.append(grown).append(" new entr").append(grown == 1 ? "y" : "ies").append(" in ").append(growing);
        } else if (growing != null && fetchMs != null) {
            dl = FetchPhase.Downloaded.NO;
            ev.append("nothing new in ").append(growing);
        } else {
            dl = FetchPhase.Downloaded.UNKNOWN;
            ev.append(growing == null ? "Kiln does not know " + launcher.label() + "'s cache" : "no hand-off seen");
        }
        if (fetchMs != null) {
            ev.append(handOff != UNSET && handOffTo != null ? "; handed off to " + handOffTo : "; its last progress line");
        } else if (!spoke) {
            Double sinceSpawn = recorder.spawn.get() == UNSET ? null : (recorder.now() - recorder.spawn.get()) / 1e6;
            ev.append("; the server never ran").append(sinceSpawn == null ? ""
                    : String.format(java.util.Locale.ROOT, ": still in %s after %.0f ms", launcher.label(), sinceSpawn));
        } else if (!procReadable) {
            ev.append("; /proc was not readable");
        }
        return new FetchPhase(launcher, fetchMs, dl, ev.toString());
    }
}
