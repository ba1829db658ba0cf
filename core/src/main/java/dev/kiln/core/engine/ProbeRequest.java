package dev.kiln.core.engine;

import dev.kiln.core.startup.BytecodeMode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What to probe and how: the enabled servers of {@code servers.json} named here (all enabled ones when empty),
 * pinned to {@code cpus} (a cpuset list, empty for no pinning), with {@code bytecode} as found or cold, each under
 * {@code timeout} (empty: each server's configured timeout, default from {@code kiln.json}).
 */
public record ProbeRequest(List<String> servers, String cpus, BytecodeMode bytecode, Optional<Duration> timeout) {
    public ProbeRequest {
        servers = List.copyOf(servers);
    }

    /** Every enabled server, unpinned, bytecode as found, configured timeouts. */
    public static ProbeRequest all() {
        return new ProbeRequest(List.of(), "", BytecodeMode.AS_IS, Optional.empty());
    }
}
