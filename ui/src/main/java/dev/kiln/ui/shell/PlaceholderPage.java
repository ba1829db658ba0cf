package dev.kiln.ui.shell;

import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.layout.VBox;

/** A page that is not built yet says what it will show, rather than showing nothing. */
final class PlaceholderPage extends VBox {

    PlaceholderPage(Page page) {
        Label title = new Label(page.title());
        title.getStyleClass().addAll("title-2");
        Label what = new Label(page.description());
        what.setWrapText(true);
        what.getStyleClass().add("text-muted");
        Label soon = new Label("This page is not built yet. Use the matching `kiln` sub-command meanwhile (kiln --help).");
        soon.getStyleClass().addAll("text-small", "text-subtle");
        soon.setWrapText(true);
        getChildren().addAll(title, what, soon);
        setSpacing(12);
        setAlignment(Pos.TOP_LEFT);
        setMaxWidth(720);
        getStyleClass().add("page");
        setId("page-" + page.name().toLowerCase(java.util.Locale.ROOT));
    }
}
