package dev.kiln.ui.chart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoSummary;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.contracts.ContractRow;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.Page;
import dev.kiln.ui.shell.Theme;
import dev.kiln.ui.util.FxBackground;
import dev.kiln.ui.util.PngSnapshot;
import dev.kiln.ui.util.TableExport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import javafx.geometry.Point2D;
import javafx.scene.Node;
import javafx.scene.control.IndexedCell;
import javafx.scene.control.Labeled;
import javafx.scene.control.TableView;
import javafx.scene.input.MouseButton;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The console's charts and tables asked as a person asks them, in a real (headless) window on a live demo workspace:
 * hover shows the time and exact values, a drag zooms and Reset goes back, a legend click hides a series, the time
 * before the console was open is a gap, a chart exports as PNG, a table's CSV equals what its cells show, and the
 * Contracts page keeps severity under the change marker with a match count. The pointer works at 1600x1000 (at
 * 1180x740 the Projection page's second row of charts is below the window's edge). With {@code -Dkiln.shots=DIR} it saves
 * the pictures of both themes at 1180x740 and 1600x1000.
 */
@FxTest
@ExtendWith(ApplicationExtension.class)
class ChartQuestionsTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private Stage stage;
    private MainViewModel model;
    private Path workspace;
    private DemoSummary demo;

    @Start
    void start(Stage stage) throws Exception {
        workspace = Files.createTempDirectory("kiln-ui-charts").resolve("demo");
        demo = new DemoWorkspace().write(workspace, 120, 3, false);
        this.stage = stage;
        model = KilnConsole.show(stage, WorkspaceLayout.of(workspace), BACKGROUND, true, Theme.LIGHT, 1600, 1000);
        model.navigate(Page.PROJECTION);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    private static <T> T fx(Callable<T> c) throws Exception {
        return WaitForAsyncUtils.asyncFx(c).get(30, TimeUnit.SECONDS);
    }

    @Test
    void hoverZoomLegendGapsAndPng_thenContractsCsvSeverityAndMatches(FxRobot robot) throws Exception {
        TrendChart reasons = robot.lookup("#chart-reasons").queryAs(TrendChart.class);
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> fx(() -> newest(reasons, "startup")) >= 0);
        // one contract edited: a change tick in the chart as well
        edit(firstContract());
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> fx(() -> sum(reasons, "change")) >= 1);

        // gaps: the console has been open for seconds; an hour's window is mostly time it never saw, drawn as no data
        robot.clickOn("#chart-window-one-hour");
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> fx(() -> Double.isNaN(reasons.values("startup")[0])));
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> fx(() -> newest(reasons, "startup")) >= 1);
        robot.clickOn("#chart-window-one-minute");
        WaitForAsyncUtils.waitForFxEvents();

        // hover over the point that holds the change tick: its time and the exact value of every series
        int at = fx(() -> lastIndexWhere(reasons, "change"));
        assertThat(at).isGreaterThanOrEqualTo(0);
        moveTo(robot, reasons, at);
        WaitForAsyncUtils.waitFor(5, TimeUnit.SECONDS, () -> fx(() -> !reasons.hoverText().isEmpty()));
        String hover = fx(reasons::hoverText);
        List<String> lines = List.of(hover.split("\n"));
        assertThat(lines.get(0)).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d");
        assertThat(lines).hasSize(1 + reasons.seriesNames().size());
        int hoveredAt = fx(() -> reasons.data().nearest(reasons.data().at(at), Long.MIN_VALUE, Long.MAX_VALUE));
        for (String name : reasons.seriesNames()) {
            double v = fx(() -> reasons.data().value(reasons.seriesNames().indexOf(name), hoveredAt));
            assertThat(lines).contains(name + ": " + (Double.isNaN(v) ? "no data" : ChartData.exact(v)));
        }
        assertThat(hover).contains("change: " + ChartData.exact(fx(() -> reasons.values("change")[at])));

        // a legend click hides a series: gone from the hover box, back on a second click
        robot.clickOn("#chart-reasons-legend-0");
        assertThat(fx(() -> reasons.isSeriesShown("startup"))).isFalse();
        moveTo(robot, reasons, at);
        WaitForAsyncUtils.waitFor(5, TimeUnit.SECONDS, () -> fx(() -> !reasons.hoverText().contains("startup:")));
        assertThat(fx(reasons::hoverText)).contains("change: ");
        robot.clickOn("#chart-reasons-legend-0");
        assertThat(fx(() -> reasons.isSeriesShown("startup"))).isTrue();

        // drag across a stretch of the plot: the chart zooms to those times; Reset zoom shows the whole window again
        int from = Math.max(0, at - 12);
        int to = Math.min(fx(() -> reasons.data().size()) - 1, at + 3);
        long fromTime = fx(() -> reasons.data().at(from));
        long toTime = fx(() -> reasons.data().at(to));
        long dragStarted = System.nanoTime();
        robot.drag(screen(robot, reasons, from), MouseButton.PRIMARY).moveTo(screen(robot, reasons, to)).release(MouseButton.PRIMARY);
        long dragMillis = (System.nanoTime() - dragStarted) / 1_000_000; // the live window moved on meanwhile
        WaitForAsyncUtils.waitForFxEvents();
        ChartZoom zoom = fx(() -> reasons.zoom().orElse(null));
        assertThat(zoom).as("a drag zooms").isNotNull();
        long bucket = 1000; // the 1 min window's buckets are a second wide: the drag lands within a bucket of them
        assertThat(zoom.from()).isBetween(fromTime - 2 * bucket, fromTime + 2 * bucket);
        assertThat(zoom.to()).isBetween(toTime - 2 * bucket, toTime + 2 * bucket + dragMillis);
        // hover inside the zoomed times: the live window moves on a bucket a second, so on a slow machine the index
        // hovered before may by now hold a time past the zoom's end, where nothing is hovered
        int inZoom = fx(() -> reasons.data().nearest((zoom.from() + zoom.to()) / 2, Long.MIN_VALUE, Long.MAX_VALUE));
        moveTo(robot, reasons, inZoom);
        WaitForAsyncUtils.waitFor(5, TimeUnit.SECONDS, () -> fx(() -> !reasons.hoverText().isEmpty()));
        shoot(robot, "chart-hovered-zoomed", () -> moveTo(robot, reasons, fx(() -> lastIndexWhere(reasons, "change"))));
        assertThat(robot.lookup("#chart-reasons-reset").queryAs(Node.class).isVisible()).isTrue();
        robot.clickOn("#chart-reasons-reset");
        assertThat(fx(() -> reasons.zoom().isPresent())).isFalse();

        Path png = Files.createTempFile("kiln-chart", ".png");
        fx(() -> {
            reasons.exportPng(png);
            return null;
        });
        byte[] bytes = Files.readAllBytes(png);
        assertThat(bytes.length).isGreaterThan(1000);
        assertThat(new String(bytes, 1, 3, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("PNG");

        // Contracts: the CSV equals what the table's cells show, row for row
        robot.interact(() -> model.navigate(Page.CONTRACTS));
        @SuppressWarnings("unchecked")
        TableView<ContractRow> table = robot.lookup("#contracts-table").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> fx(() -> table.getItems().size()) >= 100);
        String csv = fx(() -> TableExport.csv(table));
        List<List<String>> parsed = parse(csv);
        assertThat(parsed).hasSize(fx(() -> table.getItems().size()) + 1);
        assertThat(parsed.get(0)).isEqualTo(fx(() -> table.getVisibleLeafColumns().stream().map(c -> c.getText()).toList()));
        List<List<String>> shownCells = fx(() -> renderedRows(table));
        assertThat(shownCells).hasSizeGreaterThan(5);
        for (List<String> row : shownCells) {
            int index = Integer.parseInt(row.get(0));
            assertThat(parsed.get(index + 1)).as("CSV line of row " + index).isEqualTo(row.subList(1, row.size()));
        }
        Path file = Files.createTempFile("kiln-contracts", ".csv");
        fx(() -> {
            TableExport.write(table, file);
            return null;
        });
        assertThat(Files.readString(file)).isEqualTo(csv);

        // the match count follows the filter
        Labeled matches = robot.lookup("#contracts-matches").queryAs(Labeled.class);
        int total = fx(() -> table.getItems().size());
        assertThat(fx(matches::getText)).isEqualTo(String.format(java.util.Locale.ROOT, "%,d rows", total));
        robot.interact(() -> robot.lookup("#contracts-flagged").queryAs(javafx.scene.control.CheckBox.class).setSelected(true));
        int flagged = fx(() -> table.getItems().size());
        assertThat(flagged).isBetween(1, total - 1);
        assertThat(fx(matches::getText)).isEqualTo(flagged + " of " + total + " match");

        // the detail pane follows the selection and closes when its row is filtered away
        robot.interact(() -> table.getSelectionModel().select(0));
        Node details = robot.lookup("#contract-details").query();
        assertThat(details.isVisible()).isTrue();
        ContractRow chosen = fx(() -> table.getItems().get(0));
        robot.interact(() -> robot.lookup("#contracts-filter").queryAs(javafx.scene.control.TextField.class).setText("no-such-contract-xyz"));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(details.isVisible()).as("the pane of " + chosen.file() + " closes when the filter hides it").isFalse();
        robot.interact(() -> robot.lookup("#contracts-filter").queryAs(javafx.scene.control.TextField.class).setText(""));

        // every flagged row edited: after that revision, changed rows still show their severity (tint and marker)
        robot.interact(() -> robot.lookup("#contracts-flagged").queryAs(javafx.scene.control.CheckBox.class).setSelected(false));
        for (String legacy : demo.legacyIds()) {
            edit(workspace.resolve(legacy));
        }
        List<Path> all;
        try (var files = Files.walk(workspace.resolve("tasks"))) {
            all = files.filter(f -> f.endsWith("contract.json")).sorted().toList();
        }
        for (int i = 0; i < 12; i++) {
            edit(all.get(i)); // rows at the top of the table, overdue ones among them
        }
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> fx(() -> rowsWith(table, "changed", "severity-warn")) >= 1);
        shoot(robot, "contracts-severity-changed", () -> { });
    }

    /** Table rows on screen that carry both pseudo-classes. */
    private static long rowsWith(TableView<?> table, String a, String b) {
        return table.lookupAll(".table-row-cell").stream().filter(n -> n.isVisible() && n.getPseudoClassStates().stream()
                .map(javafx.css.PseudoClass::getPseudoClassName).toList().containsAll(List.of(a, b))).count();
    }

    /** The rows the table draws now: {index, then each cell's text}. */
    private static List<List<String>> renderedRows(TableView<?> table) {
        List<List<String>> out = new ArrayList<>();
        for (Node n : table.lookupAll(".table-row-cell")) {
            IndexedCell<?> row = (IndexedCell<?>) n;
            if (!row.isVisible() || row.isEmpty() || row.getIndex() < 0 || row.getIndex() >= table.getItems().size()) {
                continue;
            }
            List<String> cells = new ArrayList<>();
            cells.add(Integer.toString(row.getIndex()));
            for (Node c : row.lookupAll(".table-cell")) {
                cells.add(((Labeled) c).getText() == null ? "" : ((Labeled) c).getText());
            }
            out.add(cells);
        }
        return out;
    }

    /** RFC 4180 read back: quoted fields, doubled quotes, CRLF rows. */
    private static List<List<String>> parse(String csv) {
        List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < csv.length(); i++) {
            char c = csv.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < csv.length() && csv.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                row.add(field.toString());
                field.setLength(0);
            } else if (c == '\r' && i + 1 < csv.length() && csv.charAt(i + 1) == '\n') {
                row.add(field.toString());
                field.setLength(0);
                rows.add(row);
                row = new ArrayList<>();
                i++;
            } else {
                field.append(c);
            }
        }
        return rows;
    }

    private Path firstContract() throws Exception {
        try (var files = Files.walk(workspace.resolve("tasks"))) {
            return files.filter(p -> p.endsWith("contract.json")).sorted().findFirst().orElseThrow();
        }
    }

    private static void edit(Path contract) throws Exception {
        String text = Files.readString(contract);
        if (text.contains("\"title\"")) {
            Files.writeString(contract, text.replaceFirst("\"title\" : \"", "\"title\" : \"edited · "));
        } else {
            Files.writeString(contract, text.replaceFirst("\\{", "{ \"note\" : \"edited\","));
        }
    }

    private static double sum(TrendChart chart, String series) {
        return java.util.Arrays.stream(chart.values(series)).map(v -> Double.isNaN(v) ? 0 : v).sum();
    }

    private static double newest(TrendChart chart, String series) {
        double[] v = chart.values(series);
        double best = -1;
        for (double d : v) {
            if (!Double.isNaN(d)) {
                best = Math.max(best, d);
            }
        }
        return best;
    }

    private static int lastIndexWhere(TrendChart chart, String series) {
        double[] v = chart.values(series);
        for (int i = v.length - 1; i >= 0; i--) {
            if (!Double.isNaN(v[i]) && v[i] > 0) {
                return i;
            }
        }
        return -1;
    }

    private static Point2D screen(FxRobot robot, TrendChart chart, int i) throws Exception {
        return fx(() -> {
            double[] p = chart.pointAt(i);
            return chart.localToScreen(p[0], p[1]);
        });
    }

    private static void moveTo(FxRobot robot, TrendChart chart, int i) throws Exception {
        fx(() -> {
            scrollIntoView(chart);
            return null;
        });
        WaitForAsyncUtils.waitForFxEvents();
        Point2D p = screen(robot, chart, i);
        robot.moveTo(p.add(0, 3));
        robot.moveTo(p);
        WaitForAsyncUtils.waitForFxEvents();
    }

    /** Scrolls every scroll pane around {@code node} so that it shows (the page scrolls at the default size). */
    private static void scrollIntoView(Node node) {
        for (Node n = node.getParent(); n != null; n = n.getParent()) {
            if (n instanceof javafx.scene.control.ScrollPane sp && sp.getContent() != null) {
                javafx.geometry.Bounds b = sp.getContent().sceneToLocal(node.localToScene(node.getBoundsInLocal()));
                double extra = sp.getContent().getBoundsInLocal().getHeight() - sp.getViewportBounds().getHeight();
                if (extra > 0) {
                    sp.setVvalue(Math.max(0, Math.min(1, b.getMinY() / extra)) * (sp.getVmax() - sp.getVmin()) + sp.getVmin());
                }
                sp.layout();
            }
        }
    }

    /** With -Dkiln.shots: the window as it is now, in both themes, at the default size and at 1600x1000. */
    /** Something to do again after each resize and theme change (the pointer's hover). */
    private interface Again {
        void run() throws Exception;
    }

    private void shoot(FxRobot robot, String name, Again again) throws Exception {
        String dir = System.getProperty("kiln.shots");
        if (dir == null) {
            return;
        }
        Path out = Files.createDirectories(Path.of(dir));
        Theme was = model.themeProperty().get();
        for (int[] size : new int[][] {{1180, 740}, {1600, 1000}}) {
            for (Theme t : Theme.values()) {
                robot.interact(() -> {
                    stage.setX(0); // at the screen's corner, as the pictures of the other pages are taken
                    stage.setY(0);
                    stage.setWidth(size[0]);
                    stage.setHeight(size[1]);
                    model.setTheme(t);
                });
                WaitForAsyncUtils.waitForFxEvents();
                Thread.sleep(300);
                WaitForAsyncUtils.waitForFxEvents();
                again.run();
                fx(() -> {
                    PngSnapshot.write(stage.getScene(), out.resolve(name + "-" + t.key() + "-" + size[0] + "x" + size[1] + ".png"));
                    return null;
                });
            }
        }
        robot.interact(() -> {
            stage.setX(0); // at the screen's corner, as the pictures of the other pages are taken
            stage.setY(0);
            stage.setWidth(1600);
            stage.setHeight(1000);
            model.setTheme(was);
        });
        WaitForAsyncUtils.waitForFxEvents();
    }
}
