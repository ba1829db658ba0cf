package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.FxTest;
import dev.kiln.testkit.ProcessTest;
import dev.kiln.ui.ConsoleSession;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.shell.Theme;
import dev.kiln.ui.fleet.FleetRow;
import dev.kiln.ui.shell.Page;
import dev.kiln.ui.util.FxBackground;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.DialogPane;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * "Connect to daemon…" against a real {@code kiln serve} with TLS (a self-signed keystore): with no pin, the page
 * shows the certificate's fingerprint on first contact; declined, nothing is saved; trusted, the list holds exactly
 * the fingerprint the daemon printed and the daemon is polled over the pinned connection. Connected from the workspace
 * menu, the window attaches to it, and the menu then lists it among the recent daemons.
 */
@ProcessTest @DaemonTest @FxTest
@ExtendWith(ApplicationExtension.class)
class FleetConnectTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private static final Duration PATIENCE = Duration.ofSeconds(90);
    private Process serve;
    private String url;
    private String printedPin;
    private Path listFile;
    private Stage stage;

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        Path dir = Files.createTempDirectory("kiln-fleet-tls");
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "8").exit()).isZero();
        Path pw = Files.writeString(dir.resolve("tls-password"), "a-long-pass\n");
        Path ks = StatusCommandTest.keystore(dir.resolve("kiln.p12"), "a-long-pass");
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        serve = new ProcessBuilder(javaBin.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", // C1: a short-lived daemon
                "-cp", System.getProperty("java.class.path"), "dev.kiln.app.Main",
                "serve", ws.toString(), "--port", "0", "--interval", "500ms", "--tls-keystore", ks.toString(),
                "--tls-password-file", pw.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8));
        for (int i = 0; i < 8 && printedPin == null; i++) {
            String line = out.readLine();
            assertThat(line).as("banner line " + i).isNotNull();
            if (line.contains("https://") && url == null) {
                url = line.substring(line.indexOf("https://")).strip();
            }
            if (line.contains("certificate SHA256 ")) {
                printedPin = line.substring(line.indexOf("SHA256 ") + 7).split("\\s")[0];
            }
        }
        assertThat(url).isNotNull();
        assertThat(printedPin).isNotNull();
        listFile = dir.resolve("config/kiln").resolve(DaemonList.FILE);
        KilnConsole.show(ConsoleSession.of(stage, BACKGROUND, null, listFile), WorkspaceLayout.of(ws), false, Theme.DARK, 1180, 740);
    }

    @AfterEach
    void stop() throws Exception {
        serve.destroy();
        if (!serve.waitFor(60, TimeUnit.SECONDS)) {
            serve.destroyForcibly();
        }
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void connect_tlsWithoutPin_asksToTrustThePresentedFingerprint_declinedSavesNothing_trustedPins(FxRobot robot) throws Exception {
        robot.clickOn("#" + Page.FLEET.navId());

        fillConnectDialog(robot, true);
        DialogPane ask = awaitTrustDialog(robot);
        assertThat(ask.getContentText()).contains("SHA256 " + printedPin);
        robot.clickOn(shown(robot, "Cancel"));
        assertThat(DaemonList.read(listFile).daemons()).as("declined: nothing saved").isEmpty();

        // Trusted, through the workspace menu's "Connect to daemon…": saved, then the window attaches to it.
        robot.clickOn("#workspace-menu");
        robot.clickOn("#menu-connect");
        fillConnectDialog(robot, false);
        awaitTrustDialog(robot);
        robot.clickOn(shown(robot, "Trust and save"));
        Await.await("saved with the pin", PATIENCE, () -> {
            try {
                return DaemonList.read(listFile).find("tls-1").flatMap(DaemonEntry::pin).isPresent();
            } catch (java.io.IOException e) {
                return false;
            }
        });
        assertThat(DaemonList.read(listFile).find("tls-1").orElseThrow().pin()).contains(printedPin);

        // Its pages, over the pinned connection: the window is attached, and the workspace menu lists it as recent.
        Await.await("attached to tls-1", PATIENCE, () -> {
            java.util.concurrent.atomic.AtomicReference<String> title = new java.util.concurrent.atomic.AtomicReference<>();
            robot.interact(() -> title.set(stage.getTitle()));
            return title.get().startsWith("Kiln — tls-1 (");
        });
        robot.clickOn("#workspace-menu");
        java.util.List<String> items = new java.util.ArrayList<>();
        robot.interact(() -> robot.lookup("#workspace-menu").queryAs(javafx.scene.control.MenuButton.class).getItems()
                .forEach(i -> items.add(i.getText())));
        String recent = "tls-1  ·  " + URI.create(url).resolve("/") + "  ·  pinned  (shown)";
        assertThat(items).containsSubsequence("Connect to daemon…", "Recent daemons", recent);
        assertThat(robot.lookup((javafx.scene.Node n) -> n instanceof javafx.scene.control.Label l && recent.equals(l.getText())
                && showing(n)).tryQuery()).as("shown in the open menu").isPresent();
        robot.type(javafx.scene.input.KeyCode.ESCAPE);

        robot.clickOn("#" + Page.FLEET.navId());
        @SuppressWarnings("unchecked")
        TableView<FleetRow> table = robot.lookup("#fleet-table").queryAs(TableView.class);
        Await.await("tls-1 up over the pinned connection", PATIENCE, () -> {
            java.util.concurrent.atomic.AtomicBoolean up = new java.util.concurrent.atomic.AtomicBoolean();
            robot.interact(() -> up.set(table.getItems().stream()
                    .anyMatch(r -> r.name().equals("tls-1") && r.state() == FleetRow.State.UP)));
            return up.get();
        });
    }

    /** Fills the connect dialog for tls-1, opened with the page's button ({@code fromPage}) or already open. */
    private void fillConnectDialog(FxRobot robot, boolean fromPage) throws InterruptedException {
        if (fromPage) {
            robot.clickOn("#fleet-connect");
        }
        Await.await("the connect dialog", PATIENCE, () -> robot.lookup("#fleet-url").queryAll().stream().anyMatch(FleetConnectTest::showing));
        robot.clickOn(robot.lookup("#fleet-name").queryAll().stream().filter(FleetConnectTest::showing).findFirst().orElseThrow()).write("tls-1");
        robot.clickOn(robot.lookup("#fleet-url").queryAll().stream().filter(FleetConnectTest::showing).findFirst().orElseThrow()).write(url);
        robot.clickOn(robot.lookup("#fleet-dialog-ok").queryAll().stream().filter(FleetConnectTest::showing).findFirst().orElseThrow());
    }

    /** The trust question now on screen (an earlier one, closed, may linger in the scene graph). */
    private DialogPane awaitTrustDialog(FxRobot robot) throws InterruptedException {
        Await.await("the trust question", PATIENCE, () -> robot.lookup("#fleet-trust").queryAll().stream().anyMatch(FleetConnectTest::showing));
        return (DialogPane) robot.lookup("#fleet-trust").queryAll().stream().filter(FleetConnectTest::showing).findFirst().orElseThrow();
    }

    private static boolean showing(javafx.scene.Node n) {
        return n.getScene() != null && n.getScene().getWindow() != null && n.getScene().getWindow().isShowing();
    }

    private static javafx.scene.Node shown(FxRobot robot, String buttonText) {
        return robot.lookup((javafx.scene.Node n) -> n instanceof javafx.scene.control.Button b && b.getText().equals(buttonText)
                && showing(n)).query();
    }
}
