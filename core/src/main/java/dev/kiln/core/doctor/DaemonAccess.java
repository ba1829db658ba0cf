package dev.kiln.core.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How the doctor reaches a workspace's daemon. The daemon's client implements it ({@code ServeClient.forDoctor()}),
 * so the doctor reads the lock file and asks the API as every client does — the token, the pinned certificate, the
 * API version check — without depending on {@code serve}, whose daemon runs the doctor ({@code /api/v1/doctor}).
 *
 * <p>Concurrency: implementations are safe to call from any thread, concurrently.
 */
public interface DaemonAccess {
    /**
     * What a workspace's lock file records, whoever holds it now (a killed daemon leaves its file behind: that is
     * evidence too); empty when there is no lock file or it cannot be read.
     */
    Optional<LockRecord> lockFile(WorkspaceLayout layout);

    /**
     * The metrics document of the daemon at {@code base}, after checking it speaks this API version, all within
     * {@code within}.
     *
     * @param layout the workspace it is expected to serve (its token and pinned certificate), or null for a daemon
     *     known only by its URL
     * @throws IOException saying which daemon and what went wrong, in the operator's words
     */
    JsonNode metrics(URI base, @Nullable WorkspaceLayout layout, Duration within) throws IOException, InterruptedException;

    /** The daemon's state document (megabytes: raw, parsed once by the caller); as {@link #metrics}. */
    byte[] state(URI base, @Nullable WorkspaceLayout layout, Duration within) throws IOException, InterruptedException;

    /**
     * A lock file's record.
     *
     * @param pid the pid it names, or -1
     * @param url the API's base URL once it listens, or null
     * @param console whether a console (not {@code kiln serve}) wrote it
     */
    record LockRecord(long pid, @Nullable URI url, boolean console) {
    }
}
