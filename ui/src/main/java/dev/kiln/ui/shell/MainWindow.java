package dev.kiln.ui.shell;

import dev.kiln.core.engine.Engine;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.caches.CachesView;
import dev.kiln.ui.caches.CachesViewModel;
import dev.kiln.ui.contracts.ContractsView;
import dev.kiln.ui.seeds.SeedsView;
import dev.kiln.ui.startup.StartupView;
import dev.kiln.ui.startup.StartupViewModel;
import dev.kiln.ui.seeds.SeedsViewModel;
import dev.kiln.ui.contracts.ContractsViewModel;
import dev.kiln.ui.events.EventsView;
import dev.kiln.ui.events.EventsViewModel;
import dev.kiln.ui.projection.ProjectionView;
import dev.kiln.ui.projection.ProjectionViewModel;
import dev.kiln.ui.util.Background;
import dev.kiln.ui.util.FxEventPump;
import java.util.EnumMap;
import java.util.Map;
import javafx.geometry.Insets;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;

/** The console's frame: sidebar, the current page, status bar. Pages are made on first visit and kept. */
public final class MainWindow implements AutoCloseable {
    private final MainViewModel model;
    private final EventsViewModel events = new EventsViewModel();
    private final ProjectionViewModel projection;
    private final ContractsViewModel contracts;
    private final CachesViewModel caches;
    private final SeedsViewModel seeds;
    private final StartupViewModel startup;
    private final FxEventPump pump;
    private final Notices notices = new Notices();
    private final Background background;
    private final Map<Page, Node> pages = new EnumMap<>(Page.class);
    private final StackPane content = new StackPane();
    private final BorderPane root = new BorderPane();
    /** Record and replay (#30): Record / Open recording… over a live engine, the replay bar over a recording. */
    private final dev.kiln.ui.record.RecordBar recordBar;
    private static final javafx.css.PseudoClass DARK = javafx.css.PseudoClass.getPseudoClass("dark");

    /** The window over {@code engine}, in this process or a daemon's: the pages cannot tell which. */
    public MainWindow(MainViewModel model, Background background, Engine engine) {
        this.model = model;
        this.background = background;
        this.projection = new ProjectionViewModel(engine, background);
        this.contracts = new ContractsViewModel(engine, background);
        contracts.setShowing(false); // its rows are built once its page is made and shows; the summary meanwhile
        this.caches = new CachesViewModel(engine, background);
        this.seeds = new SeedsViewModel(engine, background);
        this.startup = new StartupViewModel(engine, background);
        contracts.summaryProperty().addListener((o, a, b) -> model.setStatus(b));
        // Subscribed from the start, so events before the first visit to a page are not lost.
        this.pump = new FxEventPump(engine.events(), this::dispatch);
        root.setLeft(sidebar());
        root.setCenter(content);
        root.setBottom(statusBar());
        this.recordBar = new dev.kiln.ui.record.RecordBar(engine, background, content);
        root.setTop(recordBar.node());
        root.getStyleClass().add("kiln-root");
        content.getStyleClass().add("kiln-content");
        content.setPadding(new Insets(20, 24, 16, 24));
        model.pageProperty().addListener((obs, old, now) -> show(now));
        model.themeProperty().addListener((obs, old, now) -> apply(now));
        // Every notification pops up, whoever raised it (events, the menu, the model): an invalidation listener
        // sees each new one, also one equal to the last.
        model.lastNoticeProperty().addListener(o -> {
            Notices.Notice n = model.lastNoticeProperty().get();
            if (n != null) {
                popUp(n);
            }
        });
        apply(model.themeProperty().get());
        show(model.pageProperty().get());
        // a rule that fires notifies once per firing (the health model calls this only when it starts firing)
        projection.health().setFiredListener(f -> model.notify(new Notices.Notice(Notices.Kind.ALERT,
                "Alert " + f.alert().rule().name() + " firing", f.alert().rule().summary())));
    }

    /** Reads the alert rules of {@code file} ({@code alerts.json}) off the FX thread; a file that does not read notifies. */
    public void useAlertRules(java.nio.file.Path file) {
        background.run(() -> dev.kiln.core.alert.AlertRules.load(file), l -> {
            projection.health().setRules(l);
            alertRules = l.rules();
            if (fleet != null) {
                fleet.setRules(alertRules);
            }
            l.problem().ifPresent(p -> model.notify(new Notices.Notice(Notices.Kind.FAILED, "Alert rules not read", p)));
        }, e -> { });
    }

    /**
     * Starts projecting: live (watcher + pacer, the daemon's engine) when this console may own the workspace, else
     * one startup tick and then only when asked, saying why. The projection page's model drives it.
     */
    public void startProjection(boolean live) {
        projection.start(live);
    }

    /** One frame's events, to every page model that shows them. */
    private void dispatch(java.util.List<KilnEvent> batch) {
        events.accept(batch);
        recordBar.accept(batch);
        projection.accept(batch);
        caches.accept(batch);
        seeds.accept(batch);
        startup.accept(batch);
        contracts.accept(batch);
        for (Notices.Notice n : notices.accept(batch)) {
            model.notify(n); // pops up through the listener on lastNoticeProperty
        }
    }

    /** A ControlsFX notification in the window's corner; decoration only, so a failure to show it is ignored. */
    private void popUp(Notices.Notice n) {
        if (root.getScene() == null || root.getScene().getWindow() == null || !root.getScene().getWindow().isShowing()) {
            return;
        }
        try {
            org.controlsfx.control.Notifications note = org.controlsfx.control.Notifications.create()
                    .owner(root.getScene().getWindow()).title(n.title()).text(n.text())
                    .position(javafx.geometry.Pos.BOTTOM_RIGHT).hideAfter(javafx.util.Duration.seconds(n.kind() != Notices.Kind.DONE ? 10 : 5));
            if (model.themeProperty().get() == Theme.DARK) {
                note = note.darkStyle();
            }
            if (n.kind() != Notices.Kind.DONE) {
                note.showError();
            } else {
                note.showInformation();
            }
        } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(MainWindow.class).debug("Notification not shown: {}", n, e);
        }
    }

    public Scene scene() {
        return scene(1180, 740);
    }

    /** The window's scene at {@code width × height}, with the page shortcuts: Ctrl+1… pages, Ctrl+T theme. */
    public Scene scene(double width, double height) {
        Scene scene = new Scene(root, width, height);
        scene.getStylesheets().add(MainWindow.class.getResource("kiln.css").toExternalForm());
        for (int d = 1; d <= 9; d++) {
            int digit = d;
            MainViewModel.pageForDigit(d).ifPresent(p -> scene.getAccelerators().put(
                    new KeyCodeCombination(KeyCode.getKeyCode(Integer.toString(digit)), KeyCombination.SHORTCUT_DOWN),
                    () -> model.navigate(p)));
        }
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.T, KeyCombination.SHORTCUT_DOWN), model::toggleTheme);
        Shortcuts.install(scene, () -> model.pageProperty().get(), pages::get);
        return scene;
    }

    /** Applies {@code theme}: AtlantaFX's stylesheet for the whole app, {@code :dark} on the root for Kiln's CSS. */
    private void apply(Theme theme) {
        javafx.application.Application.setUserAgentStylesheet(theme.userAgentStylesheet());
        root.pseudoClassStateChanged(DARK, theme == Theme.DARK);
    }

    @Override
    public void close() {
        recordBar.close();
        pump.close();
        if (ownsFleet) {
            fleet.close();
        }
    }

    private Node sidebar() {
        VBox bar = new VBox(4);
        bar.getStyleClass().add("kiln-sidebar");
        bar.setPadding(new Insets(16, 10, 16, 10));
        Label brand = new Label("Kiln");
        brand.getStyleClass().add("kiln-brand");
        VBox head = new VBox(2, brand, workspaceMenu());
        head.setPadding(new Insets(0, 8, 14, 8));
        bar.getChildren().add(head);
        ToggleGroup group = new ToggleGroup();
        for (Page p : Page.values()) {
            ToggleButton b = new ToggleButton(p.title());
            String keys = Shortcuts.describe(p);
            b.setTooltip(new javafx.scene.control.Tooltip(p.description() + "  (Ctrl+" + (p.ordinal() + 1) + ")"
                    + (keys.isEmpty() ? "" : "\nOn this page: " + keys)));
            b.setId(p.navId());
            b.setToggleGroup(group);
            b.setMaxWidth(Double.MAX_VALUE);
            b.getStyleClass().add("kiln-nav");
            b.setSelected(p == model.pageProperty().get());
            b.setOnAction(e -> {
                b.setSelected(true); // a second click keeps the page selected
                model.navigate(p);
            });
            model.pageProperty().addListener((obs, old, now) -> b.setSelected(now == p));
            bar.getChildren().add(b);
        }
        // #29: firing alert rules as icon and count in the navigation; a click opens the Alerts panel (Projection page)
        bar.getChildren().add(new dev.kiln.ui.health.AlertBadge(projection.health(), () -> model.navigate(Page.PROJECTION)));
        Region push = new Region();
        VBox.setVgrow(push, Priority.ALWAYS);
        Button theme = new Button();
        theme.setId("theme-toggle");
        theme.getStyleClass().addAll("kiln-nav", "kiln-theme-toggle");
        theme.setMaxWidth(Double.MAX_VALUE);
        theme.textProperty().bind(javafx.beans.binding.Bindings.createStringBinding(
                () -> model.themeProperty().get() == Theme.DARK ? "☀  Light theme" : "☾  Dark theme", model.themeProperty()));
        theme.setTooltip(new javafx.scene.control.Tooltip("Switch between the light and the dark theme (Ctrl+T)"));
        theme.setOnAction(e -> model.toggleTheme());
        bar.getChildren().addAll(push, theme);
        bar.setPrefWidth(196);
        bar.setMinWidth(196);
        return bar;
    }

    /** The workspace's name as a menu: open another, create a demo one, or pick a recent one. */
    private Node workspaceMenu() {
        javafx.scene.control.MenuButton menu = new javafx.scene.control.MenuButton(model.label());
        menu.setId("workspace-menu");
        menu.getStyleClass().addAll("kiln-brand-sub", "flat");
        menu.setMaxWidth(176);
        // a long workspace name is cut to the sidebar: its tooltip holds all of it
        menu.setTooltip(new javafx.scene.control.Tooltip(model.label() + "\n" + model.location()));
        javafx.scene.control.MenuItem open = new javafx.scene.control.MenuItem("Open workspace…");
        open.setId("menu-open");
        open.setAccelerator(new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN));
        open.setOnAction(e -> {
            javafx.stage.DirectoryChooser chooser = new javafx.stage.DirectoryChooser();
            chooser.setTitle("Open a Kiln workspace");
            java.io.File dir = chooser.showDialog(root.getScene().getWindow());
            if (dir != null) {
                model.openWorkspace(dir.toPath());
            }
        });
        javafx.scene.control.MenuItem demo = new javafx.scene.control.MenuItem("Create demo workspace…");
        demo.setId("menu-demo");
        demo.setOnAction(e -> {
            javafx.stage.DirectoryChooser chooser = new javafx.stage.DirectoryChooser();
            chooser.setTitle("An empty directory for the demo workspace");
            java.io.File dir = chooser.showDialog(root.getScene().getWindow());
            if (dir != null) {
                createDemo(dir.toPath());
            }
        });
        javafx.scene.control.MenuItem connect = new javafx.scene.control.MenuItem("Connect to daemon…");
        connect.setId("menu-connect");
        connect.setOnAction(e -> connectToDaemon());
        Runnable fill = () -> {
            menu.getItems().setAll(open, demo, connect);
            if (!model.recent().isEmpty()) {
                menu.getItems().addAll(new javafx.scene.control.SeparatorMenuItem(), header("Recent workspaces"));
                for (java.nio.file.Path p : model.recent()) {
                    javafx.scene.control.MenuItem item = new javafx.scene.control.MenuItem(p.toString());
                    item.setOnAction(e -> model.openWorkspace(p));
                    menu.getItems().add(item);
                }
            }
            if (!model.recentDaemons().isEmpty()) {
                menu.getItems().addAll(new javafx.scene.control.SeparatorMenuItem(), header("Recent daemons"));
                int i = 0;
                for (dev.kiln.core.fleet.DaemonEntry d : model.recentDaemons()) {
                    menu.getItems().add(daemonItem(d, i++));
                }
            }
        };
        model.recent().addListener((javafx.collections.ListChangeListener<java.nio.file.Path>) c -> fill.run());
        model.recentDaemons().addListener((javafx.collections.ListChangeListener<dev.kiln.core.fleet.DaemonEntry>) c -> fill.run());
        fill.run();
        return menu;
    }

    /** A section's title in the menu: not an action, so disabled, in the muted header style. */
    private static javafx.scene.control.MenuItem header(String text) {
        javafx.scene.control.MenuItem h = new javafx.scene.control.MenuItem(text);
        h.setDisable(true);
        h.getStyleClass().add("kiln-menu-header");
        return h;
    }

    /**
     * A recent daemon: its name and URL (the pin and token file in the tooltip-less menu are not needed to choose);
     * choosing it attaches the window as "Connect to daemon…" does. The daemon shown now is marked and disabled.
     */
    private javafx.scene.control.MenuItem daemonItem(dev.kiln.core.fleet.DaemonEntry d, int index) {
        boolean shown = model.attachedDaemon().map(a -> a.url().equals(d.url())).orElse(false);
        javafx.scene.control.MenuItem item = new javafx.scene.control.MenuItem(d.name() + "  ·  " + d.url()
                + (d.pin().isPresent() ? "  ·  pinned" : "") + (shown ? "  (shown)" : ""));
        item.setId("menu-daemon-" + index);
        item.setDisable(shown);
        item.setOnAction(e -> model.openDaemon(d));
        return item;
    }

    /** Writes a demo workspace into {@code dir} off the FX thread, then opens it; a failure becomes a notification. */
    private void createDemo(java.nio.file.Path dir) {
        background.run(() -> {
            new dev.kiln.core.demo.DemoWorkspace().write(dir, dev.kiln.core.demo.DemoWorkspace.DEFAULT_CONTRACTS, 7, false);
            return dir;
        }, model::openWorkspace, e -> {
            model.notify(new Notices.Notice(Notices.Kind.FAILED, "Demo workspace not created", String.valueOf(e.getMessage())));
        });
    }

    // --- fleet ------------------------------------------------------------------------------------------------

    private dev.kiln.ui.fleet.FleetViewModel fleet;
    /** The rules read from alerts.json, once read: the Fleet page judges its daemons by them too. */
    private java.util.List<dev.kiln.core.alert.AlertRule> alertRules; // null until read
    private boolean ownsFleet;

    /**
     * The fleet this window shows on its Fleet page (the application's, which outlives a workspace switch); set
     * before the page is first shown. Without one, the page keeps daemons for this window only.
     */
    public void setFleet(dev.kiln.ui.fleet.FleetViewModel fleet) {
        this.fleet = java.util.Objects.requireNonNull(fleet);
        watchFleetAlerts(fleet);
    }

    /** Held here: the fleet outlives this window (a workspace switch), so it is listened to weakly. */
    private javafx.beans.value.ChangeListener<java.util.Map<String, java.util.List<dev.kiln.core.alert.Alert>>> fleetAlerts;

    /** The fleet's alerts in this window's Alerts panel and badge; a rule that starts firing on daemons notifies once. */
    private void watchFleetAlerts(dev.kiln.ui.fleet.FleetViewModel f) {
        fleetAlerts = (o, a, m) -> projection.health().setFleetAlerts(m);
        f.alertsProperty().addListener(new javafx.beans.value.WeakChangeListener<>(fleetAlerts));
        projection.health().setFleetAlerts(f.alertsProperty().get());
        f.setFiredListener(fired -> Notices.fleetAlerts(fired).forEach(model::notify));
    }

    private dev.kiln.ui.fleet.FleetViewModel fleet() {
        if (fleet == null) {
            fleet = new dev.kiln.ui.fleet.FleetViewModel(null, background, dev.kiln.ui.fleet.FleetViewModel.Scheduler.daemonThread(),
                    dev.kiln.ui.fleet.FleetViewModel.HealthSource.api(), java.time.Clock.systemUTC(), d -> model.navigate(Page.FLEET));
            if (alertRules != null) {
                fleet.setRules(alertRules);
            }
            watchFleetAlerts(fleet);
            fleet.load();
            ownsFleet = true;
        }
        return fleet;
    }

    /**
     * The menu's "Connect to daemon…": the Fleet page with its connect dialog open; the daemon saved there is then
     * attached to this window (and so remembered among the recent daemons).
     */
    private void connectToDaemon() {
        model.navigate(Page.FLEET);
        if (pages.get(Page.FLEET) instanceof dev.kiln.ui.fleet.FleetView v) {
            v.connect(model::openDaemon);
        }
    }

    private Node statusBar() {
        Label path = new Label(model.location());
        path.setId("status-workspace");
        Label status = new Label();
        status.setId("status-text");
        status.textProperty().bind(model.statusProperty());
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        HBox bar = new HBox(12, path, grow, status);
        bar.getStyleClass().add("kiln-status");
        bar.setPadding(new Insets(5, 12, 5, 12));
        return bar;
    }

    private void show(Page page) {
        Node node = pages.computeIfAbsent(page, p -> {
            Node made = create(p);
            Shortcuts.annotate(p, made); // its controls' tooltips name their shortcuts
            return made;
        });
        content.getChildren().setAll(frames.computeIfAbsent(page, p -> new PageScroll(node)));
    }

    /** Each page in its frame: pages scroll instead of cutting text off (made once, like the pages). */
    private final Map<Page, PageScroll> frames = new EnumMap<>(Page.class);

    private Node create(Page page) {
        return switch (page) {
            case CONTRACTS -> new ContractsView(contracts);
            case PROJECTION -> new ProjectionView(projection);
            case CACHES -> new CachesView(caches);
            case SEEDS -> new SeedsView(seeds);
            case STARTUP -> new StartupView(startup);
            case EVENTS -> new EventsView(events);
            case FLEET -> new dev.kiln.ui.fleet.FleetView(fleet());

        };
    }
}
