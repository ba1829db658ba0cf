package dev.kiln.ui.caches;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.archive.ArchiveEvent;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.snapshot.SnapshotStats;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.EngineTestBase;
import dev.kiln.ui.projection.ChartWindow;
import dev.kiln.ui.util.Background;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Caches page against a real archive cache and a real source tree, through the engine the subclass supplies. */
abstract class CachesViewModelTest extends EngineTestBase {
    private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

    @TempDir
    Path tmp;

    private List<KilnEvent> seen;
    private Engine engine;

    private CachesViewModel open() throws Exception {
        Files.createDirectories(tmp.resolve("ws/tasks"));
        engine = engine(tmp.resolve("ws"));
        seen = recording(engine);
        CachesViewModel vm = new CachesViewModel(engine, Background.inline());
        vm.refresh();
        return vm;
    }

    /**
     * Hands the events seen to the view model once the archive's events are all among them: the in-process engine
     * publishes them before its call returns, a remote one relays them over the event stream a moment after.
     */
    private void pump(CachesViewModel vm) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        // Caught up when the newest archive event carries the cache's counters as they are now.
        while (System.nanoTime() < deadline && !caughtUp()) {
            Thread.sleep(5);
        }
        pump(seen, vm::accept);
    }

    private boolean caughtUp() {
        ArchiveEvent last = null;
        for (KilnEvent e : List.copyOf(seen)) {
            if (e instanceof ArchiveEvent a) {
                last = a;
            }
        }
        return last != null && last.stats().equals(engine.archives().stats());
    }

    private Path source() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("ws/src/pkg"));
        Files.writeString(src.resolve("a.py"), "print('a')\n");
        Files.writeString(tmp.resolve("ws/src/pyproject.toml"), "[project]\nname='x'\n");
        return src.getParent();
    }

    @Test
    void fetch_twice_missThenHit_thenEditRebuilds() throws Exception {
        CachesViewModel vm = open();
        Path src = source();
        vm.sourceProperty().set("src");

        vm.fetch();
        pump(vm);
        assertThat(vm.statsProperty().get().misses()).isEqualTo(1);
        assertThat(vm.resultProperty().get()).contains("files").contains("sha256");

        vm.fetch();
        pump(vm);
        assertThat(vm.statsProperty().get().hits()).isEqualTo(1);
        assertThat(vm.activity().get(0)).isInstanceOf(ArchiveEvent.Hit.class);

        Files.writeString(src.resolve("pkg/a.py"), "print('changed')\n");
        vm.fetch();
        pump(vm);
        assertThat(vm.statsProperty().get().changesFound()).isEqualTo(1);
        assertThat(vm.statsProperty().get().builds()).isEqualTo(2);
    }

    @Test
    void entries_afterAMissAndTwoHits_showRootMembersBytesShaAndHits() throws Exception {
        CachesViewModel vm = open();
        source();
        vm.sourceProperty().set("src");
        vm.membersProperty().set("pkg pyproject.toml");

        vm.fetch();
        pump(vm);
        assertThat(vm.entries()).singleElement().satisfies(r -> {
            assertThat(r.root()).isEqualTo("src");
            assertThat(r.members()).isEqualTo("2");
            assertThat(r.files()).isEqualTo(2);
            assertThat(r.bytes()).isPositive();
            assertThat(r.sha256()).hasSize(12).isHexadecimal();
            assertThat(r.hits()).isZero();
            assertThat(r.lastValidated()).isEqualTo("never");
        });
        String sha = vm.entries().get(0).sha256();

        vm.fetch();
        vm.fetch();
        pump(vm);
        assertThat(vm.entries()).singleElement().satisfies(r -> {
            assertThat(r.hits()).isEqualTo(2);
            assertThat(r.sha256()).isEqualTo(sha); // nothing changed: the same archive
            assertThat(r.lastValidated()).matches("\\d\\d:\\d\\d:\\d\\d");
        });

        vm.invalidateAll();
        pump(vm);
        assertThat(vm.entries()).isEmpty();
        assertThat(vm.statsProperty().get().bytesHeld()).isZero();
    }

    @Test
    void fetch_membersLimitTheArchive() throws Exception {
        CachesViewModel vm = open();
        Files.createDirectories(tmp.resolve("ws/src/pkg"));
        Files.writeString(tmp.resolve("ws/src/pkg/a.py"), "a\n");
        Files.writeString(tmp.resolve("ws/src/README.md"), "r\n");
        Files.writeString(tmp.resolve("ws/src/big.bin"), "x".repeat(10_000));
        vm.sourceProperty().set("src");
        vm.membersProperty().set("pkg, README.md");

        vm.fetch();
        pump(vm);

        ArchiveEvent.Built built = (ArchiveEvent.Built) vm.activity().stream().filter(e -> e instanceof ArchiveEvent.Built).findFirst().orElseThrow();
        assertThat(built.members()).containsExactly("README.md", "pkg");
    }

    @Test
    void fetch_missingSourceOrMemberOrOutside_isAClearErrorAndCachesNothing() throws Exception {
        CachesViewModel vm = open();
        assertThat(vm.sourceProperty().get()).isEqualTo(".");

        vm.sourceProperty().set(" ");
        vm.fetch();
        assertThat(vm.errorProperty().get()).startsWith("Choose a source directory of the workspace first");

        vm.sourceProperty().set("nope");
        vm.fetch();
        assertThat(vm.errorProperty().get()).contains("nope").contains("is not a directory");

        vm.sourceProperty().set("../..");
        vm.fetch();
        assertThat(vm.errorProperty().get()).contains("outside the workspace");

        Files.createDirectories(tmp.resolve("ws/src"));
        vm.sourceProperty().set("src");
        vm.membersProperty().set("missing.txt");
        vm.fetch();
        pump(seen, vm::accept); // a refused fetch publishes no archive event
        assertThat(vm.errorProperty().get()).contains("missing.txt");
        assertThat(vm.statsProperty().get().bytesHeld()).isZero();
        assertThat(vm.entries()).isEmpty();
        assertThat(vm.busyProperty().get()).isFalse();
    }

    private static TickFinished tick(Instant at, int parsed, int reused) {
        return new TickFinished(at, new TickResult(WakeReason.CHANGE, at, 1, false, parsed + reused, 0,
                new SnapshotStats(parsed + reused, parsed, reused, 0, 0, 0), 1_000_000, List.of(), null));
    }

    private static ArchiveCacheStats stats(long hits, long misses, long builds, long evictions, long held) {
        return new ArchiveCacheStats(hits, misses, builds, 0, evictions, 0, held, held > 0 ? 1 : 0, 0, 0);
    }

    @Test
    void buckets_foldTicksAndArchiveEventsIntoTheWindow_ratioAndBytesCarryThroughQuietBuckets() throws Exception {
        CachesViewModel vm = open();
        Path root = tmp.resolve("ws/src");
        vm.accept(List.of(
                tick(T.minusSeconds(300), 9, 1), // 5 min ago: outside the 1 min window
                tick(T.minusSeconds(50), 10, 0),
                tick(T.minusSeconds(50).minusMillis(200), 1, 9),
                new ArchiveEvent.Miss(T.minusSeconds(40), root, ArchiveEvent.MissCause.ABSENT, null, stats(0, 1, 0, 0, 0)),
                new ArchiveEvent.Built(T.minusSeconds(40), root, List.of(), "ab", 4096, 2, Duration.ofMillis(3), List.of(), stats(0, 1, 1, 0, 4096)),
                new ArchiveEvent.Hit(T.minusSeconds(10), root, "ab", 4096, true, 1000, stats(1, 1, 1, 0, 4096)),
                new ArchiveEvent.Evicted(T.minusSeconds(5), root, "ab", 4096, ArchiveEvent.EvictionCause.SIZE, stats(1, 1, 1, 1, 0))));

        List<CachesViewModel.Bucket> b = vm.buckets(ChartWindow.ONE_MINUTE, T);

        assertThat(b).hasSize(ChartWindow.BUCKETS);
        assertThat(b.get(0).secondsAgo()).isEqualTo(59);
        assertThat(b.get(59).secondsAgo()).isZero();
        assertThat(b.stream().mapToInt(CachesViewModel.Bucket::ticks).sum()).isEqualTo(2);
        assertThat(b.get(0).hitRatio()).isNaN(); // before the window's first tick
        CachesViewModel.Bucket ticked = b.get(59 - 50);
        assertThat(ticked.ticks()).isEqualTo(2);
        assertThat(ticked.parsed()).isEqualTo(11);
        assertThat(ticked.hitRatio()).isEqualTo(100.0 * 9 / 20);
        assertThat(b.get(59).hitRatio()).isEqualTo(ticked.hitRatio()); // no tick since: the cache did not change
        assertThat(b.get(59 - 40).misses()).isEqualTo(1);
        assertThat(b.get(59 - 40).builds()).isEqualTo(1);
        assertThat(b.get(59 - 10).hits()).isEqualTo(1);
        assertThat(b.get(59 - 5).evictions()).isEqualTo(1);
        assertThat(b.stream().mapToLong(CachesViewModel.Bucket::hits).sum()).isEqualTo(1);
        assertThat(b.get(0).bytesHeld()).isZero();
        assertThat(b.get(59 - 20).bytesHeld()).isEqualTo(4096); // held between the build and the eviction
        assertThat(b.get(59).bytesHeld()).isZero();

        assertThat(vm.buckets(ChartWindow.TEN_MINUTES, T).stream().mapToInt(CachesViewModel.Bucket::ticks).sum()).isEqualTo(3);
        assertThat(vm.buckets(ChartWindow.ONE_MINUTE, T.plusSeconds(3600)).stream().mapToInt(CachesViewModel.Bucket::ticks).sum()).isZero();
        assertThat(vm.lastTickProperty().get().stats().reused()).isEqualTo(9);
    }
}
