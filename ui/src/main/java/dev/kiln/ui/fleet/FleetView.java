package dev.kiln.ui.fleet;

import dev.kiln.ui.util.Cards;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BiFunction;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.beans.binding.Bindings;
import javafx.geometry.Pos;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonType;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.util.Duration;

/**
 * The Fleet page: every daemon of the list in one table, live (ages and countdowns tick every second), with add,
 * edit and remove; double-click or Enter opens a daemon's pages. All it shows comes from {@link FleetViewModel}.
 */
public final class FleetView extends VBox {
    private final FleetViewModel vm;
    private static final java.time.format.DateTimeFormatter TIME = java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss")
            .withZone(java.time.ZoneId.systemDefault());
    private final TableView<FleetRow> table;
    private String selectedName;

    public FleetView(FleetViewModel vm) {
        this.vm = vm;
        setId("page-fleet");
        getStyleClass().add("page");
        setSpacing(14);

        Label title = new Label("Fleet");
        title.getStyleClass().add("title-2");
        Label sub = new Label();
        sub.getStyleClass().add("text-muted");
        sub.textProperty().bind(Bindings.createStringBinding(() -> summary(vm), vm.rows(), vm.nowProperty()));

        Label listError = new Label();
        listError.setId("fleet-list-error");
        listError.getStyleClass().add("kiln-banner-danger");
        listError.setWrapText(true);
        listError.setMaxWidth(Double.MAX_VALUE);
        listError.textProperty().bind(vm.listErrorProperty());
        listError.managedProperty().bind(listError.textProperty().isNotEmpty());
        listError.visibleProperty().bind(listError.managedProperty());

        table = new TableView<>(vm.rows());
        table.setId("fleet-table");
        table.getStyleClass().addAll("striped", "dense", "fleet-table");
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getColumns().add(column("Daemon", 80, (r, now) -> r.name() + (r.saved() ? "" : " (session)")));
        TableColumn<FleetRow, String> status = column("Status", 265, FleetRow::reachText);
        status.setCellFactory(c -> new StatusCell());
        table.getColumns().add(status);
        table.getColumns().add(column("Rev.", 60, (r, now) -> r.revisionText()));
        table.getColumns().add(column("Projected", 90, FleetRow::projectedText));
        table.getColumns().add(column("Watch", 70, (r, now) -> r.watchText()));
        table.getColumns().add(column("Contracts", 120, (r, now) -> r.contractsText()));
        table.getColumns().add(column("Seeds", 105, (r, now) -> r.seedsText()));
        TableColumn<FleetRow, String> probe = column("Last probe: slowest", 240, (r, now) -> r.probeText());
        probe.setCellFactory(c -> new ProbeCell());
        table.getColumns().add(probe);
        table.setPlaceholder(new Label("No daemons yet. Connect to one: its URL, token file and certificate pin"
                + " are what kiln serve prints when it starts."));
        table.setRowFactory(t -> {
            TableRow<FleetRow> row = new TableRow<>();
            row.setOnMouseClicked(e -> {
                if (e.getClickCount() == 2 && !row.isEmpty()) {
                    vm.open(row.getItem());
                }
            });
            return row;
        });
        table.setOnKeyPressed(e -> {
            if (e.getCode() == KeyCode.ENTER && selected().isPresent()) {
                vm.open(selected().get());
            }
        });
        VBox.setVgrow(table, Priority.ALWAYS);
        // The selection follows the daemon, not the index: rows are replaced on every answer and move as their state does.
        vm.focusedProperty().addListener((o, a, name) -> select(name));
        table.getSelectionModel().selectedItemProperty().addListener((o, a, r) -> {
            if (r != null) {
                selectedName = r.name();
            }
        });
        vm.rows().addListener((javafx.collections.ListChangeListener<FleetRow>) c -> javafx.application.Platform.runLater(() -> {
            if (selectedName == null && !table.getItems().isEmpty()) {
                selectedName = table.getItems().get(0).name(); // the one that needs a look most
            }
            select(selectedName);
        }));

        Button connect = new Button("Connect to daemon…");
        connect.setId("fleet-connect");
        connect.getStyleClass().add("accent");
        connect.setOnAction(e -> edit(null));
        Button editButton = new Button("Edit…");
        editButton.setId("fleet-edit");
        editButton.setOnAction(e -> selected().ifPresent(this::edit));
        Button remove = new Button("Remove");
        remove.setId("fleet-remove");
        remove.setOnAction(e -> selected().ifPresent(this::remove));
        Button open = new Button("Open pages");
        open.setId("fleet-open");
        open.setOnAction(e -> selected().ifPresent(vm::open));
        for (Button b : new Button[] {editButton, remove, open}) {
            b.disableProperty().bind(table.getSelectionModel().selectedItemProperty().isNull());
        }
        Label message = new Label();
        message.setId("fleet-message");
        message.getStyleClass().add("text-muted");
        message.textProperty().bind(vm.messageProperty());
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        HBox bar = new HBox(10, connect, editButton, remove, open, grow, message);
        bar.setAlignment(Pos.CENTER_LEFT);

        Label detail = new Label();
        detail.setId("fleet-detail");
        detail.getStyleClass().add("text-muted");
        detail.setWrapText(true);
        detail.textProperty().bind(Bindings.createStringBinding(() -> detail(table.getSelectionModel().getSelectedItem(), vm.nowProperty().get()),
                table.getSelectionModel().selectedItemProperty(), vm.nowProperty()));

        HBox cards = new HBox(12,
                Cards.card("Up", fleet(r -> r.state() == FleetRow.State.UP ? 1 : 0, n -> n + " of " + vm.rows().size()), "fleet-up"),
                Cards.card("Down or degraded", fleet(r -> r.state() == FleetRow.State.DOWN || r.state() == FleetRow.State.DEGRADED ? 1 : 0,
                        Object::toString), "fleet-down"),
                Cards.card("Contracts", fleet(r -> live(r).map(h -> h.contracts()).orElse(0L), Object::toString), null),
                Cards.card("Failures", fleet(r -> live(r).map(h -> h.failures()).orElse(0L), Object::toString), null),
                Cards.card("Stale seeds", fleet(r -> live(r).flatMap(h -> h.seeds()).map(x -> (long) x.stale()).orElse(0L),
                        Object::toString), null));
        cards.getChildren().forEach(c -> HBox.setHgrow(c, Priority.ALWAYS));

        getChildren().addAll(new VBox(2, title, sub), listError, cards, bar, table, detail);

        // Ages and "retrying in" tick every second; the daemons are asked only by their pollers.
        Timeline ticker = new Timeline(new KeyFrame(Duration.seconds(1), e -> vm.tick()));
        ticker.setCycleCount(Timeline.INDEFINITE);
        sceneProperty().addListener((o, a, s) -> {
            if (s == null) {
                ticker.stop();
            } else {
                ticker.play();
            }
        });
    }

    /** Opens the "Connect to daemon…" dialog (the console's menu item). */
    public void connect() {
        edit(null);
    }

    /** Opens the "Connect to daemon…" dialog; {@code saved} gets the daemon once it is in the list (with its pin). */
    public void connect(java.util.function.Consumer<dev.kiln.core.fleet.DaemonEntry> saved) {
        edit(null, saved);
    }

    private Optional<FleetRow> selected() {
        return Optional.ofNullable(table.getSelectionModel().getSelectedItem());
    }

    private void select(String name) {
        if (name == null) {
            return;
        }
        for (FleetRow r : table.getItems()) {
            if (r.name().equalsIgnoreCase(name)) {
                table.getSelectionModel().select(r);
                return;
            }
        }
    }

    /** A sum over the rows, rendered, updated with them. */
    private javafx.beans.binding.StringBinding fleet(java.util.function.ToLongFunction<FleetRow> each,
            java.util.function.Function<Long, String> render) {
        return Bindings.createStringBinding(() -> render.apply(vm.rows().stream().mapToLong(each).sum()), vm.rows());
    }

    /** The health a row shows now: none while it is down. */
    private static Optional<dev.kiln.core.serve.DaemonHealth> live(FleetRow r) {
        return r.state() == FleetRow.State.DOWN ? Optional.empty() : r.health();
    }

    private static String summary(FleetViewModel vm) {
        long down = vm.rows().stream().filter(r -> r.state() == FleetRow.State.DOWN).count();
        long degraded = vm.rows().stream().filter(r -> r.state() == FleetRow.State.DEGRADED).count();
        long up = vm.rows().stream().filter(r -> r.state() == FleetRow.State.UP).count();
        return vm.rows().size() + (vm.rows().size() == 1 ? " daemon" : " daemons") + " · " + up + " up · " + degraded
                + " degraded · " + down + " down · health every " + FleetViewModel.POLL.toSeconds() + " s";
    }

    private static String detail(FleetRow r, Instant now) {
        if (r == null) {
            return "Select a daemon for its details; double-click (or Enter) opens its pages.";
        }
        StringBuilder b = new StringBuilder(r.name() + " · " + r.entry().url());
        b.append(r.entry().tokenFile().map(t -> " · token " + t).orElse(" · no token file"));
        b.append(r.entry().pin().map(p -> " · pinned SHA256 " + p).orElse(r.entry().tls() ? " · not pinned" : ""));
        if (r.state() == FleetRow.State.DOWN && r.health().isPresent()) {
            b.append(" · last seen at r").append(r.health().get().revision()).append(r.seenAt().map(t -> " " + TIME.format(t)).orElse(""));
        }
        if (!r.error().isEmpty()) {
            b.append("\n").append(r.downForText(now)).append(": ").append(r.error());
        }
        return b.toString();
    }

    private void edit(FleetRow row) {
        edit(row, d -> { });
    }

    private void edit(FleetRow row, java.util.function.Consumer<dev.kiln.core.fleet.DaemonEntry> saved) {
        DaemonDialog dialog = new DaemonDialog(row == null ? null : row.entry(), getScene() == null ? null : getScene().getWindow());
        dialog.showAndWait().ifPresent(entry -> vm.firstContact(entry, seen -> {
            if (seen.isEmpty()) {
                report(vm.save(row == null ? null : row.name(), entry), entry, saved);
                return;
            }
            Alert trust = new Alert(Alert.AlertType.CONFIRMATION);
            trust.setTitle("Trust this certificate?");
            trust.setHeaderText(entry.name() + " presented a certificate this console does not know");
            trust.setContentText("SHA256 " + seen.get() + "\n\nCompare it with the fingerprint kiln serve printed when it"
                    + " started. Trust it only if they match: from then on, only this certificate is accepted.");
            trust.getDialogPane().setId("fleet-trust");
            ButtonType yes = new ButtonType("Trust and save", ButtonType.OK.getButtonData());
            trust.getButtonTypes().setAll(yes, ButtonType.CANCEL);
            if (getScene() != null) {
                trust.initOwner(getScene().getWindow());
            }
            trust.showAndWait().filter(b -> b == yes)
                    .ifPresent(b -> {
                        dev.kiln.core.fleet.DaemonEntry pinned = entry.withPin(seen.get());
                        report(vm.save(row == null ? null : row.name(), pinned), pinned, saved);
                    });
        }));
    }

    private void remove(FleetRow row) {
        Alert ask = new Alert(Alert.AlertType.CONFIRMATION, "Remove " + row.name() + " (" + row.entry().url()
                + ") from the daemon list? Its daemon keeps running.", ButtonType.OK, ButtonType.CANCEL);
        ask.setHeaderText(null);
        if (getScene() != null) {
            ask.initOwner(getScene().getWindow());
        }
        ask.showAndWait().filter(b -> b == ButtonType.OK).ifPresent(b -> report(vm.remove(row.name())));
    }

    /** {@code saved} gets {@code d} when {@code error} is empty; otherwise the error is shown. */
    private void report(Optional<String> error, dev.kiln.core.fleet.DaemonEntry d,
            java.util.function.Consumer<dev.kiln.core.fleet.DaemonEntry> saved) {
        report(error);
        if (error.isEmpty()) {
            saved.accept(d);
        }
    }

    private void report(Optional<String> error) {
        error.ifPresent(m -> {
            Alert a = new Alert(Alert.AlertType.ERROR, m, ButtonType.OK);
            a.setHeaderText("Not saved");
            if (getScene() != null) {
                a.initOwner(getScene().getWindow());
            }
            a.showAndWait();
        });
    }

    private TableColumn<FleetRow, String> column(String name, double width, BiFunction<FleetRow, Instant, String> value) {
        TableColumn<FleetRow, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> {
            FleetRow r = f.getValue();
            return Bindings.createStringBinding(() -> value.apply(r, vm.nowProperty().get()), vm.nowProperty());
        });
        return c;
    }

    /** The status text, coloured by state, with the full error as its tooltip. */
    private static final class StatusCell extends TableCell<FleetRow, String> {
        @Override
        protected void updateItem(String text, boolean empty) {
            super.updateItem(text, empty);
            getStyleClass().removeAll("state-ok", "state-warn", "state-bad");
            FleetRow r = getTableRow() == null ? null : getTableRow().getItem();
            if (empty || text == null || r == null) {
                setText(null);
                setTooltip(null);
                return;
            }
            setText(text);
            getStyleClass().add(switch (r.state()) {
                case UP -> "state-ok";
                case DEGRADED, CONNECTING -> "state-warn";
                case DOWN -> "state-bad";
            });
            setTooltip(new Tooltip(r.error().isEmpty() ? text : r.error()));
        }
    }

    /** The probe's verdict, in danger colour when a server failed or missed its timeout. */
    private static final class ProbeCell extends TableCell<FleetRow, String> {
        @Override
        protected void updateItem(String text, boolean empty) {
            super.updateItem(text, empty);
            getStyleClass().remove("state-bad");
            FleetRow r = getTableRow() == null ? null : getTableRow().getItem();
            setText(empty ? null : text);
            setTooltip(empty || r == null ? null : new Tooltip(r.probeTooltip()));
            if (!empty && r != null && r.probeBad()) {
                getStyleClass().add("state-bad");
            }
        }
    }
}
