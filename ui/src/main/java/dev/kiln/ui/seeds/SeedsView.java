package dev.kiln.ui.seeds;

import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmResult;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.geometry.Orientation;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/** The Seeds page: targets and their seeds, warm actions with live uv output, and the warm history. */
public final class SeedsView extends VBox {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneId.systemDefault());

    public SeedsView(SeedsViewModel vm) {
        setId("page-seeds");
        getStyleClass().add("page");
        setSpacing(12);

        Label title = new Label("Seeds");
        title.getStyleClass().add("title-2");
        Label sub = new Label("uv caches warmed wheels-only, once per lockfile · " + vm.seedsDir());
        sub.getStyleClass().add("text-muted");

        TableView<SeedInfo> seeds = new TableView<>(vm.seeds());
        seeds.setId("seeds-table");
        seeds.getStyleClass().addAll("dense", "striped");
        seeds.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        seeds.getColumns().add(column("Target", 140, SeedInfo::target));
        TableColumn<SeedInfo, String> state = column("Seed", 90, SeedsView::state);
        state.setCellFactory(c -> new StateCell<>());
        seeds.getColumns().add(state);
        seeds.getColumns().add(column("Lockfile", 110, s -> s.currentHash().map(SeedsViewModel::shortHash).orElse("–")));
        seeds.getColumns().add(column("Seeded", 110, s -> s.hash().map(SeedsViewModel::shortHash).orElse("–")));
        seeds.getColumns().add(column("Size", 130, s -> s.seeded() ? mib(s.bytes()) + " · " + s.wheels() + " wheels" : "–"));
        seeds.getColumns().add(column("Warmed", 150, s -> s.warmedAt().map(TIME::format).orElse("–")));
        seeds.getColumns().add(column("Problem", 200, s -> s.problem().orElse("")));
        seeds.setPlaceholder(new Label("No targets: add targets/<name>/target.json"));
        seeds.setPrefHeight(170);
        seeds.setMinHeight(130);

        Button plan = new Button("Dry run");
        plan.setOnAction(e -> vm.plan(selected(seeds)));
        Button warm = new Button("Warm");
        warm.setId("seeds-warm");
        warm.getStyleClass().add("accent");
        warm.setOnAction(e -> vm.warm(selected(seeds)));
        warm.disableProperty().bind(vm.warmingProperty().or(seeds.getSelectionModel().selectedItemProperty().isNull()));
        plan.disableProperty().bind(seeds.getSelectionModel().selectedItemProperty().isNull());
        Button cancel = new Button("Cancel");
        cancel.setOnAction(e -> vm.cancel());
        cancel.disableProperty().bind(vm.warmingProperty().not());
        Button refresh = new Button("Refresh");
        refresh.setOnAction(e -> vm.refresh());
        ProgressIndicator busy = new ProgressIndicator();
        busy.setPrefSize(18, 18);
        busy.visibleProperty().bind(vm.warmingProperty());
        Label message = new Label();
        message.setId("seeds-message");
        message.textProperty().bind(vm.messageProperty());
        message.setWrapText(true);
        HBox.setHgrow(message, Priority.ALWAYS);
        message.setMaxWidth(Double.MAX_VALUE);
        HBox actions = new HBox(10, busy, message, plan, warm, cancel, refresh);
        actions.setAlignment(Pos.CENTER_LEFT);
        for (Button b : new Button[] {plan, warm, cancel, refresh}) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }

        Label error = new Label();
        error.getStyleClass().add("text-danger");
        error.textProperty().bind(vm.errorProperty());
        error.setWrapText(true);
        error.managedProperty().bind(error.textProperty().isNotEmpty());
        error.visibleProperty().bind(error.managedProperty());

        ListView<String> output = new ListView<>(vm.output());
        output.setId("seeds-output");
        output.getStyleClass().add("kiln-log");
        output.setPlaceholder(new Label("uv's output of a warm streams here"));
        vm.output().addListener((javafx.collections.ListChangeListener<String>) c -> output.scrollTo(vm.output().size() - 1));

        TableView<WarmResult> history = new TableView<>(vm.history());
        history.setId("seeds-history");
        history.getStyleClass().addAll("dense", "striped");
        history.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        history.getColumns().add(hcolumn("Finished", 150, r -> TIME.format(r.at())));
        history.getColumns().add(hcolumn("Target", 100, WarmResult::target));
        TableColumn<WarmResult, String> outcome = hcolumn("Outcome", 100, r -> r.outcome().label());
        outcome.setCellFactory(c -> new StateCell<>());
        history.getColumns().add(outcome);
        history.getColumns().add(hcolumn("Took", 70, r -> String.format("%.1f s", r.duration().toMillis() / 1000.0)));
        history.getColumns().add(hcolumn("Message", 300, WarmResult::message));
        history.setPlaceholder(new Label("No warms yet"));

        SplitPane lower = new SplitPane(output, history);
        lower.setOrientation(Orientation.VERTICAL);
        lower.setDividerPositions(0.45);
        VBox.setVgrow(lower, Priority.ALWAYS);

        getChildren().addAll(new VBox(2, title, sub), seeds, actions, error, lower);
        vm.refresh();
    }

    private static String selected(TableView<SeedInfo> t) {
        SeedInfo s = t.getSelectionModel().getSelectedItem();
        return s == null ? null : s.target();
    }

    static String state(SeedInfo s) {
        if (s.problem().isPresent() && s.currentHash().isEmpty()) {
            return "unreadable";
        }
        return !s.seeded() ? "none" : s.current() ? "current" : "stale";
    }

    static String mib(long bytes) {
        return bytes < 1024 * 1024 ? String.format("%.1f KiB", bytes / 1024.0) : String.format("%.1f MiB", bytes / 1048576.0);
    }

    private static TableColumn<SeedInfo, String> column(String name, double width, Function<SeedInfo, String> value) {
        TableColumn<SeedInfo, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
    }

    private static TableColumn<WarmResult, String> hcolumn(String name, double width, Function<WarmResult, String> value) {
        TableColumn<WarmResult, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
    }

    /** Green for good states, amber for stale or cancelled, red for failures. */
    private static final class StateCell<S> extends TableCell<S, String> {
        @Override
        protected void updateItem(String item, boolean empty) {
            super.updateItem(item, empty);
            getStyleClass().removeAll("state-ok", "state-warn", "state-bad");
            setText(empty ? null : item);
            if (empty || item == null) {
                return;
            }
            switch (item) {
                case "current", "warmed", "unchanged" -> getStyleClass().add("state-ok");
                case "stale", "none", "cancelled" -> getStyleClass().add("state-warn");
                default -> getStyleClass().add("state-bad");
            }
        }
    }
}
