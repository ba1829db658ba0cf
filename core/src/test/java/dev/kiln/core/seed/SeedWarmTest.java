package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.MutableClock;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Warming seeds with the real uv, against PyPI and a loopback host that misbehaves on demand. */
@ProcessTest @DaemonTest
class SeedWarmTest {
    @TempDir
    Path tmp;

    Path ws;
    Path log;
    List<KilnEvent> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void workspace() throws Exception {
        ws = SeedFixtures.workspace(tmp.resolve("ws"));
        log = tmp.resolve("uv-calls.log");
        SeedFixtures.useUv(ws, SeedFixtures.uvWrapper(tmp.resolve("bin"), log, null));
    }

    SeedCaches seeds() {
        return SeedCaches.builder(ws).events(events::add).build();
    }

    List<String> uvCalls() throws Exception {
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    @Test
    void warm_newTarget_warmsWheelsOnlyAndSwapsInACompleteSeed() throws Exception {
        SeedFixtures.target(ws, "app", "small");
        SeedCaches seeds = seeds();

        WarmResult r = seeds.warm("app", Cancellation.create());

        assertThat(r.outcome()).as(r.message() + " " + r.stderrTail()).isEqualTo(WarmOutcome.WARMED);
        assertThat(r.hash()).isEqualTo(seeds.plan("app").hash()).hasSize(64);
        Path seed = seeds.seedDir("app");
        assertThat(Files.readString(seed.resolve(".kiln-seed-hash")).strip()).isEqualTo(r.hash());
        assertThat(Files.readString(seed.resolve("kiln-seed.json")))
                .contains("\"target\" : \"app\"", "\"uv_version\" : \"uv ", "\"wheels\" : 2");
        assertThat(r.bytes()).isPositive();
        assertThat(r.files()).isPositive();
        assertThat(SeedFixtures.warmLeftovers(seeds.seedsDir())).isEmpty();
        assertThat(uvCalls()).anySatisfy(c -> assertThat(c).startsWith("sync --frozen --no-install-project --no-build --all-extras"));
        assertThat(events).hasAtLeastOneElementOfType(SeedEvent.WarmStarted.class)
                .hasAtLeastOneElementOfType(SeedEvent.WarmOutput.class);
        assertThat(events.get(events.size() - 1)).isInstanceOfSatisfying(SeedEvent.WarmFinished.class,
                f -> assertThat(f.result()).isEqualTo(r));
        assertThat(seeds.history()).containsExactly(r);
    }

    @Test
    void warm_sameLockAgain_isUnchangedAndRunsNoProcess() throws Exception {
        SeedFixtures.target(ws, "app", "small");
        SeedCaches seeds = seeds();
        assertThat(seeds.warm("app", Cancellation.create()).outcome()).isEqualTo(WarmOutcome.WARMED);
        List<String> callsBefore = uvCalls();
        Map<String, String> seedBefore = SeedFixtures.digest(seeds.seedDir("app"));
        events.clear();

        WarmResult again = seeds.warm("app", Cancellation.create());

        assertThat(again.outcome()).isEqualTo(WarmOutcome.UNCHANGED);
        assertThat(uvCalls()).isEqualTo(callsBefore);
        assertThat(events).noneMatch(e -> e instanceof SeedEvent.WarmStarted);
        assertThat(SeedFixtures.digest(seeds.seedDir("app"))).isEqualTo(seedBefore);
        assertThat(seeds.history()).extracting(WarmResult::outcome).containsExactly(WarmOutcome.WARMED, WarmOutcome.UNCHANGED);
    }

    @Test
    void warm_changedLock_rewarmsAndSwapsTheSeedWhole() throws Exception {
        Path target = SeedFixtures.target(ws, "app", "small");
        SeedCaches seeds = seeds();
        WarmResult first = seeds.warm("app", Cancellation.create());
        assertThat(first.outcome()).isEqualTo(WarmOutcome.WARMED);
        assertThat(wheelNames(seeds.seedDir("app"))).contains("six-1.16.0.dist-info");

        SeedFixtures.useFixture(target, "small-v2");
        WarmResult second = seeds.warm("app", Cancellation.create());

        assertThat(second.outcome()).as(second.message()).isEqualTo(WarmOutcome.WARMED);
        assertThat(second.hash()).isNotEqualTo(first.hash());
        assertThat(Files.readString(seeds.seedDir("app").resolve(".kiln-seed-hash")).strip()).isEqualTo(second.hash());
        // Swapped whole: the new seed has only the new lock's wheels, nothing of the old one.
        assertThat(wheelNames(seeds.seedDir("app"))).contains("six-1.17.0.dist-info", "idna-3.10.dist-info")
                .doesNotContain("six-1.16.0.dist-info", "idna-3.6.dist-info");
        assertThat(SeedFixtures.warmLeftovers(seeds.seedsDir())).isEmpty();
    }

    @Test
    void warm_unresolvableLock_failsAndKeepsTheOldSeedByteForByte() throws Exception {
        Path target = SeedFixtures.target(ws, "app", "small");
        SeedCaches seeds = seeds();
        assertThat(seeds.warm("app", Cancellation.create()).outcome()).isEqualTo(WarmOutcome.WARMED);
        Map<String, String> before = SeedFixtures.digest(seeds.seedDir("app"));

        try (SlowWheelServer host = new SlowWheelServer()) {
            host.writeLock(target, true);
            WarmResult r = seeds.warm("app", Cancellation.create());

            assertThat(r.outcome()).isEqualTo(WarmOutcome.FAILED);
            assertThat(r.message()).startsWith("uv sync failed (exit ").contains("previous seed is kept");
            assertThat(r.stderrTail()).anySatisfy(l -> assertThat(l).contains("kiln_slow-9.9"));
        }
        assertThat(SeedFixtures.digest(seeds.seedDir("app"))).isEqualTo(before);
        assertThat(SeedFixtures.warmLeftovers(seeds.seedsDir())).isEmpty();
        assertThat(seeds.history()).extracting(WarmResult::outcome).containsExactly(WarmOutcome.WARMED, WarmOutcome.FAILED);
    }

    @Test
    void warm_cancelledMidDownload_killsUvsTreeAndKeepsTheOldSeed() throws Exception {
        Path target = SeedFixtures.target(ws, "app", "small");
        SeedCaches seeds = seeds();
        assertThat(seeds.warm("app", Cancellation.create()).outcome()).isEqualTo(WarmOutcome.WARMED);
        Map<String, String> before = SeedFixtures.digest(seeds.seedDir("app"));

        try (SlowWheelServer host = new SlowWheelServer()) {
            host.writeLock(target, false);
            Cancellation cancel = Cancellation.create();
            CompletableFuture<WarmResult> warm = CompletableFuture.supplyAsync(() -> seeds.warm("app", cancel));
            assertThat(host.requested.await(60, TimeUnit.SECONDS)).as("uv started downloading").isTrue();
            assertThat(SeedFixtures.warmLeftovers(seeds.seedsDir())).as("a warm in flight").isNotEmpty();

            cancel.cancel();
            WarmResult r = warm.get(60, TimeUnit.SECONDS);

            assertThat(r.outcome()).isEqualTo(WarmOutcome.CANCELLED);
            long pid = events.stream().filter(e -> e instanceof SeedEvent.WarmStarted).map(e -> ((SeedEvent.WarmStarted) e).pid())
                    .reduce((a, b) -> b).orElseThrow();
            assertThat(SeedFixtures.gone(pid)).as("uv killed").isTrue();
        }
        assertThat(SeedFixtures.digest(seeds.seedDir("app"))).isEqualTo(before);
        assertThat(SeedFixtures.warmLeftovers(seeds.seedsDir())).isEmpty();
    }

    @Test
    void warm_pastTheTargetsTimeout_failsAsTimedOutAndKeepsTheOldSeed() throws Exception {
        Path target = SeedFixtures.target(ws, "app", "small");
        MutableClock clock = new MutableClock(Instant.parse("2026-01-05T09:00:00Z"));
        SeedCaches seeds = SeedCaches.builder(ws).clock(clock).events(events::add).build();
        assertThat(seeds.warm("app", Cancellation.create()).outcome()).isEqualTo(WarmOutcome.WARMED);
        Map<String, String> before = SeedFixtures.digest(seeds.seedDir("app"));

        try (SlowWheelServer host = new SlowWheelServer()) {
            host.writeLock(target, false);
            Files.writeString(target.resolve("target.json"), "{\"source\": {\"dir\": \".\"}, \"timeout\": \"5m\"}");
            CompletableFuture<WarmResult> warm = CompletableFuture.supplyAsync(() -> seeds.warm("app", Cancellation.create()));
            assertThat(host.requested.await(60, TimeUnit.SECONDS)).isTrue();

            clock.advance(Duration.ofMinutes(6));
            WarmResult r = warm.get(60, TimeUnit.SECONDS);

            assertThat(r.outcome()).isEqualTo(WarmOutcome.FAILED);
            assertThat(r.message()).startsWith("timed out after 360s");
        }
        assertThat(SeedFixtures.digest(seeds.seedDir("app"))).isEqualTo(before);
        assertThat(SeedFixtures.warmLeftovers(seeds.seedsDir())).isEmpty();
    }

    @Test
    void warm_sdistOnlyDependency_reportsNeedsBuildAndBuildsNothing() throws Exception {
        SeedFixtures.target(ws, "cli", "sdist-only");
        SeedCaches seeds = seeds();

        WarmResult r = seeds.warm("cli", Cancellation.create());

        assertThat(r.outcome()).isEqualTo(WarmOutcome.NEEDS_BUILD);
        assertThat(r.message()).startsWith("needs-build: docopt==0.6.2 is published only as source");
        assertThat(seeds.seedDir("cli")).doesNotExist();
        assertThat(SeedFixtures.warmLeftovers(seeds.seedsDir())).isEmpty();
        assertThat(seeds.history()).extracting(WarmResult::outcome).containsExactly(WarmOutcome.NEEDS_BUILD);
    }

    @Test
    void warm_twoAtOnceOfOneTarget_runUvOnceAndTheOtherFindsItUnchanged() throws Exception {
        SeedFixtures.target(ws, "app", "small");
        SeedCaches seeds = seeds();

        CompletableFuture<WarmResult> a = CompletableFuture.supplyAsync(() -> seeds.warm("app", Cancellation.create()));
        CompletableFuture<WarmResult> b = CompletableFuture.supplyAsync(() -> seeds.warm("app", Cancellation.create()));

        assertThat(List.of(a.get(120, TimeUnit.SECONDS).outcome(), b.get(120, TimeUnit.SECONDS).outcome()))
                .containsExactlyInAnyOrder(WarmOutcome.WARMED, WarmOutcome.UNCHANGED);
        assertThat(uvCalls()).filteredOn(c -> c.startsWith("sync")).hasSize(1);
    }

    @Test
    void warm_twoTargetsAtOnce_bothWarmInParallel() throws Exception {
        SeedFixtures.target(ws, "one", "small");
        SeedFixtures.target(ws, "two", "small-v2");
        SeedCaches seeds = seeds();

        CompletableFuture<WarmResult> a = CompletableFuture.supplyAsync(() -> seeds.warm("one", Cancellation.create()));
        CompletableFuture<WarmResult> b = CompletableFuture.supplyAsync(() -> seeds.warm("two", Cancellation.create()));

        assertThat(a.get(120, TimeUnit.SECONDS).outcome()).isEqualTo(WarmOutcome.WARMED);
        assertThat(b.get(120, TimeUnit.SECONDS).outcome()).isEqualTo(WarmOutcome.WARMED);
        assertThat(seeds.seeds()).extracting(SeedInfo::target, SeedInfo::current)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("one", true), org.assertj.core.groups.Tuple.tuple("two", true));
    }

    @Test
    void warm_gitSourcedTarget_warmsWhatTheRefHolds() throws Exception {
        Path repo = Files.createDirectories(tmp.resolve("repo"));
        Path sub = Files.createDirectories(repo.resolve("services/api"));
        SeedFixtures.useFixture(sub, "small-v2");
        git(repo, "init", "-q", "-b", "main");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "lock");
        // An uncommitted edit in the working tree must not matter: the warm reads the ref.
        Files.writeString(sub.resolve("uv.lock"), "not a lock");
        Path t = Files.createDirectories(ws.resolve("targets/api"));
        Files.writeString(t.resolve("target.json"),
                "{\"source\": {\"git\": \"../../../repo\", \"ref\": \"main\", \"path\": \"services/api\"}}");

        WarmResult r = seeds().warm("api", Cancellation.create());

        assertThat(r.outcome()).as(r.message()).isEqualTo(WarmOutcome.WARMED);
        assertThat(wheelNames(seeds().seedDir("api"))).contains("six-1.17.0.dist-info", "idna-3.10.dist-info");
    }

    private static void git(Path dir, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
    }

    @Test
    void warm_uvMissing_failsWithHowToInstall() throws Exception {
        SeedFixtures.target(ws, "app", "small");
        Files.writeString(ws.resolve("kiln.json"), "{}");
        SeedCaches seeds = SeedCaches.builder(ws).environment(Map.of("PATH", tmp.resolve("empty-bin").toString(), "HOME", tmp.toString())).build();

        WarmResult r = seeds.warm("app", Cancellation.create());

        assertThat(r.outcome()).isEqualTo(WarmOutcome.FAILED);
        assertThat(r.message()).isEqualTo("uv was not found on PATH. Install it (`pip install uv`, or"
                + " `curl -LsSf https://astral.sh/uv/install.sh | sh`) or set \"uv\" in kiln.json to its path.");
        assertThat(SeedFixtures.warmLeftovers(seeds.seedsDir())).isEmpty();
    }

    @Test
    void warm_missingTarget_failsNamingTheFile() {
        WarmResult r = seeds().warm("nope", Cancellation.create());

        assertThat(r.outcome()).isEqualTo(WarmOutcome.FAILED);
        assertThat(r.message()).startsWith("No target 'nope': ").contains("targets/nope/target.json does not exist");
    }

    @Test
    void plan_dryRun_reportsTheCommandAndLeavesTheTreeByteIdentical() throws Exception {
        SeedFixtures.target(ws, "app", "small");
        Map<String, String> before = SeedFixtures.digest(tmp);

        WarmPlan plan = seeds().plan("app");

        assertThat(plan.warmNeeded()).isTrue();
        assertThat(plan.seededHash()).isEmpty();
        assertThat(plan.command()).containsExactly(tmp.resolve("bin/uv").toString(), "sync", "--frozen",
                "--no-install-project", "--no-build", "--all-extras");
        assertThat(plan.environment()).contains("UV_LINK_MODE=copy")
                .anySatisfy(e -> assertThat(e).startsWith("UV_CACHE_DIR=" + ws.resolve("seeds/.app.warm-" + plan.hash().substring(0, 12))));
        assertThat(SeedFixtures.digest(tmp)).isEqualTo(before);
        assertThat(uvCalls()).isEmpty();
    }

    @Test
    void plan_afterAWarm_saysNoWarmIsNeededAndWritesNothing() throws Exception {
        SeedFixtures.target(ws, "app", "small");
        SeedCaches seeds = seeds();
        WarmResult r = seeds.warm("app", Cancellation.create());
        Map<String, String> before = SeedFixtures.digest(tmp);

        WarmPlan plan = seeds.plan("app");

        assertThat(plan.warmNeeded()).isFalse();
        assertThat(plan.seededHash()).contains(r.hash());
        assertThat(SeedFixtures.digest(tmp)).isEqualTo(before);
    }

    private static List<String> wheelNames(Path seed) throws Exception {
        try (var s = Files.walk(seed)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".dist-info")).map(p -> p.getFileName().toString()).toList();
        }
    }
}
