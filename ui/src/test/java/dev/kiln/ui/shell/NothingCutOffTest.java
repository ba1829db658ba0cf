package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.startup.BytecodeMode;
import dev.kiln.core.startup.Conversation;
import dev.kiln.core.startup.Outcome;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ProbeRuns;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerResult;
import dev.kiln.core.startup.Timeline;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.util.FxBackground;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.ButtonBase;
import javafx.scene.control.Labeled;
import javafx.scene.control.TableView;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Nothing is cut off: every page of the demo workspace (with a saved probe run on the Startup page), at the default
 * 1180×740 and at 1600×1000, in both themes, has no visible text ending in "…" that has no tooltip with its full text,
 * and no button narrower than its preferred width.
 */
@FxTest
@ExtendWith(ApplicationExtension.class)
class NothingCutOffTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    /**
     * Elements not held to the rule yet, by page and a part of the finding's text, each with why; their pages are checked
     * for everything else. Empty when every page passes.
     */
    static final Map<String, String> KNOWN_EXCLUSIONS = Map.of();

    private Stage stage;
    private MainViewModel model;

    @Start
    void start(Stage stage) throws Exception {
        Path workspace = Files.createTempDirectory("kiln-ui-cutoff");
        new DemoWorkspace().write(workspace, 137, 11, false);
        ProbeRuns.save(WorkspaceLayout.of(workspace), demoRun());
        this.stage = stage;
        this.model = KilnConsole.show(stage, WorkspaceLayout.of(workspace), BACKGROUND, true, Theme.LIGHT, 1180, 740);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void everyPage_bothSizesBothThemes_noTextCutOffAndNoButtonSqueezed(FxRobot robot) throws Exception {
        robot.interact(() -> model.navigate(Page.CONTRACTS));
        @SuppressWarnings("unchecked")
        TableView<Object> table = robot.lookup("#contracts-table").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> !table.getItems().isEmpty());
        robot.interact(() -> table.getSelectionModel().select(6)); // the details pane is part of the page
        List<String> found = new ArrayList<>();
        for (double[] size : new double[][] {{1180, 740}, {1600, 1000}}) {
            robot.interact(() -> {
                stage.setX(0);
                stage.setY(0);
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
            });
            for (Theme theme : Theme.values()) {
                robot.interact(() -> model.setTheme(theme));
                for (Page page : Page.values()) {
                    robot.interact(() -> model.navigate(page));
                    WaitForAsyncUtils.waitForFxEvents();
                    if (page == Page.STARTUP) {
                        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS,
                                () -> robot.lookup("#startup-verdict").queryLabeled().getText().startsWith("Saved run"));
                        WaitForAsyncUtils.waitForFxEvents();
                    }
                    String where = page + " " + theme.key() + " " + (int) size[0] + "x" + (int) size[1];
                    robot.interact(() -> {
                        assertThat(stage.getScene().getWidth()).as(where).isEqualTo(size[0]);
                        // a figure that just changed is laid out before it is judged
                        stage.getScene().getRoot().applyCss();
                        stage.getScene().getRoot().layout();
                        cutOff(stage.getScene().getRoot(), where, found);
                    });
                }
            }
        }
        found.removeIf(f -> KNOWN_EXCLUSIONS.keySet().stream().anyMatch(k -> f.startsWith(k.substring(0, k.indexOf('|')) + " ")
                && f.contains(k.substring(k.indexOf('|') + 1))));
        assertThat(found).as("cut off (text ending in … without a tooltip holding it, or a button under its width)").isEmpty();
    }

    /** Adds every cut-off visible control under {@code node} to {@code found}. */
    static void cutOff(Node node, String where, List<String> found) {
        if (!node.isVisible()) {
            return;
        }
        if (node instanceof Labeled l && l.getText() != null && !l.getText().isBlank()) {
            String full = l.getText().replace("_", ""); // a mnemonic's underscore is not drawn
            for (Node child : l.getChildrenUnmodifiable()) {
                // wrapping turns spaces into line breaks; a cut always loses characters (and adds "…")
                if (child instanceof Text t && t.isVisible() && !squash(full).equals(squash(t.getText().replace("_", "")))
                        && !explained(l, l.getText())) {
                    found.add(where + ": " + describe(l) + " shows \"" + t.getText() + "\" of \"" + l.getText() + "\"");
                }
            }
        }
        if (node instanceof ButtonBase b && b.getWidth() + 0.5 < b.prefWidth(-1) && !explained(b, b.getText())) {
            found.add(where + ": " + describe(b) + " is " + Math.round(b.getWidth()) + " px wide, under its "
                    + Math.round(b.prefWidth(-1)) + " px");
        }
        if (node instanceof Parent p) {
            for (Node child : p.getChildrenUnmodifiable()) {
                cutOff(child, where, found);
            }
        }
    }

    private static String squash(String s) {
        return s.replaceAll("\\s+", "");
    }

    /** A control cut on purpose: it, or the control it is part of, has a tooltip holding its full text. */
    private static boolean explained(Node n, String text) {
        for (Node p = n; p != null; p = p.getParent()) {
            if (p instanceof javafx.scene.control.Control c && c.getTooltip() != null && c.getTooltip().getText() != null
                    && text != null && c.getTooltip().getText().contains(text)) {
                return true;
            }
        }
        return false;
    }

    private static String describe(Node n) {
        StringBuilder path = new StringBuilder(n.getClass().getSimpleName() + (n.getId() == null ? "" : "#" + n.getId()));
        for (Node p = n.getParent(); p != null; p = p.getParent()) {
            if (p.getId() != null) {
                path.append(" in #").append(p.getId());
                break;
            }
        }
        return path.toString();
    }

    /** A saved run of the demo's three servers: one late, with conversations, as `kiln probe` leaves it. */
    static ProbeReport demoRun() {
        Conversation talk = new Conversation(List.of(
                new Conversation.Message(Conversation.Direction.SENT, "initialize", "1", 12.5,
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}", false),
                new Conversation.Message(Conversation.Direction.RECEIVED, null, "1", 380.2,
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\"}}", false)),
                0, "kiln-demo-server: ready\n", 24, false);
        List<ServerResult> results = new ArrayList<>();
        String[] names = {"demo-light", "demo-stdlib", "demo-import-graph"};
        for (int i = 0; i < names.length; i++) {
            double init = 380 + i * 900;
            long timeout = i == 2 ? 1_500 : 30_000;
            boolean late = init > timeout;
            results.add(new ServerResult(names[i], ServerConfig.Transport.STDIO, 1, late ? Outcome.TIMEOUT : Outcome.OK, null,
                    late ? "no answer to initialize within 1.500 s" : "", late ? null : "2025-11-25", late ? null : init,
                    late ? null : init + 20, late ? -1 : 3, timeout, new Timeline(1.0, init - 60, init - 80, late ? null : init + 1,
                            late ? null : init + 21, init + 60), List.of("kiln-demo-server: ready"), null, talk));
        }
        return new ProbeReport(Instant.parse("2026-12-01T20:45:27.566Z"), "", 1, BytecodeMode.AS_IS, results);
    }
}
