package dev.kiln.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the real {@code ./kiln} launcher after {@code package}: it must start from the build, headless, with no display. */
@ProcessTest @DaemonTest
class LauncherIT {
    private static final Path ROOT = Path.of(System.getProperty("kiln.project.root", "..")).toAbsolutePath().normalize();

    @TempDir
    Path tmp;

    record Result(int code, String out, String err) {
    }

    private Result kiln(String... args) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(List.of(ROOT.resolve("kiln").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile());
        Map<String, String> env = pb.environment();
        env.remove("DISPLAY"); // headless sub-commands must not need one
        env.put("XDG_DATA_HOME", tmp.resolve("data").toString());
        env.put("XDG_STATE_HOME", tmp.resolve("state").toString());
        pb.redirectOutput(tmp.resolve("out.txt").toFile()).redirectError(tmp.resolve("err.txt").toFile());
        Process p = pb.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("kiln %s finished", cmd).isTrue();
        return new Result(p.exitValue(), Files.readString(tmp.resolve("out.txt")), Files.readString(tmp.resolve("err.txt")));
    }

    @Test
    void version_printsVersionWithoutRebuilding() throws Exception {
        Result r = kiln("--version");

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("kiln 0.1.0");
        assertThat(r.err()).doesNotContain("building");
    }

    @Test
    void demo_writesWorkspaceHeadless() throws Exception {
        Result r = kiln("demo", tmp.resolve("ws").toString(), "--contracts", "40");

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("contracts:      40");
        try (var s = Files.walk(tmp.resolve("ws/tasks"))) {
            assertThat(s.filter(p -> p.endsWith("contract.json")).count()).isEqualTo(40);
        }
    }

    @Test
    void screenshot_rendersAPageToPngWithNoDisplay() throws Exception {
        kiln("demo", tmp.resolve("ws").toString(), "--contracts", "40");
        Path png = tmp.resolve("shot.png");

        Result r = kiln("screenshot", "--page", "contracts", "--theme", "light", "--size", "1024x640", "--settle", "1",
                "--out", png.toString(), tmp.resolve("ws").toString());

        assertThat(r.code()).as(r.err()).isZero();
        byte[] bytes = Files.readAllBytes(png);
        assertThat(bytes).startsWith(0x89, 'P', 'N', 'G');
        java.nio.ByteBuffer ihdr = java.nio.ByteBuffer.wrap(bytes, 16, 8);
        assertThat(ihdr.getInt()).isEqualTo(1024);
        assertThat(ihdr.getInt()).isEqualTo(640);
    }

    /** {@code kiln bench ui}, small: the console headless under edits, then a short simulated run; figures that add up. */
    @Test
    void benchUi_smallRun_reportsPulseGapsAndHeap() throws Exception {
        Result r = kiln("bench", "ui", "--contracts", "300", "--warmup-seconds", "1", "--seconds", "2", "--edits-per-second", "10",
                "--memory-contracts", "40", "--ticks", "30", "--hotspots", "--json");

        assertThat(r.code()).as(r.err()).isZero();
        com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        assertThat(j.path("benchmark").asText()).isEqualTo("ui");
        assertThat(j.path("pulses").asInt()).as("pulses timed in 2 s at 250 Hz").isGreaterThan(50);
        assertThat(j.path("max_fx_stall_ms").asDouble()).isGreaterThanOrEqualTo(j.path("p99_fx_stall_ms").asDouble());
        assertThat(j.path("p99_fx_stall_ms").asDouble()).isGreaterThanOrEqualTo(j.path("p50_fx_stall_ms").asDouble());
        assertThat(j.path("p50_fx_stall_ms").asDouble()).isGreaterThan(0);
        assertThat(j.path("edits_made").asInt()).isGreaterThan(0);
        assertThat(j.path("warmup_seconds").asInt()).isEqualTo(1);
        assertThat(j.path("max_fx_stall_ms_warmup").asDouble()).isGreaterThanOrEqualTo(j.path("p99_fx_stall_ms_warmup").asDouble()).isGreaterThan(0);
        assertThat(j.path("max_fx_stall_ms_sampled").asDouble()).as("the sampled window, timed apart").isGreaterThan(0);
        assertThat(j.path("stall_hotspots").isObject()).isTrue();
        assertThat(j.path("ticks_simulated").asInt()).isEqualTo(30);
        assertThat(j.path("heap_after_gc_mb").asDouble()).isGreaterThan(1);
        assertThat(j.has("meets_target")).isTrue();
    }

    @Test
    void help_listsSubcommands() throws Exception {
        Result r = kiln("--help");

        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("demo").contains("bench");
    }

    @Test
    void logs_goToTheStateDirectory() throws Exception {
        kiln("demo", tmp.resolve("ws2").toString(), "--contracts", "5");

        assertThat(tmp.resolve("state/kiln/logs")).isDirectory();
        assertThat(Files.readString(ROOT.resolve("kiln"), StandardCharsets.UTF_8)).contains("-m dev.kiln.app/dev.kiln.app.Main");
    }

    /**
     * A real {@code kiln serve} in another process, SIGKILLed while a console follows it: the OS drops its lock,
     * the follower sees it gone, and the console takes the workspace over. Nothing is left half-written.
     */
    @Test
    void serveKilled_aFollowingConsoleTakesTheWorkspaceOver() throws Exception {
        Path ws = tmp.resolve("served");
        assertThat(kiln("demo", ws.toString(), "--contracts", "30").code()).isZero();
        ProcessBuilder pb = new ProcessBuilder(ROOT.resolve("kiln").toString(), "serve", ws.toString(), "--port", "0")
                .directory(tmp.toFile()).redirectOutput(tmp.resolve("serve-out.txt").toFile())
                .redirectError(tmp.resolve("serve-err.txt").toFile());
        pb.environment().remove("DISPLAY");
        pb.environment().put("XDG_STATE_HOME", tmp.resolve("state").toString());
        Process serve = pb.start();
        dev.kiln.core.workspace.WorkspaceLayout layout = dev.kiln.core.workspace.WorkspaceLayout.of(ws);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (dev.kiln.core.serve.client.ServeLock.holder(layout).map(h -> h.url() == null).orElse(true)) {
                assertThat(serve.isAlive()).as("kiln serve runs: %s", Files.readString(tmp.resolve("serve-err.txt"))).isTrue();
                assertThat(System.nanoTime()).as("kiln serve announced its API").isLessThan(deadline);
                Thread.sleep(50);
            }
            dev.kiln.core.telemetry.EventBus bus = new dev.kiln.core.telemetry.EventBus();
            java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
            bus.subscribe(e -> {
                if (e instanceof dev.kiln.core.serve.client.FollowChanged f && f.ended()) {
                    ended.countDown();
                }
            });
            try (dev.kiln.core.Kiln kiln = dev.kiln.core.Kiln.open(ws, bus, java.time.Clock.systemUTC())) {
                assertThat(kiln.startLive()).get().asString().contains("pid " + serve.pid());
                assertThat(kiln.projector().readOnly()).isTrue();

                serve.destroyForcibly(); // SIGKILL: no shutdown hook, no clean close
                assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();

                assertThat(ended.await(60, TimeUnit.SECONDS)).as("the follower saw the daemon gone").isTrue();
                assertThat(kiln.startLive()).as("the lock died with the process").isEmpty();
                assertThat(dev.kiln.core.serve.client.ServeLock.holder(layout)).get()
                        .extracting(dev.kiln.core.serve.client.ServeLock.Holder::pid).isEqualTo(ProcessHandle.current().pid());
                kiln.projectNow();
                assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(layout.stateFile().toFile())
                        .path("leaves").size()).isEqualTo(29);
            }
        } finally {
            serve.destroyForcibly();
        }
    }

    /**
     * Every command of {@code ./kiln} runs with a bounded heap (the JVM's default is a quarter of the RAM): the JVM's own
     * final MaxHeapSize, printed at start by the real java the launcher runs ({@code JAVA_TOOL_OPTIONS} is read before
     * the command line, so it cannot change the heap). {@code KILN_JAVA_OPTS} with its own {@code -Xmx} wins.
     */
    @Test
    void heap_isBoundedForEveryCommand_kilnJavaOptsWins() throws Exception {
        assertThat(maxHeap(Map.of(), "status", "--help")).as("a small command").isEqualTo(256L << 20);
        assertThat(maxHeap(Map.of(), "doctor", "--help")).as("a whole workspace's projection").isEqualTo(1L << 30);
        assertThat(maxHeap(Map.of(), "serve", "--help")).as("the daemon").isEqualTo(1L << 30);
        assertThat(maxHeap(Map.of("KILN_JAVA_OPTS", "-Xmx320m"), "status", "--help")).isEqualTo(320L << 20);
    }

    private long maxHeap(Map<String, String> extraEnv, String... args) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(List.of(ROOT.resolve("kiln").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_TOOL_OPTIONS", "-XX:+PrintFlagsFinal");
        pb.environment().remove("KILN_JAVA_OPTS");
        pb.environment().putAll(extraEnv);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("size_t MaxHeapSize\\s+=\\s+(\\d+)").matcher(out);
        assertThat(m.find()).as("MaxHeapSize in %s", out.lines().limit(5).toList()).isTrue();
        return Long.parseLong(m.group(1));
    }
}
