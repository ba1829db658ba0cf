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
}
