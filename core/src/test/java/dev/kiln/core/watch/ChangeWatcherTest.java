package dev.kiln.core.watch;

import static dev.kiln.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.KernelTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real files, real inotify. Waits are bounded and assert on what arrived, never on how fast. */
@KernelTest
class ChangeWatcherTest {

    @TempDir
    Path dir;
    private WorkspaceLayout layout;
    private final Recorder recorder = new Recorder();
    private ChangeWatcher watcher;

    record Change(ChangeDomain domain, Path path) {
    }

    static final class Recorder implements ChangeWatcher.Listener {
        final List<Change> changes = new CopyOnWriteArrayList<>();
        final List<WatchStatus> live = new CopyOnWriteArrayList<>();
        final List<WatchStatus> degraded = new CopyOnWriteArrayList<>();
        /** Every thread that called back: once all are dead, no callback can come any more. */
        final Set<Thread> threads = ConcurrentHashMap.newKeySet();

        @Override
        public void onChange(ChangeDomain domain, Path path) {
            threads.add(Thread.currentThread());
            changes.add(new Change(domain, path));
        }

        @Override
        public void onLive(WatchStatus status) {
            threads.add(Thread.currentThread());
            live.add(status);
        }

        @Override
        public void onDegraded(WatchStatus status) {
            threads.add(Thread.currentThread());
            degraded.add(status);
        }

        boolean saw(Path p) {
            return changes.stream().anyMatch(c -> c.path().equals(p));
        }
    }

    @BeforeEach
    void workspace() throws IOException {
        layout = WorkspaceLayout.of(dir);
        Files.createDirectories(layout.tasksDir().resolve("payments/refunds/retry"));
        Files.writeString(layout.tasksDir().resolve("payments/refunds/retry/contract.json"), "{}");
        Files.createDirectories(layout.observerDir());
    }

    @AfterEach
    void close() {
        if (watcher != null) {
            watcher.close();
        }
    }

    private ChangeWatcher start(ChangeWatcher.Builder b) {
        watcher = b.listener(recorder).backoff(Duration.ofMillis(50), Duration.ofMillis(200)).build();
        watcher.start();
        return watcher;
    }

    private ChangeWatcher start() {
        return start(ChangeWatcher.builder(layout));
    }

    @Test
    void start_tasksExists_liveWithDirectoryCountAndLimit() {
        start();
        WatchStatus s = watcher.status();
        assertThat(s.live()).isTrue();
        assertThat(s.mode()).isEqualTo("live");
        assertThat(s.roots()).containsExactly(layout.tasksDir());
        // the workspace directory + tasks, payments, refunds, retry
        assertThat(s.watchedDirectories()).isEqualTo(5);
        assertThat(s.inotifyLimit()).isEqualTo(ChangeWatcher.readInotifyLimit());
        assertThat(recorder.live).hasSize(1);
    }

    @Test
    void onChange_nestedCreateModifyDelete_reportedAsContracts() throws Exception {
        start();
        Path leaf = layout.tasksDir().resolve("payments/refunds/backfill");
        Files.createDirectories(leaf);
        Path contract = leaf.resolve("contract.json");
        Files.writeString(contract, "{\"leaf_id\":\"payments/refunds/backfill\"}");
        await("the new nested contract", () -> recorder.saw(contract));
        recorder.changes.clear();
        Path existing = layout.tasksDir().resolve("payments/refunds/retry/contract.json");
        Files.writeString(existing, "{\"status\":\"done\"}");
        await("the edit", () -> recorder.saw(existing));
        Files.delete(contract);
        await("the delete", () -> recorder.changes.stream().filter(c -> c.path().equals(contract)).count() >= 1);
        assertThat(recorder.changes).allMatch(c -> c.domain() == ChangeDomain.CONTRACTS);
    }

    /**
     * The watch is registered by a parallel walk: every directory of a wide and deep tree must be watched (an edit
     * at the bottom of each branch is seen), and a deep tree created at once after start is watched and reported
     * down to its last file, though its directories appeared before the watch on them existed.
     */
    @Test
    void onChange_deepAndWideTree_everyBranchWatchedAndADeepNewTreeReported() throws Exception {
        List<Path> leaves = new java.util.ArrayList<>();
        for (int branch = 0; branch < 24; branch++) {
            Path d = layout.tasksDir().resolve("wide-" + branch);
            for (int depth = 0; depth < 8; depth++) {
                d = d.resolve("level-" + depth);
            }
            Files.createDirectories(d);
            Files.writeString(d.resolve("contract.json"), "{}");
            leaves.add(d.resolve("contract.json"));
        }
        start();
        // workspace root + tasks + payments/refunds/retry (3) + 24 branches × 9 directories
        assertThat(watcher.status().watchedDirectories()).isEqualTo(5 + 24 * 9);
        for (Path leaf : leaves) {
            Files.writeString(leaf, "{\"title\":\"edited\"}");
        }
        await("an edit at the bottom of every branch", () -> leaves.stream().allMatch(recorder::saw));

        Path deep = layout.tasksDir().resolve("new/a/b/c/d/e/f/g/h/i/j");
        Files.createDirectories(deep);
        Path contract = deep.resolve("contract.json");
        Files.writeString(contract, "{}");
        await("the deep new contract", () -> recorder.saw(contract));
        recorder.changes.clear();
        Files.writeString(contract, "{\"title\":\"again\"}");
        await("an edit in the new deep directory, now watched", () -> recorder.saw(contract));
        assertThat(watcher.status().live()).isTrue();
    }

    @Test
    void onChange_selfOutputsTmpLockAndDotfiles_ignored() throws Exception {
        start();
        Files.writeString(layout.stateFile(), "{\"revision\":1}");
        Files.writeString(layout.apiTokenFile(), "secret");
        Path retry = layout.tasksDir().resolve("payments/refunds/retry");
        Files.writeString(retry.resolve("contract.json.tmp"), "{}");
        Files.writeString(retry.resolve(".contract.json.swp"), "x");
        Files.writeString(retry.resolve("leaf.lock"), "1");
        Files.createDirectories(retry.resolve(".git"));
        Files.writeString(retry.resolve(".git/HEAD"), "ref");
        Files.writeString(layout.root().resolve("servers.json"), "{}");
        // events of one inotify instance arrive in order: once the sentinel is seen, the others would have been too
        Path sentinel = retry.resolve("contract.json");
        Files.writeString(sentinel, "{\"v\":2}");
        await("the sentinel", () -> recorder.saw(sentinel));
        assertThat(recorder.changes).extracting(Change::path).containsOnly(sentinel);
    }

    @Test
    void onChange_settingsAndDriftAndTargets_mappedToTheirDomains() throws Exception {
        Files.createDirectories(layout.driftDir());
        Files.createDirectories(layout.targetsDir().resolve("demo"));
        start();
        Files.writeString(layout.settingsFile(), "{\"interval\":\"1s\"}");
        Path drift = layout.driftDir().resolve("payments__retry.json");
        Files.writeString(drift, "{}");
        Path target = layout.targetsDir().resolve("demo/uv.lock");
        Files.writeString(target, "version = 1");
        await("all three", () -> recorder.saw(target) && recorder.saw(drift) && recorder.saw(layout.settingsFile()));
        assertThat(recorder.changes).contains(new Change(ChangeDomain.SETTINGS, layout.settingsFile()),
                new Change(ChangeDomain.DRIFT, drift), new Change(ChangeDomain.TARGETS, target));
    }

    @Test
    void start_rootCreatedAfterStart_watchedAndReconciled() throws Exception {
        start();
        Files.createDirectories(layout.targetsDir());
        await("the watch re-established with targets/", () -> watcher.status().roots().contains(layout.targetsDir()));
        assertThat(recorder.live).hasSizeGreaterThanOrEqualTo(2);
        Path target = layout.targetsDir().resolve("ml/target.json");
        Files.createDirectories(target.getParent());
        Files.writeString(target, "{}");
        await("a file in the new root", () -> recorder.saw(target));
        assertThat(recorder.degraded).isEmpty();
    }

    @Test
    void start_rootCreatedUnseen_picketUpByThePeriodicRederive() throws Exception {
        start(ChangeWatcher.builder(layout).rederiveEvery(Duration.ofMillis(100)));
        // observer/ exists but is not watched: drift/ appearing in it raises no event, only the re-derivation sees it
        Files.createDirectories(layout.driftDir());
        await("drift/ watched", () -> watcher.status().roots().contains(layout.driftDir()));
        Path drift = layout.driftDir().resolve("x.json");
        Files.writeString(drift, "{}");
        await("a drift snapshot", () -> recorder.saw(drift));
    }

    @Test
    void onDegraded_tasksDeleted_degradesThenRecreatedReestablishes() throws Exception {
        start();
        deleteTree(layout.tasksDir());
        await("degraded", () -> !recorder.degraded.isEmpty());
        WatchStatus down = watcher.status();
        assertThat(down.live()).isFalse();
        assertThat(down.reason()).contains("tasks");
        assertThat(recorder.degraded).hasSize(1);
        Files.createDirectories(layout.tasksDir().resolve("ingest/crawl"));
        // the status turns live just before the listener hears of it: wait for the listener
        await("live again", () -> watcher.status().live() && recorder.live.size() >= 2);
        assertThat(recorder.live).hasSize(2);
        Path contract = layout.tasksDir().resolve("ingest/crawl/contract.json");
        Files.writeString(contract, "{}");
        await("events after re-establishing", () -> recorder.saw(contract));
        assertThat(recorder.degraded).as("one failure, reported once despite retries").hasSize(1);
    }

    @Test
    void onDegraded_eventFlood_overflowDegradesAsEventsLostThenReestablishes() throws Exception {
        start();
        // The JDK queues at most 512 events per directory key before it signals OVERFLOW, which directory-watcher
        // hands to onException: a flood of creates in one directory provokes it for real.
        Path flood = layout.tasksDir().resolve("payments/refunds/retry");
        for (int batch = 0; batch < 20 && recorder.degraded.isEmpty(); batch++) {
            for (int i = 0; i < 2_000; i++) {
                Files.writeString(flood.resolve("f" + batch + "-" + i + ".json"), "x");
            }
        }
        await("degraded by the overflow", () -> !recorder.degraded.isEmpty());
        assertThat(recorder.degraded.get(0).reason()).contains(ChangeWatcher.EVENTS_LOST);
        await("re-established", () -> recorder.live.size() >= 2 && watcher.status().live());
    }

    @Test
    void start_limitBelowEvenTheWorkspaceRoots_degradedWithThatReason() {
        start(ChangeWatcher.builder(layout).watchLimit(1));
        WatchStatus s = watcher.status();
        assertThat(s.live()).isFalse();
        assertThat(s.reason()).contains("inotify watch limit reached").contains("5 directories").contains("max_user_watches is 1")
                .contains("sysctl fs.inotify.max_user_watches=");
        assertThat(recorder.degraded).hasSize(1);
    }

    /**
     * A limit below the tree: what fits is watched with real inotify, the rest is stat-walked, and changes on both
     * sides arrive as contract changes; the status says so, with the sysctl that would cover everything.
     */
    @Test
    void start_moreDirectoriesThanTheLimit_watchesWhatFitsAndPollsTheRest() throws Exception {
        List<Path> contracts = new java.util.ArrayList<>();
        for (String area : List.of("a", "b", "c", "d")) {
            for (int i = 0; i < 4; i++) {
                Path f = layout.tasksDir().resolve(area + "/leaf-" + i + "/contract.json");
                Files.createDirectories(f.getParent());
                Files.writeString(f, "{}");
                contracts.add(f);
            }
        }
        // workspace root + tasks + payments/refunds/retry (3) + 4 areas × (1 + 4 leaves) = 25 directories
        start(ChangeWatcher.builder(layout).watchLimit(12).pollEvery(Duration.ofMillis(50)));
        WatchStatus s = watcher.status();
        assertThat(s.live()).as("a low limit is no reason to degrade everything").isTrue();
        assertThat(s.partial()).isTrue();
        assertThat(s.watchedDirectories()).isLessThanOrEqualTo(12).isGreaterThan(1);
        assertThat(s.watchedDirectories() + s.polledDirectories()).isEqualTo(25);
        assertThat(s.note()).contains("25 directories").contains("stat-walked every 50 ms")
                .contains("sysctl fs.inotify.max_user_watches=524288");
        assertThat(s.toString()).contains("partial");

        // the first area is planned first (walk order): watched; the last is beyond the budget: polled
        Path watchedOne = contracts.get(0);
        Path polledOne = contracts.get(contracts.size() - 1);
        Files.writeString(watchedOne, "{\"title\":\"w\"}");
        Files.writeString(polledOne, "{\"title\":\"p\"}");
        Path created = layout.tasksDir().resolve("d/leaf-new/contract.json");
        Files.createDirectories(created.getParent());
        Files.writeString(created, "{}");
        await("the watched edit, the polled edit and the polled create are reported",
                () -> recorder.saw(watchedOne) && recorder.saw(polledOne) && recorder.saw(created));
        assertThat(recorder.changes).filteredOn(c -> c.path().equals(polledOne))
                .allMatch(c -> c.domain() == ChangeDomain.CONTRACTS);
        Path untouched = contracts.get(contracts.size() - 2); // polled too, and never reported so far
        assertThat(recorder.saw(untouched)).isFalse();
        Files.delete(untouched);
        await("a polled delete is reported", () -> recorder.saw(untouched));
        assertThat(recorder.degraded).isEmpty();
    }

    @Test
    void start_noTasksDirectory_degradedSayingWhatToDo() throws IOException {
        deleteTree(layout.tasksDir());
        start();
        assertThat(watcher.status().live()).isFalse();
        assertThat(watcher.status().reason()).contains("does not exist").contains("kiln demo");
    }

    @Test
    void close_afterClose_noMoreCallbacks() throws Exception {
        start();
        Path contract = layout.tasksDir().resolve("payments/refunds/retry/contract.json");
        Files.writeString(contract, "{\"before\":true}");
        await("an edit before the close", () -> recorder.saw(contract));
        watcher.close();
        // No sleep-and-hope: every thread that ever called back (the supervisor and the event threads) ends, and
        // a late edit then has no thread left that could deliver it; a new thread would show up in the set.
        await("the watcher's threads end", () -> recorder.threads.stream().noneMatch(Thread::isAlive));
        int before = recorder.changes.size();
        Files.writeString(contract, "{\"late\":true}");
        assertThat(recorder.threads).noneMatch(Thread::isAlive);
        assertThat(recorder.changes).hasSize(before);
    }

    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.delete(p);
            }
        }
    }
}
