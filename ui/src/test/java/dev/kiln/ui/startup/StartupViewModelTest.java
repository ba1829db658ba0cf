package dev.kiln.ui.startup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.testkit.ProcessTest;
import dev.kiln.ui.EngineTestBase;
import dev.kiln.ui.util.Background;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Startup page probing the demo workspace's real (bundled, stdlib-only) Python MCP servers. */
@ProcessTest
abstract class StartupViewModelTest extends EngineTestBase {
    @TempDir
    Path tmp;

    @Test
    void probe_demoServers_lanesFollowTheEventsAndTheVerdictCountsThem() {
        new DemoWorkspace().write(tmp, 10, 1, false);
        dev.kiln.core.engine.Engine engine = engine(tmp);
        List<KilnEvent> seen = recording(engine);
        StartupViewModel vm = new StartupViewModel(engine, Background.inline());

        vm.load();
        assertThat(vm.servers()).extracting(s -> s.name()).containsExactly("demo-light", "demo-stdlib", "demo-import-graph");
        assertThat(vm.lanes()).hasSize(3).allSatisfy(l -> assertThat(l.spawnMs()).isNull());

        vm.timeoutSecondsProperty().set("60");
        vm.probe();
        vm.accept(new ArrayList<>(seen));

        assertThat(vm.errorProperty().get()).isEmpty();
        assertThat(vm.reportProperty().get().failed()).isZero();
        assertThat(vm.verdictProperty().get()).startsWith("3 servers · 3 ok · 0 over timeout");
        assertThat(vm.lanes()).allSatisfy(l -> {
            assertThat(l.outcome()).isEqualTo("ok");
            assertThat(l.spawnMs()).isNotNull();
            assertThat(l.initializedMs()).isGreaterThan(l.spawnMs());
            assertThat(l.toolsMs()).isGreaterThanOrEqualTo(l.initializedMs());
            assertThat(l.tools()).isPositive();
            assertThat(l.timeoutMs()).isEqualTo(60_000);
            assertThat(l.inTime()).isTrue();
        });
        // each server's own conversation, over either engine: the handshake both ways and its stderr banner
        vm.lanes().forEach(l -> {
            vm.selectedServerProperty().set(l.server());
            dev.kiln.core.startup.Conversation c = vm.selectedConversationProperty().get();
            assertThat(c.messages()).as(l.server()).extracting(dev.kiln.core.startup.Conversation.Message::method)
                    .contains("initialize", "notifications/initialized", "tools/list");
            assertThat(c.messages()).as(l.server()).anySatisfy(m -> {
                assertThat(m.direction()).isEqualTo(dev.kiln.core.startup.Conversation.Direction.RECEIVED);
                assertThat(m.json()).contains("\"protocolVersion\"");
            });
            assertThat(c.stderr()).as(l.server()).contains("kiln-demo-server: ready");
        });
        // an unsqueezed run (the console probes without a CPU share) recommends nothing and says how to get one
        assertThat(vm.configLinesProperty().get()).doesNotContain("startup_timeout_sec").contains("kiln probe --recommend");
        assertThat(tmp.resolve("observer/probes")).isDirectoryContaining(p -> p.toString().endsWith(".json"));
    }

    @Test
    void probe_badTimeout_isAClearErrorAndStartsNothing() {
        new DemoWorkspace().write(tmp, 10, 1, false);
        StartupViewModel vm = new StartupViewModel(engine(tmp), Background.inline());
        vm.load();

        vm.timeoutSecondsProperty().set("soon");
        vm.probe();

        assertThat(vm.errorProperty().get()).isEqualTo("Timeout: 'soon' is not a number of seconds");
        assertThat(vm.probingProperty().get()).isFalse();
        assertThat(Files.exists(tmp.resolve("observer/probes"))).isFalse();
    }

    @Test
    void load_malformedServersJson_namesTheFile() throws Exception {
        new DemoWorkspace().write(tmp, 10, 1, false);
        Files.writeString(tmp.resolve("servers.json"), "{\"mcpServers\": {\"x\": {\"args\": 3}}}");
        StartupViewModel vm = new StartupViewModel(engine(tmp), Background.inline());

        vm.load();

        assertThat(vm.errorProperty().get()).contains("servers.json").contains("'x'");
        assertThat(vm.servers()).isEmpty();
    }

    /** The workspace as a test writes its fixtures into it (the files a CLI run would leave). */
    private dev.kiln.core.workspace.WorkspaceLayout layout() {
        return dev.kiln.core.workspace.WorkspaceLayout.of(tmp);
    }

    @Test
    void chartScale_coversTheSlowestStepButNeverPastTheTimeout() {
        List<Lane> lanes = List.of(Lane.waiting("a", 30_000).spawned(5).initialized(400), Lane.waiting("b", 30_000).spawned(6));
        assertThat(TimelineChart.scaleMs(lanes)).isEqualTo(1000);
        List<Lane> slow = List.of(Lane.waiting("a", 2_000).spawned(5).initialized(5_000));
        assertThat(TimelineChart.scaleMs(slow)).isEqualTo(2_100);
        assertThat(TimelineChart.tail(Lane.waiting("a", 30_000).spawned(0).initialized(300))).isEqualTo("300 ms · ×100");
    }

    @Test
    void chartScale_reachesTheEndOfAFailedStart_soItsTimeoutLineShows() {
        List<Lane> lanes = List.of(Lane.waiting("ok", 30_000).spawned(5).initialized(1_000),
                Lane.waiting("late", 1_500).spawned(5).finished("timeout", "no answer to initialize within 1.500 s"));
        assertThat(TimelineChart.scaleMs(lanes)).isEqualTo(1_505 * 1.25);
        assertThat(TimelineChart.scaleMs(List.of(lanes.get(0), lanes.get(1).exited(1_620)))).isEqualTo(1_620 * 1.25);
    }

    @Test
    void fetchWord_savedColdAndSeededLanes_differInWordsNotLengthAlone() throws Exception {
        assertThat(savedNpxLane(dev.kiln.core.startup.FetchPhase.Downloaded.YES).fetchWord()).isEqualTo("fetch");
        assertThat(savedNpxLane(dev.kiln.core.startup.FetchPhase.Downloaded.NO).fetchWord()).isEqualTo("fetch · cached");
        assertThat(savedNpxLane(dev.kiln.core.startup.FetchPhase.Downloaded.UNKNOWN).fetchWord()).isEqualTo("fetch");
    }

    /** An npx server's lane as a saved run gives it back (through the saved run's one reader). */
    private static Lane savedNpxLane(dev.kiln.core.startup.FetchPhase.Downloaded downloaded) {
        dev.kiln.core.startup.ServerResult r = new dev.kiln.core.startup.ServerResult("m",
                dev.kiln.core.startup.ServerConfig.Transport.STDIO, 1, dev.kiln.core.startup.Outcome.OK, null, "",
                "2026-07-28", 1_000.0, 1_020.0, 3, 30_000,
                new dev.kiln.core.startup.Timeline(1.0, 950.0, 940.0, 1_000.0, 1_020.0, 1_040.0),
                List.of(), new dev.kiln.core.startup.FetchPhase(dev.kiln.core.startup.Launcher.NPX, 900.0, downloaded, "e"));
        dev.kiln.core.startup.ProbeReport report = new dev.kiln.core.startup.ProbeReport(
                java.time.Instant.parse("2026-12-01T10:00:00Z"), "", 1, dev.kiln.core.startup.BytecodeMode.AS_IS, List.of(r));
        return Lane.fromSaved(dev.kiln.core.startup.SavedProbeRun.of(report).servers().get(0));
    }

    private static dev.kiln.core.startup.ProbeReport saved(String at, double firstOutMs, double answerMs) {
        dev.kiln.core.startup.ServerResult r = new dev.kiln.core.startup.ServerResult("demo-light",
                dev.kiln.core.startup.ServerConfig.Transport.STDIO, 1, dev.kiln.core.startup.Outcome.OK, null, "",
                "2026-07-28", answerMs, answerMs + 20, 3, 30_000,
                new dev.kiln.core.startup.Timeline(1.0, answerMs, firstOutMs, answerMs, answerMs + 20, answerMs + 40),
                List.of(), new dev.kiln.core.startup.FetchPhase(dev.kiln.core.startup.Launcher.PYTHON, null,
                        dev.kiln.core.startup.FetchPhase.Downloaded.NO, "python does not fetch packages"));
        return new dev.kiln.core.startup.ProbeReport(java.time.Instant.parse(at), "", 1,
                dev.kiln.core.startup.BytecodeMode.AS_IS, List.of(r));
    }

    @Test
    void load_withRunsSavedByTheCli_opensOnTheLatestWithItsPhasesAndNoEmptyState() {
        new DemoWorkspace().write(tmp, 10, 1, false);
        // saved as `kiln probe` saves them, from the command line
        dev.kiln.core.startup.ProbeRuns.save(layout(), saved("2026-01-05T09:00:00Z", 100, 4_000));
        dev.kiln.core.startup.ProbeRuns.save(layout(), saved("2026-01-05T10:00:00Z", 1_500, 1_600));
        StartupViewModel vm = new StartupViewModel(engine(tmp), Background.inline(), java.time.ZoneOffset.UTC);

        vm.load();

        assertThat(vm.shownRunProperty().get()).isEqualTo("probe-20260105T100000.000Z.json");
        assertThat(vm.emptyProperty().get()).isFalse();
        assertThat(vm.lanes()).singleElement().satisfies(l -> {
            assertThat(l.server()).isEqualTo("demo-light");
            assertThat(l.initializedMs()).isEqualTo(1_600);
            assertThat(l.segments()).extracting(s -> s.phase())
                    .containsExactly(dev.kiln.core.startup.Phase.START, dev.kiln.core.startup.Phase.WORK,
                            dev.kiln.core.startup.Phase.TOOLS);
            assertThat(l.segments().get(0).ms()).isEqualTo(1_499);
        });
        assertThat(vm.rows()).singleElement().satisfies(r -> {
            assertThat(r.protocol()).isEqualTo("2026-07-28");
            assertThat(r.why()).contains("before its first output").contains("precompiled bytecode shortens this");
        });
        assertThat(vm.verdictProperty().get()).startsWith("Saved run of Mon 5 Jan 10:00 · 1 servers");
        assertThat(vm.savedRuns()).hasSize(2);
        // saved runs carry people's names, not file ids
        assertThat(vm.savedRuns()).extracting(vm::runName)
                .containsExactly("Mon 5 Jan 10:00 · 1 server · all in time", "Mon 5 Jan 09:00 · 1 server · all in time");
    }

    @Test
    void load_noRunYet_emptyStateAndNoBars() {
        new DemoWorkspace().write(tmp, 10, 1, false);
        StartupViewModel vm = new StartupViewModel(engine(tmp), Background.inline());

        vm.load();

        assertThat(vm.emptyProperty().get()).isTrue();
        assertThat(vm.lanes()).allSatisfy(l -> assertThat(l.segments()).isEmpty());
        assertThat(vm.shownRunProperty().get()).isEmpty();
        assertThat(vm.sweepProperty().get()).isNull();
    }

    @Test
    void compare_twoSavedRuns_deltaPerServer() {
        new DemoWorkspace().write(tmp, 10, 1, false);
        dev.kiln.core.startup.ProbeRuns.save(layout(), saved("2026-01-05T09:00:00Z", 100, 4_000));
        dev.kiln.core.startup.ProbeRuns.save(layout(), saved("2026-01-05T10:00:00Z", 100, 1_000));
        StartupViewModel vm = new StartupViewModel(engine(tmp), Background.inline(), java.time.ZoneOffset.UTC);
        vm.load();
        dev.kiln.core.engine.SavedRun after = vm.savedRuns().get(0); // newest first
        dev.kiln.core.engine.SavedRun before = vm.savedRuns().get(1);

        vm.compare(before, after);

        assertThat(vm.comparison()).singleElement().satisfies(d -> {
            assertThat(d.server()).isEqualTo("demo-light");
            assertThat(d.deltaMs()).isEqualTo(-3_000);
            assertThat(d.text()).isEqualTo("-75 % faster (-3000 ms)");
            assertThat(d.severity()).isEqualTo(StartupViewModel.Severity.FASTER);
        });
        assertThat(vm.comparisonTitleProperty().get()).isEqualTo("A: Mon 5 Jan 09:00 · 1 server · all in time   →   "
                + "B: Mon 5 Jan 10:00 · 1 server · all in time");
        // the other way round it is a regression, coloured and worded by how bad
        vm.compare(after, before);
        assertThat(vm.comparison()).singleElement().satisfies(d -> {
            assertThat(d.text()).isEqualTo("+300 % much slower (+3000 ms)");
            assertThat(d.severity()).isEqualTo(StartupViewModel.Severity.MUCH_SLOWER);
        });
        assertThat(new StartupViewModel.Delta("s", 1000.0, 1120.0).severity()).isEqualTo(StartupViewModel.Severity.SLOWER);
        assertThat(new StartupViewModel.Delta("s", 1000.0, 1050.0).severity()).isEqualTo(StartupViewModel.Severity.SAME);
        vm.compare(before, null);
        assertThat(vm.errorProperty().get()).isEqualTo("Pick two saved runs to compare.");
    }

    @Test
    void load_savedSweep_isTheHeatMapsMatrixWithItsHeatPerCell() {
        new DemoWorkspace().write(tmp, 10, 1, false);
        dev.kiln.core.startup.ProbeReport col = saved("2026-01-05T09:00:00Z", 100, 4_000);
        var cells = List.of(
                new dev.kiln.core.startup.SweepReport.Cell("a", 1.0, dev.kiln.core.startup.SweepReport.Bytecode.BEFORE,
                        4_000.0, "ok", 30_000, 1, 1, ""),
                new dev.kiln.core.startup.SweepReport.Cell("a", 1.0, dev.kiln.core.startup.SweepReport.Bytecode.AFTER,
                        25_000.0, "ok", 30_000, 1, 1, ""),
                new dev.kiln.core.startup.SweepReport.Cell("a", 0.5, dev.kiln.core.startup.SweepReport.Bytecode.BEFORE,
                        null, "timeout", 30_000, 0, 1, ""));
        dev.kiln.core.startup.ProbeRuns.saveSweep(layout(), new dev.kiln.core.startup.SweepReport(
                java.time.Instant.parse("2026-01-05T09:00:00Z"), List.of(1.0, 0.5), true, 1, "cgroup-v1", List.of("a"),
                cells, List.of(new dev.kiln.core.startup.SweepReport.Column(1.0,
                        dev.kiln.core.startup.SweepReport.Bytecode.BEFORE, col)), List.of(), null));
        StartupViewModel vm = new StartupViewModel(engine(tmp), Background.inline());

        vm.load();

        var loaded = vm.sweepProperty().get().cells();
        assertThat(loaded).containsExactlyElementsOf(cells);
        assertThat(SweepHeatMap.columns(loaded)).extracting(SweepHeatMap.Column::label)
                .containsExactly("1 CPU\nbefore", "1 CPU\nafter", "0.5 CPU\nbefore");
        assertThat(loaded).extracting(SweepHeatMap::heat).containsExactly("heat-0", "heat-2", "heat-over");
        assertThat(SweepHeatMap.tooltip(loaded.get(0))).contains("answer after 4000.0 ms").contains("timeout 30.0 s");
    }
}
