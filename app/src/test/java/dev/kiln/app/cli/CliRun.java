package dev.kiln.app.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/** Runs {@code kiln args…} in process, capturing what it printed. */
record CliRun(int exit, String out, String err) {

    /** The command's exit code, its standard output, and its standard error with picocli's messages after it. */
    static synchronized CliRun kiln(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        StringWriter picoErr = new StringWriter();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            CommandLine cl = KilnCommand.commandLine(args);
            cl.setErr(new PrintWriter(picoErr, true));
            int exit = cl.execute(args);
            return new CliRun(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8) + picoErr);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }
}
