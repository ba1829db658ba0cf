package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.contracts.ContractRow;
import dev.kiln.ui.util.FxBackground;
import dev.kiln.ui.util.PngSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
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

/** The real window (headless Monocle) on a generated demo workspace. */
@FxTest
@ExtendWith(ApplicationExtension.class)
class MainWindowTest {
    private static final int CONTRACTS = 137;
    private static Path workspace;
    private static dev.kiln.core.demo.DemoSummary summary;
    private static final FxBackground BACKGROUND = new FxBackground();
    private Stage stage;

    @Start
    void start(Stage stage) throws Exception {
        workspace = Files.createTempDirectory("kiln-ui-test");
        summary = new DemoWorkspace().write(workspace, CONTRACTS, 11, false);
        this.stage = stage;
        KilnConsole.show(stage, WorkspaceLayout.of(workspace), BACKGROUND);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void startupPage_probeAll_drawsEveryServersTimeline(FxRobot robot) throws Exception {
        // This checks the drawing, not the timing: the demo's 10 s bound is for an operator's machine, and here the
        // heaviest demo server shares two cores with another test fork.
        Path servers = WorkspaceLayout.of(workspace).serversFile();
        Files.writeString(servers, Files.readString(servers).replace("\"startup_timeout_sec\": 10", "\"startup_timeout_sec\": 60"));
        robot.clickOn("#" + Page.STARTUP.navId());
        robot.clickOn("#startup-probe");
        @SuppressWarnings("unchecked")
        TableView<dev.kiln.ui.startup.StartupViewModel.Row> results = robot.lookup("#startup-results").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(120, TimeUnit.SECONDS, () -> results.getItems().size() == 3);

        assertThat(results.getItems()).allSatisfy(s -> assertThat(s.outcome()).isEqualTo("ok"));
        assertThat(robot.lookup("#startup-verdict").queryAs(Label.class).getText()).startsWith("3 servers · 3 ok");
        WaitForAsyncUtils.waitForFxEvents();
        // Each lane's bar is its phases: one "before first output" segment per server that answered in time.
        assertThat(robot.lookup("#startup-chart .timeline-seg-start").queryAll()).hasSize(3);
        assertThat(robot.lookup("#startup-chart .timeline-bar-bad").queryAll()).isEmpty();
        // A picture of the page for reviews (target/ is the build's scratch space).
        robot.interact(() -> {
            try {
                PngSnapshot.write(stage.getScene(), Path.of("target/startup-probe.png"));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @Test
    void projectionPage_watchesLive_andAContractEditTicksForChange(FxRobot robot) throws Exception {
        robot.clickOn("#" + Page.PROJECTION.navId());
        Label watch = robot.lookup("#projection-watch").queryAs(Label.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> watch.getText().startsWith("Watch: live on"));
        @SuppressWarnings("unchecked")
        TableView<dev.kiln.core.projection.TickResult> ticks = robot.lookup("#projection-ticks").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> !ticks.getItems().isEmpty());
        long before = ticks.getItems().get(0).revision();

        Path contract;
        try (var files = Files.walk(workspace.resolve("tasks"))) {
            contract = files.filter(p -> p.endsWith("contract.json")).findFirst().orElseThrow();
        }
        String json = Files.readString(contract);
        Files.writeString(contract, json.replaceFirst("\"status\" : \"[a-z]+\"", "\"status\" : \"edited-by-test\""));

        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> ticks.getItems().stream()
                .anyMatch(t -> t.reason() == dev.kiln.core.projection.WakeReason.CHANGE && t.revision() > before));
        assertThat(Files.readString(workspace.resolve("observer/state.json"))).contains("edited-by-test");
    }

    @Test
    void contractsPage_healShowsItsPreviewBeforeWriting_cancelWritesNothing(FxRobot robot) throws Exception {
        robot.clickOn("#" + Page.CONTRACTS.navId());
        Path legacy = workspace.resolve(summary.legacyIds().get(0));
        byte[] before = Files.readAllBytes(legacy);

        robot.clickOn("#contracts-heal");
        Node preview = robot.lookup("#heal-preview").query();
        Label healSummary = robot.lookup("#heal-summary").queryAs(Label.class);
        WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> preview.isVisible() && !healSummary.getText().isEmpty());
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(robot.lookup("#heal-summary").queryAs(Label.class).getText())
                .startsWith("Heal will rewrite " + summary.legacyIds().size() + " leaf id");
        // every planned rewrite, plus the malformed contract that cannot be healed
        assertThat(robot.lookup("#heal-changes").<String>queryListView().getItems()).hasSize(summary.legacyIds().size() + 1)
                .anyMatch(line -> line.contains("cannot heal") && line.contains("not valid JSON"));
        assertThat(Files.readAllBytes(legacy)).isEqualTo(before);
        robot.interact(() -> {
            try {
                PngSnapshot.write(stage.getScene(), Path.of("target/heal-preview.png"));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });

        robot.clickOn("Cancel");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(preview.isVisible()).isFalse();
        assertThat(Files.readAllBytes(legacy)).isEqualTo(before);
    }

    @Test
    void window_titleAndStatusBarNameTheWorkspace(FxRobot robot) {
        assertThat(stage.getTitle()).isEqualTo("Kiln — " + workspace.toAbsolutePath().normalize());
        assertThat(robot.lookup("#status-workspace").queryAs(Label.class).getText())
                .isEqualTo(workspace.toAbsolutePath().normalize().toString());
    }

    @Test
    void sidebar_everyEntryShowsItsPage_contractsListsTheGeneratedCount(FxRobot robot) throws Exception {
        for (Page page : Page.values()) {
            robot.clickOn("#" + page.navId());
            WaitForAsyncUtils.waitForFxEvents();
            String pageId = "#page-" + page.name().toLowerCase(java.util.Locale.ROOT);
            Node shown = robot.lookup(pageId).query();
            assertThat(shown).as(page.title()).isNotNull();
            assertThat(shown.isVisible()).isTrue();
            assertThat(robot.lookup(pageId).queryAll()).hasSize(1); // only the current page is in the scene
        }

        robot.clickOn("#" + Page.CONTRACTS.navId());
        @SuppressWarnings("unchecked")
        TableView<ContractRow> table = robot.lookup("#contracts-table").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> table.getItems().size() == CONTRACTS);
        assertThat(table.getItems()).hasSize(CONTRACTS);
        assertThat(robot.lookup("#contracts-summary").queryAs(Label.class).getText()).startsWith(CONTRACTS + " contract files");
        // The status line shows the newest of the projection's summary and a notice: the demo's planted failure fires
        // KilnContractFailures, whose notice can come after the summary (a fresh-clone CI run saw it so).
        assertThat(robot.lookup("#status-text").queryAs(Label.class).getText()).satisfiesAnyOf(
                s -> assertThat(s).startsWith(CONTRACTS + " contract files"),
                s -> assertThat(s).startsWith("Alert KilnContractFailures firing"));
    }
}
