package dev.kiln.core.serve;

import dev.kiln.core.serve.client.ClientInternals;
import dev.kiln.core.serve.client.FollowChanged;
import dev.kiln.core.serve.client.ServeLock;
import dev.kiln.testkit.Await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.Kiln;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.snapshot.TestTrees;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real daemon on a real workspace: files, inotify, HTTP and SSE. Waits are bounded; nothing asserts a duration. */
@ProcessTest @DaemonTest
class ProjectionDaemonTest {
    private static final ObjectMapper M = new ObjectMapper();
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    Path dir;
    private WorkspaceLayout layout;
    private ProjectionDaemon daemon;

    @BeforeEach
    void workspace() throws Exception {
        layout = WorkspaceLayout.of(dir);
        TestTrees.contract(layout.tasksDir(), "payments/refunds/retry", "running");
        TestTrees.contract(layout.tasksDir(), "search/ranking/backfill", "pending");
    }

    @AfterEach
    void stop() {
        if (daemon != null) {
            daemon.close();
        }
    }

    private ProjectionDaemon start() throws Exception {
        daemon = ProjectionDaemon.builder(layout)
                .pacing(new ChangePacer.Settings(Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofHours(1)))
                .watchBackoff(Duration.ofMillis(50), Duration.ofMillis(200))
                .port(0)
                .start();
        daemon.awaitFirstProjection(PATIENCE);
        return daemon;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        Await.await(what, PATIENCE, condition);
    }

    private static void retitle(Path contract, String title) throws Exception {
        ObjectNode c = (ObjectNode) M.readTree(contract.toFile());
        c.put("title", title);
        Files.write(contract, M.writeValueAsBytes(c));
    }

    @Test
    void serve_contractEdit_sseSnapshotThenDeltaWithTheEditedLeaf() throws Exception {
        start();
        try (SseClient sse = new SseClient(daemon.url().resolve("/api/events"), null)) {
            SseClient.Event snap = sse.next();
            assertThat(snap.event()).isEqualTo("snapshot");
            JsonNode doc = M.readTree(snap.data());
            assertThat(doc.path("leaves")).hasSize(2);
            assertThat(doc.path("meta").path("watch").path("mode").asText()).isEqualTo("live");
            long rev = Long.parseLong(snap.id());

            retitle(layout.tasksDir().resolve("payments/refunds/retry/contract.json"), "Retry refunds, edited");
            SseClient.Event delta = sse.next();
            assertThat(delta).isNotNull();
            assertThat(delta.event()).isEqualTo("delta");
            assertThat(Long.parseLong(delta.id())).isEqualTo(rev + 1);
            JsonNode d = M.readTree(delta.data());
            assertThat(d.path("changed").path("payments/refunds/retry").path("title").asText()).isEqualTo("Retry refunds, edited");
            assertThat(d.path("added")).isEmpty();
            assertThat(d.path("removed")).isEmpty();
        }
        // the tick's record lands just after its delta goes out
        await("the change tick recorded", () -> metrics().byReason(WakeReason.CHANGE) >= 1);
        ProjectionDaemonMetrics m = metrics();
        assertThat(m.last().path("full").asBoolean()).as("a change while live is incremental").isFalse();
        await("documents synced behind their ticks", () -> metrics().json().path("state_file").path("syncs").asLong() >= 1);
        assertThat(metrics().json().path("state_file").path("sync_ms_total").asDouble()).isPositive();
    }

    @Test
    void state_etagAndIfNoneMatch_304UntilTheNextRevision() throws Exception {
        start();
        Http.Response first = Http.call("GET", daemon.url().resolve("/api/state"));
        assertThat(first.statusCode()).isEqualTo(200);
        String etag = first.header("ETag").orElseThrow();
        assertThat(etag).isEqualTo("W/\"" + M.readTree(first.body()).path("revision").asLong() + "\"");
        assertThat(Http.call("GET", daemon.url().resolve("/api/state"), "If-None-Match", etag).statusCode()).isEqualTo(304);
        TestTrees.contract(layout.tasksDir(), "ingest/crawler/probe", "pending");
        await("a new revision", () -> {
            try {
                return Http.call("GET", daemon.url().resolve("/api/state"), "If-None-Match", etag).statusCode() == 200;
            } catch (Exception e) {
                return false;
            }
        });
        JsonNode doc = M.readTree(Http.call("GET", daemon.url().resolve("/api/state")).body());
        assertThat(doc.path("leaves")).hasSize(3);
        assertThat(doc.path("meta").path("daemon").path("projections").asLong()).isPositive();
    }

    @Test
    void project_manualWithToken_runsAFullManualTick() throws Exception {
        start();
        assertThat(Http.call("POST", daemon.url().resolve("/api/project")).statusCode()).isEqualTo(401);
        String token = Files.readString(layout.apiTokenFile()).trim();
        Http.Response r = Http.call("POST", daemon.url().resolve("/api/project"), "Authorization", "Bearer " + token);
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode t = M.readTree(r.body());
        assertThat(t.path("reason").asText()).isEqualTo("manual");
        assertThat(t.path("full").asBoolean()).isTrue();
        assertThat(metrics().byReason(WakeReason.MANUAL)).isEqualTo(1);
    }

    @Test
    void heal_dryRun_reportsTheLegacyIdWithoutWriting() throws Exception {
        Path legacy = layout.tasksDir().resolve("billing/invoices/audit/contract.json");
        Files.createDirectories(legacy.getParent());
        Files.writeString(legacy, "{\"leaf_id\": \"audit\", \"title\": \"Audit\", \"status\": \"pending\"}");
        start();
        String token = Files.readString(layout.apiTokenFile()).trim();
        Http.Response r = Http.call("POST", daemon.url().resolve("/api/heal?dry_run=true"), "Authorization", "Bearer " + token);
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode h = M.readTree(r.body());
        assertThat(h.path("dry_run").asBoolean()).isTrue();
        assertThat(h.path("changes").get(0).path("to").asText()).isEqualTo("billing/invoices/audit");
        assertThat(Files.readString(legacy)).contains("\"audit\"");
    }

    @Test
    void serve_twiceOnOneWorkspace_secondRefusesNamingTheFirst() throws Exception {
        start();
        assertThatThrownBy(() -> ProjectionDaemon.builder(layout).port(0).start())
                .isInstanceOf(WorkspaceException.class)
                .hasMessageContaining("is already projected by kiln serve (pid " + ProcessHandle.current().pid() + ")")
                .hasMessageContaining("pid " + ProcessHandle.current().pid());
        assertThat(Http.call("GET", daemon.url().resolve("/api/state")).statusCode()).as("the first still serves").isEqualTo(200);
        assertThat(lockableByAnotherProcess(layout.observerDir().resolve(ClientInternals.LOCK_FILE_NAME)))
                .as("the refusal did not drop the first daemon's lock (closing any channel of a locked file would)")
                .isFalse();
    }

    @Test
    void holder_namesTheRunningDaemonAndItsUrl_emptyOnceItStops() throws Exception {
        assertThat(ServeLock.holder(layout)).isEmpty();
        start();

        ServeLock.Holder h = ServeLock.holder(layout).orElseThrow();

        assertThat(h.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(h.url()).isEqualTo(daemon.url());
        assertThat(h.describe()).contains("pid " + h.pid()).contains(daemon.url().toString());
        assertThat(lockableByAnotherProcess(layout.observerDir().resolve(ClientInternals.LOCK_FILE_NAME))).isFalse();
        daemon.close();
        daemon = null;
        assertThat(ServeLock.holder(layout)).as("the lock file stays, but nobody holds it").isEmpty();
        assertThat(lockableByAnotherProcess(layout.observerDir().resolve(ClientInternals.LOCK_FILE_NAME))).isTrue();
    }

    @Test
    void console_besideARunningDaemon_followsItsRevisionsReadOnly_thenTakesOverWhenItStops() throws Exception {
        start();
        long rev = daemon.current().revision();
        EventBus bus = new EventBus();
        List<FollowChanged> follow = new CopyOnWriteArrayList<>();
        bus.subscribe(e -> {
            if (e instanceof FollowChanged f) {
                follow.add(f);
            }
        });
        try (Kiln kiln = Kiln.open(dir, bus, Clock.systemUTC())) {
            assertThat(kiln.startLive()).get().asString()
                    .contains("pid " + ProcessHandle.current().pid()).contains("owns this workspace");
            assertThat(kiln.follows()).isPresent();
            Projector p = kiln.projector();
            assertThat(p.readOnly()).isTrue();
            await("following", () -> follow.stream().anyMatch(FollowChanged::following));
            await("the first read-only tick", () -> p.lastTick() != null && p.lastTick().revision() == rev);

            TestTrees.contract(layout.tasksDir(), "search/ranking/backfill", "done");
            await("the daemon projects the edit", () -> daemon.current().revision() > rev);
            await("the follower ticks on the daemon's revision, unasked",
                    () -> p.lastTick().revision() == daemon.current().revision()
                            && "done".equals(p.snapshot().byLeafId().get("search/ranking/backfill").contract().status()));
            assertThat(daemon.current().revision()).as("the follower wrote nothing the daemon had to absorb")
                    .isEqualTo(M.readTree(layout.stateFile().toFile()).path("revision").asLong());

            long manual = daemon.metrics().byReason().getOrDefault(WakeReason.MANUAL, 0L);
            kiln.projectNow();
            assertThat(daemon.metrics().byReason().getOrDefault(WakeReason.MANUAL, 0L))
                    .as("Project now asks the daemon, which runs the tick").isEqualTo(manual + 1);

            daemon.close();
            daemon = null;
            await("the follower sees the daemon gone", () -> follow.stream().anyMatch(FollowChanged::ended));
            assertThat(kiln.follows()).isEmpty();
            assertThat(kiln.startLive()).as("nobody owns the workspace now: the console takes it over").isEmpty();
            assertThat(kiln.projector().readOnly()).isFalse();
            kiln.projectNow(); // may be answered by the startup tick still pending
            kiln.projectNow();
            assertThat(kiln.projector().lastTick().reason()).as("through its own live loop now").isEqualTo(WakeReason.MANUAL);
            assertThat(ServeLock.holder(layout)).get().extracting(ServeLock.Holder::pid).isEqualTo(ProcessHandle.current().pid());
        }
        assertThat(ServeLock.holder(layout)).as("closing the console released the workspace").isEmpty();
    }

    /** Whether another process (python's fcntl, the same kind of lock as Java's) could take the lock right now. */
    private static boolean lockableByAnotherProcess(Path lockFile) throws Exception {
        Process p = new ProcessBuilder("python3", "-c",
                "import fcntl,sys\nf=open(sys.argv[1],'r+')\ntry:\n fcntl.lockf(f, fcntl.LOCK_EX|fcntl.LOCK_NB)\nexcept OSError:\n sys.exit(3)",
                lockFile.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        int code = p.waitFor();
        assertThat(code).as("python lock probe: %s", out).isIn(0, 3);
        return code == 0;
    }

    /**
     * Above the write-behind threshold (~3,000 leaves; 5,000 here) the API serves each revision from memory, exactly, while
     * state.json follows behind the tick; once the daemon closes, the file is the last revision served.
     */
    @Test
    void apiState_largeWorkspace_servesTheRevisionFromMemoryAndTheFileFollows() throws Exception {
        Path last = null;
        for (int i = 0; i < 5_000; i++) {
            last = TestTrees.contract(layout.tasksDir(), "bulk/area-" + (i % 20) + "/leaf-" + i, "running");
        }
        start();
        long rev = daemon.current().revision();
        assertThat(daemon.current().document().length).as("a document above the threshold")
                .isGreaterThan((int) ProjectionDaemon.WRITE_BEHIND_ABOVE);
        retitle(last, "edited at scale");
        await("the edit is served", () -> daemon.current().revision() > rev);
        Http.Response r = Http.call("GET", daemon.url().resolve("api/state"));
        JsonNode served = M.readTree(r.body());
        long servedRev = served.path("revision").asLong();
        assertThat(servedRev).isGreaterThan(rev);
        String leaf = layout.tasksDir().relativize(last.getParent()).toString();
        assertThat(served.path("leaves")).filteredOn(l -> l.path("leaf_id").asText().equals(leaf))
                .singleElement().satisfies(l -> assertThat(l.path("title").asText()).isEqualTo("edited at scale"));
        assertThat(served.path("leaves")).hasSize(5_002);
        await("state.json follows behind the tick", () -> {
            try {
                return M.readTree(layout.stateFile().toFile()).path("revision").asLong() >= servedRev;
            } catch (java.io.FileNotFoundException e) {
                return false; // the first document of a large workspace is written behind: not there yet
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        daemon.close();
        long finalRev = M.readTree(layout.stateFile().toFile()).path("revision").asLong();
        daemon = null;
        assertThat(finalRev).as("closing waits for the newest revision to be written").isGreaterThanOrEqualTo(servedRev);
        assertThat(M.readTree(layout.stateFile().toFile()).path("leaves")).hasSize(5_002);
    }

    @Test
    void close_thenStartAgain_lockReleasedTokenRemovedRevisionContinues() throws Exception {
        start();
        long rev = daemon.current().revision();
        String firstToken = daemon.token().value();
        daemon.close();
        assertThat(layout.apiTokenFile()).doesNotExist();
        assertThat(M.readTree(layout.stateFile().toFile()).path("revision").asLong()).isEqualTo(rev);
        try (Stream<Path> s = Files.list(layout.observerDir())) {
            assertThat(s.map(p -> p.getFileName().toString()))
                    .as("close waits for the background sync, which removes replaced versions")
                    .noneMatch(n -> n.endsWith(".tmp") || n.endsWith(".old"));
        }
        daemon = null;
        start();
        assertThat(daemon.token().value()).isNotEqualTo(firstToken);
        assertThat(daemon.current().revision()).isGreaterThanOrEqualTo(rev);
    }

    @Test
    void watch_tasksDeletedThenRecreated_degradedInTheStateThenLiveWithAReconcile() throws Exception {
        start();
        try (Stream<Path> s = Files.walk(layout.tasksDir())) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        await("degraded in the served state", () -> stateWatchMode().equals("degraded"));
        JsonNode watch = state().path("meta").path("watch");
        assertThat(watch.path("reason").asText()).contains("tasks");
        assertThat(watch.path("since").asText()).isNotEmpty();
        await("degraded ticks on the fixed interval", () -> metrics().byReason(WakeReason.DEGRADED) >= 1);

        TestTrees.contract(layout.tasksDir(), "ops/rebuild", "pending");
        await("live again", () -> stateWatchMode().equals("live"));
        await("a reconciling tick", () -> metrics().byReason(WakeReason.RECONCILE) >= 1);
        await("the new contract projected", () -> state().path("leaves").size() == 1);
    }

    private String stateWatchMode() {
        return state().path("meta").path("watch").path("mode").asText();
    }

    private JsonNode state() {
        try {
            return M.readTree(Http.call("GET", daemon.url().resolve("/api/state")).body());
        } catch (Exception e) {
            return M.createObjectNode();
        }
    }

    record ProjectionDaemonMetrics(JsonNode json) {
        long byReason(WakeReason r) {
            return json.path("by_reason").path(r.jsonName()).asLong();
        }

        JsonNode last() {
            return json.path("last_tick");
        }
    }

    private ProjectionDaemonMetrics metrics() {
        try {
            return new ProjectionDaemonMetrics(M.readTree(Http.call("GET", daemon.url().resolve("/api/metrics")).body()));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
