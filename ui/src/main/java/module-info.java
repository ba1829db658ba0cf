/** Kiln's console: thin JavaFX views over view models that hold state and actions. */
module dev.kiln.ui {
    requires transitive dev.kiln.core;
    requires dev.kiln.icons;
    requires transitive javafx.controls;
    requires org.controlsfx.controls;
    requires atlantafx.base;
    requires org.slf4j;

    exports dev.kiln.ui;
    exports dev.kiln.ui.shell;
    exports dev.kiln.ui.contracts;
    exports dev.kiln.ui.util;
    exports dev.kiln.ui.chart;
    exports dev.kiln.ui.events;
    exports dev.kiln.ui.projection;
    exports dev.kiln.ui.caches;
    exports dev.kiln.ui.seeds;
    exports dev.kiln.ui.startup;
    exports dev.kiln.ui.fleet;
    exports dev.kiln.ui.health;
    exports dev.kiln.ui.record;
}
