package dev.kiln.app;

import dev.kiln.app.cli.KilnCommand;
import org.slf4j.LoggerFactory;

/** Starts Kiln. Not an {@code Application}: headless sub-commands must never load JavaFX. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        // Before the first logger: LogSetup reads these to place the rolling log file, or to leave it out.
        java.nio.file.Path logs = UserDirs.state(System.getenv()).resolve("logs");
        System.setProperty("kiln.log.dir", logs.toString());
        String unwritable = unwritable(logs);
        if (unwritable != null && System.getProperty("logback.configurationFile") == null) {
            // One line, then carry on: a file appender that cannot open its file would report it on every command.
            System.err.println("kiln: the log directory " + logs + " cannot be written (" + unwritable
                    + "); the log file is not written, warnings still go to stderr");
            System.setProperty(LogSetup.FILE_PROPERTY, "false");
        }
        if (args.length == 1 && ("--version".equals(args[0]) || "-V".equals(args[0]))) {
            // What scripts call most: answered before picocli builds its model of every command and before logback
            // configures itself, with the same line picocli prints.
            for (String v : KilnCommand.versionLines()) {
                System.out.println(v);
            }
            System.out.flush();
            System.exit(0);
        }
        String line = String.join(" ", args);
        long pid = ProcessHandle.current().pid();
        String trainCli = System.getProperty("kiln.trainCli");
        if (trainCli != null && dev.kiln.app.cli.Console.opensConsoleOnly(args)) {
            // packaging/build.sh's training run of the command line's own cache (kiln-cli.aot): the paths scripts call,
            // then exit. Apart from the console's cache, since a JVM loads every class of its cache at start: the
            // console's made `kiln status` load 8,000 classes (JavaFX's among them) it never used.
            run("--help");
            run("--version");
            run("project", trainCli);
            run("status", System.getProperty("kiln.trainStatus", "http://127.0.0.1:9/"));
            System.exit(0);
        }
        if (dev.kiln.app.cli.Console.opensConsoleOnly(args)) {
            // The GUI's start path: no picocli, and logback configures itself (its classes, ≈ 0.1 s) on another
            // core while the window opens. Loggers asked for meanwhile are SLF4J's substitutes, which replay into
            // logback once it is ready, so nothing logged at start is lost.
            Thread logging = new Thread(() -> LoggerFactory.getLogger(Main.class).info("kiln {} (pid {})", line, pid), "kiln-log-init");
            logging.setDaemon(true);
            logging.start();
            System.exit(dev.kiln.app.cli.Console.start(args));
        }
        LoggerFactory.getLogger(Main.class).info("kiln {} (pid {})", line, pid);
        System.exit(run(args));
    }

    /** Why the log directory cannot be created or written, or null when it can. */
    private static String unwritable(java.nio.file.Path logs) {
        try {
            java.nio.file.Files.createDirectories(logs);
        } catch (java.io.IOException | RuntimeException e) {
            return e instanceof java.nio.file.AccessDeniedException ? "permission denied" : e.toString();
        }
        return java.nio.file.Files.isWritable(logs) ? null : "permission denied";
    }

    /** Runs the command line and returns the exit code; tests call this. */
    public static int run(String... args) {
        return KilnCommand.commandLine(args).execute(args);
    }
}
