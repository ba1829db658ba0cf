package dev.kiln.ui.projection;

import java.time.Duration;

/** How far back the Projection page's charts look; each window is drawn as {@link #BUCKETS} buckets. */
public enum ChartWindow {
    ONE_MINUTE("1 min", Duration.ofMinutes(1)),
    TEN_MINUTES("10 min", Duration.ofMinutes(10)),
    ONE_HOUR("1 h", Duration.ofHours(1));

    /** Buckets per window: a chart's cost does not grow with the tick rate or the window. */
    public static final int BUCKETS = 60;

    private final String label;
    private final Duration span;

    ChartWindow(String label, Duration span) {
        this.label = label;
        this.span = span;
    }

    public String label() {
        return label;
    }

    public Duration span() {
        return span;
    }

    /** One bucket's width: 1 s, 10 s, 60 s. */
    public Duration bucket() {
        return span.dividedBy(BUCKETS);
    }
}
