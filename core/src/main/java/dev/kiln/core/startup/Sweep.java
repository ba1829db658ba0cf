package dev.kiln.core.startup;

import dev.kiln.core.telemetry.EventSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The probe at several CPU shares, optionally before and after precompiling each Python server's environment: the
 * field's table ({@code 4.0 / 2.0 / 1.0 / 0.5} CPUs × before/after) in one call.
 *
 * <pre>{@code
 * SweepReport r = Sweep.builder().shares(List.of(2.0, 1.0, 0.5)).compareBytecode(true).build().run(servers);
 * }</pre>
 *
 * <p>Node servers ({@code node …}) take part the same way: before without a compile cache, after with one warmed
 * once for each ({@link NodeCompileCache}, Node 22.1 or later; an older Node is noted and runs unchanged).
 *
 * <p>Before = no usable bytecode ({@link BytecodeMode#COLD}: an empty {@code PYTHONPYCACHEPREFIX} and
 * {@code PYTHONDONTWRITEBYTECODE=1}, so the environment's own pycs are hidden); after = each environment precompiled once
 * with {@link Bytecode#compile} before the first column, then run with {@link BytecodeMode#NO_WRITE}. A cancelled
 * sweep (the calling thread interrupted) returns what it measured, marked partial, with the interrupt kept set.
 */
public final class Sweep {
    private final List<Double> shares;
    private final boolean compareBytecode;
    private final int repeat;
    private final @Nullable Duration timeout;
    private final EventSink events;
    private final Clock clock;
    private final Map<String, String> environment;
    private final HandshakeOrder order;
    private final Consumer<String> progress;
    private final Bytecode bytecode;
    /** Set by {@link #cancel}: checked between columns, and drops the column it lands in. */
    private volatile boolean cancelled;

    private Sweep(Builder b) {
        this.shares = List.copyOf(b.shares);
        this.compareBytecode = b.compareBytecode;
        this.repeat = b.repeat;
        this.timeout = b.timeout;
        this.events = b.events;
        this.clock = b.clock;
        this.environment = Map.copyOf(b.environment);
        this.order = b.order;
        this.progress = b.progress;
        this.bytecode = Bytecode.withEnvironment(b.environment);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Asks a running sweep to stop (from another thread, e.g. a shutdown hook): it returns what it measured, partial.
     * Interrupting the thread that runs it does the same.
     */
    public void cancel() {
        cancelled = true;
    }

    /**
     * Runs the sweep over the enabled servers.
     *
     * @throws IllegalArgumentException when no server is enabled
     * @throws CpuQuota.QuotaException when the shares cannot be enforced here (checked before anything runs)
     */
    public SweepReport run(List<ServerConfig> servers) {
        List<ServerConfig> enabled = servers.stream().filter(ServerConfig::enabled).toList();
        if (enabled.isEmpty()) {
            throw new IllegalArgumentException("no enabled server to probe");
        }
        java.time.Instant started = clock.instant();
        String mechanism;
        try (CpuQuota check = CpuQuota.open(shares.get(0), environment)) {
            mechanism = check.mechanism().label(); // fail before measuring anything, with the quota's own message
        }
        List<String> notes = new ArrayList<>();
        int cpus = Runtime.getRuntime().availableProcessors();
        for (double s : shares) {
            if (s >= cpus) {
                notes.add(CpuQuota.format(s) + " CPU is at least the " + cpus + " CPUs of this machine: that column is"
                        + " limited by the machine, not the quota");
            }
        }
        Map<String, String> notPrecompiled = new LinkedHashMap<>();
        Map<String, Path> nodeCaches = new LinkedHashMap<>();
        if (compareBytecode) {
            precompile(enabled, notes, notPrecompiled);
            warmNodeCaches(enabled, notes, notPrecompiled, nodeCaches);
        }
        List<SweepReport.Bytecode> kinds = compareBytecode
                ? List.of(SweepReport.Bytecode.BEFORE, SweepReport.Bytecode.AFTER) : List.of(SweepReport.Bytecode.AS_IS);
        List<SweepReport.Cell> cells = new ArrayList<>();
        List<SweepReport.Column> columns = new ArrayList<>();
        String cancelledAt = null;
        outer:
        for (double share : shares) {
            for (SweepReport.Bytecode kind : kinds) {
                String label = CpuQuota.format(share) + " CPU" + (kind == SweepReport.Bytecode.AS_IS ? "" : " " + kind.label());
                if (cancelled || Thread.currentThread().isInterrupted()) {
                    cancelledAt = label;
                    break outer;
                }
                progress.accept("sweep: " + label + " (" + enabled.size() + " servers at once, " + repeat + " run(s))");
                StartupProbe.Builder b = StartupProbe.builder().cpuShare(share).repeat(repeat).events(events).clock(clock)
                        .environment(environment).handshake(order)
                        .bytecode(kind == SweepReport.Bytecode.BEFORE ? BytecodeMode.COLD
                                : kind == SweepReport.Bytecode.AFTER ? BytecodeMode.NO_WRITE : BytecodeMode.AS_IS);
                if (timeout != null) {
                    b.timeout(timeout);
                }
                ProbeReport report;
                try {
                    report = b.build().run(nodeCaches.isEmpty() ? enabled : withNodeCache(enabled, kind, nodeCaches));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // kept for the caller: it asked to stop
                    cancelledAt = label;
                    break outer;
                } catch (RuntimeException e) {
                    if (columns.isEmpty() && !cancelled) {
                        throw e; // nothing measured yet: the caller gets the reason itself
                    }
                    notes.add("stopped in " + label + ": " + e.getMessage());
                    cancelledAt = label;
                    break outer;
                }
                if (cancelled) {
                    cancelledAt = label; // its servers were ended under it: the column is not a measurement
                    break outer;
                }
                columns.add(new SweepReport.Column(share, kind, report));
                for (ProbeReport.ServerSummary s : report.servers()) {
                    ServerResult r = s.representative();
                    String note = kind == SweepReport.Bytecode.AFTER ? notPrecompiled.getOrDefault(s.name(), "") : "";
                    cells.add(new SweepReport.Cell(s.name(), share, kind, s.initializeMsMedian(), r.outcomeText(),
                            r.timeoutMs(), s.okRuns(), s.runs(), note));
                }
            }
        }
        return new SweepReport(started, shares, compareBytecode, repeat, mechanism,
                enabled.stream().map(ServerConfig::name).toList(), cells, columns, notes, cancelledAt);
    }

    /**
     * Precompiles each Python server's environment once (servers sharing one are compiled together). Servers whose
     * environment cannot be precompiled are noted, and their "after" cells marked; non-Python servers just run.
     */
    private void precompile(List<ServerConfig> servers, List<String> notes, Map<String, String> notPrecompiled) {
        Map<List<Path>, Bytecode.CompileResult> done = new LinkedHashMap<>();
        Map<List<Path>, String> failed = new LinkedHashMap<>();
        for (ServerConfig s : servers) {
            if (s.transport() != ServerConfig.Transport.STDIO) {
                continue;
            }
            PythonEnvironment env;
            try {
                env = bytecode.locate(s);
            } catch (BytecodeException e) {
                continue; // not a Python server: bytecode does not apply, its before and after should match
            }
            List<Path> roots = env.roots();
            if (failed.containsKey(roots)) {
                notPrecompiled.put(s.name(), failed.get(roots));
                continue;
            }
            if (done.containsKey(roots)) {
                continue;
            }
            Path readOnly = roots.stream().filter(Sweep::readOnly).findFirst().orElse(null);
            if (readOnly != null) {
                String why = "its environment " + readOnly + " is read-only: it cannot be precompiled here (precompile it"
                        + " where it is built, e.g. in the image: python -m compileall), so 'after' equals 'before' for it";
                failed.put(roots, why);
                notPrecompiled.put(s.name(), why);
                notes.add(s.name() + ": " + why);
                continue;
            }
            progress.accept("sweep: precompiling " + s.name() + "'s environment (" + roots.size() + " root(s))");
            try {
                Bytecode.CompileResult c = bytecode.compile(env, Bytecode.InvalidationMode.TIMESTAMP);
                done.put(roots, c);
                if (c.after().missing() + c.after().stale() > 0 && c.after().fresh() == 0) {
                    String why = "compileall wrote no bytecode for its environment (exit " + c.exitCode() + "): "
                            + String.join(" / ", c.output());
                    failed.put(roots, why);
                    notPrecompiled.put(s.name(), why);
                    notes.add(s.name() + ": " + why);
                } else {
                    notes.add(String.format(java.util.Locale.ROOT, "%s: precompiled %d of %d sources in %.0f ms",
                            s.name(), c.after().fresh(), c.after().sources(), c.elapsedMs()));
                }
            } catch (BytecodeException e) {
                String why = "its environment cannot be precompiled: " + e.getMessage();
                failed.put(roots, why);
                notPrecompiled.put(s.name(), why);
                notes.add(s.name() + ": " + why);
            }
        }
    }

    /**
     * The Node counterpart of precompiling: each server launched as {@code node …} whose Node has a compile cache
     * (22.1 or later) has one warmed for it ({@link NodeCompileCache#warm}, the server exiting normally so Node writes
     * it) in a directory of the sweep's own; an older Node is noted and its "after" equals its "before".
     */
    private void warmNodeCaches(List<ServerConfig> servers, List<String> notes, Map<String, String> notPrecompiled,
            Map<String, Path> nodeCaches) {
        for (ServerConfig s : servers) {
            if (s.transport() != ServerConfig.Transport.STDIO || Launcher.of(s) != Launcher.NODE) {
                continue;
            }
            NodeCompileCache.Report audit = NodeCompileCache.audit(s);
            if (!audit.supported()) {
                notPrecompiled.put(s.name(), audit.note() + ", so 'after' equals 'before' for it");
                notes.add(s.name() + ": " + audit.note() + ", so 'after' equals 'before' for it");
                continue;
            }
            progress.accept("sweep: warming " + s.name() + "'s Node compile cache");
            try {
                Path dir = Files.createTempDirectory("kiln-sweep-node-cache-");
                NodeCompileCache.Report r = NodeCompileCache.warm(withoutCache(s), dir);
                if (r.files() == 0) {
                    notPrecompiled.put(s.name(), r.note());
                    notes.add(s.name() + ": " + r.note());
                } else {
                    nodeCaches.put(s.name(), dir);
                    notes.add(s.name() + ": Node compile cache warmed (" + r.files() + " files, " + r.bytes() / 1024
                            + " KiB, node " + r.nodeVersion() + ")");
                }
            } catch (java.io.IOException | BytecodeException e) {
                notPrecompiled.put(s.name(), "its Node compile cache cannot be warmed: " + e.getMessage());
                notes.add(s.name() + ": its Node compile cache cannot be warmed: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Before: no compile cache at all (the server's own, if it sets one, disabled); after: the one the sweep warmed. */
    private static List<ServerConfig> withNodeCache(List<ServerConfig> servers, SweepReport.Bytecode kind,
            Map<String, Path> nodeCaches) {
        return servers.stream().map(s -> {
            Path dir = nodeCaches.get(s.name());
            if (dir == null) {
                return s;
            }
            Map<String, String> env = new java.util.TreeMap<>(withoutCache(s).env());
            if (kind == SweepReport.Bytecode.AFTER) {
                env.put("NODE_COMPILE_CACHE", dir.toString());
            } else {
                env.put("NODE_DISABLE_COMPILE_CACHE", "1");
            }
            return new ServerConfig(s.name(), s.transport(), s.command(), s.args(), env, s.cwd(), s.url(), s.headers(),
                    s.startupTimeout(), s.enabled(), s.source());
        }).toList();
    }

    private static ServerConfig withoutCache(ServerConfig s) {
        Map<String, String> env = new java.util.TreeMap<>(s.env());
        env.remove("NODE_COMPILE_CACHE");
        env.remove("NODE_DISABLE_COMPILE_CACHE");
        return new ServerConfig(s.name(), s.transport(), s.command(), s.args(), env, s.cwd(), s.url(), s.headers(),
                s.startupTimeout(), s.enabled(), s.source());
    }

    /**
     * Not Kiln's to write: not writable, on a read-only file system, or with its owner's write bit removed (root could
     * write anyway, but someone made it read-only on purpose — an image layer, a shared toolchain).
     */
    static boolean readOnly(Path root) {
        try {
            if (!Files.isWritable(root) || Files.getFileStore(root).isReadOnly()) {
                return true;
            }
            return Files.getFileAttributeView(root, java.nio.file.attribute.PosixFileAttributeView.class) != null
                    && !Files.getPosixFilePermissions(root).contains(java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
        } catch (java.io.IOException e) {
            return true;
        }
    }

    /** Configures a sweep; each setter rejects a bad value when it is set. */
    public static final class Builder {
        private List<Double> shares = List.of(4.0, 2.0, 1.0, 0.5);
        private boolean compareBytecode;
        private int repeat = 1;
        private @Nullable Duration timeout; // null: each server's own
        private EventSink events = EventSink.none();
        private Clock clock = Clock.systemUTC();
        private Map<String, String> environment = System.getenv();
        private HandshakeOrder order = HandshakeOrder.DISCOVER_FIRST;
        private Consumer<String> progress = s -> { };

        private Builder() {
        }

        /** The shares, in CPUs, in the order to measure them. */
        public Builder shares(List<Double> shares) {
            Objects.requireNonNull(shares, "shares");
            if (shares.isEmpty()) {
                throw new IllegalArgumentException("--sweep needs at least one share, e.g. --sweep 4,2,1,0.5");
            }
            for (double s : shares) {
                CpuQuota.checkShare(s);
            }
            if (shares.stream().distinct().count() < shares.size()) {
                throw new IllegalArgumentException("--sweep names a share twice: " + shares);
            }
            this.shares = List.copyOf(shares);
            return this;
        }

        /** Parses {@code 4,2,1,0.5}. */
        public static List<Double> parseShares(String list) {
            List<Double> out = new ArrayList<>();
            for (String part : list.split(",")) {
                try {
                    out.add(Double.parseDouble(part.trim()));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--sweep takes CPU shares like 4,2,1,0.5; '" + part.trim()
                            + "' is not a number");
                }
            }
            return out;
        }

        public Builder compareBytecode(boolean compare) {
            this.compareBytecode = compare;
            return this;
        }

        public Builder repeat(int k) {
            if (k < 1) {
                throw new IllegalArgumentException("--repeat must be at least 1, got " + k);
            }
            this.repeat = k;
            return this;
        }

        /** One startup timeout for every server (default: each server's own, else 30 s). */
        public Builder timeout(Duration timeout) {
            StartupProbe.builder().timeout(timeout); // same check, same message
            this.timeout = timeout;
            return this;
        }

        public Builder events(EventSink sink) {
            this.events = Objects.requireNonNull(sink, "events");
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder environment(Map<String, String> env) {
            this.environment = Objects.requireNonNull(env, "environment");
            return this;
        }

        public Builder handshake(HandshakeOrder order) {
            this.order = Objects.requireNonNull(order, "order");
            return this;
        }

        /** Where a line per step goes (precompiles, columns), for a terminal. */
        public Builder progress(Consumer<String> progress) {
            this.progress = Objects.requireNonNull(progress, "progress");
            return this;
        }

        public Sweep build() {
            return new Sweep(this);
        }
    }
}
