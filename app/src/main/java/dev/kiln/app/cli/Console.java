package dev.kiln.app.cli;

import dev.kiln.app.common.CliException;
import java.nio.file.Path;

/**
 * The only class of the CLI that touches the UI module, so headless commands never load JavaFX. It also opens the
 * console without picocli: a plain {@code kiln [WORKSPACE]} is the GUI's start path, where building the command
 * tree (reflection over every sub-command's annotations, proxies the class archive cannot hold) cost ≈ 0.3 s before
 * the window could open.
 */
public final class Console {
    /**
     * The names {@code kiln} reads as sub-commands rather than as a workspace: KilnCommand's, which
     * ConsoleStartTest keeps equal to picocli's list.
     */
    static final java.util.Set<String> SUB_COMMANDS = java.util.Set.of("demo", "project", "doctor", "heal", "serve", "status", "attach",
            "archive", "warm", "seed", "probe", "bytecode", "bench", "screenshot", "help", "fleet", "alerts", "record");

    private Console() {
    }

    /**
     * Whether {@code args} only open the console — none, or one workspace directory that is neither an option nor a
     * sub-command's name — so that {@link #start(String[])} may run them without the command line parser.
     */
    public static boolean opensConsoleOnly(String[] args) {
        return args.length == 0 || args.length == 1 && !args[0].isEmpty() && !args[0].startsWith("-") && !SUB_COMMANDS.contains(args[0]);
    }

    /** Runs {@code kiln [WORKSPACE]} as KilnCommand would, with its exit codes: 0 when the window closed, 2 on bad input. */
    public static int start(String[] args) {
        try {
            start(args.length == 0 ? null : Path.of(args[0]), "");
            return 0;
        } catch (dev.kiln.core.workspace.WorkspaceException | IllegalArgumentException | CliException e) {
            System.err.println("kiln: " + e.getMessage());
            return 2;
        }
    }

    /** Opens the console on {@code workspace} (null: the demo workspace, made on first use) at {@code page}. */
    static void start(Path workspace, String page) {
        Path ws = workspace;
        if (ws == null) {
            ws = dev.kiln.app.UserDirs.demoWorkspace(System.getenv());
            if (!dev.kiln.core.workspace.WorkspaceLayout.of(ws).isWorkspace()) {
                System.err.println("kiln: creating the demo workspace in " + ws);
                new dev.kiln.core.demo.DemoWorkspace().write(ws, dev.kiln.core.demo.DemoWorkspace.DEFAULT_CONTRACTS, DemoCommand.DEFAULT_SEED, false);
            }
        } else {
            dev.kiln.app.common.Workspaces.require(ws);
        }
        // A malformed kiln.json is a clear exit-2 message here, not a stack trace from inside the window.
        dev.kiln.core.workspace.WorkspaceSettings.read(ws.toAbsolutePath());
        open(ws, page);
    }

    static void open(Path workspace, String page) {
        if (!page.isEmpty() && !dev.kiln.ui.KilnConsole.pageNames().contains(page.toLowerCase(java.util.Locale.ROOT))) {
            throw new CliException("no page '" + page + "'; pages are " + String.join(", ", dev.kiln.ui.KilnConsole.pageNames()));
        }
        launch(dev.kiln.ui.ConsoleLaunch.of(workspace.toAbsolutePath().normalize(), page,
                dev.kiln.app.UserDirs.consoleSettings(System.getenv()), DaemonArgs.listFile()));
    }

    /** {@code kiln attach}: the console on {@code daemon}, starting over the local {@code workspace}. */
    static void attach(dev.kiln.core.fleet.DaemonEntry daemon, Path workspace) {
        // The window starts on the local workspace's Fleet page and shows the daemon's pages once its engine connects.
        launch(dev.kiln.ui.ConsoleLaunch.of(workspace.toAbsolutePath().normalize(), dev.kiln.ui.shell.Page.FLEET.title(),
                dev.kiln.app.UserDirs.consoleSettings(System.getenv()), DaemonArgs.listFile()).withAttach(daemon));
    }

    /** {@code kiln screenshot}: one page to PNG, headless; {@code theme} is {@code light} or {@code dark}. */
    static void screenshot(Path workspace, String page, String theme, int width, int height, Path out, double settle) {
        if (!dev.kiln.ui.KilnConsole.pageNames().contains(page.toLowerCase(java.util.Locale.ROOT))) {
            throw new CliException("no page '" + page + "'; pages are " + String.join(", ", dev.kiln.ui.KilnConsole.pageNames()));
        }
        try {
            dev.kiln.app.bench.fx.ConsoleHooks.screenshot(dev.kiln.ui.ConsoleLaunch.of(workspace.toAbsolutePath().normalize(), page,
                    null, DaemonArgs.listFile()).withLook(dev.kiln.ui.shell.Theme.parse(theme).orElseThrow(), width, height), out,
                    settle);
        } catch (IllegalStateException e) {
            throw new CliException(e.getMessage());
        }
    }

    /** The console as {@code launch} says, with the hooks this JVM's system properties ask for (benchmarks, package test). */
    private static void launch(dev.kiln.ui.ConsoleLaunch launch) {
        dev.kiln.ui.KilnConsole.launch(dev.kiln.app.bench.fx.ConsoleHooks.fromProperties(launch, System.getProperties()));
    }
}
