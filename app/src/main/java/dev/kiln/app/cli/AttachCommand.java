package dev.kiln.app.cli;

import dev.kiln.app.UserDirs;
import dev.kiln.app.common.CliException;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kiln attach URL|NAME}: the console on a remote daemon, after checking that it can be asked at all. */
@Command(name = "attach", mixinStandardHelpOptions = true,
        header = "Open the console on a kiln serve, here or on another host.",
        description = {"Asks the kiln serve at URL (or the daemon called NAME in your daemon list, daemons.json in the",
            "config directory) for its health first: a daemon that is down, refuses the token or presents another",
            "certificate than the pinned one is a clear error (exit 2), as with kiln status. Then opens the console",
            "on it."})
final class AttachCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "URL|NAME|DIR", description = "The daemon's URL (e.g. https://eval-3:7117/), its name in the daemon"
            + " list, or the directory of the workspace it serves on this host.")
    String daemon;

    @picocli.CommandLine.Mixin
    DaemonCredentials credentials;

    @Override
    public Integer call() {
        DaemonEntry d = credentials.resolve(daemon);
        DaemonHealth h;
        try {
            h = d.client().health();
        } catch (IOException e) {
            System.err.println("kiln: " + e.getMessage());
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted while asking " + d.url());
        }
        System.err.println("kiln: attaching to " + d.name() + " (" + d.url() + "): revision " + h.revision() + ", "
                + h.contracts() + " contracts, " + (h.healthy() ? "healthy" : "degraded: " + String.join("; ", h.problems())));
        Path ws = UserDirs.demoWorkspace(System.getenv());
        if (!WorkspaceLayout.of(ws).isWorkspace()) {
            System.err.println("kiln: creating the demo workspace in " + ws);
            new DemoWorkspace().write(ws, DemoWorkspace.DEFAULT_CONTRACTS, DemoCommand.DEFAULT_SEED, false);
        }
        Console.attach(d, ws);
        return 0;
    }
}
