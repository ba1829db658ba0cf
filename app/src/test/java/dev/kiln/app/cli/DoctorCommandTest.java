package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.HostileDaemon;
import dev.kiln.testkit.ProcessTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln doctor} against real workspaces and a real {@code kiln serve} child process: each cause provoked for
 * real and diagnosed with it, and the doctor never writes to the workspace.
 */
@ProcessTest @DaemonTest
class DoctorCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final List<Process> daemons = new ArrayList<>();

    @AfterEach
    void stopDaemons() throws InterruptedException {
        for (Process p : daemons) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void doctor_projectedWorkspace_upToDateExit0AndWritesNothing() throws Exception {
        Path ws = demo("ws");
        assertThat(CliRun.kiln("project", ws.toString()).exit()).isZero();
        String before = treeHash(ws);

        CliRun r = CliRun.kiln("doctor", ws.toString());

        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).startsWith("up to date: revision 1").contains("no kiln serve keeps it so");
        assertThat(treeHash(ws)).as("the workspace after the doctor").isEqualTo(before);
    }

    @Test
    void doctor_staleWorkspace_explainsEachDifferenceFieldByFieldAndWritesNothing() throws Exception {
        Path ws = demo("ws");
        assertThat(CliRun.kiln("project", ws.toString()).exit()).isZero();
        Path edited = contracts(ws).get(0);
        Files.writeString(edited, Files.readString(edited).replaceFirst("\"title\" : \"[^\"]*\"", "\"title\" : \"Renamed\""));
        Path removed = contracts(ws).get(1);
        Files.delete(removed);
        Path broken = contracts(ws).get(2);
        Files.writeString(broken, "{ not json");
        writeContract(ws.resolve("tasks/added/one"), "added/one", "Added", Instant.parse("2040-01-01T00:00:00Z"));
        String before = treeHash(ws);

        JsonNode d = doctorJson(ws.toString(), 1);

        assertThat(d.path("verdict").asText()).isEqualTo("stale");
        assertThat(d.path("headline").asText()).startsWith("stale by 4 contracts since ").contains("because no kiln serve is running");
        assertThat(kinds(d)).containsExactlyInAnyOrder("changed", "failing_now", "added", "removed");
        JsonNode changed = difference(d, "changed");
        assertThat(changed.path("fields").get(0).path("field").asText()).isEqualTo("title");
        assertThat(changed.path("fields").get(0).path("now").asText()).isEqualTo("Renamed");
        assertThat(difference(d, "failing_now").path("fields").get(0).path("now").asText()).isNotBlank();
        assertThat(d.path("differences").findValuesAsText("cause")).containsOnly("no_daemon");
        assertThat(d.path("evidence").toString()).contains("no kiln serve has served this workspace");
        assertThat(treeHash(ws)).as("the workspace after the doctor").isEqualTo(before);
    }

    @Test
    void doctor_rewriteWithSizeAndMtimePinned_namesTheCtime() throws Exception {
        Path ws = demo("ws");
        assertThat(CliRun.kiln("project", ws.toString()).exit()).isZero();
        Path f = contracts(ws).get(0);
        String text = Files.readString(f);
        FileTime mtime = Files.getLastModifiedTime(f);
        String title = text.replaceFirst("(?s).*\"title\" : \"([^\"]*)\".*", "$1");
        String same = title.substring(0, title.length() - 1) + (title.endsWith("X") ? "Y" : "X"); // same length
        Files.writeString(f, text.replace("\"title\" : \"" + title + "\"", "\"title\" : \"" + same + "\""));
        Files.setLastModifiedTime(f, mtime); // size and mtime as before: only ctime moved
        assertThat(Files.size(f)).isEqualTo(text.getBytes(StandardCharsets.UTF_8).length);

        JsonNode d = doctorJson(ws.toString(), 1);

        JsonNode diff = difference(d, "changed");
        assertThat(causes(diff)).contains("pinned_rewrite");
        assertThat(diff.path("explanations").toString()).contains("ctime").contains("mtime set back");
        assertThat(diff.path("fields").get(0).path("now").asText()).isEqualTo(same);
    }

    /** A "daemon" that claims {@code ws} as its workspace and answers its state with {@code state}. */
    private static HostileDaemon claiming(Path ws, HostileDaemon.Answer state) throws IOException {
        String metrics = JSON.createObjectNode().put("workspace", ws.toString()).put("revision", 1).toString();
        return HostileDaemon.start().route("/api/v1/metrics", HostileDaemon.json(metrics)).route("/api/v1/state", state);
    }

    /** #25 item 8: an endless state made kiln doctor URL throw OutOfMemoryError in the HTTP client, then ignore SIGTERM. */
    @Test
    void doctor_endlessStateOverApi_cannotTellNamingTheDaemonAndTheBound_andNotDeafToSigterm() throws Exception {
        Path ws = demo("ws");
        try (HostileDaemon d = claiming(ws, HostileDaemon.endless())) {
            CliChild c = CliChild.start(dir, List.of("-Xmx256m"), "doctor", d.url().toString());
            try {
                c.awaitEndOrStall(d);
                assertThat(c.terminate(30)).as("kiln doctor exited (by itself, or on SIGTERM)").isTrue();
                assertThat(c.process().exitValue()).as(c.stderr()).isEqualTo(2);
                assertThat(c.stdout()).startsWith("cannot tell").contains("the daemon at " + d.url())
                        .contains("sent more than 128 MiB answering GET /api/v1/state").contains("is a kiln serve");
                assertThat(c.stderr()).doesNotContain("OutOfMemoryError").doesNotContain("\tat ");
            } finally {
                c.process().destroyForcibly();
            }
        }
    }

    /** #25 item 7: a state that drips a byte a second: the doctor had no overall deadline. */
    @Test
    void doctor_stateDrippingAByteASecond_cannotTellAfterItsTimeout() throws Exception {
        Path ws = demo("ws");
        try (HostileDaemon d = claiming(ws, HostileDaemon.drip(Duration.ofMillis(200)))) {
            CliRun r = CliRun.kiln("doctor", d.url().toString(), "--timeout", "1s");
            assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
            assertThat(r.out()).startsWith("cannot tell").contains("the daemon at " + d.url())
                    .contains("did not finish answering the doctor within 1 s").contains("--timeout");
        }
    }

    @Test
    void doctor_daemonKilledWithSigkill_saysNoDaemonAndNamesTheLeftLock() throws Exception {
        Path ws = demo("ws");
        Daemon daemon = serve(ws);
        daemon.process.destroyForcibly(); // SIGKILL: no shutdown hook, the lock file stays
        assertThat(daemon.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ws.resolve("observer/serve.lock")).exists();
        Path f = contracts(ws).get(0);
        Files.writeString(f, Files.readString(f).replaceFirst("\"title\" : \"[^\"]*\"", "\"title\" : \"After the kill\""));

        JsonNode d = doctorJson(ws.toString(), 1);

        assertThat(d.path("headline").asText()).startsWith("stale by 1 contract").contains("because no kiln serve is running");
        JsonNode diff = difference(d, "changed");
        assertThat(diff.path("cause").asText()).isEqualTo("no_daemon");
        assertThat(diff.path("explanations").get(0).path("evidence").asText())
                .contains("pid " + daemon.process.pid()).contains("is not running").contains("left its lock file behind");
        assertThat(d.path("remedies").get(0).asText()).contains("kiln serve " + ws);
    }

    @Test
    void doctor_workspaceDirectoryDeletedAndRecreatedUnderARunningDaemon_namesTheUnwatchedDirectory() throws Exception {
        Path ws = demo("ws");
        Daemon daemon = serve(ws);
        Path old = dir.resolve("ws.old");
        Files.move(ws, old); // the daemon's watches follow the old directories…
        copyTree(old, ws); // …and the recreated ones have none
        Path f = contracts(ws).get(0);
        Files.writeString(f, Files.readString(f).replaceFirst("\"title\" : \"[^\"]*\"", "\"title\" : \"Unseen\""));

        JsonNode d = doctorJson(ws.toString(), 1);

        JsonNode diff = difference(d, "changed");
        assertThat(diff.path("cause").asText()).as(d.toString()).isEqualTo("unwatched_directory");
        assertThat(diff.path("explanations").get(0).path("evidence").asText())
                .contains("is not among the").contains("pid " + daemon.process.pid()).contains("workspace directory was replaced");
        assertThat(d.path("evidence").toString()).contains("runs: revision").contains("holds its lock on another file");
    }

    @Test
    void doctor_secondWriterOfStateJson_saysSoAgainstTheDaemonsRevision() throws Exception {
        Path ws = demo("ws");
        writeContract(ws.resolve("tasks/soon/due"), "soon/due", "Due an hour ago", Instant.now().minus(1, ChronoUnit.HOURS));
        Daemon daemon = serve(ws);
        long daemonRevision = revisionOf(ws);
        // a second projector, as an old kiln or a script would run one, with its clock two hours behind
        Projector second = Projector.builder(WorkspaceLayout.of(ws)).clock(Clock.offset(Clock.systemUTC(), Duration.ofHours(-2))).build();
        assertThat(second.tick(WakeReason.MANUAL).changed()).isTrue();
        second.flush();
        assertThat(revisionOf(ws)).isGreaterThan(daemonRevision);

        JsonNode d = doctorJson(ws.toString(), 1);

        JsonNode diff = keyed(d, "soon/due");
        assertThat(diff.path("fields").findValuesAsText("field")).containsExactly("overdue");
        assertThat(diff.path("cause").asText()).isEqualTo("second_writer");
        assertThat(diff.path("explanations").get(0).path("evidence").asText())
                .contains("revision " + (daemonRevision + 1)).contains("newer than any tick of kiln serve (pid " + daemon.process.pid());
        assertThat(d.path("headline").asText()).contains("because another process writes state.json");
    }

    @Test
    void doctor_secondDaemonWritingWithoutTheLock_namesBothPidsEvenWhenTheContentAgrees() throws Exception {
        Path ws = demo("ws");
        Daemon owner = serve(ws);
        // provoke a second writer for real: with the lock file moved aside a second kiln serve locks a file of its own
        // (as after an rm -rf observer/), writes its revision, and then the owner's lock file is put back
        Path lock = ws.resolve("observer/serve.lock");
        Path aside = ws.resolve("observer/serve.lock.aside");
        Files.move(lock, aside);
        Daemon second = serve(ws);
        for (int i = 0; i < 600 && JSON.readTree(ws.resolve("observer/state.json").toFile()).path("meta").path("writer")
                .path("pid").asLong() != second.process.pid(); i++) {
            Thread.sleep(50);
        }
        Files.move(aside, lock, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(JSON.readTree(ws.resolve("observer/state.json").toFile()).path("meta").path("writer").path("pid").asLong())
                .as("state.json names its writer").isEqualTo(second.process.pid());

        CliRun r = CliRun.kiln("doctor", ws.toString(), "--json");

        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        JsonNode d = JSON.readTree(r.out());
        assertThat(d.path("differences")).as("both project the same tree: no difference, yet").isEmpty();
        assertThat(d.path("headline").asText()).startsWith("two writers: pid " + second.process.pid())
                .contains("beside its owner, pid " + owner.process.pid());
        assertThat(d.path("evidence").toString()).contains("was written by kiln serve (pid " + second.process.pid()
                + "), which is still running but does not hold observer/serve.lock; pid " + owner.process.pid());
        assertThat(d.path("remedies").get(0).asText()).contains("stop pid " + second.process.pid());
    }

    @Test
    void doctor_deadlineCrossedBetweenHeartbeats_saysOnlyTheHeartbeatRefreshesItAndWhenItIsDue() throws Exception {
        Path ws = demo("ws");
        Daemon daemon = serve(ws, "--heartbeat", "10m");
        long revision = revisionOf(ws);
        Instant deadline = Instant.now().plusSeconds(3);
        writeContract(ws.resolve("tasks/soon/due"), "soon/due", "Due in three seconds", deadline);
        JsonNode published = awaitLeaf(ws, "soon/due", revision);
        assertThat(published.path("overdue").asBoolean()).as("published before its deadline").isFalse();
        while (!Instant.now().isAfter(deadline.plusMillis(200))) {
            Thread.sleep(100);
        }

        JsonNode d = doctorJson(ws.toString(), 1);

        assertThat(d.path("differences")).hasSize(1);
        JsonNode diff = keyed(d, "soon/due");
        assertThat(diff.path("fields").findValuesAsText("field")).containsExactly("overdue");
        assertThat(diff.path("cause").asText()).isEqualTo("heartbeat_pending");
        assertThat(diff.path("explanations").get(0).path("evidence").asText())
                .contains("passed at").contains("next is due at").contains("every 10m").contains("the daemon's /api/metrics");
        assertThat(diff.path("changed_at").asText()).isEqualTo(deadline.toString());
        assertThat(d.path("remedies").get(0).asText()).contains("wait for the next heartbeat (due ");

        // the same daemon through its URL: /api/v1/state against the disk
        JsonNode viaUrl = doctorJson(daemon.url.toString(), 1);
        assertThat(viaUrl.path("source").asText()).isEqualTo(daemon.url.resolve("api/v1/state").toString());
        assertThat(difference(viaUrl, "changed").path("cause").asText()).isEqualTo("heartbeat_pending");
    }

    @Test
    void doctor_lockHeldByAProcessWithoutTheApi_saysAnotherProcessHoldsIt() throws Exception {
        Path ws = demo("ws");
        assertThat(CliRun.kiln("project", ws.toString()).exit()).isZero();
        Path lock = ws.resolve("observer/serve.lock");
        // a real POSIX lock (fcntl, as the JDK takes it) held by a process that is no kiln serve
        Process holder = new ProcessBuilder("python3", "-c", "import fcntl, os, sys, time\n"
                + "f = open(sys.argv[1], 'w')\nfcntl.lockf(f, fcntl.LOCK_EX)\n"
                + "f.write('pid %d\\nurl http://127.0.0.1:9/\\n' % os.getpid()); f.flush()\n"
                + "print('locked', flush=True)\ntime.sleep(120)\n", lock.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        daemons.add(holder);
        assertThat(new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8)).readLine())
                .isEqualTo("locked");
        Path f = contracts(ws).get(0);
        Files.writeString(f, Files.readString(f).replaceFirst("\"title\" : \"[^\"]*\"", "\"title\" : \"Held\""));

        JsonNode d = doctorJson(ws.toString(), 1);

        JsonNode diff = difference(d, "changed");
        assertThat(diff.path("cause").asText()).isEqualTo("lock_held_elsewhere");
        assertThat(diff.path("explanations").get(0).path("evidence").asText())
                .contains("pid " + holder.pid()).contains("holds observer/serve.lock").contains("does not answer");
        assertThat(d.path("remedies").get(0).asText()).contains("pid " + holder.pid());
    }

    @Test
    void doctor_runningDaemonUpToDate_exit0ByDirAndByUrl() throws Exception {
        Path ws = demo("ws");
        Daemon daemon = serve(ws);
        CliRun byDir = CliRun.kiln("doctor", ws.toString());
        assertThat(byDir.exit()).as(byDir.out()).isZero();
        assertThat(byDir.out()).startsWith("up to date").contains("pid " + daemon.process.pid());
        CliRun byUrl = CliRun.kiln("doctor", daemon.url.toString());
        assertThat(byUrl.exit()).as(byUrl.out()).isZero();
    }

    @Test
    void doctor_cannotTell_exit2WithWhy() throws Exception {
        CliRun none = CliRun.kiln("doctor", dir.resolve("nothing").toString());
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.out()).startsWith("cannot tell: ").contains("not a Kiln workspace").contains("kiln demo");

        Path ws = demo("ws");
        CliRun unpublished = CliRun.kiln("doctor", ws.toString());
        assertThat(unpublished.exit()).isEqualTo(2);
        assertThat(unpublished.out()).contains("nothing is published yet").contains("kiln project " + ws);

        Files.createDirectories(ws.resolve("observer"));
        Files.writeString(ws.resolve("observer/state.json"), "{\"revision\": 3, \"leaves\": [");
        CliRun corrupt = CliRun.kiln("doctor", ws.toString(), "--json");
        assertThat(corrupt.exit()).isEqualTo(2);
        assertThat(JSON.readTree(corrupt.out()).path("headline").asText()).contains("is not valid JSON");

        CliRun noDaemon = CliRun.kiln("doctor", "http://127.0.0.1:9/");
        assertThat(noDaemon.exit()).isEqualTo(2);
        assertThat(noDaemon.out()).contains("did not answer GET /api/v1/version").contains("nothing listens there");
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    private Path demo(String name) {
        Path ws = dir.resolve(name);
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "40").exit()).isZero();
        return ws;
    }

    private static JsonNode doctorJson(String target, int expectedExit) throws IOException {
        CliRun r = CliRun.kiln("doctor", target, "--json");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(expectedExit);
        return JSON.readTree(r.out());
    }

    private static List<String> kinds(JsonNode d) {
        return d.path("differences").findValuesAsText("kind");
    }

    private static JsonNode difference(JsonNode d, String kind) {
        for (JsonNode n : d.path("differences")) {
            if (n.path("kind").asText().equals(kind)) {
                return n;
            }
        }
        throw new AssertionError("no " + kind + " difference in " + d.toPrettyString());
    }

    private static JsonNode keyed(JsonNode d, String key) {
        for (JsonNode n : d.path("differences")) {
            if (n.path("key").asText().equals(key)) {
                return n;
            }
        }
        throw new AssertionError("no difference for " + key + " in " + d.toPrettyString());
    }

    private static List<String> causes(JsonNode diff) {
        return diff.path("explanations").findValuesAsText("cause");
    }

    private static List<Path> contracts(Path ws) throws IOException {
        try (Stream<Path> s = Files.walk(ws.resolve("tasks"))) {
            return s.filter(p -> p.getFileName().toString().equals("contract.json")).sorted().toList();
        }
    }

    private static void writeContract(Path leafDir, String leafId, String title, Instant deadline) throws IOException {
        Files.createDirectories(leafDir);
        Files.writeString(leafDir.resolve("contract.json"), "{\n  \"leaf_id\" : \"" + leafId + "\",\n  \"title\" : \"" + title
                + "\",\n  \"status\" : \"running\",\n  \"enclosure\" : [ \"src/" + leafId + "\" ],\n  \"engine\" : null,\n"
                + "  \"deadline\" : \"" + deadline + "\",\n  \"updated_at\" : \"2026-01-01T00:00:00Z\"\n}\n");
    }

    private static long revisionOf(Path ws) throws IOException {
        return JSON.readTree(ws.resolve("observer/state.json").toFile()).path("revision").asLong();
    }

    /** The leaf as the daemon published it in a revision after {@code after}. */
    private static JsonNode awaitLeaf(Path ws, String leafId, long after) throws Exception {
        for (int i = 0; i < 600; i++) {
            try {
                JsonNode doc = JSON.readTree(ws.resolve("observer/state.json").toFile());
                if (doc.path("revision").asLong() > after) {
                    for (JsonNode l : doc.path("leaves")) {
                        if (l.path("leaf_id").asText().equals(leafId)) {
                            return l;
                        }
                    }
                }
            } catch (IOException e) {
                // replaced while read: read again
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the daemon did not publish " + leafId);
    }

    private record Daemon(Process process, URI url) {
    }

    /** A real {@code kiln serve} child process, once its first projection is published. */
    private Daemon serve(Path ws, String... extra) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        // C1 only, as ServeHandOverTest's children: each method's daemon lives seconds, C2 compiles only cost CPU
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
                "-cp", System.getProperty("java.class.path"),
                "dev.kiln.app.Main", "serve", ws.toString(), "--port", "0", "--interval", "200ms"));
        cmd.addAll(List.of(extra));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        daemons.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String banner = out.readLine();
        assertThat(banner).as("kiln serve's banner").isNotNull().contains("http://");
        URI url = URI.create(banner.substring(banner.indexOf("http://")).trim());
        for (int i = 0; i < 1200; i++) {
            HttpURLConnection c = (HttpURLConnection) url.resolve("api/state").toURL().openConnection();
            int status = c.getResponseCode();
            c.disconnect();
            if (status == 200 && Files.exists(ws.resolve("observer/state.json"))) {
                return new Daemon(p, url);
            }
            Thread.sleep(50);
        }
        throw new AssertionError("kiln serve published nothing");
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                }
            }
        }
    }

    /** Names, contents and modification times of everything under {@code root}. */
    private static String treeHash(Path root) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted().toList()) {
                md.update(root.relativize(p).toString().getBytes(StandardCharsets.UTF_8));
                md.update(Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toString().getBytes(StandardCharsets.UTF_8));
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    md.update(Files.readAllBytes(p));
                }
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
