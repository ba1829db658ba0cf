/** Kiln's entry point: the CLI (console by default, headless sub-commands), config and wiring. */
module dev.kiln.app {
    requires dev.kiln.core;
    requires dev.kiln.ui;
    requires info.picocli;
    requires org.slf4j;
    requires ch.qos.logback.classic;
    requires ch.qos.logback.core;

    opens dev.kiln.app to info.picocli;
    opens dev.kiln.app.cli to info.picocli;
    opens dev.kiln.app.bench to info.picocli;
}
