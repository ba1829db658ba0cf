package dev.kiln.ui.util;

import dev.kiln.core.workspace.AtomicWrite;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javafx.scene.control.Alert;
import javafx.scene.control.ContextMenu;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.input.Clipboard;
import javafx.scene.input.ClipboardContent;
import javafx.stage.FileChooser;

/**
 * Any table's context menu: copy the selected row, copy the table or export it as CSV (RFC 4180, a header of the
 * shown columns, the rows as shown: filtered and sorted). One line hooks a table up: {@link #install}. What is
 * exported is what each column's cell value says, so the file equals the table.
 *
 * <p>Concurrency: FX thread only.
 */
public final class TableExport {
    private TableExport() {
    }

    /** Adds Copy row, Copy table as CSV and Export as CSV… to {@code table}'s context menu (kept if it has one). */
    public static void install(TableView<?> table, String name) {
        MenuItem row = new MenuItem("Copy row");
        row.setOnAction(e -> copy(selectedRows(table)));
        row.disableProperty().bind(table.getSelectionModel().selectedItemProperty().isNull());
        MenuItem all = new MenuItem("Copy table as CSV");
        all.setOnAction(e -> copy(csv(table)));
        MenuItem file = new MenuItem("Export as CSV…");
        file.setOnAction(e -> {
            FileChooser choose = new FileChooser();
            choose.setTitle("Export " + name);
            choose.setInitialFileName(name + ".csv");
            choose.getExtensionFilters().add(new FileChooser.ExtensionFilter("CSV", "*.csv"));
            java.io.File f = choose.showSaveDialog(table.getScene() == null ? null : table.getScene().getWindow());
            if (f != null) {
                try {
                    write(table, f.toPath());
                } catch (IOException ex) {
                    new Alert(Alert.AlertType.ERROR, "The table could not be written to " + f + ": " + ex.getMessage()
                            + ". Nothing was replaced; choose another place and try again.").show();
                }
            }
        });
        ContextMenu menu = table.getContextMenu();
        if (menu == null) {
            table.setContextMenu(new ContextMenu(row, all, file));
        } else {
            menu.getItems().addAll(new SeparatorMenuItem(), row, all, file);
        }
    }

    /** Writes {@code table} as CSV to {@code file}, whole or not at all. */
    public static void write(TableView<?> table, Path file) throws IOException {
        AtomicWrite.write(file, csv(table).getBytes(StandardCharsets.UTF_8));
    }

    /** The table as CSV: a header of the shown columns' names, then every shown row (CRLF line ends, RFC 4180). */
    public static String csv(TableView<?> table) {
        List<? extends TableColumn<?, ?>> columns = table.getVisibleLeafColumns();
        StringBuilder b = new StringBuilder();
        line(b, columns.stream().map(TableExport::header).toList());
        for (int i = 0; i < table.getItems().size(); i++) {
            line(b, cells(table, i));
        }
        return b.toString();
    }

    /** The shown cells of row {@code i}, as text. */
    public static List<String> cells(TableView<?> table, int i) {
        List<String> out = new ArrayList<>();
        for (TableColumn<?, ?> c : table.getVisibleLeafColumns()) {
            Object v = c.getCellData(i);
            out.add(v == null ? "" : v.toString());
        }
        return out;
    }

    /** The selected rows as CSV, without a header (what a person pastes beside another row). */
    static String selectedRows(TableView<?> table) {
        StringBuilder b = new StringBuilder();
        for (int i : table.getSelectionModel().getSelectedIndices()) {
            line(b, cells(table, i));
        }
        return b.toString();
    }

    private static String header(TableColumn<?, ?> c) {
        String name = c.getText() == null ? "" : c.getText();
        // a nested column carries its parent's name too ("Phases / fetch")
        return c.getParentColumn() instanceof TableColumn<?, ?> p && p.getText() != null && !p.getText().isEmpty()
                ? p.getText() + " / " + name : name;
    }

    private static void line(StringBuilder b, List<String> cells) {
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(quote(cells.get(i)));
        }
        b.append("\r\n");
    }

    /** A field quoted when it holds a comma, a quote or a line break, its quotes doubled (RFC 4180). */
    static String quote(String field) {
        if (field.indexOf(',') < 0 && field.indexOf('"') < 0 && field.indexOf('\n') < 0 && field.indexOf('\r') < 0) {
            return field;
        }
        return '"' + field.replace("\"", "\"\"") + '"';
    }

    private static void copy(String text) {
        ClipboardContent c = new ClipboardContent();
        c.putString(text);
        Clipboard.getSystemClipboard().setContent(c);
    }
}
