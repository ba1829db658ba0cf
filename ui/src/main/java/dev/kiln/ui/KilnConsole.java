package dev.kiln.ui;

import dev.kiln.core.Kiln;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.icons.Icons;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.MainWindow;
import dev.kiln.ui.util.FxBackground;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import javafx.application.Application;
import javafx.scene.image.Image;
import javafx.stage.Stage;

/**
 * The console application. {@link #launch} is the only way in from the launcher: it hands one {@link ConsoleLaunch}
 * over, and every stage keeps its own {@link ConsoleSession}. What only the launcher's benchmarks and screenshots
 * need (first-frame signal, empty Stage, picture) comes in as the launch's hooks, from the bench home in app.
 */
public final class KilnConsole extends Application {
    /** The one hand-over into {@link #start}: JavaFX makes this class itself, so it cannot take arguments. */
    private static final java.util.concurrent.atomic.AtomicReference<Handover> HANDOVER = new java.util.concurrent.atomic.AtomicReference<>();

    /** A launch and the desktop's colour scheme, asked while the toolkit starts. */
    private record Handover(ConsoleLaunch launch,
            java.util.concurrent.CompletableFuture<java.util.Optional<String>> desktopScheme) {
    }

    private FxBackground background;

    /**
     * Opens the console as {@code launch} says and returns when it is closed (or its hooks end it).
     *
     * @throws IllegalStateException when a console was already launched in this process (JavaFX starts once)
     */
    public static void launch(ConsoleLaunch launch) {
        // The desktop's colour scheme is a child process (gsettings): asked while the toolkit starts, not after.
        java.util.concurrent.CompletableFuture<java.util.Optional<String>> scheme = launch.theme() != null
                ? java.util.concurrent.CompletableFuture.completedFuture(java.util.Optional.empty())
                : java.util.concurrent.CompletableFuture.supplyAsync(dev.kiln.ui.shell.Theme::askGsettings);
        if (!HANDOVER.compareAndSet(null, new Handover(launch, scheme))) {
            throw new IllegalStateException("the console was already launched in this process");
        }
        Application.launch(KilnConsole.class);
    }

    /** Kiln's own style sheet (over AtlantaFX's), for a stage dressed outside the console (the startup benchmark's floor). */
    public static String stylesheet() {
        return MainWindow.class.getResource("kiln.css").toExternalForm();
    }

    /** The page titles a launch accepts. */
    public static java.util.List<String> pageNames() {
        return java.util.Arrays.stream(dev.kiln.ui.shell.Page.values()).map(p -> p.title().toLowerCase(java.util.Locale.ROOT)).toList();
    }

    @Override
    public void start(Stage stage) {
        background = new FxBackground();
        Handover handed = Objects.requireNonNull(HANDOVER.get(), "no launch: start through KilnConsole.launch");
        ConsoleLaunch launch = handed.launch();
        Path file = launch.settings();
        dev.kiln.ui.shell.ConsoleSettings remembered = file == null ? dev.kiln.ui.shell.ConsoleSettings.empty()
                : dev.kiln.ui.shell.ConsoleSettings.read(file);
        dev.kiln.ui.shell.Theme theme = launch.theme() != null ? launch.theme() : remembered.theme()
                .orElseGet(() -> dev.kiln.ui.shell.Theme.fromDesktop(System.getenv(), () -> handed.desktopScheme().join()));
        ConsoleLaunch.StageHook instead = launch.instead();
        if (instead != null) {
            instead.accept(stage, theme);
            return;
        }
        if (launch.width() == 0) {
            remembered.bounds().ifPresent(b -> {
                stage.setX(b.x());
                stage.setY(b.y());
                stage.setWidth(b.width());
                stage.setHeight(b.height());
            });
        }
        ConsoleSession console = ConsoleSession.of(stage, background, file, launch.daemonList());
        Window session = new Window(console, theme, remembered, launch.width() == 0 ? DEFAULT_WIDTH : launch.width(),
                launch.height() == 0 ? DEFAULT_HEIGHT : launch.height());
        session.open(WorkspaceLayout.of(launch.workspace()));
        MainViewModel model = session.model();
        if (file != null) {
            // Saved when the window closes: the theme only if the user chose one, so a desktop change is still followed.
            java.util.function.Supplier<dev.kiln.ui.shell.ConsoleSettings> current = () -> {
                dev.kiln.ui.shell.ConsoleSettings now = session.memory()
                        .withBounds(new dev.kiln.ui.shell.ConsoleSettings.Bounds(stage.getX(), stage.getY(), stage.getWidth(), stage.getHeight()));
                MainViewModel shown = console.model() != null ? console.model() : session.model();
                dev.kiln.ui.shell.Theme chosen = shown.themeProperty().get();
                if (remembered.theme().isPresent() || chosen != theme) {
                    now = now.withTheme(chosen);
                }
                return now;
            };
            SettingsKeeper keeper = new SettingsKeeper(file, remembered);
            stage.addEventHandler(javafx.stage.WindowEvent.WINDOW_HIDDEN, e -> keeper.save(current.get()));
            keeper.keep(current); // and on SIGTERM, which hides no window: the last settings seen, from a shutdown hook
        }
        navigate(model, launch.page());
        DaemonEntry attach = launch.attach();
        if (attach != null) {
            attachDaemon(console, attach);
        }
        ConsoleLaunch.StageHook shown = launch.shown();
        if (shown != null) {
            shown.accept(stage, theme);
        }
    }

    /**
     * The console's settings kept for a stop that closes no window (SIGTERM, a logout): every 2 s the FX thread takes
     * what it would save, and a JVM shutdown hook writes the latest one if it was not written yet. Writes are
     * serialized here and atomic ({@link dev.kiln.ui.shell.ConsoleSettings#write}: temp file + rename).
     */
    static final class SettingsKeeper {
        private final Path file;
        private final java.util.concurrent.atomic.AtomicReference<dev.kiln.ui.shell.ConsoleSettings> latest;
        private dev.kiln.ui.shell.ConsoleSettings written; // guarded by this

        SettingsKeeper(Path file, dev.kiln.ui.shell.ConsoleSettings remembered) {
            this.file = file;
            this.latest = new java.util.concurrent.atomic.AtomicReference<>(remembered);
            this.written = remembered;
        }

        /** Samples {@code current} on the FX thread every 2 s; writes the latest sample at JVM shutdown. */
        void keep(java.util.function.Supplier<dev.kiln.ui.shell.ConsoleSettings> current) {
            latest.set(current.get());
            java.util.concurrent.ScheduledExecutorService s = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "kiln-settings-keeper");
                t.setDaemon(true);
                return t;
            });
            // runLater, not an animation: an idle console keeps no pulse running for this
            s.scheduleWithFixedDelay(() -> javafx.application.Platform.runLater(() -> latest.set(current.get())), 2, 2,
                    java.util.concurrent.TimeUnit.SECONDS);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                s.shutdownNow();
                save(latest.get());
            }, "kiln-settings-on-exit"));
        }

        synchronized void save(dev.kiln.ui.shell.ConsoleSettings now) {
            latest.set(now);
            if (now.equals(written)) {
                return;
            }
            try {
                now.write(file);
                written = now;
            } catch (IOException ex) {
                System.err.println("kiln: could not remember the console's settings in " + file + ": " + ex.getMessage());
            }
        }
    }

    /** The console's default scene size: every page shows without scrolling. */
    public static final double DEFAULT_WIDTH = 1180;
    public static final double DEFAULT_HEIGHT = 740;

    /**
     * One console window that can switch workspace: the menu's open and recent items close the shown workspace's
     * session (watcher, projector, event pump) and show the new one in the same stage, keeping theme and size.
     */
    public static final class Window {
        private final ConsoleSession console;
        private final dev.kiln.ui.shell.Theme theme;
        private final double width;
        private final double height;
        private MainViewModel model;

        public Window(Stage stage, dev.kiln.ui.util.Background background, dev.kiln.ui.shell.Theme theme,
                dev.kiln.ui.shell.ConsoleSettings remembered) {
            this(ConsoleSession.of(stage, background), theme, remembered, DEFAULT_WIDTH, DEFAULT_HEIGHT);
        }

        /** A window of {@code console}'s stage, first shown in {@code theme} at {@code width × height}. */
        public Window(ConsoleSession console, dev.kiln.ui.shell.Theme theme, dev.kiln.ui.shell.ConsoleSettings remembered,
                double width, double height) {
            this.console = console;
            this.theme = theme;
            this.width = width;
            this.height = height;
            console.remember(remembered);
        }

        /** Shows {@code w} in the window, ending the workspace shown before. */
        public void open(WorkspaceLayout w) {
            Stage stage = console.stage();
            dev.kiln.ui.shell.Theme t = model == null ? theme : model.themeProperty().get();
            double wide = model == null ? width : stage.getScene().getWidth();
            double high = model == null ? height : stage.getScene().getHeight();
            dev.kiln.ui.shell.ConsoleSettings memory = console.memory().withRecent(w.root());
            console.remember(memory);
            MainViewModel m = show(console, w, true, t, wide, high);
            m.recent().setAll(memory.recent().stream().filter(p -> !p.equals(w.root())).toList());
            m.setOpener(p -> open(WorkspaceLayout.of(p)));
            model = m;
        }

        /** The model of the workspace shown now. */
        public MainViewModel model() {
            return model;
        }

        /** What to remember: recent workspaces as opened in this window, recent daemons as attached to it. */
        public dev.kiln.ui.shell.ConsoleSettings memory() {
            return console.memory();
        }
    }

    private static void navigate(MainViewModel model, String page) {
        for (dev.kiln.ui.shell.Page p : dev.kiln.ui.shell.Page.values()) {
            if (p.title().equalsIgnoreCase(page)) {
                model.navigate(p);
            }
        }
    }

    /** The console's smallest window. */
    public static final double MIN_WIDTH = 960;
    public static final double MIN_HEIGHT = 600;

    /** The console on {@code workspace} in {@code stage}, live, dark, at the default size (UI tests). */
    public static MainViewModel show(Stage stage, WorkspaceLayout workspace, dev.kiln.ui.util.Background background) {
        return show(stage, workspace, background, true);
    }

    /** As {@link #show(Stage, WorkspaceLayout, dev.kiln.ui.util.Background)}; {@code live} false ticks only on demand. */
    public static MainViewModel show(Stage stage, WorkspaceLayout workspace, dev.kiln.ui.util.Background background, boolean live) {
        return show(stage, workspace, background, live, dev.kiln.ui.shell.Theme.DARK);
    }

    /** As {@link #show(Stage, WorkspaceLayout, dev.kiln.ui.util.Background, boolean)}, starting in {@code theme}. */
    public static MainViewModel show(Stage stage, WorkspaceLayout workspace, dev.kiln.ui.util.Background background, boolean live,
            dev.kiln.ui.shell.Theme theme) {
        return show(stage, workspace, background, live, theme, DEFAULT_WIDTH, DEFAULT_HEIGHT);
    }

    /** As above, with the scene sized {@code width × height} (screenshots). */
    public static MainViewModel show(Stage stage, WorkspaceLayout workspace, dev.kiln.ui.util.Background background, boolean live,
            dev.kiln.ui.shell.Theme theme, double width, double height) {
        return show(stage, workspace, background, live, theme, width, height, Clock.systemUTC());
    }

    /** As above, on {@code clock} (the UI benchmark's simulated hour). */
    public static MainViewModel show(Stage stage, WorkspaceLayout workspace, dev.kiln.ui.util.Background background, boolean live,
            dev.kiln.ui.shell.Theme theme, double width, double height, Clock clock) {
        Kiln kiln = Kiln.open(workspace.root(), new EventBus(), clock);
        return show(ConsoleSession.of(stage, background), kiln.engine(), new MainViewModel(workspace), live, theme, width, height);
    }

    /** The console on {@code workspace} (in this process) in {@code console}'s stage. */
    public static MainViewModel show(ConsoleSession console, WorkspaceLayout workspace, boolean live, dev.kiln.ui.shell.Theme theme,
            double width, double height) {
        Kiln kiln = Kiln.open(workspace.root(), new EventBus(), Clock.systemUTC());
        return show(console, kiln.engine(), new MainViewModel(workspace), live, theme, width, height);
    }

    /** As {@link #show(ConsoleSession, Engine, MainViewModel, boolean, dev.kiln.ui.shell.Theme, double, double)} in {@code stage}. */
    public static MainViewModel show(Stage stage, Engine engine, MainViewModel model, dev.kiln.ui.util.Background background,
            boolean live, dev.kiln.ui.shell.Theme theme, double width, double height) {
        return show(ConsoleSession.of(stage, background), engine, model, live, theme, width, height);
    }

    /**
     * Dresses {@code console}'s stage as the console over {@code engine} — in this process or a daemon's over its API,
     * the pages cannot tell — ending the session shown before; the engine is closed with the stage's session. Every
     * other way of showing something comes here.
     */
    public static MainViewModel show(ConsoleSession console, Engine engine, MainViewModel model, boolean live,
            dev.kiln.ui.shell.Theme theme, double width, double height) {
        Stage stage = console.stage();
        model.setTheme(theme);
        model.recentDaemons().setAll(console.memory().daemons());
        model.setDaemonOpener(d -> attachDaemon(console, d));
        MainWindow window = new MainWindow(model, console.background(), engine);
        window.setFleet(console.fleet(d -> openDaemon(console, d)));
        Path settings = console.settings();
        if (settings != null) {
            window.useAlertRules(dev.kiln.core.alert.AlertRules.file(settings.toAbsolutePath().getParent()));
        }
        stage.getProperties().put(dev.kiln.ui.record.RecordBar.OPENER, (java.util.function.Consumer<Path>) file ->
                openRecording(console, model, file));
        console.shown(model, () -> { // a window shows one workspace at a time: this ends the one shown before
            window.close();
            engine.close();
        });
        stage.setOnHidden(e -> console.closeShown());
        stage.setTitle(model.windowTitle());
        stage.setScene(window.scene(width, height));
        // Below this, pages scroll rather than squeeze; the default (1180×740) shows every page without scrolling.
        stage.setMinWidth(MIN_WIDTH);
        stage.setMinHeight(MIN_HEIGHT);
        stage.show();
        if (stage.getIcons().isEmpty()) {
            afterFirstFrame(stage.getScene(), () -> setIcons(stage));
        }
        window.startProjection(live);
        return model;
    }

    /**
     * Replays {@code file} in the stage (read-only, the same pages over a {@link dev.kiln.core.recording.ReplayEngine}),
     * ending the session shown; a file that is no recording is a notification in the session shown, which stays.
     */
    public static void openRecording(ConsoleSession console, MainViewModel shown, Path file) {
        console.background().run(() -> dev.kiln.core.recording.ReplayEngine.open(file, dev.kiln.core.telemetry.Ticker.systemTicker()),
                replay -> {
                    javafx.scene.Scene scene = console.stage().getScene();
                    double w = scene == null ? DEFAULT_WIDTH : scene.getWidth();
                    double h = scene == null ? DEFAULT_HEIGHT : scene.getHeight();
                    MainViewModel m = new MainViewModel(replay.layout(), "Recording " + file.getFileName(), replay.location());
                    show(console, replay, m, false, shown.themeProperty().get(), w, h);
                },
                e -> shown.notify(new dev.kiln.ui.shell.Notices.Notice(dev.kiln.ui.shell.Notices.Kind.FAILED,
                        "Cannot open the recording", String.valueOf(e.getMessage()))));
    }

    /** The window and taskbar icon, every size: six PNG decodes the first frame need not wait for. */
    private static void setIcons(Stage stage) {
        for (int size : Icons.SIZES) {
            try (InputStream in = Icons.appIconPng(size)) {
                stage.getIcons().add(new Image(in));
            } catch (IOException e) {
                // An icon is decoration; a window without one still works.
            }
        }
    }

    /**
     * Runs {@code work} once the first pulse has laid {@code scene} out and its frame has gone to the renderer,
     * behind anything that pulse queued.
     */
    private static void afterFirstFrame(javafx.scene.Scene scene, Runnable work) {
        Runnable[] once = new Runnable[1];
        once[0] = () -> {
            scene.removePostLayoutPulseListener(once[0]);
            javafx.application.Platform.runLater(() -> javafx.application.Platform.runLater(work));
        };
        scene.addPostLayoutPulseListener(once[0]);
    }

    // --- fleet: the daemon list, attach, and the seam the remote engine plugs into -------------------------------

    /**
     * {@code kiln attach}, a recent daemon or one just connected from the menu: shown on the Fleet page (for this
     * session if it is not listed) and its pages opened, the one way the Fleet page opens them.
     */
    private static void attachDaemon(ConsoleSession console, DaemonEntry d) {
        console.fleet(x -> openDaemon(console, x)).attach(d);
        openDaemon(console, d);
    }

    /** Selecting a daemon on the Fleet page (or {@code kiln attach}): its pages through the remote engine, if set. */
    private static void openDaemon(ConsoleSession console, DaemonEntry d) {
        MainViewModel model = Objects.requireNonNull(console.model(), "a daemon is opened from a shown console");
        ConsoleSession.DaemonEngines e = console.engines();
        if (e == null) {
            model.navigate(dev.kiln.ui.shell.Page.FLEET);
            model.setStatus(d.name() + " (" + d.url() + "): this console shows daemons on the Fleet page only");
            return;
        }
        model.setStatus("Connecting to " + d.name() + " (" + d.url() + ")…");
        console.background().run(() -> e.connect(d), engine -> showRemote(console, d, engine),
                err -> model.notify(new dev.kiln.ui.shell.Notices.Notice(dev.kiln.ui.shell.Notices.Kind.FAILED,
                        "Cannot open " + d.name(), String.valueOf(err.getMessage()))));
    }

    /** Shows {@code daemon}'s pages in the stage through {@code engine}, keeping the window's theme and size. */
    private static void showRemote(ConsoleSession console, DaemonEntry daemon, Engine engine) {
        Stage stage = console.stage();
        MainViewModel before = console.model();
        dev.kiln.ui.shell.Theme theme = before == null ? dev.kiln.ui.shell.Theme.DARK : before.themeProperty().get();
        double width = stage.getScene() == null ? DEFAULT_WIDTH : stage.getScene().getWidth();
        double height = stage.getScene() == null ? DEFAULT_HEIGHT : stage.getScene().getHeight();
        MainViewModel model = MainViewModel.attached(engine.layout(), daemon, daemon.name() + " (" + engine.location() + ")");
        // Remembered once it has answered: a daemon that never connected is no "recent" one. Its token file's path
        // and pin are kept, never the token (ConsoleSettings).
        console.remember(console.memory().withRecentDaemon(daemon));
        if (before != null) {
            model.recent().setAll(before.recent());
            model.setOpener(before.opener()); // "Open workspace…" and the recent ones still work from here
        }
        show(console, engine, model, true, theme, width, height);
        model.setStatus("Attached to " + daemon.name() + " at " + engine.location() + "; its paths are on its host");
    }

    @Override
    public void stop() {
        if (background != null) {
            background.close();
        }
    }
}
