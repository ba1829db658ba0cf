package dev.kiln.core.seed;

import dev.kiln.core.workspace.WorkspaceException;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Starts uv (and only uv-shaped children) with an allowlisted environment, streams its output line by line, and
 * kills its whole process tree on cancel or timeout.
 *
 * <p>Why an allowlist: the warm downloads whatever a target's lock names, so nothing of the warming host's
 * environment (tokens, cloud credentials, index passwords) may reach that process. Only what a download needs
 * passes: PATH, HOME, locale, time zone, proxies, CA bundles and uv's own settings, minus the ones Kiln sets and
 * the ones that carry credentials or would send the warm elsewhere.
 *
 * <p>Concurrency: each run starts two pump threads (stdout, stderr) so {@code uv} never blocks on a full pipe;
 * the lines they collect are guarded by the collection's own monitor ({@code synchronized (out)}, {@code (tail)}),
 * and the caller reads them only after joining both pumps.
 */
final class UvLauncher {
    /** Variables Kiln sets for every warm; a caller's value never wins. */
    static final Set<String> KILN_SET = Set.of("UV_CACHE_DIR", "UV_PROJECT_ENVIRONMENT", "UV_LINK_MODE");
    /** uv settings that would defeat the warm (no cache, another project) even though they are uv's own. */
    private static final Set<String> UV_DROPPED = Set.of("UV_NO_CACHE", "UV_PROJECT", "UV_WORKING_DIR",
            "UV_WORKING_DIRECTORY", "UV_KEYRING_PROVIDER");
    private static final Set<String> EXACT = Set.of("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "SSL_CERT_FILE",
            "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE");
    private static final Set<String> PROXIES = Set.of("http_proxy", "https_proxy", "no_proxy");
    static final int STDERR_TAIL = 20;

    private UvLauncher() {
    }

    /**
     * The environment uv runs with: the allowlisted part of {@code caller}, then {@code kilnSet} on top.
     */
    static Map<String, String> environment(Map<String, String> caller, Map<String, String> kilnSet) {
        Map<String, String> env = new TreeMap<>();
        caller.forEach((k, v) -> {
            if (allowed(k)) {
                env.put(k, v);
            }
        });
        env.putAll(kilnSet);
        return env;
    }

    static boolean allowed(String name) {
        if (EXACT.contains(name) || name.startsWith("LC_") || PROXIES.contains(name.toLowerCase(Locale.ROOT))) {
            return true;
        }
        if (!name.startsWith("UV_") || KILN_SET.contains(name) || UV_DROPPED.contains(name)) {
            return false;
        }
        // Index and publish credentials (UV_INDEX_<NAME>_PASSWORD, UV_PUBLISH_TOKEN…) would go to whatever index
        // the target's own pyproject names: a target must never receive the host's credentials.
        return !(name.contains("PASSWORD") || name.contains("TOKEN") || name.contains("USERNAME")
                || name.startsWith("UV_PUBLISH_"));
    }

    /**
     * Finds uv: the configured path (relative to the workspace) or the first {@code uv} on the caller's PATH.
     *
     * @throws WorkspaceException saying how to install uv, or what is wrong with the configured path
     */
    static Path locate(Optional<Path> configured, Path workspace, Map<String, String> callerEnv) {
        if (configured.isPresent()) {
            Path p = workspace.resolve(configured.get()).normalize();
            if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
                throw new WorkspaceException("kiln.json sets \"uv\" to " + p + ", which is not an executable file."
                        + " Point it at uv (`which uv` prints it) or remove the setting to use uv from PATH.");
            }
            return p;
        }
        String path = callerEnv.getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, "uv");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate.toAbsolutePath();
            }
        }
        throw new WorkspaceException("uv was not found on PATH. Install it (`pip install uv`, or"
                + " `curl -LsSf https://astral.sh/uv/install.sh | sh`) or set \"uv\" in kiln.json to its path.");
    }

    /** How a supervised run ended. */
    enum End { EXITED, CANCELLED, TIMED_OUT, FAILED_TO_START }

    /**
     * The end of one run.
     *
     * @param exitCode the exit code when {@link End#EXITED}
     */
    record Run(End end, int exitCode, List<String> stdout, List<String> stderrTail, Duration duration, String problem) {
        boolean succeeded() {
            return end == End.EXITED && exitCode == 0;
        }
    }

    /** Receives each line as it arrives ({@code stderr} says which stream); called from reader threads. */
    interface Lines extends BiConsumer<String, Boolean> {
    }

    /**
     * Runs {@code command} in {@code dir} with exactly {@code env}, until it exits, {@code cancel} is cancelled or
     * {@code timeout} passes (then its whole process tree is killed). {@code started} hears the pid.
     */
    static Run run(List<String> command, Path dir, Map<String, String> env, Duration timeout, Cancellation cancel,
            Clock clock, java.util.function.LongConsumer started, Lines lines, boolean keepStdout) {
        Instant begin = clock.instant();
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new Run(End.FAILED_TO_START, -1, List.of(), List.of(), Duration.between(begin, clock.instant()),
                    "could not start " + command.get(0) + ": " + e.getMessage());
        }
        started.accept(p.pid());
        List<String> out = new ArrayList<>();
        Deque<String> tail = new ArrayDeque<>();
        Thread o = pump(p.getInputStream(), line -> {
            if (keepStdout) {
                synchronized (out) {
                    out.add(line);
                }
            }
            lines.accept(line, false);
        }, "uv-stdout-" + p.pid());
        Thread e = pump(p.getErrorStream(), line -> {
            synchronized (tail) {
                tail.addLast(line);
                if (tail.size() > STDERR_TAIL) {
                    tail.removeFirst();
                }
            }
            lines.accept(line, true);
        }, "uv-stderr-" + p.pid());
        Instant deadline = begin.plus(timeout);
        End end = End.EXITED;
        try {
            while (!p.waitFor(50, TimeUnit.MILLISECONDS)) {
                if (cancel.isCancelled()) {
                    end = End.CANCELLED;
                } else if (clock.instant().isAfter(deadline)) {
                    end = End.TIMED_OUT;
                }
                if (end != End.EXITED) {
                    killTree(p.toHandle());
                    p.waitFor(10, TimeUnit.SECONDS);
                    break;
                }
            }
        } catch (InterruptedException ie) {
            killTree(p.toHandle());
            Thread.currentThread().interrupt();
            end = End.CANCELLED;
        }
        // Killed grandchildren may hold the pipes open a moment; never wait on them for long.
        join(o);
        join(e);
        List<String> stdout;
        synchronized (out) {
            stdout = List.copyOf(out);
        }
        List<String> stderrTail;
        synchronized (tail) {
            stderrTail = List.copyOf(tail);
        }
        int code = p.isAlive() ? -1 : p.exitValue();
        return new Run(end, code, stdout, stderrTail, Duration.between(begin, clock.instant()), "");
    }

    /** Kills {@code root} and every descendant; descendants are listed first, before orphans are reparented. */
    static void killTree(ProcessHandle root) {
        List<ProcessHandle> all = new ArrayList<>(root.descendants().toList());
        all.add(0, root);
        for (ProcessHandle h : all) {
            h.destroyForcibly();
        }
        // A child forked between the listing and the kill is caught by a second pass.
        root.descendants().forEach(ProcessHandle::destroyForcibly);
    }

    private static Thread pump(InputStream in, java.util.function.Consumer<String> sink, String name) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    try {
                        sink.accept(Redact.credentials(line)); // no password of an index URL is ever kept
                    } catch (RuntimeException ignored) {
                        // A broken listener must not stop the pump, or uv would block on a full pipe.
                    }
                }
            } catch (IOException ignored) {
                // The stream closed under us: the process was killed.
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void join(Thread t) {
        try {
            t.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
