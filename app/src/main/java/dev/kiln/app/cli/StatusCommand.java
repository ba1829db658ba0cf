package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import dev.kiln.core.serve.DaemonHealth;
import dev.kiln.core.serve.ServeClient;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln status URL}: a daemon's health for scripts; exit 0 healthy, 1 degraded, 2 unreachable or refused. */
@Command(name = "status", mixinStandardHelpOptions = true,
        header = "Print a kiln serve's health: exit 0 healthy, 1 degraded, 2 unreachable or refused.",
        description = {"Ask the kiln serve at URL (as it printed it at start) for its health: API version, revision,",
            "age of its last projection, watch live or degraded, contracts and failures.",
            "Exit 0 when healthy; 1 when degraded (watch degraded, projection stuck or failing, not projected yet);",
            "2 when it cannot be asked (down, not a kiln serve, another API version, token refused, certificate",
            "not the pinned one)."})
final class StatusCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "URL", description = "The daemon's URL, e.g. https://eval-3:7117/.")
    String url;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "A copy of the daemon's observer/api-token (needed when it is bound beyond loopback).")
    Path tokenFile;

    @Option(names = "--pin", paramLabel = "SHA256",
            description = "SHA-256 fingerprint of the daemon's TLS certificate (kiln serve prints it); only that"
                    + " certificate is trusted, so a self-signed one works.")
    String pin;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        ServeClient client;
        try {
            client = ServeClient.remote(URI.create(url.trim()), tokenFile, pin);
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage());
        }
        DaemonHealth h;
        try {
            h = client.health();
        } catch (IOException e) {
            if (json.enabled()) {
                ObjectNode o = Json.object();
                o.put("url", url);
                o.put("status", "unreachable");
                o.put("reachable", false);
                o.put("error", e.getMessage());
                System.out.println(Json.compact(o));
            }
            System.err.println("kiln: " + e.getMessage());
            return 2;
        }
        List<String> problems = h.problems();
        if (json.enabled()) {
            System.out.println(Json.compact(toJson(h, problems)));
        } else {
            System.out.println(h.url() + ": " + (problems.isEmpty() ? "healthy" : "degraded"));
            System.out.println("  api:        v" + h.apiVersion() + h.tlsFingerprint().map(f -> ", TLS pinned").orElse(""));
            System.out.println("  revision:   " + h.revision() + " (" + h.projections() + " projections)");
            System.out.println("  projected:  " + h.lastProjectionAge().map(a -> seconds(a.toMillis()) + " ago")
                    .orElse("not yet") + " (heartbeat " + seconds(h.heartbeat().toMillis()) + ")");
            System.out.println("  watch:      " + (h.watchLive() ? "live" : "degraded: " + h.watchReason()));
            System.out.println("  contracts:  " + h.contracts() + " (" + h.failures() + " failures)");
            problems.forEach(p -> System.out.println("  problem:    " + p));
        }
        return problems.isEmpty() ? 0 : 1;
    }

    private static ObjectNode toJson(DaemonHealth h, List<String> problems) {
        ObjectNode o = Json.object();
        o.put("url", h.url().toString());
        o.put("status", problems.isEmpty() ? "healthy" : "degraded");
        o.put("reachable", true);
        o.put("api_version", h.apiVersion());
        o.put("revision", h.revision());
        o.put("projections", h.projections());
        h.lastProjectionAt().ifPresent(t -> o.put("last_projection_at", t.toString()));
        h.lastProjectionAge().ifPresent(a -> o.put("last_projection_age_ms", a.toMillis()));
        o.put("heartbeat_ms", h.heartbeat().toMillis());
        ObjectNode w = o.putObject("watch");
        w.put("mode", h.watchLive() ? "live" : "degraded");
        if (!h.watchLive()) {
            w.put("reason", h.watchReason());
        }
        o.put("contracts", h.contracts());
        o.put("failures", h.failures());
        h.tlsFingerprint().ifPresent(f -> o.put("tls_sha256", f));
        ArrayNode p = o.putArray("problems");
        problems.forEach(p::add);
        return o;
    }

    private static String seconds(long millis) {
        return String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
