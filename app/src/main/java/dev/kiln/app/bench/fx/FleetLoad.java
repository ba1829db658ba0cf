package dev.kiln.app.bench.fx;

import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.ui.ConsoleSession;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.fleet.FleetRow;
import dev.kiln.ui.fleet.FleetView;
import dev.kiln.ui.fleet.FleetViewModel;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.Page;
import dev.kiln.ui.shell.Theme;
import dev.kiln.ui.util.FxBackground;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.stage.Stage;

/**
 * The Fleet page at fleet size, headless (Monocle), for {@code kiln bench fleet}: the console shows the Fleet page of
 * a daemon list while its poller asks every daemon; this times the gaps between FX pulses ({@code max_fx_stall_ms})
 * and the poll cycles (all due daemons asked, answers on the FX thread), then how long a daemon that was stopped and
 * started again takes to show up again ({@code restart_noticed_ms}).
 *
 * <p>Concurrency: runs on the caller's thread; it reads the page's state on the FX thread only. One call per process.
 */
public final class FleetLoad {
    private FleetLoad() {
    }

    /**
     * What to measure.
     *
     * @param listFile the daemon list the console shows
     * @param local a workspace for the console to open beside the fleet (it is not projected live)
     * @param seconds how long pulses and cycles are timed
     * @param restarted the daemon (by name) that {@code stop} and {@code start} stop and start again
     * @param stop stops that daemon
     * @param start starts it again on its port; returns once it listens
     */
    public record Options(Path listFile, Path local, int seconds, String restarted, Runnable stop, Runnable start,
            boolean hotspots) {
        /** Without the sampled window. */
        public Options(Path listFile, Path local, int seconds, String restarted, Runnable stop, Runnable start) {
            this(listFile, local, seconds, restarted, stop, start, false);
        }
    }

    /**
     * Runs the measurement; the figures: {@code max_fx_stall_ms}, {@code p99_fx_stall_ms}, {@code pulses},
     * {@code poll_cycle_ms_p95}, {@code poll_cycle_ms_max}, {@code poll_cycles}, {@code daemons_up},
     * {@code restart_noticed_ms}, {@code down_noticed_ms}, and the same window's pulses with polling stopped, for as
     * long ({@code baseline_fx_stall_ms}, {@code baseline_p99_fx_stall_ms}, {@code baseline_pulses_over_16ms}).
     *
     * @throws IllegalStateException when Monocle is missing or the page does not show what it should in time
     */
    public static Map<String, Object> run(Options o) throws InterruptedException {
        ConsoleLoad.startHeadlessFx();
        Map<String, Object> out = new LinkedHashMap<>();
        try (FxBackground background = new FxBackground()) {
            Stage stage = onFx(() -> {
                Stage s = new Stage();
                MainViewModel m = KilnConsole.show(ConsoleSession.of(s, background, null, o.listFile()), WorkspaceLayout.of(o.local()),
                        false, Theme.DARK, 1280, 800);
                m.navigate(Page.FLEET);
                return s;
            });
            FleetViewModel vm = onFx(() -> ((FleetView) stage.getScene().lookup("#page-fleet")).model());
            int all = onFx(() -> vm.allRows().size());
            awaitFx(() -> vm.allRows().stream().allMatch(r -> r.state() != FleetRow.State.CONNECTING), 120,
                    "an answer from each of the " + all + " daemons");
            Thread.sleep(2000); // settled: the first cycles, the table's first layout

            List<Long> cycles = new ArrayList<>();
            onFx(() -> {
                vm.lastCycleProperty().addListener((x, a, d) -> cycles.add(d.toNanos()));
                return null;
            });
            ConsoleLoad.Pulses pulses = ConsoleLoad.time(o.seconds(), false);
            long[] gaps = pulses.gaps();
            Arrays.sort(gaps);
            long[] c = onFx(() -> cycles.stream().mapToLong(Long::longValue).sorted().toArray());
            out.put("pulse_hz", ConsoleLoad.PULSE_HZ);
            out.put("pulses", gaps.length);
            out.put("max_fx_stall_ms", gaps.length == 0 ? Double.NaN : ms(gaps[gaps.length - 1]));
            out.put("p99_fx_stall_ms", gaps.length == 0 ? Double.NaN : ms(gaps[(int) Math.min(gaps.length - 1, Math.ceil(gaps.length * 0.99) - 1)]));
            out.put("pulses_over_16ms", Arrays.stream(gaps).filter(g -> g > TimeUnit.MILLISECONDS.toNanos(16)).count());
            out.put("poll_cycles", c.length);
            out.put("poll_cycle_ms_p95", c.length == 0 ? Double.NaN : ms(c[(int) Math.min(c.length - 1, Math.ceil(c.length * 0.95) - 1)]));
            out.put("poll_cycle_ms_max", c.length == 0 ? Double.NaN : ms(c[c.length - 1]));
            if (o.hotspots()) {
                ConsoleLoad.Pulses sampled = ConsoleLoad.time(o.seconds(), true);
                long[] s = sampled.gaps();
                out.put("max_fx_stall_ms_sampled", s.length == 0 ? Double.NaN : ms(Arrays.stream(s).max().getAsLong()));
                out.put("stall_hotspots", sampled.hotspots(8));
            }
            out.put("daemons_up", onFx(() -> vm.allRows().stream().filter(r -> r.state() != FleetRow.State.DOWN).count()));

            // A restart: stopped, seen down, started again on its port: how long until its row is back.
            long stopped = System.nanoTime();
            o.stop().run();
            awaitFx(() -> vm.row(o.restarted()).map(r -> r.state() == FleetRow.State.DOWN).orElse(false), 60,
                    o.restarted() + " down");
            out.put("down_noticed_ms", ms(System.nanoTime() - stopped));
            Thread.sleep(4000); // down for a while: its backoff has grown to its cap
            o.start().run();
            long listening = System.nanoTime();
            awaitFx(() -> vm.row(o.restarted()).map(r -> r.state() != FleetRow.State.DOWN).orElse(false), 60,
                    o.restarted() + " back up");
            out.put("restart_noticed_ms", ms(System.nanoTime() - listening));

            // The baseline: the same window on the same page, every row still shown and its clock ticking, with polling
            // stopped, for as long: what this machine's load, this JVM's daemons and its collector cost the FX thread
            // anyway. max_fx_stall_ms is read against it.
            onFx(() -> {
                vm.close();
                return null;
            });
            Thread.sleep(2000); // a cycle under way when it closed has ended
            long[] idle = ConsoleLoad.time(o.seconds(), false).gaps();
            Arrays.sort(idle);
            out.put("baseline_fx_stall_ms", idle.length == 0 ? Double.NaN : ms(idle[idle.length - 1]));
            out.put("baseline_p99_fx_stall_ms", idle.length == 0 ? Double.NaN
                    : ms(idle[(int) Math.min(idle.length - 1, Math.ceil(idle.length * 0.99) - 1)]));
            out.put("baseline_pulses_over_16ms", Arrays.stream(idle).filter(g -> g > TimeUnit.MILLISECONDS.toNanos(16)).count());
            onFx(() -> {
                stage.hide();
                return null;
            });
        } finally {
            Platform.exit();
        }
        return out;
    }

    private static double ms(long nanos) {
        return Math.round(nanos / 1e5) / 10.0;
    }

    // the FX hops are ConsoleLoad's: one way to wait for the console's thread in the bench home
    private static <T> T onFx(ConsoleLoad.FxCall<T> call) throws InterruptedException {
        return ConsoleLoad.onFx(call);
    }

    private static void awaitFx(ConsoleLoad.FxCall<Boolean> condition, int seconds, String what) throws InterruptedException {
        ConsoleLoad.awaitFx(condition, seconds, "the Fleet page: " + what);
    }
}
