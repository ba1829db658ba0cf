package dev.kiln.ui.fleet;

import dev.kiln.core.fleet.FleetActions;
import dev.kiln.ui.util.Cards;
import java.util.List;
import javafx.collections.FXCollections;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Separator;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TextField;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.GridPane;
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
 * The Fleet page: every daemon of the list in one table, live (ages and countdowns tick every second), sorted by its
 * health verdict and filterable, with add, edit and remove; double-click or Enter opens a daemon's pages. The daemons
 * ticked in the first column take a fleet-wide action (probe, warm stale seeds, doctor): a progress row per daemon,
 * cancel all, and for a probe a heat map of hosts × servers. All it shows comes from {@link FleetViewModel}.
 */
public final class FleetView extends VBox {
    private final FleetViewModel vm;
    private static final java.time.format.DateTimeFormatter TIME = java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss")
            .withZone(java.time.ZoneId.systemDefault());
    private final TableView<FleetRow> table;
    private final TextField filterField = org.controlsfx.control.textfield.TextFields.createClearableTextField();
    private String selectedName;

    public FleetView(FleetViewModel vm) {
        this.vm = vm;
        setId("page-fleet");
        getStyleClass().add("page");
        setSpacing(10);

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
        dev.kiln.ui.util.TableExport.install(table, "fleet");
        table.setId("fleet-table");
        table.getStyleClass().addAll("striped", "dense", "fleet-table");
        // the dense rows' own height, fixed: a table whose rows change every poll then skips re-measuring them
        table.setFixedCellSize(28);
        // as wide as the page, never wider: the columns' widths summed were past 1180 wide and the page scrolled sideways
        table.setMinWidth(0);
        table.setPrefWidth(100);
        // the figures keep their widths; what they leave goes to Health and Last probe (fitColumns), never more: a
        // constrained policy let a column that grew to its text (FullTextCell, a header's width) push the last one
        // past the table's edge, clipped without a scroll bar
        table.setColumnResizePolicy(TableView.UNCONSTRAINED_RESIZE_POLICY);
        table.getColumns().add(chooseColumn());
        TableColumn<FleetRow, String> daemon = column("Daemon", 96, (r, now) -> r.name() + (r.saved() ? "" : " (session)"));
        daemon.setMaxWidth(170);
        table.getColumns().add(daemon);
        TableColumn<FleetRow, String> status = timed(column("Health", 280, FleetRow::healthText));
        status.setCellFactory(c -> new StatusCell());
        status.setMinWidth(180); // the verdict's word and the head of its first reason, however narrow the window
        table.getColumns().add(status);
        table.getColumns().add(fixed(column("Rev.", 52, (r, now) -> r.revisionText())));
        table.getColumns().add(fixed(timed(column("Projected", 94, FleetRow::projectedText))));
        table.getColumns().add(fixed(column("Watch", 66, (r, now) -> r.watchText())));
        table.getColumns().add(fixed(column("Contracts", 100, (r, now) -> r.contractsText())));
        table.getColumns().add(fixed(column("Seeds", 104, (r, now) -> r.seedsText())));
        TableColumn<FleetRow, String> probe = column("Last probe", 130, (r, now) -> r.probeText());
        probe.setMaxWidth(260);
        probe.setCellFactory(c -> new ProbeCell());
        table.getColumns().add(probe);
        fitColumns(table, status, probe);
        table.setPlaceholder(new Label("No daemons yet. Connect to one: its URL, token file and certificate pin"
                + " are what kiln serve prints when it starts."));
        table.setRowFactory(t -> {
            TableRow<FleetRow> row = new TableRow<>() {
                @Override
                protected void updateItem(FleetRow r, boolean empty) {
                    super.updateItem(r, empty);
                    String tint = empty || r == null ? "" : r.tint(); // pseudo-classes: no CSS re-match per update
                    pseudoClassStateChanged(VERDICT_FAILING, tint.equals("failing"));
                    pseudoClassStateChanged(VERDICT_DEGRADED, tint.equals("degraded"));
                }
            };
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
        table.getColumns().forEach(c -> c.setSortable(false)); // the order is the sort choice's: failing first
        VBox.setVgrow(table, Priority.ALWAYS);
        // a small fleet's rows all show, whatever the split leaves the table (a half row looked cut off at 1180x740)
        table.minHeightProperty().bind(Bindings.createDoubleBinding(() -> 36 + Math.min(4, Math.max(1, vm.rows().size()))
                * table.getFixedCellSize(), vm.rows()));
        // The selection follows the daemon, not the index: rows are replaced on every answer and move as their state does.
        vm.focusedProperty().addListener((o, a, name) -> select(name));
        table.getSelectionModel().selectedItemProperty().addListener((o, a, r) -> {
            if (r != null) {
                selectedName = r.name();
            }
        });
        vm.rows().addListener((javafx.collections.ListChangeListener<FleetRow>) c -> {
            FleetRow now = table.getSelectionModel().getSelectedItem();
            if (now != null && selectedName != null && now.name().equalsIgnoreCase(selectedName) && table.getItems().contains(now)) {
                return; // the selection held through the change: no hop
            }
            javafx.application.Platform.runLater(() -> {
                if (selectedName == null && !table.getItems().isEmpty()) {
                    selectedName = table.getItems().get(0).name(); // the one that needs a look most
                }
                select(selectedName);
            });
        });

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
        // the last edit's outcome, under the summary while there is one: at the end of the button bar it (and its
        // spacing) made the bar wider than the page at 1180 wide, which then scrolled sideways
        Label message = new Label();
        message.setId("fleet-message");
        message.getStyleClass().add("text-muted");
        message.textProperty().bind(vm.messageProperty());
        message.managedProperty().bind(message.textProperty().isNotEmpty());
        message.visibleProperty().bind(message.managedProperty());
        HBox bar = new HBox(10, connect, editButton, remove, open, new Separator(javafx.geometry.Orientation.VERTICAL));
        bar.getChildren().addAll(actionButtons());
        for (Button b : new Button[] {connect, editButton, remove, open}) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }
        bar.setAlignment(Pos.CENTER_LEFT);

        Label detail = new Label();
        detail.setId("fleet-detail");
        detail.getStyleClass().add("text-muted");
        detail.setWrapText(true);
        detail.setMinHeight(Region.USE_PREF_SIZE); // its second line (why a daemon is down) shows, not "…"
        detail.textProperty().bind(Bindings.createStringBinding(() -> detail(table.getSelectionModel().getSelectedItem(), vm.nowProperty().get()),
                table.getSelectionModel().selectedItemProperty(), vm.nowProperty()));

        // The fleet by verdict: a card each, coloured by its verdict while a daemon is in it (icon and word too), the
        // daemons named under the number; a click shows only those rows.
        HBox cards = new HBox(12,
                verdictCard("Healthy", c -> c.healthy(), FleetCounts::healthyCard, "fleet-healthy", "healthy"),
                verdictCard("Degraded", c -> c.degraded(), FleetCounts::degradedCard, "fleet-degraded", "degraded"),
                verdictCard("Failing", c -> c.failing(), FleetCounts::failingCard, "fleet-failing", "failing"),
                verdictCard("Unreachable", c -> c.unreachable(), FleetCounts::unreachableCard, "fleet-unreachable", "down"),
                Cards.card("Contract failures", fleet(r -> live(r).map(h -> h.failures()).orElse(0L), Object::toString), "fleet-failures"),
                Cards.card("Stale seeds", fleet(r -> live(r).flatMap(h -> h.seeds()).map(x -> (long) x.stale()).orElse(0L),
                        Object::toString), "fleet-stale-seeds"));
        cards.getChildren().forEach(c -> HBox.setHgrow(c, Priority.ALWAYS));
        cards.setMinHeight(Region.USE_PREF_SIZE);

        getStylesheets().add(FleetView.class.getResource("fleet.css").toExternalForm());
        SplitPane split = new SplitPane(table, results());
        split.setId("fleet-split");
        split.setOrientation(javafx.geometry.Orientation.VERTICAL);
        split.setDividerPositions(0.46); // a small fleet's rows and a probe's heat map both whole at the default size
        VBox.setVgrow(split, Priority.ALWAYS);
        getChildren().addAll(new VBox(2, title, sub, message), listError, cards, bar, tools(), split, detail);

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

    /** The page's model (for the fleet benchmark, which times its poll cycles). */
    public FleetViewModel model() {
        return vm;
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

    /**
     * Gives {@code health} and {@code probe} what the other columns leave of the table's width (a third of it to the
     * probe, within its minimum and maximum), again whenever the table, a column or the vertical scroll bar changes:
     * the columns then always end at the table's edge, whatever grew.
     */
    private static void fitColumns(TableView<FleetRow> table, TableColumn<FleetRow, String> health, TableColumn<FleetRow, String> probe) {
        javafx.beans.InvalidationListener fit = o -> {
            double room = table.getWidth() - table.snappedLeftInset() - table.snappedRightInset();
            for (javafx.scene.Node n : table.lookupAll(".scroll-bar")) {
                if (n instanceof javafx.scene.control.ScrollBar b && b.getOrientation() == javafx.geometry.Orientation.VERTICAL
                        && b.isVisible()) {
                    room -= b.getWidth();
                }
            }
            if (room <= 0) {
                return;
            }
            double left = room - 1; // a pixel to spare: a rounding past the edge would show a sideways scroll bar
            for (TableColumn<FleetRow, ?> c : table.getColumns()) {
                if (c != health && c != probe && c.isVisible()) {
                    left -= c.getWidth();
                }
            }
            double p = Math.max(probe.getMinWidth(), Math.min(probe.getMaxWidth(), Math.floor(left / 3)));
            double h = Math.max(health.getMinWidth(), Math.floor(left - p));
            if (probe.getPrefWidth() != p) {
                probe.setPrefWidth(p);
            }
            if (health.getPrefWidth() != h) {
                health.setPrefWidth(h);
            }
        };
        table.widthProperty().addListener(fit);
        for (TableColumn<FleetRow, ?> c : table.getColumns()) {
            if (c != health && c != probe) {
                c.widthProperty().addListener(fit);
            }
        }
        health.minWidthProperty().addListener(fit);
        probe.minWidthProperty().addListener(fit);
        table.skinProperty().addListener((o, a, skin) -> {
            for (javafx.scene.Node n : table.lookupAll(".scroll-bar")) {
                if (n instanceof javafx.scene.control.ScrollBar b && b.getOrientation() == javafx.geometry.Orientation.VERTICAL) {
                    b.visibleProperty().addListener(fit);
                    b.widthProperty().addListener(fit);
                }
            }
            fit.invalidated(table.widthProperty());
        });
    }

    private static final javafx.css.PseudoClass VERDICT_FAILING = javafx.css.PseudoClass.getPseudoClass("verdict-failing");
    private static final javafx.css.PseudoClass VERDICT_DEGRADED = javafx.css.PseudoClass.getPseudoClass("verdict-degraded");

    /** A card counting one verdict over the whole fleet; a click filters the rows to it (again: shows all). */
    private VBox verdictCard(String label, java.util.function.ToIntFunction<FleetCounts> count,
            java.util.function.Function<FleetCounts, dev.kiln.ui.health.CardState> state, String id, String filterWord) {
        VBox card = dev.kiln.ui.health.HealthCards.decorate(Cards.card(label, Bindings.createStringBinding(
                () -> Integer.toString(count.applyAsInt(vm.countsProperty().get())), vm.countsProperty()), id),
                Bindings.createObjectBinding(() -> state.apply(vm.countsProperty().get()), vm.countsProperty()), id);
        card.getStyleClass().add("fleet-card");
        card.setOnMouseClicked(e -> filterField.setText(filterWord.equals(vm.filterProperty().get()) ? "" : filterWord));
        return card;
    }

    /** A sum over the rows, rendered, updated with them. */
    private javafx.beans.binding.StringBinding fleet(java.util.function.ToLongFunction<FleetRow> each,
            java.util.function.Function<Long, String> render) {
        return Bindings.createStringBinding(() -> render.apply(vm.allRows().stream().mapToLong(each).sum()), vm.rows(),
                vm.countsProperty()); // the whole fleet, whatever the filter
    }

    /** The health a row shows now: none while it is down. */
    private static Optional<dev.kiln.core.health.DaemonHealth> live(FleetRow r) {
        return r.state() == FleetRow.State.DOWN ? Optional.empty() : r.health();
    }

    private static String summary(FleetViewModel vm) {
        List<FleetRow> all = vm.allRows();
        long[] by = new long[4]; // by FleetRow.verdictRank: failing, degraded, unknown (not asked yet), healthy
        all.forEach(r -> by[r.verdictRank()]++);
        long down = all.stream().filter(r -> r.state() == FleetRow.State.DOWN).count();
        return all.size() + (all.size() == 1 ? " daemon" : " daemons") + " · " + by[0]
                + " failing (" + down + " down) · " + by[1] + " degraded · "
                + by[2] + " unknown · " + by[3]
                + " healthy · " + (vm.rows().size() == all.size() ? "" : vm.rows().size() + " shown · ")
                + "health every " + FleetViewModel.POLL.toSeconds() + " s";
    }

    /** Filter, order, and the fleet-wide actions on the ticked daemons. */
    private HBox tools() {
        TextField filter = filterField;
        filter.setId("fleet-filter");
        filter.setPromptText("Filter: name, URL or state (failing, degraded, down…)");
        filter.setPrefColumnCount(24);
        filter.textProperty().addListener((o, a, t) -> vm.filter(t));
        ChoiceBox<FleetViewModel.Sort> sort = new ChoiceBox<>(FXCollections.observableArrayList(FleetViewModel.Sort.values()));
        sort.setId("fleet-sort");
        sort.setValue(vm.sortProperty().get());
        sort.valueProperty().addListener((o, a, v) -> vm.sort(v));
        Label sortLabel = new Label("Sort by");
        Button all = new Button("Tick shown");
        all.setId("fleet-choose-shown");
        all.setOnAction(e -> vm.chooseShown());
        Button none = new Button("Tick none");
        none.setId("fleet-choose-none");
        none.setOnAction(e -> vm.chooseNone());
        Label chosen = new Label();
        chosen.setId("fleet-chosen");
        chosen.getStyleClass().add("text-muted");
        // short: at the default width the row holds it beside the filter (a longer line pushed the page to scroll sideways)
        chosen.textProperty().bind(Bindings.createStringBinding(() -> vm.chosen().size() + " of " + vm.allRows().size()
                + " ticked", vm.chosen(), vm.rows()));
        chosen.setTooltip(new Tooltip("Daemons ticked in the first column take the next fleet action (Probe, Warm stale seeds, Doctor)"));
        filter.setPrefColumnCount(22);
        filter.setMinWidth(160);
        HBox.setHgrow(filter, Priority.SOMETIMES);
        for (javafx.scene.control.Control c : new javafx.scene.control.Control[] {sortLabel, sort, all, none, chosen}) {
            c.setMinWidth(Region.USE_PREF_SIZE);
        }
        HBox box = new HBox(8, filter, sortLabel, sort, new Separator(javafx.geometry.Orientation.VERTICAL), all, none, chosen);
        box.setAlignment(Pos.CENTER_LEFT);
        return box;
    }

    /** Probe, warm, doctor on the ticked daemons, and cancel all. */
    private List<Button> actionButtons() {
        Button probe = action("Probe", "fleet-probe", FleetActions.Kind.PROBE);
        Button warm = action("Warm stale seeds", "fleet-warm", FleetActions.Kind.WARM);
        Button doctor = action("Doctor", "fleet-doctor", FleetActions.Kind.DOCTOR);
        Button cancel = new Button("Cancel all");
        cancel.setId("fleet-cancel");
        cancel.getStyleClass().add("danger");
        cancel.setOnAction(e -> vm.cancelAll());
        cancel.disableProperty().bind(vm.actionRunningProperty().not());
        for (Button b : new Button[] {probe, warm, doctor}) {
            b.disableProperty().bind(Bindings.isEmpty(vm.chosen()).or(vm.actionRunningProperty()));
            b.setTooltip(new Tooltip("Runs on every ticked daemon at once, each on its own host"));
        }
        for (Button b : new Button[] {probe, warm, doctor, cancel}) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }
        return List.of(probe, warm, doctor, cancel);
    }

    private Button action(String text, String id, FleetActions.Kind kind) {
        Button b = new Button(text);
        b.setId(id);
        b.setOnAction(e -> vm.runAction(kind).ifPresent(m -> {
            Alert a = new Alert(Alert.AlertType.INFORMATION, m, ButtonType.OK);
            a.setHeaderText("Nothing started");
            if (getScene() != null) {
                a.initOwner(getScene().getWindow());
            }
            a.showAndWait();
        }));
        return b;
    }

    /** The tick box of a daemon: chosen for the next action (the view model keeps it across row updates). */
    private TableColumn<FleetRow, String> chooseColumn() {
        TableColumn<FleetRow, String> c = new TableColumn<>("✓");
        c.setId("fleet-choose");
        c.setPrefWidth(34);
        c.setMinWidth(34);
        c.setMaxWidth(34);
        c.setCellValueFactory(f -> new javafx.beans.property.SimpleStringProperty(f.getValue().name()));
        c.setCellFactory(col -> new TableCell<>() {
            private final CheckBox box = new CheckBox();

            {
                box.setOnAction(e -> {
                    if (getItem() != null) {
                        vm.choose(getItem(), box.isSelected());
                    }
                });
            }

            @Override
            protected void updateItem(String name, boolean empty) {
                super.updateItem(name, empty);
                if (empty || name == null) {
                    setGraphic(null);
                    return;
                }
                box.setSelected(vm.isChosen(name));
                box.setId("fleet-choose-" + name);
                setGraphic(box);
            }
        });
        vm.chosen().addListener((javafx.collections.SetChangeListener<String>) ch -> table.refresh());
        return c;
    }

    /** What the last action did: a progress row per daemon beside, for a probe, its heat map. */
    private VBox results() {
        Label head = new Label();
        head.setId("fleet-action-summary");
        head.getStyleClass().add("title-4");
        head.textProperty().bind(Bindings.createStringBinding(() -> vm.actionKindProperty().get() == null
                ? "Fleet actions: tick daemons, then Probe, Warm stale seeds or Doctor; each runs on its own host"
                : vm.actionSummaryProperty().get(), vm.actionKindProperty(), vm.actionSummaryProperty()));
        head.setWrapText(true);

        TableView<FleetActions.Progress> runs = new TableView<>(vm.progress());
        dev.kiln.ui.util.TableExport.install(runs, "fleet-runs");
        runs.setId("fleet-progress");
        runs.getStyleClass().addAll("dense", "fleet-table");
        runs.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        runs.setPlaceholder(new Label("No fleet action yet"));
        TableColumn<FleetActions.Progress, String> host = progressColumn("Daemon", 80, FleetActions.Progress::name);
        TableColumn<FleetActions.Progress, String> st = progressColumn("Progress", 96, p -> glyph(p.state()) + " " + p.state().word());
        st.setCellFactory(col -> new ProgressCell(false));
        TableColumn<FleetActions.Progress, String> took = progressColumn("Took", 56,
                p -> p.took().map(d -> FleetRow.age(d)).orElse(p.state() == FleetActions.State.RUNNING ? "…" : "–"));
        TableColumn<FleetActions.Progress, String> what = progressColumn("Result", 200, FleetActions.Progress::message);
        what.setCellFactory(col -> new ProgressCell(true));
        runs.getColumns().addAll(List.of(host, st, took, what));
        runs.getColumns().forEach(c -> c.setSortable(false));
        runs.setMinWidth(360);
        runs.setPrefWidth(400); // the heat map beside it gets the width for three servers at 1180 wide
        HBox.setHgrow(runs, Priority.ALWAYS);

        GridPane heat = new GridPane();
        heat.setId("fleet-heat");
        heat.getStyleClass().add("fleet-heat");
        heat.setHgap(4);
        heat.setVgap(4);
        ScrollPane heatScroll = new ScrollPane(heat);
        heatScroll.setId("fleet-heat-scroll");
        heatScroll.setFitToWidth(false);
        heatScroll.setPrefViewportWidth(420);
        FlowPane legend = new FlowPane(6, 4);
        legend.setId("fleet-heat-legend");
        legend.setAlignment(Pos.CENTER_LEFT);
        // short, so the legend is one line at 1180 wide (two lines took a heat map row's height)
        Label lt = new Label("Slowest vs timeout:");
        lt.getStyleClass().add("text-muted");
        lt.setTooltip(new Tooltip("Each cell: the server's slowest answer in the probe against its startup timeout"));
        legend.getChildren().add(lt);
        for (FleetViewModel.Heat h : FleetViewModel.Heat.values()) {
            Label l = new Label(h.glyph() + " " + h.legend());
            l.getStyleClass().addAll("heat-cell", h.styleClass());
            l.setMinWidth(Region.USE_PREF_SIZE);
            legend.getChildren().add(l);
        }
        VBox heatBox = new VBox(6, legend, heatScroll);
        heatBox.setMinWidth(320);
        heatBox.setPrefWidth(520);
        VBox.setVgrow(heatScroll, Priority.ALWAYS);
        HBox.setHgrow(heatBox, Priority.ALWAYS);
        heatBox.managedProperty().bind(Bindings.createBooleanBinding(() -> vm.actionKindProperty().get() == FleetActions.Kind.PROBE,
                vm.actionKindProperty()));
        heatBox.visibleProperty().bind(heatBox.managedProperty());
        vm.progress().addListener((javafx.collections.ListChangeListener<FleetActions.Progress>) c -> drawHeat(heat));
        drawHeat(heat); // a page made again (another window size or theme) shows the last action's map at once

        HBox side = new HBox(10, runs, heatBox);
        VBox.setVgrow(side, Priority.ALWAYS);
        VBox box = new VBox(6, head, side);
        box.setId("fleet-results");
        box.setPadding(new javafx.geometry.Insets(6, 0, 0, 0));
        return box;
    }

    /** Hosts × servers of the last probe; a host whose probe did not finish says why in one cell. */
    private void drawHeat(GridPane grid) {
        grid.getChildren().clear();
        List<String> servers = vm.heatServers();
        if (vm.actionKindProperty().get() != FleetActions.Kind.PROBE) {
            return;
        }
        Label corner = new Label("host \\ server");
        corner.getStyleClass().add("text-muted");
        grid.add(corner, 0, 0);
        for (int c = 0; c < servers.size(); c++) {
            Label h = new Label(servers.get(c));
            h.getStyleClass().add("heat-head");
            grid.add(h, c + 1, 0);
        }
        int row = 1;
        for (FleetActions.Progress p : vm.progress()) {
            Label name = new Label(p.name());
            name.getStyleClass().add("heat-host");
            grid.add(name, 0, row);
            if (p.probe().isEmpty()) {
                Label why = new Label(glyph(p.state()) + " " + p.state().word() + (p.state() == FleetActions.State.FAILED
                        ? ": " + p.code() : ""));
                why.getStyleClass().addAll("heat-cell", p.state() == FleetActions.State.FAILED ? "heat-over" : "heat-none");
                why.setTooltip(new Tooltip(p.message()));
                grid.add(why, 1, row, Math.max(1, servers.size()), 1);
            } else {
                java.util.Map<String, FleetActions.Heat> byServer = new java.util.HashMap<>();
                p.heat().forEach(h -> byServer.put(h.server(), h));
                for (int c = 0; c < servers.size(); c++) {
                    FleetActions.Heat h = byServer.get(servers.get(c));
                    Label cell = new Label(h == null ? "–" : FleetViewModel.heatText(h));
                    cell.setId("fleet-heat-" + p.name() + "-" + servers.get(c));
                    cell.getStyleClass().addAll("heat-cell", h == null ? "heat-none" : FleetViewModel.Heat.of(h).styleClass());
                    if (h != null) {
                        cell.setTooltip(new Tooltip(h.server() + " on " + p.name() + ": " + (h.ok() ? "slowest answer "
                                + Math.round(h.slowestMs()) + " ms" : h.outcome()) + " of a " + h.timeoutMs() / 1000
                                + " s timeout (" + Math.round(h.share() * 100) + " %)"));
                    }
                    grid.add(cell, c + 1, row);
                }
            }
            row++;
        }
    }

    private static String glyph(FleetActions.State s) {
        return switch (s) {
            case QUEUED -> "…";
            case RUNNING -> "▶";
            case DONE -> "✓";
            case FAILED -> "✕";
            case CANCELLED -> "–";
        };
    }

    private static TableColumn<FleetActions.Progress, String> progressColumn(String name, double width,
            java.util.function.Function<FleetActions.Progress, String> value) {
        TableColumn<FleetActions.Progress, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new javafx.beans.property.SimpleStringProperty(value.apply(f.getValue())));
        return c;
    }

    /** A progress cell coloured by its daemon's state (and, for the doctor, its verdict), the full text as tooltip. */
    private static final class ProgressCell extends TableCell<FleetActions.Progress, String> {
        /** Whether it shows the result (coloured by what was found) rather than the state (coloured by the state). */
        private final boolean result;

        ProgressCell(boolean result) {
            this.result = result;
        }

        @Override
        protected void updateItem(String text, boolean empty) {
            super.updateItem(text, empty);
            getStyleClass().removeAll("state-ok", "state-warn", "state-bad");
            FleetActions.Progress p = getTableRow() == null ? null : getTableRow().getItem();
            if (empty || text == null || p == null) {
                setText(null);
                setTooltip(null);
                return;
            }
            setText(text);
            setTooltip(new Tooltip(p.message()));
            String style = switch (p.state()) {
                case DONE -> !result ? "state-ok" : p.diagnosis().map(d -> switch (d.verdict()) {
                    case UP_TO_DATE -> "state-ok";
                    case STALE -> "state-warn";
                    case CANNOT_TELL -> "state-bad";
                }).orElse(p.probe().map(r -> r.failed() > 0 || r.overTimeout() > 0 ? "state-bad" : "state-ok").orElse("state-ok"));
                case FAILED -> "state-bad";
                case RUNNING, QUEUED, CANCELLED -> null;
            };
            if (style != null) {
                getStyleClass().add(style);
            }
        }
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

    private static TableColumn<FleetRow, String> fixed(TableColumn<FleetRow, String> c) {
        c.setMinWidth(c.getPrefWidth());
        c.setMaxWidth(c.getPrefWidth());
        return c;
    }

    private TableColumn<FleetRow, String> column(String name, double width, BiFunction<FleetRow, Instant, String> value) {
        TableColumn<FleetRow, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        // a row's text, fixed: a row is replaced when it shows something else (the clock moves only timed columns)
        c.setCellValueFactory(f -> new javafx.beans.property.ReadOnlyStringWrapper(value.apply(f.getValue(), vm.nowProperty().get())));
        c.getProperties().put(VALUE, value);
        return c;
    }

    private static final String VALUE = "kiln-fleet-value";

    /**
     * {@code c}'s text follows the clock (ages, countdowns): a binding per shown cell on the page's clock; the other
     * columns' cells are not touched by its ticks.
     */
    @SuppressWarnings("unchecked")
    private TableColumn<FleetRow, String> timed(TableColumn<FleetRow, String> c) {
        BiFunction<FleetRow, Instant, String> value = (BiFunction<FleetRow, Instant, String>) c.getProperties().get(VALUE);
        c.setCellValueFactory(f -> {
            FleetRow r = f.getValue();
            return Bindings.createStringBinding(() -> value.apply(r, vm.nowProperty().get()), vm.nowProperty());
        });
        return c;
    }

    /** The health text, coloured by the verdict beside its glyph, with the full reasons (or error) as its tooltip. */
    private static final class StatusCell extends TableCell<FleetRow, String> {
        /** One per cell, its text set per update: a tooltip is a popup window of its own, too dear to make per update. */
        private final Tooltip tip = new Tooltip();
        private String style = "";

        /** Changes the style class only when it changes: a style class change re-matches the cell's CSS. */
        private void style(String s) {
            if (!s.equals(style)) {
                getStyleClass().remove(style);
                if (!s.isEmpty()) {
                    getStyleClass().add(s);
                }
                style = s;
            }
        }

        @Override
        protected void updateItem(String text, boolean empty) {
            super.updateItem(text, empty);
            FleetRow r = getTableRow() == null ? null : getTableRow().getItem();
            if (empty || text == null || r == null) {
                style("");
                setText(null);
                setTooltip(null);
                return;
            }
            int rank = r.verdictRank();
            setText(switch (rank) {
                case 0 -> "✕ ";
                case 1 -> "▲ ";
                case 2 -> "? ";
                default -> "✓ ";
            } + text);
            style(switch (rank) {
                case 0 -> "state-bad";
                case 1 -> "state-warn";
                case 2 -> "text-muted";
                default -> "state-ok";
            });
            tip.setText((r.error().isEmpty() ? r.verdictText() + (r.state() == FleetRow.State.DEGRADED
                    ? "\n" + r.reachText(java.time.Instant.now()) : "") : r.error())
                    + (r.alerts().isEmpty() ? "" : "\n" + r.alertsText()));
            if (getTooltip() != tip) {
                setTooltip(tip);
            }
        }
    }

    /** The probe's verdict, in danger colour when a server failed or missed its timeout. */
    private static final class ProbeCell extends TableCell<FleetRow, String> {
        private final Tooltip tip = new Tooltip();

        @Override
        protected void updateItem(String text, boolean empty) {
            super.updateItem(text, empty);
            FleetRow r = getTableRow() == null ? null : getTableRow().getItem();
            setText(empty ? null : text);
            if (empty || r == null) {
                setTooltip(null);
            } else {
                tip.setText(r.probeTooltip());
                if (getTooltip() != tip) {
                    setTooltip(tip);
                }
            }
            boolean bad = !empty && r != null && r.probeBad();
            if (bad != getStyleClass().contains("state-bad")) {
                if (bad) {
                    getStyleClass().add("state-bad");
                } else {
                    getStyleClass().remove("state-bad");
                }
            }
        }
    }
}
