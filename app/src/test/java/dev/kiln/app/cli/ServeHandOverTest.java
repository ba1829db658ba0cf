package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.doctor.Diagnosis;
import dev.kiln.core.doctor.Doctor;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.serve.client.FollowChanged;
import dev.kiln.core.engine.OwnershipChanged;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.serve.client.ServeLock;
import dev.kiln.core.serve.WorkspaceOwnership;
import dev.kiln.core.engine.OwnershipChanged.Mode;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hand-over of a workspace as a race (#25): a console follows a real {@code kiln serve} child process, the daemon
 * is stopped (SIGTERM, SIGKILL) and a new one started 0 to 2,000 ms later, as a service restart does, while the
 * console takes the workspace over. Whoever wins, exactly one process holds the lock and writes state.json, the other
 * follows it (or, a refused daemon, exits saying who owns the workspace), state.json names the owner as its writer,
 * and the doctor finds no second writer.
 *
 * <p>The console is the real mechanism ({@link WorkspaceOwnership}, taking over when it sees {@link Mode#VACANT} the
 * way its view model does), in this JVM, with a reader of the lock beside it as the console's follower, status and
 * {@code kiln project} client are: each open of the lock file by another thread of the owning process used to be able
 * to drop its lock.
 */
@ProcessTest @DaemonTest @KernelTest
class ServeHandOverTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int[] DELAYS_MS = {0, 50, 200, 500, 1000, 2000};

    @TempDir
    Path dir;
    private final List<Process> children = new ArrayList<>();
    private final ExecutorService takeOver = Executors.newSingleThreadExecutor();
    private volatile WorkspaceOwnership console;
    private volatile boolean following;
    private volatile boolean reading = true;
    private Thread reader;
    private final List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws Exception {
        reading = false;
        if (spare != null) {
            spare.destroyForcibly();
        }
        if (reader != null) {
            reader.join(10_000);
        }
        if (console != null) {
            console.close();
        }
        takeOver.shutdownNow();
        for (Process p : children) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void handOver_daemonStoppedAndRestartedAtOnceWhileAConsoleFollows_exactlyOneWriterEveryTime() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "12").exit()).isZero();
        WorkspaceLayout layout = WorkspaceLayout.of(ws);
        Path lockFile = ws.resolve("observer/serve.lock");
        reader = new Thread(() -> {
            while (reading) {
                ServeLock.holder(layout); // what the follower, ServeClient.of and status do, on threads of their own
                // Thousands of opens a second still, without a core spun away from the daemons starting beside it.
                LockSupport.parkNanos(200_000);
            }
        }, "lock-reader");
        reader.setDaemon(true);
        reader.start();
        Process daemon = null;
        for (boolean kill : new boolean[] {false, true}) {
            for (int delay : DELAYS_MS) {
                String what = (kill ? "SIGKILL" : "SIGTERM") + ", new daemon after " + delay + " ms";
                if (daemon == null) {
                    daemon = serve(ws);
                }
                if (console == null) {
                    following = false;
                    console = console(layout);
                    console.start();
                }
                Await.await("the console follows the daemon (" + what + ")", () -> following);
                if (kill) {
                    daemon.destroyForcibly();
                } else {
                    daemon.destroy();
                }
                Thread.sleep(delay); // the restart's timing is the input of this race, not a wait for its outcome
                Process next = start(ws);
                try {
                    Await.await("one owner after the hand-over (" + what + ")", Duration.ofSeconds(40),
                            () -> consoleOwns(next) || daemonOwns(layout, next));
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + "; " + situation(ws, next), e);
                }
                boolean consoleWon = consoleOwns(next);
                long winner = consoleWon ? ProcessHandle.current().pid() : next.pid();

                assertThat(holders(lockFile)).as("processes holding serve.lock (%s)", what).containsExactly(winner);
                if (consoleWon) {
                    assertThat(next.exitValue()).as("the refused kiln serve (%s)", what).isEqualTo(2);
                    List<String> err = Files.readAllLines(errFile(next));
                    assertThat(err).as("its refusal, one line (%s)", what).hasSize(1);
                    assertThat(err.get(0)).contains("is already projected by").contains("one writer per workspace");
                } else {
                    assertThat(console.state().mode()).isEqualTo(Mode.FOLLOW);
                    assertThat(console.projector().readOnly()).as("the following console writes nothing").isTrue();
                }
                // the owner's first tick writes a revision of its own (meta.writer is stable content): who wrote it
                try {
                    Await.await("the owner writes state.json (" + what + ")", () -> writerOf(ws) == winner);
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + "; " + situation(ws, next), e);
                }
                if (!consoleWon) {
                    long revision = JSON.readTree(ws.resolve("observer/state.json").toFile()).path("revision").asLong();
                    Await.await("the follower's read-only tick reads the owner's revision", () -> console.projector()
                            .lastTick() != null && console.projector().lastTick().revision() >= revision);
                }
                Doctor.Builder doctor = Doctor.builder(layout, dev.kiln.core.serve.client.ServeClient.forDoctor());
                if (consoleWon) {
                    doctor.ownDaemon(URI.create(console.state().apiUrl()));
                }
                Diagnosis d = doctor.build().diagnose();
                assertThat(d.verdict()).as("the doctor (%s): %s", what, d.headline()).isEqualTo(Diagnosis.Verdict.UP_TO_DATE);
                assertThat(holders(lockFile)).as("still one holder after the doctor (%s)", what).containsExactly(winner);

                if (consoleWon) { // the next round needs a daemon for a console to follow
                    console.close();
                    console = null;
                    daemon = null;
                } else {
                    daemon = next;
                }
            }
        }
    }

    /** What each party and the files say, for a failure's message. */
    private String situation(Path ws, Process next) {
        String lock;
        String state;
        try {
            lock = ServeLock.holder(WorkspaceLayout.of(ws)) + " held by " + holders(ws.resolve("observer/serve.lock"));
            JsonNode doc = JSON.readTree(ws.resolve("observer/state.json").toFile());
            state = "revision " + doc.path("revision") + " writer " + doc.path("meta").path("writer");
        } catch (IOException e) {
            lock = state = e.toString();
        }
        return "LOG\n" + String.join("\n", log.subList(Math.max(0, log.size() - 40), log.size()))
                + "\nconsole " + console.state() + " token " + Files.exists(ws.resolve("observer/api-token")) + "; kiln serve pid " + next.pid() + (next.isAlive() ? " running" : " exited")
                + "; serve.lock: " + lock + "; state.json: " + state + "; this JVM is pid " + ProcessHandle.current().pid();
    }

    private boolean consoleOwns(Process next) {
        return !next.isAlive() && console.state().mode() == Mode.OWN;
    }

    private boolean daemonOwns(WorkspaceLayout layout, Process next) {
        return next.isAlive() && console.state().mode() == Mode.FOLLOW && following
                && ServeLock.holder(layout).map(h -> h.pid() == next.pid() && h.url() != null).orElse(false);
    }

    /** The console's own mechanism: it follows, and takes the workspace over when the owner is gone. */
    private WorkspaceOwnership console(WorkspaceLayout layout) {
        Clock clock = Clock.systemUTC();
        WorkspaceOwnership[] self = new WorkspaceOwnership[1];
        EventSink events = e -> {
            log.add(System.nanoTime() / 1_000_000 + " " + e.getClass().getSimpleName() + " " + e);
            if (e instanceof OwnershipChanged o) {
                if (o.mode() == Mode.VACANT) {
                    takeOver.submit(() -> self[0].start()); // as ProjectionViewModel does, off the event's thread
                }
                if (o.mode() != Mode.FOLLOW) {
                    following = false;
                }
            } else if (e instanceof FollowChanged f) {
                following = f.following();
            }
        };
        Projector own = Projector.builder(layout).clock(clock).events(events).build();
        self[0] = WorkspaceOwnership.of(layout, own, () -> ProjectionDaemon.builder(layout).clock(clock).events(events)
                .holder(ServeLock.Kind.CONSOLE)
                .pacing(new ChangePacer.Settings(Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofHours(1)))
                .port(0), events, clock, Duration.ofMillis(300));
        return self[0];
    }

    private Path errFile(Process p) {
        return dir.resolve("serve-" + p.pid() + ".err");
    }

    /** A real {@code kiln serve} child, started now; its stderr goes to {@link #errFile}. */
    private Process start(Path ws) throws IOException {
        Process p = spare != null ? spare : prestart(ws);
        spare = prestart(ws); // the next one boots while this round runs
        p.getOutputStream().write('\n');
        p.getOutputStream().flush();
        return p;
    }

    private Process spare;

    /** A {@code kiln serve} child whose JVM boots now and which starts serving on its cue ({@link ServeOnCue}). */
    private Process prestart(Path ws) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path err = Files.createTempFile(dir, "serve-", ".err");
        Process p = new ProcessBuilder(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
                "-cp", System.getProperty("java.class.path"), ServeOnCue.class.getName(), "serve", ws.toString(), "--port", "0",
                "--interval", "100ms").redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Files.move(err, errFile(p)); // the child keeps writing to the same file under its new name
        children.add(p);
        return p;
    }

    private Process serve(Path ws) throws Exception {
        Process p = start(ws);
        WorkspaceLayout layout = WorkspaceLayout.of(ws);
        try {
            Await.await("kiln serve owns the workspace", Duration.ofSeconds(40),
                    () -> ServeLock.holder(layout).map(h -> h.pid() == p.pid() && h.url() != null).orElse(false));
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + ": " + Files.readString(errFile(p)) + " LOG " + String.join("\n", log.subList(Math.max(0, log.size() - 30), log.size()))
                    + " holders " + holders(ws.resolve("observer/serve.lock")), e);
        }
        Await.await("its first revision", () -> writerOf(ws) == p.pid());
        return p;
    }

    /** The pid state.json names as its writer ({@code meta.writer}), or -1. */
    private static long writerOf(Path ws) {
        try {
            return JSON.readTree(ws.resolve("observer/state.json").toFile()).path("meta").path("writer").path("pid").asLong(-1);
        } catch (IOException e) {
            return -1; // replaced while read: read again
        }
    }

    /** The pids holding a POSIX lock on {@code lock}'s inode, as the kernel lists them ({@code /proc/locks}). */
    static Set<Long> holders(Path lock) throws IOException {
        long ino = (Long) Files.getAttribute(lock, "unix:ino");
        return Files.readAllLines(Path.of("/proc/locks")).stream().map(l -> l.trim().split("\\s+"))
                .filter(t -> t.length > 5 && t[1].equals("POSIX") && t[5].endsWith(":" + ino))
                .map(t -> Long.parseLong(t[4])).collect(Collectors.toSet());
    }
}
