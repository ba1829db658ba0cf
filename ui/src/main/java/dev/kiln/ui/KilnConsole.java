package dev.kiln.ui;

import dev.kiln.core.Kiln;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.icons.Icons;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.MainWindow;
import dev.kiln.ui.fleet.FleetViewModel;
import dev.kiln.ui.util.FxBackground;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import javafx.application.Application;
import javafx.scene.image.Image;
import javafx.stage.Stage;

/** The console application. {@link #open(Path)} is the only way in from the launcher. */
public final class KilnConsole extends Application {
    private static volatile WorkspaceLayout startWorkspace;
    private static volatile String startPage = "";
    private static volatile Path settingsFile;
    private static volatile Shot shot;
    private static volatile String shotError;
    private static volatile java.util.concurrent.CompletableFuture<java.util.Optional<String>> desktopScheme;

    /** A headless picture to take instead of opening a window. */
    private record Shot(Path file, dev.kiln.ui.shell.Theme theme, int width, int height, double settleSeconds) {
    }
    private FxBackground background;

    /**
     * Opens the console window on {@code workspace}, showing {@code page} (a sidebar title, case-insensitive;
     * empty for the default), and returns when it is closed.
     */
    public static void open(Path workspace, String page) {
        open(workspace, page, null);
    }

    /**
     * As {@link #open(Path, String)}, remembering window bounds, theme and recent workspaces in {@code settings}
     * (a properties file; {@code null} remembers nothing).
     */
    public static void open(Path workspace, String page, Path settings) {
        // The desktop's colour scheme is a child process (gsettings): asked while the toolkit starts, not after.
        desktopScheme = java.util.concurrent.CompletableFuture.supplyAsync(dev.kiln.ui.shell.Theme::askGsettings);
        startWorkspace = WorkspaceLayout.of(workspace);
        startPage = page == null ? "" : page;
        settingsFile = settings;
        Application.launch(KilnConsole.class);
    }

    /**
     * Renders {@code page} of the console on {@code workspace} in {@code theme} at {@code width × height} to the PNG
     * {@code out}, headless (Monocle), after letting the page settle for {@code settleSeconds}; returns when written.
     * Must be called before anything else starts JavaFX in this process: it chooses the headless platform.
     *
     * @throws IllegalStateException when Monocle is not on the runtime, or the picture could not be written
     */
    public static void screenshot(Path workspace, String page, dev.kiln.ui.shell.Theme theme, int width, int height, Path out,
            double settleSeconds) {
        useHeadlessPlatform();
        startWorkspace = WorkspaceLayout.of(workspace);
        startPage = page == null ? "" : page;
        settingsFile = null;
        shot = new Shot(out.toAbsolutePath(), theme, width, height, settleSeconds);
        shotError = null;
        Application.launch(KilnConsole.class);
        if (shotError != null) {
            throw new IllegalStateException(shotError);
        }
    }

    /**
     * Chooses Monocle's headless glass and software rendering for this process (screenshots, the UI benchmark).
     * Glass reads these once, when the toolkit starts: call before it starts, never after.
     *
     * @throws IllegalStateException when Monocle is not on the runtime
     */
    public static void useHeadlessPlatform() {
        System.setProperty("glass.platform", "Monocle");
        System.setProperty("monocle.platform", "Headless");
        System.setProperty("prism.order", "sw");
        System.setProperty("prism.text", "t2k");
        System.setProperty("java.awt.headless", "true");
        try {
            Class.forName("com.sun.glass.ui.monocle.MonoclePlatformFactory", false, KilnConsole.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            try {
                Class.forName("com.sun.glass.ui.monocle.MonoclePlatformFactory", false, javafx.application.Platform.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e2) {
                throw new IllegalStateException("headless rendering needs Monocle (openjfx-monocle) patched into javafx.graphics;"
                        + " run through ./kiln, which adds it");
            }
        }
    }

    /** The page titles {@link #open} accepts. */
    public static java.util.List<String> pageNames() {
        return java.util.Arrays.stream(dev.kiln.ui.shell.Page.values()).map(p -> p.title().toLowerCase(java.util.Locale.ROOT)).toList();
    }

    @Override
    public void start(Stage stage) {
        background = new FxBackground();
        WorkspaceLayout ws = Objects.requireNonNull(startWorkspace, "no workspace: start through KilnConsole.open");
        Shot picture = shot;
        if (picture != null) {
            MainViewModel model = show(stage, ws, background, true, picture.theme(), picture.width(), picture.height());
            navigate(model, startPage);
            screenshotAndExit(stage, picture.file(), picture.settleSeconds());
            return;
        }
        Path file = settingsFile;
        dev.kiln.ui.shell.ConsoleSettings remembered = file == null ? dev.kiln.ui.shell.ConsoleSettings.empty()
                : dev.kiln.ui.shell.ConsoleSettings.read(file);
        dev.kiln.ui.shell.Theme theme = remembered.theme()
                .orElseGet(() -> dev.kiln.ui.shell.Theme.fromDesktop(System.getenv(), () -> {
                    java.util.concurrent.CompletableFuture<java.util.Optional<String>> asked = desktopScheme;
                    return asked != null ? asked.join() : dev.kiln.ui.shell.Theme.askGsettings();
                }));
        if (Boolean.getBoolean("kiln.emptyStage")) {
            emptyStage(stage, theme); // kiln bench startup: JavaFX's floor for this image, theme and machine
            return;
        }
        remembered.bounds().ifPresent(b -> {
            stage.setX(b.x());
            stage.setY(b.y());
            stage.setWidth(b.width());
            stage.setHeight(b.height());
        });
        Window session = new Window(stage, background, theme, remembered);
        session.open(ws);
        MainViewModel model = session.model();
        if (file != null) {
            // Saved when the window closes: the theme only if the user chose one, so a desktop change is still followed.
            java.util.function.Supplier<dev.kiln.ui.shell.ConsoleSettings> current = () -> {
                dev.kiln.ui.shell.ConsoleSettings now = session.memory()
                        .withBounds(new dev.kiln.ui.shell.ConsoleSettings.Bounds(stage.getX(), stage.getY(), stage.getWidth(), stage.getHeight()));
                MainViewModel shown = stage.getProperties().get(MODEL) instanceof MainViewModel m ? m : session.model();
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
        navigate(model, startPage);
        DaemonEntry attach = startDaemon;
        if (attach != null) {
            attachDaemon(stage, background, attach);
        }
        String frameFile = System.getProperty("kiln.firstFrameFile", ""); // kiln bench startup and the package test
        if (!frameFile.isEmpty()) {
            signalFirstFrame(stage, Path.of(frameFile), Boolean.getBoolean("kiln.exitAfterFirstFrame"));
        }
        String legacyShot = System.getProperty("kiln.screenshot", "");
        if (!legacyShot.isEmpty()) {
            screenshotAndExit(stage, Path.of(legacyShot), Double.parseDouble(System.getProperty("kiln.screenshot.delay", "3")));
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

    private static final String SESSION = "kiln.session.close";
    /** The stage's memory ({@link dev.kiln.ui.shell.ConsoleSettings}): recent workspaces and daemons as used in it. */
    private static final String MEMORY = "kiln.memory";

    /** What {@code stage} remembers so far: read at start, updated as workspaces open and daemons attach. */
    private static dev.kiln.ui.shell.ConsoleSettings memory(Stage stage) {
        return stage.getProperties().get(MEMORY) instanceof dev.kiln.ui.shell.ConsoleSettings s ? s
                : dev.kiln.ui.shell.ConsoleSettings.empty();
    }

    /**
     * One console window that can switch workspace: the menu's open and recent items close the shown workspace's
     * session (watcher, projector, event pump) and show the new one in the same stage, keeping theme and size.
     */
    public static final class Window {
        private final Stage stage;
        private final dev.kiln.ui.util.Background background;
        private final dev.kiln.ui.shell.Theme theme;
        private MainViewModel model;

        public Window(Stage stage, dev.kiln.ui.util.Background background, dev.kiln.ui.shell.Theme theme,
                dev.kiln.ui.shell.ConsoleSettings remembered) {
            this.stage = stage;
            this.background = background;
            this.theme = theme;
            stage.getProperties().put(MEMORY, remembered);
        }

        /** Shows {@code w} in the window, ending the workspace shown before. */
        public void open(WorkspaceLayout w) {
            dev.kiln.ui.shell.Theme t = model == null ? theme : model.themeProperty().get();
            double width = model == null ? 1180 : stage.getScene().getWidth();
            double height = model == null ? 740 : stage.getScene().getHeight();
            dev.kiln.ui.shell.ConsoleSettings memory = KilnConsole.memory(stage).withRecent(w.root());
            stage.getProperties().put(MEMORY, memory);
            MainViewModel m = show(stage, w, background, true, t, width, height);
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
            return KilnConsole.memory(stage);
        }
    }

    /** Ends the workspace session shown in {@code stage}, if any: its event pump, watcher and projector. */
    private static void closeSession(Stage stage) {
        Object close = stage.getProperties().remove(SESSION);
        if (close instanceof Runnable r) {
            r.run();
        }
    }

    private static void navigate(MainViewModel model, String page) {
        for (dev.kiln.ui.shell.Page p : dev.kiln.ui.shell.Page.values()) {
            if (p.title().equalsIgnoreCase(page)) {
                model.navigate(p);
            }
        }
    }

    /** Dresses {@code stage} as the console on {@code workspace}; used by {@link #start} and by UI tests. */
    /** The console's smallest window. */
    public static final double MIN_WIDTH = 960;
    public static final double MIN_HEIGHT = 600;

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
        return show(stage, workspace, background, live, theme, 1180, 740);
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
        return show(stage, kiln.engine(), new MainViewModel(workspace), background, live, theme, width, height);
    }

    /**
     * Dresses {@code stage} as the console over {@code engine} — in this process or a daemon's over its API, the pages
     * cannot tell — ending the session shown before; the engine is closed with the stage's session.
     */
    public static MainViewModel show(Stage stage, Engine engine, MainViewModel model, dev.kiln.ui.util.Background background,
            boolean live, dev.kiln.ui.shell.Theme theme, double width, double height) {
        model.setTheme(theme);
        model.recentDaemons().setAll(memory(stage).daemons());
        model.setDaemonOpener(d -> attachDaemon(stage, background, d));
        MainWindow window = new MainWindow(model, background, engine);
        window.setFleet(fleetFor(stage, background));
        if (settingsFile != null) {
            window.useAlertRules(dev.kiln.core.alert.AlertRules.file(settingsFile.toAbsolutePath().getParent()));
        }
        stage.getProperties().put(MODEL, model);
        stage.getProperties().put(dev.kiln.ui.record.RecordBar.OPENER, (java.util.function.Consumer<Path>) file ->
                openRecording(stage, background, model, file));
        closeSession(stage); // a window shows one workspace at a time
        Runnable close = () -> {
            window.close();
            engine.close();
        };
        stage.getProperties().put(SESSION, close);
        stage.setOnHidden(e -> closeSession(stage));
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
     * Replays {@code file} in {@code stage} (read-only, the same pages over a {@link dev.kiln.core.recording.ReplayEngine}),
     * ending the session shown; a file that is no recording is a notification in the session shown, which stays.
     */
    public static void openRecording(Stage stage, dev.kiln.ui.util.Background background, MainViewModel shown, Path file) {
        background.run(() -> dev.kiln.core.recording.ReplayEngine.open(file, dev.kiln.core.telemetry.Ticker.systemTicker()),
                replay -> {
                    javafx.scene.Scene scene = stage.getScene();
                    double w = scene == null ? 1180 : scene.getWidth();
                    double h = scene == null ? 740 : scene.getHeight();
                    MainViewModel m = new MainViewModel(replay.layout(), "Recording " + file.getFileName(), replay.location());
                    show(stage, replay, m, background, false, shown.themeProperty().get(), w, h);
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
     * behind anything that pulse queued (the first-frame signal of {@link #signalFirstFrame}).
     */
    private static void afterFirstFrame(javafx.scene.Scene scene, Runnable work) {
        Runnable[] once = new Runnable[1];
        once[0] = () -> {
            scene.removePostLayoutPulseListener(once[0]);
            javafx.application.Platform.runLater(() -> javafx.application.Platform.runLater(work));
        };
        scene.addPostLayoutPulseListener(once[0]);
    }

    /**
     * For the startup benchmark and the package test: once the first pulse has laid the scene out (its frame is
     * then handed to the renderer), writes the wall-clock epoch millis to {@code file} (temp file + rename, so a
     * poller never reads half a number) and optionally exits.
     */
    private static void signalFirstFrame(Stage stage, Path file, boolean exit) {
        Runnable[] once = new Runnable[1];
        once[0] = () -> {
            stage.getScene().removePostLayoutPulseListener(once[0]);
            javafx.application.Platform.runLater(() -> {
                String now = Long.toString(System.currentTimeMillis());
                try {
                    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
                    java.nio.file.Files.writeString(tmp, now);
                    java.nio.file.Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                } catch (IOException e) {
                    System.err.println("kiln: could not write first-frame file " + file + ": " + e.getMessage());
                }
                if (exit) {
                    stage.hide();
                    javafx.application.Platform.exit();
                }
            });
        };
        stage.getScene().addPostLayoutPulseListener(once[0]);
    }

    /**
     * {@code kiln bench startup}'s floor: a Stage as large as the console's, with the same theme (AtlantaFX's sheet
     * and Kiln's) and nothing in it, reporting its first frame as the console does. What the console's first frame
     * costs beyond it is Kiln's.
     */
    private static void emptyStage(Stage stage, dev.kiln.ui.shell.Theme theme) {
        Application.setUserAgentStylesheet(theme.userAgentStylesheet());
        javafx.scene.Scene scene = new javafx.scene.Scene(new javafx.scene.layout.StackPane(), 1180, 740);
        scene.getStylesheets().add(MainWindow.class.getResource("kiln.css").toExternalForm());
        stage.setTitle("Kiln");
        stage.setScene(scene);
        stage.show();
        String frameFile = System.getProperty("kiln.firstFrameFile", "");
        if (!frameFile.isEmpty()) {
            signalFirstFrame(stage, Path.of(frameFile), Boolean.getBoolean("kiln.exitAfterFirstFrame"));
        }
    }

    /** For docs and reviews: waits for the page to settle, writes what the window shows, and exits. */
    private static void screenshotAndExit(Stage stage, Path file, double seconds) {
        javafx.animation.PauseTransition wait = new javafx.animation.PauseTransition(javafx.util.Duration.seconds(seconds));
        wait.setOnFinished(e -> {
            try {
                dev.kiln.ui.util.PngSnapshot.write(stage.getScene(), file);
                System.err.println("kiln: screenshot written to " + file);
            } catch (IOException ex) {
                shotError = "could not write screenshot " + file + ": " + ex.getMessage();
                System.err.println("kiln: " + shotError);
            }
            javafx.application.Platform.exit();
        });
        wait.play();
    }

    // --- fleet: the daemon list, attach, and the seam the remote engine plugs into -------------------------------

    private static final String FLEET = "kiln.fleet";
    private static final String MODEL = "kiln.model";
    private static volatile Path daemonListFile;
    private static volatile DaemonEntry startDaemon;
    /** The remote engine: a daemon of the fleet, over its API (pinned TLS when the entry has a pin). */
    private static volatile DaemonEngines engines = d -> RemoteEngine.connect(d.url(), d.tokenFile().orElse(null),
            d.pin().orElse(null), Clock.systemUTC());

    /**
     * How the console reaches a daemon's pages: a daemon of the fleet → an {@link Engine} over its API; by default
     * {@link RemoteEngine}. Tests may put another here with {@link #daemonEngines}.
     */
    @FunctionalInterface
    public interface DaemonEngines {
        /** Connects to {@code daemon}; blocks (called off the FX thread). */
        Engine connect(DaemonEntry daemon) throws Exception;
    }

    /** Sets how a daemon's pages are reached (the remote engine); null: none, the Fleet page shows the daemon. */
    public static void daemonEngines(DaemonEngines e) {
        engines = e;
    }

    /** The daemon list the Fleet page shows and edits ({@code daemons.json} in the config directory); null: none. */
    public static void daemonList(Path file) {
        daemonListFile = file;
    }

    /**
     * Opens the console attached to {@code daemon} and returns when it is closed: the window starts on
     * {@code workspace} (local) and shows the daemon's pages as soon as its engine has connected; a failure to connect
     * is a notification, and the Fleet page shows the daemon.
     */
    public static void attach(DaemonEntry daemon, Path workspace, Path settings) {
        startDaemon = daemon;
        open(workspace, dev.kiln.ui.shell.Page.FLEET.title(), settings);
    }

    /** A stage's fleet, with what it was made for: a workspace switch keeps it, another list or background does not. */
    private record Fleet(Path list, dev.kiln.ui.util.Background background, FleetViewModel model) {
    }

    /**
     * The stage's fleet: made, loaded and polling on first use, kept across workspace switches, stopped when the
     * stage is hidden (and replaced when the stage is shown again for another list: a test's primary stage is reused).
     */
    private static FleetViewModel fleetFor(Stage stage, dev.kiln.ui.util.Background background) {
        Path list = daemonListFile;
        if (stage.getProperties().get(FLEET) instanceof Fleet f) {
            if (Objects.equals(f.list(), list) && f.background() == background) {
                return f.model();
            }
            f.model().close();
        }
        FleetViewModel vm = new FleetViewModel(list, background, FleetViewModel.Scheduler.daemonThread(),
                FleetViewModel.HealthSource.api(), Clock.systemUTC(), d -> openDaemon(stage, background, d));
        stage.getProperties().put(FLEET, new Fleet(list, background, vm));
        stage.addEventHandler(javafx.stage.WindowEvent.WINDOW_HIDDEN, e -> {
            vm.close();
            if (stage.getProperties().get(FLEET) instanceof Fleet f && f.model() == vm) {
                stage.getProperties().remove(FLEET);
            }
        });
        vm.load();
        return vm;
    }

    /**
     * {@code kiln attach}, a recent daemon or one just connected from the menu: shown on the Fleet page (for this
     * session if it is not listed) and its pages opened, the one way the Fleet page opens them.
     */
    private static void attachDaemon(Stage stage, dev.kiln.ui.util.Background background, DaemonEntry d) {
        fleetFor(stage, background).attach(d);
        openDaemon(stage, background, d);
    }

    /** Selecting a daemon on the Fleet page (or {@code kiln attach}): its pages through the remote engine, if set. */
    private static void openDaemon(Stage stage, dev.kiln.ui.util.Background background, DaemonEntry d) {
        MainViewModel model = (MainViewModel) stage.getProperties().get(MODEL);
        DaemonEngines e = engines;
        if (e == null) {
            model.navigate(dev.kiln.ui.shell.Page.FLEET);
            model.setStatus(d.name() + " (" + d.url() + "): this console shows daemons on the Fleet page only");
            return;
        }
        model.setStatus("Connecting to " + d.name() + " (" + d.url() + ")…");
        background.run(() -> e.connect(d), engine -> showRemote(stage, background, d, engine), err -> model.notify(new dev.kiln.ui.shell.Notices.Notice(
                dev.kiln.ui.shell.Notices.Kind.FAILED, "Cannot open " + d.name(), String.valueOf(err.getMessage()))));
    }

    /** Shows {@code daemon}'s pages in {@code stage} through {@code engine}, keeping the window's theme and size. */
    private static void showRemote(Stage stage, dev.kiln.ui.util.Background background, DaemonEntry daemon, Engine engine) {
        MainViewModel before = (MainViewModel) stage.getProperties().get(MODEL);
        dev.kiln.ui.shell.Theme theme = before == null ? dev.kiln.ui.shell.Theme.DARK : before.themeProperty().get();
        double width = stage.getScene() == null ? 1180 : stage.getScene().getWidth();
        double height = stage.getScene() == null ? 740 : stage.getScene().getHeight();
        MainViewModel model = MainViewModel.attached(engine.layout(), daemon, daemon.name() + " (" + engine.location() + ")");
        // Remembered once it has answered: a daemon that never connected is no "recent" one. Its token file's path
        // and pin are kept, never the token (ConsoleSettings).
        stage.getProperties().put(MEMORY, memory(stage).withRecentDaemon(daemon));
        if (before != null) {
            model.recent().setAll(before.recent());
            model.setOpener(before.opener()); // "Open workspace…" and the recent ones still work from here
        }
        show(stage, engine, model, background, true, theme, width, height);
        model.setStatus("Attached to " + daemon.name() + " at " + engine.location() + "; its paths are on its host");
    }

    @Override
    public void stop() {
        if (background != null) {
            background.close();
        }
    }
}
