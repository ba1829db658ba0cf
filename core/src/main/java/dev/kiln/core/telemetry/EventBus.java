package dev.kiln.core.telemetry;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fans events out to subscribers on the publisher's thread.
 *
 * <p>Subscribers must be quick (the console batches onto the FX thread itself). A subscriber that throws is
 * logged and skipped: a broken listener must never break the engine that publishes.
 *
 * <p>Concurrency: thread-safe. {@link #publish} runs on the publisher's thread (a tick, a warm, a probe
 * runner) and may be called from many at once; the subscriber list is copy-on-write, so (un)subscribing never blocks
 * a publisher, and a subscriber added during a publish sees the next event.
 */
public final class EventBus implements EventSink {
    private static final Logger LOG = LoggerFactory.getLogger(EventBus.class);

    private final List<Consumer<? super KilnEvent>> subscribers = new CopyOnWriteArrayList<>();

    /** Subscribes; closing the returned handle unsubscribes. */
    public AutoCloseable subscribe(Consumer<? super KilnEvent> subscriber) {
        subscribers.add(subscriber);
        return () -> subscribers.remove(subscriber);
    }

    @Override
    public void publish(KilnEvent event) {
        for (Consumer<? super KilnEvent> s : subscribers) {
            try {
                s.accept(event);
            } catch (RuntimeException e) {
                LOG.warn("An event subscriber failed on {}; the event was delivered to the others", event.getClass().getSimpleName(), e);
            }
        }
    }

    public int subscriberCount() {
        return subscribers.size();
    }
}
