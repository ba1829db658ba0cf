package dev.kiln.ui;

import dev.kiln.core.engine.Engine;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.ui.fleet.FleetViewModel;
import dev.kiln.ui.shell.ConsoleSettings;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.util.Background;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import javafx.stage.Stage;

/**
 * One console stage and what it holds across the workspaces and daemons shown in it: its background, where it
 * remembers, its fleet, what it remembers so far, and the session shown now (its model and how to end it). Kept on
 * the stage under this class (one typed key, not string-keyed properties); {@link KilnConsole#show} is the one way
 * something is shown in it.
 *
 * <p>Confined to the FX thread, like the stage.
 */
public final class ConsoleSession {
    private final Stage stage;
    private final Background background;
    private final Path settings;
    private final Path daemonList;
    private DaemonEngines engines = d -> RemoteEngine.connect(d.url(), d.tokenFile().orElse(null), d.pin().orElse(null),
            Clock.systemUTC());
    private ConsoleSettings memory = ConsoleSettings.empty();
    private FleetViewModel fleet;
    private MainViewModel model;
    private Runnable closeShown;

    /**
     * How the console reaches a daemon's pages: a daemon of the fleet → an {@link Engine} over its API; by default
     * {@link RemoteEngine}.
     */
    @FunctionalInterface
    public interface DaemonEngines {
        /** Connects to {@code daemon}; blocks (called off the FX thread). */
        Engine connect(DaemonEntry daemon) throws Exception;
    }

    private ConsoleSession(Stage stage, Background background, Path settings, Path daemonList) {
        this.stage = stage;
        this.background = background;
        this.settings = settings;
        this.daemonList = daemonList;
    }

    /** The session of {@code stage} with no settings file and no daemon list (UI tests, benchmarks). */
    public static ConsoleSession of(Stage stage, Background background) {
        return of(stage, background, null, null);
    }

    /**
     * The session of {@code stage}: the one it has if that was made for the same background, settings and daemon list,
     * else a new one that carries over what the stage remembers and the session shown in it (which the next show
     * ends); the old one's fleet is stopped (a test's primary stage is reused for another list).
     */
    public static ConsoleSession of(Stage stage, Background background, Path settings, Path daemonList) {
        ConsoleSession old = of(stage);
        if (old != null && old.background == background && Objects.equals(old.settings, settings)
                && Objects.equals(old.daemonList, daemonList)) {
            return old;
        }
        ConsoleSession s = new ConsoleSession(stage, background, settings, daemonList);
        if (old != null) {
            s.memory = old.memory;
            s.model = old.model;
            s.closeShown = old.closeShown;
            old.closeShown = null;
            old.stopFleet();
        }
        stage.getProperties().put(ConsoleSession.class, s);
        return s;
    }

    /** The session kept on {@code stage}, or null when nothing was shown in it. */
    static ConsoleSession of(Stage stage) {
        return stage.getProperties().get(ConsoleSession.class) instanceof ConsoleSession s ? s : null;
    }

    /** Sets how a daemon's pages are reached (tests plug a fake remote engine in here); null: the Fleet page only. */
    public ConsoleSession daemonEngines(DaemonEngines e) {
        engines = e;
        return this;
    }

    public Stage stage() {
        return stage;
    }

    public Background background() {
        return background;
    }

    /** The console's settings file, or null when it remembers nothing. */
    public Path settings() {
        return settings;
    }

    /** The daemon list the Fleet page shows, or null. */
    public Path daemonList() {
        return daemonList;
    }

    DaemonEngines engines() {
        return engines;
    }

    /** What the stage remembers so far: read at start, updated as workspaces open and daemons attach. */
    public ConsoleSettings memory() {
        return memory;
    }

    void remember(ConsoleSettings now) {
        memory = now;
    }

    /** The model shown now, or null before the first show. */
    public MainViewModel model() {
        return model;
    }

    /** Records what is shown now and how to end it, ending what was shown before. */
    void shown(MainViewModel m, Runnable close) {
        closeShown();
        model = m;
        closeShown = close;
    }

    /** Ends the session shown, if any: its event pump, watcher and projector, or its connection. */
    void closeShown() {
        Runnable close = closeShown;
        closeShown = null;
        if (close != null) {
            close.run();
        }
    }

    /**
     * The stage's fleet: made, loaded and polling on first use, kept across workspace switches, stopped when the
     * stage is hidden.
     */
    FleetViewModel fleet(java.util.function.Consumer<DaemonEntry> opener) {
        FleetViewModel f = fleet;
        if (f != null) {
            return f;
        }
        FleetViewModel vm = new FleetViewModel(daemonList, background, FleetViewModel.Scheduler.daemonThread(),
                FleetViewModel.HealthSource.api(), Clock.systemUTC(), opener);
        fleet = vm;
        stage.addEventHandler(javafx.stage.WindowEvent.WINDOW_HIDDEN, e -> {
            vm.close();
            if (fleet == vm) {
                fleet = null;
            }
        });
        vm.load();
        return vm;
    }

    private void stopFleet() {
        FleetViewModel f = fleet;
        fleet = null;
        if (f != null) {
            f.close();
        }
    }
}
