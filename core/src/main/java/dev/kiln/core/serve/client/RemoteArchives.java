package dev.kiln.core.serve.client;

import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.archive.ArchiveEntry;
import dev.kiln.core.engine.Archives;
import dev.kiln.core.serve.wire.Wire;
import java.util.List;

/**
 * The {@link Archives} of a daemon: {@code archive/…}. The bound and the policy are the ones {@code GET workspace}
 * answered at attach.
 *
 * <p>Concurrency: immutable; the engine's client is thread-safe.
 */
final class RemoteArchives implements Archives {
    private final RemoteEngine engine;
    private final long maximumBytes;
    private final String policy;

    RemoteArchives(RemoteEngine engine, long maximumBytes, String policy) {
        this.engine = engine;
        this.maximumBytes = maximumBytes;
        this.policy = policy;
    }

    @Override
    public ArchiveCacheStats stats() {
        return engine.value("GET", Wire.ARCHIVE_STATS, null, null, null, RemoteEngine.READ, ArchiveCacheStats.class);
    }

    @Override
    public List<ArchiveEntry> entries() {
        return engine.list(Wire.ARCHIVE_ENTRIES, null, ArchiveEntry.class);
    }

    @Override
    public long maximumBytes() {
        return maximumBytes;
    }

    @Override
    public String policy() {
        return policy;
    }

    @Override
    public ArchiveEntry archive(String directory, List<String> members) {
        com.fasterxml.jackson.databind.node.ObjectNode body = Wire.JSON.createObjectNode().put("directory", directory);
        members.forEach(body.putArray("members")::add);
        return engine.value("POST", Wire.ARCHIVE_BUILD, null, body, null, RemoteEngine.SLOW, ArchiveEntry.class);
    }

    @Override
    public void invalidate() {
        ServeClient.Answer a = engine.request("POST", Wire.ARCHIVE_INVALIDATE, null, null, null, RemoteEngine.WRITE);
        engine.check("POST /" + Wire.ARCHIVE_INVALIDATE, a);
    }
}
