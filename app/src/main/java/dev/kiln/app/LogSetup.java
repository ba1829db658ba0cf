package dev.kiln.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.filter.ThresholdFilter;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy;
import ch.qos.logback.core.spi.ContextAwareBase;
import ch.qos.logback.core.util.FileSize;

/**
 * Kiln's logging, configured in code (logback finds it as a service) rather than from a logback.xml: parsing the XML
 * cost every command ≈ 0.2 s of CPU before its first log line, the console's start included. Warnings and errors
 * go to stderr ({@code kiln: LEVEL Logger - message}; stdout belongs to the commands' output), INFO and up to a rolling
 * file {@code kiln.log} in {@code -Dkiln.log.dir} (10 MB a file, 7 days, 100 MB in all), unless
 * {@code -Dkiln.log.file=false} (Main sets it when that directory cannot be written).
 *
 * <p>{@code -Dlogback.configurationFile=FILE} still wins: then this steps aside and logback reads FILE.
 */
public final class LogSetup extends ContextAwareBase implements Configurator {
    static final String FILE_PROPERTY = "kiln.log.file";

    public LogSetup() {
        // ServiceLoader needs a public no-argument constructor.
    }

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(stderr(context));
        if (!"false".equals(System.getProperty(FILE_PROPERTY))) {
            String dir = System.getProperty("kiln.log.dir", System.getProperty("java.io.tmpdir") + "/kiln-logs");
            root.addAppender(file(context, dir));
        }
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    private static ConsoleAppender<ILoggingEvent> stderr(LoggerContext context) {
        ConsoleAppender<ILoggingEvent> out = new ConsoleAppender<>();
        out.setContext(context);
        out.setName("STDERR");
        out.setTarget("System.err");
        ThresholdFilter warnings = new ThresholdFilter();
        warnings.setLevel("WARN");
        warnings.start();
        out.addFilter(warnings);
        out.setEncoder(encoder(context, "kiln: %-5level %logger{0} - %msg%n"));
        out.start();
        return out;
    }

    private static RollingFileAppender<ILoggingEvent> file(LoggerContext context, String dir) {
        RollingFileAppender<ILoggingEvent> file = new RollingFileAppender<>();
        file.setContext(context);
        file.setName("FILE");
        file.setFile(dir + "/kiln.log");
        SizeAndTimeBasedRollingPolicy<ILoggingEvent> rolling = new SizeAndTimeBasedRollingPolicy<>();
        rolling.setContext(context);
        rolling.setParent(file);
        rolling.setFileNamePattern(dir + "/kiln.%d{yyyy-MM-dd}.%i.log.gz");
        rolling.setMaxFileSize(FileSize.valueOf("10MB"));
        rolling.setMaxHistory(7);
        rolling.setTotalSizeCap(FileSize.valueOf("100MB"));
        rolling.start();
        file.setRollingPolicy(rolling);
        file.setEncoder(encoder(context, "%d{ISO8601} %-5level [%thread] %logger{36} - %msg%n"));
        file.start();
        return file;
    }

    private static PatternLayoutEncoder encoder(LoggerContext context, String pattern) {
        PatternLayoutEncoder e = new PatternLayoutEncoder();
        e.setContext(context);
        e.setPattern(pattern);
        e.start();
        return e;
    }
}
