package dev.kiln.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.FilterReply;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

/** The logging Kiln configures in code: warnings to stderr, INFO and up to the rolling file, overridable. */
@ResourceLock(Resources.SYSTEM_PROPERTIES)
class LogSetupTest {
    @TempDir
    Path dir;

    @AfterEach
    void clear() {
        System.clearProperty("kiln.log.dir");
        System.clearProperty(LogSetup.FILE_PROPERTY);
        System.clearProperty("logback.configurationFile");
    }

    @Test
    void warningsGoToStderr_infoAndUpToTheFile() throws Exception {
        System.setProperty("kiln.log.dir", dir.toString());
        LoggerContext context = new LoggerContext();
        assertThat(configure(context)).isEqualTo(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        // stderr: logback binds System.err once per JVM, so the appender is checked rather than the stream swapped.
        @SuppressWarnings("unchecked")
        ConsoleAppender<ILoggingEvent> stderr = (ConsoleAppender<ILoggingEvent>) root.getAppender("STDERR");
        assertThat(stderr.getTarget()).isEqualTo("System.err");
        assertThat(stderr.getFilterChainDecision(event(context, Level.INFO))).isEqualTo(FilterReply.DENY);
        assertThat(stderr.getFilterChainDecision(event(context, Level.WARN))).isEqualTo(FilterReply.NEUTRAL);
        String line = new String(stderr.getEncoder().encode(event(context, Level.WARN)), StandardCharsets.UTF_8);
        assertThat(line).isEqualTo("kiln: WARN  Probe - a probe line" + System.lineSeparator());

        context.start(); // as logback's initializer leaves it
        context.getLogger("dev.kiln.Probe").info("an info line");
        context.getLogger("dev.kiln.Probe").warn("a warning line");
        context.stop(); // flushes and closes the file
        String file = Files.readString(dir.resolve("kiln.log"));
        assertThat(file).contains("INFO  [").contains("dev.kiln.Probe - an info line").contains("WARN ").contains("a warning line");
    }

    private static ILoggingEvent event(LoggerContext context, Level level) {
        return new LoggingEvent(LogSetupTest.class.getName(), context.getLogger("dev.kiln.Probe"), level, "a probe line", null, null);
    }

    @Test
    void noFile_whenTheLogDirectoryCannotBeWritten() {
        System.setProperty("kiln.log.dir", dir.toString());
        System.setProperty(LogSetup.FILE_PROPERTY, "false");
        LoggerContext context = new LoggerContext();
        configure(context);
        assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("STDERR")).isNotNull();
        context.getLogger("x").info("nothing on disk");
        context.stop();
        assertThat(dir.resolve("kiln.log")).doesNotExist();
    }

    @Test
    void anExplicitConfigurationFileWins() {
        System.setProperty("logback.configurationFile", dir.resolve("mine.xml").toString());
        LoggerContext context = new LoggerContext();
        assertThat(configure(context)).isEqualTo(ExecutionStatus.INVOKE_NEXT_IF_ANY);
        assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).iteratorForAppenders().hasNext()).isFalse();
        context.stop();
    }

    private static ExecutionStatus configure(LoggerContext context) {
        context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter()); // as SLF4J's provider gives its context
        LogSetup setup = new LogSetup();
        setup.setContext(context);
        return setup.configure(context);
    }
}
