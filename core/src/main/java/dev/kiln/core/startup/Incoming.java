package dev.kiln.core.startup;

import com.fasterxml.jackson.databind.JsonNode;

/** What a channel read from a server: one JSON-RPC message, or a reason there is none. */
sealed interface Incoming {

    /** A JSON object; {@code at} is when its last byte was read (ticker nanos), not when the handshake got to it. */
    record Message(JsonNode json, long at) implements Incoming {
    }

    /** A line that is not a JSON object. */
    record Garbage(String line) implements Incoming {
    }

    /** A line longer than the cap; it is not parsed. */
    record Oversized(long bytes) implements Incoming {
    }

    /** The server's output ended (stdout closed, HTTP stream ended) or a transport error. */
    record Closed(String why) implements Incoming {
    }
}
