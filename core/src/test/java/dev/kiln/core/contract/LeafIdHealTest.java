package dev.kiln.core.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.demo.DemoSummary;
import dev.kiln.core.demo.DemoWorkspace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeafIdHealTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path root;

    private Path tasks() {
        return root.resolve("tasks");
    }

    private Path write(String leaf, String json) throws IOException {
        Path f = tasks().resolve(leaf).resolve("contract.json");
        Files.createDirectories(f.getParent());
        Files.writeString(f, json);
        return f;
    }

    @Test
    void sweep_stemShapedId_isRewrittenKeepingUnknownFieldsOrderAndMode() throws Exception {
        Path f = write("payments/refunds/retry", """
                {"x_first": {"a": [1, 2.000000000000000000001]}, "leaf_id": "retry", "title": "Retry", "status": "running",
                 "enclosure": ["src/p"], "engine": null, "deadline": "2026-03-01T00:00:00Z", "x_owner": {"team": "payments"}}
                """);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r-----"));
        JsonNode before = JSON.readTree(f.toFile());

        HealReport r = LeafIdHeal.sweep(tasks(), false);

        assertThat(r.changes()).containsExactly(new HealReport.Change("payments/refunds/retry/contract.json", "retry", "payments/refunds/retry"));
        JsonNode after = JSON.readTree(f.toFile());
        assertThat(after.get("leaf_id").asText()).isEqualTo("payments/refunds/retry");
        ((com.fasterxml.jackson.databind.node.ObjectNode) before).put("leaf_id", "payments/refunds/retry");
        assertThat(after).isEqualTo(before);
        assertThat(Files.readString(f)).contains("2.000000000000000000001");
        assertThat(after.fieldNames()).toIterable().containsExactly("x_first", "leaf_id", "title", "status", "enclosure", "engine", "deadline", "x_owner");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).isEqualTo("rw-r-----");
    }

    @Test
    void sweep_secondRun_changesNothing() throws Exception {
        DemoSummary demo = new DemoWorkspace().write(root, 200, 7, false);
        assertThat(demo.legacyIds()).isNotEmpty();

        HealReport first = LeafIdHeal.sweep(tasks(), false);
        Map<String, String> afterFirst = digest(root);
        HealReport second = LeafIdHeal.sweep(tasks(), false);

        assertThat(first.changes()).extracting(c -> "tasks/" + c.file()).containsExactlyInAnyOrderElementsOf(demo.legacyIds());
        assertThat(second.changes()).isEmpty();
        assertThat(second.clean()).isTrue();
        assertThat(digest(root)).isEqualTo(afterFirst);
        assertThat(first.problems()).extracting(HealReport.Problem::file).containsExactly(demo.malformed().substring("tasks/".length()));
    }

    @Test
    void sweep_fullPathIdThatDisagreesWithLocation_isReportedMisplacedAndLeftAlone() throws Exception {
        Path f = write("payments/refunds/retry", "{\"leaf_id\": \"payments/ledger/retry\", \"title\": \"x\"}\n");
        Path g = write("search/index", "{\"leaf_id\": \"backfill\"}\n");
        String fBefore = Files.readString(f);
        String gBefore = Files.readString(g);

        HealReport r = LeafIdHeal.sweep(tasks(), false);

        assertThat(r.misplaced()).containsExactly(
                new HealReport.Misplaced("payments/refunds/retry/contract.json", "payments/ledger/retry", "payments/refunds/retry"),
                new HealReport.Misplaced("search/index/contract.json", "backfill", "search/index"));
        assertThat(r.changes()).isEmpty();
        assertThat(Files.readString(f)).isEqualTo(fBefore);
        assertThat(Files.readString(g)).isEqualTo(gBefore);
    }

    @Test
    void sweep_dryRun_listsEveryPlannedChangeAndLeavesEveryByteUnchanged() throws Exception {
        DemoSummary demo = new DemoWorkspace().write(root, 200, 11, false);
        Map<String, String> before = digest(root);

        HealReport dry = LeafIdHeal.sweep(tasks(), true);

        assertThat(digest(root)).isEqualTo(before);
        assertThat(dry.dryRun()).isTrue();
        assertThat(dry.changes()).hasSize(demo.legacyIds().size());
        HealReport real = LeafIdHeal.sweep(tasks(), false);
        assertThat(real.changes()).isEqualTo(dry.changes());
    }

    @Test
    void sweep_missingTasksDir_isAnEmptySweep() {
        HealReport r = LeafIdHeal.sweep(root.resolve("nope"), false);

        assertThat(r.scanned()).isZero();
        assertThat(r.changes()).isEmpty();
    }

    /**
     * A writer replaces the contract (temp file + rename, as editors and tools do) every 0.05 to 2 ms while heal
     * loops. Before each write the writer checks the file still holds its previous write (heal changes only
     * leaf_id), and a second reader looks all the time: a heal that put back an older version, even for a moment,
     * is a lost write for a tool that reads, changes and writes back (heal linked its version in before comparing
     * what it had taken aside, and failed this test once in CI).
     */
    @org.junit.jupiter.api.RepeatedTest(5) // a race: each run catches the old swap about one time in five
    void sweep_whileAnotherWriterReplacesTheContract_losesNoWrite() throws Exception {
        Path f = write("payments/refunds/retry", contract(0));
        int writes = 400;
        java.util.concurrent.atomic.AtomicInteger lost = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                for (int k = 1; k <= writes; k++) {
                    if (readN(f) != k - 1) {
                        lost.incrementAndGet();
                    }
                    Path tmp = f.resolveSibling(".writer.tmp");
                    Files.writeString(tmp, contract(k));
                    Files.move(tmp, f, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                    // From nearly back to back (a write lands inside heal's swap) to pauses long enough for a heal.
                    java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.ThreadLocalRandom.current().nextLong(50_000, 2_000_000));
                }
                if (readN(f) != writes) {
                    lost.incrementAndGet();
                }
            } catch (Throwable t) {
                failed.set(t);
            } finally {
                done.set(true);
            }
        }, "contract-writer");
        // A second reader looks all the time: the file must never go back to an older write, not even for a moment.
        java.util.concurrent.atomic.AtomicInteger wentBack = new java.util.concurrent.atomic.AtomicInteger();
        Thread watcher = new Thread(() -> {
            int newest = 0;
            try {
                while (!done.get()) {
                    int n = readN(f);
                    if (n < newest) {
                        wentBack.incrementAndGet();
                    }
                    newest = Math.max(newest, n);
                }
            } catch (Throwable t) {
                failed.compareAndSet(null, t);
            }
        }, "contract-watcher");
        writer.start();
        watcher.start();
        int healed = 0;
        int skipped = 0;
        while (!done.get()) {
            HealReport r = LeafIdHeal.sweep(tasks(), false);
            healed += r.changes().size();
            skipped += (int) r.problems().stream().filter(p -> p.reason().contains("changed while being healed")).count();
        }
        writer.join();
        watcher.join();

        assertThat(failed.get()).isNull();
        assertThat(healed).as("heals that rewrote the contract").isPositive();
        assertThat(lost.get()).as("writes put back to an older version by heal (%d heals, %d skipped)", healed, skipped).isZero();
        assertThat(wentBack.get()).as("times a reader saw an older write again (%d heals)", healed).isZero();
    }

    /**
     * The contract's "n"; heal's swap leaves it absent between a rename and a link (with a stat and a read of the
     * small file between them), which a reader simply retries: on a loaded machine heal's thread may be descheduled
     * in there for a few ms.
     */
    private static int readN(Path f) throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        while (true) {
            try {
                return JSON.readTree(Files.readAllBytes(f)).get("n").asInt();
            } catch (java.nio.file.NoSuchFileException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(20_000);
            }
        }
    }

    private static String contract(int n) {
        return "{\"leaf_id\": \"retry\", \"title\": \"Retry\", \"n\": " + n + "}\n";
    }

    @Test
    void sweep_readOnlyContract_isReportedAndNotRewritten() throws Exception {
        Path f = write("payments/refunds/retry", "{\"leaf_id\": \"retry\"}\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("r--r--r--"));
        Object inode = Files.getAttribute(f, "unix:ino");

        HealReport r = LeafIdHeal.sweep(tasks(), false);

        assertThat(r.changes()).isEmpty();
        assertThat(r.problems()).singleElement().satisfies(p -> {
            assertThat(p.file()).isEqualTo("payments/refunds/retry/contract.json");
            assertThat(p.reason()).contains("read-only").contains("\"payments/refunds/retry\"");
        });
        assertThat(Files.readString(f)).isEqualTo("{\"leaf_id\": \"retry\"}\n");
        assertThat(Files.getAttribute(f, "unix:ino")).isEqualTo(inode);
    }

    @Test
    void sweep_symlinkedContract_isReportedAndTheLinkKept() throws Exception {
        Path real = root.resolve("elsewhere/contract.json");
        Files.createDirectories(real.getParent());
        Files.writeString(real, "{\"leaf_id\": \"retry\"}\n");
        Path link = tasks().resolve("payments/refunds/retry/contract.json");
        Files.createDirectories(link.getParent());
        Files.createSymbolicLink(link, real);

        HealReport r = LeafIdHeal.sweep(tasks(), false);

        assertThat(r.changes()).isEmpty();
        assertThat(r.problems()).singleElement().satisfies(p -> assertThat(p.reason()).contains("symlink"));
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.readString(real)).isEqualTo("{\"leaf_id\": \"retry\"}\n");
    }

    /** Path → content hash + mode + mtime of every entry under {@code dir}, symlinks not followed. */
    static Map<String, String> digest(Path dir) throws Exception {
        Map<String, String> m = new TreeMap<>();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String meta = PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS))
                        + " " + Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis();
                String content = Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                        ? HexFormat.of().formatHex(sha.digest(Files.readAllBytes(p))) : "dir";
                m.put(dir.relativize(p).toString(), content + " " + meta);
            }
        }
        return m;
    }
}
