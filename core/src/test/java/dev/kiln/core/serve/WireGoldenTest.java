package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.archive.ArchiveEntry;
import dev.kiln.core.archive.ArchiveEvent;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.doctor.Diagnosis;
import dev.kiln.core.engine.EngineEvent;
import dev.kiln.core.engine.SavedRun;
import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.seed.CopyReport;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmPlan;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.snapshot.SnapshotStats;
import dev.kiln.core.startup.BytecodeReport;
import dev.kiln.core.startup.Outcome;
import dev.kiln.core.startup.ProbeEvent;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerResult;
import dev.kiln.core.startup.Timeline;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.watch.WatchChanged;
import dev.kiln.core.watch.WatchStatus;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * API v1 as a contract, without a server: every route constant of {@link Wire} has a path in the OpenAPI document and
 * a golden file; every frame type has a golden and a schema; every golden validates against its schema (networknt,
 * draft 2020-12); the client's wire types read every golden and write it back with the same keys; the server's frame
 * writer gives a sample of every frame type the shape of its golden; and a renamed field fails both checks.
 */
class WireGoldenTest {
    private static final Instant AT = Instant.parse("2026-12-01T10:00:00Z");
    private static final Path ROOT = Path.of("/srv/kiln/ws");

    /**
     * Routes without a golden answer, each with its reason: the event stream (each of its frame types has one), the
     * Prometheus text exposition (not JSON), the OpenAPI document itself (served byte for byte).
     */
    private static final Map<String, String> NO_GOLDEN = Map.of(Wire.EVENTS, "its frames have goldens",
            Wire.PROMETHEUS, "text exposition, not JSON", Wire.OPENAPI, "the document itself");

    /** Every route constant of {@link Wire}: its static final String fields that name a path (not a header or param). */
    static Map<String, String> routes() throws IllegalAccessException {
        Map<String, String> out = new TreeMap<>();
        for (Field f : Wire.class.getDeclaredFields()) {
            if (f.getType() == String.class && Modifier.isStatic(f.getModifiers()) && Modifier.isFinal(f.getModifiers())) {
                f.setAccessible(true);
                String v = (String) f.get(null);
                if (v.startsWith("api/v1/") && !v.endsWith("/") || f.getName().equals("PROMETHEUS")) {
                    out.put(f.getName(), v);
                }
            }
        }
        return out;
    }

    @Test
    void everyRouteConstant_hasAPathInTheOpenApiDocumentAndAGoldenFile() throws Exception {
        OpenApi doc = OpenApi.load();
        List<String> missing = new ArrayList<>();
        routes().forEach((name, route) -> {
            if (!doc.doc.path("paths").has("/" + route)) {
                missing.add("Wire." + name + " (/" + route + ") has no path \"/" + route + "\" in core/src/main/resources"
                        + OpenApi.RESOURCE);
            }
            if (!NO_GOLDEN.containsKey(route) && !Files.isRegularFile(ApiGoldens.DIR.resolve(ApiGoldens.fileOf(route)))) {
                missing.add("Wire." + name + " (/" + route + ") has no golden core/src/test/resources/api/v1/"
                        + ApiGoldens.fileOf(route));
            }
        });
        assertThat(missing).as("routes without a path in the document or a golden (docs/API.md, \"Adding a route\")").isEmpty();
        assertThat(routes()).as("the route list is read").containsKey("SEEDS").containsKey("ARCHIVE_STATS");
    }

    /**
     * The route table against the document, both ways, without a server running: every v1 path a capability's routes
     * register is published, and every published path is registered (the first API's aliases are not published).
     */
    @Test
    void everyRegisteredRoute_isInTheOpenApiDocument_andEveryDocumentedPathIsRegistered() {
        ApiServer.Backend nothing = new ApiServer.Backend() {
            @Override
            public Published current() {
                throw new UnsupportedOperationException();
            }

            @Override
            public JsonNode metrics() {
                throw new UnsupportedOperationException();
            }

            @Override
            public JsonNode project() {
                throw new UnsupportedOperationException();
            }

            @Override
            public JsonNode heal(boolean dryRun, String idempotencyKey) {
                throw new UnsupportedOperationException();
            }

            @Override
            public JsonNode health() {
                throw new UnsupportedOperationException();
            }

            @Override
            public dev.kiln.core.engine.WorkspaceActions actions() {
                throw new UnsupportedOperationException();
            }

            @Override
            public JsonNode doctor() {
                throw new UnsupportedOperationException();
            }
        };
        ApiServer server = ApiServer.builder(nothing, dev.kiln.core.serve.wire.ApiToken.generate()).prometheus(x -> x.close()).build();
        java.util.Set<String> registered = new java.util.TreeSet<>();
        server.paths().stream().filter(p -> !p.startsWith("/api/") || p.startsWith("/api/v1/")).forEach(registered::add);
        java.util.Set<String> documented = new java.util.TreeSet<>();
        OpenApi.load().doc.path("paths").fieldNames().forEachRemaining(documented::add);
        assertThat(registered).as("the paths the routes register (the document: core/src/main/resources" + OpenApi.RESOURCE
                + ")").isEqualTo(documented);
        assertThat(registered).contains("/" + Wire.SEEDS, "/" + Wire.PROBE_RUN, "/" + Wire.PROMETHEUS);
    }

    @Test
    void everyFrameType_hasAGoldenAndASchema() {
        OpenApi doc = OpenApi.load();
        List<String> missing = new ArrayList<>();
        List<String> names = new ArrayList<>(List.of(Wire.SNAPSHOT, Wire.DELTA));
        names.addAll(Wire.eventNames());
        for (String name : names) {
            String file = ApiGoldens.frameFile(name);
            if (!Files.isRegularFile(ApiGoldens.DIR.resolve(file))) {
                missing.add("frame " + name + " has no golden core/src/test/resources/api/v1/" + file);
            }
            if (doc.schemaOf(file) == null) {
                missing.add("frame " + name + " has no schema components.schemas.frame_" + name + " in the OpenAPI document");
            }
        }
        assertThat(missing).isEmpty();
        assertThat(names).hasSizeGreaterThan(20);
    }

    @Test
    void everyGoldenFile_validatesAgainstItsSchemaInTheOpenApiDocument() throws IOException {
        OpenApi doc = OpenApi.load();
        List<String> problems = new ArrayList<>();
        List<Path> files = goldens();
        for (Path f : files) {
            problems.addAll(doc.validate(f.getFileName().toString(), Files.readString(f)));
        }
        assertThat(problems).isEmpty();
        assertThat(files).hasSizeGreaterThan(45);
    }

    @Test
    void openApiDocument_isOpenApi31_everyOperationAnswersAndEveryMutationNeedsTheBearerToken() {
        JsonNode doc = OpenApi.load().doc;
        assertThat(doc.path("openapi").asText()).startsWith("3.1.");
        assertThat(doc.path("info").path("version").asText()).isEqualTo(Integer.toString(Wire.API_VERSION));
        assertThat(dev.kiln.testkit.HostileDaemon.API_VERSION).as("testkit's fake daemons speak this build's version")
                .isEqualTo(Wire.API_VERSION);
        assertThat(doc.path("components").path("securitySchemes").path("bearer").path("scheme").asText()).isEqualTo("bearer");
        List<String> problems = new ArrayList<>();
        doc.path("paths").fields().forEachRemaining(p -> p.getValue().fields().forEachRemaining(op -> {
            String what = op.getKey().toUpperCase(java.util.Locale.ROOT) + " " + p.getKey();
            if (!op.getValue().path("responses").fields().hasNext()) {
                problems.add(what + " has no responses");
            }
            boolean bearer = op.getValue().path("security").toString().contains("bearer");
            if (!op.getKey().equals("get") && !bearer) {
                problems.add(what + " mutates but does not name the bearer token");
            }
        }));
        assertThat(problems).isEmpty();
    }

    /** The core type a route's golden reads as, for the routes whose answer is one (or a list of one). */
    private static final Map<String, Class<?>> TYPED = Map.ofEntries(
            Map.entry(Wire.SEEDS, SeedInfo.class), Map.entry(Wire.WARM_HISTORY, WarmResult.class),
            Map.entry(Wire.WARM_PLAN, WarmPlan.class), Map.entry(Wire.SERVERS, ServerConfig.class),
            Map.entry(Wire.PROBE_RUNS, SavedRun.class), Map.entry(Wire.BYTECODE, BytecodeReport.class),
            Map.entry(Wire.ARCHIVE_STATS, ArchiveCacheStats.class), Map.entry(Wire.ARCHIVE_ENTRIES, ArchiveEntry.class),
            Map.entry(Wire.ARCHIVE_BUILD, ArchiveEntry.class), Map.entry(Wire.ARCHIVE_INVALIDATE, ArchiveCacheStats.class),
            Map.entry(Wire.DOCTOR, Diagnosis.class), Map.entry(Wire.HEAL, HealReport.class),
            Map.entry(Wire.SERVER_SEEDS, dev.kiln.core.seed.ServerSeedInfo.class));

    @Test
    void clientWireTypes_readEveryTypedGolden_andWriteTheSameKeysBack() throws Exception {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Class<?>> t : TYPED.entrySet()) {
            String file = ApiGoldens.fileOf(t.getKey());
            JsonNode golden = ApiGoldens.load(file);
            JsonNode again = golden.isArray() ? Wire.value(Wire.readList(golden, t.getValue()))
                    : Wire.value(Wire.read(golden, t.getValue()));
            ApiGoldens.diff(golden, again, "$", file, problems);
        }
        // the action document: its result read as the probe's report it is, and written back
        JsonNode action = ApiGoldens.load(ApiGoldens.fileOf(Wire.ACTION));
        JsonNode warmedServers = ApiGoldens.load("server_seeds_warmed.json");
        ApiGoldens.diff(warmedServers, Wire.value(Wire.read(warmedServers, dev.kiln.core.seed.ServerSeedsWarmed.class)), "$",
                "server_seeds_warmed.json", problems);
        ApiGoldens.diff(action.path("result"), Wire.value(Wire.read(action.path("result"), ProbeReport.class)), "$.result",
                "actions_id.json", problems);
        // the shapes Wire writes by hand, read by the client's readers and written again
        JsonNode tick = ApiGoldens.load(ApiGoldens.fileOf(Wire.PROJECT));
        ApiGoldens.diff(tick, Wire.tick(Wire.readTick(tick.toString())), "$", "project.json", problems);
        assertThat(Wire.readVersion(ApiGoldens.load("version.json").toString())).isEqualTo(Wire.API_VERSION);
        JsonNode health = ApiGoldens.load("health.json");
        DaemonHealth h = Wire.readHealth(URI.create("http://127.0.0.1:7117/"), health.toString(), Optional.empty());
        assertThat(h.revision()).isEqualTo(health.path("revision").asLong());
        assertThat(Wire.errorText(ApiGoldens.load("error.json").toString())).contains("(no_action)");
        for (String name : Wire.eventNames()) {
            String file = ApiGoldens.frameFile(name);
            ObjectNode golden = (ObjectNode) ApiGoldens.load(file);
            ObjectNode event = golden.deepCopy();
            event.remove("action"); // action_finished's action document: the daemon adds it beside the event
            ApiGoldens.diff(event, Wire.event(Wire.read(event, Wire.eventType(name))), "$", file, problems);
        }
        assertThat(problems).isEmpty();
    }

    /** One core event of every frame type: what the daemon's writer ({@link Wire#event}) is given. */
    static Map<String, KilnEvent> samples() {
        ArchiveCacheStats stats = new ArchiveCacheStats(1, 1, 1, 0, 0, 0, 1024, 1, 12_000_000, 12_000_000);
        Path servers = ROOT.resolve("servers");
        ServerResult result = new ServerResult("demo-light", ServerConfig.Transport.STDIO, 1, Outcome.OK, null, "",
                "2025-06-18", 299.5, 3.25, 3, 30_000, new Timeline(0.0, 120.5, null, 299.5, 302.75, null, 80.25), List.of(),
                new dev.kiln.core.startup.FetchPhase(dev.kiln.core.startup.Launcher.NPX, 80.25,
                        dev.kiln.core.startup.FetchPhase.Downloaded.NO, "npx handed off to node"));
        Map<String, KilnEvent> m = new LinkedHashMap<>();
        m.put("tick", new TickFinished(AT, new TickResult(WakeReason.CHANGE, AT, 7, true, 12, 0,
                new SnapshotStats(12, 1, 11, 0, 0, 1_250_000), 2_500_000, List.of("gone"), null)));
        m.put("watch", new WatchChanged(AT, new WatchStatus(true, "", AT, List.of(ROOT.resolve("tasks")), 31, 8192, 0, "")));
        m.put("warm_started", new SeedEvent.WarmStarted(AT, "demo", "f1d0", List.of("uv", "sync", "--frozen"), 4242));
        m.put("warm_output", new SeedEvent.WarmOutput(AT, "demo", "Resolved 3 packages in 12ms", true));
        m.put("warm_finished", new SeedEvent.WarmFinished(AT, new WarmResult("demo", WarmOutcome.WARMED, "f1d0", AT,
                Duration.ofMillis(1_234), 10_240, 42, "warmed", List.of("Installed 3 packages"))));
        m.put("seed_copied", new SeedEvent.SeedCopied(AT, "demo", Path.of("/srv/kiln/scratch"),
                new CopyReport(true, 42, 10_240, 0, Duration.ofMillis(5), Optional.empty(), false, dev.kiln.core.seed.CopyMode.KERNEL)));
        m.put("probe_run_started", new ProbeEvent.RunStarted(AT, 1, 1, 1));
        m.put("probe_spawned", new ProbeEvent.Spawned(AT, "demo-light", 1, 1.25, 4242));
        m.put("probe_first_output", new ProbeEvent.FirstOutput(AT, "demo-light", 1, 120.5, false));
        m.put("probe_initialized", new ProbeEvent.Initialized(AT, "demo-light", 1, 299.5, 299.5, "2025-06-18"));
        m.put("probe_tools_listed", new ProbeEvent.ToolsListed(AT, "demo-light", 1, 302.75, 3));
        m.put("probe_exited", new ProbeEvent.Exited(AT, "demo-light", 1, 310.0, 0));
        m.put("probe_finished", new ProbeEvent.Finished(AT, "demo-light", 1, result));
        m.put("archive_hit", new ArchiveEvent.Hit(AT, servers, "ab12", 1024, true, 250_000, stats));
        m.put("archive_miss", new ArchiveEvent.Miss(AT, servers, ArchiveEvent.MissCause.CHANGED, "demo.py changed", stats));
        m.put("archive_built", new ArchiveEvent.Built(AT, servers, List.of("kiln_demo_server.py"), "ab12", 1024, 1,
                Duration.ofMillis(12), List.of(), stats));
        m.put("archive_build_failed", new ArchiveEvent.BuildFailed(AT, servers, "servers/x.py: permission denied", stats));
        m.put("archive_evicted", new ArchiveEvent.Evicted(AT, servers, "ab12", 1024, ArchiveEvent.EvictionCause.SIZE, stats));
        m.put("heal", new EngineEvent.HealFinished(AT, new HealReport(true, 12, List.of(new HealReport.Change(
                "tasks/a/b/contract.json", "b", "a/b")), List.of(), List.of())));
        m.put(Wire.ACTION_FINISHED, new EngineEvent.ActionFinished(AT, "probe-1", "probe", EngineEvent.Status.SUCCEEDED, ""));
        m.put("store", new dev.kiln.core.store.StoreEvent(AT, dev.kiln.core.store.StoreEvent.Operation.PUSH,
                dev.kiln.core.store.StoreEvent.Phase.DONE, dev.kiln.core.store.StoreKey.seed("demo", "f1d0c9a2b7e4"),
                Optional.of(dev.kiln.core.store.Transfer.Outcome.PUSHED), 1_048_576, Duration.ofMillis(1_432),
                "3206 files, 1048576 bytes, sha256 9f86d081884c"));
        return m;
    }

    @Test
    void serverFrameWriter_aSampleOfEveryFrameType_hasTheShapeOfItsGolden() throws IOException {
        Map<String, KilnEvent> samples = samples();
        assertThat(samples.keySet()).as("a sample of every frame type").containsExactlyInAnyOrderElementsOf(Wire.eventNames());
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, KilnEvent> s : samples.entrySet()) {
            assertThat(Wire.eventName(s.getValue())).isEqualTo(s.getKey());
            String file = ApiGoldens.frameFile(s.getKey());
            ObjectNode written = Wire.event(s.getValue());
            if (ApiGoldens.updating() && !Files.exists(ApiGoldens.DIR.resolve(file))) {
                // a frame the live test does not provoke (a watch change, a copy, a failed build): its golden is the sample's
                ApiGoldens.check(file, written, Path.of("/nonexistent"), 0);
                continue;
            }
            ObjectNode golden = (ObjectNode) ApiGoldens.load(file);
            golden.remove("action");
            ApiGoldens.diff(golden, written, "$", file, problems);
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void aRenamedOrRemovedField_failsTheGoldenAndTheSchema() throws IOException {
        OpenApi doc = OpenApi.load();
        ObjectNode entry = (ObjectNode) ApiGoldens.load("archive_stats.json");
        assertThat(doc.validate("archive_stats.json", entry.toString())).isEmpty();
        ObjectNode renamed = entry.deepCopy();
        renamed.set("bytesHeld", renamed.remove("bytes_held"));
        List<String> problems = new ArrayList<>();
        ApiGoldens.diff(entry, renamed, "$", "archive_stats.json", problems);
        assertThat(problems).as("the golden comparison").anySatisfy(p -> assertThat(p).contains("$.bytes_held is in the golden"))
                .anySatisfy(p -> assertThat(p).contains("$.bytesHeld is in the answer"));
        assertThat(doc.validate("archive_stats.json", renamed.toString())).as("the schema").isNotEmpty();
        ObjectNode retyped = entry.deepCopy().put("bytes_held", "1 KiB");
        assertThat(doc.validate("archive_stats.json", retyped.toString())).as("a changed type").isNotEmpty();
    }

    @Test
    void servedDocument_isTheResourceByteForByte_andParses() throws IOException {
        try (InputStream in = OpenApi.class.getResourceAsStream(OpenApi.RESOURCE)) {
            assertThat(in).isNotNull();
            byte[] bytes = in.readAllBytes();
            assertThat(Wire.openApiDocument()).isEqualTo(bytes);
            assertThat(Wire.JSON.readTree(bytes).path("paths").size()).isGreaterThan(25);
        }
    }

    private static List<Path> goldens() throws IOException {
        try (Stream<Path> s = Files.list(ApiGoldens.DIR)) {
            return s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
    }
}
