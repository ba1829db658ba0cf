package dev.kiln.ui.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.Kiln;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.fleet.FleetActions;
import dev.kiln.core.health.HealthReason;
import dev.kiln.core.health.HealthState;
import dev.kiln.core.health.HealthVerdict;
import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.startup.BytecodeMode;
import dev.kiln.core.startup.Outcome;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerResult;
import dev.kiln.core.startup.Timeline;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.MainWindow;
import dev.kiln.ui.shell.Page;
import dev.kiln.ui.shell.Theme;
import dev.kiln.ui.util.FxBackground;
import dev.kiln.ui.util.PngSnapshot;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Pictures of the Fleet page, in both themes at the default size and at 1600×1000, with a healthy, a degraded, a
 * failing, an unreachable and an unknown (older) daemon, after a fleet probe: its progress rows and the heat map of
 * hosts × servers. The daemons' answers are scripted (the real daemons are in app's {@code FleetActionsTest} and
 * {@code FleetPageTest}); the pictures go to {@code -Dkiln.shots=DIR} (default {@code target/shots}) for a person to
 * look at, and the test checks that nothing the page shows is cut off: each heat cell and the action buttons lie
 * within the window.
 */
@FxTest
@ExtendWith(ApplicationExtension.class)
class FleetPicturesTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private static final Instant T0 = Instant.parse("2026-12-01T12:00:00Z");
    private Stage stage;
    private MainViewModel model;
    private FleetViewModel fleet;

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        Path dir = Files.createTempDirectory("kiln-fleet-pictures");
        Path ws = dir.resolve("ws");
        new DemoWorkspace().write(ws, 20, 3, false);
        Path list = dir.resolve("daemons.json");
        DaemonList.update(list, l -> l.with(DaemonEntry.of("eval-1", "http://127.0.0.1:7101", "", ""))
                .with(DaemonEntry.of("eval-2", "http://127.0.0.1:7102", "", ""))
                .with(DaemonEntry.of("eval-3", "http://127.0.0.1:7103", "", ""))
                .with(DaemonEntry.of("tick-1", "http://127.0.0.1:7104", "", ""))
                .with(DaemonEntry.of("old-1", "http://127.0.0.1:7105", "", "")));
        Map<String, Object> answers = Map.of(
                "eval-1", health(42, 500, 0, HealthVerdict.healthy()),
                "eval-2", health(17, 480, 0, HealthVerdict.of(List.of(new HealthReason("probe_near_timeout",
                        HealthState.DEGRADED, "demo-import-graph answered in 8.6 s of its 10 s timeout")))),
                "tick-1", health(9, 40, 2, HealthVerdict.of(List.of(new HealthReason("contract_failures", HealthState.FAILING,
                        "2 contracts fail to read")))),
                "eval-3", new IOException("the daemon at http://127.0.0.1:7103/ did not answer GET /api/v1/version: nothing"
                        + " listens there; is kiln serve running, on that port?"),
                // an older daemon: the client refuses it with this message (ServeClient's), so it is failing, not unknown
                "old-1", new IOException("the daemon at http://127.0.0.1:7105/ speaks API v1, this kiln speaks v2: use a kiln"
                        + " of the same release on both sides"));
        FleetViewModel.HealthSource source = d -> () -> {
            Object a = answers.get(d.name());
            if (a instanceof Exception e) {
                throw e;
            }
            return (DaemonHealth) a;
        };
        FleetActions actions = FleetActions.builder().concurrency(5).reachability(d -> Optional.empty()).engines(d -> {
            if (d.name().equals("eval-3")) {
                throw new EngineException(EngineException.Kind.UNREACHABLE, "nothing listens at " + d.url());
            }
            if (d.name().equals("old-1")) {
                throw new EngineException(EngineException.Kind.INCOMPATIBLE, d.url() + " speaks API v1, this kiln speaks v2");
            }
            return probing(d.name());
        }).build();
        fleet = new FleetViewModel(list, BACKGROUND, FleetViewModel.Scheduler.daemonThread(), source, Clock.systemUTC(),
                d -> { }, actions);
        Kiln kiln = Kiln.open(ws, new EventBus(), Clock.systemUTC());
        model = new MainViewModel(WorkspaceLayout.of(ws));
        model.setTheme(Theme.LIGHT);
        MainWindow window = new MainWindow(model, BACKGROUND, kiln.engine());
        window.setFleet(fleet);
        fleet.load();
        stage.setScene(window.scene(1180, 740));
        stage.show();
        model.navigate(Page.FLEET);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void fleetPage_verdictRowsAndAProbeHeatMap_bothThemes_twoSizes_nothingCutOff(FxRobot robot) throws Exception {
        @SuppressWarnings("unchecked")
        TableView<FleetRow> table = robot.lookup("#fleet-table").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> table.getItems().size() == 5
                && table.getItems().stream().noneMatch(r -> r.state() == FleetRow.State.CONNECTING));
        List<String> order = new ArrayList<>();
        robot.interact(() -> table.getItems().forEach(r -> order.add(r.name() + " " + r.verdictWord())));
        assertThat(order).containsExactly("eval-3 failing", "old-1 failing", "tick-1 failing", "eval-2 degraded", "eval-1 healthy");

        robot.interact(() -> {
            fleet.chooseShown();
            assertThat(fleet.runAction(FleetActions.Kind.PROBE)).isEmpty();
        });
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> !fleet.actionRunningProperty().get());
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(robot.lookup("#fleet-heat-eval-2-demo-import-graph").queryAs(Label.class).getText()).isEqualTo("▲ 8.6 s");
        assertThat(robot.lookup("#fleet-heat-tick-1-demo-import-graph").queryAs(Label.class).getText()).isEqualTo("✕ timeout");

        Path shots = Files.createDirectories(Path.of(System.getProperty("kiln.shots", "target/shots")));
        for (double[] size : new double[][] {{1180, 740}, {1600, 1000}}) {
            robot.interact(() -> {
                stage.setX(0); // at the screen's corner, as the pictures of the other pages are taken
                stage.setY(0);
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
            });
            for (Theme t : Theme.values()) {
                robot.interact(() -> model.setTheme(t));
                WaitForAsyncUtils.waitForFxEvents();
                robot.interact(() -> {
                    stage.getScene().getRoot().applyCss();
                    stage.getScene().getRoot().layout();
                    String at = " at " + (int) size[0] + "x" + (int) size[1] + " " + t.key();
                    for (String id : List.of("#fleet-probe", "#fleet-warm", "#fleet-doctor", "#fleet-cancel", "#fleet-choose-shown",
                            "#fleet-choose-none", "#fleet-heat-scroll", "#fleet-filter", "#fleet-progress")) {
                        assertWithinWindow(robot.lookup(id).query(), id + at);
                    }
                    // the map scrolls inside its frame (5 daemons at 1180x740 show about 2.5 rows): a cell may be below
                    // the frame's viewport, but never cut short in width
                    Label cell = robot.lookup("#fleet-heat-eval-1-demo-import-graph").queryAs(Label.class);
                    assertThat(cell.getWidth()).as("heat cell shows its whole text" + at).isGreaterThanOrEqualTo(cell.prefWidth(-1) - 0.5);
                    assertFitsTheWindow(table, at);
                    assertColumnsWithinTheTable(table, at);
                    assertRowsAligned(table, at);
                    try {
                        PngSnapshot.write(stage.getScene(), shots.resolve("fleet-page-" + t.key() + "-" + (int) size[0] + "x"
                                + (int) size[1] + ".png"));
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            }
        }
    }

    /** The page needs no sideways scroll: its frame's content is no wider than the frame's viewport. */
    private static void assertFitsTheWindow(TableView<FleetRow> table, String at) {
        javafx.scene.control.ScrollPane frame = null;
        for (javafx.scene.Parent p = table.getParent(); p != null; p = p.getParent()) {
            if (p instanceof javafx.scene.control.ScrollPane sp && sp.getStyleClass().contains("kiln-page-scroll")) {
                frame = sp;
            }
        }
        assertThat(frame).as("the page's frame" + at).isNotNull();
        Node page = frame.getContent();
        StringBuilder parts = new StringBuilder(); // what asks for the width, when it is too much
        if (page instanceof javafx.scene.Parent p) {
            for (Node c : p.getChildrenUnmodifiable()) {
                parts.append(' ').append(c.getId() != null ? c.getId() : c.getClass().getSimpleName()).append('=').append(Math.round(c.minWidth(-1)));
                if (c instanceof javafx.scene.Parent cp) {
                    parts.append(" [");
                    cp.getChildrenUnmodifiable().forEach(g -> parts.append(g.getId() != null ? g.getId() : g.getClass().getSimpleName())
                            .append('=').append(Math.round(g.minWidth(-1))).append(' '));
                    parts.append(']');
                }
            }
        }
        assertThat(page.minWidth(-1)).as("the Fleet page's minimum width against its frame's viewport" + at + " (a wider one scrolls"
                + " sideways):" + parts)
                .isLessThanOrEqualTo(frame.getViewportBounds().getWidth() + 0.5);
        for (Node n : frame.lookupAll(".scroll-bar")) {
            if (n instanceof javafx.scene.control.ScrollBar b && b.getParent() == frame
                    && b.getOrientation() == javafx.geometry.Orientation.HORIZONTAL) {
                assertThat(b.isVisible()).as("the page's sideways scroll bar" + at).isFalse();
            }
        }
    }

    /** Every column ends within the table (a constrained table clips what is past its edge, without a scroll bar). */
    private static void assertColumnsWithinTheTable(TableView<FleetRow> table, String at) {
        double right = table.localToScene(table.getLayoutBounds()).getMaxX() - table.snappedRightInset();
        for (Node n : table.lookupAll(".column-header")) {
            if (n instanceof javafx.scene.control.skin.TableColumnHeader h && h.getTableColumn() != null) {
                Bounds b = h.localToScene(h.getLayoutBounds());
                assertThat(b.getMaxX()).as("the header of " + h.getTableColumn().getText() + at + " ends within the table")
                        .isLessThanOrEqualTo(right + 0.5);
            }
        }
        javafx.scene.control.TableColumn<FleetRow, ?> last = table.getVisibleLeafColumns().get(table.getVisibleLeafColumns().size() - 1);
        assertThat(last.getText()).isEqualTo("Last probe");
        assertThat(last.getWidth()).as("Last probe" + at + " keeps a readable width").isGreaterThanOrEqualTo(100);
        double sum = table.getVisibleLeafColumns().stream().mapToDouble(c -> c.getWidth()).sum();
        assertThat(sum).as("the columns' widths summed" + at).isLessThanOrEqualTo(table.getWidth() - table.snappedLeftInset()
                - table.snappedRightInset() + 0.5);
    }

    /** A tinted row's cells start where an untinted row's do (a border on the row had pushed them 4 px right). */
    private static void assertRowsAligned(TableView<FleetRow> table, String at) {
        java.util.Map<String, Double> daemonCellX = new java.util.TreeMap<>();
        for (Node n : table.lookupAll(".table-row-cell")) {
            if (n instanceof javafx.scene.control.TableRow<?> row && row.getItem() instanceof FleetRow r) {
                for (Node c : row.lookupAll(".table-cell")) {
                    if (c instanceof javafx.scene.control.TableCell<?, ?> cell && cell.getTableColumn() != null
                            && "Daemon".equals(cell.getTableColumn().getText())) {
                        daemonCellX.put(r.name() + " (" + (r.tint().isEmpty() ? "untinted" : r.tint()) + ")",
                                cell.localToScene(cell.getLayoutBounds()).getMinX());
                    }
                }
            }
        }
        assertThat(daemonCellX).as("rows shown" + at).hasSizeGreaterThanOrEqualTo(4);
        assertThat(new java.util.HashSet<>(daemonCellX.values())).as("each row's Daemon cell's left edge" + at + ": " + daemonCellX)
                .hasSize(1);
    }

    private void assertWithinWindow(Node n, String what) {
        Bounds b = n.localToScene(n.getLayoutBounds());
        assertThat(n.isVisible()).as(what + " visible").isTrue();
        assertThat(b.getMinX()).as(what + " left edge").isGreaterThanOrEqualTo(0);
        assertThat(b.getMaxX()).as(what + " right edge").isLessThanOrEqualTo(stage.getScene().getWidth() + 0.5);
        assertThat(b.getMaxY()).as(what + " bottom edge").isLessThanOrEqualTo(stage.getScene().getHeight() + 0.5);
        assertThat(b.getWidth()).as(what + " not squeezed").isGreaterThan(20);
        if (n instanceof javafx.scene.control.Labeled l) {
            assertThat(l.getWidth()).as(what + " shows its whole text \"" + l.getText() + "\"").isGreaterThanOrEqualTo(l.prefWidth(-1) - 0.5);
        }
    }

    /** A health answer with the verdict the daemon judged. */
    private static DaemonHealth health(long revision, long contracts, long failures, HealthVerdict verdict) {
        return new DaemonHealth(URI.create("http://x/"), 2, revision, revision, Optional.of(T0), Optional.of(Duration.ofMillis(1500)),
                "", Duration.ofSeconds(15), true, "", contracts, failures, Optional.empty(),
                Optional.of(new DaemonHealth.Seeds(2, failures > 0 ? 1 : 0)), Optional.empty(), "", List.of(), false,
                Optional.of(verdict));
    }

    /** A probe that has ended on its host with these figures (per daemon: its three demo servers). */
    private static Engine probing(String name) {
        double scale = switch (name) {
            case "eval-2" -> 8.6;
            case "tick-1" -> 12;
            default -> 1;
        };
        List<ServerResult> rs = List.of(result("demo-light", 210 * Math.min(scale, 3), 30_000),
                result("demo-stdlib", 640 * Math.min(scale, 4), 30_000),
                result("demo-import-graph", 1000 * scale, 10_000));
        ProbeReport report = new ProbeReport(T0, "", 1, BytecodeMode.AS_IS, rs);
        return dev.kiln.ui.Scripted.engine(
                (proxy, m, args) -> switch (m.getName()) {
                    case "probe" -> new Action<ProbeReport>() {
                        public String id() {
                            return "probe-" + name;
                        }

                        public CompletableFuture<ProbeReport> result() {
                            return CompletableFuture.completedFuture(report);
                        }

                        public void cancel() {
                        }
                    };
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static ServerResult result(String server, double ms, long timeoutMs) {
        boolean ok = ms < timeoutMs;
        return new ServerResult(server, ServerConfig.Transport.STDIO, 1, ok ? Outcome.OK : Outcome.TIMEOUT, null,
                ok ? "" : "no initialize answer within " + timeoutMs / 1000 + " s", ok ? "2025-06-18" : null, ok ? ms : null,
                ok ? ms + 20 : null, ok ? 3 : -1, timeoutMs, new Timeline(1.0, 40.0, null, ok ? ms : null, ok ? ms + 20 : null, null),
                List.of());
    }
}
