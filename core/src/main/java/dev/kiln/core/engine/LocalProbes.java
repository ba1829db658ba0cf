package dev.kiln.core.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.startup.Bytecode;
import dev.kiln.core.startup.BytecodeReport;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ProbeRuns;
import dev.kiln.core.startup.SavedProbeRun;
import dev.kiln.core.startup.SavedSweep;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerConfigs;
import dev.kiln.core.startup.StartupProbe;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@link Probes} of this process: {@code servers.json}, the startup probe and its saved runs, bytecode; probes and
 * precompiles started through the shared action table of {@link WorkspaceActions}.
 *
 * <p>Thread-safety: thread-safe; it holds no state of its own (each probe builds its own {@link StartupProbe}).
 */
final class LocalProbes implements Probes {
    private static final java.time.format.DateTimeFormatter RUN_STAMP =
            java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(java.time.ZoneOffset.UTC);

    private final WorkspaceActions actions;
    private final WorkspaceLayout layout;
    private final WorkspaceSettings settings;
    private final EventSink events;
    private final Clock clock;

    LocalProbes(WorkspaceActions actions, WorkspaceLayout layout, WorkspaceSettings settings, EventSink events, Clock clock) {
        this.actions = actions;
        this.layout = layout;
        this.settings = settings;
        this.events = events;
        this.clock = clock;
    }

    @Override
    public List<ServerConfig> servers() {
        return Files.exists(layout.serversFile()) ? ServerConfigs.read(layout.serversFile()) : List.of();
    }

    @Override
    public Duration defaultStartupTimeout() {
        return settings.startupTimeout();
    }

    @Override
    public Action<ProbeReport> probe(ProbeRequest request, String idempotencyKey) {
        List<ServerConfig> all = servers();
        List<ServerConfig> chosen = all.stream().filter(ServerConfig::enabled)
                .filter(s -> request.servers().isEmpty() || request.servers().contains(s.name())).toList();
        for (String name : request.servers()) {
            if (all.stream().noneMatch(s -> s.name().equals(name))) {
                throw new EngineException(EngineException.Kind.REJECTED, "No server '" + name + "' in " + layout.serversFile());
            }
        }
        if (chosen.isEmpty()) {
            throw new EngineException(EngineException.Kind.REJECTED, "No enabled servers in " + layout.serversFile());
        }
        StartupProbe.Builder b = StartupProbe.builder().events(events).clock(clock).cpus(request.cpus()).bytecode(request.bytecode());
        request.timeout().ifPresent(b::timeout);
        StartupProbe probe = b.build();
        // Interrupting the probe's thread ends every server it started (and their children).
        return actions.start("probe", request, "a probe of " + (request.servers().isEmpty() ? "every enabled server"
                : "servers " + request.servers()) + (request.cpus().isEmpty() ? "" : " on CPUs " + request.cpus()) + ", bytecode "
                + request.bytecode().name().toLowerCase(Locale.ROOT) + request.timeout().map(t -> ", timeout " + t.toMillis() + " ms")
                .orElse(""), idempotencyKey, () -> new WorkspaceActions.Job<>(null, () -> {
            ProbeReport r = probe.run(chosen);
            ProbeRuns.save(layout, r);
            return r;
        }));
    }

    @Override
    public List<SavedRun> runs() {
        return ProbeRuns.list(layout).stream().map(p -> new SavedRun(p.getFileName().toString(), startedAt(p))).toList();
    }

    private static Instant startedAt(Path run) {
        // probe-<UTC stamp>.json (ProbeRuns' basic ISO stamp): the name carries the start, so listing opens no run.
        String n = run.getFileName().toString().replaceFirst("^probe-", "").replaceFirst("\\.json$", "");
        try {
            return RUN_STAMP.parse(n, Instant::from);
        } catch (RuntimeException e) {
            try {
                return Files.getLastModifiedTime(run).toInstant();
            } catch (java.io.IOException io) {
                return Instant.EPOCH;
            }
        }
    }

    /** A saved run, read into its record (the engines' answer). */
    @Override
    public SavedProbeRun run(String id) {
        return ProbeRuns.read(runFile(id));
    }

    /** A saved run as stored: what the API serves ({@code probe/runs/{id}}, the probe-run file format). */
    JsonNode runDocument(String id) {
        return ProbeRuns.load(runFile(id));
    }

    private Path runFile(String id) {
        if (!id.matches("probe-[A-Za-z0-9_.:+-]+\\.json")) {
            throw new EngineException(EngineException.Kind.REJECTED, "'" + id + "' is not a saved probe run's name");
        }
        Path run = ProbeRuns.dir(layout).resolve(id);
        if (!Files.isRegularFile(run)) {
            throw new EngineException(EngineException.Kind.REJECTED, "No saved probe run " + run);
        }
        return run;
    }

    /** The latest sweep, read into its record (the engines' answer). */
    @Override
    public Optional<SavedSweep> latestSweep() {
        List<Path> sweeps = ProbeRuns.listSweeps(layout);
        return sweeps.isEmpty() ? Optional.empty() : Optional.of(ProbeRuns.readSweep(sweeps.get(0)));
    }

    /** The latest sweep as stored: what the API serves ({@code probe/sweep}). */
    Optional<JsonNode> latestSweepDocument() {
        List<Path> sweeps = ProbeRuns.listSweeps(layout);
        return sweeps.isEmpty() ? Optional.empty() : Optional.of(ProbeRuns.load(sweeps.get(0)));
    }

    // --- bytecode

    @Override
    public BytecodeReport audit(String server) {
        Bytecode b = Bytecode.withSystemEnvironment();
        return b.audit(b.locate(server(server)));
    }

    @Override
    public Action<Bytecode.CompileResult> precompile(String server, String idempotencyKey) {
        ServerConfig s = server(server);
        return actions.start("precompile", server, "a precompile of server '" + server + "'", idempotencyKey,
                () -> new WorkspaceActions.Job<>(null, () -> {
                    Bytecode b = Bytecode.withSystemEnvironment();
                    return b.compile(b.locate(s), Bytecode.InvalidationMode.TIMESTAMP);
                }));
    }

    /** The server of {@code servers.json} named {@code name}; refused when there is none. */
    ServerConfig server(String name) {
        return servers().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow(() -> new EngineException(
                EngineException.Kind.REJECTED, "No server '" + name + "' in " + layout.serversFile()));
    }
}
