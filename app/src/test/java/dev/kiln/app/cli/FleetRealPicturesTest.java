package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.fleet.FleetActions;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.FxTest;
import dev.kiln.testkit.ProcessTest;
import dev.kiln.ui.ConsoleSession;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.fleet.FleetCounts;
import dev.kiln.ui.fleet.FleetRow;
import dev.kiln.ui.fleet.FleetView;
import dev.kiln.ui.fleet.FleetViewModel;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.Page;
import dev.kiln.ui.shell.Theme;
import dev.kiln.ui.util.FxBackground;
import dev.kiln.ui.util.PngSnapshot;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * The Fleet page over real daemons on loopback (in this JVM, each its own port and demo workspace): a healthy one
 * (nothing wrong in its workspace), a degraded one (a seed never warmed), a failing one (a malformed contract) and a
 * URL nothing listens on. The verdict cards count them, each row is coloured by its verdict with its reason; a fleet
 * warm of the failing one fails for real (its index is a closed port) and a fleet probe of it and the gone one draws
 * its heat map (a real server held to 5 ms misses its timeout), and each of its three reasons is seen in all five
 * places ({@link HealthPlaces}); pictures in both themes at the default size and at
 * 1600x1000 ({@code -Dkiln.shots=DIR}, default {@code target/shots}) for a person to look at.
 */
@DaemonTest @ProcessTest @FxTest
@ExtendWith(ApplicationExtension.class)
class FleetRealPicturesTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private static final Duration PATIENCE = Duration.ofSeconds(120);
    private final List<ProjectionDaemon> daemons = new ArrayList<>();
    private Stage stage;
    private WorkspaceLayout local;
    private Path listFile;

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        Path dir = Files.createTempDirectory("kiln-fleet-real");
        List<DaemonEntry> entries = new ArrayList<>();
        String[] names = {"eval-ok", "eval-seed", "tick-broken"};
        for (int i = 0; i < names.length; i++) {
            Path ws = dir.resolve(names[i]);
            assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "8").exit()).isZero();
            if (i == 0) {
                HealthStatusTest.healthyDemo(ws); // no malformed contract, no target: healthy
            } else if (i == 1) {
                dropMalformed(ws); // the never-warmed target stays: degraded (seed stale)
            } else {
                // besides its malformed contract: a target whose index is a closed loopback port (warmed below through
                // the fleet, it fails for real), instead of the demo's (whose index is PyPI), and a real demo server
                // held to a startup timeout no start can meet (probed below through the fleet)
                try (var walk = Files.walk(ws.resolve("targets/demo"))) {
                    for (Path f : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.delete(f);
                    }
                }
                dev.kiln.testkit.ClosedIndexTarget.write(ws);
                HealthPlaces.timeout(ws, "demo-light", 5);
            }
            ProjectionDaemon d = ProjectionDaemon.builder(WorkspaceLayout.of(ws)).port(0).start();
            daemons.add(d);
            entries.add(new DaemonEntry(names[i], d.url(), Optional.of(d.tokenFile()), Optional.empty()));
        }
        for (ProjectionDaemon d : daemons) {
            d.awaitFirstProjection(PATIENCE);
        }
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        entries.add(DaemonEntry.of("gone-1", "http://127.0.0.1:" + closed, "", ""));
        Path list = dir.resolve("config").resolve(DaemonList.FILE);
        DaemonList.update(list, l -> DaemonList.of(entries));
        listFile = list;
        Path localWs = dir.resolve("local");
        assertThat(CliRun.kiln("demo", localWs.toString(), "--contracts", "5").exit()).isZero();
        local = WorkspaceLayout.of(localWs);
    }

    private static void dropMalformed(Path ws) throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper m = new com.fasterxml.jackson.databind.ObjectMapper();
        try (var s = Files.walk(ws.resolve("tasks"))) {
            for (Path f : s.filter(p -> p.getFileName().toString().equals("contract.json")).toList()) {
                try {
                    m.readTree(f.toFile());
                } catch (java.io.IOException e) {
                    Files.delete(f);
                }
            }
        }
    }

    @AfterEach
    void stopDaemons() {
        daemons.forEach(ProjectionDaemon::close);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void fleetPage_realHealthyDegradedFailingAndGone_cardsRowsAndAProbeHeatMap_bothThemesTwoSizes(FxRobot robot) throws Exception {
        MainViewModel[] model = {null};
        List<String> notices = new java.util.concurrent.CopyOnWriteArrayList<>();
        onFx(() -> {
            MainViewModel m = KilnConsole.show(ConsoleSession.of(stage, BACKGROUND, null, listFile), local, false, Theme.LIGHT, 1180, 740);
            m.lastNoticeProperty().addListener(o -> {
                if (m.lastNoticeProperty().get() != null) {
                    notices.add(m.lastNoticeProperty().get().title());
                }
            });
            return model[0] = m;
        });
        onFx(() -> {
            model[0].navigate(Page.FLEET);
            return null;
        });
        FleetViewModel vm = onFx(() -> ((FleetView) stage.getScene().lookup("#page-fleet")).model());
        Await.await("every daemon judged", PATIENCE, () -> onFx(() -> vm.allRows().stream().noneMatch(r -> r.verdict().isEmpty())));
        Map<String, String> verdicts = onFx(() -> {
            Map<String, String> m = new HashMap<>();
            vm.allRows().forEach(r -> m.put(r.name(), r.verdictWord()));
            return m;
        });
        assertThat(verdicts).containsEntry("eval-ok", "healthy").containsEntry("eval-seed", "degraded")
                .containsEntry("tick-broken", "failing").containsEntry("gone-1", "failing");
        // the same state in all five places, for each live daemon: the Fleet page (above), kiln status's exit code, the
        // health answer, /metrics' kiln_health, and the console's Health card attached to it (through its remote engine)
        int[] exits = {0, 1, 2};
        for (int i = 0; i < daemons.size(); i++) {
            ProjectionDaemon d = daemons.get(i);
            String name = List.of("eval-ok", "eval-seed", "tick-broken").get(i);
            String word = verdicts.get(name);
            assertThat(CliRun.kiln("status", d.url().toString()).exit()).as("kiln status of " + name).isEqualTo(exits[i]);
            com.fasterxml.jackson.databind.JsonNode health = new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                    get(d.url().resolve("/api/v1/health")));
            assertThat(health.path("verdict").asText()).as("/api/v1/health of " + name).isEqualTo(word);
            assertThat(get(d.url().resolve("/metrics"))).as("/metrics of " + name)
                    .contains("kiln_health{state=\"" + word + "\"} 1.0");
            try (dev.kiln.core.engine.Engine remote = dev.kiln.core.serve.client.RemoteEngine.connect(d.url(), d.tokenFile(), null,
                    java.time.Clock.systemUTC())) {
                remote.projection().start(false);
                dev.kiln.ui.health.HealthViewModel cards = new dev.kiln.ui.health.HealthViewModel(remote,
                        dev.kiln.ui.util.Background.inline(), dev.kiln.core.alert.AlertRules.defaults());
                cards.refresh();
                assertThat(cards.cardProperty(dev.kiln.ui.health.HealthViewModel.Card.HEALTH).get().state().wireName())
                        .as("the console's Health card attached to " + name).isEqualTo(word);
            }
        }
        // a rule firing on a daemon of the fleet: one notification, however many polls see it, and the window's
        // alert badge (the Alerts panel's rows) names it beside the console's own
        String fired = "Alert KilnContractFailures firing on tick-broken";
        Await.await("the fleet's alert notified", PATIENCE, () -> notices.contains(fired));
        List<Duration> cycles = new java.util.concurrent.CopyOnWriteArrayList<>();
        onFx(() -> {
            vm.lastCycleProperty().addListener((o, x, d) -> cycles.add(d));
            return null;
        });
        Await.await("two more poll cycles", PATIENCE, () -> cycles.size() >= 2);
        assertThat(notices.stream().filter(fired::equals)).as(notices.toString()).hasSize(1);
        assertThat(onFx(() -> ((javafx.scene.control.Button) stage.getScene().lookup("#alert-badge")).getTooltip().getText()))
                .contains("CRITICAL KilnContractFailures on tick-broken");
        FleetCounts c = onFx(() -> vm.countsProperty().get());
        assertThat(List.of(c.healthy(), c.degraded(), c.failing(), c.unreachable())).containsExactly(1, 1, 1, 1);
        assertThat(onFx(() -> ((Label) stage.getScene().lookup("#fleet-failing-state")).getText())).isEqualTo("✖ FAILING");
        assertThat(onFx(() -> ((Label) stage.getScene().lookup("#fleet-failing-reason")).getText())).isEqualTo("tick-broken");
        assertThat(onFx(() -> ((Label) stage.getScene().lookup("#fleet-degraded-state")).getText())).isEqualTo("▲ DEGRADED");
        FleetRow failing = onFx(() -> vm.row("tick-broken").orElseThrow());
        assertThat(failing.healthText(java.time.Instant.now())).startsWith("failing: ").contains("contract");
        assertThat(onFx(() -> vm.rows().get(0).verdictWord())).as("failing first").isEqualTo("failing");
        // the default rules over each daemon's own samples: the broken contract's rule fires on its row, and tints it
        assertThat(failing.alerts()).extracting(a -> a.name()).contains("KilnContractFailures");
        assertThat(failing.tint()).isEqualTo("failing");
        assertThat(onFx(() -> vm.row("eval-seed").orElseThrow().alerts())).extracting(a -> a.name()).contains("KilnSeedStale");
        assertThat(onFx(() -> vm.row("eval-ok").orElseThrow().alerts())).isEmpty();
        onFx(() -> {
            for (javafx.scene.Node n : stage.getScene().getRoot().lookupAll(".table-row-cell")) {
                if (n instanceof javafx.scene.control.TableRow<?> row && row.getItem() instanceof FleetRow r) {
                    List<String> pseudo = row.getPseudoClassStates().stream().map(Object::toString).toList();
                    assertThat(pseudo.contains("verdict-failing")).as("row of " + r.name() + " tinted failing").isEqualTo(r.tint().equals("failing"));
                    assertThat(pseudo.contains("verdict-degraded")).as("row of " + r.name() + " tinted degraded").isEqualTo(r.tint().equals("degraded"));
                }
            }
            return null;
        });

        // a fleet warm of the failing one's stale seeds: its target's index does not answer, so uv fails on its host
        onFx(() -> {
            vm.choose("tick-broken", true);
            assertThat(vm.runAction(FleetActions.Kind.WARM)).isEmpty();
            return null;
        });
        Await.await("the fleet warm ended", Duration.ofMinutes(4), () -> onFx(() -> !vm.actionRunningProperty().get()));
        onFx(() -> {
            vm.chooseNone();
            return null;
        });

        // a fleet probe of the failing one and the gone one (the healthy and the degraded stay as they are for the
        // pictures): the demo's three servers on the one, a row that says why on the other
        onFx(() -> {
            vm.choose("tick-broken", true);
            vm.choose("gone-1", true);
            assertThat(vm.runAction(FleetActions.Kind.PROBE)).isEmpty();
            return null;
        });
        Await.await("the fleet probe ended", Duration.ofMinutes(4), () -> onFx(() -> !vm.actionRunningProperty().get()));
        Map<String, FleetActions.State> ended = onFx(() -> {
            Map<String, FleetActions.State> m = new HashMap<>();
            vm.progress().forEach(p -> m.put(p.name(), p.state()));
            return m;
        });
        assertThat(ended).containsEntry("tick-broken", FleetActions.State.DONE).containsEntry("gone-1", FleetActions.State.FAILED);
        assertThat(onFx(() -> vm.heatServers())).hasSize(3);
        assertThat(onFx(() -> stage.getScene().lookup("#fleet-heat-tick-broken-demo-light"))).as("the heat map's cell")
                .isInstanceOf(Label.class);
        assertThat(onFx(() -> ((Label) stage.getScene().lookup("#fleet-heat-tick-broken-demo-light")).getText()))
                .as("held to 5 ms, the real server missed its timeout").startsWith("✕");

        // each reason provoked here, the broken contract, the failed warm and the server over its timeout, in all five
        // places with the same state
        ProjectionDaemon broken = daemons.get(2);
        try (HealthPlaces.Cards cards = HealthPlaces.Cards.attach(broken.url(), broken.tokenFile())) {
            HealthPlaces.seenEverywhere("tick-broken", broken.url(), () -> onFx(() -> vm.row("tick-broken")), cards,
                    dev.kiln.core.health.HealthState.FAILING, "contract_failures", "seed_failed", "probe_over_timeout");
        }

        Path shots = Files.createDirectories(Path.of(System.getProperty("kiln.shots", "target/shots")));
        for (int[] size : new int[][] {{1180, 740}, {1600, 1000}}) {
            for (Theme t : Theme.values()) {
                onFx(() -> {
                    // at the screen's corner: a 1600x1000 window placed lower overflowed Monocle's 1600x1000 framebuffer
                    stage.setX(0);
                    stage.setY(0);
                    model[0] = KilnConsole.show(ConsoleSession.of(stage, BACKGROUND, null, listFile), local, false, t, size[0], size[1]);
                    model[0].navigate(Page.FLEET);
                    return null;
                });
                Await.await("the page over every daemon", PATIENCE, () -> onFx(() -> stage.getScene().lookup("#fleet-heat-tick-broken-"
                        + vm.heatServers().get(0)) != null && ((FleetView) stage.getScene().lookup("#page-fleet")).model().rows().size() == 4));
                Thread.sleep(500);
                onFx(() -> {
                    stage.getScene().getRoot().applyCss();
                    stage.getScene().getRoot().layout();
                    PngSnapshot.write(stage.getScene(), shots.resolve("fleet-real-" + t.key() + "-" + size[0] + "x" + size[1] + ".png"));
                    return null;
                });
            }
        }
    }

    private static String get(java.net.URI uri) throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        return http.send(java.net.http.HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    }

    private static <T> T onFx(java.util.concurrent.Callable<T> c) {
        java.util.concurrent.FutureTask<T> t = new java.util.concurrent.FutureTask<>(c);
        Platform.runLater(t);
        try {
            return t.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
