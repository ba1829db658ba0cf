package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.app.common.CliException;
import dev.kiln.core.doctor.Diagnosis;
import dev.kiln.core.doctor.Doctor;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.core.workspace.Durations;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code kiln doctor DIR|URL}: is the published projection stale, and why. Exit 0 up to date, 1 stale (explained),
 * 2 cannot tell (and why). Writes nothing to the workspace.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        header = "Explain a stale projection: compare what is published with the disk, say why they differ.",
        description = {"Compare what a workspace publishes (observer/state.json, or a kiln serve's /api/state when given its URL)",
            "with a fresh read-only projection of the disk, and explain each difference from evidence: the daemon and its",
            "lock, its last tick, its watch (degraded, inotify limit, unwatched directories), file times (ctime), the",
            "heartbeat, a second writer, the clock. Writes nothing. Exit codes: 0 up to date, 1 stale, 2 cannot tell."})
final class DoctorCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "DIR|URL", description = "A workspace directory, or a kiln serve's base URL (http://…).")
    String target;

    @Option(names = "--json", description = "Print the structured diagnosis as one JSON object.")
    boolean json;

    @Option(names = "--timeout", paramLabel = "DURATION", description = "How long a daemon given by URL (or the one the"
            + " workspace names) may take to answer, all its answers together, e.g. 5s (default 10s).")
    String timeout;

    @Option(names = "--max", paramLabel = "N", description = "Differences to list in the text report (default 20; --json lists all).")
    int max = 20;

    @Override
    public Integer call() throws Exception {
        Doctor.Builder b = target.startsWith("http://") || target.startsWith("https://")
                ? Doctor.builder(URI.create(target), ServeClient.forDoctor())
                : Doctor.builder(WorkspaceLayout.of(Path.of(target).toAbsolutePath().normalize()), ServeClient.forDoctor());
        if (timeout != null) {
            try {
                b.timeout(Durations.parse(timeout));
            } catch (IllegalArgumentException e) {
                throw new CliException("--timeout " + timeout + ": " + e.getMessage());
            }
        }
        Diagnosis d = b.build().diagnose();
        if (json) {
            System.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(d.toJson()));
        } else {
            System.out.print(d.report(max));
        }
        System.out.flush();
        return d.exitCode();
    }
}
