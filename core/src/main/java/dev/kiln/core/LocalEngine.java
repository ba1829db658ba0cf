package dev.kiln.core;

import dev.kiln.core.contract.HealReport;
import dev.kiln.core.doctor.Diagnosis;
import dev.kiln.core.doctor.Doctor;
import dev.kiln.core.engine.Archives;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.engine.Probes;
import dev.kiln.core.engine.Projection;
import dev.kiln.core.engine.SavedRun;
import dev.kiln.core.engine.Seeds;
import dev.kiln.core.engine.Store;
import dev.kiln.core.engine.WorkspaceActions;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.core.engine.OwnershipChanged;
import dev.kiln.core.serve.WorkspaceOwnership;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.watch.WatchStatus;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The in-process {@link Engine}: one {@link Kiln}'s projection (owned, followed or on demand, as
 * {@link WorkspaceOwnership} decides), which this engine is itself, and the facets of its {@link WorkspaceActions}
 * (the same objects the daemon's routes call).
 *
 * <p>Thread-safety: thread-safe, as its parts are.
 */
final class LocalEngine implements Engine, Projection {
    private final Kiln kiln;
    private final WorkspaceActions actions;

    LocalEngine(Kiln kiln, WorkspaceActions actions) {
        this.kiln = kiln;
        this.actions = actions;
    }

    @Override
    public String location() {
        return kiln.layout().root().toString();
    }

    @Override
    public boolean remote() {
        return false;
    }

    @Override
    public WorkspaceLayout layout() {
        return kiln.layout();
    }

    @Override
    public EventBus events() {
        return kiln.events();
    }

    @Override
    public Clock clock() {
        return kiln.clock();
    }

    @Override
    public Optional<String> start(boolean live) {
        WorkspaceOwnership ownership = kiln.ownership();
        Optional<String> why;
        if (live) {
            why = ownership.start();
        } else {
            ownership.onDemand();
            why = Optional.of("ticking on demand");
        }
        OwnershipChanged.Mode mode = ownership.state().mode();
        if (mode != OwnershipChanged.Mode.OWN && mode != OwnershipChanged.Mode.CLOSED) {
            kiln.projector().tick(WakeReason.STARTUP); // one tick shows the current state
        }
        return why;
    }

    @Override
    public ContractSnapshot snapshot() {
        return kiln.projector().snapshot();
    }

    @Override
    public void projectNow() {
        try {
            kiln.projectNow();
        } catch (IOException e) {
            throw new EngineException(EngineException.Kind.FAILED, "Projection of " + kiln.layout().root() + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EngineException(EngineException.Kind.FAILED, "Projection interrupted", e);
        }
    }

    /** The projector's own frames (the daemon's SSE machinery in process); the daemon's stream while following one. */
    @Override
    public AutoCloseable frames(java.util.function.BiConsumer<String, String> sink) {
        if (kiln.follows().isPresent()) {
            dev.kiln.core.serve.client.ServeClient c = dev.kiln.core.serve.client.ServeClient.of(kiln.layout()).orElseThrow(() ->
                    new EngineException(EngineException.Kind.UNREACHABLE, "The kiln serve that owns " + kiln.layout().root()
                            + " went away; record again once this console owns the workspace"));
            return dev.kiln.core.serve.FrameFeed.remote(c, sink, why -> { });
        }
        return dev.kiln.core.serve.FrameFeed.local(kiln.projector(), kiln.events(), sink);
    }

    @Override
    public Optional<WatchStatus> watchStatus() {
        return kiln.watchStatus();
    }

    @Override
    public Optional<String> apiUrl() {
        WorkspaceOwnership.State s = kiln.ownership().state();
        return s.apiUrl().isEmpty() ? Optional.empty() : Optional.of(s.apiUrl());
    }

    @Override
    public Diagnosis diagnose() {
        Doctor.Builder b = Doctor.builder(kiln.layout(), ServeClient.forDoctor()).clock(kiln.clock());
        kiln.apiUrl().ifPresent(u -> b.ownDaemon(URI.create(u)));
        return b.build().diagnose();
    }

    @Override
    public HealReport heal(boolean apply, String idempotencyKey) {
        return actions.heal(apply, idempotencyKey);
    }

    @Override
    public Projection projection() {
        return this;
    }

    @Override
    public Seeds seeds() {
        return actions.seeds();
    }

    @Override
    public Probes probes() {
        return actions.probes();
    }

    @Override
    public Archives archives() {
        return actions.archives();
    }

    @Override
    public Store store() {
        return actions.store();
    }

    @Override
    public void close() {
        kiln.close(); // closes the actions too
    }


    @Override
    public dev.kiln.core.health.HealthEvidence healthEvidence() {
        dev.kiln.core.projection.TickResult t = kiln.projector().lastTick();
        OwnershipChanged.Mode mode = kiln.ownership().state().mode();
        boolean heartbeats = mode == OwnershipChanged.Mode.OWN || mode == OwnershipChanged.Mode.FOLLOW;
        Duration heartbeat = kiln.settings().heartbeat();
        // a projection ticking on demand has no heartbeat to be late for: its age is not judged
        Optional<Duration> age = t == null ? Optional.empty()
                : Optional.of(heartbeats ? Duration.between(t.at(), kiln.clock().instant()) : Duration.ZERO);
        var b = dev.kiln.core.health.HealthEvidence.builder()
                .projection(t == null ? 0 : t.leaves(), t == null ? 0 : t.failures(),
                        snapshot().failures().stream().map(f -> f.path()).toList(), "")
                .age(age.map(a -> a.isNegative() ? Duration.ZERO : a), heartbeat)
                .seeds(actions.seeds().list(), actions.seeds().history())
                .stateFileError(Optional.ofNullable(kiln.projector().stateFileError()).orElse(""))
                .storeError(actions.storeUnreachable());
        kiln.watchStatus().ifPresent(w -> b.watch(w.live(), w.partial(), w.partial() ? w.note() : w.reason()));
        List<SavedRun> runs = actions.probes().runs();
        if (!runs.isEmpty()) {
            try {
                b.probe(Optional.of(dev.kiln.core.health.HealthEvidence.Probe.ofSavedRun(actions.probes().run(runs.get(0).id()))));
            } catch (RuntimeException e) {
                // a run that does not read says nothing of the servers; the Startup page shows why
            }
        }
        return b.build();
    }
}
