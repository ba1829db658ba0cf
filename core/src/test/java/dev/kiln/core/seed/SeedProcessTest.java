package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Warms in a process of their own ({@link WarmMain}): a planted secret, and a process killed mid-flight. */
@ProcessTest @DaemonTest
class SeedProcessTest {
    @TempDir
    Path tmp;

    /** Starts {@link WarmMain} on {@code ws}/{@code target} with {@code extraEnv} in its real environment. */
    static Process startWarm(Path ws, String target, Map<String, String> extraEnv, List<String> output) throws Exception {
        return startWarm(ws, target, extraEnv, output, Path.of(System.getProperty("java.io.tmpdir")));
    }

    /** A warm in its own JVM whose temp directory is {@code tmpDir} (where a warm keeps its throwaway project). */
    static Process startWarm(Path ws, String target, Map<String, String> extraEnv, List<String> output, Path tmpDir)
            throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Djava.io.tmpdir=" + tmpDir, "-cp", System.getProperty("java.class.path"),
                WarmMain.class.getName(), ws.toString(), target).redirectErrorStream(true);
        pb.environment().putAll(extraEnv);
        Process p = pb.start();
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    output.add(line);
                }
            } catch (java.io.IOException ignored) {
                // killed
            }
        });
        pump.setDaemon(true);
        pump.start();
        return p;
    }

    private static List<String> listNames(Path dir) throws Exception {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }

    @Test
    void warm_secretInTheCallersEnvironment_neverReachesUv() throws Exception {
        Path ws = SeedFixtures.workspace(tmp.resolve("ws"));
        SeedFixtures.target(ws, "app", "small");
        Path envDump = tmp.resolve("uv-env.txt");
        SeedFixtures.useUv(ws, SeedFixtures.uvWrapper(tmp.resolve("bin"), tmp.resolve("calls.log"), envDump));
        List<String> out = new CopyOnWriteArrayList<>();

        Process p = startWarm(ws, "app", Map.of("KILN_CANARY_SECRET", "canary-9c1e", "UV_INDEX_CORP_PASSWORD", "canary-pw",
                "UV_CONCURRENT_DOWNLOADS", "2"), out);

        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join("\n", out)).isZero();
        assertThat(out).anySatisfy(l -> assertThat(l).startsWith("outcome warmed"));
        List<String> uvEnv = Files.readAllLines(envDump);
        assertThat(String.join("\n", uvEnv)).doesNotContain("canary");
        assertThat(uvEnv).contains("UV_CONCURRENT_DOWNLOADS=2", "UV_LINK_MODE=copy", "PATH=" + System.getenv("PATH"))
                .anySatisfy(l -> assertThat(l).startsWith("UV_CACHE_DIR=" + ws.resolve("seeds/.app.warm-")));
    }

    @Test
    void warm_processKilledMidFlight_oldSeedStaysUsableAndTheNextWarmCleansUp() throws Exception {
        Path ws = SeedFixtures.workspace(tmp.resolve("ws"));
        Path target = SeedFixtures.target(ws, "app", "small");
        SeedCaches seeds = SeedCaches.of(ws);
        assertThat(seeds.warm("app", Cancellation.create()).outcome()).isEqualTo(WarmOutcome.WARMED);
        Map<String, String> before = SeedFixtures.digest(seeds.seedDir("app"));
        Path saved = Files.createDirectories(tmp.resolve("small-files"));
        SeedFixtures.useFixture(saved, "small");
        List<String> out = new CopyOnWriteArrayList<>();
        long warmPid;
        // Every warm removes the orphaned projects of killed warms in its temp directory: the warms here get one of their
        // own, or a warm in another test fork on this machine removes the orphan before this test has looked at it.
        Path warmTmp = Files.createDirectories(tmp.resolve("warm-tmp"));

        try (SlowWheelServer host = new SlowWheelServer()) {
            host.writeLock(target, false);
            Process warm = startWarm(ws, "app", Map.of(), out, warmTmp);
            warmPid = warm.pid();
            assertThat(host.requested.await(90, TimeUnit.SECONDS)).as("uv downloading; output: " + out).isTrue();
            List<ProcessHandle> tree = new ArrayList<>(warm.descendants().toList());
            assertThat(tree).as("uv runs under the warm").isNotEmpty();

            // Killed the way an OOM killer or a `kill -9` of the group would: everything at once, no cleanup.
            warm.destroyForcibly();
            tree.forEach(ProcessHandle::destroyForcibly);
            assertThat(warm.waitFor(30, TimeUnit.SECONDS)).isTrue();
            for (ProcessHandle h : tree) {
                assertThat(SeedFixtures.gone(h.pid())).isTrue();
            }
        }
        assertThat(out).noneMatch(l -> l.startsWith("outcome"));
        String orphan = SeedStore.projectPrefix(warmPid, "app");
        assertThat(listNames(warmTmp)).as("the killed warm's throwaway project").anyMatch(n -> n.startsWith(orphan));
        assertThat(SeedFixtures.warmLeftovers(seeds.seedsDir())).as("what the killed warm left").isNotEmpty();
        assertThat(SeedFixtures.digest(seeds.seedDir("app"))).isEqualTo(before);
        // The old seed still serves a job, offline.
        Path job = tmp.resolve("job");
        assertThat(seeds.copyInto("app", job.resolve("cache")).copied()).isTrue();
        SeedFixtures.Exit sync = SeedFixtures.jobSyncOffline(saved, job.resolve("cache"), job);
        assertThat(sync.code()).as(sync.output()).isZero();

        SeedFixtures.useFixture(target, "small");
        List<String> nextOut = new CopyOnWriteArrayList<>();
        Process next = startWarm(ws, "app", Map.of(), nextOut, warmTmp);
        assertThat(next.waitFor(180, TimeUnit.SECONDS)).as("the next warm finished; output: " + nextOut).isTrue();

        assertThat(nextOut).as("the next warm's output").anySatisfy(l -> assertThat(l).startsWith("outcome "
                + WarmOutcome.UNCHANGED.label()));
        assertThat(SeedFixtures.warmLeftovers(seeds.seedsDir())).isEmpty();
        assertThat(listNames(warmTmp)).noneMatch(n -> n.startsWith(orphan));
        assertThat(SeedFixtures.digest(seeds.seedDir("app"))).isEqualTo(before);
    }
}
