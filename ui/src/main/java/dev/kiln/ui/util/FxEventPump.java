package dev.kiln.ui.util;

import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import javafx.animation.AnimationTimer;

/**
 * Batches core events onto the FX thread: publishers enqueue from any thread, and at most once per frame the
 * queued events are handed to the UI as one list. However fast the engine publishes, the UI updates once a frame.
 */
public final class FxEventPump implements AutoCloseable {
    private final ConcurrentLinkedQueue<KilnEvent> queue = new ConcurrentLinkedQueue<>();
    private final AutoCloseable subscription;
    private final AnimationTimer timer;

    public FxEventPump(EventBus bus, Consumer<List<KilnEvent>> onFrame) {
        this.subscription = bus.subscribe(queue::add);
        this.timer = new AnimationTimer() {
            @Override
            public void handle(long now) {
                if (queue.isEmpty()) {
                    return;
                }
                List<KilnEvent> batch = new ArrayList<>();
                for (KilnEvent e; (e = queue.poll()) != null; ) {
                    batch.add(e);
                }
                onFrame.accept(batch);
            }
        };
        timer.start();
    }

    @Override
    public void close() {
        timer.stop();
        try {
            subscription.close();
        } catch (Exception e) {
            // EventBus handles never throw; nothing to undo.
        }
    }
}
