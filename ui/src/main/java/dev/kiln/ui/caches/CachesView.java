package dev.kiln.ui.caches;

import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.archive.ArchiveEvent;
import dev.kiln.ui.util.Cards;
import java.io.File;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.stage.DirectoryChooser;
import javafx.stage.FileChooser;

/** The Caches page: archive cache counters as cards, a fetch form, and the cache's activity. */
public final class CachesView extends VBox {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    public CachesView(CachesViewModel vm) {
        setId("page-caches");
        getStyleClass().add("page");
        setSpacing(14);

        Label title = new Label("Caches");
        title.getStyleClass().add("title-2");
        Label sub = new Label("Source archive cache · " + vm.policy() + " · bound " + mib(vm.maximumBytes()));
        sub.getStyleClass().add("text-muted");

        HBox cards = new HBox(12,
                Cards.card("Hit rate", stat(vm, s -> s.requests() == 0 ? "–" : String.format("%.0f %%", s.hitRate() * 100)), "caches-hitrate"),
                Cards.card("Hits / misses", stat(vm, s -> s.hits() + " / " + s.misses()), "caches-hits"),
                Cards.card("Builds", stat(vm, s -> s.builds() + (s.buildFailures() > 0 ? " (" + s.buildFailures() + " failed)" : "")), null),
                Cards.card("Changed", stat(vm, s -> Long.toString(s.changesFound())), null),
                Cards.card("Evictions", stat(vm, s -> Long.toString(s.evictions())), null),
                Cards.card("Held", stat(vm, s -> mib(s.bytesHeld())), null),
                Cards.card("Last build", stat(vm, s -> s.lastBuildTime().isZero() ? "–" : s.lastBuildTime().toMillis() + " ms"), null));
        cards.getChildren().forEach(c -> ((Region) c).setMinWidth(90));
        cards.getChildren().forEach(c -> HBox.setHgrow(c, Priority.ALWAYS));

        TextField source = new TextField();
        source.setId("caches-source");
        source.setPromptText("Source directory (absolute, or relative to the workspace)");
        source.textProperty().bindBidirectional(vm.sourceProperty());
        HBox.setHgrow(source, Priority.ALWAYS);
        Button browse = new Button("Browse…");
        browse.setOnAction(e -> {
            File dir = new DirectoryChooser().showDialog(getScene().getWindow());
            if (dir != null) {
                vm.sourceProperty().set(dir.getAbsolutePath());
            }
        });
        TextField members = new TextField();
        members.setPromptText("Members (e.g. pyproject.toml README.md src) — empty: all");
        members.setPrefColumnCount(26);
        members.textProperty().bindBidirectional(vm.membersProperty());
        Button fetch = new Button("Get archive");
        fetch.setId("caches-fetch");
        fetch.getStyleClass().add("accent");
        fetch.setOnAction(e -> vm.fetch());
        fetch.disableProperty().bind(vm.busyProperty());
        Button save = new Button("Save…");
        save.setOnAction(e -> {
            if (!vm.hasArchive()) {
                return;
            }
            FileChooser chooser = new FileChooser();
            chooser.setInitialFileName("source.tar.gz");
            File f = chooser.showSaveDialog(getScene().getWindow());
            if (f != null) {
                vm.save(f.toPath());
            }
        });
        Button clear = new Button("Invalidate all");
        clear.setOnAction(e -> vm.invalidateAll());
        ProgressIndicator busy = new ProgressIndicator();
        busy.setPrefSize(18, 18);
        busy.visibleProperty().bind(vm.busyProperty());
        members.setPrefColumnCount(18);
        for (Button b : new Button[] {browse, fetch, save, clear}) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }
        HBox form = new HBox(10, source, browse, members, busy, fetch, save, clear);
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

        TableView<ArchiveEvent> table = new TableView<>(vm.activity());
        table.setId("caches-activity");
        table.getStyleClass().addAll("dense", "striped");
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getColumns().add(column("Time", 110, a -> TIME.format(a.at())));
        table.getColumns().add(column("What", 90,
                a -> a.getClass().getSimpleName().replaceAll("(?<=[a-z])(?=[A-Z])", " ").toLowerCase(java.util.Locale.ROOT)));
        table.getColumns().add(column("Source", 160, a -> a.root().toString()));
        table.getColumns().add(column("Details", 400, ArchiveEvent::summary));
        table.setPlaceholder(new Label("No archive requests yet. Get an archive above; ask again to see a hit."));
        VBox.setVgrow(table, Priority.ALWAYS);

        getChildren().addAll(new VBox(2, title, sub), cards, form, result, error, table);
    }

    private static javafx.beans.binding.StringBinding stat(CachesViewModel vm, Function<ArchiveCacheStats, String> f) {
        return Bindings.createStringBinding(() -> f.apply(vm.statsProperty().get()), vm.statsProperty());
    }

    static String mib(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        return bytes < 1024 * 1024 ? String.format("%.1f KiB", bytes / 1024.0) : String.format("%.1f MiB", bytes / 1048576.0);
    }

    private static TableColumn<ArchiveEvent, String> column(String name, double width, Function<ArchiveEvent, String> value) {
        TableColumn<ArchiveEvent, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
    }
}
