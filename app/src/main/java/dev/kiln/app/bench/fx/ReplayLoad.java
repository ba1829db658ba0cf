package dev.kiln.app.bench.fx;

import dev.kiln.core.recording.ReplayEngine;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.Page;
import dev.kiln.ui.shell.Theme;
import dev.kiln.ui.util.FxBackground;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import javafx.application.Platform;
import javafx.scene.control.TableView;
import javafx.stage.Stage;

/**
 * {@code kiln bench record}'s console part: a recording replayed in the console headless (Monocle) at a speed, on
 * the Contracts page (its rows rebuilt at every replayed tick), timing the gaps between FX pulses as
 * {@link ConsoleLoad} does. Loaded only when that benchmark runs.
 */
public final class ReplayLoad {
    private ReplayLoad() {
    }

    /**
     * Replays {@code recording} at {@code speed} for {@code seconds} of wall time and returns {@code max_fx_stall_ms},
     * {@code p99_fx_stall_ms}, {@code p50_fx_stall_ms}, {@code pulses_over_16ms}, {@code pulses} and how much recorded
     * time was covered ({@code replayed_recorded_seconds}); before it, as long with the replay paused (the empty
     * load: {@code baseline_fx_stall_ms}, {@code baseline_p99_fx_stall_ms}), and the ratio of the two maxima
     * ({@code fx_stall_to_baseline}: on a loaded machine the baseline is far above 16 ms, and the ratio is the figure).
     */
    public static Map<String, Object> run(Path recording, double speed, int seconds) throws Exception {
        return run(recording, speed, seconds, false);
    }

    /**
     * As {@link #run(Path, double, int)}; with {@code hotspots}, a further window of as many seconds samples the FX
     * thread's stack during late pulses ({@code stall_hotspots}: what runs there per replayed frame).
     */
    public static Map<String, Object> run(Path recording, double speed, int seconds, boolean hotspots) throws Exception {
        ConsoleLoad.startHeadlessFx();
        Map<String, Object> out = new LinkedHashMap<>();
        ReplayEngine engine = ReplayEngine.open(recording, System::nanoTime);
        try (FxBackground background = new FxBackground()) {
            Stage stage = ConsoleLoad.onFx(() -> {
                Stage s = new Stage();
                MainViewModel m = KilnConsole.show(s, engine, new MainViewModel(engine.layout()), background, false, Theme.DARK,
                        1280, 800);
                m.navigate(Page.CONTRACTS);
                return s;
            });
            @SuppressWarnings("unchecked")
            TableView<Object> table = ConsoleLoad.onFx(() -> (TableView<Object>) stage.getScene().lookup("#contracts-table"));
            ConsoleLoad.awaitFx(() -> table != null && !table.getItems().isEmpty(), 120, "the recording's contracts");
            Thread.sleep(2000);
            // the empty load first: the same console and page, the replay paused, for as long; what the machine
            // alone (its load, the collector, the renderer) does to the pulses, the figure the replay's is read against
            ConsoleLoad.Pulses idle = ConsoleLoad.time(seconds, false);
            java.time.Instant from = engine.position();
            engine.play(speed);
            ConsoleLoad.Pulses pulses = ConsoleLoad.time(seconds, false);
            ConsoleLoad.Pulses sampled = hotspots ? ConsoleLoad.time(seconds, true) : null;
            engine.pause();
            java.time.Instant to = engine.position();
            ConsoleLoad.onFx(() -> {
                stage.hide();
                return null;
            });
            long[] gaps = pulses.gaps();
            out.put("replay_speed", speed);
            out.put("replay_wall_seconds", seconds);
            out.put("replayed_recorded_seconds", java.time.Duration.between(from, to).toSeconds());
            out.put("pulse_hz", ConsoleLoad.PULSE_HZ);
            out.put("pulses", gaps.length);
            ConsoleLoad.stalls(gaps, "", out);
            Map<String, Object> baseline = new LinkedHashMap<>();
            ConsoleLoad.stalls(idle.gaps(), "", baseline);
            out.put("baseline_fx_stall_ms", baseline.get("max_fx_stall_ms"));
            out.put("baseline_p99_fx_stall_ms", baseline.get("p99_fx_stall_ms"));
            out.put("baseline_pulses", idle.gaps().length);
            double max = (Double) out.get("max_fx_stall_ms");
            double base = (Double) baseline.get("max_fx_stall_ms");
            out.put("fx_stall_to_baseline", base > 0 ? Math.round(max / base * 100) / 100.0 : Double.NaN);
            if (sampled != null) {
                out.put("stall_hotspots", sampled.hotspots(10));
            }
        } finally {
            engine.close();
            Platform.exit();
        }
        return out;
    }
}
