package dev.kiln.ui.record;

import dev.kiln.core.engine.Engine;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.util.Background;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBase;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.Slider;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Pane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.stage.FileChooser;
import javafx.stage.Window;
import javafx.util.Duration;
import javafx.util.StringConverter;

/**
 * The bar above the pages: over a live engine, <b>Record</b> (start/stop, with size and duration) and
 * <b>Open recording…</b>; over a replay, play/pause, step to the next change, speed and the time slider, with the
 * words "Read-only recording" and every page's buttons disabled, each saying why in its tooltip. A thin view over
 * {@link RecordViewModel}.
 */
public final class RecordBar {
    /** The stage property under which the console puts how to open a recording in this window ({@code Consumer<Path>}). */
    public static final String OPENER = "kiln.openRecording";
    private static final DateTimeFormatter FILE_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private final RecordViewModel vm;
    private final HBox bar = new HBox(8);
    private final Timeline counter;

    /** The bar of {@code engine}'s window; {@code pages} is the pane the pages are shown in (disabled in a replay). */
    public RecordBar(Engine engine, Background background, Pane pages) {
        this.vm = new RecordViewModel(engine, background);
        bar.getStyleClass().add("kiln-record-bar");
        bar.setId("record-bar");
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setPadding(new Insets(6, 24, 6, 24));
        counter = new Timeline(new KeyFrame(Duration.seconds(1), e -> vm.refresh()));
        counter.setCycleCount(Timeline.INDEFINITE);
        if (vm.replaying()) {
            replayBar();
            pages.getChildren().addListener((ListChangeListener<Node>) c -> readOnly(pages));
            readOnly(pages);
        } else {
            recordBar();
        }
    }

    /** The bar's node, for the window's top. */
    public Node node() {
        return bar;
    }

    /** The model (tests drive it). */
    public RecordViewModel model() {
        return vm;
    }

    /** A batch of the engine's events (from the window's one event pump). */
    public void accept(List<KilnEvent> batch) {
        vm.accept(batch);
    }

    private void recordBar() {
        Button record = new Button("● Record");
        record.setId("record-button");
        record.setTooltip(new Tooltip("Record this session's events to a file (state, ticks, warms, probes), to replay later"));
        Label text = new Label();
        text.setId("record-text");
        text.textProperty().bind(vm.recordingTextProperty());
        text.setMinWidth(Region.USE_PREF_SIZE);
        record.setOnAction(e -> {
            if (vm.recordingProperty().get()) {
                vm.stopRecording();
                counter.stop();
            } else {
                Path file = chooseSave();
                if (file != null) {
                    vm.startRecording(file);
                    counter.play();
                }
            }
        });
        vm.recordingProperty().addListener((o, was, now) -> {
            record.setText(now ? "■ Stop recording" : "● Record");
            record.getStyleClass().remove("danger");
            if (now) {
                record.getStyleClass().add("danger");
            }
        });
        Button open = new Button("Open recording…");
        open.setId("record-open");
        open.setTooltip(new Tooltip("Replay a recording in these pages, read-only, with a time slider"));
        open.setOnAction(e -> {
            Path file = chooseOpen();
            if (file != null) {
                open(file);
            }
        });
        Label problem = problemLabel();
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        bar.getChildren().setAll(record, text, grow, problem, open);
    }

    private void replayBar() {
        Label badge = new Label("Read-only recording");
        badge.setId("replay-badge");
        badge.getStyleClass().add("kiln-replay-badge");
        badge.setTooltip(new Tooltip(vm.readOnlyReason()));
        badge.setMinWidth(Region.USE_PREF_SIZE);
        Button play = new Button("▶ Play");
        play.setId("replay-play");
        play.setMinWidth(Region.USE_PREF_SIZE);
        play.setOnAction(e -> {
            if (vm.playingProperty().get()) {
                vm.pause();
            } else {
                vm.play();
            }
        });
        vm.playingProperty().addListener((o, was, now) -> play.setText(now ? "‖ Pause" : "▶ Play"));
        Button step = new Button("Next change »");
        step.setId("replay-step");
        step.setMinWidth(Region.USE_PREF_SIZE);
        step.setTooltip(new Tooltip("Play up to the next change: a tick that changed the revision, a warm, a probe, an archive"));
        step.setOnAction(e -> vm.step());
        ComboBox<Double> speed = new ComboBox<>();
        speed.setId("replay-speed");
        speed.getItems().setAll(RecordViewModel.SPEEDS);
        speed.setConverter(new StringConverter<>() {
            @Override
            public String toString(Double d) {
                return d == null ? "" : String.format(Locale.ROOT, "%.0f×", d);
            }

            @Override
            public Double fromString(String s) {
                return Double.valueOf(s.replace("×", ""));
            }
        });
        speed.setValue(vm.speedProperty().get());
        speed.setTooltip(new Tooltip("Speed: times recorded time"));
        speed.valueProperty().addListener((o, was, now) -> {
            if (now != null) {
                vm.setSpeed(now);
            }
        });
        Slider slider = new Slider(0, 1, 0);
        slider.setId("replay-slider");
        HBox.setHgrow(slider, Priority.ALWAYS);
        slider.setMinWidth(160);
        vm.positionProperty().addListener((o, was, now) -> {
            if (!slider.isValueChanging()) {
                slider.setValue(now.doubleValue());
            }
        });
        slider.setValue(vm.positionProperty().get());
        slider.valueChangingProperty().addListener((o, was, now) -> {
            if (!now) {
                vm.seek(slider.getValue());
            }
        });
        slider.setOnMouseReleased(e -> vm.seek(slider.getValue()));
        Label at = new Label();
        at.setId("replay-position");
        at.textProperty().bind(vm.positionTextProperty());
        at.setMinWidth(Region.USE_PREF_SIZE);
        Label problem = problemLabel();
        Button open = new Button("Open…");
        open.setId("record-open");
        open.setMinWidth(Region.USE_PREF_SIZE);
        open.setTooltip(new Tooltip("Replay another recording"));
        open.setOnAction(e -> {
            Path file = chooseOpen();
            if (file != null) {
                open(file);
            }
        });
        bar.getChildren().setAll(badge, play, step, speed, slider, at, problem, open);
        bar.getStyleClass().add("kiln-replaying");
    }

    private Label problemLabel() {
        Label problem = new Label();
        problem.setId("record-problem");
        problem.getStyleClass().add("kiln-record-problem");
        problem.textProperty().bind(vm.problemProperty().map(p -> p.isEmpty() ? "" : "⚠ " + p));
        problem.setWrapText(false);
        problem.setMaxWidth(360);
        problem.tooltipProperty().bind(vm.problemProperty().map(p -> p.isEmpty() ? null : new Tooltip(p)));
        return problem;
    }

    /**
     * Every button of every shown page disabled, saying why (the engine refuses them anyway). A disabled control shows
     * no tooltip of its own, so the reason is on the bar's badge too.
     */
    private void readOnly(Pane pages) {
        String why = vm.readOnlyReason();
        for (Node page : pages.getChildren()) {
            for (Node n : page.lookupAll(".button")) {
                if (n instanceof ButtonBase b) {
                    // a replay's window is read-only for its whole life: the page's own enabling rule no longer applies
                    b.disableProperty().unbind();
                    b.setDisable(true);
                    b.setTooltip(new Tooltip(why));
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void open(Path file) {
        Window w = bar.getScene() == null ? null : bar.getScene().getWindow();
        if (w != null && w.getProperties().get(OPENER) instanceof Consumer<?> c) {
            ((Consumer<Path>) c).accept(file);
        }
    }

    private Path chooseSave() {
        FileChooser fc = new FileChooser();
        fc.setTitle("Record to…");
        fc.setInitialFileName("kiln-" + FILE_TIME.format(java.time.Instant.now()) + dev.kiln.core.recording.Recorder.SUFFIX);
        fc.getExtensionFilters().add(new FileChooser.ExtensionFilter("Kiln recordings", "*" + dev.kiln.core.recording.Recorder.SUFFIX));
        java.io.File f = fc.showSaveDialog(bar.getScene() == null ? null : bar.getScene().getWindow());
        return f == null ? null : f.toPath();
    }

    private Path chooseOpen() {
        FileChooser fc = new FileChooser();
        fc.setTitle("Open recording");
        fc.getExtensionFilters().add(new FileChooser.ExtensionFilter("Kiln recordings", "*" + dev.kiln.core.recording.Recorder.SUFFIX));
        java.io.File f = fc.showOpenDialog(bar.getScene() == null ? null : bar.getScene().getWindow());
        return f == null ? null : f.toPath();
    }

    /** Ends a recording still running with the window. */
    public void close() {
        counter.stop();
        vm.stopRecording();
    }
}
