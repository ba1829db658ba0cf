package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.ProcessTest;
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
@ProcessTest
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

    /** A job controls its scratch dir: a directory there that is a link elsewhere is replaced, never followed. */
    @Test
    void copyInto_destinationDirIsALinkElsewhere_replacesTheLinkAndLeavesTheOutsideAlone(@TempDir Path dir) throws Exception {
        Path seed = Files.createDirectories(dir.resolve("seed/archive-v0"));
        Files.writeString(seed.resolve("entry.txt"), "seed");
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("entry.txt"), "precious");
        Files.writeString(outside.resolve("other.txt"), "untouched");
        Path scratch = Files.createDirectories(dir.resolve("job"));
        Files.createSymbolicLink(scratch.resolve("archive-v0"), outside);

        CopyReport r = SeedCaches.copyInto(dir.resolve("seed"), scratch, Clock.systemUTC());

        assertThat(Files.readString(outside.resolve("entry.txt"))).isEqualTo("precious");
        assertThat(Files.readString(outside.resolve("other.txt"))).isEqualTo("untouched");
        assertThat(scratch.resolve("archive-v0")).isDirectory();
        assertThat(Files.isSymbolicLink(scratch.resolve("archive-v0"))).isFalse();
        assertThat(Files.readString(scratch.resolve("archive-v0/entry.txt"))).isEqualTo("seed");
        assertThat(r.copied()).as(r.problem().orElse("")).isTrue();
    }

    /** A file name in the scratch dir that is a link to a file elsewhere: the link is replaced, the file kept. */
    @Test
    void copyInto_destinationFileIsALinkElsewhere_replacesTheLinkNotItsTarget(@TempDir Path dir) throws Exception {
        Path seed = Files.createDirectories(dir.resolve("seed"));
        Files.writeString(seed.resolve("small.txt"), "seed");
        Files.write(seed.resolve("large.bin"), new byte[200_000]);
        Files.writeString(dir.resolve("victim-small"), "precious");
        Files.writeString(dir.resolve("victim-large"), "precious too");
        Path scratch = Files.createDirectories(dir.resolve("job"));
        Files.createSymbolicLink(scratch.resolve("small.txt"), dir.resolve("victim-small"));
        Files.createSymbolicLink(scratch.resolve("large.bin"), dir.resolve("victim-large"));

        CopyReport r = SeedCaches.copyInto(seed, scratch, Clock.systemUTC());

        assertThat(r.copied()).as(r.problem().orElse("")).isTrue();
        assertThat(Files.readString(dir.resolve("victim-small"))).isEqualTo("precious");
        assertThat(Files.readString(dir.resolve("victim-large"))).isEqualTo("precious too");
        assertThat(Files.isSymbolicLink(scratch.resolve("small.txt"))).isFalse();
        assertThat(Files.readString(scratch.resolve("small.txt"))).isEqualTo("seed");
        assertThat(Files.size(scratch.resolve("large.bin"))).isEqualTo(200_000);
    }

    /** SCRATCH itself a link into the seed: the real paths overlap, so nothing is copied and the seed is intact. */
    @Test
    void copyInto_scratchIsALinkIntoTheSeed_isRefusedAndTheSeedIsUnchanged(@TempDir Path dir) throws Exception {
        Path seed = Files.createDirectories(dir.resolve("seed/sub"));
        Files.writeString(seed.resolve("f.txt"), "x");
        Path link = Files.createSymbolicLink(dir.resolve("scratch"), seed);
        var before = SeedFixtures.digest(dir.resolve("seed"));

        CopyReport r = SeedCaches.copyInto(dir.resolve("seed"), link.resolve("nested"), Clock.systemUTC());
        CopyReport same = SeedCaches.copyInto(dir.resolve("seed"), link, Clock.systemUTC());

        assertThat(r.refused()).isTrue();
        assertThat(r.problem()).hasValueSatisfying(p -> assertThat(p).contains("overlap"));
        assertThat(same.refused()).isTrue();
        assertThat(SeedFixtures.digest(dir.resolve("seed"))).isEqualTo(before);
        assertThat(seed.resolve("nested")).doesNotExist();
    }

    /** The seed inside SCRATCH, reached through a link: refused too (the copy would copy into what it reads). */
    @Test
    void copyInto_seedInsideScratchThroughALink_isRefused(@TempDir Path dir) throws Exception {
        Path seed = Files.createDirectories(dir.resolve("real/seed"));
        Files.writeString(seed.resolve("f.txt"), "x");
        Path scratch = Files.createSymbolicLink(dir.resolve("scratch"), dir.resolve("real"));

        CopyReport r = SeedCaches.copyInto(seed, scratch, Clock.systemUTC());

        assertThat(r.refused()).isTrue();
        assertThat(r.copied()).isFalse();
        assertThat(r.problem()).hasValueSatisfying(p -> assertThat(p).contains("overlap"));
        try (var s = Files.list(dir.resolve("real"))) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("seed");
        }
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
