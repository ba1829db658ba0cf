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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javafx.application.Platform;
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
 * The Fleet page over three real {@code kiln serve} child processes on loopback, listed in a daemon list: it shows
 * all three live; killing one marks it down; starting it again on its port brings it back by itself. And
 * {@code kiln status --all} over the same list.
 */
@ProcessTest @DaemonTest @FxTest
@ExtendWith(ApplicationExtension.class)
class FleetPageTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private static final Duration PATIENCE = Duration.ofSeconds(90);
    private final List<Process> processes = new ArrayList<>();
    private final List<Path> workspaces = new ArrayList<>();
    private final List<URI> urls = new ArrayList<>();
    private Path config;
    private Path listFile;

    @Start
    void start(Stage stage) throws Exception {
        Path dir = Files.createTempDirectory("kiln-fleet-it");
        config = dir.resolve("config");
        listFile = config.resolve("kiln").resolve(DaemonList.FILE);
        for (int i = 0; i < 3; i++) {
            Path ws = dir.resolve("ws-" + i);
            assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", String.valueOf(10 + i)).exit()).isZero();
            workspaces.add(ws);
            urls.add(serve(ws, 0));
        }
        DaemonList.update(listFile, l -> l.with(DaemonEntry.of("eval-1", urls.get(0).toString(), "", ""))
                .with(DaemonEntry.of("eval-2", urls.get(1).toString(), "", ""))
                .with(DaemonEntry.of("tick-1", urls.get(2).toString(), "", "")));
        Path local = dir.resolve("local");
        assertThat(CliRun.kiln("demo", local.toString(), "--contracts", "5").exit()).isZero();
        KilnConsole.show(ConsoleSession.of(stage, BACKGROUND, null, listFile), WorkspaceLayout.of(local), false, Theme.DARK, 1180, 740);
    }

    /** Starts {@code kiln serve ws} on {@code port} (0: any) and returns the URL its banner prints. */
    private URI serve(Path ws, int port) throws Exception {
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        // C1 only, as ServeHandOverTest's children: short-lived daemons, whose C2 compiles competed with the page for the CPU
        Process p = new ProcessBuilder(javaBin.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
                "-cp", System.getProperty("java.class.path"), "dev.kiln.app.Main",
                "serve", ws.toString(), "--port", String.valueOf(port), "--interval", "500ms")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        processes.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String first = out.readLine();
        assertThat(first).as("kiln serve's banner").isNotNull().contains("http://127.0.0.1:");
        Thread drain = new Thread(() -> {
            try {
                out.transferTo(java.io.Writer.nullWriter());
            } catch (java.io.IOException e) {
                // the process ended
            }
        });
        drain.setDaemon(true);
        drain.start();
        return URI.create(first.substring(first.indexOf("http://")).strip());
    }

    @AfterEach
    void stopDaemons() throws Exception {
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void fleetPage_showsEveryDaemon_marksAKilledOneDown_andBringsItBackWhenItRestarts(FxRobot robot) throws Exception {
        robot.clickOn("#" + Page.FLEET.navId());
        @SuppressWarnings("unchecked")
        TableView<FleetRow> table = robot.lookup("#fleet-table").queryAs(TableView.class);
        Await.await("three daemons up", PATIENCE, () -> states(table).equals(Map.of(
                "eval-1", FleetRow.State.UP, "eval-2", FleetRow.State.UP, "tick-1", FleetRow.State.UP)));
        FleetRow eval2 = row(table, "eval-2");
        assertThat(eval2.revisionText()).startsWith("r");
        com.fasterxml.jackson.databind.JsonNode state = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(workspaces.get(1).resolve("observer/state.json").toFile()); // the daemon's own document
        int failures = state.path("failures").size();
        assertThat(eval2.contractsText()).isEqualTo(state.path("leaves").size()
                + (failures == 0 ? "" : " · " + failures + " failed"));
        assertThat(eval2.seedsText()).isEqualTo("1 of 1 stale");
        assertThat(eval2.probeText()).isEqualTo("never probed");
        assertThat(eval2.watchText()).isEqualTo("live");

        // kiln status --all over the same list, in a process of its own (the list is found through XDG_CONFIG_HOME)
        Result all = kilnChild("status", "--all");
        // the demo workspaces carry a malformed contract: every daemon answers, and is judged failing (#29)
        assertThat(all.exit()).as(all.err()).isEqualTo(2);
        assertThat(all.out()).contains("eval-1").contains("eval-2").contains("tick-1").contains("failing")
                .doesNotContain("unreachable");

        Process second = processes.get(1);
        second.destroy();
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
        Await.await("eval-2 down", PATIENCE, () -> states(table).get("eval-2") == FleetRow.State.DOWN);
        FleetRow down = row(table, "eval-2");
        assertThat(down.reachText(java.time.Instant.now())).startsWith("down since");
        assertThat(down.error()).contains("nothing listens");
        assertThat(table.getItems().get(0).name()).as("down goes first").isEqualTo("eval-2");
        assertThat(states(table).get("eval-1")).isEqualTo(FleetRow.State.UP);
        Result oneDown = kilnChild("status", "--all");
        assertThat(oneDown.exit()).isEqualTo(2);
        assertThat(oneDown.out()).contains("unreachable");

        // the same daemon again, on its port: the page finds it by itself
        AtomicReference<URI> again = new AtomicReference<>();
        Await.await("kiln serve restarted on " + urls.get(1).getPort(), PATIENCE, () -> {
            try {
                again.set(serve(workspaces.get(1), urls.get(1).getPort()));
                return true;
            } catch (Exception | AssertionError e) {
                return false; // the port may still be held for a moment
            }
        });
        assertThat(again.get()).isEqualTo(urls.get(1));
        Await.await("eval-2 back up", PATIENCE, () -> states(table).get("eval-2") == FleetRow.State.UP);
        assertThat(row(table, "eval-2").downSince()).isEmpty();
    }

    private static Map<String, FleetRow.State> states(TableView<FleetRow> table) {
        return onFx(() -> {
            Map<String, FleetRow.State> m = new java.util.HashMap<>();
            table.getItems().forEach(r -> m.put(r.name(), r.state()));
            return m;
        });
    }

    private static FleetRow row(TableView<FleetRow> table, String name) {
        return onFx(() -> table.getItems().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow());
    }

    private static <T> T onFx(java.util.concurrent.Callable<T> c) {
        java.util.concurrent.FutureTask<T> t = new java.util.concurrent.FutureTask<>(c);
        Platform.runLater(t);
        try {
            return t.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private record Result(int exit, String out, String err) {
    }

    private Result kilnChild(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "-cp", System.getProperty("java.class.path"),
                "dev.kiln.app.Main"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("XDG_CONFIG_HOME", config.toString());
        Path err = Files.createTempFile("kiln-fleet-err", ".txt");
        Process p = pb.redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), out, Files.readString(err));
    }
}
