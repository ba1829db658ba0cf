package dev.kiln.core.alert;

import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.telemetry.KilnEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * Evaluates alert rules against samples, as Prometheus' rule manager does: a rule whose comparison holds for some
 * series is pending; once it has held for its duration it fires ({@link AlertFired}, once); when it stops holding a
 * firing rule is resolved ({@link AlertResolved}) and a pending one is dropped. A rule whose metric has no series
 * does not hold. Time comes from the injected clock, so tests move it instead of waiting.
 *
 * <p>Concurrency: {@link #evaluate} and {@link #active()} are serialized on this object (guarded by {@code this});
 * events are published on the evaluating thread, after the state changed.
 */
public final class Alerts {
    private final List<AlertRule> rules;
    private final Clock clock;
    private final EventSink events;
    private final Map<String, Alert> active = new HashMap<>(); // guarded by this, by rule name

    public Alerts(List<AlertRule> rules, Clock clock, EventSink events) {
        this.rules = List.copyOf(rules);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.events = Objects.requireNonNull(events, "events");
    }

    public List<AlertRule> rules() {
        return rules;
    }

    /**
     * One evaluation at the clock's now.
     *
     * @param samples series by Kiln's metric names ({@code name} or {@code name{label="v"}}: a rule without a matcher
     *     matches every series of its name)
     * @return the rules active after it, firing first
     */
    public List<Alert> evaluate(Map<String, List<Double>> samples) {
        Instant now = clock.instant();
        List<KilnEvent> publish = new ArrayList<>();
        List<Alert> result;
        synchronized (this) {
            for (AlertRule r : rules) {
                OptionalDouble v = holding(r, samples);
                Alert was = active.get(r.name());
                if (v.isEmpty()) {
                    if (was != null) {
                        active.remove(r.name());
                        if (was.firing()) {
                            publish.add(new AlertResolved(now, r, was.since()));
                        }
                    }
                    continue;
                }
                Instant pendingSince = was == null ? now : was.since();
                if (was != null && was.firing()) {
                    active.put(r.name(), new Alert(r, true, was.since(), v.getAsDouble()));
                } else if (Duration.between(pendingSince, now).compareTo(r.duration()) >= 0) {
                    Alert fired = new Alert(r, true, now, v.getAsDouble());
                    active.put(r.name(), fired);
                    publish.add(new AlertFired(now, fired));
                } else {
                    active.put(r.name(), new Alert(r, false, pendingSince, v.getAsDouble()));
                }
            }
            result = sorted();
        }
        for (KilnEvent e : publish) {
            events.publish(e);
        }
        return result;
    }

    /** The rules active now, firing first, then by name. */
    public synchronized List<Alert> active() {
        return sorted();
    }

    private List<Alert> sorted() {
        return active.values().stream()
                .sorted(java.util.Comparator.comparing((Alert a) -> !a.firing()).thenComparing(a -> a.rule().name()))
                .toList();
    }

    /** The first value of a matching series that holds, if any does. */
    static OptionalDouble holding(AlertRule r, Map<String, List<Double>> samples) {
        boolean labelled = r.metric().indexOf('{') >= 0;
        for (Map.Entry<String, List<Double>> s : samples.entrySet()) {
            String key = s.getKey();
            boolean matches = labelled ? key.equals(r.metric())
                    : key.equals(r.metric()) || key.startsWith(r.metric() + "{");
            if (!matches) {
                continue;
            }
            for (double v : s.getValue()) {
                if (r.comparison().test(v, r.threshold())) {
                    return OptionalDouble.of(v);
                }
            }
        }
        return OptionalDouble.empty();
    }
}
