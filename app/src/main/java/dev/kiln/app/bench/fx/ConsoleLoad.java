package dev.kiln.app.bench.fx;

import dev.kiln.core.projection.TickResult;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.Page;
import dev.kiln.ui.shell.Theme;
import dev.kiln.ui.util.FxBackground;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javafx.animation.AnimationTimer;
import javafx.application.Platform;
import javafx.scene.control.ButtonBase;
import javafx.scene.control.TableView;
import javafx.stage.Stage;

/**
 * The console under load, headless, for {@code kiln bench ui}: how long the FX thread stalls while a big workspace
 * ticks under continuous edits with the charts showing, and how much heap the console holds after an hour of ticks
 * on a simulated clock. The caller (the benchmark in the app) owns the workspaces, the edits and the clock; this
 * class owns the toolkit, the windows and the measuring. One call per process: the toolkit starts once.
 *
 * <p>Concurrency: the measuring runs on the caller's thread; pulses are timed on the FX thread, which a sampler
 * thread reads (its stack) only while a pulse is overdue, and only in the window asked for that.
 */
public final class ConsoleLoad {
    /** Pulses per second while measuring: 4 ms apart, so a gap is the FX thread's busy stretch to within 4 ms. */
    public static final int PULSE_HZ = 250;
    private static final long SAMPLE_WHEN_LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(8);

    /**
     * What to measure.
     *
     * @param busy the big workspace, projected live with its Projection page shown
     * @param warmupSeconds how long the same edits run first, timed apart: the JIT compiles the tick's paths there
     * @param busySeconds how long pulses are timed while {@code startEdits} edits it, after the warm-up
     * @param hotspots whether a further window of {@code busySeconds} samples the FX thread's stack during late pulses
     *     ({@code stall_hotspots}); apart from the timed one, because on JDK 17 each sample stops every thread (a
     *     ThreadDump safepoint, up to 14 ms here) and so lengthened the very stalls it sampled
     * @param startEdits starts continuous edits of {@code busy} (returns at once); {@code stopEdits} ends them
     * @param quiet the workspace for the simulated hour (its console ticks only when asked)
     * @param quietClock the clock of {@code quiet}'s console, moved by {@code eachTick}
     * @param eachTick before each asked-for tick: an edit and one simulated second
     * @param checkpoints tick counts after which the heap is measured (ascending); the last one ends the run
     */
    public record Options(Path busy, int warmupSeconds, int busySeconds, boolean hotspots, Runnable startEdits, Runnable stopEdits,
            Path quiet, Clock quietClock, Runnable eachTick, List<Integer> checkpoints) {
    }

    private ConsoleLoad() {
    }

    /**
     * Starts JavaFX headless (Monocle) with the pulse at {@link #PULSE_HZ}, so a late pulse is seen to the 4 ms, and
     * without exiting when a stage closes: the start every FX load of the benchmarks shares.
     */
    public static void startHeadlessFx() throws InterruptedException {
        ConsoleHooks.useHeadlessPlatform();
        System.setProperty("javafx.animation.pulse", Integer.toString(PULSE_HZ));
        CountDownLatch up = new CountDownLatch(1);
        Platform.startup(up::countDown);
        Platform.setImplicitExit(false);
        up.await();
    }

    /**
     * Runs both measurements and returns the figures: {@code max_fx_stall_ms}, {@code p99_fx_stall_ms}, pulse counts,
     * the FX thread's frames seen during overdue pulses if asked ({@code stall_hotspots}), and {@code heap_after_gc_mb_at_N}
     * for each checkpoint.
     *
     * @throws IllegalStateException when Monocle is missing or the console does not answer
     */
    public static Map<String, Object> run(Options o) throws InterruptedException {
        startHeadlessFx();
        Map<String, Object> out = new LinkedHashMap<>();
        try (FxBackground background = new FxBackground()) {
            stalls(o, background, out);
            memory(o, background, out);
        } finally {
            Platform.exit();
        }
        return out;
    }

    private static void stalls(Options o, FxBackground background, Map<String, Object> out) throws InterruptedException {
        Stage stage = onFx(() -> {
            Stage s = new Stage();
            MainViewModel m = KilnConsole.show(s, WorkspaceLayout.of(o.busy()), background, true, Theme.DARK, 1280, 800);
            m.navigate(Page.PROJECTION);
            return s;
        });
        // The first (cold) tick of the big workspace, then the watch: measuring starts on a settled console.
        @SuppressWarnings("unchecked")
        TableView<TickResult> ticks = onFx(() -> (TableView<TickResult>) stage.getScene().lookup("#projection-ticks"));
        awaitFx(() -> !ticks.getItems().isEmpty(), 180, "the first projection of " + o.busy());
        Thread.sleep(3000);
        long revisionBefore = onFx(() -> ticks.getItems().get(0).revision());

        o.startEdits().run();
        Pulses warmup = o.warmupSeconds() > 0 ? time(o.warmupSeconds(), false) : null;
        Pulses pulses = time(o.busySeconds(), false);
        Pulses sampled = o.hotspots() ? time(o.busySeconds(), true) : null;
        o.stopEdits().run();
        long revisionAfter = onFx(() -> ticks.getItems().get(0).revision());
        onFx(() -> {
            stage.hide(); // ends the session: watcher, projector, event pump
            return null;
        });

        long[] gaps = pulses.gaps();
        out.put("pulse_hz", PULSE_HZ);
        out.put("pulses", gaps.length);
        stalls(gaps, "", out);
        out.put("revisions_while_measuring", revisionAfter - revisionBefore);
        if (sampled != null) {
            long[] s = sampled.gaps();
            out.put("max_fx_stall_ms_sampled", s.length == 0 ? Double.NaN : ms(Arrays.stream(s).max().getAsLong()));
            out.put("stall_hotspots", sampled.hotspots(8));
        }
        if (warmup != null) {
            // The first seconds of a freshly opened console under the same load: the JIT is still compiling there.
            out.put("warmup_seconds", o.warmupSeconds());
            stalls(warmup.gaps(), "_warmup", out);
        }
    }

    /** Times the pulses of the next {@code seconds}, sampling the FX thread's stack in late ones if {@code sample}. */
    static Pulses time(int seconds, boolean sample) throws InterruptedException {
        Pulses p = new Pulses(seconds * PULSE_HZ * 2, sample);
        onFx(() -> {
            p.start();
            return null;
        });
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        onFx(() -> {
            p.stop();
            return null;
        });
        return p;
    }

    /** {@code max_fx_stall_ms}, p99, p50 and {@code pulses_over_16ms} of {@code gaps}, each name ending in {@code suffix}. */
    static void stalls(long[] gaps, String suffix, Map<String, Object> out) {
        Arrays.sort(gaps);
        int n = gaps.length;
        out.put("max_fx_stall_ms" + suffix, n == 0 ? Double.NaN : ms(gaps[n - 1]));
        out.put("p99_fx_stall_ms" + suffix, n == 0 ? Double.NaN : ms(gaps[(int) Math.min(n - 1, Math.ceil(n * 0.99) - 1)]));
        out.put("p50_fx_stall_ms" + suffix, n == 0 ? Double.NaN : ms(gaps[n / 2]));
        out.put("pulses_over_16ms" + suffix, Arrays.stream(gaps).filter(g -> g > TimeUnit.MILLISECONDS.toNanos(16)).count());
    }

    private static void memory(Options o, FxBackground background, Map<String, Object> out) throws InterruptedException {
        Stage stage = onFx(() -> {
            Stage s = new Stage();
            MainViewModel m = KilnConsole.show(s, WorkspaceLayout.of(o.quiet()), background, false, Theme.DARK, 1280, 800, o.quietClock());
            m.navigate(Page.PROJECTION);
            return s;
        });
        TableView<?> ticks = onFx(() -> (TableView<?>) stage.getScene().lookup("#projection-ticks"));
        ButtonBase now = onFx(() -> (ButtonBase) stage.getScene().lookup("#projection-now"));
        awaitFx(() -> !ticks.getItems().isEmpty(), 60, "the first projection of " + o.quiet());
        int done = 0;
        for (int checkpoint : o.checkpoints()) {
            for (; done < checkpoint; done++) {
                o.eachTick().run();
                Object newest = onFx(() -> ticks.getItems().get(0));
                onFx(() -> {
                    now.fire(); // as the operator's click: through the Projection page's view model
                    return null;
                });
                // The tick's events reach every page's model within a frame of the tick.
                awaitFx(() -> ticks.getItems().get(0) != newest, 60, "tick " + (done + 1));
            }
            out.put("heap_after_gc_mb_at_" + checkpoint + "_ticks", heapAfterGcMb());
        }
        out.put("ticks_simulated", done);
        onFx(() -> {
            stage.hide();
            return null;
        });
    }

    /** Heap in use after full collections, in MiB (one decimal). */
    static double heapAfterGcMb() throws InterruptedException {
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
        }
        long used = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        return Math.round(used / 1024.0 / 1024.0 * 10) / 10.0;
    }

    private static double ms(long nanos) {
        return Math.round(nanos / 1e5) / 10.0;
    }

    /** Times the gap between successive pulses; a sampler, if asked for, records the FX thread's stack while one is overdue. */
    static final class Pulses {
        private final long[] gaps;
        private final AtomicInteger count = new AtomicInteger();
        private final AtomicLong last = new AtomicLong();
        private final Map<String, Integer> frames = new ConcurrentHashMap<>();
        private final AtomicReference<Thread> sampler = new AtomicReference<>();
        private final AnimationTimer timer;
        private final boolean sample;
        private volatile boolean running;

        Pulses(int capacity, boolean sample) {
            gaps = new long[capacity];
            this.sample = sample;
            timer = new AnimationTimer() {
                @Override
                public void handle(long ignored) {
                    long t = System.nanoTime();
                    long prev = last.getAndSet(t);
                    int i = count.get();
                    if (prev != 0 && i < gaps.length) {
                        gaps[i] = t - prev;
                        count.set(i + 1);
                    }
                }
            };
        }

        /** On the FX thread. */
        void start() {
            Thread fx = Thread.currentThread();
            running = true;
            timer.start();
            if (!sample) {
                return;
            }
            Thread s = new Thread(() -> sample(fx), "kiln-fx-sampler");
            s.setDaemon(true);
            sampler.set(s);
            s.start();
        }

        /** On the FX thread. */
        void stop() {
            timer.stop();
            running = false;
        }

        long[] gaps() {
            Thread s = sampler.get();
            if (s != null) {
                try {
                    s.join(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return Arrays.copyOf(gaps, count.get());
        }

        private void sample(Thread fx) {
            while (running) {
                long since = last.get();
                if (since != 0 && System.nanoTime() - since > SAMPLE_WHEN_LATE_NANOS) {
                    frames.merge(signature(fx.getStackTrace()), 1, Integer::sum);
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        /**
         * Where the FX thread was while a pulse was late: its innermost Kiln frames (up to three), else JavaFX's
         * own work (its top frame), or where it waited (for events, so idle, or for the renderer within a pulse).
         */
        private static String signature(StackTraceElement[] stack) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < stack.length && b.length() < 400; i++) {
                if (stack[i].getClassName().startsWith("dev.kiln.") && !stack[i].getClassName().startsWith("dev.kiln.app.bench.fx.ConsoleLoad")) {
                    b.append(b.length() == 0 ? "" : " < ").append(frame(stack[i]));
                    if (b.chars().filter(c -> c == '<').count() == 2) {
                        break;
                    }
                }
            }
            if (b.length() > 0) {
                return b.toString();
            }
            if (stack.length == 0) {
                return "?";
            }
            String top = frame(stack[0]);
            if (!top.equals("Object.wait") && !top.equals("Unsafe.park")) {
                return "JavaFX: " + top;
            }
            // Waiting: for the next event (idle: the pulse timer is what is late) or inside a pulse (the renderer).
            for (StackTraceElement e : stack) {
                if (e.getClassName().startsWith("com.sun.")) {
                    return e.getMethodName().equals("getNextRunnable") ? "idle: waiting for events (the pulse timer was late)"
                            : "waiting in " + frame(e);
                }
            }
            return "waiting";
        }

        private static String frame(StackTraceElement e) {
            String c = e.getClassName();
            return c.substring(c.lastIndexOf('.') + 1) + "." + e.getMethodName();
        }

        /** The {@code n} most sampled places, most first, with their share of the late samples. */
        Map<String, String> hotspots(int n) {
            int total = frames.values().stream().mapToInt(Integer::intValue).sum();
            Map<String, String> top = new LinkedHashMap<>();
            frames.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder())).limit(n)
                    .forEach(e -> top.put(e.getKey(), e.getValue() + " samples (" + Math.round(100.0 * e.getValue() / total) + " %)"));
            return top;
        }
    }

    interface FxCall<T> {
        T call() throws Exception;
    }

    /** Runs {@code call} on the FX thread and waits for it (60 s). */
    static <T> T onFx(FxCall<T> call) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<Object> result = new AtomicReference<>();
        Platform.runLater(() -> {
            try {
                result.set(call.call());
            } catch (Exception | Error e) {
                result.set(e);
            } finally {
                done.countDown();
            }
        });
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the console's FX thread did not answer within 60 s");
        }
        Object r = result.get();
        if (r instanceof Throwable t) {
            throw new IllegalStateException("on the FX thread: " + t, t);
        }
        @SuppressWarnings("unchecked")
        T t = (T) r;
        return t;
    }

    /** Polls {@code condition} on the FX thread every 2 ms until it holds; fails after {@code seconds}. */
    static void awaitFx(FxCall<Boolean> condition, int seconds, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!onFx(condition)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the console did not show " + what + " within " + seconds + " s");
            }
            Thread.sleep(2);
        }
    }
}
