package dev.kiln.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.FileTrees;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kiln bench startup}: process start to the console's first frame, for the three ways Kiln starts — the
 * checkout's {@code ./kiln} (module path on the system JDK), the plain jlink image, and the shipped image with its
 * CDS + AppCDS (or AOT cache) archive — interleaved round by round so machine load falls on all three alike.
 *
 * <p>The console writes the wall-clock millis of its first laid-out pulse to {@code -Dkiln.firstFrameFile} and
 * exits ({@code -Dkiln.exitAfterFirstFrame}); the system properties go in through {@code JAVA_TOOL_OPTIONS},
 * which every launcher's JVM reads. One untimed launch of each first warms the page cache (and JavaFX's native
 * cache for the module path), so the figures are warm starts, as a user's second start is.
 */
@Command(name = "startup", mixinStandardHelpOptions = true,
        header = "Cold start to first frame: ./kiln vs the jlink image vs the archived image.",
        description = {"Time process start -> first frame of the console (median of --runs, under Xvfb) for ./kiln (module",
            "path), the plain jlink image and the image with CDS + AppCDS, from a checkout after `mvn -Ppackage package`."})
public final class StartupBenchmark implements Callable<Integer> {
    static final double TARGET_ARCHIVED_MS = 800;
    private static final String EMPTY_STAGE = "empty_stage";

    @Option(names = "--runs", paramLabel = "N", description = "Timed launches of each, median reported (default: ${DEFAULT-VALUE}).")
    int runs = 5;

    @Option(names = "--checkout", paramLabel = "DIR", description = "The source checkout (default: found from here or from the running jar).")
    Path checkout;

    @Option(names = "--images", paramLabel = "DIR", description = "Where the package build put its images (default: CHECKOUT/packaging/target).")
    Path images;

    @Option(names = "--timeout", paramLabel = "S", description = "Seconds one launch may take to show its frame (default: ${DEFAULT-VALUE}).")
    int timeoutSeconds = 90;

    @Option(names = "--json", description = "Print one JSON object.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        if (runs < 1) {
            err.println("kiln: --runs must be at least 1");
            return 2;
        }
        Path root = checkout != null ? checkout.toAbsolutePath().normalize() : findCheckout();
        if (root == null || !Files.isExecutable(root.resolve("kiln"))) {
            err.println("kiln: bench startup runs from a source checkout (it times ./kiln); "
                    + (checkout != null ? root + " has no executable ./kiln" : "none found from " + Path.of("").toAbsolutePath())
                    + ": cd into one or pass --checkout DIR");
            return 2;
        }
        Path target = images != null ? images.toAbsolutePath().normalize() : root.resolve("packaging/target");
        Path plain = target.resolve("image-plain/kiln/bin/kiln");
        Path archived = target.resolve("image/kiln/bin/kiln");
        if (!Files.isExecutable(plain) || !Files.isExecutable(archived)) {
            err.println("kiln: no packaged images in " + target + " (looked for image-plain/kiln and image/kiln): build them with"
                    + " `mvn -B -Ppackage -DskipTests package` in " + root + " (packaging/README.md), then run this again");
            return 2;
        }
        Path scratch = Files.createTempDirectory("kiln-bench-startup");
        try (Display display = Display.open(scratch)) {
            Path ws = scratch.resolve("ws");
            new DemoWorkspace().write(ws, DemoWorkspace.DEFAULT_CONTRACTS, 7, false);
            Map<String, List<String>> launchers = new LinkedHashMap<>();
            launchers.put("module_path", List.of(root.resolve("kiln").toString(), ws.toString()));
            launchers.put("image", List.of(plain.toString(), ws.toString()));
            launchers.put("archived", List.of(archived.toString(), ws.toString()));
            // JavaFX's floor: the archived image, the same theme and window size, an empty Stage (-Dkiln.emptyStage).
            launchers.put(EMPTY_STAGE, List.of(archived.toString(), ws.toString()));
            Map<String, double[]> times = new LinkedHashMap<>();
            Map<String, double[]> cpu = new LinkedHashMap<>();
            for (Map.Entry<String, List<String>> l : launchers.entrySet()) {
                // Untimed: page cache, ~/.openjfx cache, and ./kiln's build when sources changed (hence the long timeout).
                launch(l.getValue(), EMPTY_STAGE.equals(l.getKey()), display, scratch, Math.max(timeoutSeconds, 900));
                times.put(l.getKey(), new double[runs]);
                cpu.put(l.getKey(), new double[runs]);
            }
            for (int i = 0; i < runs; i++) {
                for (Map.Entry<String, List<String>> l : launchers.entrySet()) {
                    double[] t = launch(l.getValue(), EMPTY_STAGE.equals(l.getKey()), display, scratch, timeoutSeconds);
                    times.get(l.getKey())[i] = t[0];
                    cpu.get(l.getKey())[i] = t[1];
                }
            }
            Map<String, Object> cli = cliTimes(target, scratch);
            report(times, cpu, target, display.description(), cli);
            return 0;
        } finally {
            FileTrees.delete(scratch);
        }
    }

    /**
     * One launch: millis from just before the process starts to the first frame it reports, and the CPU millis the
     * process (with its waited-for children, e.g. ./kiln's staleness check) had used by then. The CPU figure is
     * what a loaded machine distorts least: wall time there is mostly waiting for a core.
     */
    private static double[] launch(List<String> command, boolean emptyStage, Display display, Path scratch, int timeoutSeconds)
            throws IOException, InterruptedException {
        Path frame = scratch.resolve("first-frame");
        Files.deleteIfExists(frame);
        Path home = scratch.resolve("home");
        Files.createDirectories(home);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(scratch.resolve("launch.log").toFile());
        Map<String, String> env = pb.environment();
        env.put("DISPLAY", display.name());
        env.put("HOME", home.toString()); // JavaFX's native cache and the user dirs stay in the scratch dir
        env.put("XDG_DATA_HOME", home.resolve("data").toString());
        env.put("XDG_STATE_HOME", home.resolve("state").toString());
        env.put("XDG_CACHE_HOME", home.resolve("cache").toString());
        env.put("JAVA_TOOL_OPTIONS", "-Dkiln.firstFrameFile=" + frame + " -Dkiln.exitAfterFirstFrame=true"
                + (emptyStage ? " -Dkiln.emptyStage=true" : ""));
        long start = System.currentTimeMillis();
        Process p = pb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!Files.exists(frame)) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroyForcibly().waitFor();
                throw new IllegalStateException(String.join(" ", command) + " showed no frame"
                        + (p.isAlive() ? " within " + timeoutSeconds + " s" : " (exit " + p.exitValue() + ")")
                        + "; its output:\n" + Files.readString(scratch.resolve("launch.log")));
            }
            Thread.sleep(2);
        }
        double cpuMs = cpuMillis(p.pid());
        long shown = Long.parseLong(Files.readString(frame).trim());
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
        }
        return new double[] {shown - start, cpuMs};
    }

    /** utime + stime + cutime + cstime from /proc/PID/stat (clock ticks of 10 ms on Linux); NaN if unreadable. */
    static double cpuMillis(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after "pid (comm) ": state is field 3, so utime (14) .. cstime (17) are at 11..14 here
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
            return ticks * 10.0;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /**
     * The installed command line (the image's PATH launcher, as {@code /usr/bin/kiln} runs it): {@code --version},
     * {@code status URL} against a daemon in this process, and {@code project} on 500 contracts, beside the image's
     * own {@code java -version} (the JVM's floor), alternated per round so drift hits all alike.
     */
    private Map<String, Object> cliTimes(Path target, Path scratch) throws Exception {
        Path app = target.resolve("image/kiln");
        Path cliScript = app.resolve("lib/kiln-cli.sh");
        String kiln = Files.isExecutable(cliScript) ? cliScript.toString() : app.resolve("bin/kiln").toString();
        String java = app.resolve("lib/runtime/bin/java").toString();
        Path ws500 = scratch.resolve("ws500");
        new DemoWorkspace().write(ws500, 500, 7, false);
        Map<String, Object> out = new LinkedHashMap<>();
        try (dev.kiln.core.serve.ProjectionDaemon d = dev.kiln.core.serve.ProjectionDaemon
                .builder(dev.kiln.core.workspace.WorkspaceLayout.of(scratch.resolve("ws"))).port(0).start()) {
            Map<String, List<String>> commands = new LinkedHashMap<>();
            commands.put("java_version", List.of(java, "-version"));
            commands.put("cli_version", List.of(kiln, "--version"));
            commands.put("cli_status", List.of(kiln, "status", d.url().toString()));
            commands.put("cli_project_500", List.of(kiln, "project", ws500.toString()));
            Map<String, double[]> ms = new LinkedHashMap<>();
            for (Map.Entry<String, List<String>> c : commands.entrySet()) {
                timeCommand(c.getValue(), scratch); // untimed: page cache
                ms.put(c.getKey(), new double[Math.max(runs, 5)]);
            }
            for (int i = 0; i < Math.max(runs, 5); i++) {
                for (Map.Entry<String, List<String>> c : commands.entrySet()) {
                    ms.get(c.getKey())[i] = timeCommand(c.getValue(), scratch);
                }
            }
            ms.forEach((k, v) -> out.put(k + "_ms_median", median(v)));
            out.put("cli_version_over_java_version", round(median(ms.get("cli_version")) / median(ms.get("java_version"))));
            out.put("cli_launcher", kiln);
            out.put("target_cli_version_ms", 200);
            out.put("target_cli_project_500_ms", 500);
            ms.forEach((k, v) -> out.put(k + "_ms", v));
        }
        return out;
    }

    /** Millis from start to exit of one command, which must exit 0 (status: any verdict but unreachable). */
    private static double timeCommand(List<String> command, Path scratch) throws IOException, InterruptedException {
        Path home = scratch.resolve("home");
        Files.createDirectories(home);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(scratch.resolve("cli.log").toFile());
        pb.environment().put("HOME", home.toString());
        pb.environment().put("XDG_STATE_HOME", home.resolve("state").toString());
        pb.environment().put("XDG_DATA_HOME", home.resolve("data").toString());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        long t0 = System.nanoTime();
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new IllegalStateException(String.join(" ", command) + " did not finish within 120 s");
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        // status exits 2 for a failing daemon too (the demo workspace plants a failing contract): only unreachable is an error.
        boolean answered = p.exitValue() <= 1 || p.exitValue() == 2 && "status".equals(command.get(1))
                && !Files.readString(scratch.resolve("cli.log")).contains("unreachable");
        if (!answered) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + p.exitValue() + ":\n"
                    + Files.readString(scratch.resolve("cli.log")));
        }
        return round(ms);
    }

    private void report(Map<String, double[]> times, Map<String, double[]> cpu, Path target, String display,
            Map<String, Object> cli) throws IOException {
        Properties build = new Properties();
        Path props = target.resolve("build.properties");
        if (Files.exists(props)) {
            try (InputStream in = Files.newInputStream(props)) {
                build.load(in);
            }
        }
        double mp = median(times.get("module_path"));
        double plain = median(times.get("image"));
        double archived = median(times.get("archived"));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("benchmark", "startup");
        out.put("runs", runs);
        out.put("display", display);
        out.put("jdk_image", build.getProperty("jdk.feature", "?"));
        out.put("jdk_module_path", Runtime.version().feature());
        out.put("archive", build.getProperty("archive", "?"));
        out.put("first_frame_ms_median_module_path", mp);
        out.put("first_frame_ms_median_image", plain);
        out.put("first_frame_ms_median_archived", archived);
        double empty = median(times.get(EMPTY_STAGE));
        out.put("empty_stage_first_frame_ms", empty);
        out.put("ratio_archived_to_empty_stage", round(archived / empty));
        out.put("ratio_archived_to_image", round(archived / plain));
        out.put("ratio_archived_to_module_path", round(archived / mp));
        out.put("target_archived_ms", TARGET_ARCHIVED_MS);
        out.put("meets_target", archived <= TARGET_ARCHIVED_MS);
        cpu.forEach((k, v) -> out.put("first_frame_cpu_ms_median_" + k, median(v)));
        out.put("cpu_ratio_archived_to_image", round(median(cpu.get("archived")) / median(cpu.get("image"))));
        times.forEach((k, v) -> out.put("first_frame_ms_" + k, v));
        out.putAll(cli);
        out.put("load_average_1m", loadAverage());
        out.put("runtime_bytes", bytes(target.resolve("image/kiln/lib/runtime")));
        out.put("image_bytes", bytes(target.resolve("image/kiln")));
        out.put("archive_bytes", longOr(build, "archive.bytes"));
        Path deb = debIn(target);
        out.put("deb", deb == null ? null : deb.getFileName().toString());
        out.put("deb_bytes", deb == null ? null : Files.size(deb));
        out.put("deb_installed_bytes", longOr(build, "deb.installed.bytes"));
        PrintWriter w = spec.commandLine().getOut();
        if (json) {
            w.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(out));
        } else {
            w.printf("first frame, median of %d (%s):%n", runs, display);
            w.printf("  ./kiln (module path, JDK %d)  %8.0f ms%n", Runtime.version().feature(), mp);
            w.printf("  jlink image, no archive       %8.0f ms%n", plain);
            w.printf("  image + %-21s %8.0f ms  (x%.2f of the plain image; target <= %.0f ms)%n",
                    build.getProperty("archive", "archive"), archived, archived / plain, TARGET_ARCHIVED_MS);
            w.printf("  an empty Stage, same image     %8.0f ms  (JavaFX's floor; the console x%.2f of it)%n", empty, archived / empty);
            w.printf("  CPU to first frame (medians): ./kiln %.0f ms, image %.0f ms, archived %.0f ms; load average %s%n",
                    median(cpu.get("module_path")), median(cpu.get("image")), median(cpu.get("archived")), out.get("load_average_1m"));
            w.printf("  runtime %s bytes, .deb %s bytes, installed %s bytes%n", out.get("runtime_bytes"), out.get("deb_bytes"), out.get("deb_installed_bytes"));
            w.printf("command line, medians: --version %s ms, status URL %s ms, project (500) %s ms; the image's java -version %s ms%n",
                    out.get("cli_version_ms_median"), out.get("cli_status_ms_median"), out.get("cli_project_500_ms_median"),
                    out.get("java_version_ms_median"));
        }
        w.flush();
    }

    /** The 1-minute load average when the runs ended, so a reader can tell a quiet run from a loaded one. */
    private static Double loadAverage() {
        try {
            return Double.valueOf(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static Path debIn(Path target) throws IOException {
        try (Stream<Path> s = Files.list(target)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".deb")).findFirst().orElse(null);
        }
    }

    private static Long longOr(Properties p, String key) {
        String v = p.getProperty(key);
        return v == null ? null : Long.valueOf(v);
    }

    private static long bytes(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        }
    }

    static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /** The checkout: up from the working directory, else up from the running jar (app/target/kiln-app.jar). */
    private static Path findCheckout() {
        List<Path> starts = new ArrayList<>();
        starts.add(Path.of("").toAbsolutePath());
        try {
            var src = StartupBenchmark.class.getProtectionDomain().getCodeSource();
            if (src != null) {
                starts.add(Path.of(src.getLocation().toURI()));
            }
        } catch (URISyntaxException | IllegalArgumentException e) {
            // a jrt: location (running from the image): only the working directory is left to try
        }
        for (Path p : starts) {
            for (Path d = p; d != null; d = d.getParent()) {
                if (Files.isRegularFile(d.resolve("packaging/build.sh")) && Files.isRegularFile(d.resolve("kiln"))) {
                    return d;
                }
            }
        }
        return null;
    }

    /**
     * An X display for the launches: a private Xvfb (as xvfb-run would start, but one for all launches, so its
     * own start is not timed), else $DISPLAY.
     */
    private static final class Display implements AutoCloseable {
        private final String name;
        private final Process xvfb;

        private Display(String name, Process xvfb) {
            this.name = name;
            this.xvfb = xvfb;
        }

        static Display open(Path scratch) throws IOException, InterruptedException {
            if (onPath("Xvfb")) {
                // -displayfd 1: Xvfb picks a free display and prints its number once it accepts connections.
                Process p = new ProcessBuilder("Xvfb", "-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
                        .redirectError(scratch.resolve("xvfb.log").toFile()).start();
                BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
                String number = r.readLine();
                if (number == null || !number.trim().matches("\\d+")) {
                    p.destroyForcibly().waitFor();
                    throw new IllegalStateException("Xvfb did not start: " + Files.readString(scratch.resolve("xvfb.log")));
                }
                return new Display(":" + number.trim(), p);
            }
            String env = System.getenv("DISPLAY");
            if (env == null || env.isBlank()) {
                throw new IllegalArgumentException("bench startup needs Xvfb (apt-get install --no-install-recommends xvfb xauth) or a $DISPLAY");
            }
            return new Display(env, null);
        }

        private static boolean onPath(String tool) {
            String path = System.getenv().getOrDefault("PATH", "");
            return Arrays.stream(path.split(":")).anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, tool)));
        }

        String name() {
            return name;
        }

        String description() {
            return xvfb != null ? "Xvfb " + name : "DISPLAY " + name;
        }

        @Override
        public void close() throws InterruptedException {
            if (xvfb != null) {
                xvfb.destroy();
                if (!xvfb.waitFor(5, TimeUnit.SECONDS)) {
                    xvfb.destroyForcibly().waitFor();
                }
            }
        }
    }
}
