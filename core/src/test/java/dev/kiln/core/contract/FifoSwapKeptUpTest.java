package dev.kiln.core.contract;

import static dev.kiln.core.snapshot.TestTrees.contract;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.snapshot.SnapshotBuilder;
import dev.kiln.core.snapshot.SnapshotFailure;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, item 14: a workspace writer keeps renaming fresh FIFOs over a contract (each FIFO is unlinked by the next
 * rename, so no later open can reach it), tick after tick. Opens that met a FIFO used to stay blocked for good, and
 * once 32 were, every edited contract was refused, blamed on it. Real FIFOs ({@code mkfifo}), real snapshot builds.
 */
@KernelTest
@ProcessTest
class FifoSwapKeptUpTest {
    @TempDir
    Path root;

    @Test
    void build_freshFifosRenamedOverAContractForManyTicks_innocentEditReadAndNoOpenLeftBlocked() throws Exception {
        Duration before = OpenWatchdog.shared().releaseAfter();
        OpenWatchdog.shared().releaseAfter(Duration.ofMillis(50)); // a FIFO test takes a second, not minutes
        try {
            keepSwapping();
        } finally {
            OpenWatchdog.shared().releaseAfter(before);
        }
    }

    private void keepSwapping() throws Exception {
        Path tasks = root.resolve("tasks");
        Path innocent = contract(tasks, "team/innocent", "running");
        Path target = contract(tasks, "team/swapped", "running");
        Path dir = target.getParent();
        Path fifos = Files.createDirectories(dir.resolve(".fifos"));
        List<String> cmd = new ArrayList<>(List.of("mkfifo"));
        int supply = 4_000;
        for (int i = 0; i < supply; i++) {
            cmd.add(fifos.resolve("f" + i).toString());
        }
        run(cmd);
        Path regular = dir.resolve(".the-file");
        Files.copy(target, regular);
        long blockedBefore = threadsWaitingOnAFifo();

        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger swaps = new AtomicInteger();
        List<Throwable> swapErrors = new ArrayList<>();
        Thread swapper = new Thread(() -> {
            try {
                Path tmp = dir.resolve(".swap");
                for (int i = 0; i < supply && !stop.get(); i++) {
                    // a fresh FIFO in, held a moment, then a regular file renamed over it: the FIFO has no name left
                    Files.move(fifos.resolve("f" + i), target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    spin(20_000);
                    Files.createLink(tmp, regular);
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    swaps.incrementAndGet();
                    spin(200_000);
                }
            } catch (Throwable t) {
                swapErrors.add(t);
            }
        }, "fifo-swapper");
        swapper.setDaemon(true);
        SnapshotBuilder b = new SnapshotBuilder(tasks);
        int[] refused = {0};
        try {
            swapper.start();
            assertTimeoutPreemptively(Duration.ofSeconds(50), () -> {
                for (int tick = 0; tick < 3_000 && swapper.isAlive() && refused[0] < 15; tick++) {
                    b.invalidateAll(); // every tick re-reads, as after a real edit
                    ContractSnapshot s = b.build();
                    for (SnapshotFailure f : s.failures()) {
                        assertThat(f.path()).as(f.reason()).isEqualTo("team/swapped/contract.json");
                        assertThat(f.kind()).isEqualTo(SnapshotFailure.Kind.REFUSED);
                        refused[0]++;
                    }
                    assertThat(s.byLeafId()).containsKey("team/innocent");
                }
            });
        } finally {
            stop.set(true);
            swapper.join(10_000);
        }
        assertThat(swapErrors).isEmpty();
        assertThat(refused[0]).as("ticks that met the FIFO (of %d swaps)", swaps.get()).isPositive();

        // The writer stopped; the operator edits the innocent contract. It is read as edited, not refused.
        Files.writeString(innocent, Files.readString(innocent).replace("\"running\"", "\"done\""));
        ContractSnapshot after = assertTimeoutPreemptively(Duration.ofSeconds(30), b::build);
        assertThat(after.failures()).isEmpty();
        assertThat(after.byLeafId().get("team/innocent").contract().status()).isEqualTo("done");
        assertThat(after.byLeafId()).containsKey("team/swapped");
        // No thread of this JVM is left waiting in a FIFO's open (the kernel's wait_for_partner).
        Await.await("no open left blocked on a FIFO", () -> threadsWaitingOnAFifo() <= blockedBefore);
    }

    /** Threads of this JVM blocked in the open of a FIFO that has no writer. */
    static long threadsWaitingOnAFifo() {
        long n = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                try {
                    if (Files.readString(t.resolve("wchan"), StandardCharsets.UTF_8).trim().equals("wait_for_partner")) {
                        n++;
                    }
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list this JVM's threads", e);
        }
        return n;
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    private static void run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
    }
}
