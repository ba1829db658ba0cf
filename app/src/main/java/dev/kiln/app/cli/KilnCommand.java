package dev.kiln.app.cli;

import dev.kiln.app.bench.BenchCommand;
import dev.kiln.app.common.CliException;
import dev.kiln.core.workspace.WorkspaceException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kiln [WORKSPACE]} opens the console; sub-commands run headless. */
@Command(name = "kiln", mixinStandardHelpOptions = true, versionProvider = KilnCommand.Version.class,
        description = {"Operations console for fast-starting, observable sandboxed tool runtimes.",
            "With no sub-command, opens the console on WORKSPACE (default: the built-in demo workspace)."},
        subcommands = {DemoCommand.class, ProjectCommand.class, DoctorCommand.class, HealCommand.class, ServeCommand.class, StatusCommand.class, AttachCommand.class, AlertsCommand.class, ArchiveCommand.class,
            WarmCommand.class, SeedCommand.class, ProbeCommand.class, BytecodeCommand.class, BenchCommand.class,
            FleetCommand.class,
            ScreenshotCommand.class, RecordCommand.class,
            CommandLine.HelpCommand.class})
public final class KilnCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "WORKSPACE", description = "Workspace directory to open.")
    Path workspace;

    @picocli.CommandLine.Option(names = "--page", paramLabel = "PAGE",
            description = "Page to open the console on: projection, contracts, caches, seeds, startup, events or fleet (Ctrl+1… switch pages).")
    String page = "";

    /** The configured command line, with Kiln's error handling. */
    public static CommandLine commandLine() {
        return handlingErrors(new CommandLine(new KilnCommand()));
    }

    /**
     * The command line to run {@code args}: when the first names a sub-command (not {@code help}, which lists them
     * all), a {@code kiln} holding only that one, so picocli reflects over one command's annotations instead of
     * every command's (most of a {@code kiln status}'s start). Usage, errors and exit codes are the full tree's:
     * LeanCommandLineTest compares them for every sub-command.
     */
    public static CommandLine commandLine(String... args) {
        if (args.length > 0 && !"help".equals(args[0]) && Console.SUB_COMMANDS.contains(args[0])) {
            for (Class<?> c : KilnCommand.class.getAnnotation(Command.class).subcommands()) {
                Command sub = c.getAnnotation(Command.class);
                if (sub != null && sub.name().equals(args[0])) {
                    CommandLine lean = new CommandLine(new Lean());
                    lean.addSubcommand(sub.name(), new CommandLine(c));
                    return handlingErrors(lean);
                }
            }
        }
        return commandLine();
    }

    private static CommandLine handlingErrors(CommandLine cl) {
        // The commands' descriptions are written in lines of up to 120 columns; picocli's default 80 broke each of them
        // in two, mid-sentence. Set before the tree is used, so it holds for every sub-command already added.
        cl.setUsageHelpWidth(USAGE_WIDTH);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            if (ex instanceof WorkspaceException || ex instanceof IllegalArgumentException || ex instanceof CliException) {
                cmd.getErr().println("kiln: " + ex.getMessage());
                return 2;
            }
            throw ex;
        });
        return cl;
    }

    @Override
    public Integer call() {
        Console.start(workspace, page);
        return 0;
    }

    /** What {@code kiln --version} prints, one element a line (Main answers it without picocli). */
    public static String[] versionLines() {
        String v = KilnCommand.class.getPackage().getImplementationVersion();
        String pkg = packageVersion();
        return new String[] {"kiln " + (v == null ? "0.1.0" : v) + " (" + (pkg == null ? "" : "package " + pkg + ", ")
                + "Java " + Runtime.version() + ")"};
    }

    /**
     * The installed package's version (the installers number 0.x releases from 1, so it differs from the jar's), or
     * null when this is not an installed image. The console's launcher passes it as a property; the command-line
     * launcher runs java directly, so it is read from the image's own launcher config, which upgrades rewrite.
     */
    static String packageVersion() {
        String v = System.getProperty("jpackage.app-version");
        if (v != null) {
            return v;
        }
        Path cfg = Path.of(System.getProperty("java.home")).resolveSibling("app")
                .resolve("kiln.cfg");
        try {
            for (String line : java.nio.file.Files.readAllLines(cfg)) {
                if (line.startsWith(PACKAGE_VERSION_OPTION)) {
                    return line.substring(PACKAGE_VERSION_OPTION.length()).strip();
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return null; // not an installed image (a JDK's java.home has no app/kiln.cfg)
        }
        return null;
    }

    /** The usage help's width: the longest line a command's description is written in. */
    static final int USAGE_WIDTH = 120;

    private static final String PACKAGE_VERSION_OPTION = "java-options=-Djpackage.app-version=";

    /** The top of a lean command line: only its name shows (in the sub-command's usage and errors). */
    @Command(name = "kiln", mixinStandardHelpOptions = true, versionProvider = KilnCommand.Version.class)
    static final class Lean implements Callable<Integer> {
        @Override
        public Integer call() {
            return 0;
        }
    }

    /** The version from the jar manifest, or the build's when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return versionLines();
        }
    }
}
