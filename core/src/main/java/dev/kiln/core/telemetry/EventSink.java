package dev.kiln.core.telemetry;

/** Where a capability publishes its events. Publishing never blocks on, or fails because of, a listener. */
@FunctionalInterface
public interface EventSink {

    void publish(KilnEvent event);

    /** A sink that drops everything, for callers that do not observe. */
    static EventSink none() {
        return event -> { };
    }
}
