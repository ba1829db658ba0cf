package dev.kiln.core.startup;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/** A JSON-RPC connection to one server, as the handshake sees it. */
interface Channel {

    /** Sends one message; {@code deadline} (ticker nanos) bounds transports that answer synchronously. */
    void send(ObjectNode message, long deadline) throws IOException, InterruptedException;

    /** The next incoming item, or null when none arrived within {@code timeoutNanos}. */
    @Nullable Incoming poll(long timeoutNanos) throws InterruptedException;

    /** The handshake settled on a protocol version; HTTP sends it as a header from now on. */
    default void negotiated(String protocolVersion) {
    }

    /**
     * True when a server's silence to the modern request means "try the old one" (stdio: a server may ignore what it
     * does not know); false when the transport answers every request itself (HTTP: a 400 says so).
     */
    default boolean fallsBackOnSilence() {
        return true;
    }
}
