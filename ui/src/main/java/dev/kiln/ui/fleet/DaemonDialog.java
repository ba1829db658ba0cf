package dev.kiln.ui.fleet;

import dev.kiln.core.fleet.DaemonEntry;
import java.io.File;
import javafx.event.ActionEvent;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.scene.control.Dialog;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.stage.FileChooser;
import javafx.stage.Window;

/**
 * "Connect to daemon…": name, URL, token file and certificate pin, checked when OK is pressed (the dialog stays open
 * and says what is wrong). The pin may stay empty for a TLS daemon: the page then shows the certificate's
 * fingerprint and asks whether to trust it.
 */
final class DaemonDialog extends Dialog<DaemonEntry> {
    private DaemonEntry result;

    DaemonDialog(DaemonEntry existing, Window owner) {
        setTitle(existing == null ? "Connect to daemon" : "Edit daemon " + existing.name());
        setHeaderText(existing == null ? "A kiln serve to watch: it prints its URL, token file and (with TLS) its"
                + " certificate's fingerprint when it starts." : null);
        if (owner != null) {
            initOwner(owner);
        }
        getDialogPane().setId("fleet-dialog");
        TextField name = field("fleet-name", "eval-3", existing == null ? "" : existing.name());
        TextField url = field("fleet-url", "https://eval-3:7117/", existing == null ? "" : existing.url().toString());
        TextField token = field("fleet-token", "a copy of its observer/api-token (needed beyond loopback)",
                existing == null ? "" : existing.tokenFile().map(Object::toString).orElse(""));
        TextField pin = field("fleet-pin", "SHA-256 of its certificate; empty: ask on first contact",
                existing == null ? "" : existing.pin().orElse(""));
        Button browse = new Button("Browse…");
        browse.setOnAction(e -> {
            File f = new FileChooser().showOpenDialog(getDialogPane().getScene().getWindow());
            if (f != null) {
                token.setText(f.getAbsolutePath());
            }
        });
        HBox.setHgrow(token, Priority.ALWAYS);
        Label error = new Label();
        error.setId("fleet-dialog-error");
        error.getStyleClass().add("text-danger");
        error.setWrapText(true);
        error.setMaxWidth(520);

        GridPane grid = new GridPane();
        grid.setHgap(10);
        grid.setVgap(8);
        grid.addRow(0, new Label("Name"), name);
        grid.addRow(1, new Label("URL"), url);
        grid.addRow(2, new Label("Token file"), new HBox(6, token, browse));
        grid.addRow(3, new Label("Certificate pin"), pin);
        grid.add(error, 0, 4, 2, 1);
        name.setPrefColumnCount(34);
        getDialogPane().setContent(grid);

        ButtonType save = new ButtonType(existing == null ? "Connect" : "Save", ButtonBar.ButtonData.OK_DONE);
        getDialogPane().getButtonTypes().setAll(save, ButtonType.CANCEL);
        getDialogPane().lookupButton(save).setId("fleet-dialog-ok");
        getDialogPane().lookupButton(save).addEventFilter(ActionEvent.ACTION, e -> {
            String n = name.getText().isBlank() ? hostPort(url.getText()) : name.getText();
            try {
                result = DaemonEntry.of(n, url.getText(), token.getText(), pin.getText());
            } catch (IllegalArgumentException ex) {
                error.setText(ex.getMessage());
                e.consume(); // stays open: nothing typed is lost
            }
        });
        setResultConverter(b -> b == save ? result : null);
    }

    /** A name for a daemon given none: its host and port. */
    private static String hostPort(String url) {
        String u = url.strip().replaceFirst("^[a-zA-Z]+://", "");
        int slash = u.indexOf('/');
        return slash < 0 ? u : u.substring(0, slash);
    }

    private static TextField field(String id, String prompt, String text) {
        TextField f = new TextField(text);
        f.setId(id);
        f.setPromptText(prompt);
        return f;
    }
}
