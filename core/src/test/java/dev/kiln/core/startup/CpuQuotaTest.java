package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.testkit.AloneTest;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fractional CPU share on the real kernel (these machines: cgroup v1 cpu/cpuacct, writable as root): the group
 * exists while servers run in it, is gone after a run, after a cancel and after a killed Kiln, and really holds —
 * the CPU time per wall second of a saturated group matches its share (a ratio, not a wall-clock assertion).
 */
@ProcessTest @KernelTest @AloneTest
class CpuQuotaTest {
    @TempDir
    Path dir;
    private String marker;

    @BeforeEach
    void marker() {
        marker = "kiln-test-" + UUID.randomUUID();
    }

    private ServerConfig demo(String name) throws Exception {
        Path script = DemoServer.extractTo(dir.resolve("servers"));
        return ServerConfig.stdio(name, dir, "python3", List.of(script.toString(), "--weight", "1", marker + "-" + name), Map.of());
    }

    /** The group {@code pid} is in for the cpu controller (v1 {@code N:cpu:/path} or v2 {@code 0::/path}). */
    private static String cpuGroupOf(long pid) throws Exception {
        String v2 = null;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "cgroup"))) {
            String[] f = line.split(":", 3);
            if (List.of(f[1].split(",")).contains("cpu")) {
                return f[2];
            }
            if (f[1].isEmpty()) {
                v2 = f[2];
            }
        }
        return v2;
    }

    @Test
    void run_halfShare_everyServerRunsInOneGroupThatIsGoneAfterTheRun() throws Exception {
        List<String> groups = Collections.synchronizedList(new ArrayList<>());
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        StartupProbe probe = StartupProbe.builder().cpuShare(0.5).timeout(Duration.ofSeconds(60)).events(e -> {
            if (e instanceof ProbeEvent.Initialized i) {
                // The server is running its program now: it joined the group before exec.
                try {
                    long pid = ProcessProbe.pidOf(i.server(), marker);
                    groups.add(cpuGroupOf(pid));
                } catch (Exception ex) {
                    failures.add(ex);
                }
            }
        }).build();

        ProbeReport report = probe.run(List.of(demo("a"), demo("b"), demo("c")));

        assertThat(failures).isEmpty();
        assertThat(report.results()).allSatisfy(r -> assertThat(r.outcome()).as(r.reason()).isEqualTo(Outcome.OK));
        ProbeReport.CpuLimit limit = report.cpuLimit();
        assertThat(limit).isNotNull();
        assertThat(limit.share()).isEqualTo(0.5);
        assertThat(limit.mechanism()).isIn("cgroup-v1", "cgroup-v2");
        assertThat(groups).hasSize(3).allSatisfy(g -> assertThat(g).endsWith("/" + limit.group()));
        assertThat(limit.cpuMs()).as("the group's CPU time is read").isPositive();
        assertThat(report.toJson().path("summary").path("cpu_share").path("mechanism").asText()).isEqualTo(limit.mechanism());
        assertThat(groupDirs(limit.group())).as("the group is removed after the run").isEmpty();
        assertThat(ProbeProcesses.livingWith(marker)).isEmpty();
    }

    @Test
    void run_cancelledWhileServersRunInTheGroup_groupAndServersAreGone() throws Exception {
        Path silent = dir.resolve("silent.py");
        Files.writeString(silent, "import time\ntime.sleep(300)\n");
        CountDownLatch spawned = new CountDownLatch(2);
        StartupProbe p = StartupProbe.builder().cpuShare(0.5).timeout(Duration.ofSeconds(120)).events(e -> {
            if (e instanceof ProbeEvent.Spawned) {
                spawned.countDown();
            }
        }).build();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread caller = new Thread(() -> {
            try {
                p.run(List.of(ServerConfig.stdio("s1", dir, "python3", List.of(silent.toString(), marker), Map.of()),
                        ServerConfig.stdio("s2", dir, "python3", List.of(silent.toString(), marker), Map.of())));
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        caller.start();
        assertThat(spawned.await(60, TimeUnit.SECONDS)).isTrue();
        List<Path> during = awaitGroupDirs(ProcessHandle.current().pid());
        assertThat(during).as("the group exists while the servers run").isNotEmpty();

        caller.interrupt();
        caller.join(60_000);

        assertThat(caller.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(during).allSatisfy(d -> assertThat(d).doesNotExist());
        assertThat(ProbeProcesses.livingWith(marker)).isEmpty();
    }

    @Test
    void open_leftoverOfAKilledKiln_isRemovedWithWhatRanInIt() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        long deadPid = gone.pid();
        Path mount = CpuQuota.cgroupV1Mount("cpu");
        assertThat(mount).as("these machines have the cgroup v1 cpu controller").isNotNull();
        Path leftover = mount.resolve(CpuQuota.PREFIX + deadPid + "-1");
        Files.createDirectory(leftover);
        Process orphan = new ProcessBuilder("/bin/sh", "-c", "echo $$ > '" + leftover.resolve("cgroup.procs")
                + "' && exec sleep 300", marker).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (Files.readString(leftover.resolve("cgroup.procs")).isBlank() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(Files.readString(leftover.resolve("cgroup.procs")).trim()).isEqualTo(Long.toString(orphan.pid()));

            try (CpuQuota q = CpuQuota.open(0.5, System.getenv())) {
                assertThat(q.exists()).isTrue();
                assertThat(leftover).as("the dead Kiln's group is removed before a new one is made").doesNotExist();
                assertThat(orphan.waitFor(10, TimeUnit.SECONDS)).as("what ran in it is ended").isTrue();
            }
        } finally {
            orphan.destroyForcibly();
            if (Files.isDirectory(leftover)) {
                Files.delete(leftover);
            }
        }
    }

    @Test
    void open_afterAKilnWasKilledMidProbe_itsGroupAndServerAreRemoved() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process kiln = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                KilledKilnChild.class.getName(), dir.toString(), marker).redirectErrorStream(true).start();
        try {
            var out = new java.io.BufferedReader(new java.io.InputStreamReader(kiln.getInputStream()));
            String line;
            while ((line = out.readLine()) != null && !line.equals("spawned")) {
                // JVM chatter, if any
            }
            assertThat(line).as("the child Kiln spawned its server").isEqualTo("spawned");
            List<Path> groups = awaitGroupDirs(kiln.pid());
            assertThat(groups).as("its group exists").hasSize(1);
            // The server and, for a moment, the wrapper that puts it in its group before exec carry the marker. The child
            // says "spawned" once start() returns, which can be before the wrapper has exec'd: wait for it, bounded.
            // The assertion reads the same look that ended the wait: a second look can fall inside the wrapper's exec,
            // where /proc shows the process without its command line for a moment (failed so once in CI).
            long started = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            var server = ProbeProcesses.livingWith(marker + "-server");
            while (server.isEmpty() && System.nanoTime() < started) {
                Thread.sleep(20);
                server = ProbeProcesses.livingWith(marker + "-server");
            }
            assertThat(server).as("its server runs").isNotEmpty();

            kiln.destroyForcibly(); // SIGKILL: no shutdown hook, no cleanup
            assertThat(kiln.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(groups.get(0)).as("a SIGKILLed Kiln leaves its group").exists();

            int removed = CpuQuota.removeLeftovers(); // what the next probe does first

            assertThat(removed).isGreaterThanOrEqualTo(1);
            assertThat(groups.get(0)).doesNotExist();
            assertThat(groupDirs(groups.get(0).getFileName().toString())).isEmpty();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!ProbeProcesses.livingWith(marker + "-server").isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(ProbeProcesses.livingWith(marker + "-server")).as("the orphaned server is ended with its group").isEmpty();
        } finally {
            kiln.destroyForcibly();
        }
    }

    @Test
    void open_halfShareUnderCpuBoundLoad_cpuTimePerWallSecondIsWithinTenPercentOfTheShare() throws Exception {
        try (CpuQuota q = CpuQuota.open(0.5, System.getenv())) {
            List<Process> burners = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                burners.add(new ProcessBuilder(q.wrap(List.of("python3", "-c", "while True: pass", marker))).start());
            }
            Thread.sleep(500); // let both join and saturate the quota
            OptionalLong cpu0 = q.cpuUsageNanos();
            long wall0 = System.nanoTime();
            Thread.sleep(4_000);
            OptionalLong cpu1 = q.cpuUsageNanos();
            long wall1 = System.nanoTime();
            assertThat(q.pids()).hasSize(2);
            q.close();

            double perWall = (double) (cpu1.getAsLong() - cpu0.getAsLong()) / (wall1 - wall0);
            assertThat(perWall).as("CPU seconds per wall second of a 0.5-share group").isBetween(0.45, 0.55);
            assertThat(burners).allSatisfy(b -> assertThat(b.isAlive()).isFalse());
            assertThat(q.exists()).isFalse();
        }
    }

    @Test
    void checkShare_belowWhatTheKernelAccepts_clearMessage() {
        assertThatThrownBy(() -> CpuQuota.checkShare(0.005))
                .hasMessage("--cpu-share 0.005 is below what the kernel accepts: the smallest CFS quota is 1000 µs per"
                        + " 100000 µs period, a share of 0.01 CPU; give at least 0.01");
        assertThatThrownBy(() -> CpuQuota.checkShare(0)).hasMessageContaining("positive number of CPUs");
        assertThatThrownBy(() -> StartupProbe.builder().cpuShare(-1)).hasMessageContaining("positive number of CPUs");
        assertThat(CpuQuota.checkShare(0.01)).isEqualTo(0.01);
    }

    @Test
    void wrap_commandJoinsEveryGroupDirectoryBeforeExec() throws Exception {
        try (CpuQuota q = CpuQuota.open(1, System.getenv())) {
            Process p = new ProcessBuilder(q.wrap(List.of("cat", "/proc/self/cgroup"))).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor()).isZero();
            assertThat(out).contains(q.name());
        }
    }

    private static List<Path> groupDirs(String name) throws Exception {
        List<Path> out = new ArrayList<>();
        for (String c : List.of("cpu", "cpuacct")) {
            Path m = CpuQuota.cgroupV1Mount(c);
            if (m != null && Files.isDirectory(m.resolve(name))) {
                out.add(m.resolve(name));
            }
        }
        return out;
    }

    private static List<Path> awaitGroupDirs(long kilnPid) throws Exception {
        Path m = CpuQuota.cgroupV1Mount("cpu");
        List<Path> out = new ArrayList<>();
        try (var s = Files.newDirectoryStream(m, CpuQuota.PREFIX + kilnPid + "-*")) {
            s.forEach(out::add);
        }
        return out;
    }

    /** Finds a probed server's pid by the marker in its command line. */
    private static final class ProcessProbe {
        static long pidOf(String server, String marker) throws Exception {
            List<Long> pids = ProbeProcesses.livingWith(marker + "-" + server);
            if (pids.isEmpty()) {
                throw new IllegalStateException("no process of " + server + " found");
            }
            return pids.get(0);
        }
    }
}
