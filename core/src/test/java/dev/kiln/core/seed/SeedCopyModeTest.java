package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The copy's mode: the kernel path by default, and the buffered fallback when the kernel refuses (a filesystem's
 * EOPNOTSUPP cannot be provoked on this machine's ext4 and tmpfs, which both accept copy_file_range and sendfile,
 * so the refusal is injected at the one seam the copier has), with the same bytes either way.
 */
class SeedCopyModeTest {
    private static Path seed(Path dir) throws IOException {
        Path seed = dir.resolve("seed");
        Files.createDirectories(seed.resolve("a/b/c"));
        Random r = new Random(7);
        int i = 0;
        for (int size : new int[] {0, 1, 4_096, 65_536, 200_001}) {
            byte[] b = new byte[size];
            r.nextBytes(b);
            Files.write(seed.resolve("f" + size), b);
            Files.write(seed.resolve("a/b/c/g" + (i++)), b);
        }
        return seed;
    }

    @Test
    void copy_byDefault_isKernelModeWithTheSameBytes(@TempDir Path dir) throws Exception {
        Path seed = seed(dir);

        CopyReport c = SeedCaches.copyInto(seed, dir.resolve("job"), Clock.systemUTC());

        assertThat(c.copied()).as(c.problem().orElse("")).isTrue();
        assertThat(c.mode()).isEqualTo(CopyMode.KERNEL);
        assertThat(c.files()).isEqualTo(10);
        assertThat(c.bytes()).isEqualTo(2 * (1 + 4_096 + 65_536 + 200_001));
        assertThat(SeedFixtures.digest(dir.resolve("job"))).isEqualTo(SeedFixtures.digest(seed));
    }

    @Test
    void copy_kernelRefusesPartWayThroughAFile_fallsBackToStreamForThatFileAndTheRest(@TempDir Path dir) throws Exception {
        Path seed = seed(dir);
        AtomicInteger refusals = new AtomicInteger();
        AtomicInteger askedAfterRefusal = new AtomicInteger();
        // The first large file: 1,000 bytes go through the kernel, then it refuses as a filesystem without
        // copy_file_range does; the copier must resume from byte 1,000, not restart or skip.
        SeedCopier.Transfer refusing = (in, position, count, out) -> {
            if (refusals.get() > 0) {
                askedAfterRefusal.incrementAndGet();
            }
            if (position == 0 && count > 100_000) {
                long n = in.transferTo(0, 1_000, out);
                assertThat(n).isEqualTo(1_000);
                return n;
            }
            if (position == 1_000) {
                refusals.incrementAndGet();
                throw new IOException("Operation not supported");
            }
            return in.transferTo(position, count, out);
        };

        CopyReport c = SeedCopier.copy(seed, dir.resolve("job"), Clock.systemUTC(), CopyMode.KERNEL, refusing);

        assertThat(c.copied()).as(c.problem().orElse("")).isTrue();
        assertThat(c.mode()).isEqualTo(CopyMode.STREAM);
        assertThat(c.problem()).isEmpty();
        assertThat(SeedFixtures.digest(dir.resolve("job"))).isEqualTo(SeedFixtures.digest(seed));
        assertThat(c.bytes()).isEqualTo(2 * (1 + 4_096 + 65_536 + 200_001));
        // Once refused, the kernel is not asked again for the files after it.
        assertThat(refusals.get()).isEqualTo(1);
        assertThat(askedAfterRefusal.get()).isZero();
    }

    @Test
    void copy_streamPreferred_neverAsksTheKernel(@TempDir Path dir) throws Exception {
        Path seed = seed(dir);
        SeedCopier.Transfer never = (in, position, count, out) -> {
            throw new AssertionError("the kernel path was used in stream mode");
        };

        CopyReport c = SeedCopier.copy(seed, dir.resolve("job"), Clock.systemUTC(), CopyMode.STREAM, never);

        assertThat(c.copied()).as(c.problem().orElse("")).isTrue();
        assertThat(c.mode()).isEqualTo(CopyMode.STREAM);
        assertThat(SeedFixtures.digest(dir.resolve("job"))).isEqualTo(SeedFixtures.digest(seed));
    }

    /** The mode travels in the seed_copied event as its lower_snake label, and reads back. */
    @Test
    void copyMode_onTheWire_isItsLabel() throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();

        assertThat(json.writeValueAsString(CopyMode.KERNEL)).isEqualTo("\"kernel\"");
        assertThat(json.readValue("\"stream\"", CopyMode.class)).isEqualTo(CopyMode.STREAM);
    }
}
