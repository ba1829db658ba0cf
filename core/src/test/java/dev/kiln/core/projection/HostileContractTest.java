package dev.kiln.core.projection;

import static dev.kiln.core.snapshot.TestTrees.contract;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.snapshot.SnapshotFailure;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19, defects 2 and 3: contracts a local attacker swaps in — a symlink to the API token, a FIFO renamed over a
 * contract — are real files here (real symlinks, real {@code mkfifo}), projected by a real {@link Projector}.
 */
@ProcessTest @KernelTest
class HostileContractTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Starts with a letter, so Jackson's "Unrecognized token" message used to quote all of it. */
    private static final String TOKEN = "kilnSecretToken7f3a9c2e4b6d8f0a1c3e5b7d9f2a4c6e";

    @TempDir
    Path root;

    private WorkspaceLayout ws() {
        return WorkspaceLayout.of(root);
    }

    private Path token() throws Exception {
        Path t = ws().apiTokenFile();
        Files.createDirectories(t.getParent());
        Files.writeString(t, TOKEN + "\n");
        Files.setPosixFilePermissions(t, PosixFilePermissions.fromString("rw-------"));
        return t;
    }

    /** No run of 6 characters of the token anywhere in {@code text}. */
    private static void assertNoPieceOfTheToken(String text) {
        for (int i = 0; i + 6 <= TOKEN.length(); i++) {
            assertThat(text).doesNotContain(TOKEN.substring(i, i + 6));
        }
    }

    @Test
    void tick_contractSymlinkedToTheApiToken_refusedAndNoByteOfItInStateJson() throws Exception {
        Path token = token();
        contract(ws().tasksDir(), "team/good", "running");
        Path link = ws().tasksDir().resolve("team/evil/contract.json");
        Files.createDirectories(link.getParent());
        Files.createSymbolicLink(link, link.getParent().relativize(token));

        TickResult r = Projector.builder(ws()).build().tick(WakeReason.STARTUP);

        String state = Files.readString(ws().stateFile(), StandardCharsets.UTF_8);
        assertNoPieceOfTheToken(state);
        JsonNode failure = JSON.readTree(state).get("failures").get(0);
        assertThat(failure.get("path").asText()).isEqualTo("team/evil/contract.json");
        assertThat(failure.get("kind").asText()).isEqualTo("refused");
        assertThat(failure.get("reason").asText()).contains("symbolic link");
        assertThat(r.leaves()).isEqualTo(1);
    }

    @Test
    void tick_tokenBytesInARegularContract_failureSaysLineAndColumnNotTheBytes() throws Exception {
        // A hard link, a copy, a careless `cp`: the file is regular, so it is read; its failure still quotes nothing.
        Path file = ws().tasksDir().resolve("team/pasted/contract.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, TOKEN + "\n");

        Projector.builder(ws()).build().tick(WakeReason.STARTUP);

        String state = Files.readString(ws().stateFile(), StandardCharsets.UTF_8);
        assertNoPieceOfTheToken(state);
        JsonNode failure = JSON.readTree(state).get("failures").get(0);
        assertThat(failure.get("kind").asText()).isEqualTo("malformed");
        assertThat(failure.get("reason").asText()).contains("line 1, column").contains("not a JSON value");
    }

    @Test
    void tick_contractSymlinkStayingInsideTasks_refusedLikeAnyOther() throws Exception {
        Path target = contract(ws().tasksDir(), "team/real", "running");
        Path link = ws().tasksDir().resolve("team/alias/contract.json");
        Files.createDirectories(link.getParent());
        Files.createSymbolicLink(link, link.getParent().relativize(target));

        Projector p = Projector.builder(ws()).build();
        p.tick(WakeReason.STARTUP);
        p.tick(WakeReason.HEARTBEAT); // the same answer again: a refusal is not cached away

        assertThat(p.snapshot().byLeafId()).containsOnlyKeys("team/real");
        assertThat(p.snapshot().failures()).singleElement().satisfies(f -> {
            assertThat(f.path()).isEqualTo("team/alias/contract.json");
            assertThat(f.kind().name()).isEqualTo("REFUSED");
        });
    }

    @Test
    void tick_fifoAsContract_reportedAsRefusedNamingThePath() throws Exception {
        Path fifo = ws().tasksDir().resolve("team/pipe/contract.json");
        Files.createDirectories(fifo.getParent());
        mkfifo(fifo);

        List<SnapshotFailure> failures = assertTimeoutPreemptively(Duration.ofSeconds(60),
                () -> {
                    Projector p = Projector.builder(ws()).build();
                    p.tick(WakeReason.STARTUP);
                    return p.snapshot().failures();
                });

        assertThat(failures).singleElement().satisfies(f -> {
            assertThat(f.path()).isEqualTo("team/pipe/contract.json");
            assertThat(f.kind().name()).isEqualTo("REFUSED");
            assertThat(f.reason()).contains("not a regular file");
        });
    }

    /**
     * The attack: a regular file and a FIFO renamed over one contract in a loop while the projector ticks.
     * Every tick must finish (a blocked open used to wedge the projector for good); the FIFO, when the race is won,
     * is a failure naming the path, and the regular file is read whenever it is in place.
     */
    @Test
    void tick_fifoAndFileRenamedOverAContractInALoop_everyTickFinishes() throws Exception {
        contract(ws().tasksDir(), "team/steady", "running");
        Path target = contract(ws().tasksDir(), "team/swapped", "running");
        Path dir = target.getParent();
        // One FIFO and one regular file, hard-linked in turn and renamed over the contract: a swap every few µs.
        Path fifo = dir.resolve(".the-fifo");
        mkfifo(fifo);
        Path regular = dir.resolve(".the-file");
        Files.copy(target, regular);
        Projector p = Projector.builder(ws()).parseCache(false).build(); // every tick re-reads, as after a real edit
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> swapErrors = new ArrayList<>();
        Thread swapper = new Thread(() -> {
            try {
                for (int i = 0; !stop.get(); i++) {
                    Path tmp = dir.resolve(".swap");
                    Files.createLink(tmp, i % 2 == 0 ? fifo : regular);
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                }
            } catch (Throwable t) {
                swapErrors.add(t);
            }
        }, "fifo-swapper");
        swapper.setDaemon(true);
        int[] seen = new int[2]; // [0] ticks that read the swapped contract, [1] ticks that reported it refused
        try {
            swapper.start();
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                for (int tick = 0; tick < 200 && (seen[0] == 0 || seen[1] == 0 || tick < 20); tick++) {
                    p.tick(WakeReason.CHANGE);
                    if (p.snapshot().byLeafId().containsKey("team/swapped")) {
                        seen[0]++;
                    }
                    for (SnapshotFailure f : p.snapshot().failures()) {
                        assertThat(f.path()).isEqualTo("team/swapped/contract.json");
                        assertThat(f.kind().name()).as(f.reason()).isIn("REFUSED");
                        seen[1]++;
                    }
                    assertThat(p.snapshot().byLeafId()).containsKey("team/steady");
                }
            });
        } finally {
            stop.set(true);
            swapper.join(10_000);
            // Opening the FIFO read-write never blocks and releases every open still waiting on it.
            try (var release = java.nio.channels.FileChannel.open(fifo, java.nio.file.StandardOpenOption.READ,
                    java.nio.file.StandardOpenOption.WRITE)) {
                Thread.sleep(100);
            }
        }
        assertThat(swapErrors).isEmpty();
        assertThat(seen[0]).as("ticks that read the regular file").isPositive();
        assertThat(seen[1]).as("ticks that reported the FIFO").isPositive();
    }

    static void mkfifo(Path p) throws Exception {
        Process mk = new ProcessBuilder("mkfifo", p.toString()).redirectErrorStream(true).start();
        assertThat(mk.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(mk.exitValue()).as(new String(mk.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
    }
}
