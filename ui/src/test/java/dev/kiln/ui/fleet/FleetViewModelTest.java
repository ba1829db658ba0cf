package dev.kiln.ui.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.fleet.FleetHealth;
import dev.kiln.core.serve.DaemonHealth;
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
            return a instanceof FleetHealth f ? f : FleetHealth.of((DaemonHealth) a);
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
