package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Copying a real warmed seed into a job's scratch cache, and a job installing from it offline. */
class SeedCopyTest {
    @TempDir
    static Path shared;

    static Path ws;
    static SeedCaches seeds;

    @BeforeAll
    static void warmOnce() throws Exception {
        ws = SeedFixtures.workspace(shared.resolve("ws"));
        SeedFixtures.target(ws, "app", "small");
        seeds = SeedCaches.of(ws);
        WarmResult r = seeds.warm("app", Cancellation.create());
        assertThat(r.outcome()).as(r.message()).isEqualTo(WarmOutcome.WARMED);
    }

    @Test
    void copyInto_warmedSeed_copiesEveryFileAsANewInodeWithOneLink(@TempDir Path job) throws Exception {
        Path scratch = job.resolve("cache");

        CopyReport r = seeds.copyInto("app", scratch);

        assertThat(r.copied()).as(r.problem().orElse("")).isTrue();
        assertThat(r.files()).isPositive();
        List<Path> copied = regularFiles(scratch);
        assertThat(copied).hasSize((int) r.files());
        Path seed = seeds.seedDir("app");
        for (Path f : copied) {
            Path original = seed.resolve(scratch.relativize(f).toString());
            assertThat((Integer) Files.getAttribute(f, "unix:nlink", LinkOption.NOFOLLOW_LINKS)).as(f.toString()).isEqualTo(1);
            assertThat(Files.getAttribute(f, "unix:ino")).as(f.toString()).isNotEqualTo(Files.getAttribute(original, "unix:ino"));
            assertThat(Files.readAllBytes(f)).isEqualTo(Files.readAllBytes(original));
        }
        // The seed's own bookkeeping stays with the seed.
        assertThat(scratch.resolve(".kiln-seed-hash")).doesNotExist();
        assertThat(scratch.resolve("kiln-seed.json")).doesNotExist();
    }

    @Test
    void copyInto_uvsInternalLinks_resolveInsideTheCopyNeverIntoTheSeed(@TempDir Path job) throws Exception {
        Path scratch = job.resolve("cache");

        CopyReport r = seeds.copyInto("app", scratch);

        assertThat(r.links()).as("uv links wheel entries to archives").isPositive();
        List<Path> links = new ArrayList<>();
        try (var s = Files.walk(scratch)) {
            s.filter(Files::isSymbolicLink).forEach(links::add);
        }
        assertThat(links).hasSize((int) r.links());
        for (Path l : links) {
            assertThat(Files.readSymbolicLink(l).isAbsolute()).isFalse();
            assertThat(l.toRealPath()).startsWith(scratch.toRealPath());
        }
    }

    @Test
    void copyInto_thenJobSyncsOffline_installsFromTheCopyAlone(@TempDir Path job) throws Exception {
        Path scratch = job.resolve("cache");
        assertThat(seeds.copyInto("app", scratch).copied()).isTrue();

        SeedFixtures.Exit withSeed = SeedFixtures.jobSyncOffline(ws.resolve("targets/app"), scratch, job.resolve("with"));
        SeedFixtures.Exit empty = SeedFixtures.jobSyncOffline(ws.resolve("targets/app"),
                Files.createDirectories(job.resolve("empty-cache")), job.resolve("without"));

        assertThat(withSeed.code()).as(withSeed.output()).isZero();
        assertThat(withSeed.output()).contains("+ six==1.16.0", "+ idna==3.6");
        assertThat(empty.code()).as(empty.output()).isNotZero();
        assertThat(empty.output()).contains("Network connectivity is disabled");
    }

    @Test
    void copyInto_missingSeed_reportsAndDoesNotThrow(@TempDir Path job) {
        CopyReport r = SeedCaches.copyInto(job.resolve("no-seed"), job.resolve("cache"), Clock.systemUTC());

        assertThat(r.copied()).isFalse();
        assertThat(r.problem()).hasValueSatisfying(p -> assertThat(p).contains("no seed at").contains("proceeds without it"));
    }

    @Test
    void copyInto_scratchInsideTheSeed_isRefused() {
        Path seed = seeds.seedDir("app");

        CopyReport r = SeedCaches.copyInto(seed, seed.resolve("nested"), Clock.systemUTC());

        assertThat(r.copied()).isFalse();
        assertThat(r.problem()).hasValueSatisfying(p -> assertThat(p).contains("overlap"));
        assertThat(seed.resolve("nested")).doesNotExist();
    }

    @Test
    void copyInto_linkLeavingTheSeed_isNotRecreatedAndIsReported(@TempDir Path dir) throws Exception {
        Path seed = Files.createDirectories(dir.resolve("seed/wheels"));
        Files.writeString(dir.resolve("seed/data.txt"), "x");
        Files.writeString(dir.resolve("secret.txt"), "host file");
        Files.createSymbolicLink(seed.resolve("escape"), Path.of("../../secret.txt"));
        Files.createSymbolicLink(seed.resolve("inside"), Path.of("../data.txt"));

        CopyReport r = SeedCaches.copyInto(dir.resolve("seed"), dir.resolve("job"), Clock.systemUTC());

        assertThat(r.copied()).isFalse();
        assertThat(r.problem()).hasValueSatisfying(p -> assertThat(p).contains("wheels/escape -> ../../secret.txt leaves the seed"));
        assertThat(dir.resolve("job/wheels/escape")).doesNotExist();
        assertThat(Files.readString(dir.resolve("job/wheels/inside"))).isEqualTo("x");
        assertThat(r.files()).isEqualTo(1);
    }

    @Test
    void copyInto_filesOfEverySize_keepBytesAndModes(@TempDir Path dir) throws Exception {
        Path seed = dir.resolve("seed");
        Files.createDirectories(seed.resolve("bin"));
        java.util.Random r = new java.util.Random(3);
        for (int size : new int[] {0, 1, 65_535, 65_536, 65_537, 300_000}) {
            byte[] b = new byte[size];
            r.nextBytes(b);
            Files.write(seed.resolve("f" + size), b);
        }
        Files.writeString(seed.resolve("bin/tool"), "#!/bin/sh\necho hi\n");
        Files.setPosixFilePermissions(seed.resolve("bin/tool"), java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));

        CopyReport c = SeedCaches.copyInto(seed, dir.resolve("job"), Clock.systemUTC());

        assertThat(c.copied()).isTrue();
        assertThat(c.files()).isEqualTo(7);
        assertThat(SeedFixtures.digest(dir.resolve("job"))).isEqualTo(SeedFixtures.digest(seed));
        assertThat(Files.isExecutable(dir.resolve("job/bin/tool"))).isTrue();
        assertThat(Files.isExecutable(dir.resolve("job/f1"))).isFalse();
    }

    private static List<Path> regularFiles(Path root) throws Exception {
        List<Path> out = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile()) {
                    out.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return out;
    }
}
