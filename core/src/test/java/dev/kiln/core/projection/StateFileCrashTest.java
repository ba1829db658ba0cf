package dev.kiln.core.projection;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.testkit.ProcessTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The state file's guarantees under a killed writer and under concurrent readers: every reader accepts what it
 * finds (a whole document of one revision), and the file never goes back to an older revision.
 */
@ProcessTest
class StateFileCrashTest {
    private static final int LEAVES = 600; // ~130 KB: a write takes long enough to be killed in the middle of it

    @TempDir
    Path dir;

    /** A whole document whose every leaf and meta belong to its revision; returns that revision. */
    static long acceptedRevision(byte[] bytes) throws IOException {
        JsonNode doc = StateDocument.MAPPER.readTree(bytes); // throws on a torn document
        long rev = doc.path("revision").asLong(-1);
        assertThat(rev).as("a revision in the head").isPositive();
        assertThat(doc.path("leaves")).as("every leaf").hasSize(LEAVES);
        for (JsonNode leaf : doc.path("leaves")) {
            assertThat(leaf.path("rev").asLong()).as("a leaf of another revision in revision %d", rev).isEqualTo(rev);
        }
        assertThat(doc.path("meta").path("rev").asLong()).as("the tail of another revision").isEqualTo(rev);
        return rev;
    }

    /**
     * A real second JVM writes revisions in a loop and is killed with SIGKILL at a random moment of its writing:
     * what it leaves is a whole document that every reader accepts. Five kills per write mode.
     */
    @ParameterizedTest
    @ValueSource(strings = {"behind", "sync"})
    void write_writerKilledWithSigkill_leavesADocumentEveryReaderAccepts(String mode) throws Exception {
        Path target = dir.resolve(mode).resolve("observer/state.json");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        java.util.Random rnd = new java.util.Random(17);
        long lastRev = 0;
        for (int kill = 0; kill < 5; kill++) {
            Process p = new ProcessBuilder(java, "-Xmx64m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                    StateWriterMain.class.getName(), target.toString(), mode, Integer.toString(LEAVES))
                    .redirectErrorStream(true).start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                String line = out.readLine();
                assertThat(line).as("the writer started").isEqualTo("ready");
                TimeUnit.MILLISECONDS.sleep(20 + rnd.nextInt(300)); // a random moment of its write loop, not a check
            } finally {
                p.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no flush, no cleanup
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(p.exitValue()).as("killed by SIGKILL").isEqualTo(137);
            long rev = acceptedRevision(Files.readAllBytes(target));
            assertThat(rev).as("each writer starts over at 1 and writes on; the file holds a whole one").isPositive();
            lastRev = rev;
        }
        assertThat(lastRev).isPositive();
        try (var s = Files.list(target.getParent())) {
            assertThat(s.map(f -> f.getFileName().toString()))
                    .as("a kill leaves at most temp files beside the document, never a second document")
                    .allMatch(n -> n.equals("state.json") || n.endsWith(".tmp") || n.endsWith(".old"));
        }
    }

    /**
     * A reader thread parses the file in a loop while revisions are written, large ones behind the tick and small
     * ones in it, interleaved: it never sees a torn or mixed document, never an older revision after a newer
     * one, and the newest revision is the one in place after {@link StateFile#flush}.
     */
    @Test
    void write_readerParsingInALoop_neverSeesMixedOrOlderRevisions() throws Exception {
        Path target = dir.resolve("observer/state.json");
        // documents above 100 KB go behind: LEAVES leaves are above it; a third of the revisions are made small
        StateFile f = StateFile.writtenBehind(target, 100_000, Duration.ZERO);
        f.write(StateWriterMain.document(1, LEAVES));
        f.flush();
        AtomicBoolean done = new AtomicBoolean();
        List<Throwable> problems = new CopyOnWriteArrayList<>();
        List<Long> seen = new ArrayList<>();
        Thread reader = new Thread(() -> {
            long last = 0;
            try {
                while (!done.get() || seen.size() < 10) {
                    byte[] b = Files.readAllBytes(target);
                    JsonNode doc = StateDocument.MAPPER.readTree(b);
                    long rev = doc.path("revision").asLong();
                    if (rev % 3 == 0) {
                        assertThat(doc.path("leaves")).hasSize(3);
                        for (JsonNode leaf : doc.path("leaves")) {
                            assertThat(leaf.path("rev").asLong()).isEqualTo(rev);
                        }
                    } else {
                        acceptedRevision(b);
                    }
                    assertThat(rev).as("the file never goes back").isGreaterThanOrEqualTo(last);
                    last = rev;
                    seen.add(rev);
                }
            } catch (Throwable t) {
                problems.add(t);
            }
        }, "state-reader");
        reader.start();
        long revisions = 400;
        for (long rev = 2; rev <= revisions; rev++) {
            f.write(StateWriterMain.document(rev, rev % 3 == 0 ? 3 : LEAVES));
        }
        f.flush();
        done.set(true);
        reader.join(TimeUnit.MINUTES.toMillis(2));
        assertThat(problems).isEmpty();
        assertThat(seen).as("the reader read while revisions were written").hasSizeGreaterThanOrEqualTo(10);
        assertThat(StateDocument.revisionOf(Files.readAllBytes(target))).as("the newest revision wins").isEqualTo(revisions);
        assertThat(f.behindWrites()).as("large revisions went through the background writer").isPositive();
    }
}
