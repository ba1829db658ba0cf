package dev.kiln.ui;

import dev.kiln.core.Kiln;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.serve.client.RemoteEngine;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;

/**
 * The base of every view-model test that needs an {@link Engine}: a test asks {@link #engine} for one over a workspace
 * it has written, and {@link #newEngine} — the only place that knows which engine it is — makes it. Each such test
 * is an abstract class with one subclass per engine: {@code …LocalTest} (in this process, {@link #local}) and
 * {@code …RemoteTest} (a {@code RemoteEngine} attached over loopback HTTP to the daemon that owns the workspace,
 * {@link #remote}).
 */
public abstract class EngineTestBase {
    private final List<Engine> opened = new ArrayList<>();

    /**
     * A new engine over {@code workspace}, whose ages are measured against {@code clock}. It may start nothing:
     * tests start what they need through the view model.
     */
    protected abstract Engine newEngine(Path workspace, Clock clock);

    /** An engine over {@code workspace} on the system clock, closed after the test. */
    protected final Engine engine(Path workspace) {
        return engine(workspace, Clock.systemUTC());
    }

    /** An engine over {@code workspace} on {@code clock}, closed after the test. */
    protected final Engine engine(Path workspace, Clock clock) {
        Engine e = newEngine(workspace, clock);
        opened.add(e);
        return e;
    }

    /** Every event {@code engine} publishes from now on, in order, for a view model's {@code accept}. */
    protected static List<KilnEvent> recording(Engine engine) {
        List<KilnEvent> seen = new CopyOnWriteArrayList<>();
        engine.events().subscribe(seen::add);
        return seen;
    }

    /** Hands what {@code seen} holds to {@code accept} and empties it, as one frame of the event pump would. */
    protected static void pump(List<KilnEvent> seen, java.util.function.Consumer<List<KilnEvent>> accept) {
        List<KilnEvent> batch = List.copyOf(seen);
        // Events that arrived meanwhile stay for the next frame. One removal at a time: a sub-list's clear() throws when
        // the bus appends while it runs, and appends only ever go to the end, so index 0 is always the oldest.
        for (int i = 0; i < batch.size(); i++) {
            seen.remove(0);
        }
        accept.accept(batch);
    }

    @AfterEach
    final void closeEngines() {
        for (Engine e : opened) {
            e.close();
        }
        opened.clear();
    }

    /** The in-process engine, as the console opens a local workspace. */
    public static Engine local(Path workspace, Clock clock) {
        return Kiln.open(workspace, new EventBus(), clock).engine();
    }

    /**
     * A {@link RemoteEngine} on {@code clock}, attached to a daemon that owns {@code workspace} (a {@code Kiln} of its
     * own in this process, serving the API on a loopback port, as {@code kiln serve} does); closing the engine stops
     * that daemon too.
     */
    public static Engine remote(Path workspace, Clock clock) {
        // The daemon runs on the test's clock too: its ticks are stamped with it, as the view model's ages are.
        Engine served = Kiln.open(workspace, new EventBus(), clock).engine();
        served.projection().start(true);
        if (served.projection().apiUrl().isEmpty()) {
            served.close();
            org.junit.jupiter.api.Assumptions.abort("no daemon can serve " + workspace + " (not a workspace): nothing to attach to");
        }
        RemoteEngine remote = RemoteEngine.connect(URI.create(served.projection().apiUrl().get()), served.layout().apiTokenFile(), null, clock);
        remote.start(false); // as the console does first: the state loaded, the event stream open
        return (Engine) Proxy.newProxyInstance(Engine.class.getClassLoader(), new Class<?>[] {Engine.class}, (proxy, m, args) -> {
            try {
                Object r = m.invoke(remote, args);
                if (m.getName().equals("close") && m.getParameterCount() == 0) {
                    served.close();
                }
                return r;
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }
}
