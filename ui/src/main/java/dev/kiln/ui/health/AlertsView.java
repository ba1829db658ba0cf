package dev.kiln.ui.health;

import javafx.beans.binding.Bindings;
import javafx.collections.ListChangeListener;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

/**
 * The Alerts panel: the rules that fire (then the pending ones), each with its severity as icon and word, since when,
 * what it means and its rule; "no alert fires" otherwise, and where the rules come from.
 */
public final class AlertsView extends VBox {
    private final VBox list = new VBox(4);

    public AlertsView(HealthViewModel vm) {
        setId("alerts-panel");
        getStyleClass().add("alerts-panel");
        setSpacing(6);
        Label title = new Label();
        title.setId("alerts-title");
        title.getStyleClass().add("title-4");
        title.textProperty().bind(Bindings.createStringBinding(() -> vm.firingProperty().get() == 0 ? "Alerts"
                : "Alerts — " + vm.firingProperty().get() + " firing", vm.firingProperty()));
        Label note = new Label();
        note.getStyleClass().add("text-muted");
        note.textProperty().bind(vm.rulesNoteProperty());
        HBox head = new HBox(12, title, note);
        head.setAlignment(Pos.BASELINE_LEFT);
        Label resolved = new Label();
        resolved.setId("alerts-resolved");
        resolved.getStyleClass().add("text-muted");
        resolved.textProperty().bind(Bindings.concat("✔ ", vm.lastResolvedProperty()));
        resolved.managedProperty().bind(vm.lastResolvedProperty().isNotEmpty());
        resolved.visibleProperty().bind(resolved.managedProperty());
        getChildren().addAll(head, list, resolved);
        vm.alerts().addListener((ListChangeListener<AlertRow>) c -> show(vm));
        show(vm);
    }

    private void show(HealthViewModel vm) {
        list.getChildren().clear();
        if (vm.alerts().isEmpty()) {
            Label none = new Label("✔ No alert fires");
            none.setId("alerts-none");
            none.getStyleClass().add("state-ok");
            list.getChildren().add(none);
            return;
        }
        for (AlertRow r : vm.alerts()) {
            boolean critical = r.severity().equals("critical");
            Label sev = new Label(!r.firing() ? "◷ PENDING" : critical ? "✖ CRITICAL" : "▲ WARNING");
            sev.getStyleClass().add(!r.firing() ? "state-warn" : critical ? "state-bad" : "state-warn");
            sev.setMinWidth(100);
            Label name = new Label(r.name());
            name.getStyleClass().add("alert-name");
            name.setMinWidth(Label.USE_PREF_SIZE);
            Label since = new Label(r.since());
            since.setMinWidth(Label.USE_PREF_SIZE);
            Label summary = new Label(r.summary() + "  ·  " + r.rule());
            summary.getStyleClass().add("text-muted");
            summary.setMinWidth(0);
            summary.setWrapText(true); // the rule's text wraps rather than ends in "…"
            summary.setMinHeight(Label.USE_PREF_SIZE);
            HBox.setHgrow(summary, Priority.ALWAYS);
            HBox row = new HBox(12, sev, name, since, summary);
            row.setAlignment(Pos.BASELINE_LEFT);
            row.getStyleClass().addAll("alert-row", r.firing() ? (critical ? "alert-critical" : "alert-warning") : "alert-pending");
            list.getChildren().add(row);
        }
    }
}
