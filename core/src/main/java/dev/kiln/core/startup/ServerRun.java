package dev.kiln.core.startup;

import dev.kiln.core.workspace.FileTrees;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One server's startup in one run: {@link #prepare prepared} before the barrier (so the barrier releases only the
 * spawn), then spawn, handshake, and the end of its process tree whatever happened.
 */
final class ServerRun {
    /** How long a server that finished its handshake gets to exit after its stdin is closed. */
    private static final long EXIT_GRACE_MILLIS = 1_000;
    /** How long a stdout that closed gets to turn into a process exit. */
    private static final long CLOSED_EXIT_WAIT_MILLIS = 2_000;
    private static final long KILL_GRACE_MILLIS = 1_000;

    private final ServerConfig config;
    private final Duration timeout;
    private final List<String> pinCpus;
    private final BytecodeMode bytecode;
    private final int maxLineBytes;
    private final Map<String, String> baseEnv;
    private final @Nullable CpuQuota quota;
    private final HandshakeOrder order;
    // set by prepare: the process to start, or why there is none (null before it ran, and for HTTP)
    private @Nullable ProcessBuilder prepared;
    /** The program the server runs (after any taskset or quota prefix), for messages. */
    private @Nullable String executable;
    private @Nullable String prepareFailure;
    private @Nullable Path pycache;
    /** The fetching launcher's watch (see {@link Launcher#fetches}), or null. */
    private @Nullable FetchWatch fetch;
    /** Tags this server's processes (see {@link ProcessTree#endTagged}). */
    private final String token = java.util.UUID.randomUUID().toString();

    ServerRun(ServerConfig config, Duration timeout, List<String> pinCpus, BytecodeMode bytecode, int maxLineBytes,
            Map<String, String> baseEnv) {
        this(config, timeout, pinCpus, bytecode, maxLineBytes, baseEnv, null, HandshakeOrder.INITIALIZE_FIRST);
    }

    /** With {@code quota} (or null) every spawned server joins that CPU-quota group before its program runs. */
    ServerRun(ServerConfig config, Duration timeout, List<String> pinCpus, BytecodeMode bytecode, int maxLineBytes,
            Map<String, String> baseEnv, @Nullable CpuQuota quota, HandshakeOrder order) {
        this.quota = quota;
        this.order = order;
        this.config = config;
        this.timeout = timeout;
        this.pinCpus = pinCpus;
        this.bytecode = bytecode;
        this.maxLineBytes = maxLineBytes;
        this.baseEnv = baseEnv;
    }

    /** Runs the startup; never throws for anything the server does. */
    ServerResult run(Recorder recorder) throws InterruptedException {
        Transcript t = new Transcript(recorder);
        transcript = t;
        return config.transport() == ServerConfig.Transport.HTTP ? runHttp(recorder, t) : runStdio(recorder, t);
    }

    /** The messages of this run's handshake; set by {@link #run}. */
    private @Nullable Transcript transcript;

    private ServerResult runHttp(Recorder recorder, Transcript transcript) throws InterruptedException {
        HttpChannel channel = new HttpChannel(Objects.requireNonNull(config.url(), "ServerConfig gives an HTTP server a URL"), config.headers(), recorder);
        long deadline = recorder.now() + timeout.toNanos();
        Outcome outcome = Outcome.OK;
        String reason = "";
        Handshake.Result r = null;
        try {
            r = new Handshake(transcript.wrap(channel), recorder, deadline, timeout, order).run();
        } catch (Handshake.Failure f) {
            outcome = f.outcome;
            reason = f.reason;
        } catch (Handshake.Closed c) {
            outcome = Outcome.PROTOCOL_ERROR;
            reason = "the answer to " + c.step + " ended early: " + c.getMessage();
        } finally {
            // The session's end is the HTTP analogue of the process's exit.
            channel.close();
            recorder.exited(0);
        }
        return result(recorder, outcome, null, reason, r, List.of(), StderrTail.NONE);
    }

    /**
     * Builds the process before the barrier (PATH lookup, environment, per-run pycache), so that the barrier releases
     * nothing but the spawns themselves.
     */
    void prepare() {
        if (config.transport() != ServerConfig.Transport.STDIO) {
            return;
        }
        List<String> command = new ArrayList<>();
        if (!pinCpus.isEmpty()) {
            command.add("taskset");
            command.add("-c");
            command.add(String.join(",", pinCpus));
        }
        String program = config.program();
        String exe = resolve(program);
        if (exe == null) {
            prepareFailure = "command '" + program + "' not found on PATH" + hint(program);
            return;
        }
        if (config.cwd() != null && !Files.isDirectory(config.cwd())) {
            prepareFailure = "working directory " + config.cwd() + " does not exist";
            return;
        }
        command.add(exe);
        command.addAll(config.args());
        executable = exe;
        ProcessBuilder pb = new ProcessBuilder(quota == null ? command : quota.wrap(command));
        pb.environment().clear();
        pb.environment().putAll(baseEnv);
        pb.environment().putAll(config.env());
        pb.environment().put(ProcessTree.TOKEN_VARIABLE, token);
        if (bytecode != BytecodeMode.AS_IS) {
            pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
            pb.environment().remove("PYTHONPYCACHEPREFIX");
        }
        if (bytecode == BytecodeMode.COLD) {
            try {
                pycache = Files.createTempDirectory("kiln-pycache-");
            } catch (IOException e) {
                prepareFailure = "cannot create an empty pycache prefix: " + e.getMessage();
                return;
            }
            pb.environment().put("PYTHONPYCACHEPREFIX", pycache.toString());
        }
        if (config.cwd() != null) {
            pb.directory(config.cwd().toFile());
        }
        Launcher launcher = Launcher.of(config);
        if (launcher.fetches()) {
            fetch = new FetchWatch(launcher, pb.environment());
        }
        prepared = pb;
    }

    /** The run will not happen (the probe was cancelled at the barrier): drop what {@link #prepare} made. */
    void discard() {
        if (pycache != null) {
            deleteTree(pycache);
        }
    }

    private ServerResult runStdio(Recorder recorder, Transcript transcript) throws InterruptedException {
        Process process = null;
        java.util.Set<String> pipes = java.util.Set.of();
        StdioChannel channel;
        try {
            if (prepared == null && prepareFailure == null) {
                prepare();
            }
            if (prepareFailure != null) {
                return result(recorder, Outcome.SPAWN_FAILED, null, prepareFailure, null, List.of(), StderrTail.NONE);
            }
            ProcessBuilder pb = Objects.requireNonNull(prepared, "prepare() builds the process when it does not fail");
            String exe = executable;
            long deadline;
            long spawnAt = recorder.now();
            try {
                process = pb.start();
            } catch (IOException e) {
                recorder.spawned(-1, spawnAt);
                return result(recorder, Outcome.SPAWN_FAILED, null, "cannot start " + exe + ": " + e.getMessage(), null, List.of(), StderrTail.NONE);
            }
            recorder.spawned(process.pid(), spawnAt);
            if (fetch != null) {
                fetch.spawned(process.pid(), recorder);
            }
            pipes = ProcessTree.stdioPipes(process.pid()); // while it is alive: what its leftovers will still hold
            deadline = recorder.spawn.get() + timeout.toNanos();
            Process p = process;
            p.onExit().thenAccept(ph -> recorder.exited(ph.exitValue()));
            channel = new StdioChannel(process, recorder, maxLineBytes, fetch);
            try {
                Handshake.Result r = new Handshake(transcript.wrap(channel), recorder, deadline, timeout, order).run();
                // Done: ask it to leave the polite way, as a client closing a session does.
                channel.closeInput();
                process.waitFor(EXIT_GRACE_MILLIS, TimeUnit.MILLISECONDS);
                return finish(recorder, channel, Outcome.OK, "", r);
            } catch (Handshake.Failure f) {
                // A server that exited while a child of its holds the pipes (neither reading nor closing them) meets the
                // deadline like a live one that does not answer: it is an exit all the same.
                if (f.outcome == Outcome.TIMEOUT && !process.isAlive()) {
                    return finish(recorder, channel, Outcome.EXITED, "exited with code " + process.exitValue()
                            + " before the deadline (" + f.reason + ")", null);
                }
                return finish(recorder, channel, f.outcome, f.reason, null);
            } catch (Handshake.Closed c) {
                if (process.waitFor(CLOSED_EXIT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                    return finish(recorder, channel, Outcome.EXITED, "exited with code " + process.exitValue()
                            + " before answering " + c.step, null);
                }
                return finish(recorder, channel, Outcome.PROTOCOL_ERROR, "closed its stdout before answering " + c.step
                        + " but kept running", null);
            }
        } finally {
            if (process != null) {
                ProcessTree.end(process.toHandle(), KILL_GRACE_MILLIS);
                ProcessTree.awaitQuietly(process, KILL_GRACE_MILLIS);
                ProcessTree.endTagged(token, pipes);
            }
            if (pycache != null) {
                deleteTree(pycache);
            }
        }
    }

    private ServerResult finish(Recorder recorder, StdioChannel channel, Outcome outcome, String reason, Handshake.@Nullable Result r)
            throws InterruptedException {
        Process p = channel.process();
        if (p.isAlive()) {
            ProcessTree.end(p.toHandle(), KILL_GRACE_MILLIS);
            ProcessTree.awaitQuietly(p, KILL_GRACE_MILLIS);
        }
        channel.awaitDrained(500);
        if (!p.isAlive()) {
            // onExit may not have run yet; the exit is recorded once either way.
            recorder.exited(p.exitValue());
        }
        Integer code = outcome == Outcome.EXITED ? p.exitValue() : null;
        return result(recorder, outcome, code, reason, r, channel.stderrTail(), channel.stderr());
    }

    private ServerResult result(Recorder recorder, Outcome outcome, @Nullable Integer exitCode, String reason, Handshake.@Nullable Result r,
            List<String> stderrTail, StderrTail stderr) {
        Conversation conversation = transcript == null ? Conversation.NONE : transcript.conversation(stderr);
        ServerResult result = new ServerResult(config.name(), config.transport(), recorder.run, outcome, exitCode, reason,
                r == null ? null : r.protocolVersion(), recorder.sinceSpawn(recorder.initialized),
                r == null ? null : recorder.sinceSpawn(recorder.toolsListed), r == null ? -1 : r.tools(), timeout.toMillis(),
                recorder.timeline(), stderrTail, fetchPhase(recorder), conversation);
        recorder.finished(result);
        return result;
    }

    private @Nullable FetchPhase fetchPhase(Recorder recorder) {
        if (config.transport() != ServerConfig.Transport.STDIO) {
            return null;
        }
        Launcher launcher = Launcher.of(config);
        if (fetch != null && recorder.spawn.get() != Recorder.UNSET) {
            return fetch.finish(recorder);
        }
        return new FetchPhase(launcher, null, launcher.fetches() ? FetchPhase.Downloaded.UNKNOWN : FetchPhase.Downloaded.NO,
                launcher.fetches() ? "it did not start" : launcher.label() + " does not fetch packages");
    }

    /** The executable for {@code command}: as given when it has a slash, else the first match on the server's PATH. */
    private @Nullable String resolve(String command) {
        if (command.contains("/")) {
            Path p = config.cwd() == null ? Path.of(command) : config.cwd().resolve(command);
            return Files.isRegularFile(p) ? p.toString() : null;
        }
        String path = config.env().getOrDefault("PATH", baseEnv.getOrDefault("PATH", ""));
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, command);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    private static String hint(String command) {
        String c = command.toLowerCase(java.util.Locale.ROOT);
        if (c.equals("npx") || c.equals("node") || c.equals("npm")) {
            return "; install Node.js (e.g. apt-get install nodejs npm)";
        }
        if (c.equals("uv") || c.equals("uvx")) {
            return "; install uv (pip install uv, or see https://docs.astral.sh/uv/)";
        }
        if (c.startsWith("python")) {
            return "; install Python 3 (e.g. apt-get install python3) or name the interpreter by its path";
        }
        return "";
    }

    private static void deleteTree(Path root) {
        try {
            FileTrees.delete(root);
        } catch (IOException ignored) {
            // A temp directory left behind is harmless; it is never reused.
        }
    }
}
