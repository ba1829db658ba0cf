package dev.kiln.core.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.http.BoundedRead;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.PublishedState;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.jspecify.annotations.Nullable;

/**
 * The staleness doctor: compares what a workspace publishes — its {@code observer/state.json}, or a daemon's
 * {@code /api/state} — with a fresh read-only projection of the disk, and explains every difference from evidence.
 *
 * <pre>{@code
 * Diagnosis d = Doctor.builder(WorkspaceLayout.of(dir)).build().diagnose();
 * System.out.println(d.headline()); // "stale by 2 contracts since 09:12:05 because no kiln serve is running"
 * }</pre>
 *
 * <p>It writes nothing: its projector is read-only (no state.json, no drift pruning), the lock file is only read —
 * and not even opened when this very process holds the lock, since closing a descriptor of a file drops the
 * process's POSIX locks on it — and the daemon is only asked {@code GET}s. A published revision that moves while
 * the doctor looks is compared again (up to twice), and differences that are all moments old are given the daemon's
 * interval once before they count.
 *
 * <p>Concurrency: {@link #diagnose} may run on any thread, and concurrently; each call has its own projector, and
 * reads the published document on a thread of its own while its projector ticks.
 */
public final class Doctor {
    /** The workspace, or null when the doctor starts from a daemon's URL ({@code api}); exactly one is set. */
    private final @Nullable WorkspaceLayout layout;
    private final @Nullable URI api;
    private final @Nullable URI ownApi;
    private final Clock clock;
    private final Duration timeout;
    private final boolean waitInFlight;
    private final DaemonAccess access;

    private Doctor(Builder b) {
        this.access = b.access;
        this.layout = b.layout;
        this.api = b.api;
        this.ownApi = b.ownApi;
        this.clock = b.clock;
        this.timeout = b.timeout;
        this.waitInFlight = b.waitInFlight;
    }

    /**
     * A doctor of the workspace directory {@code layout}: compares its state.json with the disk.
     *
     * @param daemons how it reaches the workspace's daemon: {@code ServeClient.forDoctor()}
     */
    public static Builder builder(WorkspaceLayout layout, DaemonAccess daemons) {
        return new Builder(Objects.requireNonNull(layout, "layout"), null, daemons);
    }

    /**
     * A doctor of the daemon at {@code api} (its base URL): compares its /api/state with its workspace's disk.
     *
     * @param daemons how it reaches the daemon: {@code ServeClient.forDoctor()}
     */
    public static Builder builder(URI api, DaemonAccess daemons) {
        Objects.requireNonNull(api, "api");
        if (!"http".equals(api.getScheme()) && !"https".equals(api.getScheme())) {
            throw new IllegalArgumentException("the daemon URL must be http:// or https://, got " + api);
        }
        String s = api.toString();
        return new Builder(null, URI.create(s.endsWith("/") ? s : s + "/"), daemons);
    }

    /** Runs the diagnosis. Never throws for a bad workspace or an absent daemon: that is a {@code CANNOT_TELL}. */
    public Diagnosis diagnose() {
        long t0 = System.nanoTime();
        try {
            return run(t0);
        } catch (RuntimeException e) {
            return Diagnosis.cannotTell("the doctor failed: " + e, layout == null ? null : layout.root().toString(), null,
                    clock.instant(), List.of(), List.of("report this with kiln doctor --json"), millis(t0));
        }
    }

    private Diagnosis run(long t0) {
        WorkspaceLayout ws;
        Patience patience = new Patience(timeout);
        if (api == null) {
            ws = Objects.requireNonNull(layout, "a doctor without a daemon URL has a workspace (see the builders)");
        } else {
            JsonNode m;
            try {
                m = patience.ask(api, within -> access.metrics(api, null, within));
            } catch (IOException e) {
                String why = String.valueOf(e.getMessage());
                return cannot(null, why.startsWith("the daemon at ") ? why : api + " does not answer (" + why + ")", t0,
                        "check the URL (kiln serve prints it when it starts), or give the workspace directory instead");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return cannot(null, "interrupted", t0);
            }
            ws = WorkspaceLayout.of(Path.of(m.path("workspace").asText("")));
            if (!ws.isWorkspace()) {
                return cannot(ws, "the daemon at " + api + " serves " + ws.root() + ", which is not a workspace on this machine:"
                        + " the doctor needs its files", t0, "run kiln doctor on the machine that runs the daemon");
            }
        }
        if (!ws.isWorkspace()) {
            return cannot(ws, ws.root() + " is not a Kiln workspace (no kiln.json or tasks/)", t0,
                    "give a workspace directory (or create a demo: kiln demo " + ws.root() + ")");
        }
        Projector fresh = Projector.builder(ws).clock(clock).readOnly().build();
        for (int attempt = 0;; attempt++) {
            DaemonEvidence daemon = DaemonEvidence.gather(ws, api != null ? api : ownApi, patience, access);
            // the published document (megabytes at 10,000 leaves) is read and parsed while the fresh tick runs;
            // a revision published meanwhile is caught by the check below
            WorkspaceLayout target = ws;
            FutureTask<PublishedState> reading = new FutureTask<>(
                    () -> api != null ? fromApi(api, patience, access) : PublishedState.read(target.stateFile()));
            Thread reader = new Thread(reading, "kiln-doctor-read");
            reader.setDaemon(true);
            reader.start();
            TickResult tick = fresh.tick(WakeReason.MANUAL);
            ObjectNode projection = Objects.requireNonNull(fresh.projection(), "the projector has just ticked");
            PublishedState published;
            try {
                published = reading.get();
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                if (c instanceof IOException && api != null) {
                    return cannot(ws, String.valueOf(c.getMessage()), t0, "check that " + api + " is a kiln serve of this"
                            + " release (it prints its URL at start), or give the workspace directory instead: kiln doctor " + ws.root());
                }
                if (c instanceof IOException) {
                    return cannot(ws, String.valueOf(c.getMessage()), t0, "Project now to rewrite it: kiln project " + ws.root());
                }
                throw c instanceof RuntimeException r ? r : new IllegalStateException(c);
            } catch (InterruptedException e) {
                reader.interrupt();
                Thread.currentThread().interrupt();
                return cannot(ws, "interrupted", t0);
            }
            if (published == null) {
                return cannot(ws, "nothing is published yet: " + ws.stateFile() + " does not exist", t0,
                        "Project once: kiln project " + ws.root() + ", or keep it current: kiln serve " + ws.root());
            }
            if (attempt < 2 && revisionNow(ws, patience) != published.revision()) {
                continue; // a tick was published while we looked: compare with that one
            }
            Explainer explainer = new Explainer(ws, tick.at(), clock.getZone(), published, daemon);
            List<Difference> differences = new ArrayList<>();
            for (Comparison.Raw r : Comparison.of(published, projection)) {
                differences.add(explainer.explain(r));
            }
            if (waitInFlight && attempt < 2 && !differences.isEmpty()
                    && differences.stream().allMatch(d -> d.cause() == Cause.IN_FLIGHT)) {
                try {
                    Thread.sleep(Math.min(5_000, explainer.inFlightMillisLeft(differences) + 50));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return cannot(ws, "interrupted", t0);
                }
                continue;
            }
            return explainer.diagnosis(differences, tick.leaves(), ws.root().toString(), millis(t0));
        }
    }

    /** The daemon's state document: at most {@link BoundedRead#STATE}, within what is left of the patience. */
    private static PublishedState fromApi(URI base, Patience patience, DaemonAccess access)
            throws IOException, InterruptedException {
        return PublishedState.parse(base.resolve("api/v1/state").toString(),
                patience.ask(base, within -> access.state(base, null, within)));
    }

    /** The published revision now (-1 when it cannot be read): the file's head, or the daemon's metrics. */
    private long revisionNow(WorkspaceLayout ws, Patience patience) {
        if (api == null) {
            return Projector.publishedRevision(ws.stateFile());
        }
        try {
            return patience.ask(api, within -> access.metrics(api, null, within)).path("revision").asLong(-1);
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private Diagnosis cannot(@Nullable WorkspaceLayout ws, String why, long t0, String... remedies) {
        return Diagnosis.cannotTell(why, ws == null ? null : ws.root().toString(), api == null ? null : api.toString(),
                clock.instant(), List.of(), List.of(remedies), millis(t0));
    }

    private static double millis(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }

    /** Configures a {@link Doctor}; rejects bad options when they are set. */
    public static final class Builder {
        private final @Nullable WorkspaceLayout layout;
        private final @Nullable URI api;
        private @Nullable URI ownApi;
        private Clock clock = Clock.systemDefaultZone();
        private Duration timeout = Duration.ofSeconds(10);
        private boolean waitInFlight = true;
        private final DaemonAccess access;

        private Builder(@Nullable WorkspaceLayout layout, @Nullable URI api, DaemonAccess access) {
            this.layout = layout;
            this.api = api;
            this.access = Objects.requireNonNull(access, "daemons");
        }

        /** The clock of the fresh projection and of the times in the headline (its zone formats HH:MM:SS). */
        public Builder clock(Clock c) {
            this.clock = Objects.requireNonNull(c, "clock");
            return this;
        }

        /**
         * The API of a daemon that runs inside this very process (a console that owns the workspace): the doctor then
         * never reads the lock file, whose reading would drop the process's own lock.
         */
        public Builder ownDaemon(URI url) {
            this.ownApi = url;
            return this;
        }

        /**
         * How long to wait for the daemon's answers, all of one diagnosis's together, bodies included however slowly
         * they come (default 10 s); each answer is bounded in size too.
         */
        public Builder timeout(Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("the timeout must be a positive duration, got " + d);
            }
            this.timeout = d;
            return this;
        }

        /** Whether differences that are all moments old are given the daemon's interval once (default on). */
        public Builder waitInFlight(boolean wait) {
            this.waitInFlight = wait;
            return this;
        }

        public Doctor build() {
            return new Doctor(this);
        }
    }
}
