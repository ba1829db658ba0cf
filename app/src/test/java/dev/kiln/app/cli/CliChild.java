package dev.kiln.app.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The real {@code kiln} CLI in a child JVM, as an operator runs it, for what only a process shows: its heap bound,
 * how it ends on SIGTERM, what reaches its terminal.
 */
record CliChild(Process process, Path out, Path err) {

    /** Starts {@code kiln args…} with the JVM options {@code jvm} (e.g. a small {@code -Xmx}); output goes to files in {@code dir}. */
    static CliChild start(Path dir, List<String> jvm, String... args) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of(java.toString()));
        cmd.addAll(jvm);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.kiln.app.Main"));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "kiln-out", ".txt");
        Path err = Files.createTempFile(dir, "kiln-err", ".txt");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        return new CliChild(p, out, err);
    }

    /**
     * Waits until the command ended, or stopped reading what {@code daemon} sends (its heap ran out): the moment a
     * test sends SIGTERM to a command that is stuck. Only a failing test waits long.
     */
    void awaitEndOrStall(dev.kiln.testkit.HostileDaemon daemon) throws InterruptedException {
        long[] seen = {-1, System.nanoTime()};
        dev.kiln.testkit.Await.await("the command ended, or stopped reading", java.time.Duration.ofSeconds(90), () -> {
            if (!process.isAlive()) {
                return true;
            }
            long n = daemon.bytesSent();
            if (n != seen[0] || n == 0) { // nothing sent yet: the JVM is still starting
                seen[0] = n;
                seen[1] = System.nanoTime();
                return false;
            }
            return System.nanoTime() - seen[1] > 3_000_000_000L;
        });
    }

    /** Sends SIGTERM and waits for the end; whether it ended within {@code seconds}. */
    boolean terminate(int seconds) throws InterruptedException {
        process.destroy();
        return process.waitFor(seconds, java.util.concurrent.TimeUnit.SECONDS);
    }

    String stdout() throws IOException {
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    String stderr() throws IOException {
        return Files.readString(err, StandardCharsets.UTF_8);
    }
}
