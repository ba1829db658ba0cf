package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.startup.ServerConfig;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import dev.kiln.testkit.SmallDisk;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server seed warmed onto a full disk (a real 4 MiB tmpfs): filled to the last byte, then with a little room left so
 * npm starts writing and runs out midway. Each time the warm fails with a message that names the server and says the
 * disk is full, and nothing is left in the seeds directory: no seed, no half-built one, nothing a later start could use.
 */
@ProcessTest
@KernelTest
class ServerSeedsDiskFullTest {
    @TempDir
    Path tmp;

    @Test
    void warm_diskFull_namesTheServerAndTheDisk_noHalfBuiltSeed() throws Exception {
        Assumptions.assumeTrue(SmallDisk.canMount(), "mounting a tmpfs needs root");
        Path mount = Files.createDirectories(tmp.resolve("small-disk"));
        SmallDisk.mount(mount, "4m");
        try {
            ServerSeeds seeds = ServerSeeds.of(SeedCaches.of(mount), System.getenv(), Clock.systemUTC());
            ServerConfig server = ServerConfig.stdio("memory", mount, "npx", List.of("-y", ServerSeedsProcessTest.SPEC),
                    Map.of("API_TOKEN", "s3cret"));
            ServerSeeds.Plan plan = seeds.plan(server); // pinned: asks node for its version, not the registry
            Path filler = SmallDisk.fill(mount.resolve("filler"));

            ServerSeeds.Seed full = seeds.warm(plan, Cancellation.create(), false);
            assertThat(full.outcome()).isEqualTo(WarmOutcome.FAILED);
            assertThat(full.message()).contains("server memory").contains("disk is full").doesNotContain("s3cret");
            assertThat(leftovers(mount)).as("nothing half-built in the seeds directory").isEmpty();

            try (RandomAccessFile f = new RandomAccessFile(filler.toFile(), "rw")) {
                f.setLength(Math.max(0, f.length() - 256 * 1024)); // room for the warm to start, not to finish
            }
            ServerSeeds.Seed midway = seeds.warm(plan, Cancellation.create(), false);
            assertThat(midway.outcome()).as(midway.message()).isEqualTo(WarmOutcome.FAILED);
            assertThat(midway.message()).contains("server memory").contains("disk is full");
            assertThat(leftovers(mount)).as("the warm's own directory removed, no seed swapped in").isEmpty();
            assertThat(seeds.find(plan)).isEmpty();
            assertThat(seeds.inventory(List.of(server))).singleElement()
                    .satisfies(i -> assertThat(i.state()).isEqualTo(ServerSeedInfo.State.MISSING));
        } finally {
            SmallDisk.unmount(mount);
        }
    }

    /** Every file under the server seeds' directory, warm directories and locks aside. */
    private static List<Path> leftovers(Path root) throws Exception {
        Path dir = SeedCaches.of(root).seedsDir().resolve(ServerSeeds.DIR);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> !p.equals(dir) && !p.getFileName().toString().endsWith(".lock")).toList();
        }
    }
}
