package dev.kiln.core.seed;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a warm of server seeds did ({@code kiln warm --servers}, {@code POST /api/v1/seeds/servers/warm}), per server
 * in the order asked.
 *
 * @param servers one entry per server
 */
public record ServerSeedsWarmed(List<Server> servers) {

    public ServerSeedsWarmed {
        servers = List.copyOf(servers);
    }

    /**
     * One server's warm.
     *
     * @param server its name
     * @param outcome {@code warmed}, {@code unchanged}, {@code failed}, {@code cancelled} or {@code skipped} (not a
     *     launcher Kiln seeds)
     * @param message for people: what happened and, on failure, what to do (names the server)
     * @param seed the seed after the warm, when there is one
     */
    public record Server(String server, String outcome, String message, @Nullable ServerSeedInfo seed) {
    }

    /** Whether every server's warm succeeded or had nothing to do. */
    public boolean succeeded() {
        return servers.stream().allMatch(s -> !s.outcome().equals("failed") && !s.outcome().equals("cancelled"));
    }
}
