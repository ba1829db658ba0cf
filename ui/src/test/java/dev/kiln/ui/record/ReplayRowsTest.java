package dev.kiln.ui.record;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.recording.ReplayEngine;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.telemetry.Ticker;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.ProcessTest;
import dev.kiln.ui.EngineTestBase;
import dev.kiln.ui.contracts.ContractRow;
import dev.kiln.ui.contracts.ContractsViewModel;
import dev.kiln.ui.events.EventRow;
import dev.kiln.ui.events.EventsViewModel;
import dev.kiln.ui.projection.ChartWindow;
import dev.kiln.ui.projection.ProjectionViewModel;
import dev.kiln.ui.startup.StartupViewModel;
import dev.kiln.ui.util.Background;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session recorded with the console's Record button replays, in the Contracts page's model, to the rows the live
 * page showed at each moment, and in the Projection page's model to the same ticks table rows and chart values (the
 * edits' ticks per chart bucket, their parsed and reused counts); the session's real warm (uv) and real probe (the
 * demo's Python MCP servers) replay to the Events page's rows and the Startup page's lanes the live pages showed;
 * against the engine the subclass supplies (local, or attached to a daemon).
 */
@ProcessTest
abstract class ReplayRowsTest extends EngineTestBase {
    @TempDir
    Path tmp;

    /** What a row shows that does not depend on the engine's own history (how it parsed, what it highlighted). */
    static List<String> shown(List<ContractRow> rows) {
        return rows.stream().map(r -> String.join("|", r.file(), r.declaredId(), r.canonicalId(), r.state(), r.status(),
                r.title(), r.deadline(), r.problem())).collect(Collectors.toList());
    }

    /** The edits' ticks (manual) as the ticks table shows them: revision, reason, enumerated, parsed, reused, failed. */
    static List<String> ticks(ProjectionViewModel vm) {
        return vm.history().stream().filter(t -> t.reason() == dev.kiln.core.projection.WakeReason.MANUAL)
                .map(t -> t.revision() + "|" + t.reason() + "|" + t.stats().enumerated() + "|" + t.stats().parsed() + "|"
                        + t.stats().reused() + "|" + t.stats().failed())
                .collect(Collectors.toList());
    }

    /** The charts' values of the edits' ticks at {@code now}: manual ticks per bucket of the last minute. */
    static List<Integer> chart(ProjectionViewModel vm, Instant now) {
        return vm.series().buckets(ChartWindow.ONE_MINUTE, now).stream()
                .map(b -> b.reason(dev.kiln.core.projection.WakeReason.MANUAL)).collect(Collectors.toList());
    }

    /** The Events page's kinds of a warm's and a probe's events (their class names, spelt out). */
    private static final java.util.Set<String> ACTION_KINDS = java.util.Set.of("warm started", "warm output", "warm finished",
            "run started", "spawned", "first output", "initialized", "tools listed", "exited", "finished");

    /** The Events page's rows of the warm and the probe: time (as drawn, to the ms), kind, what, severity, output. */
    static List<String> warmAndProbeRows(EventsViewModel vm) {
        // As a set of rows (sorted), not in the page's order: the page shows events as they arrive, and the probe's
        // servers, their stdout and stderr readers and the warm are threads of their own, whose events reach the live
        // page and the recorder each in the order of their race.
        return vm.rows().stream().filter(r -> ACTION_KINDS.contains(r.kind())).map(ReplayRowsTest::drawn).sorted()
                .collect(Collectors.toList());
    }

    /** One Events row as the table draws it. */
    private static String drawn(EventRow r) {
        return r.at().truncatedTo(java.time.temporal.ChronoUnit.MILLIS) + "|" + r.kind() + "|" + r.summary() + "|"
                + r.severity() + "|" + r.output();
    }

    /** The Startup page's lanes (its timeline chart's data): server, phase offsets, tools, outcome, timeout mark. */
    static List<String> lanes(StartupViewModel vm) {
        return vm.lanes().stream().map(l -> l.server() + "|" + l.spawnMs() + "|" + l.firstOutputMs() + "|" + l.initializedMs()
                + "|" + l.toolsMs() + "|" + l.exitMs() + "|" + l.tools() + "|" + l.outcome() + "|" + l.detail() + "|" + l.timeoutMs())
                .sorted().collect(Collectors.toList());
    }

    @Test
    void replay_ofARecordedSessionWithEdits_showsTheRowsTheLiveConsoleShowed() throws Exception {
        Path ws = tmp.resolve("ws");
        new DemoWorkspace().write(ws, 60, 5, false);
        Engine live = engine(ws);
        ContractsViewModel page = new ContractsViewModel(live, Background.inline());
        // The page's first rows come from a tick of their own, over before the live pages listen and the recording
        // starts, so neither holds it. A daemon publishes that tick after projectNow returns (it changes no revision):
        // CI38's live page had it and its recording, whose recorder connected after the tick's frame, did not.
        List<KilnEvent> firstTick = recording(live);
        page.refresh();
        Await.await("the first refresh's tick", () -> firstTick.stream().anyMatch(e -> e instanceof TickFinished t
                && t.result().reason() == dev.kiln.core.projection.WakeReason.MANUAL));
        RecordViewModel rec = new RecordViewModel(live, Background.inline());
        ProjectionViewModel liveProjection = new ProjectionViewModel(live, Background.inline());
        List<KilnEvent> liveEvents = recording(live);
        List<KilnEvent> liveAll = recording(live); // for the live Events and Startup pages
        Path file = tmp.resolve("session.kilnrec");
        rec.startRecording(file);
        assertThat(rec.problemProperty().get()).isEmpty();
        assertThat(rec.recordingProperty().get()).isTrue();
        Await.await("the state recorded", () -> rec.framesRecorded() >= 1);
        List<Path> contracts;
        try (Stream<Path> s = Files.walk(ws.resolve("tasks"))) {
            contracts = s.filter(p -> p.getFileName().toString().equals("contract.json")).sorted().collect(Collectors.toList());
        }
        List<Instant> moments = new ArrayList<>();
        List<List<String>> seen = new ArrayList<>();
        List<List<String>> liveTicks = new ArrayList<>();
        List<List<Integer>> liveCharts = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int ticksBefore = ticks(liveProjection).size();
            Path f = contracts.get(3 + i * 11);
            Files.writeString(f, Files.readString(f).replaceFirst("\"title\" : \"[^\"]*\"", "\"title\" : \"replayed edit " + i + "\""));
            long before = rec.framesRecorded();
            page.refresh(); // the page's own Project now: a tick on the engine's host
            Await.await("the edit's delta and tick recorded", () -> rec.framesRecorded() >= before + 2);
            Thread.sleep(5); // the moment after the frames' arrival
            moments.add(Instant.now());
            seen.add(shown(page.rows()));
            Await.await("the edit's tick in the live Projection page", () -> {
                pump(liveEvents, liveProjection::accept);
                return ticks(liveProjection).size() >= ticksBefore + 1;
            });
            liveTicks.add(ticks(liveProjection));
            liveCharts.add(chart(liveProjection, moments.get(i)));
        }
        // then a real warm of the demo target (uv) and a real probe of its three servers, both recorded
        long beforeActions = rec.framesRecorded();
        List<KilnEvent> liveActions = recording(live);
        dev.kiln.core.seed.WarmResult warmed = live.seeds().warm("demo", java.util.UUID.randomUUID().toString()).result()
                .get(3, java.util.concurrent.TimeUnit.MINUTES);
        assertThat(warmed.outcome()).isIn(dev.kiln.core.seed.WarmOutcome.WARMED, dev.kiln.core.seed.WarmOutcome.UNCHANGED);
        StartupViewModel liveStartup = new StartupViewModel(live, Background.inline());
        liveStartup.load();
        liveStartup.timeoutSecondsProperty().set("60");
        liveStartup.probe();
        assertThat(liveStartup.errorProperty().get()).isEmpty();
        EventsViewModel liveEventsPage = new EventsViewModel();
        Await.await("the warm's and the probe's events in the live pages", () -> {
            pump(liveAll, batch -> {
                liveEventsPage.accept(batch);
                liveStartup.accept(batch);
            });
            return liveEventsPage.rows().stream().anyMatch(r -> r.kind().startsWith("warm"))
                    && liveStartup.lanes().size() == 3 && liveStartup.lanes().stream().allMatch(l -> !l.outcome().isEmpty());
        });
        long actionFrames = liveActions.stream().filter(e -> e instanceof dev.kiln.core.seed.SeedEvent
                || e instanceof dev.kiln.core.startup.ProbeEvent).count(); // each a frame of its own
        Await.await("the warm's and the probe's frames recorded", () -> rec.framesRecorded() >= beforeActions + actionFrames);
        List<String> liveActionRows = warmAndProbeRows(liveEventsPage);
        List<String> liveLanes = lanes(liveStartup);
        assertThat(liveActionRows).anySatisfy(r -> assertThat(r).contains("|warm started|warm demo "))
                .anySatisfy(r -> assertThat(r).contains("|tools listed|"));
        assertThat(liveLanes).hasSize(3).allSatisfy(l -> assertThat(l).contains("|ok|"));

        rec.stopRecording();
        assertThat(rec.recordingTextProperty().get()).startsWith("Recorded ").contains("session.kilnrec");
        assertThat(seen.get(3).toString()).contains("replayed edit 3");

        try (ReplayEngine replay = ReplayEngine.open(file, Ticker.systemTicker())) {
            List<KilnEvent> events = recording(replay);
            ContractsViewModel replayed = new ContractsViewModel(replay, Background.inline());
            RecordViewModel bar = new RecordViewModel(replay, Background.inline());
            assertThat(bar.replaying()).isTrue();
            assertThat(bar.readOnlyReason()).contains("read-only");
            replay.start(false);
            for (int i = moments.size() - 1; i >= 0; i--) {
                replay.seek(moments.get(i));
                pump(events, batch -> {
                    replayed.accept(batch);
                    bar.accept(batch);
                });
                assertThat(shown(replayed.rows())).as("moment %d", i).isEqualTo(seen.get(i));
            }
            assertThat(bar.positionTextProperty().get()).contains("UTC");
            assertThat(bar.positionProperty().get()).isBetween(0.0, 1.0);
        }

        // played from the start to its end, change by change: the warm's and probe's rows and lanes as the live pages showed
        try (ReplayEngine replay = ReplayEngine.open(file, Ticker.systemTicker())) {
            List<KilnEvent> events = recording(replay);
            EventsViewModel replayedEvents = new EventsViewModel();
            StartupViewModel replayedStartup = new StartupViewModel(replay, Background.inline());
            replay.start(false);
            do {
                pump(events, batch -> {
                    replayedEvents.accept(batch);
                    replayedStartup.accept(batch);
                });
            } while (replay.stepToNextChange());
            pump(events, batch -> {
                replayedEvents.accept(batch);
                replayedStartup.accept(batch);
            });
            assertThat(warmAndProbeRows(replayedEvents)).as("the Events page's warm and probe rows").isEqualTo(liveActionRows);
            assertThat(lanes(replayedStartup)).as("the Startup page's lanes").isEqualTo(liveLanes);
        }

        // played from the start, change by change: the Projection page's ticks table and charts as the live one showed
        try (ReplayEngine replay = ReplayEngine.open(file, Ticker.systemTicker())) {
            List<KilnEvent> events = recording(replay);
            ProjectionViewModel replayed = new ProjectionViewModel(replay, Background.inline());
            replay.start(false);
            pump(events, replayed::accept);
            for (int i = 0; i < moments.size(); i++) {
                int want = liveTicks.get(i).size();
                while (ticks(replayed).size() < want && replay.stepToNextChange()) {
                    pump(events, replayed::accept);
                }
                pump(events, replayed::accept);
                assertThat(ticks(replayed)).as("ticks table at moment %d", i).isEqualTo(liveTicks.get(i));
                assertThat(chart(replayed, moments.get(i))).as("chart values at moment %d", i).isEqualTo(liveCharts.get(i));
                assertThat(liveCharts.get(i).stream().mapToInt(Integer::intValue).sum()).isEqualTo(want);
            }
        }
    }
}
