package dev.kiln.core.startup;

/** Which MCP revision the probe asks for first, as the client it stands in for does. */
public enum HandshakeOrder {
    /**
     * {@code server/discover} (revision 2026-07-28) first; {@code initialize} when the answer is not the modern
     * revision's, on HTTP 400, or after a short silence over stdio. How a client that speaks both starts a server.
     */
    DISCOVER_FIRST,
    /** {@code initialize} first; {@code server/discover} only when the server does not know it. How older clients start. */
    INITIALIZE_FIRST;

    /** The name used in JSON and on the command line: {@code discover-first}, {@code initialize-first}. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** Parses {@link #label()}. */
    public static HandshakeOrder parse(String text) {
        for (HandshakeOrder o : values()) {
            if (o.label().equals(text.trim().toLowerCase(java.util.Locale.ROOT))) {
                return o;
            }
        }
        throw new IllegalArgumentException("handshake order '" + text + "' is not one of discover-first, initialize-first");
    }
}
