package dev.kiln.ui.seeds;

import dev.kiln.core.seed.ServerSeeds;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.control.Tooltip;
import javafx.scene.input.Clipboard;
import javafx.scene.input.ClipboardContent;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The Seeds page's server seeds: the runtime seeds of servers launched through npx/uvx, with their state (a word,
 * coloured by the theme), warm actions, and the selected seed's paste-ready entry for a chosen client and form with a
 * Copy button. Thin: every decision is {@link ServerSeedsViewModel}'s.
 */
public final class ServerSeedsPane extends VBox {

    /** The pane with its own view model on the target seeds' engine; refreshes at once. */
    public ServerSeedsPane(SeedsViewModel seeds) {
        this(seeds.serverSeeds(text -> {
            ClipboardContent c = new ClipboardContent();
            c.putString(text);
            Clipboard.getSystemClipboard().setContent(c);
        }));
    }

    ServerSeedsPane(ServerSeedsViewModel vm) {
        setId("server-seeds");
        setSpacing(6);
        Label title = new Label("Server seeds");
        title.getStyleClass().add("kiln-chart-title");
        Label sub = new Label("npx / uvx servers: package manager cache (cache form) or installed package (installed form),"
                + " judged by hash");
        sub.getStyleClass().add("text-muted");
        sub.setMinWidth(0);

        TableView<ServerSeedsViewModel.Row> table = new TableView<>(vm.rows());
        table.setId("server-seeds-table");
        table.getStyleClass().addAll("dense", "striped");
        // Columns keep their widths and the table scrolls sideways: squeezed into the narrow default window, the
        // constrained policy cut the package (the column a person reads) to "@modelc…"
        table.setColumnResizePolicy(TableView.UNCONSTRAINED_RESIZE_POLICY);
        table.getColumns().add(column("Server", 80, ServerSeedsViewModel.Row::server));
        TableColumn<ServerSeedsViewModel.Row, String> state = column("State", 84, ServerSeedsViewModel.Row::stateText);
        state.setMinWidth(84); // "missing", "corrupt" in bold read whole
        state.setCellFactory(c -> new TableCell<>() {
            @Override
            protected void updateItem(String item, boolean empty) {
                super.updateItem(item, empty);
                getStyleClass().removeAll("state-ok", "state-warn", "state-bad");
                setText(empty ? null : item);
                if (!empty && item != null) {
                    getStyleClass().add(switch (item) {
                        case "ok" -> "state-ok";
                        case "stale", "missing" -> "state-warn";
                        default -> "state-bad";
                    });
                }
            }
        });
        table.getColumns().add(state);
        // The store's word right after the state: in a narrow window it is what stays in view
        TableColumn<ServerSeedsViewModel.Row, ServerSeedsViewModel.Row> store = new TableColumn<>("Store");
        store.setPrefWidth(135); // "✕ store unreachable" reads whole; narrower, the tooltip holds the whole text
        store.setMinWidth(128); // "≠ differing", "▼ in the store", "? not compared" read whole
        store.setCellValueFactory(f -> new javafx.beans.property.ReadOnlyObjectWrapper<>(f.getValue()));
        store.setCellFactory(c -> new StoreCell<>(ServerSeedsViewModel.Row::store, ServerSeedsViewModel.Row::storeText, ServerSeedsViewModel.Row::storeReason));
        table.getColumns().add(store);
        // "@modelcontextprotocol/server-filesystem@2026.8.31 · node v20.20.2" whole; a longer spec reads in its tooltip
        TableColumn<ServerSeedsViewModel.Row, String> pkg = column("Package", 340,
                r -> r.spec() + (r.runtime().equals("-") ? "" : " · " + r.runtime()));
        dev.kiln.ui.util.FullTextCell.install(pkg);
        table.getColumns().add(pkg);
        table.getColumns().add(column("Forms", 118, ServerSeedsViewModel.Row::forms));
        table.getColumns().add(column("Size", 70, ServerSeedsViewModel.Row::size));
        table.getColumns().add(column("Warmed", 110, ServerSeedsViewModel.Row::warmed));
        TableColumn<ServerSeedsViewModel.Row, String> problem = column("Problem", 90, ServerSeedsViewModel.Row::problem);
        problem.setCellFactory(c -> new TableCell<>() {
            @Override
            protected void updateItem(String item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty ? null : item);
                setTooltip(empty || item == null || item.isEmpty() ? null : new Tooltip(item));
            }
        });
        table.getColumns().add(problem);
        Label empty = new Label();
        empty.textProperty().bind(vm.placeholderProperty());
        empty.setWrapText(true); // the table is narrow at the default size: the whole sentence, on two lines if need be
        empty.setTextAlignment(javafx.scene.text.TextAlignment.CENTER);
        empty.setPadding(new javafx.geometry.Insets(0, 12, 0, 12));
        table.setPlaceholder(empty);
        table.setFixedCellSize(26);
        table.setMinHeight(26 * 3 + 30 + 14); // header, rows and the sideways scroll bar
        table.setPrefHeight(26 * 4 + 30 + 14);
        table.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> {
            if (b != null) {
                vm.selectedProperty().set(b);
            }
        });
        vm.selectedProperty().addListener((o, a, b) -> {
            if (b != null && table.getSelectionModel().getSelectedItem() != b) {
                table.getSelectionModel().select(b);
            }
        });

        Button warm = new Button("Warm");
        warm.setId("server-seeds-warm");
        warm.setOnAction(e -> vm.warmSelected());
        warm.disableProperty().bind(vm.warmingProperty().or(vm.selectedProperty().isNull()));
        Button all = new Button("Warm missing");
        all.setId("server-seeds-warm-all");
        all.setTooltip(new Tooltip("Warm every server whose seed is missing or corrupt"));
        all.setOnAction(e -> vm.warmAllNeeded());
        all.disableProperty().bind(vm.warmingProperty().or(vm.anyNeedsWarmProperty().not()));
        Button cancel = new Button("Cancel");
        cancel.setOnAction(e -> vm.cancel());
        cancel.disableProperty().bind(vm.warmingProperty().not());
        Button push = new Button("Push");
        push.setId("server-seeds-push");
        push.setTooltip(new Tooltip("Push the selected server's seed to the object store (on the engine's host)"));
        push.setOnAction(e -> vm.pushSelected());
        Button pull = new Button("Pull");
        pull.setId("server-seeds-pull");
        pull.setTooltip(new Tooltip("Pull the store's seed of the selected server (checked, swapped in whole)"));
        pull.setOnAction(e -> vm.pullSelected());
        javafx.beans.binding.BooleanBinding busy = vm.warmingProperty().or(vm.transferringProperty());
        push.disableProperty().bind(busy.or(Bindings.createBooleanBinding(() -> vm.selectedProperty().get() == null
                || !vm.selectedProperty().get().offersPush(), vm.selectedProperty())));
        pull.disableProperty().bind(busy.or(Bindings.createBooleanBinding(() -> vm.selectedProperty().get() == null
                || !vm.selectedProperty().get().offersPull(), vm.selectedProperty())));
        Button refresh = new Button("Refresh");
        refresh.setOnAction(e -> vm.refresh());
        for (Button b : new Button[] {warm, all, cancel, push, pull, refresh}) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }
        Label message = new Label();
        message.setId("server-seeds-message");
        message.getStyleClass().add("text-muted");
        message.textProperty().bind(Bindings.when(vm.errorProperty().isEmpty()).then(vm.messageProperty())
                .otherwise(vm.errorProperty()));
        message.setMinWidth(0);
        message.setMaxWidth(Double.MAX_VALUE);
        // The buttons wrap onto a second line in a narrow window rather than widen the page; the message goes below.
        javafx.scene.layout.FlowPane actions = new javafx.scene.layout.FlowPane(8, 6, warm, all, cancel,
                new javafx.scene.control.Separator(javafx.geometry.Orientation.VERTICAL), push, pull, refresh);
        actions.setAlignment(Pos.CENTER_LEFT);
        actions.setPrefWrapLength(360);
        // One line (the pane is short in a small window); cut, its tooltip holds the whole message.
        message.setWrapText(false);
        Tooltip whole = new Tooltip();
        whole.setWrapText(true);
        whole.setMaxWidth(560);
        whole.textProperty().bind(message.textProperty());
        message.tooltipProperty().bind(Bindings.when(message.textProperty().isEmpty()).then((Tooltip) null).otherwise(whole));
        VBox left = new VBox(6, table, actions, message);
        VBox.setVgrow(table, Priority.ALWAYS);

        ChoiceBox<String> client = new ChoiceBox<>();
        client.setId("server-seeds-client");
        client.getItems().setAll(ServerSeedsViewModel.CLIENTS);
        client.valueProperty().bindBidirectional(vm.clientProperty());
        ToggleGroup forms = new ToggleGroup();
        ToggleButton cache = new ToggleButton("cache form");
        ToggleButton installed = new ToggleButton("installed form");
        cache.setToggleGroup(forms);
        installed.setToggleGroup(forms);
        cache.setUserData(ServerSeeds.Form.CACHE);
        installed.setUserData(ServerSeeds.Form.INSTALLED);
        cache.getStyleClass().add("left-pill");
        installed.getStyleClass().add("right-pill");
        forms.selectToggle(vm.formProperty().get() == ServerSeeds.Form.CACHE ? cache : installed);
        forms.selectedToggleProperty().addListener((o, a, b) -> {
            if (b == null) {
                forms.selectToggle(a); // one form is always chosen
            } else {
                vm.formProperty().set((ServerSeeds.Form) b.getUserData());
            }
        });
        Button copy = new Button("Copy");
        copy.setId("server-seeds-copy");
        copy.getStyleClass().add("accent");
        copy.setMinWidth(Region.USE_PREF_SIZE);
        copy.setOnAction(e -> vm.copy());
        copy.disableProperty().bind(vm.snippetProperty().isEmpty());
        client.setMinWidth(Region.USE_PREF_SIZE);
        client.setTooltip(new Tooltip("The client whose config the snippet is for"));
        cache.setMinWidth(Region.USE_PREF_SIZE);
        installed.setMinWidth(Region.USE_PREF_SIZE);
        HBox chooser = new HBox(6, client, new HBox(cache, installed));
        chooser.setAlignment(Pos.CENTER_LEFT);
        TextArea text = new TextArea();
        text.setId("server-seeds-snippet");
        text.getStyleClass().add("kiln-log");
        text.setEditable(false);
        text.setWrapText(false);
        text.textProperty().bind(vm.snippetProperty());
        text.setPrefRowCount(7);
        text.setMinHeight(90);
        Label note = new Label();
        note.setId("server-seeds-note");
        note.getStyleClass().add("text-muted");
        note.setWrapText(true);
        note.setMinHeight(Region.USE_PREF_SIZE);
        note.setMaxWidth(Double.MAX_VALUE);
        note.textProperty().bind(vm.snippetNoteProperty());
        HBox.setHgrow(note, Priority.ALWAYS);
        HBox foot = new HBox(8, note, copy);
        foot.setAlignment(Pos.TOP_LEFT);
        VBox right = new VBox(6, chooser, text, foot);
        VBox.setVgrow(text, Priority.ALWAYS);
        // At least as wide as its chooser row (client, both form toggles), so the toggles are never cut; no wider by
        // default, or the one-line width of the note under the snippet would push the whole page past the window.
        chooser.setMinWidth(Region.USE_PREF_SIZE);
        right.setPrefWidth(440);

        HBox body = new HBox(10, left, right);
        HBox.setHgrow(left, Priority.ALWAYS);
        VBox.setVgrow(body, Priority.ALWAYS);
        getChildren().addAll(new VBox(1, title, sub), body);
        // Never shorter than its content: the Seeds page's split pane gave it less in the default window, and the
        // transfer message under the buttons sat half under the divider; the page scrolls instead
        setMinHeight(Region.USE_PREF_SIZE);
        vm.refresh();
    }

    private static TableColumn<ServerSeedsViewModel.Row, String> column(String name, double width,
            Function<ServerSeedsViewModel.Row, String> value) {
        TableColumn<ServerSeedsViewModel.Row, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(d -> new ReadOnlyStringWrapper(value.apply(d.getValue())));
        return c;
    }
}
