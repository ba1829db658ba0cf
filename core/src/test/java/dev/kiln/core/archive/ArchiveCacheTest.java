package dev.kiln.core.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.archive.ArchiveCache.Policy;
import dev.kiln.core.archive.ArchiveEvent.EvictionCause;
import dev.kiln.core.archive.ArchiveEvent.MissCause;
import dev.kiln.core.telemetry.KilnEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ArchiveCacheTest {
    private static final List<String> MEMBERS = List.of("pyproject.toml", "README.md", "LICENSE", "pkg");
    private static final Instant NOW = Instant.parse("2026-03-04T05:06:07Z");

    @TempDir
    Path tmp;

    private final List<KilnEvent> events = new CopyOnWriteArrayList<>();

    private ArchiveCache cache(Policy policy) {
        return ArchiveCache.builder().policy(policy).eventSink(events::add)
                .clock(Clock.fixed(NOW, ZoneOffset.UTC)).build();
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void get_unchangedTree_hitServesTheSameArchive(Policy policy) throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        ArchiveCache cache = cache(policy);

        SourceArchive first = cache.get(root, MEMBERS);
        SourceArchive second = cache.get(root, MEMBERS);

        assertThat(second).isSameAs(first);
        ArchiveCacheStats s = cache.stats();
        assertThat(s.hits()).isEqualTo(1);
        assertThat(s.misses()).isEqualTo(1);
        assertThat(s.builds()).isEqualTo(1);
        assertThat(s.bytesHeld()).isEqualTo(first.size());
        assertThat(s.entriesHeld()).isEqualTo(1);
        assertThat(s.lastBuildNanos()).isPositive().isEqualTo(s.totalBuildNanos());
        assertThat(events).hasSize(3).allSatisfy(e -> assertThat(e.at()).isEqualTo(NOW));
        assertThat(events.get(0)).isInstanceOfSatisfying(ArchiveEvent.Miss.class, m -> assertThat(m.cause()).isEqualTo(MissCause.ABSENT));
        assertThat(events.get(1)).isInstanceOfSatisfying(ArchiveEvent.Built.class, b -> {
            assertThat(b.sha256()).isEqualTo(first.sha256());
            assertThat(b.stats().builds()).isEqualTo(1);
        });
        assertThat(events.get(2)).isInstanceOfSatisfying(ArchiveEvent.Hit.class,
                h -> assertThat(h.validated()).isEqualTo(policy == Policy.VALIDATED));
    }

    @Test
    void get_editedFileUnderValidated_rebuilds() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        ArchiveCache cache = cache(Policy.VALIDATED);
        SourceArchive before = cache.get(root, MEMBERS);

        Trees.write(root.resolve("pkg/core/engine.py"), "def run():\n    return 43\n"); // same size

        SourceArchive after = cache.get(root, MEMBERS);
        assertThat(after.sha256()).isNotEqualTo(before.sha256()).isEqualTo(SourceArchive.build(root, MEMBERS).sha256());
        assertThat(cache.stats().changesFound()).isEqualTo(1);
        assertThat(cache.stats().builds()).isEqualTo(2);
        assertThat(cache.stats().bytesHeld()).isEqualTo(after.size());
        assertThat(events).filteredOn(ArchiveEvent.Miss.class::isInstance).last()
                .isInstanceOfSatisfying(ArchiveEvent.Miss.class, m -> {
                    assertThat(m.cause()).isEqualTo(MissCause.CHANGED);
                    assertThat(m.change()).isEqualTo("pkg/core/engine.py changed");
                });
        assertThat(events).filteredOn(ArchiveEvent.Evicted.class::isInstance).singleElement()
                .isInstanceOfSatisfying(ArchiveEvent.Evicted.class, e -> assertThat(e.cause()).isEqualTo(EvictionCause.REPLACED));
    }

    @Test
    void get_newFileUnderValidated_rebuilds() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        ArchiveCache cache = cache(Policy.VALIDATED);
        SourceArchive before = cache.get(root, MEMBERS);

        Trees.write(root.resolve("pkg/core/added.py"), "NEW = True\n");

        assertThat(cache.get(root, MEMBERS).sha256()).isNotEqualTo(before.sha256());
        assertThat(lastMiss().change()).isEqualTo("pkg/core/added.py added");
    }

    @Test
    void get_deletedFileUnderValidated_rebuilds() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        ArchiveCache cache = cache(Policy.VALIDATED);
        SourceArchive before = cache.get(root, MEMBERS);

        Files.delete(root.resolve("pkg/core/engine.py"));

        assertThat(cache.get(root, MEMBERS).sha256()).isNotEqualTo(before.sha256());
        assertThat(lastMiss().change()).isEqualTo("pkg/core/engine.py deleted");
    }

    @Test
    void get_chmodExecutableUnderValidated_rebuilds() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        ArchiveCache cache = cache(Policy.VALIDATED);
        SourceArchive before = cache.get(root, MEMBERS);

        Files.setPosixFilePermissions(root.resolve("pkg/core/engine.py"),
                java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));

        assertThat(cache.get(root, MEMBERS).sha256()).isNotEqualTo(before.sha256());
    }

    @Test
    void get_rewriteKeepingSizeAndMtimeUnderValidated_rebuilds() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        Path engine = root.resolve("pkg/core/engine.py");
        java.nio.file.attribute.FileTime mtime = Files.getLastModifiedTime(engine);
        ArchiveCache cache = cache(Policy.VALIDATED);
        SourceArchive before = cache.get(root, MEMBERS);

        Files.writeString(engine, "def run():\n    return 24\n");
        Files.setLastModifiedTime(engine, mtime); // size and mtime pinned; ctime still moves

        assertThat(cache.get(root, MEMBERS).sha256()).isNotEqualTo(before.sha256());
    }

    @Test
    void get_editAddDeleteUnderSnapshot_servedFromCache() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        ArchiveCache cache = cache(Policy.SNAPSHOT);
        SourceArchive before = cache.get(root, MEMBERS);

        Trees.write(root.resolve("pkg/core/engine.py"), "def run():\n    return 43\n");
        Trees.write(root.resolve("pkg/core/added.py"), "NEW = True\n");
        Files.delete(root.resolve("pkg/__init__.py"));

        assertThat(cache.get(root, MEMBERS)).isSameAs(before);
        assertThat(cache.stats().builds()).isEqualTo(1);
        assertThat(cache.stats().changesFound()).isZero();
    }

    @Test
    void get_excludedFilesWrittenUnderValidated_stillHit() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        ArchiveCache cache = cache(Policy.VALIDATED);
        SourceArchive before = cache.get(root, MEMBERS);

        // What importing the package does: new bytecode next to the sources.
        Trees.write(root.resolve("pkg/core/__pycache__/extra.cpython-311.pyc"), "bytecode");
        Trees.write(root.resolve("pkg/__pycache__/new.cpython-311.pyc"), "bytecode");
        Trees.write(root.resolve("pkg/core/loose.pyc"), "bytecode");
        Trees.write(root.resolve("notes.txt"), "not a member either");

        assertThat(cache.get(root, MEMBERS)).isSameAs(before);
        assertThat(cache.stats().hits()).isEqualTo(1);
    }

    @Test
    void get_wholeRootNewTopLevelFile_rebuilds() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        ArchiveCache cache = cache(Policy.VALIDATED);
        SourceArchive before = cache.get(root);

        Trees.write(root.resolve("CHANGELOG.md"), "## 1.0\n");

        assertThat(cache.get(root).sha256()).isNotEqualTo(before.sha256());
        assertThat(lastMiss().change()).isEqualTo("CHANGELOG.md added");
    }

    @Test
    void get_twoSpellingsOfOneRoot_shareOneEntry() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        Path alias = Files.createSymbolicLink(tmp.resolve("alias"), root);
        ArchiveCache cache = cache(Policy.VALIDATED);

        SourceArchive a = cache.get(root, MEMBERS);
        SourceArchive b = cache.get(alias.resolve("."), List.of("pkg", "LICENSE", "README.md", "pyproject.toml", "pkg"));

        assertThat(b).isSameAs(a);
        assertThat(cache.stats().builds()).isEqualTo(1);
    }

    @Test
    void get_overTheByteBound_evictsLeastRecentlyUsedAndStaysUnder() throws IOException {
        List<Path> roots = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Path r = tmp.resolve("r" + i);
            Trees.synthetic(r, 12, i);
            roots.add(r);
        }
        long one = SourceArchive.build(roots.get(0)).size();
        ArchiveCache cache = ArchiveCache.builder().maximumBytes(one * 5 / 2).eventSink(events::add).build();

        cache.get(roots.get(0));
        cache.get(roots.get(1));
        cache.get(roots.get(0)); // r0 is now the most recently used
        cache.get(roots.get(2)); // over the bound: r1 goes

        ArchiveCacheStats s = cache.stats();
        assertThat(s.bytesHeld()).isLessThanOrEqualTo(cache.maximumBytes());
        assertThat(s.evictions()).isEqualTo(1);
        Path evictedRoot = roots.get(1).toRealPath();
        assertThat(events).filteredOn(ArchiveEvent.Evicted.class::isInstance).singleElement()
                .isInstanceOfSatisfying(ArchiveEvent.Evicted.class, e -> {
                    assertThat(e.root()).isEqualTo(evictedRoot);
                    assertThat(e.cause()).isEqualTo(EvictionCause.SIZE);
                });
        long builds = s.builds();
        cache.get(roots.get(0));
        assertThat(cache.stats().builds()).as("r0 was kept").isEqualTo(builds);
        cache.get(roots.get(1));
        assertThat(cache.stats().builds()).as("r1 was evicted").isEqualTo(builds + 1);
        assertThat(cache.stats().bytesHeld()).isLessThanOrEqualTo(cache.maximumBytes());
        cache.get(roots.get(3));
        assertThat(cache.stats().bytesHeld()).isLessThanOrEqualTo(cache.maximumBytes());
    }

    @Test
    void get_archiveLargerThanTheBound_servedButNotHeld() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        ArchiveCache cache = ArchiveCache.builder().maximumBytes(100).build();

        SourceArchive a = cache.get(root, MEMBERS);

        assertThat(a.size()).isGreaterThan(100);
        assertThat(cache.stats().bytesHeld()).isZero();
        assertThat(cache.stats().evictions()).isEqualTo(1);
        assertThat(cache.get(root, MEMBERS)).isNotSameAs(a);
    }

    /** Issue 25, item 18: an archive is built in memory, so a member set above the bound is refused before a build. */
    @Test
    void get_memberFilesAboveTheSourceBound_refusedBeforeAnyBuild_excludedFilesDoNotCount() throws IOException {
        Path root = tmp.resolve("big");
        Trees.write(root.resolve("src/a.txt"), "a".repeat(3000));
        Trees.write(root.resolve("src/b.txt"), "b".repeat(3000));
        Trees.write(root.resolve("src/__pycache__/huge.pyc"), "c".repeat(50_000)); // excluded: never archived
        ArchiveCache cache = cache(Policy.VALIDATED);

        assertThatThrownBy(() -> cache.get(root, List.of("src"), SourceArchive.DEFAULT_EXCLUDES, 5000))
                .isInstanceOf(ArchiveTooLargeException.class).hasMessageContaining("5000 bytes")
                .extracting(e -> ((ArchiveTooLargeException) e).limit()).isEqualTo(5000L);
        assertThat(cache.stats().builds()).isZero();
        assertThat(cache.stats().bytesHeld()).isZero();

        SourceArchive within = cache.get(root, List.of("src"), SourceArchive.DEFAULT_EXCLUDES, 6000);
        assertThat(within.files()).isEqualTo(2);
    }

    @Test
    void get_eightThreadsOneKey_buildOnceAndAllGetTheSameBytes() throws Exception {
        Path root = tmp.resolve("synthetic");
        Trees.synthetic(root, 120, 5);
        ArchiveCache cache = cache(Policy.VALIDATED);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<SourceArchive>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                results.add(pool.submit(() -> {
                    go.await();
                    return cache.get(root);
                }));
            }
            go.countDown();
            List<SourceArchive> got = new ArrayList<>();
            for (Future<SourceArchive> f : results) {
                got.add(f.get(60, TimeUnit.SECONDS));
            }

            assertThat(got).allSatisfy(a -> assertThat(a).isSameAs(got.get(0)));
            assertThat(cache.stats().builds()).isEqualTo(1);
            assertThat(cache.stats().requests()).isEqualTo(8);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void get_manyThreadsManyKeysUnderATightBound_correctBytesAndAccountingStaysExact() throws Exception {
        List<Path> roots = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Path r = tmp.resolve("k" + i);
            Trees.synthetic(r, 10, 20 + i);
            roots.add(r);
            expected.add(SourceArchive.build(r).sha256());
        }
        ArchiveCache cache = ArchiveCache.builder().maximumBytes(SourceArchive.build(roots.get(0)).size() * 2).build();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 40; i++) {
                        int k = (seed * 7 + i * 5) % 3;
                        assertThat(cache.get(roots.get(k)).sha256()).isEqualTo(expected.get(k));
                        assertThat(cache.stats().bytesHeld()).isLessThanOrEqualTo(cache.maximumBytes());
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        ArchiveCacheStats s = cache.stats();
        assertThat(s.requests()).isEqualTo(160);
        assertThat(s.evictions()).isPositive();
        assertThat(s.entriesHeld()).isBetween(1L, 2L);
        cache.invalidateAll(); // subtracts what it drops: zero only if every admit and eviction was counted exactly
        assertThat(cache.stats().bytesHeld()).isZero();
        assertThat(cache.stats().entriesHeld()).isZero();
    }

    @Test
    void get_failedBuild_notCachedAndRetriedNextTime() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        ArchiveCache cache = cache(Policy.VALIDATED);
        Files.createSymbolicLink(root.resolve("pkg/leak"), Path.of("../../elsewhere"));

        assertThatThrownBy(() -> cache.get(root, MEMBERS)).isInstanceOf(ArchiveException.class)
                .hasMessageContaining("points outside the root");
        assertThat(cache.stats().buildFailures()).isEqualTo(1);
        assertThat(events).last().isInstanceOf(ArchiveEvent.BuildFailed.class);

        Files.delete(root.resolve("pkg/leak"));
        assertThat(cache.get(root, MEMBERS).sha256()).isEqualTo(SourceArchive.build(root, MEMBERS).sha256());
        assertThat(cache.stats().builds()).isEqualTo(1);
    }

    @Test
    void get_rootDeletedAfterCaching_clearErrorUnderValidated() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        ArchiveCache cache = cache(Policy.VALIDATED);
        cache.get(root, MEMBERS);

        Files.move(root, tmp.resolve("moved"));

        assertThatThrownBy(() -> cache.get(root, MEMBERS)).isInstanceOf(ArchiveException.class)
                .hasMessageContaining("does not exist");
    }

    @Test
    void get_listenerThrows_cacheCarriesOn() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        ArchiveCache cache = ArchiveCache.builder().eventSink(e -> {
            throw new IllegalStateException("broken console");
        }).build();

        assertThat(cache.get(root, MEMBERS)).isSameAs(cache.get(root, MEMBERS));
    }

    @Test
    void invalidateAll_dropsEverything() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        ArchiveCache cache = cache(Policy.SNAPSHOT);
        SourceArchive a = cache.get(root, MEMBERS);

        cache.invalidateAll();

        assertThat(cache.stats().bytesHeld()).isZero();
        assertThat(cache.get(root, MEMBERS)).isNotSameAs(a);
    }

    @Test
    void builder_negativeBound_rejectedWhenSet() {
        assertThatThrownBy(() -> ArchiveCache.builder().maximumBytes(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maximum bytes must not be negative, got -1");
    }

    @Test
    void stats_minus_subtractsCountersAndKeepsGauges() {
        ArchiveCacheStats earlier = new ArchiveCacheStats(1, 2, 3, 1, 0, 0, 500, 1, 100, 40);
        ArchiveCacheStats later = new ArchiveCacheStats(5, 3, 4, 2, 1, 1, 800, 2, 160, 60);

        ArchiveCacheStats delta = later.minus(earlier);

        assertThat(delta).isEqualTo(new ArchiveCacheStats(4, 1, 1, 1, 1, 1, 800, 2, 60, 60));
        assertThat(delta.hitRate()).isEqualTo(0.8);
        assertThat(ArchiveCacheStats.empty().hitRate()).isEqualTo(1.0);
        assertThat(later.averageBuildTime().toNanos()).isEqualTo(40);
    }

    private ArchiveEvent.Miss lastMiss() {
        ArchiveEvent.Miss last = null;
        for (KilnEvent e : events) {
            if (e instanceof ArchiveEvent.Miss m) {
                last = m;
            }
        }
        assertThat(last).as("a miss was published").isNotNull();
        return last;
    }
}
