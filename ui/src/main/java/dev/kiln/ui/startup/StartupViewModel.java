package dev.kiln.ui.startup;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.Kiln;
import dev.kiln.core.startup.Bytecode;
import dev.kiln.core.startup.BytecodeMode;
import dev.kiln.core.startup.BytecodeReport;
import dev.kiln.core.startup.ProbeEvent;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ProbeRuns;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.StartupProbe;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.util.Background;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Startup page: the workspace's MCP servers started all at once, as an agent client does at session start,
 * drawn live as timelines against their startup timeout; the probe's verdict and the config lines to paste; and the
 * bytecode audit and precompile of a Python server.
 */
public final class StartupViewModel {
    private final Kiln kiln;
    private final Background background;
    private final ObservableList<ServerConfig> servers = FXCollections.observableArrayList();
    private final ObservableList<Lane> lanes = FXCollections.observableArrayList();
    private final StringProperty timeoutSeconds = new SimpleStringProperty("");
    private final StringProperty cpus = new SimpleStringProperty("");
    private final BooleanProperty coldBytecode = new SimpleBooleanProperty(false);
    private final ReadOnlyBooleanWrapper probing = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyObjectWrapper<ProbeReport> report = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper verdict = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper configLines = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper bytecode = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private Background.Cancellable running;

    public StartupViewModel(Kiln kiln, Background background) {
        this.kiln = kiln;
        this.background = background;
    }

    /** Re-reads {@code servers.json}; a malformed file is an error naming the file, server and field. */
    public void load() {
        background.run(kiln::servers, list -> {
            servers.setAll(list);
            error.set("");
            if (lanes.isEmpty()) {
                lanes.setAll(list.stream().filter(ServerConfig::enabled).map(s -> Lane.waiting(s.name(), timeoutMs(s))).toList());
            }
        }, e -> error.set(e.getMessage()));
    }

    private double timeoutMs(ServerConfig s) {
        Optional<Duration> forced = parseTimeout();
        return forced.or(s::startupTimeout).orElse(kiln.settings().startupTimeout()).toMillis();
    }

    private Optional<Duration> parseTimeout() {
        String t = timeoutSeconds.get() == null ? "" : timeoutSeconds.get().strip();
        if (t.isEmpty()) {
            return Optional.empty();
        }
        double s = Double.parseDouble(t);
        if (s <= 0) {
            throw new IllegalArgumentException("the timeout must be positive, got " + t);
        }
        return Optional.of(Duration.ofMillis(Math.round(s * 1000)));
    }

    /** Starts every enabled server at once and times each to its {@code initialize} answer. */
    public void probe() {
        if (probing.get()) {
            return;
        }
        List<ServerConfig> enabled = servers.stream().filter(ServerConfig::enabled).toList();
        if (enabled.isEmpty()) {
            error.set("No enabled servers in " + kiln.layout().serversFile());
            return;
        }
        StartupProbe.Builder b = kiln.probe().cpus(cpus.get() == null ? "" : cpus.get().strip())
                .bytecode(coldBytecode.get() ? BytecodeMode.COLD : BytecodeMode.AS_IS);
        try {
            parseTimeout().ifPresent(b::timeout);
        } catch (IllegalArgumentException e) {
            error.set("Timeout: " + (e instanceof NumberFormatException ? "'" + timeoutSeconds.get() + "' is not a number of seconds" : e.getMessage()));
            return;
        }
        StartupProbe probe = b.build();
        lanes.setAll(enabled.stream().map(s -> Lane.waiting(s.name(), probe.timeoutFor(s).toMillis())).toList());
        error.set("");
        verdict.set("Starting " + enabled.size() + " servers at once…");
        probing.set(true);
        Optional<JsonNode> previous = previousRun();
        running = background.run(() -> {
            ProbeReport r = probe.run(enabled);
            ProbeRuns.save(kiln.layout(), r);
            return r;
        }, r -> {
            probing.set(false);
            show(r, previous);
        }, e -> {
            probing.set(false);
            verdict.set("");
            error.set(e instanceof InterruptedException ? "Probe cancelled; every server it started was ended." : "Probe failed: " + e.getMessage());
        });
    }

    private Optional<JsonNode> previousRun() {
        try {
            List<Path> runs = ProbeRuns.list(kiln.layout());
            return runs.isEmpty() ? Optional.empty() : Optional.of(ProbeRuns.load(runs.get(runs.size() - 1)));
        } catch (RuntimeException e) {
            return Optional.empty(); // a damaged earlier run only loses the comparison
        }
    }

    private void show(ProbeReport r, Optional<JsonNode> previous) {
        ProbeReport.ServerSummary slowest = r.slowest();
        String head = r.servers().size() + " servers · " + (r.servers().size() - r.failed()) + " ok · " + r.overTimeout() + " over timeout"
                + (slowest != null && slowest.initializeMsMedian() != null
                        ? String.format(" · slowest %s %.0f ms", slowest.name(), slowest.initializeMsMedian()) : "");
        String compare = previous.map(p -> ProbeRuns.compare(p, r).stream()
                .filter(c -> c.beforeMs() != null && c.afterMs() != null)
                .map(c -> String.format("%s %.0f → %.0f ms", c.server(), c.beforeMs(), c.afterMs()))
                .collect(Collectors.joining(", "))).filter(s -> !s.isEmpty()).map(s -> "\nSince the last run: " + s).orElse("");
        verdict.set(head + compare);
        configLines.set(r.clientConfigLines());
        report.set(r); // last: it is what views and tests wait on

    }

    /** Ends the running probe and every process it started. */
    public void cancel() {
        Background.Cancellable c = running;
        if (c != null && probing.get()) {
            c.cancel();
        }
    }

    /** Takes one frame's probe events and moves the lanes. */
    public void accept(List<? extends KilnEvent> batch) {
        for (KilnEvent e : batch) {
            if (!(e instanceof ProbeEvent p)) {
                continue;
            }
            if (p instanceof ProbeEvent.Spawned s) {
                update(s.server(), l -> l.spawned(s.offsetMs()));
            } else if (p instanceof ProbeEvent.FirstOutput f) {
                update(f.server(), l -> l.firstOutput(f.offsetMs()));
            } else if (p instanceof ProbeEvent.Initialized i) {
                update(i.server(), l -> l.initialized(i.offsetMs()));
            } else if (p instanceof ProbeEvent.ToolsListed t) {
                update(t.server(), l -> l.toolsListed(t.offsetMs(), t.tools()));
            } else if (p instanceof ProbeEvent.Finished f) {
                update(f.server(), l -> l.finished(f.result().outcome().label(), f.result().reason()));
            } else if (p instanceof ProbeEvent.RunStarted r && r.run() > 1) {
                lanes.replaceAll(l -> Lane.waiting(l.server(), l.timeoutMs()));
            }
        }
    }

    private void update(String server, java.util.function.UnaryOperator<Lane> step) {
        for (int i = 0; i < lanes.size(); i++) {
            if (lanes.get(i).server().equals(server)) {
                lanes.set(i, step.apply(lanes.get(i)));
                return;
            }
        }
    }

    /** Counts the Python server's {@code .py} files against up-to-date bytecode for its interpreter. */
    public void audit(ServerConfig server) {
        if (server == null) {
            return;
        }
        bytecode.set("Auditing " + server.name() + "…");
        background.run(() -> {
            Bytecode b = Bytecode.withSystemEnvironment();
            return b.audit(b.locate(server));
        }, r -> bytecode.set(describe(server.name(), r)), e -> bytecode.set(server.name() + ": " + e.getMessage()));
    }

    /** Precompiles the Python server's environment ({@code compileall}), then re-audits. */
    public void precompile(ServerConfig server) {
        if (server == null) {
            return;
        }
        bytecode.set("Precompiling " + server.name() + "…");
        background.run(() -> {
            Bytecode b = Bytecode.withSystemEnvironment();
            return b.compile(b.locate(server), Bytecode.InvalidationMode.TIMESTAMP);
        }, r -> bytecode.set(describe(server.name(), r.before()) + "\nafter precompile (" + String.format("%.0f ms", r.elapsedMs()) + "): "
                + counts(r.after()) + (r.exitCode() == 0 ? "" : " · compileall exited " + r.exitCode())),
                e -> bytecode.set(server.name() + ": " + e.getMessage()));
    }

    static String describe(String name, BytecodeReport r) {
        return name + " · " + r.environment().interpreter() + " (" + r.environment().cacheTag() + "): " + counts(r);
    }

    static String counts(BytecodeReport r) {
        return r.sources() + " .py · " + r.fresh() + " fresh · " + r.stale() + " stale · " + r.missing() + " missing";
    }

    public ObservableList<ServerConfig> servers() {
        return servers;
    }

    public ObservableList<Lane> lanes() {
        return lanes;
    }

    /** Seconds; empty: each server's configured timeout (default from kiln.json, 30 s). */
    public StringProperty timeoutSecondsProperty() {
        return timeoutSeconds;
    }

    /** CPU list for {@code taskset} (e.g. {@code 0}); empty: no pinning. */
    public StringProperty cpusProperty() {
        return cpus;
    }

    /** Start Python servers with no usable bytecode, every run. */
    public BooleanProperty coldBytecodeProperty() {
        return coldBytecode;
    }

    public ReadOnlyBooleanProperty probingProperty() {
        return probing.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<ProbeReport> reportProperty() {
        return report.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty verdictProperty() {
        return verdict.getReadOnlyProperty();
    }

    /** Client config lines with the recommended startup timeouts, to paste. */
    public ReadOnlyStringProperty configLinesProperty() {
        return configLines.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty bytecodeProperty() {
        return bytecode.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    public String serversFile() {
        return kiln.layout().serversFile().toString();
    }
}
