/** Kiln's entry point: the CLI (console by default, headless sub-commands), config and wiring. */
module dev.kiln.app {
    requires dev.kiln.core;
    requires dev.kiln.ui;
    requires info.picocli;
    requires org.slf4j;
    requires ch.qos.logback.classic;
    requires ch.qos.logback.core;

    // Logging configured in code, not from XML: LogSetup says why.
    provides ch.qos.logback.classic.spi.Configurator with dev.kiln.app.LogSetup;

    opens dev.kiln.app to info.picocli;
    opens dev.kiln.app.cli to info.picocli;
    opens dev.kiln.app.common to info.picocli;
    opens dev.kiln.app.bench to info.picocli;
}
