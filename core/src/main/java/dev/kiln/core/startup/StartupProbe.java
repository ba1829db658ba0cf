package dev.kiln.core.startup;

import dev.kiln.core.telemetry.Ticker;
import dev.kiln.core.telemetry.EventSink;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Starts many MCP servers at the same instant, the way an agent client does at session start, and times each one's
 * {@code initialize} answer against its startup timeout.
 *
 * <pre>{@code
 * ProbeReport report = StartupProbe.builder().cpus("0").repeat(3).events(bus).build().run(servers);
 * }</pre>
 *
 * <p>Each run prepares every server, then releases them all through one barrier, so the spawns happen together and
 * compete for the CPU as they do in a sandbox. Every process (and its children) is ended before {@link #run} returns.
 * A probe is immutable and may be run again; {@link #run} blocks and is safe to call from any one thread at a time.
 *
 * <p>Concurrency: a run owns a fixed pool of one thread per server, released together by a
 * {@link CyclicBarrier}; events are published from those threads (the sink must be thread-safe, as
 * {@link dev.kiln.core.telemetry.EventBus} is). The pool is shut down, and every process ended, before {@link #run}
 * returns.
 */
public final class StartupProbe {
    /** Codex's default {@code startup_timeout_sec}. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    /** Longest stdout line read before it is reported as oversized. */
    public static final int DEFAULT_MAX_LINE_BYTES = 8 << 20;

    private final @Nullable Duration timeoutOverride;
    private final List<String> cpus;
    private final int repeat;
    private final BytecodeMode bytecode;
    private final EventSink events;
    private final Clock clock;
    private final Ticker ticker;
    private final int maxLineBytes;
    private final Map<String, String> environment;
    private final @Nullable Double cpuShare;
    private final HandshakeOrder order;

    private StartupProbe(Builder b) {
        this.cpuShare = b.cpuShare;
        this.order = b.order;
        this.timeoutOverride = b.timeout;
        this.cpus = b.cpus;
        this.repeat = b.repeat;
        this.bytecode = b.bytecode;
        this.events = b.events;
        this.clock = b.clock;
        this.ticker = b.ticker;
        this.maxLineBytes = b.maxLineBytes;
        this.environment = Map.copyOf(b.environment);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The timeout {@code server} is held to: the probe's override, else its configured one, else 30 s. */
    public Duration timeoutFor(ServerConfig server) {
        return timeoutOverride != null ? timeoutOverride : server.startupTimeout().orElse(DEFAULT_TIMEOUT);
    }

    /**
     * Probes the enabled servers of {@code servers}, {@code repeat} times.
     *
     * @throws IllegalArgumentException when no server is enabled
     * @throws IllegalStateException when CPUs are pinned and {@code taskset} is not installed
     * @throws CpuQuota.QuotaException when a CPU share was asked for and cannot be enforced here
     * @throws InterruptedException when the calling thread is interrupted (the probe is cancelled); every process
     *     it started is ended before this is thrown
     */
    public ProbeReport run(List<ServerConfig> servers) throws InterruptedException {
        List<ServerConfig> enabled = servers.stream().filter(ServerConfig::enabled).toList();
        if (enabled.isEmpty()) {
            throw new IllegalArgumentException("no enabled server to probe");
        }
        if (cpuShare != null && enabled.stream().noneMatch(s -> s.transport() == ServerConfig.Transport.STDIO)) {
            throw new IllegalArgumentException("--cpu-share limits the servers Kiln spawns; every server here is reached"
                    + " over HTTP, so there is nothing to limit");
        }
        if (!cpus.isEmpty() && enabled.stream().anyMatch(s -> s.transport() == ServerConfig.Transport.STDIO)
                && !onPath("taskset")) {
            throw new IllegalStateException("--cpus needs taskset, which is not on PATH; install util-linux"
                    + " (apt-get install util-linux) or probe without --cpus");
        }
        java.time.Instant started = clock.instant();
        List<ServerResult> results = new ArrayList<>();
        // One group for every run: the servers share it as they share a container. Closed however run() ends.
        CpuQuota quota = cpuShare == null ? null : CpuQuota.open(cpuShare, environment);
        ProbeReport.CpuLimit limit = null;
        try {
            long cpuBefore = quota == null ? 0 : quota.cpuUsageNanos().orElse(-1);
            long[] quotaWall = new long[1];
            for (int run = 1; run <= repeat; run++) {
                results.addAll(runOnce(enabled, run, quota, quotaWall));
            }
            if (quota != null) {
                long cpuAfter = quota.cpuUsageNanos().orElse(-1);
                Double perWall = cpuBefore < 0 || cpuAfter < 0 || quotaWall[0] <= 0 ? null
                        : (double) (cpuAfter - cpuBefore) / quotaWall[0];
                limit = new ProbeReport.CpuLimit(quota.share(), quota.mechanism().label(), quota.name(),
                        cpuAfter < 0 || cpuBefore < 0 ? null : (cpuAfter - cpuBefore) / 1e6, perWall, quota.describe());
            }
        } finally {
            if (quota != null) {
                quota.close();
            }
        }
        return new ProbeReport(started, String.join(",", cpus), repeat, bytecode, results, limit, order);
    }

    private List<ServerResult> runOnce(List<ServerConfig> servers, int run, @Nullable CpuQuota quota, long[] quotaWall)
            throws InterruptedException {
        events.publish(new ProbeEvent.RunStarted(clock.instant(), run, repeat, servers.size()));
        AtomicLong origin = new AtomicLong();
        CyclicBarrier barrier = new CyclicBarrier(servers.size(), () -> origin.set(ticker.read()));
        ExecutorService pool = Executors.newFixedThreadPool(servers.size(), r -> {
            Thread t = new Thread(r, "kiln-probe-server");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<ServerResult>> futures = new ArrayList<>();
            for (ServerConfig s : servers) {
                ServerRun serverRun = new ServerRun(s, timeoutFor(s), cpus, bytecode, maxLineBytes, environment, quota, order);
                futures.add(pool.submit(() -> {
                    serverRun.prepare();
                    try {
                        barrier.await();
                    } catch (InterruptedException | java.util.concurrent.BrokenBarrierException e) {
                        serverRun.discard(); // cancelled before anything was spawned
                        throw e;
                    }
                    return serverRun.run(new Recorder(s.name(), run, origin.get(), ticker, clock, events));
                }));
            }
            List<ServerResult> out = new ArrayList<>();
            for (Future<ServerResult> f : futures) {
                try {
                    out.add(f.get());
                } catch (ExecutionException e) {
                    // Only a bug in Kiln gets here; a server's misbehaviour is always an outcome.
                    throw new IllegalStateException("the probe failed: " + e.getCause(), e.getCause());
                }
            }
            quotaWall[0] += ticker.read() - origin.get(); // the servers' wall time in the group, spawns to last exit
            return out;
        } finally {
            // Cancelled (interrupted): the server threads end their processes on the way out; wait for that, so no
            // process outlives run() either way.
            pool.shutdownNow();
            boolean interrupted = Thread.interrupted();
            try {
                pool.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean onPath(String tool) {
        String path = environment.getOrDefault("PATH", "");
        return Arrays.stream(path.split(File.pathSeparator)).filter(d -> !d.isEmpty())
                .anyMatch(d -> Files.isExecutable(Path.of(d, tool)));
    }

    /** Configures a probe; each setter rejects a bad value when it is set. */
    public static final class Builder {
        private @Nullable Duration timeout; // null: each server's own
        private List<String> cpus = List.of();
        private int repeat = 1;
        private BytecodeMode bytecode = BytecodeMode.AS_IS;
        private EventSink events = EventSink.none();
        private Clock clock = Clock.systemUTC();
        private Ticker ticker = Ticker.systemTicker();
        private int maxLineBytes = DEFAULT_MAX_LINE_BYTES;
        private Map<String, String> environment = System.getenv();
        private @Nullable Double cpuShare;
        private HandshakeOrder order = HandshakeOrder.DISCOVER_FIRST;

        private Builder() {
        }

        /**
         * Runs every spawned server of a run in one CPU-quota group of {@code share} CPUs (like a container's
         * {@code cpus:}); see {@link CpuQuota}. The group is created when the probe runs and removed when it ends.
         *
         * @throws IllegalArgumentException when the share is not positive or below what the kernel accepts
         */
        public Builder cpuShare(double share) {
            this.cpuShare = CpuQuota.checkShare(share);
            return this;
        }

        /** Which revision is asked first (default: {@link HandshakeOrder#DISCOVER_FIRST}, as a client that speaks both). */
        public Builder handshake(HandshakeOrder order) {
            this.order = Objects.requireNonNull(order, "order");
            return this;
        }

        /** One startup timeout for every server, overriding their configured ones. */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("the startup timeout must be positive, got " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /** Pins every server to these CPUs with {@code taskset}, e.g. {@code "0"} or {@code "0,1"}; empty: no pinning. */
        public Builder cpus(String list) {
            Objects.requireNonNull(list, "cpus");
            if (list.isBlank()) {
                this.cpus = List.of();
                return this;
            }
            if (!list.matches("\\d+(-\\d+)?(,\\d+(-\\d+)?)*")) {
                throw new IllegalArgumentException("--cpus takes a CPU list like 0 or 0,1 or 0-3, got '" + list + "'");
            }
            int available = Runtime.getRuntime().availableProcessors();
            for (String part : list.split("[,-]")) {
                if (Integer.parseInt(part) >= available) {
                    throw new IllegalArgumentException("CPU " + part + " does not exist here (CPUs 0-" + (available - 1) + ")");
                }
            }
            this.cpus = List.of(list.split(","));
            return this;
        }

        /** Runs the probe {@code k} times (for medians). */
        public Builder repeat(int k) {
            if (k < 1) {
                throw new IllegalArgumentException("--repeat must be at least 1, got " + k);
            }
            this.repeat = k;
            return this;
        }

        public Builder bytecode(BytecodeMode mode) {
            this.bytecode = Objects.requireNonNull(mode, "bytecode");
            return this;
        }

        /** Where the probe's steps are published as {@link ProbeEvent}s. */
        public Builder events(EventSink sink) {
            this.events = Objects.requireNonNull(sink, "events");
            return this;
        }

        /** Stamps events' {@code at}. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Measures the timelines. */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /** The longest stdout line accepted (default 8 MiB). */
        public Builder maxLineBytes(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("the line cap must be at least 1024 bytes, got " + bytes);
            }
            this.maxLineBytes = bytes;
            return this;
        }

        /** The environment servers start from (default: Kiln's own); each server's {@code env} is laid over it. */
        public Builder environment(Map<String, String> env) {
            this.environment = Objects.requireNonNull(env, "environment");
            return this;
        }

        public StartupProbe build() {
            return new StartupProbe(this);
        }
    }
}
