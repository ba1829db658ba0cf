package dev.kiln.ui.caches;

import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.archive.ArchiveEvent;
import dev.kiln.core.projection.TickResult;
import dev.kiln.ui.chart.LiveCharts;
import dev.kiln.ui.projection.ChartWindow;
import dev.kiln.ui.projection.ProjectionCharts;
import dev.kiln.ui.util.Cards;
import java.io.File;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.StringBinding;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.stage.DirectoryChooser;

/**
 * The Caches page: the parse cache beside the archive cache as cards and live charts (hit ratio per tick; hits,
 * misses and builds; bytes held against the bound), the archives held, a fetch form, and the cache's activity.
 * The charts redraw only while the page shows.
 */
public final class CachesView extends VBox {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());
    private final LiveCharts<CachesViewModel.Bucket> charts;

    public CachesView(CachesViewModel vm) {
        setId("page-caches");
        getStyleClass().add("page");
        setSpacing(12);

        Label title = new Label("Caches");
        title.getStyleClass().add("title-2");
        Label sub = new Label("Parse cache (contracts reused between ticks) · source archive cache, " + vm.policy()
                + ", bound " + mib(vm.maximumBytes()));
        sub.getStyleClass().add("text-muted");

        ProgressBar fill = new ProgressBar();
        fill.setId("caches-fill");
        fill.setMaxWidth(Double.MAX_VALUE);
        fill.getStyleClass().add("small"); // AtlantaFX's thin bar
        fill.setMinHeight(Region.USE_PREF_SIZE);
        fill.progressProperty().bind(Bindings.createDoubleBinding(
                () -> vm.maximumBytes() <= 0 ? 0 : Math.min(1, vm.statsProperty().get().bytesHeld() / (double) vm.maximumBytes()),
                vm.statsProperty()));
        VBox held = Cards.card("Held of " + mib(vm.maximumBytes()), stat(vm, s -> mib(s.bytesHeld())), "caches-held");
        VBox.setMargin(fill, new javafx.geometry.Insets(4, 0, 0, 0));
        held.getChildren().add(fill);

        HBox cards = new HBox(12,
                Cards.card("Parse cache entries", tick(vm, r -> String.format("%,d", CachesViewModel.ParseTick.of(r).entries())), "caches-parse-entries"),
                Cards.card("Parse hits, last tick", tick(vm, r -> ratio(CachesViewModel.ParseTick.of(r))), "caches-parse-ratio"),
                Cards.card("Archive hit rate", stat(vm, s -> s.requests() == 0 ? "–" : String.format("%.0f %%", s.hitRate() * 100)), "caches-hitrate"),
                Cards.card("Hits / misses", stat(vm, s -> s.hits() + " / " + s.misses()), "caches-hits"),
                Cards.card("Builds", stat(vm, s -> s.builds() + (s.buildFailures() > 0 ? " (" + s.buildFailures() + " failed)" : "")), null),
                held,
                Cards.card("Evictions", stat(vm, s -> Long.toString(s.evictions())), "caches-evictions"));
        cards.getChildren().forEach(c -> ((Region) c).setMinWidth(96));
        cards.getChildren().forEach(c -> HBox.setHgrow(c, Priority.ALWAYS));

        charts = new LiveCharts<>(vm::buckets, CachesViewModel.Bucket::secondsAgo, () -> vm.chartWindowProperty().get().span(),
                ChartWindow.BUCKETS, () -> { }).clock(vm::now, vm::observedFrom).chartHeight(185);
        Label caption = new Label("Live · hover for values, drag to zoom");
        caption.getStyleClass().add("text-muted");
        HBox chartHead = new HBox(10, ProjectionCharts.windowPicker(vm.chartWindowProperty()), caption);
        chartHead.setAlignment(Pos.CENTER_LEFT);
        Map<String, ToDoubleFunction<CachesViewModel.Bucket>> requests = new LinkedHashMap<>();
        requests.put("hits", CachesViewModel.Bucket::hits);
        requests.put("misses", CachesViewModel.Bucket::misses);
        requests.put("builds", CachesViewModel.Bucket::builds);
        Map<String, ToDoubleFunction<CachesViewModel.Bucket>> bytes = new LinkedHashMap<>();
        bytes.put("held (KiB)", b -> b.bytesHeld() / 1024.0);
        bytes.put("evictions", CachesViewModel.Bucket::evictions);
        GridPane grid = new GridPane();
        grid.setHgap(10);
        for (int i = 0; i < 3; i++) {
            ColumnConstraints third = new ColumnConstraints();
            third.setPercentWidth(100 / 3.0);
            grid.getColumnConstraints().add(third);
        }
        grid.add(charts.line("Parse cache hit ratio per tick (%)", "chart-parse-ratio", Map.of("reused", CachesViewModel.Bucket::hitRatio), 100), 0, 0);
        grid.add(charts.line("Archive requests per bucket", "chart-archive-requests", requests), 1, 0);
        grid.add(charts.line("Archive bytes held, bound " + mib(vm.maximumBytes()), "chart-archive-bytes", bytes), 2, 0);
        vm.chartWindowProperty().addListener((o, a, b) -> charts.redraw());
        charts.runWhileShown(this);

        TextField source = new TextField();
        source.setId("caches-source");
        source.setPromptText("Directory of the workspace (\".\" is the workspace)");
        source.textProperty().bindBidirectional(vm.sourceProperty());
        HBox.setHgrow(source, Priority.ALWAYS);
        Button browse = new Button("Browse…");
        browse.setOnAction(e -> {
            DirectoryChooser chooser = new DirectoryChooser();
            chooser.setInitialDirectory(new File(vm.workspaceRoot()));
            File dir = chooser.showDialog(getScene().getWindow());
            if (dir != null) {
                Path root = Path.of(vm.workspaceRoot());
                Path picked = dir.toPath();
                vm.sourceProperty().set(picked.startsWith(root) ? root.relativize(picked).toString() : picked.toString());
            }
        });
        browse.setVisible(!vm.remote()); // a daemon's directories are not on this machine
        browse.setManaged(!vm.remote());
        TextField members = new TextField();
        members.setPromptText("Members (empty: all)");
        members.setTooltip(new javafx.scene.control.Tooltip("Top-level members to pack, separated by spaces or commas, e.g. pyproject.toml src"));
        members.setPrefColumnCount(14);
        members.textProperty().bindBidirectional(vm.membersProperty());
        Button fetch = new Button("Get archive");
        fetch.setId("caches-fetch");
        fetch.getStyleClass().add("accent");
        fetch.setOnAction(e -> vm.fetch());
        fetch.disableProperty().bind(vm.busyProperty());
        Button clear = new Button("Invalidate all");
        clear.setOnAction(e -> vm.invalidateAll());
        ProgressIndicator busy = new ProgressIndicator();
        busy.setPrefSize(18, 18);
        busy.visibleProperty().bind(vm.busyProperty());
        for (Button b : new Button[] {browse, fetch, clear}) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }
        HBox form = new HBox(10, source, browse, members, busy, fetch, clear);
        form.setAlignment(Pos.CENTER_LEFT);

        Label result = new Label();
        result.setId("caches-result");
        result.textProperty().bind(vm.resultProperty());
        result.getStyleClass().add("text-muted");
        result.managedProperty().bind(result.textProperty().isNotEmpty());
        result.visibleProperty().bind(result.managedProperty());
        Label error = new Label();
        error.setId("caches-error");
        error.getStyleClass().add("text-danger");
        error.textProperty().bind(vm.errorProperty());
        error.managedProperty().bind(error.textProperty().isNotEmpty());
        error.visibleProperty().bind(error.managedProperty());
        error.setWrapText(true);

        TableView<EntryRow> held2 = new TableView<>(vm.entries());
        dev.kiln.ui.util.TableExport.install(held2, "archive-entries");
        held2.setId("caches-entries");
        held2.getStyleClass().addAll("dense", "striped");
        held2.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        held2.getColumns().add(ecolumn("Root", 240, EntryRow::root));
        held2.getColumns().add(ecolumn("Members", 80, EntryRow::members));
        held2.getColumns().add(ecolumn("Files", 70, r -> Integer.toString(r.files())));
        held2.getColumns().add(ecolumn("Bytes", 90, EntryRow::size));
        held2.getColumns().add(ecolumn("SHA-256", 120, EntryRow::sha256));
        held2.getColumns().add(ecolumn("Hits", 60, r -> Long.toString(r.hits())));
        held2.getColumns().add(ecolumn("Last validated", 160, EntryRow::lastValidated));
        held2.setPlaceholder(new Label("The archive cache holds nothing yet. Get an archive above; ask again to see a hit."));

        TableView<ArchiveEvent> table = new TableView<>(vm.activity());
        dev.kiln.ui.util.TableExport.install(table, "archive-activity");
        table.setId("caches-activity");
        table.getStyleClass().addAll("dense", "striped");
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getColumns().add(column("Time", 110, a -> TIME.format(a.at())));
        table.getColumns().add(column("What", 90,
                a -> a.getClass().getSimpleName().replaceAll("(?<=[a-z])(?=[A-Z])", " ").toLowerCase(java.util.Locale.ROOT)));
        table.getColumns().add(column("Source", 160, a -> a.root().toString()));
        table.getColumns().add(column("Details", 400, ArchiveEvent::summary));
        table.setPlaceholder(new Label("No archive requests yet"));

        Tab entriesTab = new Tab();
        entriesTab.textProperty().bind(Bindings.concat("Archives held (", Bindings.size(vm.entries()).asString(), ")"));
        entriesTab.setContent(held2);
        Tab activityTab = new Tab("Activity", table);
        TabPane tabs = new TabPane(entriesTab, activityTab);
        tabs.setId("caches-tabs");
        tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        tabs.setMinHeight(140);
        tabs.setPrefHeight(160); // grows into what is left: a tall default would squeeze the charts instead
        VBox.setVgrow(tabs, Priority.ALWAYS);

        getChildren().addAll(new VBox(2, title, sub), cards, chartHead, grid, form, result, error, tabs);
        vm.refresh();
    }

    /** Redraws the charts now (they also redraw once a second while shown). */
    public void redraw() {
        charts.redraw();
    }

    /** Whether the charts redraw (for tests: a hidden page must not). */
    public boolean chartsLive() {
        return charts.isLive();
    }

    private static String ratio(CachesViewModel.ParseTick t) {
        return t.entries() == 0 ? "–" : String.format("%.0f %%", Math.floor(t.hitRatio())); // 58 of 59 is 98 %, never a rounded 100 %
    }

    private static StringBinding stat(CachesViewModel vm, Function<ArchiveCacheStats, String> f) {
        return Bindings.createStringBinding(() -> f.apply(vm.statsProperty().get()), vm.statsProperty());
    }

    private static StringBinding tick(CachesViewModel vm, Function<TickResult, String> f) {
        return Bindings.createStringBinding(() -> vm.lastTickProperty().get() == null ? "–" : f.apply(vm.lastTickProperty().get()),
                vm.lastTickProperty());
    }

    static String mib(long bytes) {
        return EntryRow.size(bytes);
    }

    private static TableColumn<ArchiveEvent, String> column(String name, double width, Function<ArchiveEvent, String> value) {
        TableColumn<ArchiveEvent, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
    }

    private static TableColumn<EntryRow, String> ecolumn(String name, double width, Function<EntryRow, String> value) {
        TableColumn<EntryRow, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
    }
}
