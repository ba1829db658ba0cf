package dev.kiln.app.cli;

import dev.kiln.app.UserDirs;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Workspaces;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln screenshot}: renders one page of the console to PNG without a display, for docs and reviews. */
@Command(name = "screenshot", mixinStandardHelpOptions = true,
        description = {"Renders a page of the console on DIR (default: the demo workspace) to a PNG, headless.",
            "Needs no display: the console is drawn off-screen (Monocle, software rendering)."})
final class ScreenshotCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", description = "Workspace to show.")
    Path workspace;

    @Option(names = "--page", paramLabel = "NAME", description = "Page: projection, contracts, caches, seeds, startup, events or fleet (the daemons of daemons.json in the config directory) (default: ${DEFAULT-VALUE}).")
    String page = "projection";

    @Option(names = "--theme", paramLabel = "light|dark", description = "Theme (default: ${DEFAULT-VALUE}).")
    String theme = "dark";

    @Option(names = "--size", paramLabel = "WxH", description = "Picture size in pixels (default: ${DEFAULT-VALUE}).")
    String size = "1280x800";

    @Option(names = "--out", paramLabel = "FILE", description = "PNG to write (default: kiln-PAGE-THEME.png here).")
    Path out;

    @Option(names = "--settle", paramLabel = "SECONDS", description = "How long the page runs before the picture (default: ${DEFAULT-VALUE}).")
    double settle = 3;

    @Override
    public Integer call() {
        int[] wh = parseSize(size);
        String t = theme.strip().toLowerCase(Locale.ROOT);
        if (!t.equals("light") && !t.equals("dark")) {
            throw new CliException("--theme '" + theme + "' is not a theme: give light or dark");
        }
        if (settle < 0 || settle > 600) {
            throw new CliException("--settle " + settle + " is out of range: give 0 to 600 seconds");
        }
        Path ws = workspace;
        if (ws == null) {
            ws = UserDirs.demoWorkspace(System.getenv());
            if (!WorkspaceLayout.of(ws).isWorkspace()) {
                System.err.println("kiln: creating the demo workspace in " + ws);
                new DemoWorkspace().write(ws, DemoWorkspace.DEFAULT_CONTRACTS, DemoCommand.DEFAULT_SEED, false);
            }
        } else {
            Workspaces.require(ws);
        }
        dev.kiln.core.workspace.WorkspaceSettings.read(ws.toAbsolutePath());
        Path file = out != null ? out : Path.of("kiln-" + page.toLowerCase(Locale.ROOT) + "-" + t + ".png");
        Console.screenshot(ws, page, t, wh[0], wh[1], file, settle);
        System.out.println(file.toAbsolutePath().normalize());
        return 0;
    }

    /** {@code 1280x800} → {1280, 800}; a clear error otherwise. */
    static int[] parseSize(String text) {
        String[] p = text.strip().toLowerCase(Locale.ROOT).split("x");
        try {
            if (p.length == 2) {
                int w = Integer.parseInt(p[0].strip());
                int h = Integer.parseInt(p[1].strip());
                if (w >= 320 && h >= 240 && w <= 7680 && h <= 4320) {
                    return new int[] {w, h};
                }
            }
        } catch (NumberFormatException e) {
            // the message below says what is expected
        }
        throw new CliException("--size '" + text + "' is not WIDTHxHEIGHT between 320x240 and 7680x4320 (e.g. 1280x800)");
    }
}
