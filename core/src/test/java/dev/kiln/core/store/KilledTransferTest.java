package dev.kiln.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.SeedFixtures;
import dev.kiln.testkit.ProcessTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A push or pull killed halfway, for real: a child JVM moving a large seed through a real SeaweedFS is SIGKILLed while
 * the bytes are on the wire. The killed push leaves nothing a pull would take (no manifest: the pull refuses and the
 * other host's seed stays); the killed pull leaves the local seed exactly as it was.
 */
@ProcessTest
class KilledTransferTest {
    private static final int BIG = 40 << 20; // random: gzip cannot shrink it, so the upload takes a while on loopback

    @TempDir
    Path tmp;

    /** Starts the child, waits for "moving", lets it move bytes for {@code afterMs}, then SIGKILLs it; whether it was still moving. */
    private static boolean killMidway(String op, Path ws, String target, long afterMs) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), TransferChild.class.getName(), op, ws.toString(), target);
        pb.environment().keySet().removeIf(k -> k.startsWith("AWS_"));
        pb.environment().putAll(SeaweedFs.env());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null && !line.equals("moving")) {
                // logging before the transfer
            }
            assertThat(line).as("the child started moving").isEqualTo("moving");
            Thread.sleep(afterMs);
            boolean alive = p.isAlive();
            p.destroyForcibly(); // SIGKILL: no finally, no shutdown hook runs
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            return alive;
        }
    }

    @Test
    void pushKilledHalfway_leavesNoManifest_soAPullRefusesAndTheOtherHostKeepsItsSeed_pullKilledHalfway_keepsTheLocalSeed()
            throws Exception {
        try (SeaweedFs fs = SeaweedFs.shared()) {
            StoreConfig cfg = fs.config("killed");
            SeedCaches a = StoreFixtures.workspace(tmp.resolve("a"), "app", cfg);
            SeedCaches b = StoreFixtures.workspace(tmp.resolve("b"), "app", cfg);
            StoreFixtures.seed(a, "app", 50, BIG, "host-a");
            StoreFixtures.seed(b, "app", 30, 0, "host-b");
            Map<String, String> bBefore = SeedFixtures.digest(b.seedDir("app"));
            try (ObjectStore store = StoreFixtures.store(fs, cfg)) {
                StoreKey key = StoreKey.seed("app", a.plan("app").hash());

                boolean pushWasMoving = killMidway("push", tmp.resolve("a"), "app", 1500);
                assertThat(pushWasMoving).as("the push was killed while it ran (1.5 s into packing and uploading 40 MiB)").isTrue();
                assertThat(store.manifest(key)).as("a killed push names no object").isEmpty();
                assertThatThrownBy(() -> store.pullSeed(b, "app", Cancellation.create()))
                        .isInstanceOf(StoreException.class).hasMessageContaining("no seed of app");
                assertThat(SeedFixtures.digest(b.seedDir("app"))).isEqualTo(bBefore);

                // now a complete push, and a pull of it onto b killed while it downloads
                assertThat(store.pushSeed(a, "app").outcome()).isEqualTo(Transfer.Outcome.PUSHED);
                boolean pullWasMoving = killMidway("pull", tmp.resolve("b"), "app", 700);
                assertThat(pullWasMoving).as("the pull was killed while it ran").isTrue();
                assertThat(SeedFixtures.digest(b.seedDir("app"))).as("b's seed as it was").isEqualTo(bBefore);
                assertThat(b.seeds().get(0).current()).isTrue();
                List<String> left = new java.util.ArrayList<>();
                try (var s = java.nio.file.Files.list(b.seedsDir())) {
                    s.forEach(f -> left.add(f.getFileName().toString()));
                }
                assertThat(left).contains("app");

                // and a pull that runs to its end still installs the store's copy over the leftovers
                assertThat(store.pullSeed(b, "app", Cancellation.create()).outcome()).isEqualTo(Transfer.Outcome.PULLED);
                assertThat(SeedFixtures.digest(b.seedDir("app"))).isEqualTo(SeedFixtures.digest(a.seedDir("app")));
            }
        }
    }
}
