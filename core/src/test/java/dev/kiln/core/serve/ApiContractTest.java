package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.archive.ArchiveCache;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.WorkspaceActions;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.serve.wire.ApiToken;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ProbeRuns;
import dev.kiln.core.startup.RealServers;
import dev.kiln.core.startup.SweepReport;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * API v1 as a contract, on the server's side: a real {@link ProjectionDaemon} on loopback over a small demo workspace
 * (with a real python venv server, a real probe of a demo server, a real uv warm cancelled at once, a real archive)
 * answers every route of {@link Wire} with JSON of the shape of its golden file, and every frame it streams meanwhile
 * has the shape of its frame's golden; every answer also validates against its schema in the served OpenAPI document
 * ({@link ApiGoldens} for the comparison and its rule for volatile values).
 */
@DaemonTest @ProcessTest
class ApiContractTest {
    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();
    private URI base;
    private String token;
    /** Every answer by golden file, in the order asked. */
    private final Map<String, JsonNode> answers = new LinkedHashMap<>();

    @Test
    void everyRouteAndEveryFrameSeen_haveTheShapeOfTheirGoldenAndValidateAgainstTheDocument() throws Exception {
        Path ws = dir.resolve("ws");
        new DemoWorkspace().write(ws, 12, 7, false);
        Path venv = dir.resolve("venv");
        RealServers.run(List.of("python3", "-m", "venv", "--without-pip", venv.toString()), dir, 120);
        Path site = RealServers.sitePackages(venv);
        Files.createDirectories(site.resolve("srv"));
        Files.writeString(site.resolve("srv/__init__.py"), "X = 1\n");
        Files.writeString(ws.resolve("servers.json"), """
                {"mcpServers": {
                  "demo-light": {"command": "python3", "args": ["servers/kiln_demo_server.py", "--weight", "0"],
                                 "env": {"DEMO_SECRET": "s3cret"}},
                  "venv-server": {"command": "%s", "args": ["-m", "srv"], "disabled": true}}}
                """.formatted(venv.resolve("bin/python")));

        WorkspaceSettings settings = WorkspaceSettings.read(ws);
        EventBus bus = new EventBus();
        WorkspaceActions actions = new WorkspaceActions(WorkspaceLayout.of(ws), settings,
                ArchiveCache.builder().maximumBytes(settings.archiveCacheMaxBytes()).eventSink(bus).build(),
                SeedCaches.builder(ws).settings(settings).events(bus).build(), bus, Clock.systemUTC());
        List<SseClient.Event> frames = new CopyOnWriteArrayList<>();
        try (ProjectionDaemon daemon = ProjectionDaemon.builder(WorkspaceLayout.of(ws)).events(bus).actions(actions, bus)
                .pacing(new ChangePacer.Settings(Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofHours(1)))
                .start()) {
            daemon.awaitFirstProjection(Duration.ofSeconds(60));
            base = daemon.url();
            token = ApiToken.read(daemon.tokenFile()).value();
            SseClient sse = new SseClient(base.resolve(Wire.EVENTS), null);
            Thread collector = new Thread(() -> {
                try {
                    for (SseClient.Event e = sse.next(); e != null; e = sse.next()) {
                        frames.add(e);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "test-frames");
            collector.setDaemon(true);
            collector.start();
            Await.await("the snapshot frame", () -> frames.stream().anyMatch(f -> f.event().equals(Wire.SNAPSHOT)));

            // the long actions first, so that the lists below have an element to compare
            JsonNode started = post(Wire.WARM, "{\"target\": \"demo\"}", 202);
            answers.put(ApiGoldens.fileOf(Wire.WARM), started);
            String warm = started.path("id").asText();
            answer(Wire.ACTION_CANCEL, post(Wire.withId(Wire.ACTION_CANCEL, warm), "", 202));
            started = post(Wire.PROBE, "{\"servers\": [\"demo-light\"], \"cpus\": \"\", \"bytecode\": \"as_is\"}", 202);
            answers.put(ApiGoldens.fileOf(Wire.PROBE), started);
            String probe = started.path("id").asText();
            started = post(Wire.PRECOMPILE, "{\"server\": \"venv-server\"}", 202);
            answers.put(ApiGoldens.fileOf(Wire.PRECOMPILE), started);
            String compile = started.path("id").asText();
            for (String id : List.of(warm, probe, compile)) {
                Await.await("action " + id + " ends", () -> frames.stream().anyMatch(f -> f.event().equals(Wire.ACTION_FINISHED)
                        && f.data().contains("\"" + id + "\"")));
            }
            answer(Wire.ACTION, get(Wire.withId(Wire.ACTION, probe)));
            ProbeReport report = Wire.read(get(Wire.withId(Wire.ACTION, probe)).path("result"), ProbeReport.class);
            ProbeRuns.saveSweep(WorkspaceLayout.of(ws), new SweepReport(report.startedAt(), List.of(1.0), false, 1, "taskset",
                    List.of("demo-light"), List.of(new SweepReport.Cell("demo-light", 1.0, SweepReport.Bytecode.AS_IS,
                            report.results().get(0).initializeMs(), "ok", report.results().get(0).timeoutMs(), 1, 1, "")),
                    List.of(new SweepReport.Column(1.0, SweepReport.Bytecode.AS_IS, report)), List.of(), null));

            answer(Wire.PROJECT, post(Wire.PROJECT, "", 200));
            Path contract;
            try (var files = Files.walk(ws.resolve("tasks"))) {
                contract = files.filter(f -> f.getFileName().toString().equals("contract.json")).sorted().findFirst().orElseThrow();
            }
            com.fasterxml.jackson.databind.node.ObjectNode c = (com.fasterxml.jackson.databind.node.ObjectNode) Wire.JSON
                    .readTree(contract.toFile());
            // replaced whole: a truncate-then-write could be projected half-written, a failure in the first delta
            dev.kiln.core.workspace.AtomicWrite.write(contract, c.put("title", "edited for a delta").toString()
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            Await.await("a delta", () -> frames.stream().anyMatch(f -> f.event().equals(Wire.DELTA)));
            answer(Wire.HEAL, post(Wire.HEAL, "", 200));
            answer(Wire.STATE, get(Wire.STATE));
            answer(Wire.METRICS, get(Wire.METRICS));
            answer(Wire.HEALTH, get(Wire.HEALTH));
            answer(Wire.VERSION, get(Wire.VERSION));
            answer(Wire.WORKSPACE, get(Wire.WORKSPACE));
            answer(Wire.SEEDS, get(Wire.SEEDS));
            answer(Wire.WARM_HISTORY, get(Wire.WARM_HISTORY));
            answer(Wire.WARM_PLAN, get(Wire.WARM_PLAN + "?target=demo"));
            answer(Wire.SERVERS, get(Wire.SERVERS));
            answer(Wire.PROBE_RUNS, get(Wire.PROBE_RUNS));
            answer(Wire.PROBE_RUN, get(Wire.withId(Wire.PROBE_RUN, get(Wire.PROBE_RUNS).get(0).path("id").asText())));
            answer(Wire.PROBE_SWEEP, get(Wire.PROBE_SWEEP));
            answer(Wire.BYTECODE, get(Wire.BYTECODE + "?server=venv-server"));
            answer(Wire.ARCHIVE_BUILD, post(Wire.ARCHIVE_BUILD, "{\"directory\": \"servers\", \"members\": []}", 200));
            post(Wire.ARCHIVE_BUILD, "{\"directory\": \"servers\", \"members\": []}", 200); // a hit
            answer(Wire.ARCHIVE_STATS, get(Wire.ARCHIVE_STATS));
            answer(Wire.ARCHIVE_ENTRIES, get(Wire.ARCHIVE_ENTRIES));
            answer(Wire.ARCHIVE_INVALIDATE, post(Wire.ARCHIVE_INVALIDATE, "", 200));
            answer(Wire.DOCTOR, get(Wire.DOCTOR));
            // every other read the document publishes without a parameter: a new read-only route is asked by its path
            List<String> reads = OpenApi.load().plainReads();
            assertThat(reads).as("the document's plain reads").contains(Wire.SEEDS, Wire.STORE_STATUS, Wire.HEALTH)
                    .doesNotContain(Wire.OPENAPI, Wire.EVENTS, Wire.PROMETHEUS, Wire.WARM_PLAN);
            for (String route : reads) {
                String file = ApiGoldens.fileOf(route);
                // an update run keeps the goldens written from a richer daemon (store.json: a configured store)
                if (!answers.containsKey(file) && !(ApiGoldens.updating() && Files.isRegularFile(ApiGoldens.DIR.resolve(file)))) {
                    answer(route, get(route));
                }
            }
            answers.put("error.json", call("GET", Wire.withId(Wire.ACTION, "nope"), null, 404));
            HttpResponse<byte[]> served = http.send(HttpRequest.newBuilder(base.resolve(Wire.OPENAPI)).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(served.statusCode()).as("GET /" + Wire.OPENAPI + " without a token").isEqualTo(200);
            assertThat(served.body()).as("the document, byte for byte").isEqualTo(Wire.openApiDocument());
            Await.await("the archive frames", () -> frames.stream().anyMatch(f -> f.event().equals("archive_hit")));

            assertThat(answers.get(ApiGoldens.fileOf(Wire.SERVERS)).toString()).as("secrets stay on the daemon's host")
                    .doesNotContain("s3cret");
            List<String> problems = new ArrayList<>();
            OpenApi doc = ApiGoldens.updating() ? null : OpenApi.load();
            answers.forEach((file, body) -> {
                problems.addAll(ApiGoldens.check(file, body, dir, base.getPort()));
                if (doc != null) {
                    problems.addAll(doc.validate(file, body.toString()));
                }
            });
            Map<String, JsonNode> seen = new LinkedHashMap<>();
            for (SseClient.Event f : frames) {
                if (f.event().equals(Wire.ACTION_FINISHED) && !f.data().contains("\"" + warm + "\"")) {
                    continue; // the golden is the cancelled warm's end: which of the three actions ends first races
                }
                seen.putIfAbsent(f.event(), Wire.JSON.readTree(f.data()));
            }
            seen.forEach((event, data) -> {
                String file = ApiGoldens.frameFile(event);
                // the state document is compared on its top-level keys: its leaves are contract data
                JsonNode shape = event.equals(Wire.SNAPSHOT) ? topLevel(data) : data;
                problems.addAll(ApiGoldens.check(file, shape, dir, base.getPort()));
                if (doc != null) {
                    problems.addAll(doc.validate(file, data.toString()));
                }
            });
            assertThat(seen.keySet()).as("the frames this session must have seen").contains(Wire.SNAPSHOT, Wire.DELTA, "tick",
                    "warm_finished", "probe_run_started", "probe_spawned", "probe_initialized",
                    "probe_finished", "archive_miss", "archive_built", "archive_hit", "heal", Wire.ACTION_FINISHED);
            assertThat(problems).as("what differs from the goldens and the OpenAPI document").isEmpty();
            sse.close();
        } finally {
            actions.close();
        }
    }

    private void answer(String route, JsonNode body) {
        JsonNode shape = route.equals(Wire.STATE) ? topLevel(body) : body;
        answers.put(ApiGoldens.fileOf(route), shape);
    }

    /** The state document's own keys, with its leaves cut to the first one (the rest is contract data). */
    private static JsonNode topLevel(JsonNode state) {
        com.fasterxml.jackson.databind.node.ObjectNode o = state.deepCopy();
        com.fasterxml.jackson.databind.node.ArrayNode leaves = o.putArray("leaves");
        if (state.path("leaves").size() > 0) {
            leaves.add(state.path("leaves").get(0));
        }
        return o;
    }

    private JsonNode get(String route) throws Exception {
        return call("GET", route, null, 200);
    }

    private JsonNode post(String route, String body, int status) throws Exception {
        return call("POST", route, body, status);
    }

    private JsonNode call(String method, String route, String body, int status) throws Exception {
        HttpRequest.Builder rb = HttpRequest.newBuilder(base.resolve(route)).timeout(Duration.ofMinutes(2));
        if (method.equals("POST")) {
            rb.header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body == null ? "" : body));
        } else {
            rb.GET();
        }
        HttpResponse<String> r = http.send(rb.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(method + " /" + route + ": " + r.body()).isEqualTo(status);
        return Wire.JSON.readTree(r.body());
    }
}
