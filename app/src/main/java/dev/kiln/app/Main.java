package dev.kiln.app;

import dev.kiln.app.cli.KilnCommand;
import org.slf4j.LoggerFactory;

/** Starts Kiln. Not an {@code Application}: headless sub-commands must never load JavaFX. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        // Before the first logger: logback.xml reads this to place the rolling log file.
        System.setProperty("kiln.log.dir", UserDirs.state(System.getenv()).resolve("logs").toString());
        LoggerFactory.getLogger(Main.class).info("kiln {} (pid {})", String.join(" ", args), ProcessHandle.current().pid());
        System.exit(run(args));
    }

    /** Runs the command line and returns the exit code; tests call this. */
    public static int run(String... args) {
        return KilnCommand.commandLine().execute(args);
    }
}
