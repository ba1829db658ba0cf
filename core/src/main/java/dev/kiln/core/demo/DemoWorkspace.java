package dev.kiln.core.demo;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.startup.DemoServer;
import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Writes a demo workspace in the layout of docs/ARCHITECTURE.md ("The workspace"), deterministically for a seed: the same seed and count give
 * a byte-identical tree. It plants the faults an operator should see: a few legacy stem-shaped leaf ids, one
 * malformed contract, one declared engine pid, and some deadlines in the past.
 */
public final class DemoWorkspace {

    /** Contracts written when no count is given. */
    public static final int DEFAULT_CONTRACTS = 500;

    private static final String[] AREAS = {"payments", "search", "ingest", "billing", "identity", "reports", "mobile", "infra"};
    private static final String[] PROJECTS = {"refunds", "ledger", "crawler", "ranking", "invoices", "sessions", "exports",
        "alerts", "sync", "quotas", "tokens", "archive"};
    private static final String[] LEAVES = {"retry", "backfill", "migrate", "verify", "rollout", "cleanup", "index", "audit",
        "replay", "shard", "compact", "notify", "reconcile", "probe", "trim", "warm"};
    private static final String[] STATUSES = {"pending", "running", "running", "done", "done", "done", "blocked", "failed"};
    private static final String[] VERBS = {"Retry", "Backfill", "Migrate", "Verify", "Roll out", "Clean up", "Index", "Audit"};
    /** Deadlines and timestamps hang off a fixed instant so the bytes do not depend on today. */
    private static final Instant EPOCH = Instant.parse("2026-01-05T09:00:00Z");

    private final ObjectMapper mapper = new ObjectMapper();
    private final ObjectWriter writer = mapper.writer(new DefaultPrettyPrinter()
            .withObjectIndenter(new DefaultIndenter("  ", "\n")).withArrayIndenter(new DefaultIndenter("  ", "\n")));

    /**
     * Writes the demo into {@code dir} (created if missing).
     *
     * @throws WorkspaceException when {@code dir} is a non-empty directory that is not a Kiln workspace and
     *     {@code force} is false, or a file cannot be written
     */
    public DemoSummary write(Path dir, int contracts, long seed, boolean force) {
        if (contracts < 1) {
            throw new IllegalArgumentException("contracts must be at least 1, got " + contracts);
        }
        WorkspaceLayout layout = WorkspaceLayout.of(dir);
        refuseForeign(layout, force);
        try {
            return writeTree(layout, contracts, seed);
        } catch (IOException e) {
            throw new WorkspaceException("Could not write the demo workspace in " + layout.root() + ": " + e, e);
        }
    }

    private static void refuseForeign(WorkspaceLayout layout, boolean force) {
        Path root = layout.root();
        if (Files.exists(root) && !Files.isDirectory(root)) {
            throw new WorkspaceException(root + " exists and is not a directory");
        }
        if (force || !Files.isDirectory(root) || layout.isWorkspace()) {
            return;
        }
        try (Stream<Path> s = Files.list(root)) {
            if (s.findAny().isPresent()) {
                throw new WorkspaceException(root + " is not empty and is not a Kiln workspace (no kiln.json or tasks/)."
                        + " Choose an empty directory, or pass --force to write the demo into it anyway.");
            }
        } catch (IOException e) {
            throw new WorkspaceException("Cannot list " + root + ": " + e.getMessage(), e);
        }
    }

    private DemoSummary writeTree(WorkspaceLayout layout, int count, long seed) throws IOException {
        Random random = new Random(seed);
        Files.createDirectories(layout.tasksDir());
        Files.createDirectories(layout.driftDir());

        ObjectNode settings = mapper.createObjectNode();
        settings.putObject("demo").put("seed", seed).put("contracts", count);
        settings.put("interval", "1s").put("heartbeat", "15s");
        write(layout.settingsFile(), settings);

        int legacyCount = Math.max(1, Math.min(5, count / 100));
        Set<String> used = new HashSet<>();
        List<String> leaves = new ArrayList<>(count);
        while (leaves.size() < count) {
            String leaf = leafPath(random, leaves.size());
            if (used.add(leaf)) {
                leaves.add(leaf);
            }
        }
        // Faults sit at fixed, spread-out positions so the summary can name them.
        int malformedAt = count > 1 ? count / 2 : -1;
        int engineAt = count > 2 ? count / 3 : 0;
        List<String> legacy = new ArrayList<>();
        List<String> overdue = new ArrayList<>();
        String malformed = null;
        String engine = null;
        Writes writes = new Writes(count);
        try {
        for (int i = 0; i < count; i++) {
            String leaf = leaves.get(i);
            Path file = layout.tasksDir().resolve(leaf).resolve("contract.json");
            String rel = layout.root().relativize(file).toString().replace('\\', '/');
            if (i == malformedAt) {
                malformed = rel;
                writes.submit(file, ("{\n  \"leaf_id\": \"" + leaf + "\",\n  \"title\": \"Half-written contract\",\n  \"status\": \n")
                        .getBytes(StandardCharsets.UTF_8));
                continue;
            }
            boolean isLegacy = i % Math.max(1, count / legacyCount) == 1 && legacy.size() < legacyCount;
            boolean hasEngine = i == engineAt;
            ObjectNode c = contract(random, leaf, isLegacy, hasEngine, seed);
            if (isLegacy) {
                legacy.add(rel);
            }
            if (hasEngine) {
                engine = rel;
            }
            if (Instant.parse(c.get("deadline").asText()).isBefore(EPOCH)) {
                overdue.add(rel);
            }
            writes.submit(file, (writer.writeValueAsString(c) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        } finally {
            writes.finish();
        }

        Path target = layout.targetsDir().resolve("demo");
        Files.createDirectories(target);
        ObjectNode t = mapper.createObjectNode();
        t.putObject("source").put("dir", ".");
        t.put("extras", "all");
        write(target.resolve("target.json"), t);
        copyResource("pyproject.toml", target.resolve("pyproject.toml"));
        copyResource("uv.lock", target.resolve("uv.lock"));
        copyResource("servers.json", layout.serversFile());
        // The demo's servers are Kiln's bundled stdlib-only server, so probing the demo works offline.
        Path servers = layout.root().resolve("servers");
        Files.createDirectories(servers);
        Files.write(servers.resolve(DemoServer.FILE_NAME), DemoServer.script());

        return new DemoSummary(layout.root(), count, seed, List.copyOf(legacy), malformed, engine, List.copyOf(overdue));
    }

    private static String leafPath(Random r, int n) {
        int depth = 2 + r.nextInt(3); // 2–4 levels under tasks/
        StringBuilder b = new StringBuilder(AREAS[r.nextInt(AREAS.length)]);
        if (depth >= 3) {
            b.append('/').append(PROJECTS[r.nextInt(PROJECTS.length)]);
        }
        if (depth == 4) {
            b.append('/').append("q").append(1 + r.nextInt(4));
        }
        b.append('/').append(LEAVES[r.nextInt(LEAVES.length)]).append('-').append(Integer.toString(n, 36));
        return b.toString();
    }

    private ObjectNode contract(Random r, String leaf, boolean legacy, boolean engine, long seed) {
        ObjectNode c = mapper.createObjectNode();
        String stem = leaf.substring(leaf.lastIndexOf('/') + 1);
        c.put("leaf_id", legacy ? stem : leaf);
        c.put("title", VERBS[r.nextInt(VERBS.length)] + " " + stem.replace('-', ' '));
        c.put("status", STATUSES[r.nextInt(STATUSES.length)]);
        ArrayNode enclosure = c.putArray("enclosure");
        int paths = 1 + r.nextInt(3);
        for (int p = 0; p < paths; p++) {
            enclosure.add("src/" + leaf.substring(0, leaf.indexOf('/')) + "/" + stem + (p == 0 ? "" : "/part" + p));
        }
        if (engine) {
            c.putObject("engine")
                    .put("pid", 40_000 + (int) Math.floorMod(seed, 20_000L))
                    .put("command", "python -m worker --leaf " + leaf)
                    .put("started_at", EPOCH.plus(2, ChronoUnit.HOURS).toString());
        } else {
            c.putNull("engine");
        }
        // A quarter of deadlines are past; the rest are well in the future.
        long days = r.nextInt(4) == 0 ? -(1 + r.nextInt(60)) : 3_000 + r.nextInt(500);
        c.put("deadline", EPOCH.plus(days, ChronoUnit.DAYS).toString());
        c.put("updated_at", EPOCH.minus(r.nextInt(10_000), ChronoUnit.MINUTES).toString());
        if (r.nextInt(10) == 0) {
            // Fields Kiln does not know must survive a heal; the demo carries some.
            c.putObject("x_owner").put("team", AREAS[r.nextInt(AREAS.length)]).put("oncall", "pager-" + r.nextInt(9));
        }
        return c;
    }

    /**
     * The contract files' writes, on a few threads: at 100,000 contracts the demo is mkdir + create + write per file,
     * bound by file-system latency, not CPU. The bytes are made in order on the caller's thread (the tree stays
     * byte-identical for a seed); only the writes overlap, at most a bounded number queued.
     */
    private static final class Writes {
        private final java.util.concurrent.ThreadPoolExecutor pool;
        private final java.util.concurrent.atomic.AtomicReference<@org.jspecify.annotations.Nullable IOException> failure = new java.util.concurrent.atomic.AtomicReference<>();

        Writes(int count) {
            int threads = count < 2_000 ? 1 : 4;
            pool = new java.util.concurrent.ThreadPoolExecutor(threads, threads, 0, java.util.concurrent.TimeUnit.SECONDS,
                    new java.util.concurrent.ArrayBlockingQueue<>(1_024), r -> {
                        Thread t = new Thread(r, "kiln-demo-write");
                        t.setDaemon(true);
                        return t;
                    }, new java.util.concurrent.ThreadPoolExecutor.CallerRunsPolicy());
        }

        void submit(Path file, byte[] bytes) throws IOException {
            IOException f = failure.get();
            if (f != null) {
                throw f;
            }
            pool.execute(() -> {
                try {
                    Files.createDirectories(file.getParent());
                    Files.write(file, bytes);
                } catch (IOException e) {
                    failure.compareAndSet(null, e);
                }
            });
        }

        /** Waits for every write; throws the first failure. */
        void finish() throws IOException {
            pool.shutdown();
            try {
                if (!pool.awaitTermination(1, java.util.concurrent.TimeUnit.HOURS)) {
                    throw new IOException("the demo's writes did not finish within an hour");
                }
            } catch (InterruptedException e) {
                pool.shutdownNow();
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while writing the demo");
            }
            IOException f = failure.get();
            if (f != null) {
                throw f;
            }
        }
    }

    private void write(Path file, ObjectNode node) throws IOException {
        Files.writeString(file, writer.writeValueAsString(node) + "\n", StandardCharsets.UTF_8);
    }

    private static void copyResource(String name, Path to) throws IOException {
        try (InputStream in = DemoWorkspace.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new UncheckedIOException(new IOException("demo resource missing from the build: " + name));
            }
            Files.write(to, in.readAllBytes());
        }
    }
}
