package dev.kiln.ui.events;

import java.time.Instant;

/**
 * One line of the Events page.
 *
 * @param at when it happened
 * @param kind the event's type, in words ({@code TickFinished} → {@code tick finished})
 * @param summary what happened
 */
public record EventRow(Instant at, String kind, String summary, Severity severity, java.util.List<String> output) {
    /** The most folded lines a row keeps (the newest; the count says how many came). */
    public static final int MAX_OUTPUT = 500;

    /**
     * @param severity how much it needs a person (word and colour on the page)
     * @param output lines folded under it (a warm's output), oldest first; empty for most events
     */
    public EventRow {
        output = java.util.List.copyOf(output);
    }

    /** An information row with nothing folded under it. */
    public EventRow(Instant at, String kind, String summary) {
        this(at, kind, summary, Severity.INFO, java.util.List.of());
    }

    /** This row with {@code line} folded under it (the oldest lines dropped past {@link #MAX_OUTPUT}). */
    public EventRow withOutput(String line) {
        java.util.List<String> lines = new java.util.ArrayList<>(output.size() + 1);
        lines.addAll(output.size() >= MAX_OUTPUT ? output.subList(output.size() - MAX_OUTPUT + 1, output.size()) : output);
        lines.add(line);
        return new EventRow(at, kind, summary, severity, lines); // a stderr line is no failure: the warm's end says
    }

    /** This row as what ended it says (a warm's finish: its summary and severity), its folded lines kept. */
    public EventRow endedBy(String endSummary, Severity endSeverity) {
        return new EventRow(at, kind, endSummary, endSeverity, output);
    }
}
