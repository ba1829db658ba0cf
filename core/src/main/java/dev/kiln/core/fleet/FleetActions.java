package dev.kiln.core.fleet;

import dev.kiln.core.doctor.Diagnosis;
import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.engine.ProbeRequest;
import dev.kiln.core.health.HealthRules;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.core.startup.ProbeReport;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One action on many daemons at once, each on its own host through its engine (a {@link RemoteEngine} over the
 * daemon's API, with the token file and pin of its {@link DaemonEntry}): a startup probe, a warm of the stale seeds,
 * or the doctor. At most {@link Builder#concurrency} daemons run at once; each has a {@link Progress} (queued,
 * running, done, failed with why, cancelled), and {@link Run#cancelAll} cancels the queued ones here and the running
 * ones on their hosts (the API's action cancel, which ends the processes they started).
 *
 * <p>A daemon that stops answering while its action runs is found by connecting to it about once a second
 * ({@link Builder#reachability}): after two such checks in a row fail (no connection at all; a slow answer is not a
 * lost daemon), its row fails with reason {@code unreachable} (its action's end is lost with it), and the others go
 * on.
 *
 * <p>Concurrency: thread-safe. A run owns a pool of {@code concurrency} daemon threads, ended when the run is; the
 * progress of each daemon is an immutable value replaced under the run's lock, and the listener is called after each
 * change on the thread that made it (it must be quick: a view model only schedules its one hop).
 */
public final class FleetActions {
    /** How often a running action's daemon is asked whether it is still there. */
    static final Duration CHECK = Duration.ofSeconds(1);
    /** Checks in a row a daemon must fail (not answer at all) before its action counts as lost with it. */
    static final int LOST_AFTER = 2;
    /** How long a cancelled action may take to say it ended before its row says cancelled anyway. */
    static final Duration CANCEL_GRACE = Duration.ofSeconds(30);
    /** The longest any one daemon's action may take. */
    static final Duration LONGEST = Duration.ofMinutes(30);

    /** What to run on each daemon. */
    public enum Kind {
        /** A startup probe of its servers. */
        PROBE,
        /** A warm of each seed that is not current for its target's lockfile. */
        WARM,
        /** The doctor's diagnosis of its projection. */
        DOCTOR;

        /** {@code "probe"}, as the CLI names it. */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Where a daemon's action is. */
    public enum State {
        QUEUED, RUNNING, DONE, FAILED, CANCELLED;

        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Whether it has ended, one way or another. */
        public boolean ended() {
            return this == DONE || this == FAILED || this == CANCELLED;
        }
    }

    /**
     * One daemon's part in a run, as it is now. Immutable.
     *
     * @param daemon the daemon
     * @param state where its action is
     * @param code why it failed, as a code ({@code unreachable}, {@code unauthorized}, {@code failed}); empty unless failed
     * @param message what it did or why not, for people
     * @param startedAt when its action started, once it did
     * @param took how long it ran, once it ended
     * @param probe the probe's report, for a probe that finished
     * @param diagnosis the doctor's diagnosis, for a doctor that finished
     * @param warms the warms it ran, in order, for a warm
     */
    public record Progress(DaemonEntry daemon, State state, String code, String message, Optional<Instant> startedAt,
            Optional<Duration> took, Optional<ProbeReport> probe, Optional<Diagnosis> diagnosis, List<WarmResult> warms) {
        public Progress {
            warms = List.copyOf(warms);
        }

        static Progress queued(DaemonEntry d) {
            return new Progress(d, State.QUEUED, "", "queued", Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.empty(), List.of());
        }

        Progress running(Instant at, String what) {
            return new Progress(daemon, State.RUNNING, "", what, Optional.of(at), took, probe, diagnosis, warms);
        }

        Progress ended(State s, String why, String text, Instant at) {
            return new Progress(daemon, s, why, text, startedAt, startedAt.map(t -> Duration.between(t, at)), probe,
                    diagnosis, warms);
        }

        Progress with(@Nullable ProbeReport p, @Nullable Diagnosis d, List<WarmResult> w) {
            return new Progress(daemon, state, code, message, startedAt, took, Optional.ofNullable(p), Optional.ofNullable(d), w);
        }

        public String name() {
            return daemon.name();
        }

        /** Per server of a finished probe, in config order: its slowest answer against its timeout. */
        public List<Heat> heat() {
            return probe.map(r -> r.servers().stream().map(Heat::of).toList()).orElse(List.of());
        }
    }

    /**
     * One server of a host's probe: its slowest {@code initialize} answer against its startup timeout.
     *
     * @param server the server
     * @param slowestMs its slowest answer over the runs, or -1 when a run failed
     * @param timeoutMs the timeout it is held to
     * @param outcome {@code "ok"}, or how its failed run ended ({@code "timeout"}, {@code "exited(1)"} …)
     */
    public record Heat(String server, double slowestMs, long timeoutMs, String outcome) {
        static Heat of(ProbeReport.ServerSummary s) {
            Double slowest = s.initializeMsMax();
            boolean ok = s.okRuns() == s.runs() && slowest != null;
            return new Heat(s.name(), ok && slowest != null ? slowest : -1, s.representative().timeoutMs(),
                    ok ? "ok" : s.representative().outcomeText());
        }

        /** The slowest answer as a share of the timeout (1 or more: over it, or failed). */
        public double share() {
            return slowestMs < 0 || timeoutMs <= 0 ? 1.0 : slowestMs / timeoutMs;
        }

        /** Whether it answered, in every run, within its timeout. */
        public boolean ok() {
            return outcome.equals("ok");
        }
    }

    private final int concurrency;
    private final Function<DaemonEntry, Engine> engines;
    private final Function<DaemonEntry, Optional<String>> reachability;
    private final ProbeRequest probeRequest;
    private final Clock clock;

    private FleetActions(Builder b) {
        this.concurrency = b.concurrency;
        this.engines = b.engines != null ? b.engines : d -> RemoteEngine.connect(d.url(), d.tokenFile().orElse(null),
                d.pin().orElse(null), b.clock);
        this.reachability = b.reachability != null ? b.reachability : FleetActions::listens;
        this.probeRequest = b.probeRequest;
        this.clock = b.clock;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Options of a fleet's actions; bad ones are refused when set. */
    public static final class Builder {
        private int concurrency = 8;
        private @Nullable Function<DaemonEntry, Engine> engines;
        private @Nullable Function<DaemonEntry, Optional<String>> reachability;
        private ProbeRequest probeRequest = ProbeRequest.all();
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        /** How many daemons run at once (default 8): each costs a thread here and an action on its host. */
        public Builder concurrency(int n) {
            if (n < 1 || n > 256) {
                throw new IllegalArgumentException("a fleet runs 1 to 256 daemons at once, not " + n);
            }
            this.concurrency = n;
            return this;
        }

        /** How a daemon's engine is opened (default: {@link RemoteEngine#connect} with its token file and pin). */
        public Builder engines(Function<DaemonEntry, Engine> engines) {
            this.engines = Objects.requireNonNull(engines);
            return this;
        }

        /** Why a daemon is unreachable now, empty when it is there (default: it accepts a connection within 2 s). */
        public Builder reachability(Function<DaemonEntry, Optional<String>> reachability) {
            this.reachability = Objects.requireNonNull(reachability);
            return this;
        }

        /** What a probe probes (default: every enabled server, as configured). */
        public Builder probeRequest(ProbeRequest request) {
            this.probeRequest = Objects.requireNonNull(request);
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        public FleetActions build() {
            return new FleetActions(this);
        }
    }

    /**
     * Starts {@code kind} on every daemon of {@code daemons} (in that order, {@link Builder#concurrency} at once).
     *
     * @param onChange called after each change of a daemon's progress, on the thread that made it
     * @throws IllegalArgumentException when no daemon is given, or one name twice
     */
    public Run start(Kind kind, List<DaemonEntry> daemons, Consumer<Run> onChange) {
        if (daemons.isEmpty()) {
            throw new IllegalArgumentException("a fleet action needs at least one daemon");
        }
        if (daemons.stream().map(d -> d.name().toLowerCase(Locale.ROOT)).distinct().count() != daemons.size()) {
            throw new IllegalArgumentException("a daemon is named twice in " + daemons.stream().map(DaemonEntry::name).toList());
        }
        Run run = new Run(kind, daemons, onChange);
        run.begin();
        return run;
    }

    /**
     * Why the daemon is gone, empty while it is there: something accepts a connection at its address within 2 s. Only
     * the connection is asked for: an overloaded daemon (or a slow disk under its token file here) is not a lost one,
     * and a hung one meets its action's own bound; a dead process's port refuses at once, a dead host's times out.
     */
    static Optional<String> listens(DaemonEntry d) {
        java.net.URI u = d.url();
        int port = u.getPort() > 0 ? u.getPort() : d.tls() ? 443 : 80;
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress(u.getHost(), port), 2000);
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of((e instanceof java.net.SocketTimeoutException ? "no connection within 2 s to "
                    : "nothing listens at ") + u.getHost() + ":" + port + " (" + e.getMessage() + ")");
        }
    }

    /** One fleet-wide action: its daemons' progress, in the order they were given. */
    public final class Run {
        private final Kind kind;
        private final List<DaemonEntry> daemons;
        private final Consumer<Run> onChange;
        private final ExecutorService pool;
        private final Progress[] progress; // guarded by this
        private final @Nullable Action<?>[] current; // guarded by this
        private final AtomicInteger left;
        private volatile boolean cancelled;

        private Run(Kind kind, List<DaemonEntry> daemons, Consumer<Run> onChange) {
            this.kind = kind;
            this.daemons = List.copyOf(daemons);
            this.onChange = Objects.requireNonNull(onChange);
            this.progress = daemons.stream().map(Progress::queued).toArray(Progress[]::new);
            this.current = new Action<?>[daemons.size()];
            this.left = new AtomicInteger(daemons.size());
            AtomicInteger n = new AtomicInteger();
            this.pool = Executors.newFixedThreadPool(Math.min(concurrency, daemons.size()), r -> {
                Thread t = new Thread(r, "kiln-fleet-action-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }

        private void begin() {
            for (int i = 0; i < daemons.size(); i++) {
                int at = i;
                pool.execute(() -> runOne(at));
            }
            pool.shutdown();
        }

        public Kind kind() {
            return kind;
        }

        /** Every daemon's progress now, in the order given. */
        public synchronized List<Progress> progress() {
            return List.of(progress.clone());
        }

        /** Whether every daemon's action has ended. */
        public boolean done() {
            return left.get() == 0;
        }

        /** Daemons whose action failed (cancelled ones are not failures). */
        public long failed() {
            return progress().stream().filter(p -> p.state() == State.FAILED).count();
        }

        /**
         * Cancels the run: queued daemons do not start; a running action is cancelled on its host (the API's cancel
         * ends what it started there), and its row says cancelled once it ended (or after a grace of 30 s).
         */
        public void cancelAll() {
            cancelled = true;
            List<Action<?>> running = new ArrayList<>();
            synchronized (this) {
                for (Action<?> a : current) {
                    if (a != null) {
                        running.add(a);
                    }
                }
            }
            for (Action<?> a : running) {
                sendCancel(a);
            }
        }

        /** Waits until every daemon's action ended, at most {@code timeout}; whether they did. */
        public boolean await(Duration timeout) throws InterruptedException {
            return pool.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        private void sendCancel(Action<?> a) {
            try {
                a.cancel();
            } catch (EngineException e) {
                // It is not there to cancel: its row fails as unreachable when its check finds that.
            }
        }

        private void set(int i, Progress p) {
            synchronized (this) {
                progress[i] = p;
            }
            try {
                onChange.accept(this);
            } catch (RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(FleetActions.class).warn("A fleet progress listener failed; ignored", e);
            }
        }

        private synchronized Progress at(int i) {
            return progress[i];
        }

        private void runOne(int i) {
            DaemonEntry d = daemons.get(i);
            try {
                if (cancelled) {
                    set(i, at(i).ended(State.CANCELLED, "", "cancelled before it started", clock.instant()));
                    return;
                }
                set(i, at(i).running(clock.instant(), "connecting"));
                Engine engine;
                try {
                    engine = engines.apply(d);
                } catch (EngineException e) {
                    fail(i, e);
                    return;
                }
                try {
                    act(i, d, engine);
                } catch (CancellationException e) {
                    set(i, at(i).ended(State.CANCELLED, "", "cancelled on its host", clock.instant()));
                } catch (EngineException e) {
                    fail(i, e);
                } catch (InterruptedException e) {
                    set(i, at(i).ended(State.CANCELLED, "", "cancelled", clock.instant()));
                } catch (RuntimeException e) {
                    set(i, at(i).ended(State.FAILED, "failed", String.valueOf(e.getMessage()), clock.instant()));
                } finally {
                    synchronized (this) {
                        current[i] = null;
                    }
                    try {
                        engine.close();
                    } catch (RuntimeException e) {
                        // closing a connection to a daemon that is gone
                    }
                }
            } finally {
                left.decrementAndGet();
            }
        }

        private void fail(int i, EngineException e) {
            String code = e.kind() == EngineException.Kind.UNREACHABLE ? HealthRules.UNREACHABLE
                    : e.kind().name().toLowerCase(Locale.ROOT);
            String m = String.valueOf(e.getMessage());
            set(i, at(i).ended(State.FAILED, code, code.equals(HealthRules.UNREACHABLE) && !m.startsWith("unreachable")
                    ? "unreachable: " + m : m, clock.instant()));
        }

        private void act(int i, DaemonEntry d, Engine engine) throws InterruptedException {
            String key = "fleet-" + kind.word() + "-" + UUID.randomUUID();
            switch (kind) {
                case PROBE -> {
                    set(i, at(i).running(clock.instant(), "probing its servers"));
                    ProbeReport r = await(i, d, engine.probes().probe(probeRequest, key));
                    set(i, at(i).with(r, null, List.of()).ended(State.DONE, "", probeText(r), clock.instant()));
                }
                case WARM -> {
                    List<String> stale = engine.seeds().list().stream().filter(s -> !s.current() && s.problem().isEmpty())
                            .map(SeedInfo::target).toList();
                    List<WarmResult> warms = new ArrayList<>();
                    for (String t : stale) {
                        if (cancelled) {
                            throw new CancellationException();
                        }
                        set(i, at(i).with(null, null, warms).running(clock.instant(), "warming " + t + " (" + (warms.size() + 1)
                                + " of " + stale.size() + ")"));
                        WarmResult w = await(i, d, engine.seeds().warm(t, key + "-" + t));
                        warms.add(w);
                        if (w.outcome() == WarmOutcome.CANCELLED) { // cancelled on its host: the old seed stays
                            set(i, at(i).with(null, null, warms));
                            throw new CancellationException();
                        }
                    }
                    long bad = warms.stream().filter(w -> w.outcome() != WarmOutcome.WARMED && w.outcome() != WarmOutcome.UNCHANGED).count();
                    String text = stale.isEmpty() ? "no stale seeds" : warms.size() + " warmed" + (bad == 0 ? ""
                            : ", " + bad + " not: " + String.join("; ", warms.stream().filter(w -> w.outcome() != WarmOutcome.WARMED
                                    && w.outcome() != WarmOutcome.UNCHANGED).map(w -> w.target() + " " + w.outcome().name()
                                    .toLowerCase(Locale.ROOT)).toList()));
                    Progress p = at(i).with(null, null, warms);
                    set(i, bad == 0 ? p.ended(State.DONE, "", text, clock.instant())
                            : p.ended(State.FAILED, "warm_failed", text, clock.instant()));
                }
                case DOCTOR -> {
                    set(i, at(i).running(clock.instant(), "diagnosing"));
                    Diagnosis g = engine.projection().diagnose();
                    if (cancelled) {
                        throw new CancellationException();
                    }
                    set(i, at(i).with(null, g, List.of()).ended(State.DONE, "", g.verdict().jsonName() + ": " + g.headline(),
                            clock.instant()));
                }
            }
        }

        /** Waits for {@code a}, asking its daemon whether it is still there meanwhile, and cancelling it when asked. */
        private <T> T await(int i, DaemonEntry d, Action<T> a) throws InterruptedException {
            synchronized (this) {
                current[i] = a;
            }
            if (cancelled) {
                sendCancel(a);
            }
            long start = System.nanoTime();
            long cancelSeen = -1;
            int missed = 0;
            while (true) {
                try {
                    return a.result().get(CHECK.toMillis(), TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    Throwable c = e.getCause() == null ? e : e.getCause();
                    if (c instanceof CancellationException ce) {
                        throw ce;
                    }
                    if (c instanceof EngineException ee) {
                        throw ee;
                    }
                    throw new EngineException(EngineException.Kind.FAILED, String.valueOf(c.getMessage()), c);
                } catch (CancellationException e) {
                    throw e;
                } catch (TimeoutException e) {
                    if (cancelled) {
                        cancelSeen = cancelSeen < 0 ? System.nanoTime() : cancelSeen;
                        if (System.nanoTime() - cancelSeen > CANCEL_GRACE.toNanos()) {
                            throw new CancellationException();
                        }
                    }
                    Optional<String> gone = reachability.apply(d);
                    missed = gone.isPresent() ? missed + 1 : 0;
                    if (missed >= LOST_AFTER) {
                        throw new EngineException(EngineException.Kind.UNREACHABLE, "unreachable while its "
                                + kind.word() + " ran (" + gone.get() + "); what it did there is not known here");
                    }
                    if (System.nanoTime() - start > LONGEST.toNanos()) {
                        sendCancel(a);
                        throw new EngineException(EngineException.Kind.FAILED, "its " + kind.word() + " ran longer than "
                                + LONGEST.toMinutes() + " min; cancelled");
                    }
                }
            }
        }
    }

    /** {@code "3 servers, slowest demo-stdlib 412 ms of 30 s"}, with failures and timeouts first. */
    static String probeText(ProbeReport r) {
        List<String> parts = new ArrayList<>();
        parts.add(r.servers().size() + " servers");
        if (r.failed() > 0) {
            parts.add(r.failed() + " failed");
        }
        if (r.overTimeout() > 0) {
            parts.add(r.overTimeout() + " over timeout");
        }
        ProbeReport.ServerSummary s = r.slowest();
        if (s != null && s.initializeMsMax() != null) {
            parts.add("slowest " + s.name() + " " + Math.round(s.initializeMsMax()) + " ms of "
                    + s.representative().timeoutMs() / 1000 + " s");
        }
        return String.join(", ", parts);
    }
}
