package dev.kiln.ui.record;

import dev.kiln.core.engine.Engine;
import dev.kiln.core.recording.Recorder;
import dev.kiln.core.recording.ReplayEngine;
import dev.kiln.core.recording.ReplayMoved;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.util.Background;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.DoubleProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleDoubleProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/**
 * Recording and replay as the console shows them, without a window. Over a live engine: {@link #startRecording}
 * into a file and {@link #stopRecording}, with the size and duration so far ({@link #recordingText}). Over a
 * {@link ReplayEngine}: play, pause, step to the next change, speed, and the position as a fraction of the
 * recording for a slider ({@link #position}), with the time it stands for ({@link #positionText}).
 *
 * <p>Thread-safety: FX thread only; the recorder's writes happen on the engine's feed thread, a seek on the
 * background.
 */
public final class RecordViewModel {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    /** The speeds offered, times recorded time. */
    public static final List<Double> SPEEDS = List.of(1.0, 10.0, 60.0, 600.0);

    private final Engine engine;
    private final Background background;
    private final ReplayEngine replay;
    private final BooleanProperty recording = new SimpleBooleanProperty();
    private final StringProperty recordingText = new SimpleStringProperty("");
    private final BooleanProperty playing = new SimpleBooleanProperty();
    private final DoubleProperty position = new SimpleDoubleProperty();
    private final StringProperty positionText = new SimpleStringProperty("");
    private final DoubleProperty speed = new SimpleDoubleProperty(60);
    private final StringProperty problem = new SimpleStringProperty("");
    private Recorder recorder;
    private AutoCloseable feed;
    private boolean seeking;

    public RecordViewModel(Engine engine, Background background) {
        this.engine = engine;
        this.background = background;
        this.replay = engine instanceof ReplayEngine r ? r : null;
        if (replay != null) {
            replay.recording().damage().ifPresent(d -> problem.set("Damaged recording: " + d.describe()));
            moved(replay.position(), replay.playing());
        }
    }

    /** Whether this is a replay (the replay bar) rather than a live engine (the Record button). */
    public boolean replaying() {
        return replay != null;
    }

    /** Why every action is disabled in a replay; empty for a live engine. */
    public String readOnlyReason() {
        return replay == null ? "" : "Read-only: " + ReplayEngine.READ_ONLY;
    }

    // ---- recording ---------------------------------------------------------------------------------------------

    /** Starts recording this engine's frames into {@code file} (replaced); fails with a reason in {@link #problem}. */
    public void startRecording(Path file) {
        if (recorder != null || replay != null) {
            return;
        }
        try {
            Recorder r = Recorder.builder().file(file).clock(engine.clock()).maxBytes(256L << 20)
                    .source(engine.remote() ? "remote" : "local", engine.location(), engine.layout().root().toString(),
                            engine.probes().defaultStartupTimeout()).build();
            feed = engine.frames((event, data) -> {
                try {
                    r.frame(event, data);
                } catch (IOException e) {
                    javafx.application.Platform.runLater(() -> problem.set("Recording to " + file + " failed: " + e.getMessage()));
                }
            });
            recorder = r;
            recording.set(true);
            problem.set("");
            refresh();
        } catch (IOException | RuntimeException e) {
            problem.set("Cannot record to " + file + ": " + e.getMessage());
        }
    }

    /** Stops recording; the file is closed whole. */
    public void stopRecording() {
        Recorder r = recorder;
        if (r == null) {
            return;
        }
        try {
            if (feed != null) {
                feed.close();
            }
            r.close();
            recordingText.set("Recorded " + size(r.bytes()) + " · " + clock(r.duration()) + " to " + r.file().getFileName());
        } catch (Exception e) {
            problem.set("Closing the recording " + r.file() + " failed: " + e.getMessage());
        }
        recorder = null;
        feed = null;
        recording.set(false);
    }

    /** Frames recorded so far in the running recording (0 when none runs). */
    public long framesRecorded() {
        Recorder r = recorder;
        return r == null ? 0 : r.frames();
    }

    /** Updates the size and duration while recording (the view calls it every second). */
    public void refresh() {
        Recorder r = recorder;
        if (r != null) {
            recordingText.set("● " + size(r.bytes()) + " · " + clock(r.duration()));
        }
    }

    // ---- replay ------------------------------------------------------------------------------------------------

    /** A batch of the engine's events: a replay's moves update the slider. */
    public void accept(List<KilnEvent> batch) {
        for (KilnEvent e : batch) {
            if (e instanceof ReplayMoved m) {
                moved(m.position(), m.playing());
            }
        }
    }

    private void moved(Instant at, boolean isPlaying) {
        ReplayEngine r = replay;
        if (r == null) {
            return;
        }
        long span = Math.max(1, Duration.between(r.start(), r.end()).toMillis());
        long done = Duration.between(r.start(), at).toMillis();
        if (!seeking) {
            position.set(Math.max(0, Math.min(1, done / (double) span)));
        }
        playing.set(isPlaying);
        positionText.set(clock(Duration.ofMillis(done)) + " / " + clock(Duration.ofMillis(span)) + " · " + TIME.format(at));
    }

    public void play() {
        if (replay != null) {
            replay.play(speed.get());
        }
    }

    public void pause() {
        if (replay != null) {
            replay.pause();
        }
    }

    /** Plays up to the next change (off the FX thread: it may read a group of the file). */
    public void step() {
        ReplayEngine r = replay;
        if (r != null) {
            r.pause();
            background.run(r::stepToNextChange, found -> {
                if (!found) {
                    problem.set("No change after this moment: the end of the recording");
                }
            }, e -> problem.set("Stepping failed: " + e.getMessage()));
        }
    }

    /** Seeks to {@code fraction} (0..1) of the recording (off the FX thread). */
    public void seek(double fraction) {
        ReplayEngine r = replay;
        if (r == null) {
            return;
        }
        long span = Duration.between(r.start(), r.end()).toMillis();
        Instant to = r.start().plusMillis(Math.round(Math.max(0, Math.min(1, fraction)) * span));
        seeking = true;
        position.set(fraction);
        background.run(() -> {
            r.seek(to);
            return to;
        }, t -> seeking = false, e -> {
            seeking = false;
            problem.set("Seeking failed: " + e.getMessage());
        });
    }

    /** Sets the playing speed; a playing replay goes on at it. */
    public void setSpeed(double s) {
        speed.set(s);
        if (replay != null && replay.playing()) {
            replay.play(s);
        }
    }

    public ReadOnlyBooleanProperty recordingProperty() {
        return recording;
    }

    public ReadOnlyStringProperty recordingTextProperty() {
        return recordingText;
    }

    public ReadOnlyBooleanProperty playingProperty() {
        return playing;
    }

    /** The position as a fraction of the recording, for the slider. */
    public DoubleProperty positionProperty() {
        return position;
    }

    public ReadOnlyStringProperty positionTextProperty() {
        return positionText;
    }

    public DoubleProperty speedProperty() {
        return speed;
    }

    /** What went wrong last (or what is wrong with the recording), for a person; empty when nothing. */
    public ReadOnlyStringProperty problemProperty() {
        return problem;
    }

    static String size(long bytes) {
        if (bytes < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f KB", bytes / 1024.0);
        }
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1024.0 / 1024.0);
    }

    static String clock(Duration d) {
        long s = Math.max(0, d.toSeconds());
        return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }
}
