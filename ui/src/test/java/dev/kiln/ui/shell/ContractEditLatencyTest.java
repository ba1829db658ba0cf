package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.chart.TrendChart;
import dev.kiln.ui.contracts.ContractRow;
import dev.kiln.ui.util.FxBackground;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
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
 * Issue 16's "a contract edit shows in the chart and the table within a second", on a live-watched workspace in a
 * real (headless) window: the Projection page's charts reflect the edit, and the Contracts table, hidden meanwhile
 * (a hidden page builds no rows), shows the edited row once it is opened. The second is the product's target; this
 * machine is too noisy to assert time, so the test waits up to 10 s and prints the latencies it saw.
 */
@FxTest
@ExtendWith(ApplicationExtension.class)
class ContractEditLatencyTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private Path workspace;
    private MainViewModel model;

    @Start
    void start(Stage stage) throws Exception {
        workspace = Files.createTempDirectory("kiln-ui-edit");
        new DemoWorkspace().write(workspace, 200, 13, false);
        model = KilnConsole.show(stage, WorkspaceLayout.of(workspace), BACKGROUND, true, Theme.DARK, 1280, 800);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void contractEdit_showsInTheProjectionChart_thenInTheContractsTableOnceItShows(FxRobot robot) throws Exception {
        robot.interact(() -> model.navigate(Page.CONTRACTS)); // the table exists from here on; its rows build while it shows
        @SuppressWarnings("unchecked")
        TableView<ContractRow> table = robot.lookup("#contracts-table").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> onFx(() -> table.getItems().size() == 200));
        robot.interact(() -> model.navigate(Page.PROJECTION)); // the charts draw while their page is shown
        Label watch = robot.lookup("#projection-watch").queryAs(Label.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> watch.getText().startsWith("Watch: live on"));
        TrendChart reasons = robot.lookup("#chart-reasons").queryAs(TrendChart.class);
        TrendChart parsed = robot.lookup("#chart-parse").queryAs(TrendChart.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> total(reasons, "startup") >= 1);
        assertThat(total(reasons, "change")).isZero();
        double parsedBefore = total(parsed, "parsed");

        Path contract;
        try (var files = Files.walk(workspace.resolve("tasks"))) {
            contract = files.filter(p -> p.endsWith("contract.json")).sorted().findFirst().orElseThrow();
        }
        String file = workspace.resolve("tasks").relativize(contract).toString();
        String before = Files.readString(contract);
        assertThat(before).containsPattern("\"status\" : \"[a-z]+\"");
        long edited = System.nanoTime();
        Files.writeString(contract, before.replaceFirst("\"status\" : \"[a-z]+\"", "\"status\" : \"edited-live\""));

        double chartMs = await(() -> total(reasons, "change") >= 1 && total(parsed, "parsed") > parsedBefore, edited);
        // hidden meanwhile, the table did not build the edit's rows; shown, it builds them from the newest snapshot
        assertThat(onFx(() -> table.getItems().stream().noneMatch(r -> r.status().equals("edited-live")))).isTrue();
        long opened = System.nanoTime();
        robot.interact(() -> model.navigate(Page.CONTRACTS));
        double tableMs = await(() -> onFx(() -> table.getItems().stream().anyMatch(r -> r.status().equals("edited-live"))), opened);
        System.out.printf("contract edit -> Projection chart %.0f ms; Contracts page opened -> its row %.0f ms (target: within 1000 ms)%n",
                chartMs, tableMs);
        assertThat(onFx(() -> table.getItems().stream().filter(r -> r.status().equals("edited-live")).count() == 1)).isTrue();
        assertThat(table.getItems()).filteredOn(r -> r.status().equals("edited-live")).singleElement()
                .satisfies(r -> assertThat(file).endsWith(r.file().replace('/', java.io.File.separatorChar)));
    }

    /** Millis from {@code since} until {@code done} holds, polled every 5 ms; fails after 10 s. */
    private static double await(BooleanSupplier done, long since) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 10 s");
            }
            Thread.sleep(5);
        }
        return (System.nanoTime() - since) / 1e6;
    }

    private static boolean onFx(java.util.concurrent.Callable<Boolean> check) {
        try {
            return WaitForAsyncUtils.asyncFx(check).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The sum of a named series' points, read on the FX thread. */
    private static double total(TrendChart chart, String series) {
        try {
            return WaitForAsyncUtils.asyncFx(() -> java.util.Arrays.stream(chart.values(series)).map(v -> Double.isNaN(v) ? 0 : v).sum()).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
