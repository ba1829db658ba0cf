package dev.kiln.app.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A real {@code kiln serve} process whose JVM is up before it is asked to start: it loads the command line, waits
 * for a line on stdin, then runs {@code kiln ARGS…} exactly as the launcher does. A race test then times the start
 * itself, not the JVM's boot (which takes seconds on a busy machine and would decide every race alike).
 */
public final class ServeOnCue {
    private ServeOnCue() {
    }

    public static void main(String[] args) throws Exception {
        KilnCommand.commandLine(); // picocli and the commands' classes, loaded before the cue
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        dev.kiln.app.Main.main(args);
    }
}
