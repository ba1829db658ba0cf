package dev.kiln.ui.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.health.HealthReason;
import dev.kiln.core.health.HealthRules;
import dev.kiln.core.health.HealthState;
import dev.kiln.core.health.HealthVerdict;
import dev.kiln.core.health.DaemonHealth;
import dev.kiln.testkit.MutableClock;
import dev.kiln.ui.util.Background;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Fleet page's model without a window: polls run inline, the timer is a list of due tasks on a mutable clock,
 * and the daemons are scripted answers (the real daemons are in the app module's FleetPageIT).
 */
class FleetViewModelTest {
    private static final Instant T0 = Instant.parse("2026-12-01T12:00:00Z");
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    @TempDir
    Path dir;
    private final MutableClock clock = new MutableClock(T0);
    private final Timer timer = new Timer();
    /** Per daemon name: its next answer (a health, or an exception to throw). */
    private final Map<String, Object> answers = new HashMap<>();
    private final Map<String, Integer> asked = new HashMap<>();
    private final List<DaemonEntry> opened = new ArrayList<>();
    private Path file;

    @BeforeEach
    void list() throws IOException {
        file = dir.resolve("daemons.json");
        DaemonList.update(file, l -> l.with(DaemonEntry.of("eval-1", "http://127.0.0.1:7101", "", ""))
                .with(DaemonEntry.of("eval-2", "http://127.0.0.1:7102", "", ""))
                .with(DaemonEntry.of("tick-1", "http://127.0.0.1:7103", "", "")));
    }

    private FleetViewModel model(Path listFile) {
        FleetViewModel.HealthSource source = d -> () -> {
            asked.merge(d.name(), 1, Integer::sum);
            Object a = answers.get(d.name());
            if (a instanceof Exception e) {
                throw e;
            }
            if (a == null) {
                throw new IOException("no answer scripted for " + d.name());
            }
            return (DaemonHealth) a;
        };
        return new FleetViewModel(listFile, Background.inline(), timer, source, clock, opened::add);
    }

    private static DaemonHealth healthy(long revision, Duration age) {
        return new DaemonHealth(URI.create("http://x/"), 1, revision, revision, Optional.of(T0), Optional.of(age), "",
                Duration.ofSeconds(30), true, "", 500, 0, Optional.empty(), Optional.of(new DaemonHealth.Seeds(3, 1)),
                Optional.of(new DaemonHealth.Probe(T0, 3, Optional.of("demo-graph"), Optional.of(Duration.ofMillis(2200)),
                        Optional.of(Duration.ofSeconds(10)), 0, 0)));
    }

    private static DaemonHealth watchDegraded(long revision) {
        return new DaemonHealth(URI.create("http://x/"), 1, revision, revision, Optional.of(T0), Optional.of(Duration.ZERO), "",
                Duration.ofSeconds(30), false, "inotify limit reached", 40, 2, Optional.empty(), Optional.empty(), Optional.empty());
    }

    private static final Exception REFUSED = new IOException("the daemon at http://127.0.0.1:7102/ did not answer GET"
            + " /api/v1/version: nothing listens there", new ConnectException("Connection refused"));

    @Test
    void load_showsEveryDaemon_problemsFirst_withItsFigures() {
        answers.put("eval-1", healthy(42, Duration.ofMillis(1500)));
        answers.put("eval-2", REFUSED);
        answers.put("tick-1", watchDegraded(7));
        FleetViewModel vm = model(file);
        vm.load();

        assertThat(vm.rows()).extracting(FleetRow::name).containsExactly("eval-2", "tick-1", "eval-1");
        FleetRow up = vm.row("eval-1").orElseThrow();
        assertThat(up.state()).isEqualTo(FleetRow.State.UP);
        assertThat(up.reachText(clock.instant())).isEqualTo("up");
        assertThat(up.revisionText()).isEqualTo("r42");
        assertThat(up.projectedText(clock.instant())).isEqualTo("1.5 s ago");
        assertThat(up.watchText()).isEqualTo("live");
        assertThat(up.contractsText()).isEqualTo("500");
        assertThat(up.seedsText()).isEqualTo("1 of 3 stale");
        assertThat(up.probeText()).isEqualTo("demo-graph 2.2 s of 10 s");

        FleetRow degraded = vm.row("tick-1").orElseThrow();
        assertThat(degraded.state()).isEqualTo(FleetRow.State.DEGRADED);
        assertThat(degraded.reachText(clock.instant())).isEqualTo("degraded: watch degraded: inotify limit reached");
        assertThat(degraded.watchText()).isEqualTo("degraded: inotify limit reached");
        assertThat(degraded.contractsText()).isEqualTo("40 · 2 failed");
        assertThat(degraded.seedsText()).as("an older daemon says nothing of seeds").isEqualTo("–");

        FleetRow down = vm.row("eval-2").orElseThrow();
        assertThat(down.reachText(clock.instant())).isEqualTo("down since " + CLOCK.format(T0) + " · retry in 1 s");
        assertThat(down.downForText(clock.instant().plusSeconds(150))).isEqualTo("down for 2 min");
        assertThat(down.error()).contains("nothing listens there");
        assertThat(down.revisionText()).isEqualTo("–");
    }

    @Test
    void counts_byVerdict_ofTheWholeFleetWhateverTheFilter_namingEachGroup() {
        answers.put("eval-1", judged(healthy(1, Duration.ZERO), HealthState.HEALTHY));
        answers.put("eval-2", REFUSED);
        answers.put("tick-1", judged(healthy(1, Duration.ZERO), HealthState.FAILING, "contract_failures 2 contracts failed"));
        FleetViewModel vm = model(file);
        vm.load();
        vm.filter("eval");
        FleetCounts c = vm.countsProperty().get();
        assertThat(List.of(c.healthy(), c.degraded(), c.failing(), c.unreachable(), c.unknown())).containsExactly(1, 0, 1, 1, 0);
        assertThat(c.failingCard().state()).isEqualTo(HealthState.FAILING);
        assertThat(c.failingCard().reason()).isEqualTo("tick-1");
        assertThat(c.failingCard().detail()).isEqualTo("tick-1: contract_failures 2 contracts failed");
        assertThat(c.unreachableCard().state()).isEqualTo(HealthState.FAILING);
        assertThat(c.unreachableCard().reason()).isEqualTo("eval-2");
        assertThat(c.unreachableCard().detail()).startsWith("eval-2: ").contains("nothing listens there");
        assertThat(c.degradedCard().state()).as("no daemon degraded: the card is not coloured").isEqualTo(HealthState.HEALTHY);
        assertThat(c.degradedCard().reason()).isEmpty();
        assertThat(c.healthyCard().reason()).isEqualTo("1 of 3");

        answers.put("tick-1", judged(healthy(1, Duration.ZERO), HealthState.DEGRADED, "seed_stale 1 seed stale"));
        advance(FleetViewModel.POLL);
        c = vm.countsProperty().get();
        assertThat(List.of(c.healthy(), c.degraded(), c.failing())).containsExactly(1, 1, 0);
        assertThat(c.degradedCard().state()).isEqualTo(HealthState.DEGRADED);
        assertThat(c.degradedCard().reason()).isEqualTo("tick-1");
    }

    @Test
    void alertRules_overEachDaemonsSamples_fireOnItsRow_andRaiseItsTint() {
        // judged healthy by its daemon, yet one of its three seeds is stale: KilnSeedStale (a warning) fires on it
        answers.put("eval-1", judged(healthy(1, Duration.ZERO), HealthState.HEALTHY));
        answers.put("eval-2", REFUSED);
        answers.put("tick-1", judged(watchDegraded(3), HealthState.FAILING, "contract_failures 2 contracts failed"));
        FleetViewModel vm = model(file);
        vm.load();
        FleetRow ok = vm.row("eval-1").orElseThrow();
        assertThat(ok.verdictWord()).isEqualTo("healthy");
        assertThat(ok.alerts()).extracting(r -> r.name()).containsExactly("KilnSeedStale");
        assertThat(ok.tint()).as("a firing warning tints a healthy row degraded").isEqualTo("degraded");
        assertThat(ok.alertsText()).isEqualTo("alerts firing: WARNING KilnSeedStale");
        FleetRow broken = vm.row("tick-1").orElseThrow();
        assertThat(broken.alerts()).extracting(r -> r.name()).contains("KilnContractFailures");
        assertThat(broken.tint()).isEqualTo("failing");
        assertThat(vm.row("eval-2").orElseThrow().alerts()).as("no answer, no samples").isEmpty();
        assertThat(vm.row("eval-2").orElseThrow().tint()).isEqualTo("failing");
    }

    private static DaemonHealth seedsCurrent(long revision) {
        DaemonHealth h = healthy(revision, Duration.ZERO);
        return new DaemonHealth(h.url(), 1, revision, revision, h.lastProjectionAt(), h.lastProjectionAge(), "", h.heartbeat(),
                true, "", 500, 0, Optional.empty(), Optional.of(new DaemonHealth.Seeds(3, 0)), h.lastProbe());
    }

    @Test
    void aRuleFiringOnADaemon_notifiesOnce_isListedSinceWhen_tintsItsRow_andClearsWhenItStops() {
        answers.put("eval-1", judged(healthy(1, Duration.ZERO), HealthState.HEALTHY)); // 1 of 3 seeds stale
        answers.put("eval-2", REFUSED);
        answers.put("tick-1", judged(seedsCurrent(1), HealthState.HEALTHY));
        FleetViewModel vm = model(file);
        List<List<FleetViewModel.Fired>> fired = new ArrayList<>();
        vm.setFiredListener(fired::add);
        vm.load();

        assertThat(fired).as("one cycle, one report").hasSize(1);
        assertThat(fired.get(0)).singleElement().satisfies(f -> {
            assertThat(f.daemon()).isEqualTo("eval-1");
            assertThat(f.fired().alert().rule().name()).isEqualTo("KilnSeedStale");
        });
        assertThat(vm.alertsProperty().get()).containsOnlyKeys("eval-1");
        dev.kiln.core.alert.Alert a = vm.alertsProperty().get().get("eval-1").get(0);
        assertThat(a.firing()).isTrue();
        assertThat(a.since()).as("since when: the answer that made it fire").isEqualTo(T0);
        assertThat(vm.row("eval-1").orElseThrow().tint()).isEqualTo("degraded");
        assertThat(vm.row("tick-1").orElseThrow().tint()).isEmpty();

        for (int i = 0; i < 3; i++) {
            advance(FleetViewModel.POLL); // asked again while it fires
        }
        assertThat(fired).as("notified once, not every poll").hasSize(1);
        assertThat(vm.alertsProperty().get().get("eval-1").get(0).since()).isEqualTo(T0);

        answers.put("eval-1", judged(seedsCurrent(2), HealthState.HEALTHY)); // warmed: nothing stale
        advance(FleetViewModel.POLL);
        assertThat(vm.alertsProperty().get()).as("cleared when it stops").isEmpty();
        assertThat(vm.row("eval-1").orElseThrow().tint()).isEmpty();
        assertThat(vm.rows()).filteredOn(r -> r.name().equals("eval-1")).singleElement()
                .satisfies(r -> assertThat(r.alerts()).isEmpty());
        assertThat(fired).hasSize(1);

        answers.put("eval-1", judged(healthy(3, Duration.ZERO), HealthState.HEALTHY));
        advance(FleetViewModel.POLL);
        assertThat(fired).as("a new firing is news again").hasSize(2);
        vm.remove("eval-1");
        assertThat(vm.alertsProperty().get()).as("a removed daemon's alerts go with it").isEmpty();
    }

    @Test
    void anAnswerThatShowsNothingNew_leavesTheShownRowAlone() {
        answers.put("eval-1", healthy(42, Duration.ofSeconds(3)));
        answers.put("eval-2", healthy(7, Duration.ofSeconds(1)));
        answers.put("tick-1", healthy(9, Duration.ofSeconds(1)));
        FleetViewModel vm = model(file);
        vm.load();
        List<FleetRow> before = List.copyOf(vm.rows());
        List<String> changes = new ArrayList<>();
        vm.rows().addListener((javafx.collections.ListChangeListener<FleetRow>) ch -> changes.add(ch.toString()));
        // two seconds on, each daemon's projection two seconds older: the same texts, so the same rows
        answers.put("eval-1", healthy(42, Duration.ofSeconds(5)));
        answers.put("eval-2", healthy(7, Duration.ofSeconds(3)));
        answers.put("tick-1", healthy(9, Duration.ofSeconds(3)));
        advance(FleetViewModel.POLL);
        assertThat(changes).as("nothing on screen changed: the table's list is not touched").isEmpty();
        assertThat(vm.rows()).usingElementComparator((x, y) -> x == y ? 0 : 1).containsExactlyElementsOf(before);
        assertThat(vm.row("eval-1").orElseThrow().health().orElseThrow().lastProjectionAge()).as("the model has the answer")
                .contains(Duration.ofSeconds(5));

        answers.put("eval-1", healthy(42, Duration.ofSeconds(7)));
        answers.put("eval-2", healthy(7, Duration.ofSeconds(5)));
        answers.put("tick-1", healthy(10, Duration.ZERO)); // a new revision: its row, only, is replaced
        advance(FleetViewModel.POLL);
        assertThat(changes).hasSize(1);
        assertThat(vm.rows()).filteredOn(r -> r.name().equals("tick-1")).singleElement()
                .satisfies(r -> assertThat(r.revisionText()).isEqualTo("r10"));
        assertThat(vm.rows()).filteredOn(r -> r.name().equals("eval-1")).singleElement().isSameAs(before.stream()
                .filter(r -> r.name().equals("eval-1")).findFirst().orElseThrow());
    }

    /**
     * A table rebuilds every visible row on a replacement of its list, and refills only what changed on an update:
     * a daemon whose answer shows something new reaches the list as an update of its own index, and one whose verdict
     * moves it is removed and added alone; the unchanged rows keep their objects through both.
     */
    @Test
    void aChangedDaemon_isUpdatedInPlace_orMovedAlone_theUnchangedRowsKeepTheirObjects_nothingIsReplaced() {
        answers.put("eval-1", healthy(42, Duration.ofSeconds(3)));
        answers.put("eval-2", healthy(7, Duration.ofSeconds(1)));
        answers.put("tick-1", healthy(9, Duration.ofSeconds(1)));
        FleetViewModel vm = model(file);
        vm.load();
        assertThat(vm.rows()).extracting(FleetRow::name).containsExactly("eval-1", "eval-2", "tick-1"); // all healthy: by name
        List<FleetRow> before = List.copyOf(vm.rows());
        List<String> changes = new ArrayList<>();
        vm.rows().addListener((javafx.collections.ListChangeListener<FleetRow>) ch -> {
            List<String> parts = new ArrayList<>();
            while (ch.next()) {
                parts.add((ch.wasReplaced() ? "replaced " : ch.wasUpdated() ? "updated " : ch.wasPermutated() ? "permuted "
                        : ch.wasAdded() ? "added " : "removed ") + ch.getFrom() + ".." + ch.getTo()
                        + (ch.wasRemoved() ? " -" + ch.getRemoved().stream().map(FleetRow::name).toList() : "")
                        + (ch.wasAdded() && !ch.wasUpdated() ? " +" + ch.getAddedSubList().stream().map(FleetRow::name).toList() : ""));
            }
            changes.add(String.join(", ", parts));
        });

        // tick-1 has a new revision, the others only aged with the clock
        answers.put("eval-1", healthy(42, Duration.ofSeconds(5)));
        answers.put("eval-2", healthy(7, Duration.ofSeconds(3)));
        answers.put("tick-1", healthy(10, Duration.ZERO));
        advance(FleetViewModel.POLL);
        assertThat(changes).containsExactly("updated 2..3");
        assertThat(vm.rows().get(0)).isSameAs(before.get(0));
        assertThat(vm.rows().get(1)).isSameAs(before.get(1));
        assertThat(vm.rows().get(2)).isNotSameAs(before.get(2)).satisfies(r -> assertThat(r.revisionText()).isEqualTo("r10"));

        // tick-1 fails: failing first, so it moves to the top alone; eval-1 and eval-2 keep their objects
        changes.clear();
        FleetRow movedFrom = vm.rows().get(2);
        answers.put("eval-1", healthy(42, Duration.ofSeconds(7)));
        answers.put("eval-2", healthy(7, Duration.ofSeconds(5)));
        answers.put("tick-1", judged(healthy(11, Duration.ZERO), HealthState.FAILING, "contract_failures 1 contract failed"));
        advance(FleetViewModel.POLL);
        assertThat(vm.rows()).extracting(FleetRow::name).containsExactly("tick-1", "eval-1", "eval-2");
        assertThat(changes).singleElement().asString().doesNotContain("replaced").doesNotContain("updated")
                .containsPattern("removed \\d+\\.\\.\\d+ -\\[tick-1\\]").contains("added 0..1 +[tick-1]");
        assertThat(vm.rows().get(1)).isSameAs(before.get(0));
        assertThat(vm.rows().get(2)).isSameAs(before.get(1));
        assertThat(vm.rows().get(0)).isNotSameAs(movedFrom).satisfies(r -> assertThat(r.verdictWord()).isEqualTo("failing"));

        // nothing new: no change at all
        changes.clear();
        answers.put("eval-1", healthy(42, Duration.ofSeconds(9)));
        answers.put("eval-2", healthy(7, Duration.ofSeconds(7)));
        answers.put("tick-1", judged(healthy(11, Duration.ofSeconds(2)), HealthState.FAILING, "contract_failures 1 contract failed"));
        advance(FleetViewModel.POLL);
        assertThat(changes).isEmpty();
    }

    @Test
    void theConsolesAlertRules_replaceTheDefaults_fromTheNextAnswer(@TempDir Path config) throws IOException {
        answers.put("eval-1", judged(healthy(1, Duration.ZERO), HealthState.HEALTHY));
        answers.put("eval-2", REFUSED);
        answers.put("tick-1", judged(healthy(1, Duration.ZERO), HealthState.HEALTHY));
        FleetViewModel vm = model(file);
        vm.load();
        assertThat(vm.row("eval-1").orElseThrow().alerts()).extracting(r -> r.name()).containsExactly("KilnSeedStale");
        // the team's alerts.json: a stale seed is critical for them, under their own name, and nothing else is watched
        Path rules = config.resolve("alerts.json");
        Files.writeString(rules, dev.kiln.core.alert.AlertRules.json(List.of(new dev.kiln.core.alert.AlertRule("TeamSeedBehind",
                "kiln_seed_current", dev.kiln.core.alert.AlertRule.Comparison.LT, 1, Duration.ZERO, "critical",
                "a seed is behind its lockfile"))));
        dev.kiln.core.alert.AlertRules.Loaded loaded = dev.kiln.core.alert.AlertRules.load(rules);
        assertThat(loaded.problem()).isEmpty();
        vm.setRules(loaded.rules());
        advance(FleetViewModel.POLL);
        FleetRow ok = vm.row("eval-1").orElseThrow();
        assertThat(ok.alerts()).extracting(r -> r.name()).containsExactly("TeamSeedBehind");
        assertThat(ok.tint()).as("a firing critical rule of the file tints the healthy row failing").isEqualTo("failing");
    }

    @Test
    void aPollCycle_reachesTheShownRowsAsOneChange_inTheirOrder() {
        answers.put("eval-1", healthy(1, Duration.ZERO));
        answers.put("eval-2", healthy(1, Duration.ZERO));
        answers.put("tick-1", healthy(1, Duration.ZERO));
        FleetViewModel vm = model(file);
        vm.load();
        List<String> changes = new ArrayList<>();
        vm.rows().addListener((javafx.collections.ListChangeListener<FleetRow>) ch -> changes.add(ch.toString()));
        answers.put("eval-2", REFUSED);
        answers.put("tick-1", judged(healthy(2, Duration.ZERO), HealthState.FAILING, "contract_failures 1 contract failed"));
        advance(FleetViewModel.POLL);
        assertThat(changes).as("three answers, one change of the table's list").hasSize(1);
        assertThat(vm.rows()).extracting(FleetRow::name).containsExactly("eval-2", "tick-1", "eval-1");
    }

    @Test
    void ages_tickWithTheClock_withoutAskingAgain() {
        answers.put("eval-1", healthy(42, Duration.ofSeconds(3)));
        FleetViewModel vm = model(file);
        vm.load();
        int polls = asked.get("eval-1");
        clock.advance(Duration.ofMillis(1500));
        vm.tick();
        assertThat(vm.row("eval-1").orElseThrow().projectedText(vm.nowProperty().get())).isEqualTo("4.5 s ago");
        assertThat(asked.get("eval-1")).isEqualTo(polls);
    }

    @Test
    void aDaemonThatGoesAway_isMarkedDown_backsOff_andComesBackByItself() {
        answers.put("eval-1", healthy(1, Duration.ZERO));
        answers.put("eval-2", healthy(1, Duration.ZERO));
        answers.put("tick-1", healthy(1, Duration.ZERO));
        FleetViewModel vm = model(file);
        vm.load();
        assertThat(vm.rows()).allMatch(r -> r.state() == FleetRow.State.UP);

        answers.put("eval-2", REFUSED);
        Instant wentDown = clock.instant().plus(FleetViewModel.POLL);
        advance(FleetViewModel.POLL);
        FleetRow down = vm.row("eval-2").orElseThrow();
        assertThat(down.state()).isEqualTo(FleetRow.State.DOWN);
        assertThat(vm.rows().get(0).name()).as("down goes first").isEqualTo("eval-2");
        assertThat(down.revisionText()).as("the last one seen").isEqualTo("r1");
        assertThat(down.downSince()).contains(wentDown);

        // backoff: 1 s, 2 s, 3 s, 3 s ... while it stays down; "since" stays the first failure
        int before = asked.get("eval-2");
        advance(Duration.ofSeconds(1));
        assertThat(asked.get("eval-2")).isEqualTo(before + 1);
        assertThat(vm.row("eval-2").orElseThrow().reachText(clock.instant()))
                .isEqualTo("down since " + CLOCK.format(wentDown) + " · retry in 2 s");
        assertThat(vm.row("eval-2").orElseThrow().downForText(clock.instant())).isEqualTo("down for 1.0 s");
        advance(Duration.ofSeconds(1));
        assertThat(asked.get("eval-2")).as("not yet: it waits 2 s now").isEqualTo(before + 1);
        advance(Duration.ofSeconds(1));
        assertThat(asked.get("eval-2")).isEqualTo(before + 2);
        assertThat(vm.row("eval-2").orElseThrow().retryAt()).as("at most 3 s: a restarted daemon is seen within 5 s")
                .contains(clock.instant().plus(Duration.ofSeconds(3)));
        assertThat(vm.row("eval-2").orElseThrow().downSince()).contains(wentDown);

        answers.put("eval-2", healthy(9, Duration.ZERO));
        advance(Duration.ofSeconds(3));
        FleetRow back = vm.row("eval-2").orElseThrow();
        assertThat(back.state()).isEqualTo(FleetRow.State.UP);
        assertThat(back.revisionText()).isEqualTo("r9");
        assertThat(back.downSince()).isEmpty();
        answers.put("eval-2", REFUSED);
        advance(FleetViewModel.POLL);
        assertThat(vm.row("eval-2").orElseThrow().reachText(clock.instant())).as("the backoff starts over")
                .endsWith("retry in 1 s");
    }

    @Test
    void backoff_doublesUpToItsBound() {
        assertThat(FleetViewModel.backoff(0)).isEqualTo(Duration.ofSeconds(1));
        assertThat(FleetViewModel.backoff(1)).isEqualTo(Duration.ofSeconds(2));
        assertThat(FleetViewModel.backoff(2)).isEqualTo(FleetViewModel.BACKOFF_MAX);
        assertThat(FleetViewModel.BACKOFF_MAX.plus(FleetViewModel.ASK_TIMEOUT)).as("a restarted daemon is seen within 5 s")
                .isLessThanOrEqualTo(Duration.ofSeconds(5));
        assertThat(FleetViewModel.backoff(500)).isEqualTo(FleetViewModel.BACKOFF_MAX);
    }

    @Test
    void aCycle_gathersTheDaemonsDueSoonAfterIt_andFartherOnesWait() {
        answers.put("eval-1", healthy(1, Duration.ZERO));
        answers.put("eval-2", healthy(1, Duration.ZERO));
        answers.put("tick-1", healthy(1, Duration.ZERO));
        answers.put("soon", healthy(1, Duration.ZERO));
        answers.put("later", healthy(1, Duration.ZERO));
        FleetViewModel vm = model(file);
        vm.load(); // the three of the list, asked now: due again at POLL
        advance(FleetViewModel.GATHER.dividedBy(2));
        assertThat(vm.save(null, DaemonEntry.of("soon", "http://127.0.0.1:7106", "", ""))).isEmpty(); // due at POLL + GATHER/2
        advance(FleetViewModel.GATHER);
        assertThat(vm.save(null, DaemonEntry.of("later", "http://127.0.0.1:7107", "", ""))).isEmpty(); // POLL + 1.5 GATHER
        int soon = asked.get("soon");
        int later = asked.get("later");
        int first = asked.get("eval-1");

        advance(FleetViewModel.POLL.minus(FleetViewModel.GATHER.multipliedBy(3).dividedBy(2)));
        assertThat(asked.get("eval-1")).as("the first group's cycle").isEqualTo(first + 1);
        assertThat(asked.get("soon")).as("due within GATHER of that cycle: asked in it, a little early").isEqualTo(soon + 1);
        assertThat(asked.get("later")).as("due later than that: it waits for its own time").isEqualTo(later);
        advance(FleetViewModel.GATHER.multipliedBy(3).dividedBy(2));
        assertThat(asked.get("later")).isEqualTo(later + 1);
        assertThat(asked.get("soon")).as("not asked again before its next poll").isEqualTo(soon + 1);
    }

    @Test
    void addEditRemove_writeTheList_andPollWhatItSays() throws IOException {
        answers.put("new-1", healthy(3, Duration.ZERO));
        FleetViewModel vm = model(file);
        vm.load();
        assertThat(vm.save(null, DaemonEntry.of("new-1", "http://127.0.0.1:7104", "", ""))).isEmpty();
        assertThat(DaemonList.read(file).find("new-1")).isPresent();
        assertThat(vm.row("new-1").orElseThrow().state()).isEqualTo(FleetRow.State.UP);
        assertThat(vm.focusedProperty().get()).isEqualTo("new-1");

        assertThat(vm.save(null, DaemonEntry.of("NEW-1", "http://127.0.0.1:7105", "", "")))
                .hasValueSatisfying(m -> assertThat(m).contains("already called"));

        answers.put("renamed", healthy(4, Duration.ZERO));
        assertThat(vm.save("new-1", DaemonEntry.of("renamed", "http://127.0.0.1:7104", "", ""))).isEmpty();
        assertThat(DaemonList.read(file).daemons()).extracting(DaemonEntry::name).containsExactly("eval-1", "eval-2", "tick-1", "renamed");
        assertThat(vm.row("new-1")).isEmpty();
        assertThat(vm.row("renamed").orElseThrow().revisionText()).isEqualTo("r4");

        assertThat(vm.remove("eval-2")).isEmpty();
        assertThat(DaemonList.read(file).find("eval-2")).isEmpty();
        assertThat(vm.rows()).extracting(FleetRow::name).doesNotContain("eval-2");
        int polls = asked.getOrDefault("eval-2", 0);
        advance(Duration.ofMinutes(1));
        assertThat(asked.getOrDefault("eval-2", 0)).as("a removed daemon is not asked again").isEqualTo(polls);
    }

    @Test
    void malformedList_isNamed_notOverwritten_andNothingIsLost() throws IOException {
        String broken = Files.readString(file).replace("\"daemons\"", "\"daemons\" oops");
        Files.writeString(file, broken);
        FleetViewModel vm = model(file);
        vm.load();
        assertThat(vm.listErrorProperty().get()).contains(file.toString()).contains("not JSON");
        assertThat(vm.save(null, DaemonEntry.of("x", "http://127.0.0.1:1", "", ""))).hasValueSatisfying(
                m -> assertThat(m).contains(file.toString()));
        assertThat(Files.readString(file)).isEqualTo(broken);
    }

    @Test
    void attach_sameUrlSelectsTheListedOne_elseShowsItForThisSessionOnly() throws IOException {
        answers.put("eval-1", healthy(1, Duration.ZERO));
        FleetViewModel vm = model(file);
        vm.load();
        vm.attach(DaemonEntry.of("127.0.0.1:7101", "http://127.0.0.1:7101/", "", ""));
        assertThat(vm.focusedProperty().get()).isEqualTo("eval-1");
        assertThat(vm.rows()).hasSize(3);

        answers.put("127.0.0.1:7999", healthy(5, Duration.ZERO));
        vm.attach(DaemonEntry.of("127.0.0.1:7999", "http://127.0.0.1:7999/", "", ""));
        assertThat(vm.focusedProperty().get()).isEqualTo("127.0.0.1:7999");
        FleetRow attached = vm.row("127.0.0.1:7999").orElseThrow();
        assertThat(attached.saved()).isFalse();
        assertThat(attached.state()).isEqualTo(FleetRow.State.UP);
        assertThat(DaemonList.read(file).daemons()).hasSize(3);

        vm.open(attached);
        assertThat(opened).extracting(DaemonEntry::name).containsExactly("127.0.0.1:7999");
    }

    @Test
    void close_stopsEveryPoller() {
        answers.put("eval-1", healthy(1, Duration.ZERO));
        FleetViewModel vm = model(file);
        vm.load();
        vm.close();
        Map<String, Integer> before = new HashMap<>(asked);
        advance(Duration.ofMinutes(5));
        assertThat(asked).isEqualTo(before);
    }

    /** {@code h} as a daemon sends it with the verdict it judged (its {@code verdict} and {@code reasons}). */
    private static DaemonHealth judged(DaemonHealth h, HealthState v, String... reasons) {
        List<HealthReason> rs = new ArrayList<>();
        for (String r : reasons) {
            rs.add(new HealthReason(r.split(" ")[0], v, r));
        }
        return new DaemonHealth(h.url(), 2, h.revision(), h.projections(), h.lastProjectionAt(), h.lastProjectionAge(),
                h.lastError(), h.heartbeat(), h.watchLive(), h.watchReason(), h.contracts(), h.failures(), h.tlsFingerprint(),
                h.seeds(), h.lastProbe(), h.stateFileError(), h.failedContracts(), h.watchPartial(),
                Optional.of(new HealthVerdict(v, rs)));
    }

    @Test
    void verdict_isTheHealthAnswersOwn_asKilnStatusShowsIt_failingWhenUnreachable_andRowsSortByIt() {
        DaemonHealth unjudged = healthy(1, Duration.ZERO); // says no verdict: core's rules judge its evidence
        answers.put("eval-1", unjudged);
        answers.put("eval-2", judged(healthy(2, Duration.ZERO), HealthState.DEGRADED, "contract_failures 2 contracts fail"));
        answers.put("tick-1", judged(healthy(3, Duration.ZERO), HealthState.HEALTHY));
        FleetViewModel vm = model(file);
        vm.load();
        FleetRow one = vm.row("eval-1").orElseThrow();
        assertThat(one.verdict()).as("the one verdict: DaemonHealth's, as kiln status prints it")
                .contains(unjudged.verdict()).contains(HealthRules.judge(unjudged.evidence()));
        assertThat(one.verdictWord()).isEqualTo("degraded");
        assertThat(one.verdict().orElseThrow().has("seed_stale")).as(one.verdictText()).isTrue();
        assertThat(vm.row("eval-2").orElseThrow().healthText(clock.instant())).isEqualTo("degraded: contract_failures 2 contracts fail");
        assertThat(vm.row("tick-1").orElseThrow().healthText(clock.instant())).as("the daemon's own verdict, not re-judged")
                .isEqualTo("healthy");
        assertThat(vm.rows()).extracting(FleetRow::name).containsExactly("eval-1", "eval-2", "tick-1");

        answers.put("tick-1", REFUSED);
        advance(FleetViewModel.POLL);
        FleetRow gone = vm.row("tick-1").orElseThrow();
        assertThat(gone.verdict().orElseThrow().state()).isEqualTo(HealthState.FAILING);
        assertThat(gone.verdict().orElseThrow().reasons()).extracting(HealthReason::code).containsExactly(HealthRules.UNREACHABLE);
        assertThat(vm.rows()).extracting(FleetRow::name).as("failing first").containsExactly("tick-1", "eval-1", "eval-2");

        vm.sort(FleetViewModel.Sort.NAME);
        assertThat(vm.rows()).extracting(FleetRow::name).containsExactly("eval-1", "eval-2", "tick-1");
        vm.sort(FleetViewModel.Sort.HEALTH);
        assertThat(vm.rows().get(0).name()).isEqualTo("tick-1");
    }

    @Test
    void anOlderDaemon_refusedAsIncompatible_isFailingWithTheClientsMessage() {
        String why = "the daemon at http://127.0.0.1:7101/ speaks API v1, this kiln speaks v2: use a kiln of the same"
                + " release on both sides";
        answers.put("eval-1", new IOException(why));
        answers.put("eval-2", healthy(2, Duration.ZERO));
        answers.put("tick-1", healthy(3, Duration.ZERO));
        FleetViewModel vm = model(file);
        vm.load();
        FleetRow old = vm.row("eval-1").orElseThrow();
        assertThat(old.state()).isEqualTo(FleetRow.State.DOWN);
        assertThat(old.verdictWord()).as("not unknown: it answered, and cannot be read").isEqualTo("failing");
        assertThat(old.error()).isEqualTo(why);
        assertThat(old.verdict().orElseThrow().reasons()).extracting(HealthReason::message).containsExactly(why);
    }

    @Test
    void unknown_isARowNotAskedYet_listedAfterDegradedAndBeforeHealthy() {
        Instant now = clock.instant();
        DaemonEntry a = DaemonEntry.of("a-1", "http://127.0.0.1:7201", "", "");
        DaemonEntry b = DaemonEntry.of("b-1", "http://127.0.0.1:7202", "", "");
        DaemonEntry c = DaemonEntry.of("c-1", "http://127.0.0.1:7203", "", "");
        DaemonEntry d = DaemonEntry.of("d-1", "http://127.0.0.1:7204", "", "");
        FleetRow healthy = FleetRow.connecting(a, true).answered(judged(healthy(1, Duration.ZERO), HealthState.HEALTHY), now);
        FleetRow notYet = FleetRow.connecting(b, true);
        FleetRow degraded = FleetRow.connecting(c, true).answered(judged(healthy(1, Duration.ZERO), HealthState.DEGRADED,
                "seed_stale 1 seed stale"), now);
        FleetRow failing = FleetRow.connecting(d, true).failed("nothing listens there", now, now.plusSeconds(2));
        assertThat(notYet.verdict()).as("no fourth verdict state: no verdict yet").isEmpty();
        assertThat(notYet.verdictWord()).isEqualTo("unknown");
        assertThat(notYet.healthText(now)).isEqualTo("unknown: connecting…");
        assertThat(java.util.stream.Stream.of(healthy, notYet, degraded, failing).sorted(FleetViewModel.ORDER))
                .extracting(FleetRow::verdictWord).containsExactly("failing", "degraded", "unknown", "healthy");
    }

    @Test
    void filter_byNameOrState_keepsTheOthersPolledAndChosen() {
        answers.put("eval-1", healthy(1, Duration.ZERO));
        answers.put("eval-2", REFUSED);
        answers.put("tick-1", healthy(1, Duration.ZERO));
        FleetViewModel vm = model(file);
        vm.load();
        vm.choose("tick-1", true);
        vm.filter("eval");
        assertThat(vm.rows()).extracting(FleetRow::name).containsExactlyInAnyOrder("eval-1", "eval-2");
        assertThat(vm.allRows()).hasSize(3);
        vm.filter("FAIL");
        assertThat(vm.rows()).extracting(FleetRow::name).containsExactly("eval-2");
        vm.filter("down");
        assertThat(vm.rows()).extracting(FleetRow::name).containsExactly("eval-2");
        vm.chooseShown();
        assertThat(vm.chosenEntries()).extracting(DaemonEntry::name).containsExactly("eval-2", "tick-1");
        vm.filter("");
        assertThat(vm.rows()).hasSize(3);
        int before = asked.get("tick-1");
        vm.filter("eval");
        advance(FleetViewModel.POLL);
        assertThat(asked.get("tick-1")).as("filtered away, still polled").isGreaterThan(before);
    }

    @Test
    void cycle_asksEveryDueDaemonAtOnce_andAppliesAllAnswersInOneHop() {
        answers.put("eval-1", healthy(1, Duration.ZERO));
        answers.put("eval-2", healthy(1, Duration.ZERO));
        answers.put("tick-1", healthy(1, Duration.ZERO));
        List<String> hops = new ArrayList<>();
        Background counting = new Background() {
            @Override
            public <T> Cancellable run(java.util.concurrent.Callable<T> work, java.util.function.Consumer<? super T> onResult,
                    java.util.function.Consumer<? super Throwable> onError) {
                hops.add("hop");
                return Background.inline().run(work, onResult, onError);
            }
        };
        FleetViewModel.HealthSource source = d -> () -> {
            asked.merge(d.name(), 1, Integer::sum);
            return (DaemonHealth) answers.get(d.name());
        };
        FleetViewModel vm = new FleetViewModel(file, counting, timer, source, clock, opened::add);
        vm.load();
        assertThat(hops).as("one hop for three daemons").hasSize(1);
        advance(FleetViewModel.POLL.multipliedBy(5));
        assertThat(hops).hasSize(6);
        assertThat(asked).containsEntry("eval-1", 6).containsEntry("tick-1", 6);
    }

    /** An engine whose actions end when the test says; anything else it is asked is unsupported. */
    private static final class ScriptedEngine {
        final java.util.concurrent.CompletableFuture<dev.kiln.core.doctor.Diagnosis> diagnosis = new java.util.concurrent.CompletableFuture<>();
        final java.util.concurrent.CompletableFuture<dev.kiln.core.startup.ProbeReport> probe = new java.util.concurrent.CompletableFuture<>();
        final java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();

        dev.kiln.core.engine.Engine engine() {
            return dev.kiln.ui.Scripted.engine((proxy, m, args) -> switch (m.getName()) {
                        case "probe" -> new dev.kiln.core.engine.Action<dev.kiln.core.startup.ProbeReport>() {
                            public String id() {
                                return "a-1";
                            }

                            public java.util.concurrent.CompletableFuture<dev.kiln.core.startup.ProbeReport> result() {
                                return probe;
                            }

                            public void cancel() {
                                cancelled.set(true);
                                probe.completeExceptionally(new java.util.concurrent.CancellationException("cancelled"));
                            }
                        };
                        case "close" -> null;
                        case "toString" -> "scripted";
                        default -> throw new UnsupportedOperationException(m.getName());
                    });
        }
    }

    @Test
    void actions_progressRowPerDaemon_unreachableOneFails_cancelAllEndsTheRest() throws Exception {
        answers.put("eval-1", healthy(1, Duration.ZERO));
        answers.put("eval-2", healthy(1, Duration.ZERO));
        answers.put("tick-1", healthy(1, Duration.ZERO));
        Map<String, ScriptedEngine> engines = new java.util.concurrent.ConcurrentHashMap<>();
        dev.kiln.core.fleet.FleetActions actions = dev.kiln.core.fleet.FleetActions.builder().concurrency(2)
                .engines(d -> {
                    if (d.name().equals("eval-2")) {
                        throw new dev.kiln.core.engine.EngineException(dev.kiln.core.engine.EngineException.Kind.UNREACHABLE,
                                "nothing listens at " + d.url());
                    }
                    return engines.computeIfAbsent(d.name(), n -> new ScriptedEngine()).engine();
                })
                .reachability(d -> Optional.empty()).build();
        FleetViewModel.HealthSource source = d -> () -> (DaemonHealth) answers.get(d.name());
        // the test's UI thread: the runs' threads hand their progress back under this lock, as the FX thread would take
        // them one at a time, and the test reads and acts under it (inline, two threads' hops had raced on the list)
        Object ui = new Object();
        Background oneUiThread = new Background() {
            @Override
            public <T> Cancellable run(java.util.concurrent.Callable<T> work, java.util.function.Consumer<? super T> onResult,
                    java.util.function.Consumer<? super Throwable> onError) {
                T value;
                try {
                    value = work.call();
                } catch (Exception e) {
                    synchronized (ui) {
                        onError.accept(e);
                    }
                    return () -> { };
                }
                synchronized (ui) {
                    onResult.accept(value);
                }
                return () -> { };
            }
        };
        FleetViewModel vm = new FleetViewModel(file, oneUiThread, timer, source, clock, opened::add, actions);
        synchronized (ui) {
            vm.load();
            assertThat(vm.runAction(dev.kiln.core.fleet.FleetActions.Kind.PROBE)).hasValueSatisfying(m -> assertThat(m).contains("select"));
            vm.chooseShown();
            assertThat(vm.runAction(dev.kiln.core.fleet.FleetActions.Kind.PROBE)).isEmpty();
            assertThat(vm.actionRunningProperty().get()).isTrue();
        }
        dev.kiln.testkit.Await.await("eval-2 failed as unreachable, the others running", () -> {
            Map<String, dev.kiln.core.fleet.FleetActions.State> st;
            synchronized (ui) {
                st = states(vm);
            }
            return st.get("eval-2") == dev.kiln.core.fleet.FleetActions.State.FAILED
                    && st.get("eval-1") == dev.kiln.core.fleet.FleetActions.State.RUNNING
                    && st.get("tick-1") == dev.kiln.core.fleet.FleetActions.State.RUNNING;
        });
        Map<String, dev.kiln.core.fleet.FleetActions.State> ended;
        synchronized (ui) {
            dev.kiln.core.fleet.FleetActions.Progress failed = vm.progress().stream().filter(p -> p.name().equals("eval-2")).findFirst().orElseThrow();
            assertThat(failed.code()).isEqualTo("unreachable");
            assertThat(failed.message()).startsWith("unreachable: ").contains("nothing listens");
            assertThat(vm.runAction(dev.kiln.core.fleet.FleetActions.Kind.DOCTOR)).as("one at a time").isPresent();
        }

        vm.cancelAll(); // its work asks the hosts outside the lock; its result comes back under it
        dev.kiln.testkit.Await.await("all ended", () -> {
            synchronized (ui) {
                return !vm.actionRunningProperty().get();
            }
        });
        assertThat(engines.values()).allMatch(e -> e.cancelled.get());
        String summary;
        synchronized (ui) {
            ended = states(vm);
            summary = vm.actionSummaryProperty().get();
        }
        assertThat(ended).containsEntry("eval-1", dev.kiln.core.fleet.FleetActions.State.CANCELLED)
                .containsEntry("tick-1", dev.kiln.core.fleet.FleetActions.State.CANCELLED)
                .containsEntry("eval-2", dev.kiln.core.fleet.FleetActions.State.FAILED);
        assertThat(summary).isEqualTo("probe on 3 daemons: 1 failed, 2 cancelled");
    }

    @Test
    void heat_binsTheSlowestAnswerAgainstTheTimeout() {
        assertThat(FleetViewModel.Heat.of(new dev.kiln.core.fleet.FleetActions.Heat("a", 400, 10_000, "ok"))).isEqualTo(FleetViewModel.Heat.COOL);
        assertThat(FleetViewModel.Heat.of(new dev.kiln.core.fleet.FleetActions.Heat("a", 6_000, 10_000, "ok"))).isEqualTo(FleetViewModel.Heat.WARM);
        assertThat(FleetViewModel.Heat.of(new dev.kiln.core.fleet.FleetActions.Heat("a", 8_600, 10_000, "ok"))).isEqualTo(FleetViewModel.Heat.NEAR);
        assertThat(FleetViewModel.Heat.of(new dev.kiln.core.fleet.FleetActions.Heat("a", -1, 10_000, "timeout"))).isEqualTo(FleetViewModel.Heat.OVER);
        assertThat(FleetViewModel.heatText(new dev.kiln.core.fleet.FleetActions.Heat("a", 8_600, 10_000, "ok"))).isEqualTo("▲ 8.6 s");
        assertThat(FleetViewModel.heatText(new dev.kiln.core.fleet.FleetActions.Heat("a", 412.4, 30_000, "ok"))).isEqualTo("✓ 412 ms");
        assertThat(FleetViewModel.heatText(new dev.kiln.core.fleet.FleetActions.Heat("a", -1, 10_000, "timeout"))).isEqualTo("✕ timeout");
    }

    private static Map<String, dev.kiln.core.fleet.FleetActions.State> states(FleetViewModel vm) {
        Map<String, dev.kiln.core.fleet.FleetActions.State> m = new java.util.concurrent.ConcurrentHashMap<>();
        List.copyOf(vm.progress()).forEach(p -> m.put(p.name(), p.state()));
        return m;
    }

    private void advance(Duration d) {
        Instant until = clock.instant().plus(d);
        timer.runUntil(until);
    }

    /** Tasks due at instants of the mutable clock; runs them in order as the test moves time on. */
    private final class Timer implements FleetViewModel.Scheduler {
        private final List<Object[]> tasks = new ArrayList<>();

        @Override
        public Background.Cancellable schedule(Duration delay, Runnable task) {
            Object[] t = {clock.instant().plus(delay), task, false};
            tasks.add(t);
            return () -> t[2] = true;
        }

        void runUntil(Instant until) {
            while (true) {
                Object[] next = tasks.stream().filter(t -> !(Boolean) t[2] && !((Instant) t[0]).isAfter(until))
                        .min(java.util.Comparator.comparing(t -> (Instant) t[0])).orElse(null);
                if (next == null) {
                    break;
                }
                tasks.remove(next);
                if (((Instant) next[0]).isAfter(clock.instant())) {
                    clock.set((Instant) next[0]);
                }
                ((Runnable) next[1]).run();
            }
            clock.set(until);
        }
    }
}
